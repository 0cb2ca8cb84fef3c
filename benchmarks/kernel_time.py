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

Compiled steps (``tf.function``, a model's compiled ``train_on_batch``/``predict``) call the
kernels' array functions from their generated replay functions, not through the engine's
kernel tables: ``kernel_seconds`` times those too, by wrapping the kernel entries (``F<k>``
for array functions, ``R<k>`` for kernels on handles) among each live replay function's
globals for the instrumented call.
"""

from __future__ import annotations

import gc
import re
import time
from collections.abc import Callable
from typing import Any


def _timed(fn: Callable, total: list[float]) -> Callable:
    clock = time.perf_counter

    def timed(*args: Any, **kwargs: Any) -> Any:
        start = clock()
        try:
            return fn(*args, **kwargs)
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
    replays = _replay_globals(tf)
    saved_replays = [dict(names) for names in replays]
    try:
        for table in tables:
            for name, fn in list(table.items()):
                table[name] = _timed(fn, total)
        for names in replays:
            for name, fn in list(names.items()):
                if _KERNEL_ENTRY.fullmatch(name):
                    names[name] = _timed(fn, total)
        run()
    finally:
        for table, original in zip(tables, saved, strict=True):
            table.clear()
            table.update(original)
        for names, original in zip(replays, saved_replays, strict=True):
            names.clear()
            names.update(original)
    return total[0]


#: The names a replay function's globals give its kernels (``compiled/replay.py``).
_KERNEL_ENTRY = re.compile(r"[FR][0-9]+")


def _replay_globals(tf: Any) -> list[dict]:
    """The globals of every live compiled replay function (one dict per replay)."""
    from tidytensor.compiled.replay import Replay

    return [obj.compute.__globals__ for obj in gc.get_objects() if isinstance(obj, Replay)]
