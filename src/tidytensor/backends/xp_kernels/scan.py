"""Scan kernels: Cumsum, Cumprod.

Both run along one axis (already normalized by the ops), optionally exclusive and/or
reversed. Results are int32 for bool and int32 inputs (TF.js's ``upcastType(x, 'int32')``)
and float32 otherwise. TF.js stores each running value in a typed array, so float32 sums and
products round at every step (NumPy's float32 ``cumsum``/``cumprod`` do the same) and int32
values wrap.
"""

from __future__ import annotations

from ... import kernel_names as k
from .arithmetic import to_int32


def _scan(x, xp, axis, exclusive, reverse, is_sum):
    out_dtype = xp.float32 if x.dtype.kind == "f" else xp.int32
    identity = 0 if is_sum else 1
    if x.ndim == 0:
        # TF.js's loop runs zero times on a scalar: the result is the initial fill.
        return xp.full((), identity, dtype=out_dtype)
    a = xp.moveaxis(x.astype(out_dtype, copy=False), axis, -1)
    if reverse:
        a = a[..., ::-1]
    if exclusive and a.shape[-1] > 0:
        # The running value at j covers the values before j.
        pad = xp.full(a.shape[:-1] + (1,), identity, dtype=out_dtype)
        a = xp.concatenate([pad, a[..., :-1]], axis=-1)
    # The ufuncs' own accumulate, not np.cumsum/np.cumprod: an overflow or inf * 0 warning is
    # then raised from this module, whose warnings are filtered (backends/__init__.py).
    if is_sum:
        out = xp.add.accumulate(a, axis=-1, dtype=out_dtype)
    elif out_dtype == xp.float32:
        out = xp.multiply.accumulate(a, axis=-1, dtype=xp.float32)
    else:
        out = _int32_cumprod(a, xp)
    if reverse:
        out = out[..., ::-1]
    return xp.ascontiguousarray(xp.moveaxis(out, -1, axis))


def _int32_cumprod(a, xp):
    """Products taken in doubles and stored into an Int32Array at each step, as TF.js does
    (a product beyond 2**53 loses bits before it wraps)."""
    out = xp.empty(a.shape, dtype=xp.int32)
    if a.shape[-1] == 0:
        return out
    running = a[..., 0]
    out[..., 0] = running
    for j in range(1, a.shape[-1]):
        running = to_int32(xp.multiply(a[..., j], running, dtype=xp.float64), xp)
        out[..., j] = running
    return out


def cumsum(x, *, xp, axis, exclusive=False, reverse=False):
    return _scan(x, xp, axis, exclusive, reverse, True)


def cumprod(x, *, xp, axis, exclusive=False, reverse=False):
    return _scan(x, xp, axis, exclusive, reverse, False)


KERNELS = {k.CUMSUM: cumsum, k.CUMPROD: cumprod}
