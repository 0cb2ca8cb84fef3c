"""Gradients of the fused Layers losses (``kernel_names_losses.py``): one gradient kernel
per input that needs one, replaying the unfused ops' backward pass."""

from __future__ import annotations

from .. import kernel_names_losses as kl
from ..kernel_registry import GradConfig, register_gradient


def _categorical_crossentropy_grad(dy, saved, attrs):
    from ..engine import ENGINE

    target, output = saved

    def wrt(name: str):
        return lambda: ENGINE.run_kernel(
            kl.CATEGORICAL_CROSSENTROPY_GRAD,
            (dy, target, output),
            {"epsilon": attrs["epsilon"], "wrt": name},
        )

    return (wrt("target"), wrt("output"))


register_gradient(
    GradConfig(kl.CATEGORICAL_CROSSENTROPY, _categorical_crossentropy_grad, save_all_inputs=True)
)
