"""Gradient of the fused Dense kernel (``kernel_names_dense.py``): one gradient kernel per
input that needs one, replaying the unfused ops' backward pass."""

from __future__ import annotations

from .. import kernel_names_dense as kd
from ..kernel_registry import GradConfig, register_gradient


def _dense_grad(dy, saved, attrs):
    from ..engine import ENGINE

    x, kernel, y = saved
    activation = attrs["activation"]

    def wrt(name: str):
        return lambda: ENGINE.run_kernel(
            kd.DENSE_GRAD, (dy, x, kernel, y), {"activation": activation, "wrt": name}
        )

    if attrs["has_bias"]:
        return (wrt("x"), wrt("kernel"), wrt("bias"))
    return (wrt("x"), wrt("kernel"))


register_gradient(GradConfig(kd.DENSE, _dense_grad, inputs_to_save=(0, 1), outputs_to_save=(True,)))
