"""Fused kernels: _FusedMatMul, FusedConv2D, FusedDepthwiseConv2D (op + bias + activation).

Inputs come positionally: the two operands, then the bias when ``has_bias``, then the PReLU
weights when ``has_prelu`` (the engine takes no empty inputs). As in TF.js's CPU backend the
bias is added with broadcasting (an NCHW 1-D bias lines up with the channels) and the
activation is one of the activation kernels.
"""

from __future__ import annotations

from ... import kernel_names as k
from ...errors import InvalidArgumentError
from ...geometry.conv import compute_conv2d_info, convert_data_format
from . import basic_math as bm
from .convolution import (
    conv_forward,
    depthwise_forward,
    depthwise_info,
    from_channels_last,
    to_channels_last,
)
from .matrices import batch_mat_mul


def apply_activation(v, activation, alpha, leakyrelu_alpha, xp):
    """TF.js's CPU ``applyActivation`` (``alpha`` is the PReLU weights array)."""
    if not activation or activation == "linear":
        return v
    if activation == "relu":
        return bm.relu(v, xp=xp)
    if activation == "elu":
        return bm.elu(v, xp=xp)
    if activation == "relu6":
        return bm.relu6(v, xp=xp)
    if activation == "prelu":
        if alpha is None:
            raise InvalidArgumentError("Fused activation 'prelu' needs prelu_activation_weights")
        return bm.prelu(v, alpha, xp=xp)
    if activation == "leakyrelu":
        if leakyrelu_alpha is None:  # TF.js multiplies by undefined: NaN for negative values
            return xp.where(v < 0, xp.float32("nan"), v).astype(xp.float32)
        return bm.leaky_relu(v, xp=xp, alpha=float(leakyrelu_alpha))
    if activation == "sigmoid":
        return bm.sigmoid(v, xp=xp)
    raise InvalidArgumentError(
        f"Activation {activation} has not been implemented for the CPU backend."
    )


def _extras(arrays, has_bias, has_prelu):
    rest = list(arrays[2:])
    bias = rest.pop(0) if has_bias else None
    alpha = rest.pop(0) if has_prelu else None
    return bias, alpha


def _channel_aligned(v, nchw: bool):
    """An NCHW 1-D bias or alpha (length not 1) applies per channel: reshape to [C, 1, 1]."""
    if nchw and v is not None and v.ndim == 1 and v.shape[0] != 1:
        return v.reshape(v.shape[0], 1, 1)
    return v


def fused_mat_mul(
    *arrays,
    xp,
    transpose_a=False,
    transpose_b=False,
    activation="linear",
    leakyrelu_alpha=None,
    has_bias=False,
    has_prelu=False,
):
    bias, alpha = _extras(arrays, has_bias, has_prelu)
    out = batch_mat_mul(
        arrays[0], arrays[1], xp=xp, transpose_a=transpose_a, transpose_b=transpose_b
    )
    if bias is not None:
        out = out + bias
    return apply_activation(out, activation, alpha, leakyrelu_alpha, xp)


def fused_conv2d(
    *arrays,
    xp,
    strides,
    pad,
    data_format="NHWC",
    dilations=(1, 1),
    dim_rounding_mode=None,
    activation="linear",
    leakyrelu_alpha=None,
    has_bias=False,
    has_prelu=False,
):
    x, w = arrays[0], arrays[1]
    bias, alpha = _extras(arrays, has_bias, has_prelu)
    fmt = convert_data_format(data_format)
    info = compute_conv2d_info(
        x.shape, w.shape, strides, dilations, pad, dim_rounding_mode, False, fmt
    )
    last = info.channels_last
    out = conv_forward(to_channels_last(x, xp, last), w, info, xp)
    out = from_channels_last(out.astype(xp.float32, copy=False), xp, last)
    nchw = not last
    if bias is not None:
        out = out + _channel_aligned(bias, nchw)
    alpha = _channel_aligned(alpha, nchw and activation == "prelu")
    return apply_activation(out, activation, alpha, leakyrelu_alpha, xp)


def fused_depthwise_conv2d(
    *arrays,
    xp,
    strides,
    pad,
    data_format="NHWC",
    dilations=(1, 1),
    dim_rounding_mode=None,
    activation="linear",
    leakyrelu_alpha=None,
    has_bias=False,
    has_prelu=False,
):
    x, w = arrays[0], arrays[1]
    bias, alpha = _extras(arrays, has_bias, has_prelu)
    info = depthwise_info(x.shape, w.shape, strides, pad, dilations, dim_rounding_mode)
    out = depthwise_forward(x, w, info, xp)
    if bias is not None:
        out = out + bias
    return apply_activation(out, activation, alpha, leakyrelu_alpha, xp)


KERNELS = {
    k.FUSED_MAT_MUL: fused_mat_mul,
    k.FUSED_CONV2D: fused_conv2d,
    k.FUSED_DEPTHWISE_CONV2D: fused_depthwise_conv2d,
}
