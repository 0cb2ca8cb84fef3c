"""Fused ``tf.losses`` kernels (``kernel_names/losses.py``).

``softmaxCrossEntropyWithLogits`` (the per-example loss of ``tf.losses.softmaxCrossEntropy``)
calls the very kernels TF.js's ops run, in their order, so its results are their bits:
``lse = max + log(sum(exp(logits - max)))`` (Max with keepDims, Sub, Exp, Sum, Log, Add),
``logResult = logits - lse`` (Sub), then ``sum(neg(logResult * labels), -1)`` (Multiply, Neg,
Sum). Its gradient is TF.js's custom one, ``dy * (labels - exp(logResult))`` for the labels and
``dy * (exp(logResult) - labels)`` for the logits, with ``logResult`` worked out again.
"""

from __future__ import annotations

from ...kernel_names import losses as kl
from .arithmetic import add, multiply, sub
from .basic_math import exp, log, neg
from .reduction import max_, sum_

__all__ = ["KERNELS"]


def _log_result(logits, xp):
    last = logits.ndim - 1
    x_max = max_(logits, xp=xp, reduction_indices=[last], keep_dims=True)
    summed = sum_(exp(sub(logits, x_max, xp=xp), xp=xp), xp=xp, axis=[last])
    lse = add(x_max.reshape(summed.shape), log(summed, xp=xp), xp=xp)
    return sub(logits, lse.reshape(x_max.shape), xp=xp)


def softmax_cross_entropy(labels, logits, *, xp):
    cost = neg(multiply(_log_result(logits, xp), labels, xp=xp), xp=xp)
    return sum_(cost, xp=xp, axis=[logits.ndim - 1])


def softmax_cross_entropy_grad(dy, labels, logits, *, xp, wrt):
    softmax = exp(_log_result(logits, xp), xp=xp)
    dy = dy.reshape((*dy.shape, 1))
    if wrt == "labels":
        return multiply(dy, sub(labels, softmax, xp=xp), xp=xp)
    return multiply(dy, sub(softmax, labels, xp=xp), xp=xp)


KERNELS = {
    kl.SOFTMAX_CROSS_ENTROPY: softmax_cross_entropy,
    kl.SOFTMAX_CROSS_ENTROPY_GRAD: softmax_cross_entropy_grad,
}
