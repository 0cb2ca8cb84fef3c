"""Seed 003's lesson: load a model once and reuse it. Loading and disposing the same model 50
times returns tf.memory() exactly to its baseline, and 10,000 predict calls on one loaded
model inside tidy keep it flat."""

from __future__ import annotations

import numpy as np
from io_test_helpers import (  # noqa: F401 - autouse fixtures
    GOLDEN_IO,
    dense_model,
    fresh_layer_names,
    memory_counts,
    private_model_store,
    read_record,
    record_inputs,
)

import tidytensor as tf


def test_load_and_dispose_50_times_returns_to_baseline(tmp_path):
    model = dense_model()
    tf.io.save_model(model, str(tmp_path / "m"), shard_size_bytes=24)
    model.dispose()
    baseline = memory_counts()
    x = np.ones((2, 4), np.float32)
    first = None
    for _ in range(50):
        loaded = tf.io.load_layers_model(str(tmp_path / "m"))
        assert memory_counts()[0] == baseline[0] + 4  # one variable per weight, nothing else
        y = tf.tidy(lambda m=loaded: m.predict(tf.tensor(x)).numpy())
        first = y if first is None else first
        np.testing.assert_array_equal(y, first)
        result = loaded.dispose()
        assert result.ref_count_after_dispose == 0 and result.num_disposed_variables == 4
        assert memory_counts() == baseline
    assert len(tf.engine().state.registered_variables) == 0


def test_fixture_load_dispose_cycles_return_to_baseline():
    for name in ("sharded_groups", "nested", "quantized_uint8", "keras3_vars", "compiled_adam"):
        baseline = memory_counts()
        for _ in range(3):
            tf.io.load_layers_model(str(GOLDEN_IO / name)).dispose()
            assert memory_counts() == baseline, name


def test_10000_predicts_inside_tidy_stay_flat():
    model = tf.io.load_layers_model(str(GOLDEN_IO / "dense"))
    record = read_record(GOLDEN_IO / "dense")
    (x,) = record_inputs(record)
    baseline = memory_counts()

    def one() -> None:
        model.predict(x)

    for i in range(10_000):
        tf.tidy(one)
        if i % 2500 == 0:
            assert memory_counts() == baseline
    assert memory_counts() == baseline
    # Without tidy or dispose, predict leaks exactly its one output per call (TF.js's +1).
    ys = [model.predict(x) for _ in range(3)]
    assert memory_counts()[0] == baseline[0] + 3
    tf.dispose(ys)
    model.dispose()
    tf.dispose(x)
