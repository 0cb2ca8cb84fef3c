"""Gradients of the fused Layers losses (``kernel_names_losses.py``): one gradient kernel
per input that needs one, replaying the unfused ops' backward pass."""

from __future__ import annotations

from .. import kernel_names_losses as kl
from ..kernel_registry import GradConfig, register_gradient


def _loss_grad(grad_kernel: str):
    def grad_func(dy, saved, attrs):
        from ..engine import ENGINE

        target, output = saved

        def wrt(name: str):
            return lambda: ENGINE.run_kernel(
                grad_kernel, (dy, target, output), {"epsilon": attrs["epsilon"], "wrt": name}
            )

        return (wrt("target"), wrt("output"))

    return grad_func


for _forward, _grad in (
    (kl.CATEGORICAL_CROSSENTROPY, kl.CATEGORICAL_CROSSENTROPY_GRAD),
    (kl.BINARY_CROSSENTROPY, kl.BINARY_CROSSENTROPY_GRAD),
):
    register_gradient(GradConfig(_forward, _loss_grad(_grad), save_all_inputs=True))
