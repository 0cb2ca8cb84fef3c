"""Normalization kernels: FusedBatchNorm, LRN, LRNGrad, Softmax, SparseToDense (TF.js's CPU
kernels ``BatchNorm.ts``, ``LRN.ts``, ``LRNGrad.ts``, ``Softmax.ts``, ``SparseToDense.ts``).

Values are computed in double precision and stored in the input's dtype, as the CPU kernels
do (a JS number written into a typed array).
"""

from __future__ import annotations

import math

from ... import kernel_names as k
from ...errors import DTypeError, InvalidArgumentError
from ..xp_compat import errstate
from .arithmetic import complex_error, from_double


# ---------------------------------------------------------------------------- batch norm
def _cycled(p, n, xp):
    """``p``'s values read cyclically for ``n`` positions, as float64 (TF.js's kernel walks
    each parameter's flat values with a wrapping index, whatever its shape)."""
    flat = p.reshape(-1).astype(xp.float64)
    m = flat.size
    if m == n:
        return flat
    if m == 0:  # JS reads undefined: NaN
        return xp.full(n, math.nan)
    if n % m == 0:
        return xp.tile(flat, n // m)
    return flat[xp.arange(n) % m]


def fused_batch_norm(*arrays, xp, variance_epsilon=0.001, has_scale=False, has_offset=False):
    x = arrays[0]
    pos = 1
    scale = offset = None
    if has_scale:
        scale, pos = arrays[pos], pos + 1
    if has_offset:
        offset, pos = arrays[pos], pos + 1
    mean, variance = arrays[pos], arrays[pos + 1]
    for a in (x, mean, variance, scale, offset):
        if a is not None and a.dtype.kind == "c":
            raise complex_error("batchNorm")
    if variance_epsilon is None:
        variance_epsilon = 0.001
    n = x.size
    xv = x.reshape(-1).astype(xp.float64)
    with errstate(xp, all="ignore"):
        out = (xv - _cycled(mean, n, xp)) * (_cycled(scale, n, xp) if scale is not None else 1.0)
        out = out / xp.sqrt(_cycled(variance, n, xp) + variance_epsilon)
        if offset is not None:
            out = _cycled(offset, n, xp) + out
        else:
            out = out + 0.0
        # A Float32Array store in TF.js, also for int32 x (truncated after the rounding).
        return from_double(out.astype(xp.float32), x.dtype, xp).reshape(x.shape)


# ---------------------------------------------------------------------------- LRN
def _window_sum(a, radius, xp):
    """``out[..., c] = sum(a[..., max(0, c - r) : min(c + r, C - 1) + 1])`` along the last axis."""
    channels = a.shape[-1]
    out = xp.zeros_like(a)
    if radius < 0 or channels == 0:
        return out
    r = int(min(radius, channels - 1))
    for d in range(-r, r + 1):
        if d >= 0:
            out[..., : channels - d] += a[..., d:]
        else:
            out[..., -d:] += a[..., : channels + d]
    return out


def lrn(x, *, xp, depth_radius, bias, alpha, beta):
    if x.dtype.kind == "c":
        raise complex_error("LRN")
    xv = x.astype(xp.float64)
    with errstate(xp, all="ignore"):
        total = _window_sum(xv * xv, depth_radius, xp)
        out = xv * xp.power(bias + alpha * total, -float(beta))
        # TF.js's kernel stores into a Float32Array, also for int32 input (then truncated):
        # 65536 / sqrt(1 + 65536**2) is 1 there, not 0.
        return from_double(out.astype(xp.float32), x.dtype, xp)


def lrn_grad(x, y, dy, *, xp, depth_radius, bias, alpha, beta):
    if dy.dtype.kind == "c":
        raise complex_error("LRNGrad")
    if depth_radius < 0:  # every window is empty
        return from_double(xp.zeros(dy.shape), x.dtype, xp)
    xv, yv, dyv = x.astype(xp.float64), y.astype(xp.float64), dy.astype(xp.float64)
    with errstate(xp, all="ignore"):
        norm = alpha * _window_sum(xv * xv, depth_radius, xp) + bias
        # d out[c] / d x[k] = -2 alpha beta x[k] y[c] / norm[c] (+ norm[c]^-beta when k == c),
        # summed over every c whose window holds k: the windows are symmetric.
        spread = _window_sum(dyv * yv / norm, depth_radius, xp)
        out = -2.0 * alpha * beta * xv * spread + dyv * xp.power(norm, -float(beta))
        return from_double(out, x.dtype, xp)


# ---------------------------------------------------------------------------- softmax
def softmax(logits, *, xp, dim):
    rank = logits.ndim
    if dim == -1:
        dim = rank - 1
    if dim != rank - 1:
        raise InvalidArgumentError(
            "Softmax along a non-last dimension is not yet supported. "
            f"Logits was rank {rank} and dim was {dim}"
        )
    if rank == 0:
        raise InvalidArgumentError(
            "All values in axis param must be in range [-0, 0) but got axis -1"
        )
    if logits.size == 0:
        return xp.zeros(logits.shape, xp.float32)
    # As TF.js's kernel: Max, Sub, Exp, Sum, RealDiv, each result stored as float32.
    x = logits.astype(xp.float32, copy=False)
    # No errstate: floating-point warnings from kernel modules are filtered (see basic_math).
    shifted = x - x.max(axis=-1, keepdims=True)
    e = xp.exp(shifted, dtype=xp.float64).astype(xp.float32)  # the ufunc casts: no copy
    total = e.sum(axis=-1, keepdims=True, dtype=xp.float64).astype(xp.float32)
    return e / total


# ---------------------------------------------------------------------------- sparse to dense
def _js_list(values) -> str:
    return ",".join(str(int(v)) for v in values)


def sparse_to_dense(sparse_indices, sparse_values, default_value, *, xp, output_shape):
    shape = [int(d) for d in output_shape]
    dtype = sparse_values.dtype
    if dtype.kind == "c":
        raise DTypeError("Unsupported type complex64")
    size = math.prod(shape)
    if size == 0:
        return xp.zeros(shape, dtype)
    slice_rank = sparse_indices.shape[-1] if sparse_indices.ndim > 1 else 1
    fill = default_value.reshape(-1)
    if fill.size:
        fill = fill[0]
    else:  # JS reads undefined
        fill = math.nan if dtype.kind == "f" else 0
    out = xp.full(size, fill, dtype=dtype)
    rows = sparse_indices.reshape(-1, slice_rank).astype(xp.int64)
    if rows.shape[0] == 0:
        return out.reshape(shape)
    strides = [math.prod(shape[i + 1 : slice_rank]) for i in range(slice_rank)]
    flat = rows @ xp.asarray(strides, dtype=xp.int64)
    bad = (flat < 0) | (flat >= size)
    if bad.any():
        row = rows[int(xp.argmax(bad))]
        raise InvalidArgumentError(
            f"Invalid indices: {_js_list(row)} does not index into {_js_list(shape)}"
        )
    values = sparse_values.reshape(-1)
    if sparse_values.ndim == 0:
        out[flat] = values[0]
    else:
        # Later updates of the same position win, as TF.js writes them in order.
        targets, first = xp.unique(flat[::-1], return_index=True)
        out[targets] = values[flat.size - 1 - first]
    return out.reshape(shape)


KERNELS = {
    k.FUSED_BATCH_NORM: fused_batch_norm,
    k.LRN: lrn,
    k.LRN_GRAD: lrn_grad,
    k.SOFTMAX: softmax,
    k.SPARSE_TO_DENSE: sparse_to_dense,
}
