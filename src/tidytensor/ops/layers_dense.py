"""The fused Dense layer's op (family ``layers_dense``): kernel name in
``kernel_names/layers_dense.py``, kernel in ``backends/xp_kernels/layers_dense.py``, gradient
in ``gradients/layers_dense.py``.

An internal op, not exported as ``tf.*``: the Dense layer (``layers/backend.py``'s
``fused_dense``) calls it once it has checked that the fused kernel may run (float32 rank-2
operands, a 'linear' or 'relu' activation, ``Engine.may_fuse``). Its inputs are tensors
already, so it makes no temporaries and runs its kernel directly, without an op scope.
"""

from __future__ import annotations

from ..kernel_names import layers_dense as kd
from ..tensor import Tensor
from ._op import run_kernel

__all__ = ["dense"]


def dense(x: Tensor, kernel: Tensor, bias: Tensor | None, activation: str) -> Tensor:
    """``activation(x @ kernel + bias)`` as one ``TidyDense`` kernel (``bias`` may be None;
    ``activation`` is 'linear' or 'relu')."""
    if bias is None:
        return run_kernel(kd.DENSE, (x, kernel), {"activation": activation, "has_bias": False})
    return run_kernel(kd.DENSE, (x, kernel, bias), {"activation": activation, "has_bias": True})
