"""Creation kernels (TF.js's CPU ``Identity``, ``Complex``, ``Real``, ``Imag``, ``Fill``,
``ZerosLike``, ``OnesLike``, ``Diag``, ``OneHot``, ``Range``, ``LinSpace``).

``Range`` and ``LinSpace`` accumulate their values one by one in the output's typed array,
as TF.js does (``values[i] = values[i - 1] + step``, rounded to float32 or truncated to
int32 at every step), so their last digits match TF.js; a closed form is used where it is
provably the same.
"""

from __future__ import annotations

import math

import numpy as np

from ... import kernel_names as k
from ...dtypes import NUMPY_DTYPE
from ...errors import InvalidArgumentError
from ...tensor_util import js_store, js_to_number


def identity(inputs, attrs, backend):
    return backend.share(inputs[0], inputs[0]._shape)


def complex_(real, imag, *, xp):
    out = xp.empty(real.shape, dtype=xp.complex64)
    out.real = real.astype(xp.float32)
    out.imag = imag.astype(xp.float32)
    return out


def real(x, *, xp):
    return xp.real(x).astype(xp.float32)


def imag(x, *, xp):
    return xp.imag(x).astype(xp.float32)


def fill(*, xp, shape, value, dtype):
    shape = tuple(shape)
    if dtype == "string":
        out = np.empty(shape, dtype=object)
        out[...] = value.decode("utf-8") if isinstance(value, bytes) else value
        return out
    stored = js_store(js_to_number(value), dtype, np, bool_mode="uint8")[()]
    return xp.full(shape, stored, dtype=NUMPY_DTYPE[dtype])


def zeros_like(x, *, xp):
    return xp.zeros_like(x)


def ones_like(x, *, xp):
    return xp.ones_like(x)


def diag(x, *, xp):
    n = x.size
    out = xp.zeros(n * n, dtype=x.dtype)
    out[:: n + 1] = x.reshape(-1)
    return out.reshape(x.shape + x.shape)


def one_hot(indices, *, xp, dtype, depth, on_value, off_value):
    # TF.js fills a Float32Array, then reads it back as ``dtype``.
    on = float(np.float32(js_to_number(on_value)))
    off = float(np.float32(js_to_number(off_value)))
    if dtype == "int32":
        on, off = (float(js_store(v, "int32")) for v in (on, off))
    elif dtype == "bool":
        on, off = (
            float(js_store(float(js_store(v, "int32")), "bool", np, "uint8")) for v in (on, off)
        )
    np_dtype = NUMPY_DTYPE[dtype]
    out = xp.full(indices.shape + (depth,), off, dtype=np_dtype)
    flat = out.reshape(-1, depth)
    idx = indices.reshape(-1)
    rows = xp.nonzero((idx >= 0) & (idx < depth))[0]
    flat[rows, idx[rows]] = xp.asarray(on, dtype=np_dtype)
    return out


def _to_index(num: float) -> int:
    """A typed array's length from a number (ToIndex: truncation)."""
    return int(num) if math.isfinite(num) else 0


def _js_div(a: float, b: float) -> float:
    if b == 0:
        if a == 0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def _accumulate(first: float, step: float, n: int, dtype: str) -> np.ndarray:
    """``v[0] = first; v[i] = v[i-1] + step``, each value stored in ``dtype``'s typed array."""
    if n <= 0:
        return np.zeros(0, dtype=NUMPY_DTYPE[dtype])
    if dtype == "float32":
        limit = 2.0**24
        last = first + (n - 1) * step
        if first.is_integer() and step.is_integer() and abs(first) <= limit and abs(last) <= limit:
            return (first + step * np.arange(n, dtype=np.float64)).astype(np.float32)
        out = np.empty(n, dtype=np.float32)
        f32 = np.float32
        v = float(f32(first))
        out[0] = v
        for i in range(1, n):
            v = float(f32(v + step))
            out[i] = v
        return out
    # int32 (Int32Array) and bool (Uint8Array) truncate and wrap at every store.
    bits = 32 if dtype == "int32" else 8
    mod = 1 << bits

    def store(x: float) -> int:
        if not math.isfinite(x):
            return 0
        r = int(x) % mod
        return r - mod if bits == 32 and r >= mod // 2 else r

    v0 = store(first)
    if math.isfinite(step) and step.is_integer() and abs(step) < 2.0**53:
        # Exact integer sums: v[i] = v[0] + i * step, wrapped.
        if abs(step) * n < 2.0**62:
            vals = np.mod(v0 + int(step) * np.arange(n, dtype=np.int64), mod)
        else:
            vals = np.array([(v0 + int(step) * i) % mod for i in range(n)], dtype=np.int64)
    else:
        seq = [v0]
        v = v0
        for _ in range(1, n):
            v = store(v + step)
            seq.append(v)
        vals = np.mod(np.array(seq, dtype=np.int64), mod)
    if dtype == "bool":
        return vals != 0
    return np.where(vals >= mod // 2, vals - mod, vals).astype(np.int32)


def range_(*, xp, start, stop, step, dtype):
    start, stop, step = float(start), float(stop), float(step)
    if start == stop or (start < stop and step < 0) or (stop < start and step > 1):
        return xp.zeros(0, dtype=NUMPY_DTYPE[dtype])
    ratio = _js_div(stop - start, step)
    if math.isinf(ratio):
        raise InvalidArgumentError(
            f"Invalid typed array length: Infinity (range from {start} to {stop} by {step})"
        )
    count = 0 if math.isnan(ratio) else abs(math.ceil(ratio))
    if stop < start and step == 1:
        step = -1.0  # TF.js flips a default step for a decreasing range
    return xp.asarray(_accumulate(start, step, count, dtype))


def lin_space(*, xp, start, stop, num):
    start, stop = float(start), float(stop)
    step = _js_div(stop - start, float(num) - 1)
    if math.isinf(float(num)):
        raise InvalidArgumentError("Invalid typed array length: Infinity (in 'linspace')")
    return xp.asarray(_accumulate(start, step, _to_index(float(num)), "float32"))


KERNELS = {
    k.COMPLEX: complex_,
    k.REAL: real,
    k.IMAG: imag,
    k.FILL: fill,
    k.ZEROS_LIKE: zeros_like,
    k.ONES_LIKE: ones_like,
    k.DIAG: diag,
    k.ONE_HOT: one_hot,
    k.RANGE: range_,
    k.LIN_SPACE: lin_space,
}

RAW_KERNELS = {
    k.IDENTITY: identity,
}
