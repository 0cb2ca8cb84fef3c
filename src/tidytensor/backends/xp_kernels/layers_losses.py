"""Fused Layers losses (``kernel_names_losses.py``).

Each kernel is the composition of the very kernels TF.js's ops would run, called in the
same order on the same arrays, so its results are the unfused ops' bits:

``categoricalCrossentropy(t, o)`` = ``neg(sum(t * log(clip(o / sum(o, -1, keepDims), eps,
1 - eps)), -1))``; its gradient replays the tape's backward pass over those ops (Neg, Sum,
Multiply, Log, ClipByValue, RealDiv and the keepDims Sum, accumulated as the tape adds).
"""

from __future__ import annotations

from ... import kernel_names_losses as kl
from .arithmetic import multiply, real_div
from .basic_math import clip_by_value, log, neg, square
from .reduction import sum_

__all__ = ["KERNELS"]


def _forward(target, output, epsilon, xp):
    """The forward intermediates: row sums, normalized, clipped, its log."""
    last = output.ndim - 1
    sums = sum_(output, xp=xp, axis=[last], keep_dims=True)
    normalized = real_div(output, sums, xp=xp)
    clipped = clip_by_value(normalized, xp=xp, clip_value_min=epsilon, clip_value_max=1 - epsilon)
    return sums, normalized, clipped, log(clipped, xp=xp)


def categorical_crossentropy(target, output, *, xp, epsilon):
    logs = _forward(target, output, epsilon, xp)[3]
    return neg(sum_(multiply(target, logs, xp=xp), xp=xp, axis=[output.ndim - 1]), xp=xp)


def categorical_crossentropy_grad(dy, target, output, *, xp, epsilon, wrt):
    sums, normalized, clipped, logs = _forward(target, output, epsilon, xp)
    # Sum's gradient: dy (negated by Neg's) broadcast back over the last axis.
    d_products = xp.broadcast_to(xp.expand_dims(neg(dy, xp=xp), -1), output.shape)
    if wrt == "target":  # Multiply's gradient for its first input: dy * log(clipped)
        return multiply(d_products, logs, xp=xp)
    d_logs = multiply(d_products, target, xp=xp)
    d_clipped = real_div(d_logs, clipped, xp=xp)
    f32 = xp.float32
    inside = xp.logical_and(normalized >= f32(epsilon), normalized <= f32(1 - epsilon))
    d_normalized = xp.where(inside, d_clipped, xp.zeros_like(d_clipped))
    # RealDiv's gradients: d/d(output) = dy / sums; d/d(sums) = -sum(dy * output) / sums^2.
    d_output = real_div(d_normalized, sums, xp=xp)
    last = output.ndim - 1
    summed = sum_(multiply(d_normalized, output, xp=xp), xp=xp, axis=[last], keep_dims=True)
    d_sums = neg(real_div(summed, square(sums, xp=xp), xp=xp), xp=xp)
    # The keepDims Sum's gradient broadcasts d_sums back; the tape adds it to d_output.
    return d_output + d_sums


KERNELS = {
    kl.CATEGORICAL_CROSSENTROPY: categorical_crossentropy,
    kl.CATEGORICAL_CROSSENTROPY_GRAD: categorical_crossentropy_grad,
}
