"""Helpers shared by gradient functions."""

from __future__ import annotations

from ..broadcast_util import get_reduction_axes
from ..tensor import Tensor


def reduce_to_shape(dx: Tensor, shape: tuple[int, ...]) -> Tensor:
    """Sums a broadcast gradient back to an input's shape."""
    from ..ops.reduction import sum as sum_
    from ..ops.transformations import reshape

    if dx._shape == shape:
        return dx
    axes = get_reduction_axes(shape, dx._shape)
    out = sum_(dx, axes) if axes else dx
    return reshape(out, list(shape)) if out._shape != shape else out
