"""Scan (TF.js doc subheading 'Operations / Scan'): cumulative sums and products."""

from __future__ import annotations

from typing import Any

from .. import kernel_names as k
from ..dtypes import COMPLEX64
from ..errors import DTypeError, InvalidArgumentError
from ..naming import snake_case
from ..tensor import Tensor
from ._op import _is_int, bool_arg, convert_to_tensor, js_str, op, run_kernel

__all__ = ["cumprod", "cumsum"]


def _scan(kernel: str, x: Any, axis: Any, exclusive: bool, reverse: bool, op_name: str) -> Tensor:
    x = convert_to_tensor(x, "x", op_name)
    if x.dtype == COMPLEX64:
        raise DTypeError(
            f"{snake_case(op_name)} does not support complex64 tensors in the CPU backend."
        )
    rank = x.rank
    if rank > 0:
        # TF.js does not check the axis (a negative or too-large one gives a malformed
        # tensor); here negatives count from the end and anything else is an error.
        if not _is_int(axis) or not -rank <= int(axis) < rank:
            raise InvalidArgumentError(
                f"Error in {snake_case(op_name)}: axis must be an integer in [-{rank}, {rank}), but got "
                f"{js_str(axis)}"
            )
        axis = int(axis) % rank
    else:
        axis = 0  # a scalar gives the initial fill whatever the axis, as in TF.js
    attrs = {
        "axis": axis,
        "exclusive": bool_arg(exclusive, op_name, "exclusive"),
        "reverse": bool_arg(reverse, op_name, "reverse"),
    }
    return run_kernel(kernel, (x,), attrs)


@op
def cumsum(x: Any, axis: int = 0, exclusive: bool = False, reverse: bool = False) -> Tensor:
    """Cumulative sum along ``axis``. ``exclusive`` leaves each value out of its own sum;
    ``reverse`` sums from the end. bool and int32 sum to int32.

    >>> tf.cumsum(tf.tensor1d([1, 2, 3, 4])).array_sync()
    [1.0, 3.0, 6.0, 10.0]
    >>> tf.cumsum(tf.tensor1d([1, 2, 3, 4]), 0, True, True).array_sync()
    [9.0, 7.0, 4.0, 0.0]
    """
    return _scan(k.CUMSUM, x, axis, exclusive, reverse, "cumsum")


@op
def cumprod(x: Any, axis: int = 0, exclusive: bool = False, reverse: bool = False) -> Tensor:
    """Cumulative product along ``axis`` (``exclusive`` and ``reverse`` as in ``cumsum``).
    Not differentiable in TF.js.

    >>> tf.cumprod(tf.tensor1d([1, 2, 3, 4])).array_sync()
    [1.0, 2.0, 6.0, 24.0]
    """
    return _scan(k.CUMPROD, x, axis, exclusive, reverse, "cumprod")
