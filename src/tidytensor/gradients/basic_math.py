"""Gradients of the basic math kernels (TF.js's Square_grad.ts, ...)."""

from __future__ import annotations

from .. import kernel_names as k
from ..kernel_registry import GradConfig, register_gradient


def _square_grad(dy, saved, attrs):
    from ..ops.arithmetic import mul
    from ..ops.transformations import cast

    (x,) = saved
    return (lambda: mul(dy, mul(cast(x, "float32"), 2)),)


for _config in (GradConfig(k.SQUARE, _square_grad, inputs_to_save=(0,)),):
    register_gradient(_config)
