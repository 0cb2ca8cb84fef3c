"""CPU time per training step of ``workloads_layers.py``'s MLP and LSTM ``train_on_batch``
workloads, for comparisons on a shared machine.

``time.thread_time`` counts only this thread's own CPU seconds, which other processes'
load inflates far less than the wall time ``run.py`` reports; the 10th percentile and the
median of the repeats are printed. Compare two trees (a base and a branch) by running this
once per tree, alternately, with ``PYTHONPATH`` pointing at each one's ``src``::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=src taskset -c 0 \\
        python benchmarks/step_cpu_time.py tidytensor [--kernels]
    OMP_NUM_THREADS=1 taskset -c 0 python benchmarks/step_cpu_time.py torch

``--kernels`` also prints the CPU time of each tidytensor kernel in the step (every kernel
wrapped in a timer), largest first.
"""

from __future__ import annotations

import collections
import gc
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads_layers as W  # noqa: E402

STEPS, REPEATS = 20, 15
CASES = {
    "mlp": (W._mlp_tidytensor, W._mlp_torch, (W.MLP_BATCH, W.MLP_IN), W.MLP_OUT),
    "lstm": (
        W._lstm_tidytensor,
        W._lstm_torch,
        (W.LSTM_BATCH, W.LSTM_STEPS, W.LSTM_FEATURES),
        W.LSTM_OUT,
    ),
}


def _per_kernel(tf: Any) -> collections.Counter:
    """Wraps every kernel of the engine's tables in a CPU-time counter."""
    engine = tf.engine()
    engine.backend  # noqa: B018 - starts the backend, which builds the kernel tables
    spent: collections.Counter = collections.Counter()

    def timed(name: str, fn: Callable) -> Callable:
        def run(*args: Any) -> Any:
            start = time.thread_time()
            try:
                return fn(*args)
            finally:
                spent[name] += time.thread_time() - start

        return run

    for table in (engine._kernels, engine._same_shape_kernels):
        for name, fn in list(table.items()):
            table[name] = timed(name, fn)
    return spent


def main() -> None:
    framework = sys.argv[1] if len(sys.argv) > 1 else "tidytensor"
    kernels = "--kernels" in sys.argv
    module = __import__(framework)
    if framework == "torch":
        module.set_num_threads(1)
    spent = _per_kernel(module) if kernels and framework != "torch" else None
    for name, (tt_build, torch_build, shape, classes) in CASES.items():
        if framework == "torch":
            run = W._torch_runner(torch_build, shape, classes, STEPS)(module)
        else:
            run = W._tidytensor_runner(tt_build, shape, classes, STEPS)(module)
        run()
        times, per_kernel = [], collections.defaultdict(list)
        for _ in range(REPEATS):
            gc.collect()
            if spent is not None:
                spent.clear()
            start = time.thread_time()
            run()
            times.append((time.thread_time() - start) / STEPS)
            for kernel, seconds in (spent or {}).items():
                per_kernel[kernel].append(seconds / STEPS)
        times.sort()
        print(
            f"{framework} {name}: p10 {times[len(times) // 10] * 1e3:.3f} ms, "
            f"median {statistics.median(times) * 1e3:.3f} ms per step (CPU time)"
        )
        rows = sorted(((statistics.median(v), k) for k, v in per_kernel.items()), reverse=True)
        for seconds, kernel in rows[:10]:
            print(f"    {kernel:34s} {seconds * 1e6:9.1f} us")


if __name__ == "__main__":
    main()
