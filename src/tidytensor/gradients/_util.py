"""Helpers shared by gradient functions."""

from __future__ import annotations

from ..broadcast_util import get_reduction_axes
from ..tensor import Tensor


def reduce_to_shape(dx: Tensor, shape: tuple[int, ...]) -> Tensor:
    """Sums a broadcast gradient back to an input's shape. Always a new tensor (a reshape
    shares the buffer), never ``dx`` itself: the tape disposes partial gradients it adds up,
    and ``dx`` may be the caller's ``dy``."""
    from ..ops.reduction import sum as sum_
    from ..ops.transformations import reshape

    axes = get_reduction_axes(shape, dx._shape) if dx._shape != shape else []
    return reshape(sum_(dx, axes) if axes else dx, list(shape))
