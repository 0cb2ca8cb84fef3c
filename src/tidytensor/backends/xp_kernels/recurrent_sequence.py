"""What every recurrent sequence kernel shares, whatever its cell (LSTM, GRU, SimpleRNN) and
its backend (``xp_kernels/recurrent.py``, ``cupy_kernels/recurrent.py``):

- its arguments: :func:`sequence_kernel` gives a kernel body the kernel's signature
  (``*arrays, xp, **attrs``) and hands it one :class:`SequenceCall`, the arrays unpacked
  (the optional bias, recurrent-dropout mask and mask by the ``has_*`` attrs) and the attrs;
- the pool its float32 scratch arrays come from (:func:`take`; counted in the engine's live
  bytes through ``engine.kernel_scratch`` as the source ``"recurrent"``);
- the carving of its flat ``workspace`` output into the parts the gradient reads back.
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, NamedTuple

from ...engine import kernel_scratch

__all__ = [
    "SequenceCall",
    "carve",
    "clear_buffer_pool",
    "count",
    "outputs",
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
    return_sequences, has_bias, has_rec_mask, has_mask)``."""

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
        ):
            attrs = (activation, recurrent_activation, go_backwards, return_sequences)
            args = (has_bias, has_rec_mask, has_mask, attrs)
            return body(_unpack(arrays, states, grad, *args), xp)

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
    """Float32 arrays by shape, handed out again once only the pool references them."""

    def __init__(self, per_shape: int = 4, shapes: int = 64):
        self._buckets: OrderedDict = OrderedDict()
        self._per_shape = per_shape
        self._shapes = shapes
        self._lock = threading.Lock()

    def take(self, xp, shape: tuple[int, ...]):
        key = (id(xp), shape)
        with self._lock:
            bucket = self._buckets.get(key)
            if bucket is None:
                bucket = self._buckets[key] = []
                if len(self._buckets) > self._shapes:
                    self._buckets.popitem(last=False)
            else:
                self._buckets.move_to_end(key)
                for arr in bucket:
                    if sys.getrefcount(arr) <= _FREE_REFS:
                        return arr
            arr = xp.empty(shape, dtype=xp.float32)
            if len(bucket) < self._per_shape:
                bucket.append(arr)
            return arr

    def clear(self) -> None:
        with self._lock:
            self._buckets.clear()

    def idle_bytes(self) -> int:
        """Bytes of the pooled arrays only the pool holds (counted in the engine's live
        bytes, ``engine.kernel_scratch``; the others are tensors' buffers or in use)."""
        held = 0
        with self._lock:
            for bucket in self._buckets.values():
                for arr in bucket:
                    if sys.getrefcount(arr) <= _FREE_REFS:
                        held += arr.nbytes
        return held


def _free_refs() -> int:
    """References a pooled array has when nobody else holds it (list, loop name, argument)."""
    bucket = [object()]
    for item in bucket:
        return sys.getrefcount(item)
    return 3  # pragma: no cover


_FREE_REFS = _free_refs()
_POOL = _Pool()
kernel_scratch.register_source("recurrent", _POOL.idle_bytes)


def clear_buffer_pool() -> None:
    """Drops the recurrent kernels' cached scratch arrays."""
    _POOL.clear()


def take(xp, *shape: int):
    """A float32 scratch array of ``shape`` from the pool (its values are undefined)."""
    return _POOL.take(xp, shape)


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
