"""Gradient of the fused ``softmaxCrossEntropyWithLogits`` kernel (``kernel_names_losses.py``):
one gradient kernel per input that needs one, TF.js's custom gradient."""

from __future__ import annotations

from .. import kernel_names_losses as kl
from ..kernel_registry import GradConfig, register_gradient


def _softmax_cross_entropy_grad(dy, saved, attrs):
    from ..engine import ENGINE

    labels, logits = saved

    def wrt(name: str):
        return lambda: ENGINE.run_kernel(
            kl.SOFTMAX_CROSS_ENTROPY_GRAD, (dy, labels, logits), {"wrt": name}
        )

    return (wrt("labels"), wrt("logits"))


register_gradient(
    GradConfig(kl.SOFTMAX_CROSS_ENTROPY, _softmax_cross_entropy_grad, save_all_inputs=True)
)
