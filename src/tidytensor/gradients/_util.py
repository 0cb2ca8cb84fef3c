"""Helpers shared by gradient functions."""

from __future__ import annotations

from typing import Any

from ..errors import GradientError
from ..geometry.broadcast import get_reduction_axes
from ..geometry.conv import js_format, tuple_values_are_one
from ..tensor import Tensor


def reduce_to_shape(dx: Tensor, shape: tuple[int, ...]) -> Tensor:
    """Sums a broadcast gradient back to an input's shape. Always a new tensor (a reshape
    shares the buffer), never ``dx`` itself: the tape disposes partial gradients it adds up,
    and ``dx`` may be the caller's ``dy``."""
    from ..ops.reduction import sum as sum_
    from ..ops.transformations import reshape

    axes = get_reduction_axes(shape, dx._shape) if dx._shape != shape else []
    return reshape(sum_(dx, axes) if axes else dx, list(shape))


def check_gradient_dilations(op_desc: str, dilations: Any, in_gradients: bool = True) -> None:
    """TF.js's convolution gradients refuse dilations above 1 (some messages add "in
    gradients")."""
    if not tuple_values_are_one(dilations):
        where = " in gradients" if in_gradients else ""
        raise GradientError(
            f"Error in gradient of {op_desc}: dilation rates greater than 1 are not yet supported"
            f"{where}. Got dilations '{js_format(dilations)}'"
        )


def grad_kernel_per_input(
    grad_kernel: str, input_names: tuple[str, ...], forward_attrs: tuple[str, ...] = ()
):
    """The ``grad_func`` of a fused ``Tidy...`` kernel whose gradient is one kernel per input:
    ``grad_kernel(dy, *saved)`` with the forward's ``forward_attrs`` and ``wrt`` set to that
    input's name. Each input's thunk runs only if the tape needs its gradient."""

    def grad_func(dy, saved, attrs):
        from ..engine import ENGINE

        inputs = (dy, *saved)
        kept = {name: attrs[name] for name in forward_attrs}

        def wrt(name: str):
            return lambda: ENGINE.run_kernel(grad_kernel, inputs, {**kept, "wrt": name})

        return tuple(wrt(name) for name in input_names)

    return grad_func
