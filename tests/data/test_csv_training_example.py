"""examples/csv_training.py on a small CSV: the tf.data pipeline (csv -> map -> shuffle ->
batch -> prefetch) feeds ``model.fit_dataset`` and ``evaluate_dataset``; num_tensors is the
same at the end of every epoch, and once the model is disposed nothing is left behind."""

from __future__ import annotations

import gc
import importlib.util
import math
import re
import sys
from pathlib import Path

import pytest

import tidytensor as tf

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "csv_training.py"


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("csv_training_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve their module by name
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)


def snapshot():
    m = tf.memory()
    return (m.num_tensors, m.num_data_buffers, m.num_bytes)


ARGS = ["--rows", "2000", "--val-rows", "500", "--epochs", "2", "--batch-size", "128"]
ARGS += ["--shuffle", "512", "--prefetch", "3"]


def test_small_csv_run_is_flat_and_leaves_nothing_behind(example, capsys):
    gc.collect()
    before = snapshot()
    report = example.main(ARGS)
    gc.collect()
    assert snapshot() == before
    assert tf.leaks() == []
    assert report.ok
    assert report.num_tensors_end == report.num_tensors_start == before[0]

    assert [e.epoch for e in report.epochs] == [1, 2]
    counts = [e.num_tensors for e in report.epochs]
    # Weights (6) + Adam's two slots per weight (12) + its two beta accumulators: every epoch.
    assert counts == [before[0] + 20] * 2
    for e in report.epochs:
        assert e.seconds > 0
        assert math.isfinite(e.logs["loss"]) and math.isfinite(e.logs["val_loss"])
        assert 0 <= e.logs["acc"] <= 1 and 0 <= e.logs["val_acc"] <= 1
    assert report.epochs[1].logs["loss"] < report.epochs[0].logs["loss"]
    assert math.isfinite(report.eval_loss) and report.eval_acc > 0.5
    # evaluate_dataset after training scores the same model as the last validation pass.
    assert report.eval_loss == pytest.approx(report.epochs[-1].logs["val_loss"], rel=1e-5)

    ws = report.working_set
    weights = (8 * 32 + 32 + 32 * 32 + 32 + 32 * 1 + 1) * 4
    assert ws.batch == 128 * (8 + 1) * 4
    assert ws.weights == weights
    assert ws.optimizer_state == 2 * weights
    # At least the forward activations ([128, 32] float32, two hidden layers) are live at
    # the step's peak.
    assert ws.step >= 2 * 128 * 32 * 4
    assert ws.total == ws.batch + ws.weights + ws.optimizer_state + ws.step

    out = capsys.readouterr().out
    # fit_dataset's progress (captured output is not a terminal: one line per epoch).
    progress = re.findall(r"^Epoch (\d)/2 - .* - loss: \S+ - acc: \S+ - val_loss: ", out, re.M)
    assert progress == ["1", "2"]
    assert "num_tensors from epoch 2: [" in out and "-> flat" in out
    assert "-> no leak" in out
    assert re.search(
        r"peak RSS growth over baseline: -?[\d.]+ MiB = -?[\d.]+x the working set", out
    )
    # The RSS figures are information, not a check that reads as failed.
    assert "ABOVE" not in out and "(RSS figures are for information" in out
    assert out.rstrip().endswith(
        "result: memory is flat (the same tensor count at every epoch end from epoch 2) and "
        "nothing is left after disposing the model"
    )


def test_epoch_counts_would_expose_a_leak(example, capsys):
    """The flatness check is not vacuous: a tensor kept per epoch shows in the report."""
    kept = []
    original = example.rss_mib

    def leaky_rss():
        kept.append(tf.scalar(1))  # called once per epoch end (and once before training)
        return original()

    example.rss_mib = leaky_rss
    try:
        report = example.main(
            ["--rows", "600", "--val-rows", "100", "--epochs", "3", "--verbose", "0"]
        )
    finally:
        example.rss_mib = original
        tf.dispose(kept)
    assert not report.flat and not report.leak_free
    assert "result: FAILED: the tensor count grew" in capsys.readouterr().out
