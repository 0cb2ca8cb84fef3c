"""Pooling on the GPU: one reduction over a zero-copy window view instead of one launch per
filter tap.

The CPU kernels (``xp_kernels/pooling.py``) walk the filter taps, one strided view and one
elementwise launch each (9 launches for a 3x3 pool, 27 for 3x3x3, plus the argmax passes of
the gradients). Here the padded input is seen as ``[N, *out, *filter, C]`` through
``as_strided`` (``_windows``) and reduced over the filter axes in one call:

* max pool: NaN is replaced by -Infinity and the padding is -Infinity, so a plain ``max``
  gives TF.js's ``pixel > max`` from -Infinity (NaN never taken, an empty window -Infinity);
* average pool: a ``sum`` over the zero-padded windows divided by the taps inside the input;
* max-pool positions (gradients, ``maxPoolWithArgmax``): the windows of the NaN-padded input
  compared with the maxima, and the first (2-D) or last (3-D) hit found by one ``argmax``.

The gradients scatter back with the CPU kernels' per-tap ``Scatter`` (col2im), and the
geometry and dtype rules are the CPU kernels', so results match them (the average's sum may
round differently in float32); the tests run these kernels on NumPy and compare.
"""

from __future__ import annotations

import math

from ... import kernel_names as k
from ...geometry.conv import ConvInfo
from ..xp_compat import errstate
from ..xp_kernels import pooling as cpu
from ..xp_kernels.arithmetic import from_double
from ..xp_kernels.convolution import (
    _extents,
    _region,
    _windows,
    as_float32,
    pooled_shape,
)


def _window_view(x, xp, info: ConvInfo, fill):
    """``[N, *out, *filter, C]`` windows over ``x`` padded with ``fill`` (a view of ``x``
    when no padding is needed)."""
    starts, ext = _extents(info)
    return _windows(_region(x, xp, starts, ext, fill), xp, info)


def _filter_axes(info: ConvInfo) -> tuple[int, ...]:
    nd = len(info.out_sizes)
    return tuple(range(1 + nd, 1 + 2 * nd))


def _as_compared(x, xp):
    """float32 stays, anything else compares in float64 (the CPU kernels' rule)."""
    return x if x.dtype == xp.float32 else x.astype(xp.float64)


def gpu_max_pool(x, info: ConvInfo, xp):
    v = _as_compared(x, xp)
    shape = pooled_shape(x, info)
    if not (math.prod(shape) and x.size):
        return xp.full(shape, -math.inf, dtype=v.dtype)
    v = xp.where(xp.isnan(v), v.dtype.type(-math.inf), v)
    return _window_view(v, xp, info, -math.inf).max(axis=_filter_axes(info))


def gpu_avg_pool(x, info: ConvInfo, xp, empty_is_zero: bool):
    v = as_float32(x, xp)
    shape = pooled_shape(x, info)
    if not (math.prod(shape) and x.size):
        total = xp.zeros(shape, dtype=xp.float32)
    else:
        total = _window_view(v, xp, info, 0).sum(axis=_filter_axes(info), dtype=xp.float32)
    counts = cpu._valid_counts(info, xp)[None, ..., None].astype(xp.float32)
    if empty_is_zero:
        counts = xp.maximum(counts, 1)
    with errstate(xp, invalid="ignore", divide="ignore"):
        return total / counts


def gpu_max_positions(x, info: ConvInfo, xp, last: bool):
    """The CPU ``_max_positions``: for every window, the tap (in ``filter_taps`` order) of the
    first strict maximum (2-D) or the last ``>=`` one (3-D); NaN and padding never picked;
    -1 where nothing is."""
    v = _as_compared(x, xp)
    shape = pooled_shape(x, info)
    if not (math.prod(shape) and x.size):
        return xp.full(shape, -1, dtype=xp.int32)
    best = gpu_max_pool(v, info, xp)
    nd = len(info.out_sizes)
    expand = (slice(None),) * (1 + nd) + (None,) * nd + (slice(None),)
    hit = _window_view(v, xp, info, math.nan) == best[expand]
    if not last:  # 2-D: ``pixel > max`` from -Infinity never picks a -Infinity window
        hit &= (best > -math.inf)[expand]
    taps = math.prod(info.filter_sizes)
    flat = xp.moveaxis(hit, -1, 1 + nd).reshape(*shape, taps)
    if last:
        idx = taps - 1 - xp.argmax(flat[..., ::-1], axis=-1)
    else:
        idx = xp.argmax(flat, axis=-1)
    return xp.where(flat.any(axis=-1), idx, -1).astype(xp.int32)


def _pool2d_raw(kind):
    def pool(arr, info, xp):
        if kind == "max":
            return from_double(gpu_max_pool(arr, info, xp), arr.dtype, xp)
        return from_double(gpu_avg_pool(arr, info, xp, False), arr.dtype, xp)

    return cpu.pool2d_kernel(kind, pool)


def max_pool3d(x, *, xp, filter_size, strides, pad, dim_rounding_mode=None, data_format="NDHWC"):
    info = cpu._pool3d_info(x.shape, locals())
    return gpu_max_pool(x, info, xp).astype(xp.float32)  # TF.js marks the result float32


def avg_pool3d(x, *, xp, filter_size, strides, pad, dim_rounding_mode=None, data_format="NDHWC"):
    info = cpu._pool3d_info(x.shape, locals())
    return gpu_avg_pool(x, info, xp, True)


def max_pool_grad(dy, x, y, *, xp, **attrs):
    info = cpu.pool2d_grad_info(x.shape, **attrs)
    return cpu.max_pool_grad_from(dy, x, xp, info, gpu_max_positions)


def max_pool3d_grad(dy, x, y, *, xp, **attrs):
    info = cpu.pool3d_grad_info(x.shape, **attrs)
    return cpu.max_pool3d_grad_from(dy, x, xp, info, gpu_max_positions)


def max_pool_with_argmax(x, *, xp, include_batch_in_index=False, **attrs):
    info = cpu.pool2d_grad_info(x.shape, **attrs)
    return cpu.with_argmax_from(
        x, info, xp, gpu_max_pool, gpu_max_positions, include_batch_in_index
    )


_GPU_KERNELS = {
    fn.__name__: fn
    for fn in (avg_pool3d, max_pool_grad, max_pool3d, max_pool3d_grad, max_pool_with_argmax)
}
#: The CPU's table, each kernel replaced by the one of the same name here (avgPool's gradient
#: stays: a per-tap scatter either way).
KERNELS = {name: _GPU_KERNELS.get(fn.__name__, fn) for name, fn in cpu.KERNELS.items()}

RAW_KERNELS = {
    k.MAX_POOL: _pool2d_raw("max"),
    k.AVG_POOL: _pool2d_raw("avg"),
}
