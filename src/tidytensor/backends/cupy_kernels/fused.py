"""Fused kernels on the GPU: _FusedMatMul, FusedConv2D and FusedDepthwiseConv2D with the GPU
convolutions (``cupy_kernels/convolution.py``) and their epilogue in one launch.

The CPU epilogue is ``out + bias`` and then the activation, each a full pass over the output
with a temporary between them. On CuPy, for float32 outputs and biases and the activations
that are exact on both sides (linear, relu, relu6: additions and comparisons only, no
rounding that a compiler could contract), the bias add and the activation are one
``cupy.fuse`` kernel, cached per activation. Everything else (PReLU, leaky ReLU, ELU, sigmoid,
integer or float64 values, NumPy) takes the CPU epilogue, so results are the CPU kernels'.
"""

from __future__ import annotations

from typing import Any

from ..xp_kernels import fused as cpu
from .convolution import gpu_conv_forward, gpu_depthwise_forward


def _bias_linear(xp: Any) -> Any:
    def bias_linear(v, b):
        return v + b

    return bias_linear


def _bias_relu(xp: Any) -> Any:
    def bias_relu(v, b):
        return xp.maximum(v + b, 0)

    return bias_relu


def _bias_relu6(xp: Any) -> Any:
    def bias_relu6(v, b):
        return xp.minimum(xp.maximum(v + b, 0), 6)

    return bias_relu6


#: Activations whose bias epilogue is one fused kernel.
FUSABLE = {"linear": _bias_linear, "relu": _bias_relu, "relu6": _bias_relu6}
_CACHE: dict[tuple[int, str], Any] = {}


def fused_epilogue(xp: Any, activation: str) -> Any:
    """``xp.fuse`` of the bias add and ``activation`` (made once per module and activation)."""
    key = (id(xp), activation)
    fn = _CACHE.get(key)
    if fn is None:
        fn = _CACHE[key] = xp.fuse(FUSABLE[activation](xp))
    return fn


def gpu_bias_activation(out, bias, alpha, activation, leakyrelu_alpha, xp):
    """``cpu.bias_activation`` with the bias add and a simple activation fused."""
    activation = activation or "linear"
    if (
        bias is not None
        and activation in FUSABLE
        and hasattr(xp, "fuse")
        and out.dtype == xp.float32
        and bias.dtype == xp.float32
    ):
        return fused_epilogue(xp, activation)(out, bias)
    return cpu.bias_activation(out, bias, alpha, activation, leakyrelu_alpha, xp)


KERNELS = cpu.make_kernels(gpu_conv_forward, gpu_depthwise_forward, gpu_bias_activation)
