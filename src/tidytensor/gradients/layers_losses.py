"""Gradients of the fused Layers losses (``kernel_names/layers_losses.py``): one gradient kernel
per input that needs one, replaying the unfused ops' backward pass."""

from __future__ import annotations

from ..kernel_names import layers_losses as kl
from ..kernel_registry import GradConfig, register_gradient
from ._util import grad_kernel_per_input

for _forward, _grad in (
    (kl.CATEGORICAL_CROSSENTROPY, kl.CATEGORICAL_CROSSENTROPY_GRAD),
    (kl.BINARY_CROSSENTROPY, kl.BINARY_CROSSENTROPY_GRAD),
):
    register_gradient(
        GradConfig(
            _forward,
            grad_kernel_per_input(_grad, ("target", "output"), ("epsilon",)),
            save_all_inputs=True,
        )
    )
