"""Convolution and pooling geometry (TF.js's ``conv_util``): parsing strides, dilations and
padding, and the ``ConvInfo`` that says how a window slides over an input.

Pure shape arithmetic, below both the ops (which check their arguments with it) and the
kernels (which size their outputs and windows with it), so neither imports the other for it.
Geometry follows TF.js exactly, quirks included: a numeric 2-D pad sizes both output dims
with the filter height and stride height, and 3-D 'same' padding may be negative.
"""

from __future__ import annotations

import math
from typing import Any

from ..errors import InvalidArgumentError, ShapeError


class ConvInfo:
    """TF.js's ``Conv2DInfo``/``Conv3DInfo``, with the spatial dims as lists."""

    __slots__ = (
        "batch",
        "in_sizes",
        "in_channels",
        "out_sizes",
        "out_channels",
        "filter_sizes",
        "strides",
        "dilations",
        "eff_sizes",
        "pads",
        "pad_type",
        "channels_last",
        "in_shape",
        "out_shape",
        "filter_shape",
    )

    @property
    def pad_before(self) -> list[int]:
        return [p[0] for p in self.pads]

    def replace(self, **changes: Any) -> ConvInfo:
        """A copy with the fields in ``changes`` replaced."""
        new = ConvInfo()
        for name in ConvInfo.__slots__:
            setattr(new, name, changes[name] if name in changes else getattr(self, name))
        return new


def js_format(value: Any) -> str:
    """``value`` as a JS template string prints it (arrays joined by commas)."""
    if isinstance(value, (list, tuple)):
        return ",".join(js_format(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _as_int(v: Any, what: str) -> int:
    if isinstance(v, bool):
        raise InvalidArgumentError(f"{what} must hold integers, but got {v!r}")
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"{what} must hold integers, but got {v!r}") from None
    if not f.is_integer():
        raise InvalidArgumentError(f"{what} must hold integers, but got {js_format(v)}")
    return int(f)


def is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def parse_tuple(param: Any, what: str = "strides") -> list[int]:
    """TF.js's ``parseTupleParam``: a number n gives [n, n, n], a pair [a, b] gives [a, b, 1]."""
    if is_number(param):
        n = _as_int(param, what)
        return [n, n, n]
    if not isinstance(param, (list, tuple)) or len(param) == 0:
        raise InvalidArgumentError(
            f"{what} must be a number or a list of numbers, but got {param!r}"
        )
    values = [_as_int(v, what) for v in param]
    return values + [1] if len(values) == 2 else values


def parse3(param: Any, what: str = "strides") -> list[int]:
    """TF.js's ``parse3TupleParam``: a number n gives [n, n, n]."""
    if is_number(param):
        n = _as_int(param, what)
        return [n, n, n]
    if not isinstance(param, (list, tuple)) or len(param) != 3:
        raise InvalidArgumentError(
            f"{what} must be a number or a list of 3 numbers, but got {param!r}"
        )
    return [_as_int(v, what) for v in param]


def tuple_values_are_one(param: Any) -> bool:
    v = parse_tuple(param)
    return len(v) >= 3 and v[0] == 1 and v[1] == 1 and v[2] == 1


def either_strides_or_dilations_are_one(strides: Any, dilations: Any) -> bool:
    return tuple_values_are_one(strides) or tuple_values_are_one(dilations)


def strides_or_dilations_are_positive(values: Any) -> bool:
    return all(v > 0 for v in parse_tuple(values))


def effective_size(size: int, dilation: int) -> int:
    return size if dilation <= 1 else size + (size - 1) * (dilation - 1)


def round_dim(value: float, mode: Any) -> int:
    """TF.js's ``round`` in conv_util: truncation unless a rounding mode is given."""
    if not mode:
        return math.trunc(value)
    if mode == "round":
        return math.floor(value + 0.5)
    if mode == "ceil":
        return math.ceil(value)
    if mode == "floor":
        return math.floor(value)
    raise InvalidArgumentError(f"Unknown rounding_mode {mode}")


def convert_data_format(data_format: Any) -> str:
    """'NHWC' -> 'channelsLast', 'NCHW' -> 'channelsFirst' (TF.js's convertConv2DDataFormat)."""
    if data_format == "NHWC":
        return "channelsLast"
    if data_format == "NCHW":
        return "channelsFirst"
    raise InvalidArgumentError(f"Unknown data_format {data_format}")


def _pad_2d(pad, in_h, in_w, s_h, s_w, f_h, f_w, rounding, channels_last):
    if is_number(pad):
        p = _as_int(pad, "pad")
        kind = "VALID" if p == 0 else "NUMBER"
        # TF.js sizes both dims with the filter height and stride height here.
        out_h = round_dim((in_h - f_h + 2 * p) / s_h + 1, rounding)
        out_w = round_dim((in_w - f_h + 2 * p) / s_h + 1, rounding)
        return [(p, p), (p, p)], kind, out_h, out_w
    if pad == "same":
        out_h, out_w = math.ceil(in_h / s_h), math.ceil(in_w / s_w)
        along_h = max(0, (out_h - 1) * s_h + f_h - in_h)
        along_w = max(0, (out_w - 1) * s_w + f_w - in_w)
        top, left = along_h // 2, along_w // 2
        return [(top, along_h - top), (left, along_w - left)], "SAME", out_h, out_w
    if pad == "valid":
        return (
            [(0, 0), (0, 0)],
            "VALID",
            math.ceil((in_h - f_h + 1) / s_h),
            math.ceil((in_w - f_w + 1) / s_w),
        )
    if isinstance(pad, (list, tuple)) and not isinstance(pad, str):
        try:
            rows, cols = (pad[1], pad[2]) if channels_last else (pad[2], pad[3])
            top, bottom = _as_int(rows[0], "pad"), _as_int(rows[1], "pad")
            left, right = _as_int(cols[0], "pad"), _as_int(cols[1], "pad")
        except (IndexError, TypeError, KeyError):
            raise InvalidArgumentError(
                f"Explicit padding must be [[0, 0], [top, bottom], [left, right], [0, 0]], but got {pad!r}"
            ) from None
        kind = "VALID" if top == bottom == left == right == 0 else "EXPLICIT"
        out_h = round_dim((in_h - f_h + top + bottom) / s_h + 1, rounding)
        out_w = round_dim((in_w - f_w + left + right) / s_w + 1, rounding)
        return [(top, bottom), (left, right)], kind, out_h, out_w
    raise InvalidArgumentError(f"Unknown padding parameter: {js_format(pad)}")


def _pad_3d(pad, ins, ss, fs, rounding):
    if pad == "valid":
        pad = 0
    if is_number(pad):
        p = _as_int(pad, "pad")
        outs = [
            round_dim((i - f + 2 * p) / s + 1, rounding) if i + 2 * p >= f else 0
            for i, s, f in zip(ins, ss, fs, strict=True)
        ]
        return [(p, p)] * 3, "VALID" if p == 0 else "NUMBER", outs
    if pad == "same":
        outs = [math.ceil(i / s) for i, s in zip(ins, ss, strict=True)]
        pads = []
        for i, s, f, o in zip(ins, ss, fs, outs, strict=True):
            along = (o - 1) * s + f - i  # not clamped at 0 in TF.js's 3-D version
            pads.append((along // 2, along - along // 2))
        return pads, "SAME", outs
    raise InvalidArgumentError(f"Unknown padding parameter: {js_format(pad)}")


def _check_out(info: ConvInfo) -> ConvInfo:
    if any(o < 0 for o in info.out_sizes):
        raise ShapeError(
            f"The convolution's output would have a negative size: input shape {list(info.in_shape)}, "
            f"filter shape {list(info.filter_shape)}, output shape {info.out_shape}"
        )
    return info


def compute_conv2d_info(
    in_shape,
    filter_shape,
    strides,
    dilations,
    pad,
    rounding=None,
    depthwise=False,
    data_format="channelsLast",
    check=True,
) -> ConvInfo:
    """TF.js's ``computeConv2DInfo`` (``data_format`` is 'channelsLast' or 'channelsFirst')."""
    if data_format not in ("channelsLast", "channelsFirst"):
        raise InvalidArgumentError(f"Unknown data_format {data_format}")
    last = data_format == "channelsLast"
    if len(in_shape) != 4:
        raise ShapeError(f"Expected a rank-4 input, but got shape [{js_format(list(in_shape))}]")
    if last:
        batch, in_h, in_w, in_c = in_shape
    else:
        batch, in_c, in_h, in_w = in_shape
    f_h, f_w, f_c = filter_shape[0], filter_shape[1], filter_shape[3]
    s_h, s_w = parse_tuple(strides, "strides")[:2]
    d_h, d_w = parse_tuple(dilations, "dilations")[:2]
    e_h, e_w = effective_size(f_h, d_h), effective_size(f_w, d_w)
    pads, kind, out_h, out_w = _pad_2d(pad, in_h, in_w, s_h, s_w, e_h, e_w, rounding, last)
    info = ConvInfo()
    info.batch, info.in_channels = batch, in_c
    info.in_sizes, info.out_sizes = [in_h, in_w], [out_h, out_w]
    info.out_channels = f_c * in_c if depthwise else f_c
    info.filter_sizes, info.strides, info.dilations = [f_h, f_w], [s_h, s_w], [d_h, d_w]
    info.eff_sizes, info.pads, info.pad_type = [e_h, e_w], pads, kind
    info.channels_last = last
    info.in_shape, info.filter_shape = tuple(in_shape), tuple(filter_shape)
    oc = info.out_channels
    info.out_shape = [batch, out_h, out_w, oc] if last else [batch, oc, out_h, out_w]
    return _check_out(info) if check else info


def compute_conv3d_info(
    in_shape,
    filter_shape,
    strides,
    dilations,
    pad,
    depthwise=False,
    data_format="channelsLast",
    rounding=None,
) -> ConvInfo:
    """TF.js's ``computeConv3DInfo``."""
    last = data_format == "channelsLast"
    if len(in_shape) != 5:
        raise ShapeError(f"Expected a rank-5 input, but got shape [{js_format(list(in_shape))}]")
    if last:
        batch, *ins, in_c = in_shape
    else:
        batch, in_c, *ins = in_shape
    fs, f_c = list(filter_shape[:3]), filter_shape[4]
    ss, ds = parse3(strides, "strides"), parse3(dilations, "dilations")
    es = [effective_size(f, d) for f, d in zip(fs, ds, strict=True)]
    pads, kind, outs = _pad_3d(pad, ins, ss, es, rounding)
    info = ConvInfo()
    info.batch, info.in_channels, info.in_sizes, info.out_sizes = batch, in_c, list(ins), outs
    info.out_channels = f_c * in_c if depthwise else f_c
    info.filter_sizes, info.strides, info.dilations, info.eff_sizes = fs, ss, ds, es
    info.pads, info.pad_type, info.channels_last = pads, kind, last
    info.in_shape, info.filter_shape = tuple(in_shape), tuple(filter_shape)
    oc = info.out_channels
    info.out_shape = [batch, *outs, oc] if last else [batch, oc, *outs]
    return _check_out(info)


def compute_pool2d_info(
    in_shape, filter_size, strides, dilations, pad, rounding=None, data_format="channelsLast"
) -> ConvInfo:
    """TF.js's ``computePool2DInfo``."""
    f_h, f_w = parse_tuple(filter_size, "filterSize")[:2]
    if data_format not in ("channelsLast", "channelsFirst"):
        raise InvalidArgumentError(f"Unknown data_format {data_format}")
    c = in_shape[3] if data_format == "channelsLast" else in_shape[1]
    return compute_conv2d_info(
        in_shape, [f_h, f_w, c, c], strides, dilations, pad, rounding, False, data_format
    )


def compute_pool3d_info(
    in_shape, filter_size, strides, dilations, pad, rounding=None, data_format="NDHWC"
) -> ConvInfo:
    """TF.js's ``computePool3DInfo``."""
    fs = parse3(filter_size, "filterSize")
    if data_format == "NDHWC":
        c, fmt = in_shape[4], "channelsLast"
    elif data_format == "NCDHW":
        c, fmt = in_shape[1], "channelsFirst"
    else:
        raise InvalidArgumentError(f"Unknown data_format {data_format}")
    return compute_conv3d_info(in_shape, [*fs, c, c], strides, dilations, pad, False, fmt, rounding)


def compute_dilation2d_info(in_shape, filter_shape, strides, pad, dilations) -> ConvInfo:
    """TF.js's ``computeDilation2DInfo``: the filter is [h, w, depth], depth = input channels."""
    return compute_conv2d_info(in_shape, [*filter_shape, in_shape[3]], strides, dilations, pad)
