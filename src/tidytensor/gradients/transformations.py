"""Gradients of the transformation kernels."""

from __future__ import annotations

from .. import kernel_names as k
from ..kernel_registry import GradConfig, register_gradient


def _cast_grad(dy, saved, attrs):
    from ..ops.creation import clone

    return (lambda: clone(dy),)


def _reshape_grad(dy, saved, attrs):
    from ..ops.transformations import reshape

    (x,) = saved
    return (lambda: reshape(dy, list(x._shape)),)


for _config in (
    GradConfig(k.CAST, _cast_grad),
    GradConfig(k.RESHAPE, _reshape_grad, inputs_to_save=(0,)),
    GradConfig(k.EXPAND_DIMS, _reshape_grad, inputs_to_save=(0,)),
):
    register_gradient(_config)
