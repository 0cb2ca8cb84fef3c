"""Convolution (TF.js doc subheading 'Operations / Convolution'), plus the private backprop ops
(``conv2DBackpropInput``, ``maxPoolGrad``...) the gradients call.

Argument checks, messages, rank-3 auto-batching and the kernels each op runs follow TF.js
4.22.0's ``tfjs-core/src/ops``. ``pad`` is ``'same'``, ``'valid'``, a number, or (2-D only) the
explicit ``[[0, 0], [top, bottom], [left, right], [0, 0]]`` (NCHW: the last two pairs).
"""

from __future__ import annotations

from typing import Any

from .. import kernel_names as k
from ..backends.xp_kernels.convolution import (
    compute_pool2d_info,
    either_strides_or_dilations_are_one,
    is_number,
    strides_or_dilations_are_positive,
)
from ..errors import InvalidArgumentError, ShapeError
from ..tensor import Tensor
from ._op import convert_to_tensor, op, run_kernel
from .reduction import js_str

__all__ = [
    "avg_pool",
    "avg_pool3d",
    "conv1d",
    "conv2d",
    "conv2d_transpose",
    "conv3d",
    "conv3d_transpose",
    "depthwise_conv2d",
    "dilation2d",
    "max_pool",
    "max_pool3d",
    "max_pool_with_argmax",
    "pool",
    "separable_conv2d",
]


def _reshape(x: Tensor, shape: Any) -> Tensor:
    from .transformations import reshape

    return reshape(x, list(shape))


def _batched(x: Tensor, rank: int) -> tuple[Tensor, bool]:
    """``x`` with a batch dim of 1 prepended when it has ``rank - 1`` dims."""
    if x.rank == rank - 1:
        return _reshape(x, [1, *x._shape]), True
    return x, False


def _unbatched(res: Tensor, reshaped: bool) -> Tensor:
    return _reshape(res, res._shape[1:]) if reshaped else res


def _assert(cond: bool, message: str, error: type = ShapeError) -> None:
    if not cond:
        raise error(message)


def _is_int(v: Any) -> bool:
    return is_number(v) and float(v).is_integer()


def check_pad_on_dim_rounding_mode(op_desc: str, pad: Any, dim_rounding_mode: Any) -> None:
    """TF.js's ``checkPadOnDimRoundingMode``: a rounding mode needs integer padding."""
    if dim_rounding_mode is None:
        return
    msg = f"Error in {op_desc}: pad must be an integer when using dimRoundingMode {dim_rounding_mode} but got pad "
    if isinstance(pad, str):
        raise InvalidArgumentError(f"{msg}{pad}.")
    if is_number(pad):
        _assert(_is_int(pad), f"{msg}{js_str(pad)}.", InvalidArgumentError)
    elif isinstance(pad, (list, tuple)):
        for p in pad:
            for v in p:
                _assert(_is_int(v), f"{msg}{js_str(v)}.", InvalidArgumentError)
    else:
        raise InvalidArgumentError(f"Error in {op_desc}: Unknown padding parameter: {js_str(pad)}")


def _check_strides_dilations(
    name: str, strides: Any, dilations: Any, what: str = "strides"
) -> None:
    noun = "Strides" if what == "strides" else "Stride"
    _assert(
        either_strides_or_dilations_are_one(strides, dilations),
        f"Error in {name}: Either {what} or {'dilations' if what == 'strides' else 'dilation'} must be 1. "
        f"Got {what} {js_str(strides)} and {'dilations' if what == 'strides' else 'dilation'} '{js_str(dilations)}'",
        InvalidArgumentError,
    )
    _assert(
        strides_or_dilations_are_positive(dilations),
        f"Error in {name}: Dilated rates should be larger than 0.",
        InvalidArgumentError,
    )
    _assert(
        strides_or_dilations_are_positive(strides),
        f"Error in {name}: {noun} should be larger than 0.",
        InvalidArgumentError,
    )


# ---------------------------------------------------------------------------- convolutions
@op
def conv2d(
    x: Any,
    filter: Any,  # noqa: A002 - TF.js's name
    strides: Any,
    pad: Any,
    data_format: str = "NHWC",
    dilations: Any = (1, 1),
    dim_rounding_mode: str | None = None,
) -> Tensor:
    """2-D convolution of ``x`` [batch, height, width, inChannels] (or rank 3) with ``filter``
    [filterHeight, filterWidth, inChannels, outChannels].

    >>> tf.conv2d(tf.tensor3d([1, 2, 3, 4], [2, 2, 1]), tf.tensor4d([2], [1, 1, 1, 1]), 1, 0).array_sync()
    [[[2.0], [4.0]], [[6.0], [8.0]]]
    """
    x = convert_to_tensor(x, "x", "conv2d", "float32")
    filter = convert_to_tensor(filter, "filter", "conv2d", "float32")
    x4, reshaped = _batched(x, 4)
    _assert(x4.rank == 4, f"Error in conv2d: input must be rank 4, but got rank {x4.rank}.")
    _assert(
        filter.rank == 4, f"Error in conv2d: filter must be rank 4, but got rank {filter.rank}."
    )
    check_pad_on_dim_rounding_mode("conv2d", pad, dim_rounding_mode)
    in_depth = x4._shape[3] if data_format == "NHWC" else x4._shape[1]
    _assert(
        in_depth == filter._shape[2],
        f"Error in conv2d: depth of input ({in_depth}) must match input depth for filter {filter._shape[2]}.",
    )
    _check_strides_dilations("conv2D", strides, dilations)
    attrs = {
        "strides": strides,
        "pad": pad,
        "data_format": data_format,
        "dilations": dilations,
        "dim_rounding_mode": dim_rounding_mode,
    }
    return _unbatched(run_kernel(k.CONV2D, (x4, filter), attrs), reshaped)


@op
def conv1d(
    x: Any,
    filter: Any,  # noqa: A002
    stride: Any,
    pad: Any,
    data_format: str = "NWC",
    dilation: Any = 1,
    dim_rounding_mode: str | None = None,
) -> Tensor:
    """1-D convolution of ``x`` [batch, width, inChannels] (or rank 2) with ``filter``
    [filterWidth, inChannels, outChannels], computed as a conv2d of height 1.

    >>> tf.conv1d(tf.tensor2d([[1], [2], [3]]), tf.tensor3d([1, 1], [2, 1, 1]), 1, 'valid').array_sync()
    [[3.0], [5.0]]
    """
    x = convert_to_tensor(x, "x", "conv1d")
    filter = convert_to_tensor(filter, "filter", "conv1d")
    x3, reshaped = _batched(x, 3)
    _assert(x3.rank == 3, f"Error in conv1d: input must be rank 3, but got rank {x3.rank}.")
    _assert(
        filter.rank == 3, f"Error in conv1d: filter must be rank 3, but got rank {filter.rank}."
    )
    check_pad_on_dim_rounding_mode("conv1d", pad, dim_rounding_mode)
    _assert(
        x3._shape[2] == filter._shape[1],
        f"Error in conv1d: depth of input ({x3._shape[2]}) must match input depth for filter {filter._shape[1]}.",
    )
    _check_strides_dilations("conv1D", stride, dilation, what="stride")
    _assert(
        data_format == "NWC",
        f"Error in conv1d: got dataFormat of {data_format} but only NWC is currently supported.",
        InvalidArgumentError,
    )
    filter4 = _reshape(filter, [1, *filter._shape])
    input4 = _reshape(x3, [x3._shape[0], 1, x3._shape[1], x3._shape[2]])
    res = conv2d(input4, filter4, [1, stride], pad, "NHWC", [1, dilation], dim_rounding_mode)
    if reshaped:
        return _reshape(res, [res._shape[2], res._shape[3]])
    return _reshape(res, [res._shape[0], res._shape[2], res._shape[3]])


@op(name="conv2d_backprop_input")
def _conv2d_backprop_input(
    x_shape: Any,
    dy: Tensor,
    filter: Tensor,  # noqa: A002
    strides: Any,
    pad: Any,
    data_format: str = "NHWC",
    dim_rounding_mode: str | None = None,
) -> Tensor:
    """TF.js's ``conv2DBackpropInput`` (the gradient of conv2d for its input)."""
    x_shape = list(x_shape)
    _assert(
        len(x_shape) == dy.rank,
        f"Length of inShape ({len(x_shape)}) and rank of dy ({dy.rank}) must match",
    )
    dy4, reshaped = dy, False
    if dy.rank == 3:
        dy4, reshaped = _reshape(dy, [1, *dy._shape]), True
        x_shape = [1, *x_shape]
    _assert(
        len(x_shape) == 4,
        f"Error in conv2dDerInput: inShape must be length 4, but got length {len(x_shape)}.",
    )
    _assert(dy4.rank == 4, f"Error in conv2dDerInput: dy must be rank 4, but got rank {dy4.rank}")
    _assert(
        filter.rank == 4,
        f"Error in conv2dDerInput: filter must be rank 4, but got rank {filter.rank}",
    )
    in_depth = x_shape[3] if data_format == "NHWC" else x_shape[1]
    out_depth = dy4._shape[3] if data_format == "NHWC" else dy4._shape[1]
    _assert(
        in_depth == filter._shape[2],
        f"Error in conv2dDerInput: depth of input ({in_depth}) must match input depth for filter {filter._shape[2]}.",
    )
    _assert(
        out_depth == filter._shape[3],
        f"Error in conv2dDerInput: depth of output ({out_depth}) must match output depth for filter "
        f"{filter._shape[3]}.",
    )
    check_pad_on_dim_rounding_mode("conv2dDerInput", pad, dim_rounding_mode)
    attrs = {
        "strides": strides,
        "pad": pad,
        "data_format": data_format,
        "dim_rounding_mode": dim_rounding_mode,
        "input_shape": [int(d) for d in x_shape],
    }
    return _unbatched(run_kernel(k.CONV2D_BACKPROP_INPUT, (dy4, filter), attrs), reshaped)


@op(name="conv2d_backprop_filter")
def _conv2d_backprop_filter(
    x: Tensor,
    dy: Tensor,
    filter_shape: Any,
    strides: Any,
    pad: Any,
    data_format: str = "NHWC",
    dim_rounding_mode: str | None = None,
) -> Tensor:
    """TF.js's ``conv2DBackpropFilter`` (the gradient of conv2d for its filter)."""
    x4 = _reshape(x, [1, *x._shape]) if x.rank == 3 else x
    dy4 = _reshape(dy, [1, *dy._shape]) if dy.rank == 3 else dy
    filter_shape = list(filter_shape)
    _assert(
        x4.rank == 4,
        f"Error in conv2dDerFilter: input must be rank 4, but got shape {js_str(x4.shape)}.",
    )
    _assert(
        dy4.rank == 4,
        f"Error in conv2dDerFilter: dy must be rank 4, but got shape {js_str(dy4.shape)}.",
    )
    _assert(
        len(filter_shape) == 4,
        f"Error in conv2dDerFilter: filterShape must be length 4, but got {js_str(filter_shape)}.",
    )
    in_depth = x4._shape[3] if data_format == "NHWC" else x4._shape[1]
    out_depth = dy4._shape[3] if data_format == "NHWC" else dy4._shape[1]
    _assert(
        in_depth == filter_shape[2],
        f"Error in conv2dDerFilter: depth of input {in_depth}) must match input depth in filter ({filter_shape[2]}.",
    )
    _assert(
        out_depth == filter_shape[3],
        f"Error in conv2dDerFilter: depth of dy ({out_depth}) must match output depth for filter "
        f"({filter_shape[3]}).",
    )
    check_pad_on_dim_rounding_mode("conv2dDerFilter", pad, dim_rounding_mode)
    attrs = {
        "strides": strides,
        "pad": pad,
        "data_format": data_format,
        "dim_rounding_mode": dim_rounding_mode,
        "filter_shape": [int(d) for d in filter_shape],
    }
    return run_kernel(k.CONV2D_BACKPROP_FILTER, (x4, dy4), attrs)


@op
def conv2d_transpose(
    x: Any,
    filter: Any,  # noqa: A002
    output_shape: Any,
    strides: Any,
    pad: Any,
    dim_rounding_mode: str | None = None,
) -> Tensor:
    """Transposed 2-D convolution ("deconvolution"): the gradient of conv2d for its input.
    ``filter`` is [filterHeight, filterWidth, outDepth, inDepth]; ``output_shape`` the result's
    [batch, height, width, outDepth] (or rank 3).

    >>> tf.conv2d_transpose(tf.ones([1, 1, 1, 1]), tf.ones([2, 2, 1, 1]), [1, 2, 2, 1], 1, 'valid').shape
    [1, 2, 2, 1]
    """
    x = convert_to_tensor(x, "x", "conv2dTranspose")
    filter = convert_to_tensor(filter, "filter", "conv2dTranspose")
    return _conv2d_backprop_input(output_shape, x, filter, strides, pad, "NHWC", dim_rounding_mode)


@op
def conv3d(
    x: Any,
    filter: Any,  # noqa: A002
    strides: Any,
    pad: Any,
    data_format: str = "NDHWC",
    dilations: Any = (1, 1, 1),
) -> Tensor:
    """3-D convolution of ``x`` [batch, depth, height, width, inChannels] (or rank 4) with
    ``filter`` [filterDepth, filterHeight, filterWidth, inChannels, outChannels].

    >>> tf.conv3d(tf.ones([1, 2, 2, 2, 1]), tf.ones([2, 2, 2, 1, 1]), 1, 'valid').array_sync()
    [[[[[8.0]]]]]
    """
    x = convert_to_tensor(x, "x", "conv3d")
    filter = convert_to_tensor(filter, "filter", "conv3d")
    x5, reshaped = _batched(x, 5)
    _assert(x5.rank == 5, f"Error in conv3d: input must be rank 5, but got rank {x5.rank}.")
    _assert(
        filter.rank == 5, f"Error in conv3d: filter must be rank 5, but got rank {filter.rank}."
    )
    _assert(
        x5._shape[4] == filter._shape[3],
        f"Error in conv3d: depth of input ({x5._shape[4]}) must match input depth for filter {filter._shape[3]}.",
    )
    _assert(
        either_strides_or_dilations_are_one(strides, dilations),
        "Error in conv3D: Either strides or dilations must be 1. "
        f"Got strides {js_str(strides)} and dilations '{js_str(dilations)}'",
        InvalidArgumentError,
    )
    _assert(
        data_format == "NDHWC",
        f"Error in conv3d: got dataFormat of {data_format} but only NDHWC is currently supported.",
        InvalidArgumentError,
    )
    _assert(
        strides_or_dilations_are_positive(dilations),
        "Error in conv3D: Dilated rates should be larger than 0.",
        InvalidArgumentError,
    )
    _assert(
        strides_or_dilations_are_positive(strides),
        "Error in conv3D: Strides should be larger than 0.",
        InvalidArgumentError,
    )
    attrs = {"strides": strides, "pad": pad, "data_format": data_format, "dilations": dilations}
    return _unbatched(run_kernel(k.CONV3D, (x5, filter), attrs), reshaped)


@op(name="conv3d_backprop_input")
def _conv3d_backprop_input(
    x_shape: Any, dy: Tensor, filter: Tensor, strides: Any, pad: Any
) -> Tensor:  # noqa: A002
    """TF.js's ``conv3DBackpropInput`` (kernel Conv3DBackpropInputV2)."""
    x_shape = list(x_shape)
    _assert(
        len(x_shape) == dy.rank,
        f"Length of inShape ({len(x_shape)}) and rank of dy ({dy.rank}) must match",
    )
    dy5, reshaped = dy, False
    if dy.rank == 4:
        dy5, reshaped = _reshape(dy, [1, *dy._shape]), True
        x_shape = [1, *x_shape]
    in_depth = x_shape[4] if len(x_shape) > 4 else None
    out_depth = dy5._shape[4] if dy5.rank > 4 else None
    _assert(
        len(x_shape) == 5,
        f"Error in conv3dDerInput: inShape must be length 5, but got length {len(x_shape)}.",
    )
    _assert(dy5.rank == 5, f"Error in conv3dDerInput: dy must be rank 5, but got rank {dy5.rank}")
    _assert(
        filter.rank == 5,
        f"Error in conv3dDerInput: filter must be rank 5, but got rank {filter.rank}",
    )
    _assert(
        in_depth == filter._shape[3],
        f"Error in conv3dDerInput: depth of input ({in_depth}) must match input depth for filter {filter._shape[3]}.",
    )
    _assert(
        out_depth == filter._shape[4],
        f"Error in conv3dDerInput: depth of output ({out_depth}) must match output depth for filter "
        f"{filter._shape[4]}.",
    )
    attrs = {"pad": pad, "strides": strides, "input_shape": [int(d) for d in x_shape]}
    return _unbatched(run_kernel(k.CONV3D_BACKPROP_INPUT_V2, (dy5, filter), attrs), reshaped)


@op(name="conv3d_backprop_filter")
def _conv3d_backprop_filter(
    x: Tensor, dy: Tensor, filter_shape: Any, strides: Any, pad: Any
) -> Tensor:
    """TF.js's ``conv3DBackpropFilter`` (kernel Conv3DBackpropFilterV2)."""
    x5 = _reshape(x, [1, *x._shape]) if x.rank == 4 else x
    dy5 = _reshape(dy, [1, *dy._shape]) if dy.rank == 4 else dy
    filter_shape = list(filter_shape)
    _assert(
        x5.rank == 5,
        f"Error in conv3dDerFilter: input must be rank 5, but got shape {js_str(x5.shape)}.",
    )
    _assert(
        dy5.rank == 5,
        f"Error in conv3dDerFilter: dy must be rank 5, but got shape {js_str(dy5.shape)}.",
    )
    _assert(
        len(filter_shape) == 5,
        f"Error in conv3dDerFilter: filterShape must be length 5, but got {js_str(filter_shape)}.",
    )
    _assert(
        x5._shape[4] == filter_shape[3],
        f"Error in conv3dDerFilter: depth of input {x5._shape[4]}) must match input depth in filter "
        f"({filter_shape[3]}.",
    )
    _assert(
        dy5._shape[4] == filter_shape[4],
        f"Error in conv3dDerFilter: depth of dy ({dy5._shape[4]}) must match output depth for filter "
        f"({filter_shape[4]}).",
    )
    attrs = {"strides": strides, "pad": pad, "filter_shape": [int(d) for d in filter_shape]}
    return run_kernel(k.CONV3D_BACKPROP_FILTER_V2, (x5, dy5), attrs)


@op
def conv3d_transpose(x: Any, filter: Any, output_shape: Any, strides: Any, pad: Any) -> Tensor:  # noqa: A002
    """Transposed 3-D convolution: the gradient of conv3d for its input. ``filter`` is
    [depth, height, width, outDepth, inDepth]. (No gradient in TF.js.)

    >>> tf.conv3d_transpose(tf.ones([1, 1, 1, 1, 1]), tf.ones([2, 2, 2, 1, 1]), [1, 2, 2, 2, 1], 1, 'valid').shape
    [1, 2, 2, 2, 1]
    """
    x = convert_to_tensor(x, "x", "conv3dTranspose")
    filter = convert_to_tensor(filter, "filter", "conv3dTranspose")
    return _conv3d_backprop_input(output_shape, x, filter, strides, pad)


@op
def depthwise_conv2d(
    x: Any,
    filter: Any,  # noqa: A002
    strides: Any,
    pad: Any,
    data_format: str = "NHWC",
    dilations: Any = (1, 1),
    dim_rounding_mode: str | None = None,
) -> Tensor:
    """Depthwise 2-D convolution: ``filter`` [filterHeight, filterWidth, inChannels,
    channelMultiplier] convolves each input channel separately; the output has
    inChannels * channelMultiplier channels.

    >>> tf.depthwise_conv2d(tf.ones([1, 2, 2, 2]), tf.ones([2, 2, 2, 1]), 1, 'valid').array_sync()
    [[[[4.0, 4.0]]]]
    """
    x = convert_to_tensor(x, "x", "depthwiseConv2d", "float32")
    filter = convert_to_tensor(filter, "filter", "depthwiseConv2d", "float32")
    x4, reshaped = _batched(x, 4)
    _assert(
        x4.rank == 4, f"Error in depthwiseConv2d: input must be rank 4, but got rank {x4.rank}."
    )
    _assert(
        filter.rank == 4,
        f"Error in depthwiseConv2d: filter must be rank 4, but got rank {filter.rank}.",
    )
    in_channels = x4._shape[3] if data_format == "NHWC" else x4._shape[1]
    _assert(
        in_channels == filter._shape[2],
        f"Error in depthwiseConv2d: number of input channels ({in_channels}) must match the inChannels "
        f"dimension in filter {filter._shape[2]}.",
    )
    check_pad_on_dim_rounding_mode("depthwiseConv2d", pad, dim_rounding_mode)
    attrs = {
        "strides": strides,
        "pad": pad,
        "data_format": data_format,
        "dilations": dilations,
        "dim_rounding_mode": dim_rounding_mode,
    }
    return _unbatched(run_kernel(k.DEPTHWISE_CONV2D_NATIVE, (x4, filter), attrs), reshaped)


@op(name="depthwise_conv2d_native_backprop_input")
def _depthwise_backprop_input(
    x_shape: Any,
    dy: Tensor,
    filter: Tensor,  # noqa: A002
    strides: Any,
    pad: Any,
    dilations: Any = (1, 1),
    dim_rounding_mode: str | None = None,
) -> Tensor:
    dy4, reshaped = (_reshape(dy, [1, *dy._shape]), True) if dy.rank == 3 else (dy, False)
    attrs = {
        "strides": strides,
        "pad": pad,
        "dim_rounding_mode": dim_rounding_mode,
        "dilations": dilations,
        "input_shape": [int(d) for d in x_shape],
    }
    return _unbatched(
        run_kernel(k.DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT, (dy4, filter), attrs), reshaped
    )


@op(name="depthwise_conv2d_native_backprop_filter")
def _depthwise_backprop_filter(
    x: Tensor,
    dy: Tensor,
    filter_shape: Any,
    strides: Any,
    pad: Any,
    dilations: Any = (1, 1),
    dim_rounding_mode: str | None = None,
) -> Tensor:
    x4 = _reshape(x, [1, *x._shape]) if x.rank == 3 else x
    dy4 = _reshape(dy, [1, *dy._shape]) if dy.rank == 3 else dy
    attrs = {
        "strides": strides,
        "pad": pad,
        "dim_rounding_mode": dim_rounding_mode,
        "dilations": dilations,
        "filter_shape": [int(d) for d in filter_shape],
    }
    return run_kernel(k.DEPTHWISE_CONV2D_NATIVE_BACKPROP_FILTER, (x4, dy4), attrs)


@op
def separable_conv2d(
    x: Any,
    depthwise_filter: Any,
    pointwise_filter: Any,
    strides: Any,
    pad: Any,
    dilation: Any = (1, 1),
    data_format: str = "NHWC",
) -> Tensor:
    """Depthwise convolution followed by a 1x1 (pointwise) convolution mixing the channels.

    >>> tf.separable_conv2d(tf.ones([1, 2, 2, 1]), tf.ones([2, 2, 1, 2]), tf.ones([1, 1, 2, 3]), 1, 'valid').array_sync()
    [[[[8.0, 8.0, 8.0]]]]
    """
    x = convert_to_tensor(x, "x", "separableConv2d")
    depthwise_filter = convert_to_tensor(depthwise_filter, "depthwiseFilter", "separableConv2d")
    pointwise_filter = convert_to_tensor(pointwise_filter, "pointwiseFilter", "separableConv2d")
    x4, reshaped = _batched(x, 4)
    if data_format == "NCHW":
        raise InvalidArgumentError(
            "separableConv2d currently does not support dataFormat NCHW; only NHWC is supported"
        )
    dw, pw = depthwise_filter, pointwise_filter
    _assert(
        x4.rank == 4, f"Error in separableConv2d: input must be rank 4, but got rank {x4.rank}."
    )
    _assert(
        dw.rank == 4,
        f"Error in separableConv2d: depthwise filter must be rank 4, but got rank {dw.rank}.",
    )
    # TF.js's message names the depthwise filter's rank here.
    _assert(
        pw.rank == 4,
        f"Error in separableConv2d: pointwise filter must be rank 4, but got rank {dw.rank}.",
    )
    _assert(
        pw._shape[0] == 1,
        f"Error in separableConv2d: the first dimension of pointwise filter  must be 1, but got {pw._shape[0]}.",
    )
    _assert(
        pw._shape[1] == 1,
        f"Error in separableConv2d: the second dimension of pointwise filter must be 1, but got {pw._shape[1]}.",
    )
    in_channels, multiplier = dw._shape[2], dw._shape[3]
    _assert(
        pw._shape[2] == in_channels * multiplier,
        f"Error in separableConv2d: the third dimension of pointwise filter must be {in_channels * multiplier}, "
        f"but got {pw._shape[2]}.",
    )
    depthwise = depthwise_conv2d(x4, dw, strides, pad, data_format, dilation)
    return _unbatched(conv2d(depthwise, pw, 1, "valid", data_format), reshaped)


@op
def dilation2d(
    x: Any,
    filter: Any,  # noqa: A002
    strides: Any,
    pad: Any,
    dilations: Any = (1, 1),
    data_format: str = "NHWC",
) -> Tensor:
    """Grayscale morphological dilation: the max over each window of ``x + filter``
    (``filter`` is [filterHeight, filterWidth, depth]).

    >>> tf.dilation2d(tf.tensor3d([1, 2, 3, 4], [2, 2, 1]), tf.tensor3d([1, 0], [1, 2, 1]), 1, 'valid').array_sync()
    [[[2.0]], [[4.0]]]
    """
    x = convert_to_tensor(x, "x", "dilation2d")
    filter = convert_to_tensor(filter, "filter", "dilation2d")
    _assert(
        x.rank in (3, 4), f"Error in dilation2d: input must be rank 3 or 4, but got rank {x.rank}."
    )
    _assert(
        filter.rank == 3, f"Error in dilation2d: filter must be rank 3, but got rank {filter.rank}."
    )
    _assert(
        data_format == "NHWC",
        f"Error in dilation2d: Only NHWC is currently supported, but got dataFormat of {data_format}",
        InvalidArgumentError,
    )
    x4, reshaped = _batched(x, 4)
    _assert(
        x4._shape[3] == filter._shape[2],
        f"Error in dilation2d:  input and filter must have the same depth: {x4._shape[3]} vs {filter._shape[2]}",
    )
    attrs = {"strides": strides, "pad": pad, "dilations": dilations}
    return _unbatched(run_kernel(k.DILATION2D, (x4, filter), attrs), reshaped)


# ---------------------------------------------------------------------------- pooling
@op
def avg_pool(
    x: Any, filter_size: Any, strides: Any, pad: Any, dim_rounding_mode: str | None = None
) -> Tensor:
    """Average pooling over windows of ``filter_size`` (taps outside the input are not counted).

    >>> tf.avg_pool(tf.tensor3d([1, 2, 3, 4], [2, 2, 1]), 2, 1, 'valid').array_sync()
    [[[2.5]]]
    """
    from .transformations import cast

    x = convert_to_tensor(x, "x", "avgPool", "float32")
    _assert(
        either_strides_or_dilations_are_one(strides, 1),
        f"Error in avgPool: Either strides or dilations must be 1. Got strides {js_str(strides)} and dilations '1'",
        InvalidArgumentError,
    )
    x4, reshaped = _batched(x, 4)
    _assert(x4.rank == 4, f"Error in avgPool: x must be rank 4 but got rank {x4.rank}.")
    check_pad_on_dim_rounding_mode("avgPool", pad, dim_rounding_mode)
    attrs = {
        "filter_size": filter_size,
        "strides": strides,
        "pad": pad,
        "dim_rounding_mode": dim_rounding_mode,
    }
    res = cast(run_kernel(k.AVG_POOL, (x4,), attrs), x.dtype)
    return _unbatched(res, reshaped)


@op
def max_pool(
    x: Any, filter_size: Any, strides: Any, pad: Any, dim_rounding_mode: str | None = None
) -> Tensor:
    """Max pooling over windows of ``filter_size`` (NaN is ignored, as in TF.js's CPU kernel).

    >>> tf.max_pool(tf.tensor3d([1, 2, 3, 4], [2, 2, 1]), 2, 1, 'valid').array_sync()
    [[[4.0]]]
    """
    x = convert_to_tensor(x, "x", "maxPool")
    x4, reshaped = _batched(x, 4)
    _assert(x4.rank == 4, f"Error in maxPool: input must be rank 4 but got rank {x4.rank}.")
    _assert(
        either_strides_or_dilations_are_one(strides, 1),
        f"Error in maxPool: Either strides or dilations must be 1. Got strides {js_str(strides)} and dilations '1'",
        InvalidArgumentError,
    )
    check_pad_on_dim_rounding_mode("maxPool", pad, dim_rounding_mode)
    attrs = {
        "filter_size": filter_size,
        "strides": strides,
        "pad": pad,
        "dim_rounding_mode": dim_rounding_mode,
    }
    return _unbatched(run_kernel(k.MAX_POOL, (x4,), attrs), reshaped)


def _check_3d_format(name: str, data_format: str) -> None:
    _assert(
        data_format == "NDHWC",
        f"Error in {name}: Only NDHWC is currently supported, but got dataFormat of {data_format}",
        InvalidArgumentError,
    )


def _need(value: Any, name: str, op_name: str) -> None:
    if value is None:
        raise InvalidArgumentError(f"Error in {op_name}: {name} is required")


@op
def avg_pool3d(
    x: Any,
    filter_size: Any,
    strides: Any,
    pad: Any,
    dim_rounding_mode: str | None = None,
    data_format: str = "NDHWC",
) -> Tensor:
    """3-D average pooling of ``x`` [batch, depth, height, width, channels] (or rank 4).

    >>> tf.avg_pool3d(tf.tensor4d([1, 2, 3, 4, 5, 6, 7, 8], [2, 2, 2, 1]), 2, 1, 'valid').array_sync()
    [[[[4.5]]]]
    """
    from .transformations import cast

    x = convert_to_tensor(x, "x", "avgPool3d", "float32")
    x5, reshaped = _batched(x, 5)
    _assert(x5.rank == 5, f"Error in avgPool3d: x must be rank 5 but got rank {x5.rank}.")
    _check_3d_format("avgPool3d", data_format)
    ok = (is_number(strides) and strides > 0) or (
        isinstance(strides, (list, tuple)) and len(strides) >= 3 and all(s > 0 for s in strides[:3])
    )
    _assert(
        ok,
        f"Error in avgPool3d: Stride must be > 0, but got '{js_str(strides)}'",
        InvalidArgumentError,
    )
    check_pad_on_dim_rounding_mode("avgPool3d", pad, dim_rounding_mode)
    attrs = {
        "filter_size": filter_size,
        "strides": strides,
        "pad": pad,
        "dim_rounding_mode": dim_rounding_mode,
        "data_format": data_format,
    }
    res = cast(run_kernel(k.AVG_POOL3D, (x5,), attrs), x5.dtype)
    return _unbatched(res, reshaped)


@op
def max_pool3d(
    x: Any,
    filter_size: Any = (1, 1, 1),
    strides: Any = None,
    pad: Any = None,
    dim_rounding_mode: str | None = None,
    data_format: str = "NDHWC",
) -> Tensor:
    """3-D max pooling of ``x`` [batch, depth, height, width, channels] (or rank 4). The result
    is float32 (TF.js's CPU kernel marks it so for every input dtype).

    >>> tf.max_pool3d(tf.tensor4d([1, 2, 3, 4, 5, 6, 7, 8], [2, 2, 2, 1]), 2, 1, 'valid').array_sync()
    [[[[8.0]]]]
    """
    x = convert_to_tensor(x, "x", "maxPool3d")
    _need(strides, "strides", "maxPool3d")
    _need(pad, "pad", "maxPool3d")
    x5, reshaped = _batched(x, 5)
    _assert(x5.rank == 5, f"Error in maxPool3d: x must be rank 5 but got rank {x5.rank}.")
    _check_3d_format("maxPool3d", data_format)
    check_pad_on_dim_rounding_mode("maxPool3d", pad, dim_rounding_mode)
    attrs = {
        "filter_size": filter_size,
        "strides": strides,
        "pad": pad,
        "dim_rounding_mode": dim_rounding_mode,
        "data_format": data_format,
    }
    return _unbatched(run_kernel(k.MAX_POOL3D, (x5,), attrs), reshaped)


class MaxPoolWithArgmaxResult(dict):
    """``max_pool_with_argmax``'s result: ``result`` (the pooled values) and ``indexes``
    (int32, each max's flat index into the input), read as attributes or as dict keys (a dict,
    so that scopes and ``tf.dispose`` find the tensors)."""

    def __init__(self, result: Tensor, indexes: Tensor):
        super().__init__(result=result, indexes=indexes)

    @property
    def result(self) -> Tensor:
        return self["result"]

    @property
    def indexes(self) -> Tensor:
        return self["indexes"]

    def __repr__(self) -> str:
        return f"MaxPoolWithArgmaxResult(result={self['result']!r}, indexes={self['indexes']!r})"


@op
def max_pool_with_argmax(
    x: Any, filter_size: Any, strides: Any, pad: Any, include_batch_in_index: bool = False
) -> MaxPoolWithArgmaxResult:
    """Max pooling of a rank-4 ``x`` that also returns where each max came from: the index
    ``(y * width + x) * channels + c`` (plus ``b * height * width * channels`` when
    ``include_batch_in_index``).

    >>> r = tf.max_pool_with_argmax(tf.tensor4d([1, 5, 3, 2], [1, 2, 2, 1]), 2, 1, 'valid')
    >>> r.result.array_sync(), r.indexes.array_sync()
    ([[[[5.0]]]], [[[[1]]]])
    """
    x = convert_to_tensor(x, "x", "maxPoolWithArgmax")
    _assert(x.rank == 4, f"Error in maxPoolWithArgmax: input must be rank 4 but got rank {x.rank}.")
    attrs = {
        "filter_size": filter_size,
        "strides": strides,
        "pad": pad,
        "include_batch_in_index": bool(include_batch_in_index),
    }
    result, indexes = run_kernel(k.MAX_POOL_WITH_ARGMAX, (x,), attrs)
    return MaxPoolWithArgmaxResult(result, indexes)


def _space_to_batch_base_paddings(filter_shape: list[int], dilation: list[int]) -> list[list[int]]:
    out = []
    for s, d in zip(filter_shape, dilation, strict=True):
        extra = s + (s - 1) * (d - 1) - 1
        out.append([extra // 2, extra - extra // 2])
    return out


def _required_space_to_batch_paddings(
    input_shape: list[int], block_shape: list[int], base_padding: list[list[int]]
) -> tuple[list[list[int]], list[list[int]]]:
    pad_start = [b[0] for b in base_padding]
    orig_end = [b[1] for b in base_padding]
    full = input_shape + pad_start + orig_end  # TF.js concatenates (a quirk kept here)
    extra = [(b - full[i] % b) % b for i, b in enumerate(block_shape)]
    paddings = [[pad_start[i], orig_end[i] + extra[i]] for i in range(len(block_shape))]
    crops = [[0, extra[i]] for i in range(len(block_shape))]
    return paddings, crops


@op
def pool(
    input: Any,  # noqa: A002 - TF.js's name
    window_shape: Any,
    pooling_type: str,
    pad: Any,
    dilations: Any = None,
    strides: Any = None,
    dim_rounding_mode: str | None = None,
) -> Tensor:
    """Max or average pooling (``pooling_type`` 'max' or 'avg') with optional dilation, done as
    space_to_batch_nd → pool → batch_to_space_nd when a dilation is above 1.

    >>> tf.pool(tf.tensor3d([1, 2, 3, 4], [2, 2, 1]), 2, 'avg', 'valid').array_sync()
    [[[2.5]]]
    """
    from .transformations import batch_to_space_nd, space_to_batch_nd

    dilations = [1, 1] if dilations is None else dilations
    strides = 1 if strides is None else strides
    if is_number(pad) and pad == 0:
        pad = "valid"
    x = convert_to_tensor(input, "x", "maxPool")
    x4, reshaped = _batched(x, 4)
    _assert(
        either_strides_or_dilations_are_one(strides, dilations),
        "Error in pool: Either strides or dilations must be 1. "
        f"Got strides {js_str(strides)} and dilations '{js_str(dilations)}'",
        InvalidArgumentError,
    )
    info = compute_pool2d_info(x4._shape, window_shape, strides, dilations, pad)
    dilation = list(info.dilations)
    if pad == "same":
        base = _space_to_batch_base_paddings(list(info.filter_sizes), dilation)
    else:
        base = [[0, 0], [0, 0]]
    one = dilation == [1, 1]
    paddings, crops = _required_space_to_batch_paddings(list(info.in_sizes), dilation, base)
    converted_pad = pad if one else "valid"
    converted = x4 if one else space_to_batch_nd(x4, dilation, paddings)
    if pooling_type == "avg":
        y = avg_pool(converted, window_shape, strides, converted_pad, dim_rounding_mode)
    else:
        y = max_pool(converted, window_shape, strides, converted_pad, dim_rounding_mode)
    res = y if one else batch_to_space_nd(y, dilation, crops)
    return _unbatched(res, reshaped)


# ---------------------------------------------------------------------------- pooling grads
@op(name="avg_pool_grad")
def _avg_pool_grad(dy: Tensor, input: Tensor, filter_size: Any, strides: Any, pad: Any) -> Tensor:  # noqa: A002
    dy = convert_to_tensor(dy, "dy", "avgPoolGrad")
    input = convert_to_tensor(input, "input", "avgPoolGrad")
    _assert(
        input.rank == dy.rank, f"Rank of input ({input.rank}) does not match rank of dy ({dy.rank})"
    )
    input4, dy4, reshaped = input, dy, False
    if input.rank == 3:
        reshaped = True
        input4, dy4 = _reshape(input, [1, *input._shape]), _reshape(dy, [1, *dy._shape])
    _assert(dy4.rank == 4, f"Error in avgPoolGrad: dy must be rank 4 but got rank {dy4.rank}.")
    _assert(
        input4.rank == 4, f"Error in avgPoolGrad: input must be rank 4 but got rank {input4.rank}."
    )
    attrs = {"filter_size": filter_size, "strides": strides, "pad": pad}
    return _unbatched(run_kernel(k.AVG_POOL_GRAD, (dy4, input4), attrs), reshaped)


@op(name="avg_pool3d_grad")
def _avg_pool3d_grad(
    dy: Tensor,
    input: Tensor,
    filter_size: Any,
    strides: Any,
    pad: Any,
    dim_rounding_mode: Any = None,  # noqa: A002
) -> Tensor:
    dy = convert_to_tensor(dy, "dy", "avgPool3dGrad")
    input = convert_to_tensor(input, "input", "avgPool3dGrad")
    dy5, input5, reshaped = dy, input, False
    if input.rank == 4:
        reshaped = True
        dy5, input5 = _reshape(dy, [1, *dy._shape]), _reshape(input, [1, *input._shape])
    _assert(dy5.rank == 5, f"Error in avgPool3dGrad: dy must be rank 5 but got rank {dy5.rank}.")
    _assert(
        input5.rank == 5,
        f"Error in avgPool3dGrad: input must be rank 5 but got rank {input5.rank}.",
    )
    check_pad_on_dim_rounding_mode("avgPool3dGrad", pad, dim_rounding_mode)
    attrs = {
        "filter_size": filter_size,
        "strides": strides,
        "pad": pad,
        "dim_rounding_mode": dim_rounding_mode,
    }
    return _unbatched(run_kernel(k.AVG_POOL3D_GRAD, (dy5, input5), attrs), reshaped)


@op(name="max_pool_grad")
def _max_pool_grad(
    dy: Tensor,
    input: Tensor,
    output: Tensor,
    filter_size: Any,
    strides: Any,
    pad: Any,
    dim_rounding_mode: Any = None,  # noqa: A002
) -> Tensor:
    dy = convert_to_tensor(dy, "dy", "maxPoolGrad")
    input = convert_to_tensor(input, "input", "maxPoolGrad")
    output = convert_to_tensor(output, "output", "maxPoolGrad")
    _assert(
        input.rank == dy.rank, f"Rank of input ({input.rank}) does not match rank of dy ({dy.rank})"
    )
    _assert(dy.rank == 4, f"Error in maxPoolGrad: dy must be rank 4 but got rank {dy.rank}.")
    _assert(
        input.rank == 4, f"Error in maxPoolGrad: input must be rank 4 but got rank {input.rank}."
    )
    check_pad_on_dim_rounding_mode("maxPoolGrad", pad, dim_rounding_mode)
    attrs = {
        "filter_size": filter_size,
        "strides": strides,
        "pad": pad,
        "dim_rounding_mode": dim_rounding_mode,
    }
    return run_kernel(k.MAX_POOL_GRAD, (dy, input, output), attrs)


@op(name="max_pool3d_grad")
def _max_pool3d_grad(
    dy: Tensor,
    input: Tensor,
    output: Tensor,
    filter_size: Any,
    strides: Any,
    pad: Any,
    dim_rounding_mode: Any = None,  # noqa: A002
) -> Tensor:
    dy = convert_to_tensor(dy, "dy", "maxPool3dGrad")
    input = convert_to_tensor(input, "input", "maxPool3dGrad")
    output = convert_to_tensor(output, "output", "maxPool3dGrad")
    dy5, input5, output5, reshaped = dy, input, output, False
    if input.rank == 4:
        reshaped = True
        dy5 = _reshape(dy, [1, *dy._shape])
        input5 = _reshape(input, [1, *input._shape])
        output5 = _reshape(output, [1, *output._shape])
    _assert(dy5.rank == 5, f"Error in maxPool3dGrad: dy must be rank 5 but got rank {dy5.rank}.")
    _assert(
        input5.rank == 5,
        f"Error in maxPool3dGrad: input must be rank 5 but got rank {input5.rank}.",
    )
    _assert(
        output5.rank == 5,
        f"Error in maxPool3dGrad: output must be rank 5 but got rank {output5.rank}.",
    )
    check_pad_on_dim_rounding_mode("maxPool3dGrad", pad, dim_rounding_mode)
    attrs = {
        "filter_size": filter_size,
        "strides": strides,
        "pad": pad,
        "dim_rounding_mode": dim_rounding_mode,
    }
    return _unbatched(run_kernel(k.MAX_POOL3D_GRAD, (dy5, input5, output5), attrs), reshaped)
