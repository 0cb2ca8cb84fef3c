"""Convolution kernels, and the window array helpers they share with the pooling kernels
(pooling.py).

Layout: every kernel works channels-last (``[batch, *spatial, channels]``); NCHW inputs are
transposed in and out. Geometry (output sizes, padding: ``ConvInfo``) comes from
``geometry/conv.py``, TF.js's ``conv_util``, so output shapes and values match TF.js's CPU
kernels.

Speed: a convolution is a few BLAS matmuls over patches of the (padded) input, gathered
from a zero-copy ``as_strided`` window view in cache-sized chunks: conv_gemm.py gathers just
the innermost filter dim (row bands, one GEMM per outer filter tap) or all of them (im2col)
and cuts the GEMMs into blocks OpenBLAS multiplies fastest. The filter gradient reuses the
same gather; the stride-1 input gradient is a forward convolution of ``dy`` with the flipped
filter, other strides scatter the columns back with one strided add per filter tap (col2im);
pooling and dilation2d reduce over one strided view per window tap. No loop runs over pixels.
"""

from __future__ import annotations

import itertools
import math

from ... import kernel_names as k
from ...errors import InvalidArgumentError, ShapeError
from ...geometry.conv import (
    ConvInfo,
    compute_conv2d_info,
    compute_conv3d_info,
    compute_dilation2d_info,
    convert_data_format,
    either_strides_or_dilations_are_one,
    js_format,
)
from . import conv_gemm
from .arithmetic import from_double
from .conv_gemm import padded_region, workspace


def clear_buffer_pool() -> None:
    """Drops the convolution kernels' cached scratch buffers (this thread's)."""
    conv_gemm.clear_workspaces()


#: Elements of one im2col chunk: small enough to stay in L2 between the copy and the GEMM.
COL_CHUNK = 1 << 18


# ---------------------------------------------------------------------------- array helpers
def _extents(info: ConvInfo, dilations=None) -> tuple[list[int], list[int]]:
    """Where the windows read, per spatial dim: (first input index, number of indices)."""
    ds = info.dilations if dilations is None else dilations
    starts = [-p for p in info.pad_before]
    ext = [
        (o - 1) * s + (f - 1) * d + 1 if o > 0 else 0
        for o, s, f, d in zip(info.out_sizes, info.strides, info.filter_sizes, ds, strict=True)
    ]
    return starts, ext


def _region(x, xp, starts, extents, fill, scratch: bool = False):
    """``a[:, i, ...] = x[:, starts + i, ...]`` over ``extents``; ``fill`` outside ``x``.
    A view of ``x`` when no padding is needed; with ``scratch`` a padded copy lives in the
    workspace (valid until the next call that uses it)."""
    if scratch:
        return padded_region(x, xp, starts, extents, fill)
    sizes = x.shape[1:-1]
    if all(0 <= st and st + e <= s for st, e, s in zip(starts, extents, sizes, strict=True)):
        inner = (slice(st, st + e) for st, e in zip(starts, extents, strict=True))
        return x[(slice(None), *inner, slice(None))]
    out = xp.full((x.shape[0], *extents, x.shape[-1]), fill, dtype=x.dtype)
    dst, src = [slice(None)], [slice(None)]
    for st, e, s in zip(starts, extents, sizes, strict=True):
        lo, hi = max(st, 0), min(st + e, s)
        if hi <= lo:
            return out
        dst.append(slice(lo - st, hi - st))
        src.append(slice(lo, hi))
    out[tuple(dst)] = x[tuple(src)]
    return out


def _windows(a, xp, info: ConvInfo, dilations=None):
    """A zero-copy view ``[batch, *out, *filter, channels]`` of the windows over ``a``."""
    ds = info.dilations if dilations is None else dilations
    st = a.strides
    nd = len(info.out_sizes)
    shape = (a.shape[0], *info.out_sizes, *info.filter_sizes, a.shape[-1])
    strides = (
        st[0],
        *(st[i + 1] * info.strides[i] for i in range(nd)),
        *(st[i + 1] * ds[i] for i in range(nd)),
        st[-1],
    )
    return xp.lib.stride_tricks.as_strided(a, shape, strides)


def filter_taps(info: ConvInfo):
    return itertools.product(*(range(f) for f in info.filter_sizes))


def _tap_slices(info: ConvInfo, tap, dilations=None):
    """The strided slice of the window region that filter tap ``tap`` reads for every output."""
    ds = info.dilations if dilations is None else dilations
    return tuple(
        slice(t * d, t * d + (o - 1) * s + 1, s) if o > 0 else slice(0, 0)
        for t, d, o, s in zip(tap, ds, info.out_sizes, info.strides, strict=True)
    )


def _tap_view(region, info: ConvInfo, tap, dilations=None):
    """What filter tap ``tap`` reads from the window region ``region`` for every output."""
    return region[(slice(None), *_tap_slices(info, tap, dilations), slice(None))]


def tap_views(region, info: ConvInfo, dilations=None):
    """``_tap_view`` of every filter tap, in ``filter_taps`` order."""
    return (_tap_view(region, info, tap, dilations) for tap in filter_taps(info))


class Scatter:
    """Accumulates per-tap contributions over the window region, then crops to the input."""

    def __init__(self, xp, info: ConvInfo, channels: int, dtype, dilations=None):
        self.starts, self.ext = _extents(info, dilations)
        self.lo = [min(st, 0) for st in self.starts]
        hi = [max(st + e, s) for st, e, s in zip(self.starts, self.ext, info.in_sizes, strict=True)]
        self.buf = xp.zeros(
            (info.batch, *(h - lo for h, lo in zip(hi, self.lo, strict=True)), channels),
            dtype=dtype,
        )
        off = [st - lo for st, lo in zip(self.starts, self.lo, strict=True)]
        region = tuple(slice(o, o + e) for o, e in zip(off, self.ext, strict=True))
        self.region = self.buf[(slice(None), *region, slice(None))]
        self.sizes = info.in_sizes

    def add(self, info: ConvInfo, tap, values, dilations=None) -> None:
        """Adds ``values`` where filter tap ``tap`` read its inputs."""
        target = _tap_view(self.region, info, tap, dilations)
        target += values

    def result(self):
        crop = tuple(slice(-lo, -lo + s) for lo, s in zip(self.lo, self.sizes, strict=True))
        return self.buf[(slice(None), *crop, slice(None))]


def fit_dy(dy, xp, info: ConvInfo):
    """``dy`` cut to the output size the geometry gives (TF.js reads only that part)."""
    want = info.out_sizes
    got = dy.shape[1:-1]
    if tuple(got) == tuple(want):
        return dy
    if any(g < w for g, w in zip(got, want, strict=True)):
        raise ShapeError(
            f"dy has spatial shape [{js_format(list(got))}] but the convolution's output is [{js_format(want)}]"
        )
    return dy[(slice(None), *(slice(0, w) for w in want), slice(None))]


def to_channels_last(a, xp, channels_last: bool):
    return a if channels_last else xp.moveaxis(a, 1, -1)


def from_channels_last(a, xp, channels_last: bool):
    return a if channels_last else xp.ascontiguousarray(xp.moveaxis(a, -1, 1))


def as_float32(a, xp):
    return a if a.dtype == xp.float32 else a.astype(xp.float32)


def window_region(x, xp, info: ConvInfo, fill):
    starts, ext = _extents(info)
    return _region(x, xp, starts, ext, fill, scratch=True)


def running_max(taps, shape, start, dtype, xp):
    """The elementwise max of ``start`` and every array in ``taps``, ignoring NaN."""
    best = xp.full(shape, start, dtype=dtype)
    for cur in taps:
        xp.fmax(best, cur, out=best)
    return best


def pooled_shape(x, info: ConvInfo) -> tuple[int, ...]:
    return (x.shape[0], *info.out_sizes, x.shape[-1])


def first_tap_index(values, best, ok, xp, last: bool):
    """The index of the first (``last``: last) tap whose value equals ``best`` where ``ok``,
    else -1. ``values`` yields each tap's values; NaN never equals ``best``."""
    idx = xp.full(best.shape, -1, dtype=xp.int32)
    order = list(enumerate(values))
    for i, cur in order if last else order[::-1]:  # the tap written last wins
        hit = cur == best
        if ok is not None:
            hit &= ok
        idx = xp.where(hit, xp.int32(i), idx)
    return idx


def window_starts(info: ConvInfo, xp):
    """The input row and column where each output's window starts (negative in the padding),
    shaped to broadcast over [batch, outHeight, outWidth, channels]."""
    rows = xp.arange(info.out_sizes[0]) * info.strides[0] - info.pad_before[0]
    cols = xp.arange(info.out_sizes[1]) * info.strides[1] - info.pad_before[1]
    return rows[None, :, None, None], cols[None, None, :, None]


def flat_index(rows, cols, shape, xp, with_batch: bool):
    """The flat index into an array of ``shape`` [batch, h, w, channels] of pixel
    (``rows``, ``cols``) of every channel (of every image when ``with_batch``)."""
    n, h, w, c = shape
    flat = (rows * w + cols) * c + xp.arange(c)
    if with_batch:
        flat = flat + (xp.arange(n) * h * w * c)[:, None, None, None]
    return flat


# ---------------------------------------------------------------------------- convolution
def _chunks(n: int, out_sizes: list[int], kkc: int):
    """(batch slice, first-output-dim slice) blocks of about ``COL_CHUNK`` column elements:
    whole images when one fits, else bands of output rows of one image."""
    rows = math.prod(out_sizes)
    per_image = rows * kkc
    if per_image <= COL_CHUNK:
        step = max(1, COL_CHUNK // max(per_image, 1))
        for b in range(0, n, step):
            yield slice(b, min(n, b + step)), slice(0, out_sizes[0])
        return
    per_row = per_image // out_sizes[0]
    step = max(1, COL_CHUNK // max(per_row, 1))
    for b in range(n):
        for r in range(0, out_sizes[0], step):
            yield slice(b, b + 1), slice(r, min(out_sizes[0], r + step))


def _band(info: ConvInfo, rs: slice) -> ConvInfo:
    """``info`` restricted to output rows ``rs`` of the first spatial dim (for tap slices)."""
    if rs.start == 0 and rs.stop == info.out_sizes[0]:
        return info
    return info.replace(out_sizes=[rs.stop - rs.start, *info.out_sizes[1:]])


def _row_offset(info: ConvInfo, rs: slice) -> int:
    return rs.start * info.strides[0]


def conv_forward(x, w, info: ConvInfo, xp):
    """``x`` [N, *S, Cin] (channels last), ``w`` [*K, Cin, Cout] -> [N, *O, Cout]: batched GEMMs
    over row bands of the padded input (conv_gemm; float64 for integer inputs, else float32)."""
    ctype = xp.float64 if x.dtype.kind in "iub" else xp.float32
    x, w = x.astype(ctype, copy=False), w.astype(ctype, copy=False)
    n, cout = x.shape[0], w.shape[-1]
    if x.size == 0 or w.size == 0 or math.prod(info.out_sizes) == 0:
        return xp.zeros((n, *info.out_sizes, cout), dtype=ctype)
    kkc = math.prod(info.filter_sizes) * w.shape[-2]
    if kkc == x.shape[-1] and all(s == 1 for s in info.strides) and not any(info.pad_before):
        if list(x.shape[1:-1]) == info.out_sizes:  # 1x1 filter, stride 1: x is the column matrix
            return xp.matmul(x.reshape(-1, kkc), w.reshape(kkc, cout)).reshape(
                n, *info.out_sizes, cout
            )
    out = xp.empty((n, *info.out_sizes, cout), dtype=ctype)
    region = padded_region(x, xp, *_extents(info))
    return conv_gemm.forward(region, xp.ascontiguousarray(w), info, xp, out)


def conv_backprop_filter(x, dy, info: ConvInfo, xp):
    """dL/dw for ``conv_forward`` (dilation 1, as TF.js's kernels): [*K, Cin, Cout]."""
    x, dy = as_float32(x, xp), as_float32(fit_dy(dy, xp, info), xp)
    cin, cout = x.shape[-1], dy.shape[-1]
    if not (dy.size and x.size):
        return xp.zeros((*info.filter_sizes, cin, cout), dtype=xp.float32)
    region = padded_region(x, xp, *_extents(info))
    return conv_gemm.filter_grad(region, xp.ascontiguousarray(dy), info, xp)


def _conv_transposed_stride1(dy, w, info: ConvInfo, xp):
    """Stride 1: the input gradient is the correlation of ``dy`` with the filter flipped in
    space and transposed in channels, padded by ``filter - 1 - pad``: one more im2col GEMM."""
    flipped = xp.ascontiguousarray(
        xp.swapaxes(w[tuple(slice(None, None, -1) for _ in info.filter_sizes)], -1, -2)
    )
    t = info.replace(
        in_sizes=list(info.out_sizes),
        out_sizes=list(info.in_sizes),
        pads=[(f - 1 - p[0], 0) for f, p in zip(info.filter_sizes, info.pads, strict=True)],
    )
    return conv_forward(dy, flipped, t, xp)


def conv_backprop_input(dy, w, info: ConvInfo, xp):
    """dL/dx for ``conv_forward``: per chunk, one GEMM per filter tap into the workspace, then
    a strided add of each tap's rows into the (padded) input gradient (col2im)."""
    dy, w = as_float32(fit_dy(dy, xp, info), xp), as_float32(w, xp)
    cin, cout = w.shape[-2], w.shape[-1]
    if dy.size and w.size and all(v == 1 for v in info.strides + info.dilations):
        return _conv_transposed_stride1(dy, w, info, xp)
    scatter = Scatter(xp, info, cin, xp.float32)
    if dy.size and w.size:
        nk = math.prod(info.filter_sizes)
        wt = xp.ascontiguousarray(xp.swapaxes(w.reshape(nk, cin, cout), 1, 2))  # [tap, cout, cin]
        for bs, rs in _chunks(dy.shape[0], info.out_sizes, nk * cin):
            dyc = dy[bs, rs]
            block = dyc.shape[:-1]
            dym = dyc.reshape(-1, cout)
            parts = workspace(xp, nk * dym.shape[0] * cin, xp.float32).reshape(
                nk, dym.shape[0], cin
            )
            band, off = _band(info, rs), _row_offset(info, rs)
            for i, tap in enumerate(filter_taps(info)):
                xp.matmul(dym, wt[i], out=parts[i])
                sl = _tap_slices(band, tap)
                sl = (slice(sl[0].start + off, sl[0].stop + off, sl[0].step), *sl[1:])
                target = scatter.region[(bs, *sl, slice(None))]
                target += parts[i].reshape(*block, cin)
    return scatter.result()


def _store(out, x, xp):
    """TF.js's CPU conv keeps the input's dtype (an int input accumulates in an Int32Array)."""
    if x.dtype.kind in "iub":
        return from_double(out, x.dtype, xp)
    return out.astype(xp.float32, copy=False)


def conv_kernels(forward, backprop_input, backprop_filter):
    """The six Conv2D/Conv3D kernels around one backend's three routines (``forward``,
    ``backprop_input``, ``backprop_filter`` on channels-last arrays and a conv info): TF.js's
    argument handling (data format, geometry, the input's dtype kept) is written once here and
    shared by every backend (the GPU's routines are in ``cupy_kernels/convolution.py``)."""

    def conv2d(
        x, w, *, xp, strides, pad, data_format="NHWC", dilations=(1, 1), dim_rounding_mode=None
    ):
        fmt = convert_data_format(data_format)
        info = compute_conv2d_info(
            x.shape, w.shape, strides, dilations, pad, dim_rounding_mode, False, fmt
        )
        out = forward(to_channels_last(x, xp, info.channels_last), w, info, xp)
        return from_channels_last(_store(out, x, xp), xp, info.channels_last)

    def conv2d_backprop_input(
        dy, w, *, xp, strides, pad, input_shape, data_format="NHWC", dim_rounding_mode=None
    ):
        fmt = convert_data_format(data_format)
        info = compute_conv2d_info(
            tuple(input_shape), w.shape, strides, 1, pad, dim_rounding_mode, False, fmt
        )
        dx = backprop_input(to_channels_last(dy, xp, info.channels_last), w, info, xp)
        return from_channels_last(dx, xp, info.channels_last)

    def conv2d_backprop_filter(
        x, dy, *, xp, strides, pad, filter_shape, data_format="NHWC", dim_rounding_mode=None
    ):
        fmt = convert_data_format(data_format)
        info = compute_conv2d_info(
            x.shape, tuple(filter_shape), strides, 1, pad, dim_rounding_mode, False, fmt
        )
        last = info.channels_last
        return backprop_filter(
            to_channels_last(x, xp, last), to_channels_last(dy, xp, last), info, xp
        )

    def conv3d(x, w, *, xp, strides, pad, data_format="NDHWC", dilations=(1, 1, 1)):
        info = compute_conv3d_info(x.shape, w.shape, strides, dilations, pad)
        return _store(forward(x, w, info, xp), x, xp)

    def conv3d_backprop_input(dy, w, *, xp, strides, pad, input_shape):
        info = compute_conv3d_info(tuple(input_shape), w.shape, strides, 1, pad)
        return backprop_input(dy, w, info, xp)

    def conv3d_backprop_filter(x, dy, *, xp, strides, pad, filter_shape):
        info = compute_conv3d_info(x.shape, tuple(filter_shape), strides, 1, pad)
        return backprop_filter(x, dy, info, xp)

    return (
        conv2d,
        conv2d_backprop_input,
        conv2d_backprop_filter,
        conv3d,
        conv3d_backprop_input,
        conv3d_backprop_filter,
    )


(
    conv2d,
    conv2d_backprop_input,
    conv2d_backprop_filter,
    conv3d,
    conv3d_backprop_input,
    conv3d_backprop_filter,
) = conv_kernels(conv_forward, conv_backprop_input, conv_backprop_filter)


# ---------------------------------------------------------------------------- depthwise
def depthwise_info(x_shape, w_shape, strides, pad, dilations, rounding):
    dilations = [1, 1] if dilations is None else dilations
    if not either_strides_or_dilations_are_one(strides, dilations):
        raise InvalidArgumentError(
            "Error in depthwise_conv2d: Either strides or dilations must be 1. "
            f"Got strides {js_format(strides)} and dilations '{js_format(dilations)}'"
        )
    # TF.js's CPU kernel reads the input as NHWC whatever data_format says.
    info = compute_conv2d_info(
        tuple(x_shape), tuple(w_shape), strides, dilations, pad, rounding, True
    )
    if w_shape[2] != info.in_channels:
        raise ShapeError(
            f"depthwise_conv2d on CPU reads the input as NHWC: its {info.in_channels} channels must "
            f"match the filter's in_channels {w_shape[2]}"
        )
    return info


def depthwise_forward(x, w, info: ConvInfo, xp):
    x, w = as_float32(x, xp), as_float32(w, xp)
    n, c, m = x.shape[0], w.shape[2], w.shape[3]
    out = xp.zeros((n, *info.out_sizes, c, m), dtype=xp.float32)
    if out.size and x.size:
        starts, ext = _extents(info)
        region = _region(x, xp, starts, ext, 0, scratch=True)
        tmp = workspace(xp, out.size, xp.float32, "parts").reshape(out.shape)
        for tap, v in zip(filter_taps(info), tap_views(region, info), strict=True):
            xp.multiply(v[..., None], w[tap], out=tmp)
            out += tmp
    return out.reshape(n, *info.out_sizes, c * m)


def depthwise_conv2d_native(
    x, w, *, xp, strides, pad, data_format="NHWC", dilations=(1, 1), dim_rounding_mode=None
):
    info = depthwise_info(x.shape, w.shape, strides, pad, dilations, dim_rounding_mode)
    return depthwise_forward(x, w, info, xp)


def depthwise_backprop_input(
    dy, w, *, xp, strides, pad, input_shape, dilations=(1, 1), dim_rounding_mode=None
):
    info = compute_conv2d_info(
        tuple(input_shape), w.shape, strides, dilations, pad, dim_rounding_mode, True
    )
    dy, w = as_float32(fit_dy(dy, xp, info), xp), as_float32(w, xp)
    c, m = w.shape[2], w.shape[3]
    ones = [1, 1]  # TF.js's backprop kernels step through the filter without dilation
    scatter = Scatter(xp, info, c, xp.float32, ones)
    if dy.size and w.size:
        dy = dy.reshape(*dy.shape[:-1], c, m)
        tmp = workspace(xp, dy.size, xp.float32, "parts").reshape(dy.shape)
        for tap in filter_taps(info):
            xp.multiply(dy, w[tap], out=tmp)
            scatter.add(info, tap, tmp[..., 0] if m == 1 else tmp.sum(-1), ones)
    return scatter.result()


def depthwise_backprop_filter(
    x, dy, *, xp, strides, pad, filter_shape, dilations=(1, 1), dim_rounding_mode=None
):
    info = compute_conv2d_info(
        x.shape, tuple(filter_shape), strides, dilations, pad, dim_rounding_mode, True
    )
    x, dy = as_float32(x, xp), as_float32(fit_dy(dy, xp, info), xp)
    c, m = filter_shape[2], filter_shape[3]
    dw = xp.zeros(tuple(filter_shape), dtype=xp.float32)
    if dy.size and x.size:
        ones = [1, 1]
        starts, ext = _extents(info, ones)
        region = _region(x, xp, starts, ext, 0, scratch=True)
        dy5 = dy.reshape(*dy.shape[:-1], c, m)
        tmp = workspace(xp, dy5.size, xp.float32, "parts").reshape(dy5.shape)
        for tap, v in zip(filter_taps(info), tap_views(region, info, ones), strict=True):
            xp.multiply(v[..., None], dy5, out=tmp)
            dw[tap] = tmp.reshape(-1, c, m).sum(0)
    return dw


# ---------------------------------------------------------------------------- dilation2d
_MIN_SAFE_INTEGER = -9007199254740991.0


def _dilation_argmax(x, f, info: ConvInfo, xp):
    """(max of x + filter over each window from Number.MIN_SAFE_INTEGER, index of the first tap
    reaching it or -1), in float64 as TF.js compares in doubles."""
    v, fv = x.astype(xp.float64), f.astype(xp.float64)
    shape = pooled_shape(x, info)
    if not (math.prod(shape) and x.size):
        best = xp.full(shape, _MIN_SAFE_INTEGER, dtype=xp.float64)
        return best, xp.full(shape, -1, dtype=xp.int32)
    region = window_region(v, xp, info, math.nan)
    taps = [
        view + fv[t] for t, view in zip(filter_taps(info), tap_views(region, info), strict=True)
    ]
    best = running_max(taps, shape, _MIN_SAFE_INTEGER, xp.float64, xp)
    return best, first_tap_index(taps, best, best > _MIN_SAFE_INTEGER, xp, False)


def dilation2d(x, f, *, xp, strides, pad, dilations):
    info = compute_dilation2d_info(x.shape, f.shape, strides, pad, dilations)
    best, _ = _dilation_argmax(x, f, info, xp)
    return from_double(best, x.dtype, xp)


def _dilation_targets(x, f, dy, attrs, xp):
    info = compute_dilation2d_info(
        x.shape, f.shape, attrs["strides"], attrs["pad"], attrs["dilations"]
    )
    if dy.ndim != 4:
        raise ShapeError(
            f"Error in Dilation2DBackpropInput, dy must have the same rank as output 4, but got {dy.ndim}"
        )
    _, idx = _dilation_argmax(x, f, info, xp)
    fw = info.filter_sizes[1]
    return info, idx, xp.divmod(xp.maximum(idx, 0), fw)


def dilation2d_backprop_input(x, f, dy, *, xp, strides, pad, dilations):
    info, idx, (tr, tc) = _dilation_targets(x, f, dy, locals(), xp)
    h, w = x.shape[1:3]
    beg_h, beg_w = window_starts(info, xp)
    found = idx >= 0
    rows = xp.where(found, beg_h + tr * info.dilations[0], xp.maximum(beg_h, 0))
    cols = xp.where(found, beg_w + tc * info.dilations[1], xp.maximum(beg_w, 0))
    rows, cols = xp.minimum(rows, h - 1), xp.minimum(cols, w - 1)
    flat = flat_index(rows, cols, x.shape, xp, True)
    dx = xp.bincount(flat.reshape(-1), weights=dy.reshape(-1).astype(xp.float64), minlength=x.size)
    return from_double(dx.reshape(x.shape), x.dtype, xp)


def dilation2d_backprop_filter(x, f, dy, *, xp, strides, pad, dilations):
    _, idx, _ = _dilation_targets(x, f, dy, locals(), xp)
    c = x.shape[-1]
    flat = xp.maximum(idx, 0) * c + xp.arange(c)  # no tap found: TF.js adds at (0, 0)
    df = xp.bincount(flat.reshape(-1), weights=dy.reshape(-1).astype(xp.float64), minlength=f.size)
    return from_double(df.reshape(f.shape), f.dtype, xp)


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
    k.DILATION2D: dilation2d,
    k.DILATION2D_BACKPROP_INPUT: dilation2d_backprop_input,
    k.DILATION2D_BACKPROP_FILTER: dilation2d_backprop_filter,
}
