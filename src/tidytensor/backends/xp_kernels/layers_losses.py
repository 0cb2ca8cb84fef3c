"""Fused Layers losses (``kernel_names/layers_losses.py``).

Each kernel is the composition of the very kernels TF.js's ops would run, called in the
same order on the same arrays, so its results are the unfused ops' bits:

``categoricalCrossentropy(t, o)`` = ``neg(sum(t * log(clip(o / sum(o, -1, keepDims), eps,
1 - eps)), -1))``; its gradient replays the tape's backward pass over those ops (Neg, Sum,
Multiply, Log, ClipByValue, RealDiv and the keepDims Sum, accumulated as the tape adds).

``binaryCrossentropy(t, o)`` = ``mean(sigmoidCrossEntropyWithLogits(t, x), -1)`` with the
logits ``x = log(c / (1 - c))`` of ``c = clip(o, eps, 1 - eps)`` and
``sigmoidCrossEntropyWithLogits = (relu(x) - x t) + log1p(exp(-|x|))``.
"""

from __future__ import annotations

from ...kernel_names import layers_losses as kl
from .arithmetic import add, multiply, real_div, sub
from .basic_math import abs_, clip_by_value, exp, log, log1p, neg, relu, square, step
from .reduction import mean, sum_

__all__ = ["KERNELS"]


def _forward(output, epsilon, xp):
    """The forward intermediates the gradient for ``output`` needs: row sums, normalized,
    clipped (not the log: only the forward pass and the target's gradient take it)."""
    last = output.ndim - 1
    sums = sum_(output, xp=xp, axis=[last], keep_dims=True)
    normalized = real_div(output, sums, xp=xp)
    clipped = clip_by_value(normalized, xp=xp, clip_value_min=epsilon, clip_value_max=1 - epsilon)
    return sums, normalized, clipped


def categorical_crossentropy(target, output, *, xp, epsilon):
    logs = log(_forward(output, epsilon, xp)[2], xp=xp)
    return neg(sum_(multiply(target, logs, xp=xp), xp=xp, axis=[output.ndim - 1]), xp=xp)


def categorical_crossentropy_grad(dy, target, output, *, xp, epsilon, wrt):
    sums, normalized, clipped = _forward(output, epsilon, xp)
    # Sum's gradient: dy (negated by Neg's) broadcast back over the last axis.
    d_products = xp.broadcast_to(xp.expand_dims(neg(dy, xp=xp), -1), output.shape)
    if wrt == "target":  # Multiply's gradient for its first input: dy * log(clipped)
        return multiply(d_products, log(clipped, xp=xp), xp=xp)
    d_logs = multiply(d_products, target, xp=xp)
    d_clipped = real_div(d_logs, clipped, xp=xp)
    f32 = xp.float32
    inside = xp.logical_and(normalized >= f32(epsilon), normalized <= f32(1 - epsilon))
    d_normalized = xp.where(inside, d_clipped, f32(0))
    # RealDiv's gradients: d/d(output) = dy / sums; d/d(sums) = -sum(dy * output) / sums^2.
    d_output = real_div(d_normalized, sums, xp=xp)
    last = output.ndim - 1
    summed = sum_(multiply(d_normalized, output, xp=xp), xp=xp, axis=[last], keep_dims=True)
    d_sums = neg(real_div(summed, square(sums, xp=xp), xp=xp), xp=xp)
    # The keepDims Sum's gradient broadcasts d_sums back; the tape adds it to d_output.
    return d_output + d_sums


def _logits(output, epsilon, xp):
    """``c = clip(o, eps, 1 - eps)``, ``1 - c``, ``c / (1 - c)`` and the logits ``log`` of it."""
    clipped = clip_by_value(output, xp=xp, clip_value_min=epsilon, clip_value_max=1 - epsilon)
    complement = sub(xp.float32(1), clipped, xp=xp)
    odds = real_div(clipped, complement, xp=xp)
    return clipped, complement, odds, log(odds, xp=xp)


def binary_crossentropy(target, output, *, xp, epsilon):
    logits = _logits(output, epsilon, xp)[3]
    exps = exp(neg(abs_(logits, xp=xp), xp=xp), xp=xp)
    linear = sub(relu(logits, xp=xp), multiply(logits, target, xp=xp), xp=xp)
    return mean(add(linear, log1p(exps, xp=xp), xp=xp), xp=xp, axis=[output.ndim - 1])


def binary_crossentropy_grad(dy, target, output, *, xp, epsilon, wrt):
    clipped, complement, odds, logits = _logits(output, epsilon, xp)
    last = output.ndim - 1
    # Mean's gradient: dy spread over the last axis, divided by its length.
    spread = xp.broadcast_to(xp.expand_dims(dy, -1), output.shape)
    d_sum = real_div(spread, xp.float32(output.shape[last]), xp=xp)
    # Add passes d_sum to both terms; Sub negates it for the product x * t.
    d_product = neg(d_sum, xp=xp)
    if wrt == "target":  # Multiply's gradient for its second input: dy * x
        return multiply(d_product, logits, xp=xp)
    exps = exp(neg(abs_(logits, xp=xp), xp=xp), xp=xp)
    # log1p(e): dy / (e + 1); exp(-|x|): times its output; then Neg; Abs: times step(x, -1).
    d_exps = real_div(d_sum, add(exps, xp.float32(1), xp=xp), xp=xp)
    d_neg_abs = multiply(d_exps, exps, xp=xp)
    d_abs = neg(d_neg_abs, xp=xp)
    # The logits' gradient, summed in the tape's order: Multiply's, then Abs's, then Relu's.
    d_logits = multiply(d_product, target, xp=xp)
    d_logits = add(d_logits, multiply(d_abs, step(logits, xp=xp, alpha=-1), xp=xp), xp=xp)
    d_logits = add(d_logits, multiply(d_sum, step(logits, xp=xp, alpha=0), xp=xp), xp=xp)
    # log(odds), odds = c / (1 - c), 1 - c, clip.
    d_odds = real_div(d_logits, odds, xp=xp)
    d_clipped = real_div(d_odds, complement, xp=xp)
    d_complement = neg(
        real_div(multiply(d_odds, clipped, xp=xp), square(complement, xp=xp), xp=xp), xp=xp
    )
    d_clipped = add(d_clipped, neg(d_complement, xp=xp), xp=xp)
    f32 = xp.float32
    inside = xp.logical_and(output >= f32(epsilon), output <= f32(1 - epsilon))
    return xp.where(inside, d_clipped, f32(0))


KERNELS = {
    kl.CATEGORICAL_CROSSENTROPY: categorical_crossentropy,
    kl.CATEGORICAL_CROSSENTROPY_GRAD: categorical_crossentropy_grad,
    kl.BINARY_CROSSENTROPY: binary_crossentropy,
    kl.BINARY_CROSSENTROPY_GRAD: binary_crossentropy_grad,
}
