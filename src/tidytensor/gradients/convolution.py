"""Gradients of the convolution kernels (TF.js's Conv2D_grad.ts, DepthwiseConv2dNative_grad.ts...;
pooling's are in pooling.py).

The fused ops (tf.fused.*) carry their own gradients through ``custom_grad`` (ops/fused.py).
"""

from __future__ import annotations

from .. import kernel_names as k
from ..engine import ENGINE
from ..errors import InvalidArgumentError, ShapeError
from ..geometry.conv import either_strides_or_dilations_are_one
from ..geometry.conv import js_format as js_str
from ..kernel_registry import GradConfig, register_gradient
from ..ops import convolution
from ..ops._conv_util import check_gradient_dilations


def _conv():

    return convolution


def _conv2d_grad(dy, saved, attrs):
    x4, filt = saved
    check_gradient_dilations("conv2D", attrs.get("dilations", (1, 1)))
    c = _conv()
    strides, pad, fmt = attrs["strides"], attrs["pad"], attrs["data_format"]
    return (
        lambda: c._conv2d_backprop_input(x4._shape, dy, filt, strides, pad, fmt),
        lambda: c._conv2d_backprop_filter(x4, dy, filt._shape, strides, pad, fmt),
    )


def _conv2d_backprop_input_grad(ddx, saved, attrs):
    dy, filt = saved
    c = _conv()
    strides, pad, fmt, mode = (
        attrs["strides"],
        attrs["pad"],
        attrs["data_format"],
        attrs["dim_rounding_mode"],
    )
    return (
        lambda: c.conv2d(ddx, filt, strides, pad, fmt, 1, mode),
        lambda: c._conv2d_backprop_filter(ddx, dy, filt._shape, strides, pad, fmt, mode),
    )


def _conv3d_grad(dy, saved, attrs):
    check_gradient_dilations("conv3D", attrs.get("dilations", (1, 1, 1)))
    x5, filt = saved
    c = _conv()
    strides, pad = attrs["strides"], attrs["pad"]
    return (
        lambda: c._conv3d_backprop_input(x5._shape, dy, filt, strides, pad),
        lambda: c._conv3d_backprop_filter(x5, dy, filt._shape, strides, pad),
    )


def _depthwise_grad(dy, saved, attrs):
    strides, pad, mode = attrs["strides"], attrs["pad"], attrs.get("dim_rounding_mode")
    dilations = attrs.get("dilations")
    dilations = [1, 1] if dilations is None else dilations
    check_gradient_dilations("depthwiseConv2dNative", dilations, in_gradients=False)
    x, filt = saved
    if x.rank != 4:
        raise ShapeError(
            f"Error in gradient of depthwise_conv2d_native: input must be rank 4, but got rank {x.rank}."
        )
    if filt.rank != 4:
        raise ShapeError(
            f"Error in gradient of depthwise_conv2d_native: filter must be rank 4, but got rank {filt.rank}."
        )
    if x._shape[3] != filt._shape[2]:
        raise ShapeError(
            f"Error in gradient of depthwise_conv2d: number of input channels ({x._shape[3]}) must match the "
            f"in_channels dimension in filter {filt._shape[2]}."
        )
    if not either_strides_or_dilations_are_one(strides, dilations):
        raise InvalidArgumentError(
            "Error in gradient of depthwise_conv2d: Either strides or dilations must be  1. "
            f"Got strides {js_str(strides)} and dilations '{js_str(dilations)}'."
        )
    c = _conv()
    c.check_pad_on_dim_rounding_mode("depthwiseConv2d", pad, mode)
    return (
        lambda: c._depthwise_backprop_input(x._shape, dy, filt, strides, pad, dilations, mode),
        lambda: c._depthwise_backprop_filter(x, dy, filt._shape, strides, pad, dilations, mode),
    )


def _dilation2d_grad(dy, saved, attrs):

    x, filt = saved
    return (
        lambda: ENGINE.run_kernel(k.DILATION2D_BACKPROP_INPUT, (x, filt, dy), attrs),
        lambda: ENGINE.run_kernel(k.DILATION2D_BACKPROP_FILTER, (x, filt, dy), attrs),
    )


for _config in (
    GradConfig(k.CONV2D, _conv2d_grad, inputs_to_save=(0, 1)),
    GradConfig(k.CONV2D_BACKPROP_INPUT, _conv2d_backprop_input_grad, inputs_to_save=(0, 1)),
    GradConfig(k.CONV3D, _conv3d_grad, inputs_to_save=(0, 1)),
    GradConfig(k.DEPTHWISE_CONV2D_NATIVE, _depthwise_grad, inputs_to_save=(0, 1)),
    GradConfig(k.DILATION2D, _dilation2d_grad, inputs_to_save=(0, 1)),
):
    register_gradient(_config)
