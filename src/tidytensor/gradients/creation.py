"""Gradients of the creation kernels (TF.js's Identity_grad.ts, OneHot_grad.ts,
OnesLike_grad.ts, ZerosLike_grad.ts)."""

from __future__ import annotations

from .. import kernel_names as k
from ..kernel_registry import GradConfig, register_gradient
from ..ops.creation import zeros, zeros_like
from ..ops.transformations import cast


def _identity_grad(dy, saved, attrs):

    return (lambda: cast(dy, "float32"),)


def _one_hot_grad(dy, saved, attrs):

    (indices,) = saved
    return (lambda: zeros(indices._shape, "float32"),)


def _zeros_of_dy_grad(dy, saved, attrs):
    """OnesLike and ZerosLike: the output does not depend on the input's values."""

    return (lambda: zeros_like(dy),)


for _config in (
    GradConfig(k.IDENTITY, _identity_grad),
    GradConfig(k.ONE_HOT, _one_hot_grad, inputs_to_save=(0,)),
    GradConfig(k.ONES_LIKE, _zeros_of_dy_grad),
    GradConfig(k.ZEROS_LIKE, _zeros_of_dy_grad),
):
    register_gradient(_config)
