"""The ``tf.fused`` namespace: matMul, conv2d and depthwiseConv2d fused with a bias add and an
activation ('linear', 'relu', 'relu6', 'elu', 'prelu', 'leakyrelu', 'sigmoid').

TF.js's config object becomes keyword arguments: ``tf.fused.conv2d(x=x, filter=f, strides=1,
pad='same', bias=b, activation='relu')`` (positional use works too). As in TF.js, outside
gradient mode (or with a linear activation) the fused kernel runs under ``custom_grad``;
while gradients are being recorded with another activation, the unfused ops run instead.
"""

from __future__ import annotations

import math
from typing import Any

from .. import kernel_names as k
from ..engine import ENGINE
from ..engine.recording import custom_grad
from ..errors import GradientError, InvalidArgumentError, ShapeError
from ..geometry.broadcast import assert_and_get_broadcast_shape, get_reduction_axes
from ..geometry.conv import compute_conv2d_info, js_format
from ..tensor import Tensor
from . import basic_math as bm
from . import convolution as conv
from . import matrices
from ._conv_util import (
    batched,
    channels,
    check_depthwise_channels,
    check_gradient_dilations,
    check_in_depth,
    check_pad_on_dim_rounding_mode,
    check_ranks,
    check_strides_or_dilations_one,
    conv_attrs,
    reshape_to,
    unbatched,
)
from ._op import convert_to_tensor, op, run_kernel
from .arithmetic import add, mul
from .basic_math import step
from .matrices import mat_mul as mm
from .reduction import sum as sum_
from .transformations import make_types_match, reshape

__all__ = ["conv2d", "depthwise_conv2d", "mat_mul"]


def should_fuse(gradient_depth: int, activation: Any) -> bool:
    """TF.js's ``shouldFuse``: fused unless gradients are being recorded through a non-linear
    activation."""
    return gradient_depth <= 0 or activation == "linear"


def apply_activation(
    x: Tensor, activation: Any, prelu_weights: Any, leakyrelu_alpha: Any
) -> Tensor:
    """TF.js's op-level ``applyActivation`` (the unfused path)."""

    if activation == "linear":
        return x
    if activation == "relu":
        return bm.relu(x)
    if activation == "elu":
        return bm.elu(x)
    if activation == "relu6":
        return bm.relu6(x)
    if activation == "prelu":
        return bm.prelu(x, prelu_weights)
    if activation == "leakyrelu":
        return bm.leaky_relu(x) if leakyrelu_alpha is None else bm.leaky_relu(x, leakyrelu_alpha)
    if activation == "sigmoid":
        return bm.sigmoid(x)
    raise InvalidArgumentError(f"Unknown fused activation {js_format(activation)}.")


def _unfused(
    result: Tensor, bias: Any, activation: Any, prelu_weights: Any, leakyrelu_alpha: Any
) -> Tensor:
    """The unfused path: ``bias`` added to ``result`` by its own op, then the activation."""

    if bias is not None:
        result = add(result, bias)
    return apply_activation(result, activation, prelu_weights, leakyrelu_alpha)


def fused_dy_activation(dy: Tensor, y: Tensor, activation: Any) -> Tensor:
    """TF.js's ``getFusedDyActivation``: only 'linear' and 'relu' have one."""

    if activation is None or activation == "linear":
        return dy
    if activation == "relu":
        return mul(dy, step(y))
    raise GradientError(f"Cannot compute gradient for fused activation {activation}.")


def fused_bias_gradient(bias: Tensor, dy_activation: Tensor) -> Tensor:
    """TF.js's ``getFusedBiasGradient``: ``dy`` summed down to the bias's shape."""

    res = dy_activation
    axes = get_reduction_axes(bias._shape, dy_activation._shape)
    if axes:
        res = sum_(res, axes)
    return reshape(res, list(bias._shape))


def _dim(shape: tuple[int, ...], i: int) -> Any:
    return shape[i] if 0 <= i < len(shape) else None


def _extra_inputs(bias: Tensor | None, prelu: Tensor | None) -> tuple[tuple[Tensor, ...], dict]:
    inputs = tuple(t for t in (bias, prelu) if t is not None)
    return inputs, {"has_bias": bias is not None, "has_prelu": prelu is not None}


def _run_custom(
    kernel: str,
    main: tuple[Tensor, Tensor],
    bias: Tensor | None,
    extra: tuple,
    attrs: dict,
    finish,
    grad,
) -> Tensor:
    """Runs ``kernel`` under ``custom_grad`` with inputs ``main`` (+ ``bias``), as TF.js's
    customOp / customOpWithBias. ``finish`` shapes the kernel result into the op's value.
    Saved for the gradient, as TF.js: matMul [a3D, b3D, y, bias?], convs [filter, x4D, y, bias?]."""

    def forward(*args: Any) -> dict:
        *inputs, save = args
        res = run_kernel(kernel, (*main, *extra), attrs)
        first, second = (
            (inputs[0], inputs[1]) if kernel == k.FUSED_MAT_MUL else (inputs[1], inputs[0])
        )
        save([first, second, res, *inputs[2:]])
        return {"value": finish(res), "grad_func": grad}

    args = main if bias is None else (*main, bias)
    return custom_grad(forward)(*args)


def _run_fused_conv(
    kernel: str,
    x4: Tensor,
    filter: Tensor,  # noqa: A002
    reshaped: bool,
    bias: Tensor | None,
    prelu: Tensor | None,
    attrs: dict,
    grad_checks,
    backprop,
) -> Tensor:
    """Runs the fused convolution ``kernel`` (``_run_custom``). Its gradient runs
    ``grad_checks()``, then ``backprop(x4, dy_activation, filter)`` for the input's and the
    filter's derivatives, then the bias's."""

    def grad(dy: Tensor, saved: list[Tensor]) -> list[Tensor]:
        grad_checks()
        filt, x4s, y = saved[0], saved[1], saved[2]
        dy_act = fused_dy_activation(dy, y, attrs["activation"])
        der = list(backprop(x4s, dy_act, filt))
        if bias is not None:
            der.append(fused_bias_gradient(bias, dy_act))
        return der

    extra, flags = _extra_inputs(bias, prelu)
    return _run_custom(
        kernel,
        (x4, filter),
        bias,
        extra,
        {**attrs, **flags},
        lambda res: unbatched(res, reshaped),
        grad,
    )


@op(name="fused_mat_mul")
def mat_mul(
    a: Any,
    b: Any,
    transpose_a: bool = False,
    transpose_b: bool = False,
    bias: Any = None,
    activation: str = "linear",
    prelu_activation_weights: Any = None,
    leakyrelu_alpha: float = 0.2,
) -> Tensor:
    """``activation(mat_mul(a, b) + bias)`` in one kernel.

    >>> tf.fused.mat_mul(a=tf.tensor2d([[1, -2]]), b=tf.tensor2d([[1], [1]]), activation='relu').array_sync()
    [[0.0]]
    """

    if not should_fuse(ENGINE.state.gradient_depth, activation):
        result = matrices.mat_mul(a, b, transpose_a, transpose_b)
        return _unfused(result, bias, activation, prelu_activation_weights, leakyrelu_alpha)
    a = convert_to_tensor(a, "a", "fused mat_mul")
    b = convert_to_tensor(b, "b", "fused mat_mul")
    a, b = make_types_match(a, b)
    sa, sb = a._shape, b._shape
    inner_a = _dim(sa, a.rank - 2 if transpose_a else a.rank - 1)
    inner_b = _dim(sb, b.rank - 1 if transpose_b else b.rank - 2)
    outer_a = _dim(sa, a.rank - 1 if transpose_a else a.rank - 2)
    outer_b = _dim(sb, b.rank - 2 if transpose_b else b.rank - 1)
    batch_a, batch_b = math.prod(sa[:-2]), math.prod(sb[:-2])
    if inner_a != inner_b:
        raise ShapeError(
            f"Error in fused mat_mul: inner shapes ({js_format('None' if inner_a is None else inner_a)}) and "
            f"({js_format('None' if inner_b is None else inner_b)}) of Tensors with shapes "
            f"[{js_format(a.shape)}] and [{js_format(b.shape)}] and transpose_a={bool(transpose_a)} "
            f"and transpose_b={bool(transpose_b)} must match."
        )
    out_shape = [*assert_and_get_broadcast_shape(sa[:-2], sb[:-2]), outer_a, outer_b]
    a3 = reshape_to(a, [batch_a, inner_a, outer_a] if transpose_a else [batch_a, outer_a, inner_a])
    b3 = reshape_to(b, [batch_b, outer_b, inner_b] if transpose_b else [batch_b, inner_b, outer_b])
    bias_t = None
    if bias is not None:
        bias_t = convert_to_tensor(bias, "bias", "fused mat_mul")
        bias_t, _ = make_types_match(bias_t, a)
        assert_and_get_broadcast_shape(tuple(out_shape), bias_t._shape)
    prelu_t = None
    if prelu_activation_weights is not None:
        prelu_t = convert_to_tensor(prelu_activation_weights, "prelu weights", "fused mat_mul")

    def grad(dy: Tensor, saved: list[Tensor]) -> list[Tensor]:
        a3s, b3s, y = saved[0], saved[1], saved[2]
        dy_act = fused_dy_activation(reshape_to(dy, y._shape), y, activation)
        if not transpose_a and not transpose_b:
            a_der, b_der = mm(dy_act, b3s, False, True), mm(a3s, dy_act, True, False)
        elif not transpose_a and transpose_b:
            a_der, b_der = mm(dy_act, b3s, False, False), mm(dy_act, a3s, True, False)
        elif transpose_a and not transpose_b:
            a_der, b_der = mm(b3s, dy_act, False, True), mm(a3s, dy_act, False, False)
        else:
            a_der, b_der = mm(b3s, dy_act, True, True), mm(dy_act, a3s, True, True)
        if bias_t is not None:
            return [a_der, b_der, fused_bias_gradient(bias_t, dy_act)]
        return [a_der, b_der]

    extra, flags = _extra_inputs(bias_t, prelu_t)
    attrs = {
        "transpose_a": bool(transpose_a),
        "transpose_b": bool(transpose_b),
        "activation": activation,
        "leakyrelu_alpha": leakyrelu_alpha,
        **flags,
    }
    return _run_custom(
        k.FUSED_MAT_MUL, (a3, b3), bias_t, extra, attrs, lambda r: reshape_to(r, out_shape), grad
    )


def _prelu_checks(alpha: Tensor, out_channels: int, out_shape: list[int]) -> None:
    shape = alpha._shape
    if not (len(shape) <= 1 or len(shape) == 3):
        raise ShapeError(
            "Error in fused conv2d: only supports scalar, 1-D Tensor or 3-D Tensor PReLU activation weights "
            f"but got a tensor of rank-{len(shape)}."
        )
    if len(shape) == 1 and shape[0] not in (1, out_channels):
        raise ShapeError(
            f"Error in fused conv2d: PReLU activation weights ({js_format(list(shape))}) is not compatible with "
            f"the number of output channels ({out_channels})."
        )
    if len(shape) == 3:
        try:
            assert_and_get_broadcast_shape(shape, tuple(out_shape))
        except ShapeError:
            raise ShapeError(
                f"Error in fused conv2d: PReLU activation weights ({js_format(list(shape))}) is not compatible "
                f"with the output shape of the conv2d ({js_format(out_shape)})."
            ) from None


@op(name="fused_conv2d")
def conv2d(
    x: Any,
    filter: Any,  # noqa: A002 - TF.js's name
    strides: Any,
    pad: Any,
    data_format: str = "NHWC",
    dilations: Any = (1, 1),
    dim_rounding_mode: str | None = None,
    bias: Any = None,
    activation: str = "linear",
    prelu_activation_weights: Any = None,
    leakyrelu_alpha: float | None = None,
) -> Tensor:
    """``activation(conv2d(x, filter) + bias)`` in one kernel.

    >>> tf.fused.conv2d(x=tf.ones([1, 2, 2, 1]), filter=tf.ones([2, 2, 1, 1]), strides=1, pad='valid',
    ...                 bias=tf.tensor1d([-5]), activation='relu').array_sync()
    [[[[0.0]]]]
    """

    activation = activation or "linear"
    if not should_fuse(ENGINE.state.gradient_depth, activation):
        if data_format != "NHWC":
            raise InvalidArgumentError(
                f"Error in fused conv2d: got data_format of {data_format} but only NHWC is currently supported "
                "for the case of gradient depth is 0 and the activation is not linear."
            )
        result = conv.conv2d(x, filter, strides, pad, data_format, dilations, dim_rounding_mode)
        return _unfused(result, bias, activation, prelu_activation_weights, leakyrelu_alpha)
    x = convert_to_tensor(x, "x", "conv2d", "float32")
    filter = convert_to_tensor(filter, "filter", "conv2d", "float32")
    x4, reshaped = batched(x, 4)
    check_ranks("fused conv2d", x4, filter, 4)
    check_pad_on_dim_rounding_mode("fused conv2d", pad, dim_rounding_mode)
    check_in_depth("conv2d", channels(x4._shape, data_format), filter._shape[2])
    check_strides_or_dilations_one("conv2D", strides, dilations)
    # TF.js sizes the output as NHWC here whatever data_format says.
    info = compute_conv2d_info(
        x4._shape, filter._shape, strides, dilations, pad, dim_rounding_mode, check=False
    )
    bias_t = None
    if bias is not None:
        bias_t = convert_to_tensor(bias, "bias", "fused conv2d")
        bias_t, _ = make_types_match(bias_t, x)
        if data_format == "NHWC":
            assert_and_get_broadcast_shape(tuple(info.out_shape), bias_t._shape)
        else:
            if bias_t.rank > 1:
                raise ShapeError(
                    "Error in fused conv2d: only supports scalar or 1-D Tensor bias for NCHW format but got the "
                    f"bias of rank-{bias_t.rank}."
                )
            if bias_t.rank == 1 and bias_t._shape[0] not in (info.out_channels, 1):
                raise ShapeError(
                    f"Error in fused conv2d: bias shape ({js_format(bias_t.shape)}) is not compatible with the "
                    f"number of output channels ({info.out_channels})"
                )
    prelu_t = None
    if prelu_activation_weights is not None:
        prelu_t = convert_to_tensor(prelu_activation_weights, "prelu weights", "fused conv2d")
        _prelu_checks(prelu_t, info.out_channels, info.out_shape)

    def grad_checks() -> None:
        if data_format != "NHWC":
            raise GradientError(
                f"Error in gradient of fused conv2D: got data_format of {data_format} but only NHWC is currently "
                "supported."
            )
        check_gradient_dilations("fused conv2D", dilations)

    def backprop(x4s: Tensor, dy_act: Tensor, filt: Tensor) -> tuple[Tensor, Tensor]:
        return (
            conv._conv2d_backprop_input(x4s._shape, dy_act, filt, strides, pad),
            conv._conv2d_backprop_filter(x4s, dy_act, filt._shape, strides, pad),
        )

    attrs = conv_attrs(
        strides,
        pad,
        dim_rounding_mode,
        data_format=data_format,
        dilations=dilations,
        activation=activation,
        leakyrelu_alpha=leakyrelu_alpha,
    )
    return _run_fused_conv(
        k.FUSED_CONV2D, x4, filter, reshaped, bias_t, prelu_t, attrs, grad_checks, backprop
    )


@op(name="fused_depthwise_conv2d")
def depthwise_conv2d(
    x: Any,
    filter: Any,  # noqa: A002
    strides: Any,
    pad: Any,
    data_format: str = "NHWC",
    dilations: Any = (1, 1),
    dim_rounding_mode: str | None = None,
    bias: Any = None,
    activation: str = "linear",
    prelu_activation_weights: Any = None,
    leakyrelu_alpha: float | None = None,
) -> Tensor:
    """``activation(depthwise_conv2d(x, filter) + bias)`` in one kernel.

    >>> tf.fused.depthwise_conv2d(x=tf.ones([1, 2, 2, 1]), filter=tf.ones([2, 2, 1, 2]), strides=1,
    ...                           pad='valid', bias=tf.tensor1d([1, -5]), activation='relu').array_sync()
    [[[[5.0, 0.0]]]]
    """

    if not should_fuse(ENGINE.state.gradient_depth, activation):
        result = conv.depthwise_conv2d(
            x, filter, strides, pad, data_format, dilations, dim_rounding_mode
        )
        return _unfused(result, bias, activation, prelu_activation_weights, leakyrelu_alpha)
    x = convert_to_tensor(x, "x", "depthwiseConv2d", "float32")
    filter = convert_to_tensor(filter, "filter", "depthwiseConv2d", "float32")
    x4, reshaped = batched(x, 4)
    check_ranks("fused depthwise_conv2d", x4, filter, 4)
    check_depthwise_channels("fused depthwise_conv2d", x4._shape[3], filter._shape[2])
    dilations = [1, 1] if dilations is None else dilations
    check_strides_or_dilations_one("fused depthwise_conv2d", strides, dilations)
    check_pad_on_dim_rounding_mode("fused depthwise_conv2d", pad, dim_rounding_mode)
    info = compute_conv2d_info(
        x4._shape, filter._shape, strides, dilations, pad, dim_rounding_mode, True, check=False
    )
    bias_t = None
    if bias is not None:
        bias_t = convert_to_tensor(bias, "bias", "fused conv2d")
        bias_t, _ = make_types_match(bias_t, x)
        assert_and_get_broadcast_shape(tuple(info.out_shape), bias_t._shape)
    prelu_t = None
    if prelu_activation_weights is not None:
        prelu_t = convert_to_tensor(
            prelu_activation_weights, "prelu weights", "fused depthwise_conv2d"
        )

    def grad_checks() -> None:
        check_gradient_dilations("fused depthwise_conv2d", dilations, in_gradients=False)

    def backprop(x4s: Tensor, dy_act: Tensor, filt: Tensor) -> tuple[Tensor, Tensor]:
        return (
            conv._depthwise_backprop_input(
                x4s._shape, dy_act, filt, strides, pad, dilations, dim_rounding_mode
            ),
            conv._depthwise_backprop_filter(
                x4s, dy_act, filt._shape, strides, pad, dilations, dim_rounding_mode
            ),
        )

    attrs = conv_attrs(
        strides,
        pad,
        dim_rounding_mode,
        data_format=data_format,
        dilations=dilations,
        activation=activation,
        leakyrelu_alpha=leakyrelu_alpha,
    )
    return _run_fused_conv(
        k.FUSED_DEPTHWISE_CONV2D,
        x4,
        filter,
        reshaped,
        bias_t,
        prelu_t,
        attrs,
        grad_checks,
        backprop,
    )
