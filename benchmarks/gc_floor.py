"""The per-op floor of a pure-Python tensor engine under CPython's garbage collector.

``python benchmarks/gc_floor.py`` times, each in a fresh process pinned to one CPU:

- ``floor``: the least a pure-Python engine can do per op: one NumPy scalar add and two
  ``__slots__`` objects (a handle and its buffer record) kept alive in a list, as results
  are kept alive inside a ``tf.tidy``;
- ``floor + tidytensor imported``: the same loop with tidytensor imported (the collector
  walks the package's own objects too);
- ``tidytensor``: ``tf.add`` on 0-d float32 tensors inside one ``tf.tidy``;
- ``torch``: ``torch.add`` on 0-d tensors (results die at once; skipped if not installed).

Processes alternate (three rounds) and each figure is a median, in µs per op, for 10k and
100k ops. CPython tracks every instance of a class defined in Python for its cyclic
collector, so with many results alive the collector's full passes set a floor no Python
engine escapes.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

MODES = ("floor", "floor + tidytensor imported", "tidytensor", "torch")


def _child(mode: str, n: int) -> float:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    import numpy as np

    if mode == "torch":
        import torch

        torch.set_num_threads(1)
        a, b = torch.tensor(1.5), torch.tensor(2.25)

        def run() -> float:
            t0 = time.perf_counter()
            for _ in range(n):
                torch.add(a, b)
            return time.perf_counter() - t0

    elif mode == "tidytensor":
        import tidytensor as tf

        a, b = tf.scalar(1.5), tf.scalar(2.25)
        add = tf.add

        def body() -> None:
            for _ in range(n):
                add(a, b)

        def run() -> float:
            t0 = time.perf_counter()
            tf.tidy(body)
            return time.perf_counter() - t0

    else:
        if mode == "floor + tidytensor imported":
            import tidytensor  # noqa: F401

        class Handle:
            __slots__ = ("id", "record", "shape", "dtype", "kept", "disposed", "scope")

        class Record:
            __slots__ = ("values", "refs", "nbytes")

        x, y = np.float32(1.5), np.float32(2.25)

        def op(track: list) -> None:
            record = Record()
            record.values, record.refs, record.nbytes = x + y, 1, 4
            handle = Handle()
            handle.id, handle.record, handle.shape, handle.dtype = 0, record, (), "float32"
            handle.kept, handle.disposed, handle.scope = False, False, 1
            track.append(handle)

        def run() -> float:
            track: list = []
            t0 = time.perf_counter()
            for _ in range(n):
                op(track)
            return time.perf_counter() - t0

    run()
    return statistics.median(run() for _ in range(7)) / n * 1e6


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        print(_child(sys.argv[2], int(sys.argv[3])))
        return 0
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    results: dict[tuple[str, int], list[float]] = {}
    for _ in range(3):
        for n in (10_000, 100_000):
            for mode in MODES:
                proc = subprocess.run(
                    [sys.executable, __file__, "--child", mode, str(n)],
                    capture_output=True,
                    text=True,
                    env=env,
                )
                if proc.returncode == 0:
                    results.setdefault((mode, n), []).append(float(proc.stdout))
    print(f"{'µs per op':<30}{'10k alive':>12}{'100k alive':>12}")
    for mode in MODES:
        cells = []
        for n in (10_000, 100_000):
            got = results.get((mode, n))
            cells.append(f"{statistics.median(got):.3f}" if got else "n/a")
        print(f"{mode:<30}{cells[0]:>12}{cells[1]:>12}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
