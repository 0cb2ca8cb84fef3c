"""Gradients of the arithmetic kernels (TF.js's Add_grad.ts, Sub_grad.ts, ...)."""

from __future__ import annotations

from .. import kernel_names as k
from ..kernel_registry import GradConfig, register_gradient
from ._util import reduce_to_shape


def _ops():
    from .. import ops

    return ops


def _add_grad(dy, saved, attrs):
    a, b = saved
    return (lambda: reduce_to_shape(dy, a._shape), lambda: reduce_to_shape(dy, b._shape))


def _sub_grad(dy, saved, attrs):
    a, b = saved
    ops = _ops()
    return (lambda: reduce_to_shape(dy, a._shape), lambda: reduce_to_shape(ops.neg(dy), b._shape))


def _mul_grad(dy, saved, attrs):
    a, b = saved
    ops = _ops()
    return (
        lambda: reduce_to_shape(ops.mul(dy, ops.cast(b, "float32")), a._shape),
        lambda: reduce_to_shape(ops.mul(dy, ops.cast(a, "float32")), b._shape),
    )


def _div_grad(dy, saved, attrs):
    a, b = saved
    ops = _ops()
    return (
        lambda: reduce_to_shape(ops.div(dy, ops.cast(b, "float32")), a._shape),
        lambda: reduce_to_shape(
            ops.neg(ops.div(ops.mul(dy, ops.cast(a, "float32")), ops.square(ops.cast(b, "float32")))),
            b._shape,
        ),
    )


for _config in (
    GradConfig(k.ADD, _add_grad, inputs_to_save=(0, 1)),
    GradConfig(k.SUB, _sub_grad, inputs_to_save=(0, 1)),
    GradConfig(k.MULTIPLY, _mul_grad, inputs_to_save=(0, 1)),
    GradConfig(k.REAL_DIV, _div_grad, inputs_to_save=(0, 1)),
):
    register_gradient(_config)
