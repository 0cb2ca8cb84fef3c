"""Gradient of the fused ``softmaxCrossEntropyWithLogits`` kernel (``kernel_names/losses.py``):
one gradient kernel per input that needs one, TF.js's custom gradient."""

from __future__ import annotations

from ..kernel_names import losses as kl
from ..kernel_registry import GradConfig, register_gradient
from ._util import grad_kernel_per_input

register_gradient(
    GradConfig(
        kl.SOFTMAX_CROSS_ENTROPY,
        grad_kernel_per_input(kl.SOFTMAX_CROSS_ENTROPY_GRAD, ("labels", "logits")),
        save_all_inputs=True,
    )
)
