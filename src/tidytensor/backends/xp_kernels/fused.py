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


def _geometry(attrs):
    """(strides, pad, data_format, dilations, dim_rounding_mode, the epilogue's attrs)."""
    rest = dict(attrs)
    return (
        rest.pop("strides"),
        rest.pop("pad"),
        rest.pop("data_format", "NHWC"),
        rest.pop("dilations", (1, 1)),
        rest.pop("dim_rounding_mode", None),
        rest,
    )


def bias_activation(out, bias, alpha, activation, leakyrelu_alpha, xp):
    """The fused kernels' epilogue: ``out + bias``, then the activation."""
    if bias is not None:
        out = out + bias
    return apply_activation(out, activation, alpha, leakyrelu_alpha, xp)


def make_kernels(conv_forward, depthwise_forward, epilogue):
    """The three fused kernels around a convolution, a depthwise convolution (both
    ``(x, w, info, xp)``) and an epilogue (``bias_activation``'s signature): the CPU's here,
    the GPU backend's in ``cupy_kernels/fused.py``."""

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
        return epilogue(out, bias, alpha, activation, leakyrelu_alpha, xp)

    def finish(out, arrays, nchw, xp, activation="linear", leakyrelu_alpha=None, **extras):
        bias, alpha = _extras(arrays, extras.get("has_bias"), extras.get("has_prelu"))
        alpha = _channel_aligned(alpha, nchw and activation == "prelu")
        bias = _channel_aligned(bias, nchw)
        return epilogue(out, bias, alpha, activation, leakyrelu_alpha, xp)

    def fused_conv2d(*arrays, xp, **attrs):
        x, w = arrays[0], arrays[1]
        strides, pad, data_format, dilations, rounding, rest = _geometry(attrs)
        fmt = convert_data_format(data_format)
        info = compute_conv2d_info(x.shape, w.shape, strides, dilations, pad, rounding, False, fmt)
        last = info.channels_last
        out = conv_forward(to_channels_last(x, xp, last), w, info, xp)
        out = from_channels_last(out.astype(xp.float32, copy=False), xp, last)
        return finish(out, arrays, not last, xp, **rest)

    def fused_depthwise_conv2d(*arrays, xp, **attrs):
        x, w = arrays[0], arrays[1]
        strides, pad, _, dilations, rounding, rest = _geometry(attrs)
        info = depthwise_info(x.shape, w.shape, strides, pad, dilations, rounding)
        out = depthwise_forward(x, w, info, xp)
        return finish(out, arrays, False, xp, **rest)

    return {
        k.FUSED_MAT_MUL: fused_mat_mul,
        k.FUSED_CONV2D: fused_conv2d,
        k.FUSED_DEPTHWISE_CONV2D: fused_depthwise_conv2d,
    }


KERNELS = make_kernels(conv_forward, depthwise_forward, bias_activation)
