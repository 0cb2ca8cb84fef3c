"""The fused Layers losses' ops (family ``layers_losses``): kernel names in
``kernel_names/layers_losses.py``, kernels in ``backends/xp_kernels/layers_losses.py``,
gradients in ``gradients/layers_losses.py``.

Internal ops, not exported as ``tf.*``: ``layers/losses.py`` calls them once
``ops.losses.fusable_pair`` has said the fused kernel may run (float32 tensors of one shape,
``Engine.may_fuse``). Their inputs are tensors already, so they make no temporaries and run
their kernel directly, without an op scope.
"""

from __future__ import annotations

from ..kernel_names import layers_losses as kl
from ..tensor import Tensor
from ._op import run_kernel

__all__ = ["binary_crossentropy", "categorical_crossentropy"]


def categorical_crossentropy(target: Tensor, output: Tensor, epsilon: float) -> Tensor:
    """The Layers ``categoricalCrossentropy`` of probabilities ``output`` (not logits), its
    clipping at ``[epsilon, 1 - epsilon]`` included, as one kernel."""
    return run_kernel(kl.CATEGORICAL_CROSSENTROPY, (target, output), {"epsilon": epsilon})


def binary_crossentropy(target: Tensor, output: Tensor, epsilon: float) -> Tensor:
    """The Layers ``binaryCrossentropy`` of probabilities ``output``, its clipping at
    ``[epsilon, 1 - epsilon]`` included, as one kernel."""
    return run_kernel(kl.BINARY_CROSSENTROPY, (target, output), {"epsilon": epsilon})
