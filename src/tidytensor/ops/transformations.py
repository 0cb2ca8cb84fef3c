"""Transformations (TF.js doc subheading 'Tensors / Transformations')."""

from __future__ import annotations

from typing import Any

from .. import kernel_names as k
from ..dtypes import STRING, check_dtype
from ..errors import DTypeError, InvalidArgumentError, ShapeError
from ..tensor import Tensor
from ._op import convert_to_tensor, op, parse_axis_param, run_kernel

__all__ = ["cast", "expand_dims", "reshape", "squeeze"]


@op
def cast(x: Any, dtype: str) -> Tensor:
    """Casts to ``dtype``. Floats truncate toward zero to int32; to bool is ``!= 0``.
    Casting to the same dtype shares the buffer."""
    x = convert_to_tensor(x, "x", "cast", "string_or_numeric")
    check_dtype(dtype, "cast")
    if (dtype == STRING) != (x.dtype == STRING):
        raise DTypeError("Only strings can be casted to strings")
    return run_kernel(k.CAST, (x,), {"dtype": dtype})


def infer_from_implicit_shape(shape: Any, size: int) -> tuple[int, ...]:
    """Resolves one ``-1`` in ``shape`` (TF.js's ``inferFromImplicitShape``)."""
    shape = [int(d) for d in ([shape] if isinstance(shape, int) else shape)]
    implicit = -1
    prod = 1
    for i, d in enumerate(shape):
        if d >= 0:
            prod *= d
        elif d == -1:
            if implicit != -1:
                raise ShapeError(f"Shapes can only have 1 implicit size. Found -1 at dim {implicit} and dim {i}")
            implicit = i
        else:
            raise ShapeError(f"Shapes can not be < 0. Found {d} at dim {i}")
    if implicit == -1:
        if prod != size:
            raise ShapeError(f"Size({size}) must match the product of shape {','.join(map(str, shape))}")
        return tuple(shape)
    if prod == 0:
        raise ShapeError(f"Cannot infer the missing size in [{','.join(map(str, shape))}] when there are 0 elements")
    if size % prod != 0:
        raise ShapeError(f"The implicit shape can't be a fractional number. Got {size} / {prod}")
    shape[implicit] = size // prod
    return tuple(shape)


@op
def reshape(x: Any, shape: Any) -> Tensor:
    """Views the values with a new shape (one ``-1`` is inferred); shares the buffer."""
    x = convert_to_tensor(x, "x", "reshape", "string_or_numeric")
    new_shape = infer_from_implicit_shape(shape, x.size)
    return run_kernel(k.RESHAPE, (x,), {"shape": new_shape})


@op
def expand_dims(x: Any, axis: int = 0) -> Tensor:
    """Inserts a dimension of size 1 at ``axis``; shares the buffer."""
    x = convert_to_tensor(x, "x", "expandDims", "string_or_numeric")
    rank = x.rank
    if not -(rank + 1) <= axis <= rank:
        raise InvalidArgumentError(f"Axis must be <= rank of the tensor (axis {axis}, rank {rank})")
    if axis < 0:
        axis += rank + 1
    return run_kernel(k.EXPAND_DIMS, (x,), {"dim": axis})


@op
def squeeze(x: Any, axis: Any = None) -> Tensor:
    """Removes dimensions of size 1 (all, or those in ``axis``); shares the buffer."""
    x = convert_to_tensor(x, "x", "squeeze", "string_or_numeric")
    shape = x._shape
    if axis is None:
        new_shape = tuple(d for d in shape if d != 1)
    else:
        axes = set(parse_axis_param(axis, shape, "squeeze"))
        for ax in axes:
            if shape[ax] != 1:
                raise InvalidArgumentError(f"Can't squeeze axis {ax} since its dim '{shape[ax]}' is not 1")
        new_shape = tuple(d for i, d in enumerate(shape) if i not in axes)
    return run_kernel(k.RESHAPE, (x,), {"shape": new_shape})
