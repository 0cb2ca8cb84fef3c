"""Gradients of the basic math kernels (TF.js's Abs_grad.ts, Acos_grad.ts, ..., Tanh_grad.ts).

Each runs the ops TF.js's gradient runs, in the same order; Ceil, Floor, Round, Sign, Step
and the IsFinite/IsInf/IsNan tests give zeros, as in TF.js. ``log_sigmoid`` has a custom
gradient in its op.
"""

from __future__ import annotations

import math

from .. import kernel_names as k
from .. import ops
from ..backends.xp_kernels.basic_math import SELU_SCALE, SELU_SCALEALPHA
from ..geometry.broadcast import assert_and_get_broadcast_shape, get_reduction_axes
from ..kernel_registry import GradConfig, register_gradient
from ..ops.basic_math import _elu_grad as elu_grad_op
from .arithmetic import sum_to_shape


def _f32(x):
    return ops.cast(x, "float32")


# ---------------------------------------------------------------------------- zeros
def _zeros_grad(dy, saved, attrs):
    """Ceil, Floor, Round, Sign, Step, IsFinite, IsInf, IsNan."""
    return (lambda: ops.zeros_like(dy),)


# ---------------------------------------------------------------------------- abs, neg, powers
def _abs_grad(dy, saved, attrs):
    """Abs and ComplexAbs: dy * (x > 0 ? 1 : -1) (a complex x counts by its real part)."""
    (x,) = saved
    return (lambda: ops.mul(dy, ops.step(_f32(x), -1)),)


def _neg_grad(dy, saved, attrs):
    return (lambda: ops.neg(dy),)


def _square_grad(dy, saved, attrs):
    (x,) = saved
    return (lambda: ops.mul(dy, ops.mul(_f32(x), 2)),)


def _reciprocal_grad(dy, saved, attrs):
    (x,) = saved
    return (lambda: ops.div(dy, ops.neg(ops.square(x))),)


def _sqrt_grad(dy, saved, attrs):
    (x,) = saved
    return (lambda: ops.div(dy, ops.mul(ops.sqrt(_f32(x)), 2)),)


def _rsqrt_grad(dy, saved, attrs):
    (x,) = saved
    return (lambda: ops.neg(ops.div(dy, ops.mul(ops.pow(x, 1.5), 2))),)


# ---------------------------------------------------------------------------- exp, log
def _exp_grad(dy, saved, attrs):
    (y,) = saved
    return (lambda: ops.mul(dy, y),)


def _expm1_grad(dy, saved, attrs):
    (x,) = saved
    return (lambda: ops.mul(dy, ops.exp(x)),)


def _log_grad(dy, saved, attrs):
    (x,) = saved
    return (lambda: ops.div(dy, _f32(x)),)


def _log1p_grad(dy, saved, attrs):
    (x,) = saved
    return (lambda: ops.div(dy, ops.add(x, 1)),)


def _erf_grad(dy, saved, attrs):
    (x,) = saved
    # As in TF.js, the factor is computed when the gradient function runs, not in the thunk.
    factor = ops.mul(ops.exp(ops.neg(ops.square(x))), 2 / math.sqrt(math.pi))
    return (lambda: ops.mul(dy, factor),)


# ---------------------------------------------------------------------------- trigonometry
def _sin_grad(dy, saved, attrs):
    (x,) = saved
    return (lambda: ops.mul(ops.cos(_f32(x)), dy),)


def _cos_grad(dy, saved, attrs):
    (x,) = saved
    return (lambda: ops.mul(ops.neg(ops.sin(_f32(x))), dy),)


def _tan_grad(dy, saved, attrs):
    (x,) = saved
    return (lambda: ops.div(dy, ops.square(ops.cos(x))),)


def _asin_grad(dy, saved, attrs):
    (x,) = saved
    return (lambda: ops.div(dy, ops.sqrt(ops.sub(ops.scalar(1), ops.square(_f32(x))))),)


def _acos_grad(dy, saved, attrs):
    (x,) = saved

    def der_x():
        a = ops.square(_f32(x))
        b = ops.sqrt(ops.sub(ops.scalar(1), a))
        return ops.neg(ops.div(dy, b))

    return (der_x,)


def _atan_grad(dy, saved, attrs):
    (x,) = saved
    return (lambda: ops.div(dy, ops.add(ops.square(_f32(x)), 1)),)


def _atan2_grad(dy, saved, attrs):
    a, b = saved
    out = assert_and_get_broadcast_shape(a._shape, b._shape)

    def der_a():
        d = ops.add(ops.square(a), ops.square(b))
        return sum_to_shape(ops.mul(dy, ops.div(b, d)), a._shape, out, True)

    def der_b():
        d = ops.add(ops.square(a), ops.square(b))
        return sum_to_shape(ops.neg(ops.mul(dy, ops.div(a, d))), b._shape, out, True)

    return (der_a, der_b)


def _sinh_grad(dy, saved, attrs):
    (x,) = saved
    return (lambda: ops.mul(ops.cosh(_f32(x)), dy),)


def _cosh_grad(dy, saved, attrs):
    (x,) = saved
    return (lambda: ops.mul(ops.sinh(_f32(x)), dy),)


def _tanh_grad(dy, saved, attrs):
    (y,) = saved
    return (lambda: ops.mul(ops.sub(ops.scalar(1), ops.square(y)), dy),)


def _asinh_grad(dy, saved, attrs):
    (x,) = saved
    return (lambda: ops.div(dy, ops.sqrt(ops.add(ops.scalar(1), ops.square(_f32(x))))),)


def _acosh_grad(dy, saved, attrs):
    (x,) = saved
    return (lambda: ops.div(dy, ops.sqrt(ops.sub(ops.square(_f32(x)), 1))),)


def _atanh_grad(dy, saved, attrs):
    (x,) = saved
    return (lambda: ops.div(dy, ops.sub(ops.scalar(1), ops.square(_f32(x)))),)


# ---------------------------------------------------------------------------- clipping, activations
def _clip_by_value_grad(dy, saved, attrs):
    (x,) = saved
    lo, hi = attrs["clip_value_min"], attrs["clip_value_max"]
    return (
        lambda: ops.where(
            ops.logical_and(ops.greater_equal(x, lo), ops.less_equal(x, hi)),
            dy,
            ops.zeros_like(dy),
        ),
    )


def _relu_grad(dy, saved, attrs):
    (x,) = saved
    return (lambda: ops.mul(dy, _f32(ops.step(x))),)


def _relu6_grad(dy, saved, attrs):
    (x,) = saved
    mask = ops.mul(ops.less_equal(x, 6), ops.step(x))
    return (lambda: ops.mul(dy, _f32(mask)),)


def _leaky_relu_grad(dy, saved, attrs):
    (x,) = saved
    mask = ops.greater(x, 0)
    return (lambda: ops.where(mask, dy, ops.mul(dy, attrs["alpha"])),)


def _prelu_grad(dy, saved, attrs):
    """TF.js sums only alpha's gradient back to its shape; x's is summed here too, so an x
    smaller than alpha (where TF.js's tape reports a shape mismatch) is differentiable."""
    x, alpha = saved
    mask = ops.greater(x, 0)

    def der_x():
        return sum_to_shape(ops.where(mask, dy, ops.mul(dy, alpha)), x._shape, dy._shape)

    def der_alpha():
        res = ops.where(mask, ops.zeros_like(dy), ops.mul(dy, x))
        axes = get_reduction_axes(alpha._shape, dy._shape)
        if axes:
            res = ops.sum(res, axes)
        return ops.reshape(res, list(alpha._shape))

    return (der_x, der_alpha)


def _elu_grad(dy, saved, attrs):
    (y,) = saved

    return (lambda: elu_grad_op(dy, y),)


def _selu_grad(dy, saved, attrs):
    (x,) = saved

    def der_x():
        mask = ops.greater(x, ops.scalar(0))
        scale_alpha = ops.scalar(SELU_SCALEALPHA)
        scale = ops.scalar(SELU_SCALE)
        greater_than_zero_der = ops.mul(dy, scale)
        less_equal_zero_der = ops.mul(ops.mul(dy, scale_alpha), ops.exp(_f32(x)))
        return ops.where(mask, greater_than_zero_der, less_equal_zero_der)

    return (der_x,)


def _sigmoid_grad(dy, saved, attrs):
    (y,) = saved
    return (lambda: ops.mul(dy, ops.mul(y, ops.sub(ops.scalar(1), y))),)


def _softplus_grad(dy, saved, attrs):
    (x,) = saved
    return (lambda: ops.mul(dy, ops.sigmoid(x)),)


_X = (0,)

for _config in (
    GradConfig(k.ABS, _abs_grad, inputs_to_save=_X),
    GradConfig(k.COMPLEX_ABS, _abs_grad, inputs_to_save=_X),
    GradConfig(k.ACOS, _acos_grad, inputs_to_save=_X),
    GradConfig(k.ACOSH, _acosh_grad, inputs_to_save=_X),
    GradConfig(k.ASIN, _asin_grad, inputs_to_save=_X),
    GradConfig(k.ASINH, _asinh_grad, inputs_to_save=_X),
    GradConfig(k.ATAN, _atan_grad, inputs_to_save=_X),
    GradConfig(k.ATAN2, _atan2_grad, inputs_to_save=(0, 1)),
    GradConfig(k.ATANH, _atanh_grad, inputs_to_save=_X),
    GradConfig(k.CEIL, _zeros_grad),
    GradConfig(k.CLIP_BY_VALUE, _clip_by_value_grad, inputs_to_save=_X),
    GradConfig(k.COS, _cos_grad, inputs_to_save=_X),
    GradConfig(k.COSH, _cosh_grad, inputs_to_save=_X),
    GradConfig(k.ELU, _elu_grad, outputs_to_save=(True,)),
    GradConfig(k.ERF, _erf_grad, inputs_to_save=_X),
    GradConfig(k.EXP, _exp_grad, outputs_to_save=(True,)),
    GradConfig(k.EXPM1, _expm1_grad, inputs_to_save=_X),
    GradConfig(k.FLOOR, _zeros_grad),
    GradConfig(k.IS_FINITE, _zeros_grad),
    GradConfig(k.IS_INF, _zeros_grad),
    GradConfig(k.IS_NAN, _zeros_grad),
    GradConfig(k.LEAKY_RELU, _leaky_relu_grad, inputs_to_save=_X),
    GradConfig(k.LOG, _log_grad, inputs_to_save=_X),
    GradConfig(k.LOG1P, _log1p_grad, inputs_to_save=_X),
    GradConfig(k.NEG, _neg_grad),
    GradConfig(k.PRELU, _prelu_grad, inputs_to_save=(0, 1)),
    GradConfig(k.RECIPROCAL, _reciprocal_grad, inputs_to_save=_X),
    GradConfig(k.RELU, _relu_grad, inputs_to_save=_X),
    GradConfig(k.RELU6, _relu6_grad, inputs_to_save=_X),
    GradConfig(k.ROUND, _zeros_grad),
    GradConfig(k.RSQRT, _rsqrt_grad, inputs_to_save=_X),
    GradConfig(k.SELU, _selu_grad, inputs_to_save=_X),
    GradConfig(k.SIGMOID, _sigmoid_grad, outputs_to_save=(True,)),
    GradConfig(k.SIGN, _zeros_grad),
    GradConfig(k.SIN, _sin_grad, inputs_to_save=_X),
    GradConfig(k.SINH, _sinh_grad, inputs_to_save=_X),
    GradConfig(k.SOFTPLUS, _softplus_grad, inputs_to_save=_X),
    GradConfig(k.SQRT, _sqrt_grad, inputs_to_save=_X),
    GradConfig(k.SQUARE, _square_grad, inputs_to_save=_X),
    GradConfig(k.STEP, _zeros_grad),
    GradConfig(k.TAN, _tan_grad, inputs_to_save=_X),
    GradConfig(k.TANH, _tanh_grad, outputs_to_save=(True,)),
):
    register_gradient(_config)
