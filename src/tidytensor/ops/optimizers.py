"""The fused optimizer updates' ops (family ``optimizers``): kernel names in
``kernel_names/optimizers.py``, kernels in ``backends/xp_kernels/optimizers.py``; no
gradients (an update is never differentiated).

Internal ops, not exported as ``tf.*``: an optimizer calls one per variable when
``Engine.may_fuse`` allows (float32 tensors of one shape). Their inputs are tensors already,
so they make no temporaries and run their kernel directly, without an op scope.
"""

from __future__ import annotations

from ..kernel_names import optimizers as ko
from ..tensor import Tensor
from ._op import run_kernel

__all__ = ["adam_update"]


def adam_update(
    value: Tensor,
    gradient: Tensor,
    m: Tensor,
    v: Tensor,
    acc_beta1: Tensor,
    acc_beta2: Tensor,
    *,
    beta1: float,
    beta2: float,
    epsilon: float,
    learning_rate: float,
) -> list[Tensor]:
    """One Adam step of one variable as one ``TidyAdamUpdate`` kernel: returns the new first
    moment, second moment and value (the caller assigns them)."""
    return run_kernel(
        ko.ADAM_UPDATE,
        (value, gradient, m, v, acc_beta1, acc_beta2),
        {"beta1": beta1, "beta2": beta2, "epsilon": epsilon, "learning_rate": learning_rate},
    )
