"""Train from a 100,000-row CSV streamed through tf.data, with memory flat across epochs.

The pipeline is TF.js's idiom: ``csv`` (labelled column -> ``{'xs': {...}, 'ys': {...}}``)
-> ``map`` (rows to plain number lists) -> ``shuffle`` -> ``batch`` (lists become tensors)
-> ``prefetch`` (parsing runs ahead on a background thread while the model trains). The
model is a small MLP written with plain ops, ``tf.variable`` and ``tf.train.adam``.

Every batch is borrowed (``ds.borrow()`` disposes it when the loop moves on), each step
runs in ``optimizer.minimize`` (which frees its intermediates), so ``num_tensors`` must be
the same after every epoch from the second on (the first one creates Adam's slots). The
script checks that and prints, per epoch: time, loss, accuracy, ``num_tensors``, and the
process's peak RSS (``resource.getrusage``).

Run: ``python examples/csv_training.py [--rows 100000] [--epochs 10] [--batch-size 256]
[--prefetch 4]``
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time

import numpy as np

import tidytensor as tf
import tidytensor.data  # noqa: F401  (tf.data)

FEATURES = 8
HIDDEN = 16


def write_csv(path: str, rows: int, seed: int = 0) -> None:
    """A binary classification problem: label = [w . x + noise > 0]."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=FEATURES)
    x = rng.normal(size=(rows, FEATURES)).astype(np.float32)
    label = (x @ w + 0.3 * rng.normal(size=rows) > 0).astype(np.int32)
    header = ",".join(f"f{i}" for i in range(FEATURES)) + ",label\n"
    with open(path, "w") as f:
        f.write(header)
        for start in range(0, rows, 10_000):
            chunk = x[start : start + 10_000]
            labels = label[start : start + 10_000]
            f.writelines(
                ",".join(f"{v:.5f}" for v in row) + f",{y}\n"
                for row, y in zip(chunk, labels, strict=True)
            )


def make_dataset(path: str, batch_size: int, prefetch: int) -> tf.data.Dataset:
    ds = (
        tf.data.csv(path, column_configs={"label": {"is_label": True}})
        .map(lambda e: {"xs": list(e["xs"].values()), "ys": [e["ys"]["label"]]})
        .shuffle(2048, seed=0)
        .batch(batch_size)
    )
    return ds.prefetch(prefetch) if prefetch > 0 else ds


def parameter(initial: tf.Tensor, name: str) -> tf.Variable:
    """A trainable variable; the initial tensor's handle is freed (the variable shares its buffer)."""
    v = tf.variable(initial, name=name)
    initial.dispose()
    return v


def peak_rss_mib() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024 / (1024 if sys.platform == "darwin" else 1)  # bytes on macOS, KiB on Linux


def current_rss_mib() -> float:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--prefetch", type=int, default=4, help="batches produced ahead (0: none)")
    args = parser.parse_args()

    tmp = tempfile.mkdtemp(prefix="tidytensor-csv-")
    path = os.path.join(tmp, "train.csv")
    t0 = time.perf_counter()
    write_csv(path, args.rows)
    print(
        f"wrote {args.rows:,} rows ({os.path.getsize(path) / 2**20:.1f} MiB) in {time.perf_counter() - t0:.1f} s"
    )

    w1 = parameter(tf.random_normal([FEATURES, HIDDEN], 0, 0.3, "float32", 1), "w1")
    b1 = parameter(tf.zeros([HIDDEN]), "b1")
    w2 = parameter(tf.random_normal([HIDDEN, 1], 0, 0.3, "float32", 2), "w2")
    b2 = parameter(tf.zeros([1]), "b2")
    optimizer = tf.train.adam(0.01)

    def predict_logits(xs: tf.Tensor) -> tf.Tensor:
        return xs.mat_mul(w1).add(b1).relu().mat_mul(w2).add(b2)

    ds = make_dataset(path, args.batch_size, args.prefetch)
    batch_bytes = args.batch_size * (FEATURES + 1) * 4
    print(
        f"batch working set: {batch_bytes / 1024:.1f} KiB ({args.batch_size} x {FEATURES + 1} float32)"
    )
    print(
        f"RSS before training: {current_rss_mib():.1f} MiB (peak so far {peak_rss_mib():.1f} MiB)"
    )
    print()
    print("epoch   time_s   rows/s     loss   acc  num_tensors  rss_MiB  peak_rss_MiB")
    counts = []
    total_time = 0.0
    for epoch in range(1, args.epochs + 1):
        start = time.perf_counter()
        loss_sum, correct, seen = 0.0, 0.0, 0
        for batch in ds.borrow():
            xs, ys = batch["xs"], batch["ys"]
            cost = optimizer.minimize(
                lambda xs=xs, ys=ys: tf.losses.sigmoid_cross_entropy(ys, predict_logits(xs)),
                return_cost=True,
            )
            n = xs.shape[0]
            loss_sum += cost.array_sync() * n
            cost.dispose()
            correct += tf.tidy(
                lambda xs=xs, ys=ys: (
                    predict_logits(xs).greater(0).cast("float32").equal(ys).sum().array_sync()
                )
            )
            seen += n
        elapsed = time.perf_counter() - start
        total_time += elapsed
        counts.append(tf.memory().num_tensors)
        print(
            f"{epoch:5d} {elapsed:8.2f} {seen / elapsed:8.0f} {loss_sum / seen:8.4f} {correct / seen:5.3f}"
            f" {counts[-1]:12d} {current_rss_mib():8.1f} {peak_rss_mib():13.1f}"
        )
    print()
    print(f"total {total_time:.1f} s, {args.rows * args.epochs / total_time:,.0f} rows/s")
    flat = len(set(counts[1:])) <= 1
    print(
        f"num_tensors from epoch 2: {sorted(set(counts[1:]))} -> {'flat' if flat else 'NOT FLAT'}"
    )
    optimizer.dispose()
    tf.dispose_variables()
    print(f"num_tensors after disposing the model and optimizer: {tf.memory().num_tensors}")
    os.remove(path)
    os.rmdir(tmp)
    return 0 if flat else 1


if __name__ == "__main__":
    raise SystemExit(main())
