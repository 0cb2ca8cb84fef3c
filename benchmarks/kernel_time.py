"""How much of tidytensor's time is spent inside backend kernels, for ``run.py``'s report.

A kernel is the backend function an op ends in (NumPy's arithmetic plus the buffer record it
returns); everything else — argument checks, handles, scopes, the tape, gradient functions,
layers and optimizer code — is the Python engine around it. ``kernel_seconds(tf, run)`` times
one call of a workload's runner with every kernel wrapped in a timer and returns the seconds
spent inside kernels. The wrappers cost a little outside the kernels, never inside, so the
figure is the kernels' own time; the runner's plain timing comes from the uninstrumented
repeats. Set against a peer's whole step it bounds what any engine design could reach with
these kernels: when the kernels alone take longer than PyTorch's whole step, no cut in Python
overhead closes the gap.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def _timed(fn: Callable, total: list[float]) -> Callable:
    clock = time.perf_counter

    def timed(*args: Any) -> Any:
        start = clock()
        try:
            return fn(*args)
        finally:
            total[0] += clock() - start

    return timed


def kernel_seconds(tf: Any, run: Callable[[], Any]) -> float:
    """Seconds spent inside kernels during one ``run()``; the kernel tables are restored."""
    engine = tf.engine()
    engine.backend  # noqa: B018 - starts the backend, which builds the kernel tables
    total = [0.0]
    tables = [engine._kernels, engine._same_shape_kernels]
    saved = [dict(table) for table in tables]
    try:
        for table in tables:
            for name, fn in list(table.items()):
                table[name] = _timed(fn, total)
        run()
    finally:
        for table, original in zip(tables, saved, strict=True):
            table.clear()
            table.update(original)
    return total[0]
