"""Kernel names of tidytensor's fused ``tf.losses`` kernel (no TF.js equivalent).

TF.js computes the per-example ``softmaxCrossEntropyWithLogits`` of
``tf.losses.softmaxCrossEntropy`` from a dozen small ops, and its gradient from more. When
nothing watches kernels one by one (no ``tf.profile``, no nested gradient call that would
differentiate the gradient itself), tidytensor runs the same arithmetic, in the same order
and precision, as one forward kernel and one gradient kernel: bit-identical results with far
less per-op work. Names carry a ``Tidy`` prefix so they never collide with TF.js's kernel
names in ``kernel_names/tfjs.py``. Family ``losses``: op ``ops/losses.py``, kernels
``backends/xp_kernels/losses.py``, gradient ``gradients/losses.py``.
"""

from __future__ import annotations

#: inputs: labels, logits (float32, same shape, rank >= 1) -> per-example loss (shape without
#: the last axis): TF.js's softmaxCrossEntropyWithLogits_ forward (logSumExp, then
#: -sum(labels * (logits - lse), -1))
SOFTMAX_CROSS_ENTROPY = "TidySoftmaxCrossEntropyWithLogits"
#: inputs: dy, labels, logits; attrs: wrt ("labels" or "logits") -> that input's gradient
#: (TF.js's custom gradient: dy * (labels - softmax) for the labels, its negation's
#: counterpart dy * (softmax - labels) for the logits)
SOFTMAX_CROSS_ENTROPY_GRAD = "TidySoftmaxCrossEntropyWithLogitsGrad"
