"""Soak run: long workloads that must leak nothing (issue 13).

Usage::

    python benchmarks/soak.py            # full run (several minutes)
    python benchmarks/soak.py --quick    # the same workloads, shortened (well under a minute)
    python benchmarks/soak.py --only adam,predict

Workloads (full sizes; ``--quick`` divides them):

- ``mlp_fit``: a dense 8 -> 32 -> 32 -> 1 model, ``fit`` for 20 epochs of 100 batches (Adam);
- ``lstm_fit``: LSTM(8) over [6, 4] -> Dense(1), ``fit`` for 20 epochs of 10 batches (RMSProp);
- ``predict``: 10,000 ``predict`` calls of the MLP on a [16, 8] batch;
- ``adam``: 2,000 ``minimize`` steps of Adam on four variables;
- ``save_load``: 50 cycles of ``model.save`` to a directory and ``load_layers_model``;
- ``fit_dataset``: 10 epochs of ``fit_dataset`` on a zipped, shuffled, batched ``tf.data``
  pipeline (50 batches an epoch, SGD);
- ``threads``: 8 threads x 2,000 ``tf.tidy`` calls each, at the same time;
- ``asyncio``: 100 tasks, each a ``tidy_scope`` across ``await``, on one event loop.

For each, the baseline is tf.memory() and the process's RSS after one warm-up iteration (an
optimizer makes its slots on its first step). Every 1,000 iterations (and at the end) a row
gives the tensors and bytes still alive beyond the baseline ("leaked": must be 0) and the RSS
growth since the previous row, per 1,000 iterations. After the workload has disposed what it
made, tf.memory() must be back to its value before the workload, exactly. The script exits
with status 1 if anything leaked.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import os
import platform
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

import tidytensor as tf  # noqa: E402
import tidytensor.layers as L  # noqa: E402

EVERY = 1000
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def rss_bytes() -> int:
    """The resident set size now (``/proc/self/statm``); elsewhere the peak (``getrusage``)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * _PAGE
    except OSError:
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def counts() -> tuple[int, int]:
    m = tf.memory()
    return m.num_tensors, m.num_bytes


@dataclass
class Meter:
    """Checkpoints of one workload: (iterations, leaked tensors, leaked bytes, RSS bytes)."""

    name: str
    base: tuple[int, int] = (0, 0)
    base_rss: int = 0
    rows: list[tuple[int, int, int, int]] = field(default_factory=list)

    def start(self) -> None:
        self.base, self.base_rss = counts(), rss_bytes()

    def check(self, iterations: int) -> None:
        n, b = counts()
        self.rows.append((iterations, n - self.base[0], b - self.base[1], rss_bytes()))

    def tick(self, iterations: int) -> None:
        if iterations % EVERY == 0:
            self.check(iterations)

    @property
    def leaked(self) -> bool:
        return any(r[1] != 0 or r[2] != 0 for r in self.rows)


@dataclass
class Result:
    meter: Meter
    before: tuple[int, int]
    after: tuple[int, int]
    seconds: float

    @property
    def ok(self) -> bool:
        return not self.meter.leaked and self.before == self.after


# ------------------------------------------------------------------------------ models
def mlp() -> tf.layers.LayersModel:
    model = L.models.sequential(
        [
            L.dense(units=32, activation="relu", input_shape=[8]),
            L.dense(units=32, activation="relu"),
            L.dense(units=1),
        ]
    )
    model.compile(optimizer="adam", loss="meanSquaredError")
    return model


def data(rows: int, shape: list[int], seed: int) -> tuple[tf.Tensor, tf.Tensor]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=[rows, *shape]).astype("float32")
    y = x.reshape(rows, -1).sum(axis=1, keepdims=True).astype("float32")
    return tf.tensor(x), tf.tensor(y)


def batch_end_meter(meter: Meter, total_steps: int) -> Callable:
    """An ``on_batch_end`` callback that checkpoints every 1,000 steps and at the last one
    (inside the fit, so that the fit's own per-epoch tensors are alive at every row)."""
    steps = [0]

    def on_batch_end(batch, logs):
        steps[0] += 1
        if steps[0] == 1:
            meter.start()  # after the first step: the optimizer has made its slots
        if steps[0] % EVERY == 0 or steps[0] == total_steps:
            meter.check(steps[0])

    return on_batch_end


def fit_steps(meter: Meter, model, x, y, epochs: int, batch_size: int) -> None:
    total = epochs * -(-x.shape[0] // batch_size)
    model.fit(
        x,
        y,
        epochs=epochs,
        batch_size=batch_size,
        shuffle=True,
        verbose=0,
        callbacks={"on_batch_end": batch_end_meter(meter, total)},
    )


# ------------------------------------------------------------------------------ workloads
def w_mlp_fit(meter: Meter, scale: int) -> None:
    x, y = data(3200, [8], 1)
    model = mlp()
    fit_steps(meter, model, x, y, epochs=max(1, 20 // scale), batch_size=32)
    model.dispose()
    tf.dispose([x, y])


def w_lstm_fit(meter: Meter, scale: int) -> None:
    x, y = data(160, [6, 4], 2)
    model = L.models.sequential([L.lstm(units=8, input_shape=[6, 4]), L.dense(units=1)])
    model.compile(optimizer="rmsprop", loss="meanSquaredError")
    fit_steps(meter, model, x, y, epochs=max(1, 20 // scale), batch_size=16)
    model.dispose()
    tf.dispose([x, y])


def w_predict(meter: Meter, scale: int) -> None:
    model = mlp()
    x = tf.tensor(np.random.default_rng(3).normal(size=[16, 8]).astype("float32"))
    model.predict(x).dispose()
    meter.start()
    for i in range(1, 10_000 // scale + 1):
        model.predict(x).dispose()
        meter.tick(i)
    if (10_000 // scale) % EVERY:
        meter.check(10_000 // scale)
    model.dispose()
    x.dispose()


def w_adam(meter: Meter, scale: int) -> None:
    rng = np.random.default_rng(4)
    variables = [
        tf.tidy(
            lambda i=i, s=s: tf.variable(
                tf.tensor(rng.normal(size=s).astype("float32")), True, f"soak_{i}"
            )
        )
        for i, s in enumerate([[16, 16], [16], [16, 4], [4]])
    ]
    x = tf.tensor(rng.normal(size=[32, 16]).astype("float32"))
    opt = tf.train.adam(0.01)

    def loss():
        h = tf.relu(tf.add(tf.mat_mul(x, variables[0]), variables[1]))
        return tf.mean(tf.square(tf.add(tf.mat_mul(h, variables[2]), variables[3])))

    opt.minimize(loss)
    meter.start()
    n = 2000 // scale
    for i in range(1, n + 1):
        opt.minimize(loss)
        meter.tick(i)
    if n % EVERY:
        meter.check(n)
    opt.dispose()
    tf.dispose([x, *variables])


def w_save_load(meter: Meter, scale: int) -> None:
    model = mlp()
    n = max(2, 50 // scale)
    with tempfile.TemporaryDirectory() as tmp:

        def cycle(i: int) -> None:
            target = os.path.join(tmp, f"m{i % 2}")
            model.save(target)
            tf.io.load_layers_model(target).dispose()

        cycle(0)
        meter.start()
        for i in range(1, n + 1):
            cycle(i)
        meter.check(n)
    model.dispose()


def w_fit_dataset(meter: Meter, scale: int) -> None:
    rng = np.random.default_rng(5)
    xs = rng.normal(size=[1600, 8]).astype("float32")
    ys = xs.sum(axis=1, keepdims=True).astype("float32")
    ds = (
        tf.data.zip({"xs": tf.data.array(list(xs)), "ys": tf.data.array(list(ys))})
        .shuffle(256, seed=6)
        .batch(32)
    )
    model = mlp()
    model.compile(optimizer=tf.train.sgd(0.01), loss="meanSquaredError")
    epochs = max(1, 10 // scale)
    model.fit_dataset(
        ds,
        epochs=epochs,
        verbose=0,
        callbacks={"on_batch_end": batch_end_meter(meter, epochs * 1600 // 32)},
    )
    model.optimizer.dispose()
    model.dispose()


def w_threads(meter: Meter, scale: int) -> None:
    n = 2000 // scale
    w = tf.tidy(lambda: tf.variable(tf.ones([8, 8]), True, "soak_shared"))

    def work() -> None:
        for _ in range(n):
            tf.tidy(lambda: tf.mat_mul(tf.ones([4, 8]), w).sum().data_sync())

    meter.start()
    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    meter.check(8 * n)
    w.dispose()


def w_asyncio(meter: Meter, scale: int) -> None:
    async def task(i: int) -> float:
        async with tf.tidy_scope(f"task {i}"):
            x = tf.fill([16], float(i))
            total = 0.0
            for _ in range(10):
                await asyncio.sleep(0)
                x = tf.add(x, 1)
                total += float(x.sum().data_sync()[0])
            return total

    async def main() -> list[float]:
        return await asyncio.gather(*(task(i) for i in range(100)))

    meter.start()
    asyncio.run(main())
    meter.check(100)


WORKLOADS: dict[str, Callable[[Meter, int], None]] = {
    "mlp_fit": w_mlp_fit,
    "lstm_fit": w_lstm_fit,
    "predict": w_predict,
    "adam": w_adam,
    "save_load": w_save_load,
    "fit_dataset": w_fit_dataset,
    "threads": w_threads,
    "asyncio": w_asyncio,
}


def run(name: str, scale: int) -> Result:
    meter = Meter(name)
    before = counts()
    start = time.perf_counter()
    WORKLOADS[name](meter, scale)
    seconds = time.perf_counter() - start
    return Result(meter, before, counts(), seconds)


def report(results: list[Result]) -> None:
    print("leaked: tensors (and bytes) alive beyond the baseline; RSS: growth since the row")
    print("before (the baseline for the first), in KiB, and that growth per 1,000 iterations")
    print(
        f"{'workload':<12} {'iters':>6} {'leaked':>7} {'bytes':>7} {'RSS Δ':>8} {'per 1k it':>10}"
    )
    for r in results:
        m = r.meter
        prev_iters, prev_rss = 0, m.base_rss
        for iters, leaked, nbytes, rss in m.rows:
            delta = (rss - prev_rss) / 1024
            per_k = delta / max(iters - prev_iters, 1) * 1000
            print(f"{m.name:<12} {iters:>6} {leaked:>7} {nbytes:>7} {delta:>8.0f} {per_k:>10.1f}")
            prev_iters, prev_rss = iters, rss
    print()
    print(f"{'workload':<12} {'tensors before':>14} {'after':>6} {'seconds':>8}  result")
    for r in results:
        verdict = "ok" if r.ok else "LEAK"
        print(f"{r.meter.name:<12} {r.before[0]:>14} {r.after[0]:>6} {r.seconds:>8.1f}  {verdict}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="shortened workloads")
    parser.add_argument("--only", default="", help="comma-separated workload names")
    args = parser.parse_args(argv)
    names = [n for n in args.only.split(",") if n] or list(WORKLOADS)
    unknown = [n for n in names if n not in WORKLOADS]
    if unknown:
        parser.error(f"unknown workload(s) {unknown}; known: {list(WORKLOADS)}")
    scale = 10 if args.quick else 1
    print(
        f"tidytensor soak ({'quick' if args.quick else 'full'}), "
        f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, "
        f"Python {platform.python_version()}, {platform.machine()}"
    )
    results = [run(name, scale) for name in names]
    report(results)
    leaked = [r.meter.name for r in results if not r.ok]
    if leaked:
        print(f"LEAKED: {', '.join(leaked)}")
        return 1
    print("no leaks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
