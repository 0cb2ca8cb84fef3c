"""Memory that kernels keep between calls, counted in the engine's live bytes (issue 15).

Some kernels keep arrays from call to call, so that a step does not page-fault fresh
multi-megabyte buffers in again: Adam's flat update (its scratch and its pool of flat
outputs, ``xp_kernels/optimizers.py``), the recurrent sequence kernels' pools (their
workspace and per-step buffers, ``xp_kernels/recurrent_sequence.py``), the convolutions'
workspaces (``xp_kernels/conv_gemm.py``). An array such a *pool* lends out as a kernel's
output is a tensor's buffer, counted by its record; an array the pool alone holds (*idle*)
is counted here.

Each pool counts its idle bytes exactly, as they change, in a ``Holding``: ``add`` moves
the engine's ``buffer_bytes`` by as much at once (an array made or dropped, lent with
``lend``, given back when the last view of it dies: the finalizer runs as the tensor's
buffer is freed). Nothing is synced per kernel: the memory limit's check before each
kernel reads exact live bytes. ``sync_all`` only counts every pool in a new engine state
(``engine.reset()``).

A pool may belong to an *owner* (``ScratchOwner``: a recurrent layer passes its own to its
kernels): ``owner.release()`` (the layer's dispose) or the owner's garbage collection drops
the pool's arrays and uncounts them. ``release(name)`` drops a named pool of the calling
thread (``register_release``: Adam's, when the optimizer is disposed). ``scratch_bytes``
reports the total.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = [
    "Holding",
    "Pooled",
    "ScratchOwner",
    "bind",
    "drop",
    "lend",
    "register_release",
    "release",
    "scratch_bytes",
    "sync_all",
]

_RELEASES: dict[str, Callable[[], None]] = {}
#: How to find the engine's current state: set by ``bind`` when the engine is made (this
#: module sits below the engine and imports none of it).
_STATE_OF: list[Callable[[], Any]] = []


class Holding:
    """The idle bytes of one exactly counted pool (see the module's doc)."""

    __slots__ = ("__weakref__", "_counted", "_state", "bytes", "name")

    def __init__(self, name: str) -> None:
        self.name = name
        #: The pool's idle bytes now.
        self.bytes = 0
        #: The engine state they are counted in (a new one, after ``engine.reset()``, has
        #: counted none of them), and how many are counted there.
        self._state: Any = None
        self._counted = 0
        _HOLDINGS.add(self)

    def add(self, delta: int) -> None:
        """The pool's idle bytes changed by ``delta``: the engine's live bytes follow."""
        self.bytes += delta
        state = _STATE_OF[0]()
        if state is not self._state:
            self.settle(state)
            return
        self._counted += delta
        if delta < 0 and state.buffer_bytes > state.peak_bytes:
            state.peak_bytes = state.buffer_bytes  # the peak is kept where live bytes go down
        state.buffer_bytes += delta

    def clear(self) -> None:
        """The pool dropped all its arrays."""
        self.add(-self.bytes)

    def settle(self, state: Any = None) -> None:
        """Counts the pool's idle bytes in ``state`` (the engine's current one by default)."""
        if state is None:
            state = _engine_state()
        counted = self._counted if self._state is state else 0  # a new state: none yet
        self._state, self._counted = state, self.bytes
        _move(state, self.bytes - counted)


class Pooled:
    """One NumPy array an exactly counted pool keeps: ``lent`` while something uses it
    (``lend``), ``dropped`` once the pool let go of it (``drop``). ``holding`` counts it
    while it is idle; ``lock`` (a ``threading.RLock``: the give-back may run while its
    thread holds it) is the pool's."""

    __slots__ = (
        "_back", "_bytes", "_dtype", "_shape", "base", "dropped", "holding", "lent", "lock",
        "nbytes",
    )  # fmt: skip

    def __init__(self, base: Any, holding: Holding, lock: Any) -> None:
        self.base, self.lent, self.dropped = base, False, False
        self.holding, self.lock = holding, lock
        self.nbytes = base.nbytes
        self._bytes = memoryview(base).cast("B")  # what each lent array is made over
        self._dtype = base.dtype
        self._shape = base.shape if base.ndim != 1 else None  # None: the flat array itself
        self._back: Any = None  # the weak reference to the lent array, while it is lent

    def _given_back(self, _ref: Any) -> None:
        """The weak reference's callback: the last user of the lent array let go of it."""
        with self.lock:
            self.lent = False
            self._back = None
            if not self.dropped:
                self.holding.add(self.nbytes)


def lend(entry: Pooled) -> Any:
    """``entry``'s array, lent: a new array object over its memory (of its shape). Every view
    made of it, and a tensor buffer it becomes, keep that object alive; when the last of them
    dies, the callback of the entry's weak reference to it gives the array back to the pool,
    idle (its ``holding`` plus its bytes, under its ``lock``). An idle entry lent again: the
    caller takes its bytes off the holding first."""
    entry.lent = True
    flat = _frombuffer(entry._bytes, entry._dtype)
    entry._back = _weakref(flat, entry._given_back)
    shape = entry._shape
    return flat if shape is None else flat.reshape(shape)


_frombuffer = np.frombuffer
_weakref = weakref.ref


def drop(entries: Any) -> None:
    """The pool lets go of ``entries``: the idle ones leave their holding now, the lent ones
    are not given back (the caller holds the pool's lock)."""
    for entry in entries:
        entry.dropped = True
        if not entry.lent:
            entry.holding.add(-entry.nbytes)


#: Every live ``Holding``: ``sync_all`` counts them in a new engine state.
_HOLDINGS: weakref.WeakSet = weakref.WeakSet()
#: The engine state every holding is counted in since the last ``sync_all`` (one made later
#: counts itself in the current state as its pool changes).
_SETTLED: list[Any] = [None]


class ScratchOwner:
    """What a kernel's pools belong to (a recurrent layer passes one to its kernels): its
    pools' arrays go, and are uncounted, when it is released (``release``: the layer's
    dispose) or garbage-collected."""

    __slots__ = ("__weakref__", "_releases", "name")

    def __init__(self, name: str) -> None:
        self.name = name
        self._releases: list[Callable[[], None]] = []

    def on_release(self, release: Callable[[], None]) -> None:
        """``release()`` drops a pool of this owner: run by ``release`` or, for an owner
        garbage-collected unreleased, by its finalizer (``release`` must not hold it)."""
        self._releases.append(release)
        weakref.finalize(self, release).atexit = False

    def release(self) -> None:
        """Drops this owner's pools now (they are made again if the owner runs a kernel)."""
        releases, self._releases = self._releases, []
        for release in releases:
            release()

    def __repr__(self) -> str:
        return f"ScratchOwner({self.name!r})"


def register_release(name: str, release: Callable[[], None]) -> None:
    """``release()`` drops the calling thread's pool called ``name`` (``release(name)``)."""
    _RELEASES[name] = release


def release(name: str) -> None:
    """Drops the calling thread's arrays of the pool ``name`` (and uncounts them)."""
    drop_pool = _RELEASES.get(name)
    if drop_pool is not None:
        drop_pool()


def _move(state: Any, delta: int) -> None:
    if delta == 0:
        return
    if delta < 0 and state.buffer_bytes > state.peak_bytes:
        state.peak_bytes = state.buffer_bytes  # the peak is kept where live bytes go down
    state.buffer_bytes += delta


def bind(state_of: Callable[[], Any]) -> None:
    """``state_of()``: the engine's current state (what the pools count into)."""
    _STATE_OF[:] = [state_of]


def _engine_state() -> Any:
    return _STATE_OF[0]()


def sync_all(state: Any = None) -> None:
    """Counts every pool in ``state`` (the engine's current one by default) if it is a new
    one (after ``engine.reset()``); otherwise nothing to do: the pools count as they go."""
    if state is None:
        state = _engine_state()
    if _SETTLED[0] is not state:
        for holding in list(_HOLDINGS):
            if holding._state is not state:
                holding.settle(state)
        _SETTLED[0] = state


def scratch_bytes(state: Any = None) -> int:
    """The bytes of the pools' idle arrays the engine counts now."""
    if state is None:
        state = _engine_state()
    sync_all(state)
    return sum(h._counted for h in list(_HOLDINGS) if h._state is state)
