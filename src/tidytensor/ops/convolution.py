"""Convolution (TF.js doc subheading 'Operations / Convolution'; its pooling ops are in
pooling.py), plus the private backprop ops (``conv2DBackpropInput``...) the gradients call.

Argument checks, messages, rank-3 auto-batching and the kernels each op runs follow TF.js
4.22.0's ``tfjs-core/src/ops``. ``pad`` is ``'same'``, ``'valid'``, a number, or (2-D only) the
explicit ``[[0, 0], [top, bottom], [left, right], [0, 0]]`` (NCHW: the last two pairs).
"""

from __future__ import annotations

from typing import Any

from .. import kernel_names as k
from ..errors import InvalidArgumentError
from ..geometry.conv import is_number
from ..naming import snake_case
from ..tensor import Tensor
from ._conv_util import (
    RANK_BACKPROP,
    batched,
    channels,
    check,
    check_depthwise_channels,
    check_in_depth,
    check_pad_on_dim_rounding_mode,
    check_pad_type,
    check_positive,
    check_rank,
    check_ranks,
    check_sizes,
    check_strides_dilations,
    check_strides_or_dilations_one,
    conv_attrs,
    reshape_to,
    unbatched,
)
from ._op import convert_to_tensor, int_list_arg, js_str, op, run_kernel

__all__ = [
    "conv1d",
    "conv2d",
    "conv2d_transpose",
    "conv3d",
    "conv3d_transpose",
    "depthwise_conv2d",
    "dilation2d",
    "separable_conv2d",
]


def _check_backprop_input(
    op_desc: str,
    rank: int,
    x_shape: list[int],
    dy: Tensor,
    filter: Tensor,  # noqa: A002
    channels_last: bool = True,
) -> None:
    """The checks of TF.js's ``conv2DBackpropInput`` (rank 4) and ``conv3DBackpropInput`` (5)."""
    check(
        len(x_shape) == rank,
        f"Error in {snake_case(op_desc)}: in_shape must be length {rank}, but got length {len(x_shape)}.",
    )
    check_rank(op_desc, "dy", dy.rank, rank, RANK_BACKPROP)
    check_rank(op_desc, "filter", filter.rank, rank, RANK_BACKPROP)
    axis = -1 if channels_last else 1
    check_in_depth(op_desc, x_shape[axis], filter._shape[-2])
    check(
        dy._shape[axis] == filter._shape[-1],
        f"Error in {snake_case(op_desc)}: depth of output ({dy._shape[axis]}) must match output depth for filter "
        f"{filter._shape[-1]}.",
    )


def _check_backprop_filter(
    op_desc: str,
    rank: int,
    x: Tensor,
    dy: Tensor,
    filter_shape: list[int],
    channels_last: bool = True,
) -> None:
    """The checks of TF.js's ``conv2DBackpropFilter`` (rank 4) and ``conv3DBackpropFilter`` (5)."""
    for what, t in (("input", x), ("dy", dy)):
        check(
            t.rank == rank,
            f"Error in {snake_case(op_desc)}: {what} must be rank {rank}, but got shape {js_str(t.shape)}.",
        )
    check(
        len(filter_shape) == rank,
        f"Error in {snake_case(op_desc)}: filter_shape must be length {rank}, but got {js_str(filter_shape)}.",
    )
    axis = -1 if channels_last else 1
    in_depth, out_depth = x._shape[axis], dy._shape[axis]
    # TF.js's message, unbalanced parentheses included.
    check(
        in_depth == filter_shape[-2],
        f"Error in {snake_case(op_desc)}: depth of input {in_depth}) must match input depth in filter "
        f"({filter_shape[-2]}.",
    )
    check(
        out_depth == filter_shape[-1],
        f"Error in {snake_case(op_desc)}: depth of dy ({out_depth}) must match output depth for filter "
        f"({filter_shape[-1]}).",
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
    x4, reshaped = batched(x, 4)
    check_ranks("conv2d", x4, filter, 4)
    check_pad_on_dim_rounding_mode("conv2d", pad, dim_rounding_mode)
    check_in_depth("conv2d", channels(x4._shape, data_format), filter._shape[2])
    check_strides_dilations("conv2D", strides, dilations)
    attrs = conv_attrs(
        strides, pad, dim_rounding_mode, data_format=data_format, dilations=dilations
    )
    return unbatched(run_kernel(k.CONV2D, (x4, filter), attrs), reshaped)


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
    x3, reshaped = batched(x, 3)
    check_ranks("conv1d", x3, filter, 3)
    check_pad_on_dim_rounding_mode("conv1d", pad, dim_rounding_mode)
    check_in_depth("conv1d", x3._shape[2], filter._shape[1])
    check_strides_dilations("conv1D", stride, dilation, what="stride")
    check(
        data_format == "NWC",
        f"Error in conv1d: got data_format of {data_format} but only NWC is currently supported.",
        InvalidArgumentError,
    )
    filter4 = reshape_to(filter, [1, *filter._shape])
    input4 = reshape_to(x3, [x3._shape[0], 1, x3._shape[1], x3._shape[2]])
    res = conv2d(input4, filter4, [1, stride], pad, "NHWC", [1, dilation], dim_rounding_mode)
    if reshaped:
        return reshape_to(res, [res._shape[2], res._shape[3]])
    return reshape_to(res, [res._shape[0], res._shape[2], res._shape[3]])


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
    x_shape = int_list_arg(x_shape, "conv2dTranspose", "outputShape", minimum=0)
    check(
        len(x_shape) == dy.rank,
        f"Length of in_shape ({len(x_shape)}) and rank of dy ({dy.rank}) must match",
    )
    dy4, reshaped = batched(dy, 4)
    if reshaped:
        x_shape = [1, *x_shape]
    _check_backprop_input("conv2dDerInput", 4, x_shape, dy4, filter, data_format == "NHWC")
    check_pad_on_dim_rounding_mode("conv2dDerInput", pad, dim_rounding_mode)
    attrs = conv_attrs(
        strides,
        pad,
        dim_rounding_mode,
        data_format=data_format,
        input_shape=[int(d) for d in x_shape],
    )
    return unbatched(run_kernel(k.CONV2D_BACKPROP_INPUT, (dy4, filter), attrs), reshaped)


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
    (x4, _), (dy4, _) = batched(x, 4), batched(dy, 4)
    filter_shape = list(filter_shape)
    _check_backprop_filter("conv2dDerFilter", 4, x4, dy4, filter_shape, data_format == "NHWC")
    check_pad_on_dim_rounding_mode("conv2dDerFilter", pad, dim_rounding_mode)
    attrs = conv_attrs(
        strides,
        pad,
        dim_rounding_mode,
        data_format=data_format,
        filter_shape=[int(d) for d in filter_shape],
    )
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
    x5, reshaped = batched(x, 5)
    check_ranks("conv3d", x5, filter, 5)
    check_in_depth("conv3d", x5._shape[4], filter._shape[3])
    check_strides_or_dilations_one("conv3D", strides, dilations)
    check(
        data_format == "NDHWC",
        f"Error in conv3d: got data_format of {data_format} but only NDHWC is currently supported.",
        InvalidArgumentError,
    )
    check_positive("conv3D", strides, dilations)
    check_pad_type("conv3d", pad)
    check_sizes(strides=strides, dilations=dilations, pad=pad if is_number(pad) else None)
    attrs = {"strides": strides, "pad": pad, "data_format": data_format, "dilations": dilations}
    return unbatched(run_kernel(k.CONV3D, (x5, filter), attrs), reshaped)


@op(name="conv3d_backprop_input")
def _conv3d_backprop_input(
    x_shape: Any,
    dy: Tensor,
    filter: Tensor,  # noqa: A002
    strides: Any,
    pad: Any,
) -> Tensor:
    """TF.js's ``conv3DBackpropInput`` (kernel Conv3DBackpropInputV2)."""
    x_shape = int_list_arg(x_shape, "conv3dTranspose", "outputShape", minimum=0)
    check(
        len(x_shape) == dy.rank,
        f"Length of in_shape ({len(x_shape)}) and rank of dy ({dy.rank}) must match",
    )
    dy5, reshaped = batched(dy, 5)
    if reshaped:
        x_shape = [1, *x_shape]
    _check_backprop_input("conv3dDerInput", 5, x_shape, dy5, filter)
    check_pad_type("conv3dDerInput", pad)
    check_sizes(strides=strides, pad=pad if is_number(pad) else None)
    attrs = {"pad": pad, "strides": strides, "input_shape": [int(d) for d in x_shape]}
    return unbatched(run_kernel(k.CONV3D_BACKPROP_INPUT_V2, (dy5, filter), attrs), reshaped)


@op(name="conv3d_backprop_filter")
def _conv3d_backprop_filter(
    x: Tensor, dy: Tensor, filter_shape: Any, strides: Any, pad: Any
) -> Tensor:
    """TF.js's ``conv3DBackpropFilter`` (kernel Conv3DBackpropFilterV2)."""
    (x5, _), (dy5, _) = batched(x, 5), batched(dy, 5)
    filter_shape = list(filter_shape)
    _check_backprop_filter("conv3dDerFilter", 5, x5, dy5, filter_shape)
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
    x4, reshaped = batched(x, 4)
    check_ranks("depthwiseConv2d", x4, filter, 4)
    check_depthwise_channels("depthwiseConv2d", channels(x4._shape, data_format), filter._shape[2])
    check_pad_on_dim_rounding_mode("depthwiseConv2d", pad, dim_rounding_mode)
    attrs = conv_attrs(
        strides, pad, dim_rounding_mode, data_format=data_format, dilations=dilations
    )
    return unbatched(run_kernel(k.DEPTHWISE_CONV2D_NATIVE, (x4, filter), attrs), reshaped)


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
    dy4, reshaped = batched(dy, 4)
    attrs = conv_attrs(
        strides, pad, dim_rounding_mode, dilations=dilations, input_shape=[int(d) for d in x_shape]
    )
    return unbatched(
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
    (x4, _), (dy4, _) = batched(x, 4), batched(dy, 4)
    attrs = conv_attrs(
        strides,
        pad,
        dim_rounding_mode,
        dilations=dilations,
        filter_shape=[int(d) for d in filter_shape],
    )
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
    x4, reshaped = batched(x, 4)
    if isinstance(data_format, str) and data_format == "NCHW":
        raise InvalidArgumentError(
            "separable_conv2d currently does not support data_format NCHW; only NHWC is supported"
        )
    dw, pw = depthwise_filter, pointwise_filter
    check_rank("separableConv2d", "input", x4.rank, 4)
    check_rank("separableConv2d", "depthwise filter", dw.rank, 4)
    # TF.js's message names the depthwise filter's rank here.
    check(
        pw.rank == 4,
        f"Error in separable_conv2d: pointwise filter must be rank 4, but got rank {dw.rank}.",
    )
    check(
        pw._shape[0] == 1,
        f"Error in separable_conv2d: the first dimension of pointwise filter must be 1, but got {pw._shape[0]}.",
    )
    check(
        pw._shape[1] == 1,
        f"Error in separable_conv2d: the second dimension of pointwise filter must be 1, but got {pw._shape[1]}.",
    )
    in_channels, multiplier = dw._shape[2], dw._shape[3]
    check(
        pw._shape[2] == in_channels * multiplier,
        f"Error in separable_conv2d: the third dimension of pointwise filter must be {in_channels * multiplier}, "
        f"but got {pw._shape[2]}.",
    )
    depthwise = depthwise_conv2d(x4, dw, strides, pad, data_format, dilation)
    return unbatched(conv2d(depthwise, pw, 1, "valid", data_format), reshaped)


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
    check(
        x.rank in (3, 4), f"Error in dilation2d: input must be rank 3 or 4, but got rank {x.rank}."
    )
    check_rank("dilation2d", "filter", filter.rank, 3)
    check(
        data_format == "NHWC",
        f"Error in dilation2d: Only NHWC is currently supported, but got data_format of {data_format}",
        InvalidArgumentError,
    )
    x4, reshaped = batched(x, 4)
    check(
        x4._shape[3] == filter._shape[2],
        f"Error in dilation2d:  input and filter must have the same depth: {x4._shape[3]} vs {filter._shape[2]}",
    )
    check_pad_type("dilation2d", pad)
    check_sizes(strides=strides, dilations=dilations, pad=pad if is_number(pad) else None)
    check_positive("dilation2d", strides, dilations)
    attrs = {"strides": strides, "pad": pad, "dilations": dilations}
    return unbatched(run_kernel(k.DILATION2D, (x4, filter), attrs), reshaped)
