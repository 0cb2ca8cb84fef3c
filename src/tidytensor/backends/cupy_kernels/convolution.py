"""Convolutions on the GPU: whole-batch implicit GEMMs instead of the CPU's cache-sized chunks.

The CPU kernels (``xp_kernels/convolution.py``, ``conv_gemm.py``) cut a convolution into
L2-sized bands and many small GEMMs: right for OpenBLAS, thousands of tiny launches on a GPU
(83 ms for a [32, 64, 64, 64] x 3x3x64 'same' convolution on an H200). CuPy 14 has no cuDNN
binding, so these kernels make one large cuBLAS GEMM per call:

* forward: the filter taps' strided views of the padded input stacked into columns
  ``[N * out, taps * Cin]`` (im2col) times the filter ``[taps * Cin, Cout]``; when the columns
  would take more than ``IM2COL_BYTES``, one GEMM per tap accumulates instead;
* filter gradient: columns transposed times ``dy`` (or one GEMM per tap);
* input gradient: ``dy`` times the filter transposed gives every tap's contribution, added
  back over the taps' strided views (col2im, one strided add per tap);
* depthwise: the same columns per channel, ``[C, N * out, taps]``, in one batched GEMM with
  the filter ``[C, taps, multiplier]`` (and its two gradients likewise), instead of the CPU's
  one broadcast multiply-add per tap; above ``IM2COL_BYTES`` the CPU kernels run.

The geometry (``ConvInfo``), layouts and dtype rules are the CPU kernels', so results match
them; the tests run these kernels on NumPy and compare.
"""

from __future__ import annotations

import math

from ... import kernel_names as k
from ...geometry.conv import compute_conv2d_info
from ..xp_kernels import convolution as cpu
from ..xp_kernels.convolution import (
    Scatter,
    _extents,
    _region,
    _tap_view,
    _windows,
    as_float32,
    filter_taps,
    fit_dy,
)

#: Largest im2col column matrix (bytes); above it, one GEMM per filter tap.
IM2COL_BYTES = 1 << 30


def _padded(x, xp, info):
    starts, ext = _extents(info)
    return _region(x, xp, starts, ext, 0)


def _tap_rows(region, info, tap):
    """Filter tap ``tap``'s input for every output, as a ``[N * out, Cin]`` matrix."""
    v = _tap_view(region, info, tap)
    return v.reshape(-1, v.shape[-1])


def _use_im2col(rows: int, taps: int, cin: int, itemsize: int) -> bool:
    return rows * taps * cin * itemsize <= IM2COL_BYTES


def _columns(region, info, xp):
    """``[N * out, taps * Cin]``: every tap's input for every output, side by side."""
    views = [_tap_view(region, info, tap) for tap in filter_taps(info)]
    cols = xp.stack(views, axis=-2)
    return cols.reshape(-1, len(views) * cols.shape[-1])


def gpu_conv_forward(x, w, info, xp):
    """``x`` [N, *S, Cin] (channels last), ``w`` [*K, Cin, Cout] -> [N, *O, Cout]."""
    ctype = xp.float64 if x.dtype.kind in "iub" else xp.float32
    x, w = x.astype(ctype, copy=False), w.astype(ctype, copy=False)
    n, cin, cout = x.shape[0], w.shape[-2], w.shape[-1]
    out_shape = (n, *info.out_sizes, cout)
    if x.size == 0 or w.size == 0 or math.prod(info.out_sizes) == 0:
        return xp.zeros(out_shape, dtype=ctype)
    taps = math.prod(info.filter_sizes)
    rows = n * math.prod(info.out_sizes)
    region = _padded(x, xp, info)
    wm = w.reshape(taps * cin, cout)
    if _use_im2col(rows, taps, cin, x.itemsize):
        return xp.matmul(_columns(region, info, xp), wm).reshape(out_shape)
    out = xp.zeros((rows, cout), dtype=ctype)
    for i, tap in enumerate(filter_taps(info)):
        out += xp.matmul(_tap_rows(region, info, tap), wm[i * cin : (i + 1) * cin])
    return out.reshape(out_shape)


def gpu_conv_backprop_filter(x, dy, info, xp):
    """dL/dw: [*K, Cin, Cout]."""
    x, dy = as_float32(x, xp), as_float32(fit_dy(dy, xp, info), xp)
    cin, cout = x.shape[-1], dy.shape[-1]
    taps = math.prod(info.filter_sizes)
    if not (dy.size and x.size):
        return xp.zeros((*info.filter_sizes, cin, cout), dtype=xp.float32)
    region = _padded(x, xp, info)
    dym = dy.reshape(-1, cout)
    if _use_im2col(dym.shape[0], taps, cin, 4):
        dw = xp.matmul(_columns(region, info, xp).T, dym)
    else:
        dw = xp.concatenate(
            [xp.matmul(_tap_rows(region, info, tap).T, dym) for tap in filter_taps(info)]
        )
    return dw.reshape(*info.filter_sizes, cin, cout)


def gpu_conv_backprop_input(dy, w, info, xp):
    """dL/dx: each tap's ``dy @ w[tap].T`` added back where that tap read (col2im)."""
    dy, w = as_float32(fit_dy(dy, xp, info), xp), as_float32(w, xp)
    cin, cout = w.shape[-2], w.shape[-1]
    scatter = Scatter(xp, info, cin, xp.float32)
    if not (dy.size and w.size):
        return scatter.result()
    taps = math.prod(info.filter_sizes)
    block = dy.shape[:-1]
    dym = dy.reshape(-1, cout)
    wt = w.reshape(taps, cin, cout)
    if _use_im2col(dym.shape[0], taps, cin, 4):
        parts = xp.matmul(dym, wt.reshape(taps * cin, cout).T).reshape(*block, taps, cin)
        for i, tap in enumerate(filter_taps(info)):
            scatter.add(info, tap, parts[..., i, :])
    else:
        for i, tap in enumerate(filter_taps(info)):
            scatter.add(info, tap, xp.matmul(dym, wt[i].T).reshape(*block, cin))
    return scatter.result()


(
    conv2d,
    conv2d_backprop_input,
    conv2d_backprop_filter,
    conv3d,
    conv3d_backprop_input,
    conv3d_backprop_filter,
) = cpu.conv_kernels(gpu_conv_forward, gpu_conv_backprop_input, gpu_conv_backprop_filter)


# ---------------------------------------------------------------------------- depthwise
def _channel_columns(x, xp, info, dilations):
    """``[C, N * out, taps]``: each channel's window values for every output."""
    starts, ext = _extents(info, dilations)
    win = _windows(_region(x, xp, starts, ext, 0), xp, info, dilations)
    nd = len(info.out_sizes)
    order = (1 + 2 * nd, *range(1 + nd), *range(1 + nd, 1 + 2 * nd))
    return win.transpose(order).reshape(x.shape[-1], -1, math.prod(info.filter_sizes))


def _fits(rows: int, info, channels: int) -> bool:
    return _use_im2col(rows, math.prod(info.filter_sizes), channels, 4)


def gpu_depthwise_forward(x, w, info, xp):
    """``x`` [N, H, W, C], ``w`` [fh, fw, C, M] -> [N, *out, C * M] in float32."""
    n, c, m = x.shape[0], w.shape[2], w.shape[3]
    rows = n * math.prod(info.out_sizes)
    if not (rows and x.size) or not _fits(rows, info, c):
        return cpu.depthwise_forward(x, w, info, xp)
    x, w = as_float32(x, xp), as_float32(w, xp)
    wc = w.reshape(-1, c, m).transpose(1, 0, 2)  # [C, taps, M]
    out = xp.matmul(_channel_columns(x, xp, info, None), wc)  # [C, rows, M]
    return out.transpose(1, 0, 2).reshape(n, *info.out_sizes, c * m)


def depthwise_conv2d_native(
    x, w, *, xp, strides, pad, data_format="NHWC", dilations=(1, 1), dim_rounding_mode=None
):
    info = cpu.depthwise_info(x.shape, w.shape, strides, pad, dilations, dim_rounding_mode)
    return gpu_depthwise_forward(x, w, info, xp)


def _depthwise_grad_info(x_shape, w_shape, strides, pad, dilations=(1, 1), dim_rounding_mode=None):
    return compute_conv2d_info(
        tuple(x_shape), tuple(w_shape), strides, dilations, pad, dim_rounding_mode, True
    )


def depthwise_backprop_input(dy, w, *, xp, input_shape, **attrs):
    info = _depthwise_grad_info(input_shape, w.shape, **attrs)
    c, m = w.shape[2], w.shape[3]
    rows = info.batch * math.prod(info.out_sizes)
    if not (rows and w.size) or not _fits(rows, info, c):
        return cpu.depthwise_backprop_input(dy, w, xp=xp, input_shape=input_shape, **attrs)
    dy, w = as_float32(fit_dy(dy, xp, info), xp), as_float32(w, xp)
    ones = [1, 1]  # TF.js's backprop kernels step through the filter without dilation
    taps = math.prod(info.filter_sizes)
    dyc = dy.reshape(rows, c, m).transpose(1, 0, 2)  # [C, rows, M]
    wt = w.reshape(taps, c, m).transpose(1, 2, 0)  # [C, M, taps]
    parts = xp.matmul(dyc, wt).transpose(1, 2, 0).reshape(*dy.shape[:-1], taps, c)
    scatter = Scatter(xp, info, c, xp.float32, ones)
    for i, tap in enumerate(filter_taps(info)):
        scatter.add(info, tap, parts[..., i, :], ones)
    return scatter.result()


def depthwise_backprop_filter(x, dy, *, xp, filter_shape, **attrs):
    info = _depthwise_grad_info(x.shape, filter_shape, **attrs)
    c, m = filter_shape[2], filter_shape[3]
    rows = info.batch * math.prod(info.out_sizes)
    if not (rows and x.size) or not _fits(rows, info, c):
        return cpu.depthwise_backprop_filter(x, dy, xp=xp, filter_shape=filter_shape, **attrs)
    x, dy = as_float32(x, xp), as_float32(fit_dy(dy, xp, info), xp)
    cols = _channel_columns(x, xp, info, [1, 1])  # [C, rows, taps]
    dyc = dy.reshape(rows, c, m).transpose(1, 0, 2)  # [C, rows, M]
    dw = xp.matmul(cols.transpose(0, 2, 1), dyc)  # [C, taps, M]
    return dw.transpose(1, 0, 2).reshape(tuple(filter_shape))


KERNELS = {
    k.CONV2D: conv2d,
    k.CONV2D_BACKPROP_INPUT: conv2d_backprop_input,
    k.CONV2D_BACKPROP_FILTER: conv2d_backprop_filter,
    k.CONV3D: conv3d,
    k.CONV3D_BACKPROP_INPUT_V2: conv3d_backprop_input,
    k.CONV3D_BACKPROP_FILTER_V2: conv3d_backprop_filter,
    k.DEPTHWISE_CONV2D_NATIVE: depthwise_conv2d_native,
    k.DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT: depthwise_backprop_input,
    k.DEPTHWISE_CONV2D_NATIVE_BACKPROP_FILTER: depthwise_backprop_filter,
}
