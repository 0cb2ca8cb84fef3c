"""Gradients of the pooling kernels (TF.js's AvgPool_grad.ts, MaxPool_grad.ts, AvgPool3D_grad.ts,
MaxPool3D_grad.ts): each runs the matching backprop op of ops/pooling.py."""

from __future__ import annotations

from .. import kernel_names as k
from ..kernel_registry import GradConfig, register_gradient
from ..ops import pooling


def _pooling():

    return pooling


def _window(attrs) -> tuple:
    """The pool's ``filter_size, strides, pad`` attrs, as its backprop op takes them."""
    return attrs["filter_size"], attrs["strides"], attrs["pad"]


def _avg_pool_grad(dy, saved, attrs):
    (x,) = saved
    p = _pooling()
    return (lambda: p._avg_pool_grad(dy, x, *_window(attrs)),)


def _avg_pool3d_grad(dy, saved, attrs):
    (x,) = saved
    p = _pooling()
    mode = attrs.get("dim_rounding_mode")
    return (lambda: p._avg_pool3d_grad(dy, x, *_window(attrs), mode),)


def _max_pool_grad(dy, saved, attrs):
    x, y = saved
    p = _pooling()
    return (lambda: p._max_pool_grad(dy, x, y, *_window(attrs)),)


def _max_pool3d_grad(dy, saved, attrs):
    x, y = saved
    p = _pooling()
    mode = attrs.get("dim_rounding_mode")
    return (lambda: p._max_pool3d_grad(dy, x, y, *_window(attrs), mode),)


for _config in (
    GradConfig(k.AVG_POOL, _avg_pool_grad, inputs_to_save=(0,)),
    GradConfig(k.AVG_POOL3D, _avg_pool3d_grad, inputs_to_save=(0,)),
    GradConfig(k.MAX_POOL, _max_pool_grad, inputs_to_save=(0,), outputs_to_save=(True,)),
    GradConfig(k.MAX_POOL3D, _max_pool3d_grad, inputs_to_save=(0,), outputs_to_save=(True,)),
):
    register_gradient(_config)
