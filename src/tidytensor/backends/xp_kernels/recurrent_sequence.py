"""What every recurrent sequence kernel shares, whatever its cell (LSTM, GRU, SimpleRNN) and
its backend (``xp_kernels/recurrent.py``, ``cupy_kernels/recurrent.py``):

- its arguments: :func:`sequence_kernel` gives a kernel body the kernel's signature
  (``*arrays, xp, **attrs``) and hands it one :class:`SequenceCall`, the arrays unpacked
  (the optional bias, recurrent-dropout mask and mask by the ``has_*`` attrs) and the attrs;
- the pool its float32 scratch arrays come from (:func:`take`; its idle bytes counted
  exactly in the engine's live bytes, ``engine.kernel_scratch.Holding``): the pool of the
  ``scratch_owner`` attr (a recurrent layer's ``ScratchOwner``, released with the layer), or
  a shared one without it;
- the carving of its flat ``workspace`` output into the parts the gradient reads back.
"""

from __future__ import annotations

import sys
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from ...engine import kernel_scratch

__all__ = [
    "SequenceCall",
    "carve",
    "clear_buffer_pool",
    "count",
    "outputs",
    "scratch",
    "sequence_kernel",
    "take",
    "workspace",
]


# --------------------------------------------------------------------------- arguments
class SequenceCall(NamedTuple):
    """One call of a sequence kernel or of its gradient: its arrays and attrs.

    ``c0`` and ``dc_last`` are the LSTM's (None for the other cells); ``dseq``,
    ``dh_last``, ``dc_last`` and ``ws`` (the forward pass's workspace) the gradient's."""

    x: Any
    w: Any
    rk: Any
    h0: Any
    c0: Any
    bias: Any
    rm: Any
    mask: Any
    ws: Any
    dseq: Any
    dh_last: Any
    dc_last: Any
    activation: str
    recurrent_activation: str
    go_backwards: bool
    return_sequences: bool
    has_bias: bool
    B: int
    T: int
    D: int
    U: int


def _unpack(arrays, states: int, grad: bool, has_bias, has_rec_mask, has_mask, attrs):
    """The kernel's arrays: ``[dseq, dh_last, (dc_last)]`` (gradient), ``x, kernel,
    recurrentKernel, h0, (c0)``, ``[bias] [recurrent-dropout mask] [mask]``, ``[workspace]``
    (gradient); ``states`` is 2 for the LSTM (``c0``, ``dc_last``), else 1."""
    first = states + 1 if grad else 0
    d = list(arrays[:first]) + [None] * 3
    x, w, rk, h0 = arrays[first : first + 4]
    c0 = arrays[first + 4] if states == 2 else None
    rest = list(arrays[first + 3 + states : -1 if grad else None])
    bias = rest.pop(0) if has_bias else None
    rm = rest.pop(0) if has_rec_mask else None
    mask = rest.pop(0) if has_mask else None
    ws = arrays[-1] if grad else None
    dc_last = d[2] if states == 2 else None
    B, T, D = x.shape
    return SequenceCall(
        x, w, rk, h0, c0, bias, rm, mask, ws, d[0], d[1], dc_last, *attrs, has_bias,
        B, T, D, rk.shape[0],
    )  # fmt: skip


def sequence_kernel(states: int, grad: bool) -> Callable[[Callable[..., Any]], Any]:
    """Makes ``body(call: SequenceCall, xp)`` a sequence kernel (or, with ``grad``, its
    gradient): ``kernel(*arrays, xp, activation, recurrent_activation, go_backwards,
    return_sequences, has_bias, has_rec_mask, has_mask, scratch_owner)``; ``body`` takes its
    scratch arrays from ``scratch_owner``'s pool."""

    def make(body: Callable[[SequenceCall, Any], Any]) -> Callable[..., Any]:
        def kernel(
            *arrays,
            xp,
            activation="tanh",
            recurrent_activation="hardSigmoid",
            go_backwards=False,
            return_sequences=True,
            has_bias=False,
            has_rec_mask=False,
            has_mask=False,
            scratch_owner=None,
        ):
            attrs = (activation, recurrent_activation, go_backwards, return_sequences)
            args = (has_bias, has_rec_mask, has_mask, attrs)
            outer = getattr(_CURRENT, "pool", None)
            _CURRENT.pool = pool_of(scratch_owner)
            try:
                return body(_unpack(arrays, states, grad, *args), xp)
            finally:
                _CURRENT.pool = outer if outer is not None else _POOL

        kernel.__name__ = body.__name__
        kernel.__qualname__ = body.__qualname__
        kernel.__doc__ = body.__doc__
        kernel.__module__ = body.__module__
        return kernel

    return make


def outputs(*arrays):
    """The kernel's outputs: those of ``arrays`` that are not None."""
    return [a for a in arrays if a is not None]


# ------------------------------------------------------------------------- buffer pool
class _Pool:
    """Float32 NumPy arrays by shape, lent to one user at a time (``kernel_scratch.lend``),
    their idle bytes counted exactly (a ``kernel_scratch.Holding``).

    Every view a kernel makes of a lent array, and the tensor buffer a kernel returns it as,
    keep it lent; when the last of them dies, it is given back, idle again (as the tensor's
    buffer is freed). The holding moves at each change: minus an array's bytes when it is
    lent again, plus when it comes back, minus when the pool drops an idle one (``clear``,
    or its shape evicted).

    A kernel's own scratch (``scratch``: what it uses and lets go of before it returns, never
    an output) comes from a second part, kept as the arrays themselves: one is handed out
    again when nothing but the pool references it, and its bytes are counted as idle for as
    long as the pool keeps it (between kernels, where the engine reads its live bytes, it
    is idle). Lending costs a new array object and a weak reference per take; this part
    costs a reference count."""

    def __init__(self, name: str, per_shape: int = 4, shapes: int = 64):
        self._buckets: OrderedDict = OrderedDict()
        self._scratch: OrderedDict = OrderedDict()  # shape -> [arrays]
        self._per_shape = per_shape
        self._shapes = shapes
        self._lock = threading.RLock()  # an array may come back while the lock is held
        self.holding = kernel_scratch.Holding(name)

    def take(self, xp, shape: tuple[int, ...]):
        if xp is not np or 0 in shape:
            return xp.empty(shape, dtype=xp.float32)  # only NumPy memory is lent and counted
        holding, lock = self.holding, self._lock
        with lock:
            bucket = self._slot(self._buckets, shape, kernel_scratch.drop)
            for entry in bucket:
                if not entry.lent:
                    holding.add(-entry.nbytes)
                    return kernel_scratch.lend(entry)
            base = np.empty(shape, dtype=np.float32)
            if len(bucket) >= self._per_shape:
                return base  # not pooled: freed with its last user
            entry = kernel_scratch.Pooled(base, holding, lock)
            bucket.append(entry)
            return kernel_scratch.lend(entry)

    def scratch(self, xp, shape: tuple[int, ...]):
        if xp is not np or 0 in shape:
            return xp.empty(shape, dtype=xp.float32)
        if not _EXACT_REFCOUNTS:  # a reference count could not prove an array free: lend it
            return self.take(xp, shape)
        with self._lock:
            arrays = self._slot(self._scratch, shape, self._drop_scratch)
            for arr in arrays:
                if sys.getrefcount(arr) <= _FREE_REFS:
                    return arr
            arr = np.empty(shape, dtype=np.float32)
            if len(arrays) < self._per_shape:
                arrays.append(arr)
                self.holding.add(arr.nbytes)
            return arr

    def _slot(self, table: OrderedDict, shape: tuple[int, ...], drop) -> list:
        """``table``'s list for ``shape``, made the most recently used (a new, empty one
        past ``shapes`` evicts the least recently used, handed to ``drop``)."""
        found = table.get(shape)
        if found is not None:
            table.move_to_end(shape)
            return found
        found = table[shape] = []
        if len(table) > self._shapes:
            drop(table.popitem(last=False)[1])
        return found

    def _drop_scratch(self, arrays: list) -> None:
        self.holding.add(-sum(arr.nbytes for arr in arrays))

    def clear(self) -> None:
        """Drops every array (those lent go when their last user lets go of them)."""
        with self._lock:
            for bucket in self._buckets.values():
                kernel_scratch.drop(bucket)
            self._buckets.clear()
            for arrays in self._scratch.values():
                self._drop_scratch(arrays)
            self._scratch.clear()

    def idle_bytes(self) -> int:
        """Bytes of the pooled arrays no one uses (counted in the engine's live bytes)."""
        return self.holding.bytes


def _free_refs() -> int:
    """``sys.getrefcount`` of a scratch array only its pool's list holds (the list, the loop's
    name, the call's argument)."""
    arrays = [object()]
    for arr in arrays:
        return sys.getrefcount(arr)
    return 3  # pragma: no cover


_FREE_REFS = _free_refs()
#: Whether ``sys.getrefcount`` is exact. A free-threaded build's counts are approximate
#: (as ``data/_packed.py`` notes), so there ``scratch`` lends, as ``take`` does.
_EXACT_REFCOUNTS = getattr(sys, "_is_gil_enabled", lambda: True)()

#: The pool of kernels called without a ``scratch_owner`` (attr), and the owners' pools.
_POOL = _Pool("recurrent")
_OWNED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_OWNED_LOCK = threading.Lock()
_CURRENT = threading.local()  # .pool: the pool of the sequence kernel running in this thread


def pool_of(owner: kernel_scratch.ScratchOwner | None) -> _Pool:
    """The pool of ``owner`` (made on first use; dropped by ``owner.release()`` or with the
    owner), or the shared one for None."""
    if owner is None:
        return _POOL
    with _OWNED_LOCK:
        pool = _OWNED.get(owner)
        if pool is None:
            pool = _OWNED[owner] = _Pool(f"recurrent ({owner.name})")
            owner.on_release(pool.clear)
        return pool


def clear_buffer_pool() -> None:
    """Drops the recurrent kernels' cached scratch arrays, every owner's too."""
    _POOL.clear()
    with _OWNED_LOCK:
        pools = list(_OWNED.values())
    for pool in pools:
        pool.clear()


def take(xp, *shape: int):
    """A float32 array of ``shape`` from the running kernel's pool, lent (its values are
    undefined): for what may outlive the kernel (an output, or a view of one)."""
    return getattr(_CURRENT, "pool", _POOL).take(xp, shape)


def scratch(xp, *shape: int):
    """A float32 array of ``shape`` from the running kernel's pool for the kernel's own use,
    let go of before it returns (never an output, nor a view in one; its values are
    undefined)."""
    return getattr(_CURRENT, "pool", _POOL).scratch(xp, shape)


# -------------------------------------------------------------------------- workspace
def count(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def carve(ws, *shapes: tuple[int, ...]):
    """Views of the given shapes laid one after another in the flat workspace."""
    views, start = [], 0
    for shape in shapes:
        n = count(shape)
        views.append(ws[start : start + n].reshape(shape))
        start += n
    return views


def workspace(xp, shapes):
    """A flat workspace (from the pool) holding arrays of ``shapes``."""
    return take(xp, sum(count(s) for s in shapes))
