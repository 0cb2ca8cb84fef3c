"""Memory that kernels keep between calls, counted in the engine's live bytes (issue 15).

Some kernels keep arrays from call to call, so that a step does not page-fault fresh
multi-megabyte buffers in again: Adam's flat update (its scratch and its pool of flat
outputs), the recurrent sequence kernels' pool (their workspace and per-step buffers), the
convolutions' workspaces. An array such a *pool* hands out as a kernel's output is a tensor's
buffer, counted by its record; an array the pool alone holds (*idle*) is counted here.

Each pool registers a *source*: a function returning the bytes of its idle arrays now. After
each call of a kernel that uses a pool (``counted_kernels``), ``sync`` sets that source's
share of the engine's ``buffer_bytes`` to what the source reports, so the byte counters, the
peak (``tf.config.get_memory_info``) and the memory limit see the pools. ``scratch_bytes``
reports the total. The counts are the calling thread's: a pool that lives in one thread is
synced by the kernels that run there.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

__all__ = [
    "bind",
    "counted_kernels",
    "register_source",
    "release",
    "scratch_bytes",
    "sync",
    "sync_all",
]

_SOURCES: dict[str, Callable[[], int]] = {}
_RELEASES: dict[str, Callable[[], None]] = {}
#: How to find the engine's current state: set by ``bind`` when the engine is made (this
#: module sits below the engine and imports none of it).
_STATE_OF: list[Callable[[], Any]] = []
_COUNTED = threading.local()  # .state: the state counted into; .bytes: source -> bytes counted


def register_source(
    name: str, source: Callable[[], int], release: Callable[[], None] | None = None
) -> None:
    """``source()``: the bytes of the idle arrays of the pool called ``name``; ``release()``
    (optional) drops them (``release(name)`` calls it, e.g. when the optimizer whose updates
    use the pool is disposed)."""
    _SOURCES[name] = source
    if release is not None:
        _RELEASES[name] = release


def release(name: str, state: Any = None) -> None:
    """Drops the calling thread's idle arrays of the pool ``name`` and uncounts them."""
    drop = _RELEASES.get(name)
    if drop is not None:
        drop()
        sync(name, state)


def _counted(state: Any) -> dict[str, int]:
    if getattr(_COUNTED, "state", None) is not state:  # a new engine state: nothing counted
        _COUNTED.state = state
        _COUNTED.bytes = {}
    return _COUNTED.bytes


def sync(name: str, state: Any = None) -> None:
    """Brings the engine's live bytes up to date with the pool ``name``'s idle arrays."""
    if state is None:
        state = _engine_state()
    counted = _counted(state)
    held = _SOURCES[name]()
    delta = held - counted.get(name, 0)
    if delta == 0:
        return
    if delta < 0 and state.buffer_bytes > state.peak_bytes:
        state.peak_bytes = state.buffer_bytes  # the peak is kept where live bytes go down
    state.buffer_bytes += delta
    counted[name] = held


def bind(state_of: Callable[[], Any]) -> None:
    """``state_of()``: the engine's current state (what ``sync`` counts into by default)."""
    _STATE_OF[:] = [state_of]


def _engine_state() -> Any:
    return _STATE_OF[0]()


def sync_all(state: Any = None) -> None:
    for name in list(_SOURCES):
        sync(name, state)


def scratch_bytes(state: Any = None) -> int:
    """The bytes of the pools' idle arrays the engine counts now (after syncing them all)."""
    if state is None:
        state = _engine_state()
    sync_all(state)
    return sum(_counted(state).values())


def counted_kernels(name: str, kernels: dict[str, Callable]) -> dict[str, Callable]:
    """``kernels``, each syncing the pool ``name`` after it returns (or raises)."""

    def counted(fn: Callable) -> Callable:
        def kernel(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            finally:
                sync(name)

        kernel.__name__ = fn.__name__
        kernel.__qualname__ = fn.__qualname__
        kernel.__doc__ = fn.__doc__
        kernel.__wrapped__ = fn  # type: ignore[attr-defined]
        return kernel

    return {kernel_name: counted(fn) for kernel_name, fn in kernels.items()}
