"""The fused optimizer updates' ops (family ``optimizers``): kernel names in
``kernel_names/optimizers.py``, kernels in ``backends/xp_kernels/optimizers.py``; no
gradients (an update is never differentiated).

Internal ops, not exported as ``tf.*``: Adam calls one for all its variables when
``Engine.may_fuse`` allows (float32 tensors of one shape). Their inputs are tensors already,
so they make no temporaries and run their kernel directly, without an op scope.
"""

from __future__ import annotations

from ..kernel_names import optimizers as ko
from ..tensor import Tensor
from ._op import run_kernel

__all__ = ["adam_update"]


def adam_update(
    values: list[Tensor],
    gradients: list[Tensor],
    first_moments: list[Tensor],
    second_moments: list[Tensor],
    acc_beta1: Tensor,
    acc_beta2: Tensor,
    *,
    beta1: float,
    beta2: float,
    epsilon: float,
    learning_rate: float,
) -> tuple[list[Tensor], list[Tensor], list[Tensor]]:
    """One Adam step of the given variables as one ``TidyAdamUpdate`` kernel (one flat update
    over all of them): returns their new first moments, second moments and values (the
    caller assigns them)."""
    count = len(values)
    outs = run_kernel(
        ko.ADAM_UPDATE,
        (*values, *gradients, *first_moments, *second_moments, acc_beta1, acc_beta2),
        {
            "beta1": beta1,
            "beta2": beta2,
            "epsilon": epsilon,
            "learning_rate": learning_rate,
            "count": count,
        },
    )
    return outs[:count], outs[count : 2 * count], outs[2 * count :]
