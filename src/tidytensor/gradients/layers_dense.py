"""Gradient of the fused Dense kernel (``kernel_names/layers_dense.py``): one gradient kernel per
input that needs one, replaying the unfused ops' backward pass. Saved: x, kernel, y.

With a relu, Relu's gradient ``dy * step(y)`` is worked out once (``wrt='dy'``) and passed to
the inputs' gradient kernels as a linear layer's ``dy``: the same bits as each kernel working
it out again."""

from __future__ import annotations

from ..engine import ENGINE
from ..kernel_names import layers_dense as kd
from ..kernel_registry import GradConfig, register_gradient

INPUTS = ("x", "kernel", "bias")


def _dense_grad(dy, saved, attrs):
    activation = attrs["activation"]
    if activation != "linear":
        dy = ENGINE.run_kernel(kd.DENSE_GRAD, (dy, *saved), {"activation": activation, "wrt": "dy"})
    inputs = (dy, *saved)

    def wrt(name: str):
        return lambda: ENGINE.run_kernel(
            kd.DENSE_GRAD, inputs, {"activation": "linear", "wrt": name}
        )

    # A dense layer without a bias has two inputs: the tape never asks for the third.
    return tuple(wrt(name) for name in INPUTS)


register_gradient(GradConfig(kd.DENSE, _dense_grad, inputs_to_save=(0, 1), outputs_to_save=(True,)))
