"""Reduction kernels: Sum, Prod, Mean, Max, Min, All, Any, ArgMax, ArgMin, Bincount, DenseBincount.

Axes arrive already normalized to non-negative ints by the ops. Float sums and products
accumulate in float64 and round once to float32, as TF.js's CPU kernels do (they add in JS
doubles and store into a Float32Array); int32 results wrap like an Int32Array store.
"""

from __future__ import annotations

import math

from ... import kernel_names as k
from ...errors import InvalidArgumentError
from ...geometry.axes import reduced_axes
from ...naming import snake_case

_TWO_32 = 4294967296.0
_TWO_31 = 2147483648.0


def _plan(x, axes, keep_dims):
    shape = x.shape
    if len(axes) == 1 and axes[0] >= 0:  # the common case, without the generators below
        a = axes[0]
        return (
            (a,),
            shape[:a] + (1,) + shape[a + 1 :] if keep_dims else shape[:a] + shape[a + 1 :],
            shape[a],
        )
    red = reduced_axes(shape, axes)
    out_shape = (
        tuple(1 if i in red else d for i, d in enumerate(shape))
        if keep_dims
        else tuple(d for i, d in enumerate(shape) if i not in red)
    )
    reduce_size = math.prod(shape[i] for i in red)
    return red, out_shape, reduce_size


def to_int32(values, xp):
    """JS's ToInt32 of float64 values (NaN/Infinity become 0, others wrap modulo 2**32)."""
    values = xp.where(xp.isfinite(values), xp.trunc(values), 0.0)
    values = xp.fmod(values, _TWO_32)
    values = xp.where(values < 0, values + _TWO_32, values)
    values = xp.where(values >= _TWO_31, values - _TWO_32, values)
    return values.astype(xp.int32)


def _check_not_complex(x, op_name, xp):
    if x.dtype.kind == "c":
        raise InvalidArgumentError(
            f"{snake_case(op_name)} does not support complex64 tensors in the CPU backend."
        )


def sum_(x, *, xp, axis, keep_dims=False):
    _check_not_complex(x, "sum", xp)
    red, out_shape, _ = _plan(x, axis, keep_dims)
    if x.dtype.kind == "f":
        # The ufunc's own reduce: no Python wrapper (np.sum's costs 1 us), and a warning it
        # raises (inf - inf) is raised from this module, whose warnings are filtered.
        out = xp.add.reduce(x, axis=red, dtype=xp.float64)
        return xp.asarray(out, dtype=xp.float32).reshape(out_shape)
    out = xp.add.reduce(x, axis=red, dtype=xp.int64)
    return xp.asarray(out).astype(xp.int32).reshape(out_shape)


def prod(x, *, xp, axis, keep_dims=False):
    _check_not_complex(x, "prod", xp)
    red, out_shape, _ = _plan(x, axis, keep_dims)
    out = xp.multiply.reduce(x.astype(xp.float64), axis=red)
    if x.dtype.kind == "f":
        return xp.asarray(out, dtype=xp.float32).reshape(out_shape)
    return to_int32(xp.asarray(out), xp).reshape(out_shape)


def mean(x, *, xp, axis, keep_dims=False):
    # TF.js: cast to float32, divide by the reduce size (taken from the axes as given), then Sum.
    n = math.prod(x.shape[a] for a in axis)
    if x.dtype.kind == "c":
        x = x.real
    if x.size:
        scaled = xp.true_divide(x, xp.float32(n), dtype=xp.float32)
    else:
        scaled = x.astype(xp.float32)
    return sum_(scaled, xp=xp, axis=axis, keep_dims=keep_dims)


def _extreme(x, xp, axis, keep_dims, op_name, fn):
    _check_not_complex(x, op_name, xp)
    red, out_shape, reduce_size = _plan(x, axis, keep_dims)
    if reduce_size == 0:
        # TF.js starts from the (missing) first value: NaN in a Float32Array, 0 otherwise.
        fill = xp.nan if x.dtype.kind == "f" else 0
        return xp.full(out_shape, fill, dtype=x.dtype)
    return xp.asarray(fn(x, axis=red)).reshape(out_shape)


def _max(x, axis):
    return x.max(axis=axis)  # the method: no np.max wrapper


def _min(x, axis):
    return x.min(axis=axis)


def max_(x, *, xp, reduction_indices, keep_dims=False):
    return _extreme(x, xp, reduction_indices, keep_dims, "max", _max)


def min_(x, *, xp, axis, keep_dims=False):
    return _extreme(x, xp, axis, keep_dims, "min", _min)


def _boolean(x, xp, axis, keep_dims, fn):
    red, out_shape, reduce_size = _plan(x, axis, keep_dims)
    if reduce_size == 0:  # TF.js reads a missing first value, which stores as false
        return xp.zeros(out_shape, dtype=xp.bool_)
    return xp.asarray(fn(x, axis=red)).reshape(out_shape)


def all_(x, *, xp, axis, keep_dims=False):
    return _boolean(x, xp, axis, keep_dims, xp.all)


def any_(x, *, xp, axis, keep_dims=False):
    return _boolean(x, xp, axis, keep_dims, xp.any)


def _arg_extreme(x, xp, axis, op_name, is_max):
    _check_not_complex(x, op_name, xp)
    out_shape = x.shape[:axis] + x.shape[axis + 1 :]
    if x.shape[axis] == 0:
        return xp.zeros(out_shape, dtype=xp.int32)
    idx = xp.argmax(x, axis=axis) if is_max else xp.argmin(x, axis=axis)
    if x.dtype.kind == "f":
        # NumPy picks a row's first NaN, so a NaN pick means the row has one. TF.js scans with
        # strict comparisons from the first value: a later NaN never wins, a NaN first value
        # is never beaten.
        picked = xp.take_along_axis(x, xp.expand_dims(idx, axis), axis=axis)
        if bool(xp.isnan(picked).any()):
            nan = xp.isnan(x)
            x = xp.where(nan, -xp.inf if is_max else xp.inf, x)
            first_nan = xp.take(nan, 0, axis=axis)
            idx = xp.argmax(x, axis=axis) if is_max else xp.argmin(x, axis=axis)
            idx = xp.where(first_nan, 0, idx)
    return xp.asarray(idx).astype(xp.int32)


def arg_max(x, *, xp, axis):
    return _arg_extreme(x, xp, axis, "argMax", True)


def arg_min(x, *, xp, axis):
    return _arg_extreme(x, xp, axis, "argMin", False)


def _check_non_negative(x, xp):
    if x.size and bool((x < 0).any()):
        raise InvalidArgumentError("Input x must be non-negative!")


def _weighted_counts(flat_x, flat_w, length, weights_dtype, xp):
    """Counts (or weight sums) of ``flat_x`` into ``length`` bins, in the weights' dtype."""
    if flat_w is None:
        counts = xp.bincount(flat_x, minlength=length)[:length]
        if weights_dtype == xp.bool_:
            return (counts % 256) != 0  # TF.js adds into a Uint8Array
        return counts.astype(weights_dtype)
    if weights_dtype == xp.bool_:
        sums = xp.bincount(flat_x, weights=flat_w.astype(xp.float64), minlength=length)[:length]
        return (sums % 256) != 0
    if weights_dtype == xp.int32:
        sums = xp.bincount(flat_x, weights=flat_w.astype(xp.float64), minlength=length)[:length]
        return to_int32(sums, xp)
    sums = xp.bincount(flat_x, weights=flat_w.astype(xp.float64), minlength=length)[:length]
    return sums.astype(weights_dtype)


def bincount(x, weights, *, xp, size):
    _check_non_negative(x, xp)
    flat = x.reshape(-1)
    keep = flat < size
    w = weights.reshape(-1)[keep] if weights.size else None
    return _weighted_counts(flat[keep], w, size, weights.dtype, xp)


def dense_bincount(x, weights, *, xp, size, binary_output=False):
    _check_non_negative(x, xp)
    if x.ndim == 1:  # TF.js ignores binary_output for rank-1 input
        return bincount(x, weights, xp=xp, size=size)
    rows = x.shape[0]
    keep = x < size
    offsets = x + (xp.arange(rows, dtype=xp.int64) * size)[:, None]
    flat = offsets[keep]
    if binary_output:
        present = xp.bincount(flat, minlength=rows * size)[: rows * size] > 0
        return present.astype(weights.dtype).reshape(rows, size)
    w = weights.reshape(x.shape)[keep] if weights.size else None
    return _weighted_counts(flat, w, rows * size, weights.dtype, xp).reshape(rows, size)


KERNELS = {
    k.SUM: sum_,
    k.PROD: prod,
    k.MEAN: mean,
    k.MAX: max_,
    k.MIN: min_,
    k.ALL: all_,
    k.ANY: any_,
    k.ARG_MAX: arg_max,
    k.ARG_MIN: arg_min,
    k.BINCOUNT: bincount,
    k.DENSE_BINCOUNT: dense_bincount,
}
