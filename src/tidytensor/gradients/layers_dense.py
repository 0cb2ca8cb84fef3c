"""Gradient of the fused Dense kernel (``kernel_names/layers_dense.py``): one gradient kernel per
input that needs one, replaying the unfused ops' backward pass. Saved: x, kernel, y."""

from __future__ import annotations

from ..kernel_names import layers_dense as kd
from ..kernel_registry import GradConfig, register_gradient
from ._util import grad_kernel_per_input

register_gradient(
    GradConfig(
        kd.DENSE,
        # A dense layer without a bias has two inputs: the tape never asks for the third.
        grad_kernel_per_input(kd.DENSE_GRAD, ("x", "kernel", "bias"), ("activation",)),
        inputs_to_save=(0, 1),
        outputs_to_save=(True,),
    )
)
