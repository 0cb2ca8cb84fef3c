"""Gradients of the normalization kernels (TF.js's FusedBatchNorm_grad.ts, LRN_grad.ts,
Softmax_grad.ts). ``log_softmax`` has a custom gradient in its op."""

from __future__ import annotations

from .. import kernel_names as k
from .. import ops
from ..geometry.broadcast import get_reduction_axes
from ..kernel_registry import GradConfig, register_gradient
from ..ops.normalization import lrn_backprop


def _fused_batch_norm_grad(dy, saved, attrs):
    # All inputs are saved (x, [scale], [offset], mean, variance: absent ones are left out).
    has_scale, has_offset = attrs.get("has_scale", False), attrs.get("has_offset", False)
    x = saved[0]
    scale = saved[1] if has_scale else None
    mean, variance = saved[-2], saved[-1]
    variance_epsilon = attrs["variance_epsilon"]
    scale_value = ops.scalar(1) if scale is None else scale
    reduction_axes = get_reduction_axes(mean._shape, x._shape)
    tile_shape = []
    if mean.rank == 1:
        tile_shape = [*x._shape[:-1], 1]

    x_minus_mean = ops.sub(x, mean)
    dy_times_scale_value = ops.mul(dy, scale_value)
    one_over_sqrt_variance = ops.rsqrt(ops.add(variance, ops.scalar(variance_epsilon)))
    minus_half_r_cube = ops.mul(
        ops.mul(ops.mul(one_over_sqrt_variance, one_over_sqrt_variance), one_over_sqrt_variance),
        ops.scalar(-0.5),
    )

    def reduce_to_mean(t):
        if mean.rank == 1:
            t = ops.sum(t, reduction_axes)
        return ops.reshape(t, list(mean._shape))

    def der_x():
        if mean.rank == 1:
            tiled = ops.tile(
                ops.reshape(one_over_sqrt_variance, [1, 1, 1, mean._shape[0]]), tile_shape
            )
            return ops.reshape(ops.mul(ops.mul(dy, tiled), scale_value), list(x._shape))
        return ops.reshape(
            ops.mul(ops.mul(dy, one_over_sqrt_variance), scale_value), list(x._shape)
        )

    def der_mean():
        return reduce_to_mean(
            ops.mul(ops.mul(one_over_sqrt_variance, ops.scalar(-1)), dy_times_scale_value)
        )

    def der_variance():
        return reduce_to_mean(
            ops.mul(ops.mul(minus_half_r_cube, x_minus_mean), dy_times_scale_value)
        )

    def der_scale():
        return reduce_to_mean(ops.mul(dy, ops.mul(x_minus_mean, one_over_sqrt_variance)))

    def der_offset():
        return reduce_to_mean(dy)

    thunks = [der_x]
    if has_scale:
        thunks.append(der_scale)
    if has_offset:
        thunks.append(der_offset)
    return (*thunks, der_mean, der_variance)


def _lrn_grad(dy, saved, attrs):
    x, y = saved

    return (
        lambda: lrn_backprop(
            x, y, dy, attrs["depth_radius"], attrs["bias"], attrs["alpha"], attrs["beta"]
        ),
    )


def _softmax_grad(dy, saved, attrs):
    (y,) = saved
    dim = attrs["dim"]
    dy_times_y = ops.mul(dy, y)
    return (lambda: ops.sub(dy_times_y, ops.mul(ops.sum(dy_times_y, [dim], True), y)),)


def _log_softmax_grad(dy, saved, attrs):
    """TF.js's LogSoftmax gradient, for a backend or custom op that runs the kernel
    (``log_softmax`` itself is a composite with a custom gradient, as in TF.js)."""
    (value,) = saved
    axis = attrs["axis"]
    return (lambda: ops.sub(dy, ops.mul(ops.sum(dy, axis, True), ops.exp(value))),)


for _config in (
    GradConfig(k.LOG_SOFTMAX, _log_softmax_grad, outputs_to_save=(True,)),
    GradConfig(k.FUSED_BATCH_NORM, _fused_batch_norm_grad, save_all_inputs=True),
    GradConfig(k.LRN, _lrn_grad, inputs_to_save=(0,), outputs_to_save=(True,)),
    GradConfig(k.SOFTMAX, _softmax_grad, outputs_to_save=(True,)),
):
    register_gradient(_config)
