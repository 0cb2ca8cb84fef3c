"""Pooling kernels: max and average pooling (2-D and 3-D), their gradients, and
maxPoolWithArgmax. They share the window helpers of ``convolution.py``: a pool is a
depthwise window over the (padded) input, reduced over one strided view per filter tap.
"""

from __future__ import annotations

import math

from ... import kernel_names as k
from ...errors import InvalidArgumentError
from ...geometry.conv import (
    ConvInfo,
    compute_pool2d_info,
    compute_pool3d_info,
    either_strides_or_dilations_are_one,
    js_format,
)
from ..xp_compat import errstate
from .arithmetic import from_double
from .convolution import (
    Scatter,
    as_float32,
    filter_taps,
    first_tap_index,
    fit_dy,
    flat_index,
    pooled_shape,
    running_max,
    tap_views,
    window_region,
    window_starts,
    workspace,
)


def _valid_counts(info: ConvInfo, xp):
    """Taps of each window that fall inside the input, as an array over the output dims."""
    counts = None
    for o, s, f, p, n in zip(
        info.out_sizes, info.strides, info.eff_sizes, info.pad_before, info.in_sizes, strict=True
    ):
        corner = xp.arange(o) * s - p
        c = xp.minimum(corner + f, n) - xp.maximum(corner, 0)
        c = xp.maximum(c, 0)
        counts = c if counts is None else counts[..., None] * c
    return counts


def _max_pool(x, info: ConvInfo, xp):
    """Max over each window, ignoring NaN (TF.js's ``pixel > max`` never takes NaN); an
    empty window gives -Infinity. Returns float64 for integer inputs, else float32."""
    v = x if x.dtype == xp.float32 else x.astype(xp.float64)
    shape = pooled_shape(x, info)
    taps = ()
    if math.prod(shape) and x.size:
        taps = tap_views(window_region(v, xp, info, math.nan), info)
    return running_max(taps, shape, -math.inf, v.dtype, xp)


def _avg_pool(x, info: ConvInfo, xp, empty_is_zero: bool):
    v = as_float32(x, xp)
    total = xp.zeros(pooled_shape(x, info), dtype=xp.float32)
    if total.size and x.size:
        for view in tap_views(window_region(v, xp, info, 0), info):
            total += view
    counts = _valid_counts(info, xp)[None, ..., None].astype(xp.float32)
    if empty_is_zero:
        counts = xp.maximum(counts, 1)
    with errstate(xp, invalid="ignore", divide="ignore"):
        return total / counts


def _is_identity_pool(info: ConvInfo) -> bool:
    return info.filter_sizes == [1, 1] and list(info.in_shape) == list(info.out_shape)


def pool2d_kernel(kind, pool):
    """The raw ``maxPool``/``avgPool`` kernel around ``pool(arr, info, xp)`` (the GPU kernels
    pass their own)."""

    def kernel(inputs, attrs, backend):
        (x,) = inputs
        xp = backend.xp
        strides, filter_size = attrs["strides"], attrs["filter_size"]
        if not either_strides_or_dilations_are_one(strides, 1):
            name = "maxPool" if kind == "max" else "avgPool"
            raise InvalidArgumentError(
                f"Error in {name}: Either strides or dilations must be 1. Got strides {js_format(strides)} and dilations '1'"
            )
        info = compute_pool2d_info(
            x._shape, filter_size, strides, 1, attrs["pad"], attrs.get("dim_rounding_mode")
        )
        if _is_identity_pool(info):
            return backend.share(x, x._shape)  # TF.js's CPU kernel returns identity(x)
        return backend.write_array(pool(backend.array(x), info, xp))

    return kernel


def _pool2d_raw(kind):
    def pool(arr, info, xp):
        if kind == "max":
            return from_double(_max_pool(arr, info, xp), arr.dtype, xp)
        return from_double(_avg_pool(arr, info, xp, False), arr.dtype, xp)

    return pool2d_kernel(kind, pool)


def _pool3d_info(x_shape, attrs):
    return compute_pool3d_info(
        x_shape,
        attrs["filter_size"],
        attrs["strides"],
        1,
        attrs["pad"],
        attrs.get("dim_rounding_mode"),
        attrs.get("data_format", "NDHWC"),
    )


def max_pool3d(x, *, xp, filter_size, strides, pad, dim_rounding_mode=None, data_format="NDHWC"):
    info = _pool3d_info(x.shape, locals())
    return _max_pool(x, info, xp).astype(xp.float32)  # TF.js marks the result float32


def avg_pool3d(x, *, xp, filter_size, strides, pad, dim_rounding_mode=None, data_format="NDHWC"):
    info = _pool3d_info(x.shape, locals())
    return _avg_pool(x, info, xp, True)


def _max_positions(x, info: ConvInfo, xp, last: bool):
    """For every window, the tap TF.js's ``maxPoolPositions`` picks (first strict max for 2-D,
    last ``>=`` max for 3-D; NaN and padding never picked), or -1."""
    v = x.astype(xp.float64) if x.dtype != xp.float32 else x
    shape = pooled_shape(x, info)
    if not (math.prod(shape) and x.size):
        return xp.full(shape, -1, dtype=xp.int32)
    taps = list(tap_views(window_region(v, xp, info, math.nan), info))
    best = running_max(taps, shape, -math.inf, v.dtype, xp)
    # 2-D uses ``pixel > max`` from -Infinity: a window of -Infinity (or NaN) picks nothing.
    return first_tap_index(taps, best, None if last else best > -math.inf, xp, last)


def _scatter_by_position(dy, idx, info: ConvInfo, xp, codes=None):
    """dx: each output's ``dy`` added at the input pixel of its chosen tap."""
    scatter = Scatter(xp, info, dy.shape[-1], xp.float32)
    if dy.size:
        tmp = workspace(xp, dy.size, xp.float32, "parts").reshape(dy.shape)
        for i, tap in enumerate(filter_taps(info)):
            code = i if codes is None else codes[i]
            xp.multiply(dy, idx == code, out=tmp)
            scatter.add(info, tap, tmp)
    return scatter.result()


def pool2d_grad_info(x_shape, filter_size, strides, pad, dim_rounding_mode=None):
    return compute_pool2d_info(x_shape, filter_size, strides, 1, pad, dim_rounding_mode)


def pool3d_grad_info(x_shape, filter_size, strides, pad, dim_rounding_mode=None):
    return compute_pool3d_info(x_shape, filter_size, strides, 1, pad, dim_rounding_mode)


def max_pool_grad_from(dy, x, xp, info: ConvInfo, positions):
    """maxPool's dx with ``positions(x, info, xp, last)`` choosing each window's tap."""
    return _scatter_by_position(
        fit_dy(as_float32(dy, xp), xp, info), positions(x, info, xp, False), info, xp
    )


def max_pool3d_grad_from(dy, x, xp, info: ConvInfo, positions):
    idx = positions(x, info, xp, True)
    fd, fh, fw = info.eff_sizes
    # TF.js stores a 3-D position as d*H*W + r*H + c (H where W belongs) and matches it against
    # d*H*W + r*W + c: decode the stored codes the same way.
    taps = list(filter_taps(info))
    stored = xp.asarray([d * fh * fw + r * fh + c for d, r, c in taps], dtype=xp.int32)
    chosen = xp.where(idx >= 0, stored[xp.maximum(idx, 0)], -1)
    proper = [d * fh * fw + r * fw + c for d, r, c in taps]
    return _scatter_by_position(fit_dy(as_float32(dy, xp), xp, info), chosen, info, xp, proper)


def max_pool_grad(dy, x, y, *, xp, filter_size, strides, pad, dim_rounding_mode=None):
    info = pool2d_grad_info(x.shape, filter_size, strides, pad, dim_rounding_mode)
    return max_pool_grad_from(dy, x, xp, info, _max_positions)


def max_pool3d_grad(dy, x, y, *, xp, filter_size, strides, pad, dim_rounding_mode=None):
    info = pool3d_grad_info(x.shape, filter_size, strides, pad, dim_rounding_mode)
    return max_pool3d_grad_from(dy, x, xp, info, _max_positions)


def _avg_grad(dy, info: ConvInfo, xp):
    dy = fit_dy(as_float32(dy, xp), xp, info)
    scatter = Scatter(xp, info, dy.shape[-1], xp.float32)
    if dy.size:
        for tap in filter_taps(info):
            scatter.add(info, tap, dy)
    # TF.js divides by the full filter size, not by the taps inside the input.
    return scatter.result() * xp.float32(1.0 / math.prod(info.filter_sizes))


def avg_pool_grad(dy, x, *, xp, filter_size, strides, pad):
    return _avg_grad(dy, compute_pool2d_info(x.shape, filter_size, strides, 1, pad), xp)


def avg_pool3d_grad(dy, x, *, xp, filter_size, strides, pad, dim_rounding_mode=None):
    return _avg_grad(
        dy, compute_pool3d_info(x.shape, filter_size, strides, 1, pad, dim_rounding_mode), xp
    )


def with_argmax_from(x, info: ConvInfo, xp, pool, positions, include_batch_in_index):
    """maxPoolWithArgmax from a max ``pool(x, info, xp)`` and its tap ``positions``."""
    pooled = from_double(pool(x, info, xp), x.dtype, xp)
    idx = positions(x, info, xp, False)
    # Flatten each chosen tap to an index into the input.
    tap_r, tap_c = xp.divmod(xp.maximum(idx, 0), info.eff_sizes[1])
    rows, cols = window_starts(info, xp)
    flat = flat_index(rows + tap_r, cols + tap_c, x.shape, xp, include_batch_in_index)
    return [pooled, xp.where(idx >= 0, flat, -1).astype(xp.int32)]


def max_pool_with_argmax(x, *, xp, filter_size, strides, pad, include_batch_in_index=False):
    info = compute_pool2d_info(x.shape, filter_size, strides, [1, 1], pad)
    return with_argmax_from(x, info, xp, _max_pool, _max_positions, include_batch_in_index)


KERNELS = {
    k.AVG_POOL_GRAD: avg_pool_grad,
    k.AVG_POOL3D: avg_pool3d,
    k.AVG_POOL3D_GRAD: avg_pool3d_grad,
    k.MAX_POOL_GRAD: max_pool_grad,
    k.MAX_POOL3D: max_pool3d,
    k.MAX_POOL3D_GRAD: max_pool3d_grad,
    k.MAX_POOL_WITH_ARGMAX: max_pool_with_argmax,
}

RAW_KERNELS = {
    k.MAX_POOL: _pool2d_raw("max"),
    k.AVG_POOL: _pool2d_raw("avg"),
}
