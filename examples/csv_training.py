"""Train a Layers model from a 100,000-row CSV streamed through tf.data, memory flat.

The pipeline is TF.js's idiom: ``tf.data.csv`` (the labelled column gives
``{'xs': {...}, 'ys': {...}}``) -> ``map`` (rows to plain number lists) -> ``shuffle`` ->
``batch`` (lists become tensors) -> ``prefetch`` (parsing runs ahead on a background
thread while the model trains). A ``tf.sequential`` MLP compiled with ``'adam'``,
``binaryCrossentropy`` and accuracy trains on it with ``model.fit_dataset`` (progress
output included), validating on a second CSV, then ``model.evaluate_dataset`` scores it.

Printed per epoch: wall time, ``num_tensors`` at the end of the epoch (must be the same
from epoch 2 on: epoch 1 creates Adam's slots), current RSS and peak RSS so far. Then the
memory figures:

- baseline: the process's RSS just before ``fit_dataset`` (``VmRSS``);
- peak during training: ``VmHWM`` after resetting the high-water mark just before
  training (``/proc/self/clear_refs``), and the lifetime ``ru_maxrss``;
- batch working set: the bytes of one batch's tensors + the model's weights + the
  optimizer's state + the peak of one training step's own tensors (activations,
  gradients, update temporaries: the engine's peak of live buffer bytes during one extra
  step after training, each buffer counted once, minus what was live before it).

Run: ``python examples/csv_training.py [--rows 100000] [--val-rows 10000] [--epochs 10]
[--batch-size 256] [--prefetch 4] [--shuffle 2048] [--verbose 1]``
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import resource
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import tidytensor as tf
import tidytensor.data  # noqa: F401  (tf.data)
from tidytensor.dtypes import BYTES_PER_ELEMENT

FEATURES = 8
HIDDEN = 32


# ----------------------------------------------------------------------------- data
def write_csv(path: str, rows: int, seed: int = 0) -> None:
    """A binary classification problem: ``label = [w . x + noise > 0]`` (``w`` fixed by
    ``seed=0`` so a validation file drawn with another seed has the same rule)."""
    w = np.random.default_rng(0).normal(size=FEATURES)
    rng = np.random.default_rng(seed + 1)
    header = ",".join(f"f{i}" for i in range(FEATURES)) + ",label\n"
    with open(path, "w") as f:
        f.write(header)
        for start in range(0, rows, 10_000):  # chunks: the writer's own RSS stays small
            n = min(10_000, rows - start)
            x = rng.normal(size=(n, FEATURES))
            label = (x @ w + 0.3 * rng.normal(size=n) > 0).astype(np.int32)
            f.writelines(
                ",".join(f"{v:.5f}" for v in row) + f",{y}\n"
                for row, y in zip(x, label, strict=True)
            )


def make_dataset(path: str, batch_size: int, shuffle: int, prefetch: int) -> tf.data.Dataset:
    ds = tf.data.csv(path, column_configs={"label": {"is_label": True}}).map(
        lambda e: {"xs": list(e["xs"].values()), "ys": [e["ys"]["label"]]}
    )
    if shuffle > 0:
        ds = ds.shuffle(shuffle, seed=0)
    ds = ds.batch(batch_size)
    return ds.prefetch(prefetch) if prefetch > 0 else ds


def build_model() -> Any:
    model = tf.sequential()
    model.add(tf.layers.dense(units=HIDDEN, activation="relu", input_shape=[FEATURES]))
    model.add(tf.layers.dense(units=HIDDEN, activation="relu"))
    model.add(tf.layers.dense(units=1, activation="sigmoid"))
    model.compile(optimizer="adam", loss="binaryCrossentropy", metrics=["accuracy"])
    return model


# --------------------------------------------------------------------------- memory
def _status_kib(key: str) -> int | None:
    """A ``/proc/self/status`` field in KiB (``VmRSS``, ``VmHWM``); None off Linux."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def rss_mib() -> float:
    kib = _status_kib("VmRSS")
    return float("nan") if kib is None else kib / 1024


def hwm_mib() -> float:
    kib = _status_kib("VmHWM")
    return float("nan") if kib is None else kib / 1024


def maxrss_mib() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024  # bytes / KiB


def reset_hwm() -> bool:
    """Resets ``VmHWM`` to the current RSS (Linux >= 4.0); False where that is refused."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def nbytes(shape: Any, dtype: str) -> int:
    return math.prod(shape) * BYTES_PER_ELEMENT.get(dtype, 0)


def tensors_in(value: Any) -> list[tf.Tensor]:
    if isinstance(value, tf.Tensor):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in tensors_in(v)]
    return []


@dataclass
class WorkingSet:
    batch: int
    weights: int
    optimizer_state: int
    step: int

    @property
    def total(self) -> int:
        return self.batch + self.weights + self.optimizer_state + self.step


def measure_working_set(model: Any, batch: dict) -> WorkingSet:
    """The batch working set of ``model`` training on ``batch`` (one more training step:
    run it after training). Every figure comes from tensor sizes."""
    batch_bytes = sum(nbytes(t.shape, t.dtype) for t in tensors_in(batch))
    weight_bytes = sum(nbytes(w.shape, w.dtype) for w in model.weights)
    state = model.optimizer.get_weights()  # [{'iter': new scalar}, slot variables...]
    state_bytes = sum(nbytes(s["tensor"].shape, s["tensor"].dtype) for s in state[1:])
    state[0]["tensor"].dispose()
    # Each live buffer counted once: the engine's peak of live buffer bytes over the step,
    # above the tensors alive before it. What the step keeps between calls (a compiled
    # step's scratch arrays, the kernels' pools) is part of its working set.
    engine = tf.engine()
    before = tf.memory()
    engine.reset_memory_stats()
    model.train_on_batch(batch["xs"], batch["ys"])
    step_peak = engine.state.peak_bytes - before.num_bytes
    before_tensors = before.num_tensors
    if tf.memory().num_tensors != before_tensors:
        raise RuntimeError("a training step kept tensors")
    return WorkingSet(batch_bytes, weight_bytes, state_bytes, step_peak)


# ----------------------------------------------------------------------------- run
@dataclass
class EpochStats:
    epoch: int
    seconds: float
    num_tensors: int
    rss_mib: float
    peak_mib: float
    logs: dict[str, float]


@dataclass
class Report:
    epochs: list[EpochStats] = field(default_factory=list)
    num_tensors_start: int = 0
    num_tensors_end: int = 0
    eval_loss: float = float("nan")
    eval_acc: float = float("nan")
    working_set: WorkingSet | None = None
    baseline_mib: float = float("nan")
    peak_mib: float = float("nan")
    hwm_reset: bool = False

    @property
    def counts_from_epoch_2(self) -> list[int]:
        return [e.num_tensors for e in self.epochs[1:]]

    @property
    def flat(self) -> bool:
        return len(set(self.counts_from_epoch_2)) <= 1

    @property
    def leak_free(self) -> bool:
        return self.num_tensors_end == self.num_tensors_start

    @property
    def ok(self) -> bool:
        return self.flat and self.leak_free


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--val-rows", type=int, default=10_000)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--shuffle", type=int, default=2048, help="shuffle buffer (0: none)")
    parser.add_argument("--prefetch", type=int, default=4, help="batches produced ahead (0: none)")
    parser.add_argument("--verbose", type=int, default=1, help="fit_dataset's progress (0: none)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> Report:
    """Runs the example; returns its figures (``report.ok``: num_tensors flat from epoch 2
    and nothing left behind once the model is disposed)."""
    args = parse_args(argv)
    report = Report(num_tensors_start=tf.memory().num_tensors)
    tmp = tempfile.mkdtemp(prefix="tidytensor-csv-")
    try:
        train_path = os.path.join(tmp, "train.csv")
        val_path = os.path.join(tmp, "val.csv")
        t0 = time.perf_counter()
        write_csv(train_path, args.rows, seed=0)
        write_csv(val_path, args.val_rows, seed=1)
        print(
            f"wrote {args.rows:,} training rows ({os.path.getsize(train_path) / 2**20:.1f} MiB)"
            f" and {args.val_rows:,} validation rows in {time.perf_counter() - t0:.1f} s"
        )
        train = make_dataset(train_path, args.batch_size, args.shuffle, args.prefetch)
        val = make_dataset(val_path, args.batch_size, 0, args.prefetch)
        model = build_model()
        try:
            _train(model, train, val, val_path, args, report)
        finally:
            model.dispose()  # weights, and the optimizer compile() made from 'adam'
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    report.num_tensors_end = tf.memory().num_tensors
    _print_summary(report, args)
    print(
        "\nresult: "
        + (
            "memory is flat (the same tensor count at every epoch end from epoch 2) and "
            "nothing is left after disposing the model"
            if report.ok
            else "FAILED: the tensor count grew across epochs or tensors were left behind"
        )
    )
    return report


def _train(
    model: Any, train: Any, val: Any, batch_source: str, args: argparse.Namespace, report: Report
) -> None:
    started: list[float] = []

    def on_epoch_begin(epoch: int) -> None:
        started.append(time.perf_counter())

    def on_epoch_end(epoch: int, logs: dict[str, Any]) -> None:
        stats = EpochStats(
            epoch + 1,
            time.perf_counter() - started[-1],
            tf.memory().num_tensors,
            rss_mib(),
            hwm_mib() if report.hwm_reset else maxrss_mib(),
            {k: float(v) for k, v in logs.items()},
        )
        report.epochs.append(stats)
        print(
            f"  epoch {stats.epoch}: {stats.seconds:.2f} s, num_tensors {stats.num_tensors}, "
            f"RSS {stats.rss_mib:.1f} MiB, peak RSS so far {stats.peak_mib:.1f} MiB",
            flush=True,
        )

    gc.collect()
    report.baseline_mib = rss_mib()
    report.hwm_reset = reset_hwm()
    print(
        f"RSS before training: {report.baseline_mib:.1f} MiB "
        f"(lifetime peak so far {maxrss_mib():.1f} MiB; "
        f"VmHWM {'reset here' if report.hwm_reset else 'could not be reset'})",
        flush=True,
    )
    t0 = time.perf_counter()
    model.fit_dataset(
        train,
        epochs=args.epochs,
        validation_data=val,
        verbose=args.verbose,
        callbacks=tf.CustomCallback(on_epoch_begin=on_epoch_begin, on_epoch_end=on_epoch_end),
    )
    total = time.perf_counter() - t0
    report.peak_mib = hwm_mib() if report.hwm_reset else maxrss_mib()
    print(
        f"trained {args.epochs} epochs in {total:.1f} s "
        f"({args.rows * args.epochs / total:,.0f} rows/s incl. validation)"
    )

    result = model.evaluate_dataset(val)
    report.eval_loss, report.eval_acc = (float(t.data_sync()[0]) for t in result)
    tf.dispose(result)
    print(
        f"evaluate_dataset on {args.val_rows:,} rows: loss {report.eval_loss:.4f}, "
        f"accuracy {report.eval_acc:.4f}"
    )

    # One full batch, unshuffled and not prefetched, for the working-set measurement.
    it = make_dataset(batch_source, args.batch_size, 0, 0).iterator()
    try:
        batch = it.next().value
    finally:
        it.close()
    try:
        report.working_set = measure_working_set(model, batch)
    finally:
        tf.dispose(tensors_in(batch))


def _print_summary(report: Report, args: argparse.Namespace) -> None:
    print()
    print("epoch  time_s  num_tensors  rss_MiB  peak_rss_MiB    loss     acc  val_loss  val_acc")
    for e in report.epochs:
        lg = e.logs
        print(
            f"{e.epoch:5d} {e.seconds:7.2f} {e.num_tensors:12d} {e.rss_mib:8.1f} {e.peak_mib:13.1f}"
            f" {lg.get('loss', math.nan):7.4f} {lg.get('acc', math.nan):7.4f}"
            f" {lg.get('val_loss', math.nan):9.4f} {lg.get('val_acc', math.nan):8.4f}"
        )
    times = [e.seconds for e in report.epochs]
    if times:
        print(
            f"wall time per epoch: mean {sum(times) / len(times):.2f} s, "
            f"min {min(times):.2f} s, max {max(times):.2f} s "
            f"(batch {args.batch_size}, {math.ceil(args.rows / args.batch_size)} steps + validation)"
        )
    counts = sorted(set(report.counts_from_epoch_2))
    print(f"num_tensors at epoch ends: {[e.num_tensors for e in report.epochs]}")
    print(f"num_tensors from epoch 2: {counts} -> {'flat' if report.flat else 'NOT FLAT'}")
    print(
        f"num_tensors before the pipeline and model: {report.num_tensors_start}, after disposing "
        f"the model: {report.num_tensors_end} -> {'no leak' if report.leak_free else 'LEAK'}"
    )
    ws = report.working_set
    if ws is None:
        return
    print()
    print(
        f"batch working set: {ws.total / 1024:.1f} KiB = batch {ws.batch / 1024:.1f} KiB"
        f" + weights {ws.weights / 1024:.1f} KiB + Adam state {ws.optimizer_state / 1024:.1f} KiB"
        f" + one step's activations/gradients (peak) {ws.step / 1024:.1f} KiB"
    )
    growth = report.peak_mib - report.baseline_mib
    how = "VmHWM since reset" if report.hwm_reset else "ru_maxrss (lifetime)"
    ratio = growth * 2**20 / ws.total
    print(
        f"RSS baseline {report.baseline_mib:.1f} MiB, peak during training {report.peak_mib:.1f}"
        f" MiB ({how}), lifetime ru_maxrss {maxrss_mib():.1f} MiB"
    )
    print(
        f"peak RSS growth over baseline: {growth:.2f} MiB = {ratio:.1f}x the working set "
        f"({ws.total / 2**20:.3f} MiB)"
    )
    if len(report.epochs) >= 2:
        later = max(e.peak_mib for e in report.epochs[1:]) - report.epochs[0].peak_mib
        print(f"peak RSS growth after epoch 1 (epochs 2..{len(report.epochs)}): {later:.2f} MiB")
    print(
        "(RSS figures are for information: besides the tensors, the process's RSS holds "
        "NumPy's and Python's allocator caches, the CSV reader's buffers and the prefetch "
        "queue, so its growth can exceed the working set without a leak; the leak checks "
        "are the tensor counts above.)"
    )


if __name__ == "__main__":
    raise SystemExit(0 if main().ok else 1)
