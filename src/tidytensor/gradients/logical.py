"""Gradients of the logical kernels (TF.js's Select_grad.ts, GreaterEqual_grad.ts)."""

from __future__ import annotations

from .. import kernel_names as k
from ..kernel_registry import GradConfig, register_gradient
from ..ops.arithmetic import mul
from ..ops.creation import zeros_like
from ..ops.logical import logical_not
from ..ops.transformations import cast


def _select_grad(dy, saved, attrs):

    (condition,) = saved
    return (
        # TF.js gives the bool condition a zero gradient rather than none.
        lambda: cast(zeros_like(condition), "float32"),
        lambda: mul(dy, cast(condition, dy.dtype)),
        lambda: mul(dy, cast(logical_not(condition), dy.dtype)),
    )


def _greater_equal_grad(dy, saved, attrs):

    a, b = saved
    return (lambda: zeros_like(a), lambda: zeros_like(b))


for _config in (
    GradConfig(k.SELECT, _select_grad, inputs_to_save=(0,)),
    GradConfig(k.GREATER_EQUAL, _greater_equal_grad, inputs_to_save=(0, 1)),
):
    register_gradient(_config)
