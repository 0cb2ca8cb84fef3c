"""Helpers shared by gradient functions."""

from __future__ import annotations

from ..engine import ENGINE
from ..geometry.broadcast import get_reduction_axes
from ..ops.reduction import sum as sum_
from ..ops.transformations import reshape
from ..tensor import Tensor


def reduce_to_shape(dx: Tensor, shape: tuple[int, ...]) -> Tensor:
    """Sums a broadcast gradient back to an input's shape. Always a new tensor (a reshape
    shares the buffer), never ``dx`` itself: the tape disposes partial gradients it adds up,
    and ``dx`` may be the caller's ``dy``."""

    axes = get_reduction_axes(shape, dx._shape) if dx._shape != shape else []
    return reshape(sum_(dx, axes) if axes else dx, list(shape))


def grad_kernel_per_input(
    grad_kernel: str, input_names: tuple[str, ...], forward_attrs: tuple[str, ...] = ()
):
    """The ``grad_func`` of a fused ``Tidy...`` kernel whose gradient is one kernel per input:
    ``grad_kernel(dy, *saved)`` with the forward's ``forward_attrs`` and ``wrt`` set to that
    input's name. Each input's thunk runs only if the tape needs its gradient."""

    def grad_func(dy, saved, attrs):

        inputs = (dy, *saved)
        kept = {name: attrs[name] for name in forward_attrs}

        def wrt(name: str):
            return lambda: ENGINE.run_kernel(grad_kernel, inputs, {**kept, "wrt": name})

        return tuple(wrt(name) for name in input_names)

    return grad_func
