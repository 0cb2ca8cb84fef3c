"""Arithmetic (TF.js doc subheading 'Operations / Arithmetic')."""

from __future__ import annotations

from typing import Any

from .. import kernel_names as k
from ..broadcast_util import assert_and_get_broadcast_shape
from ..dtypes import INT32
from ..errors import InvalidArgumentError, ShapeError
from ..tensor import Tensor
from ._op import convert_to_tensor, convert_to_tensor_array, make_types_match, op, run_kernel

__all__ = [
    "add",
    "add_n",
    "div",
    "div_no_nan",
    "floor_div",
    "maximum",
    "minimum",
    "mod",
    "mul",
    "pow",
    "squared_difference",
    "sub",
]


def _binary(kernel: str, a: Any, b: Any, op_name: str) -> Tensor:
    a = convert_to_tensor(a, "a", op_name)
    b = convert_to_tensor(b, "b", op_name)
    a, b = make_types_match(a, b)
    if a._shape != b._shape:
        assert_and_get_broadcast_shape(a._shape, b._shape)
    return run_kernel(kernel, (a, b))


@op
def add(a: Any, b: Any) -> Tensor:
    """Adds two tensors element-wise, A + B, with broadcasting.

    >>> tf.add(tf.tensor1d([1, 2]), 10).array_sync()
    [11.0, 12.0]
    """
    return _binary(k.ADD, a, b, "add")


@op
def sub(a: Any, b: Any) -> Tensor:
    """Subtracts two tensors element-wise, A - B, with broadcasting."""
    return _binary(k.SUB, a, b, "sub")


@op
def mul(a: Any, b: Any) -> Tensor:
    """Multiplies two tensors element-wise, A * B, with broadcasting."""
    return _binary(k.MULTIPLY, a, b, "mul")


@op
def div(a: Any, b: Any) -> Tensor:
    """Divides two tensors element-wise, A / B. int32 / int32 is floor division, as in TF.js.

    >>> tf.div(tf.tensor1d([-7, 7], 'int32'), tf.scalar(2, 'int32')).array_sync()
    [-4, 3]
    """
    a = convert_to_tensor(a, "a", "div")
    b = convert_to_tensor(b, "b", "div")
    a, b = make_types_match(a, b)
    if a.dtype == INT32 and b.dtype == INT32:
        return floor_div(a, b)
    if a._shape != b._shape:
        assert_and_get_broadcast_shape(a._shape, b._shape)
    return run_kernel(k.REAL_DIV, (a, b))


@op
def floor_div(a: Any, b: Any) -> Tensor:
    """Divides element-wise and rounds toward negative infinity."""
    return _binary(k.FLOOR_DIV, a, b, "floorDiv")


@op
def div_no_nan(a: Any, b: Any) -> Tensor:
    """Divides element-wise, giving 0 wherever the divisor is 0."""
    from .creation import zeros_like
    from .logical import equal, where

    a = convert_to_tensor(a, "a", "div")
    b = convert_to_tensor(b, "b", "div")
    a, b = make_types_match(a, b)
    quotient = div(a, b)
    zeros = zeros_like(quotient)
    b_is_zero = equal(b, zeros)
    return where(b_is_zero, zeros, quotient)


@op
def mod(a: Any, b: Any) -> Tensor:
    """Element-wise remainder with the sign of the divisor (Python's ``%``)."""
    return _binary(k.MOD, a, b, "mod")


@op
def maximum(a: Any, b: Any) -> Tensor:
    """Element-wise maximum, with broadcasting. bool inputs are compared as int32."""
    a = convert_to_tensor(a, "a", "maximum")
    b = convert_to_tensor(b, "b", "maximum")
    a, b = make_types_match(a, b)
    if a.dtype == "bool":
        from .transformations import cast

        a, b = cast(a, INT32), cast(b, INT32)
    if a._shape != b._shape:
        assert_and_get_broadcast_shape(a._shape, b._shape)
    return run_kernel(k.MAXIMUM, (a, b))


@op
def minimum(a: Any, b: Any) -> Tensor:
    """Element-wise minimum, with broadcasting. bool inputs are compared as int32."""
    a = convert_to_tensor(a, "a", "minimum")
    b = convert_to_tensor(b, "b", "minimum")
    a, b = make_types_match(a, b)
    if a.dtype == "bool":
        from .transformations import cast

        a, b = cast(a, INT32), cast(b, INT32)
    if a._shape != b._shape:
        assert_and_get_broadcast_shape(a._shape, b._shape)
    return run_kernel(k.MINIMUM, (a, b))


@op
def pow(base: Any, exp: Any) -> Tensor:  # noqa: A001 - TF.js name
    """Element-wise ``base ** exp``. int32 ** int32 stays int32."""
    return _binary(k.POW, base, exp, "pow")


@op
def squared_difference(a: Any, b: Any) -> Tensor:
    """Element-wise ``(a - b) ** 2``."""
    return _binary(k.SQUARED_DIFFERENCE, a, b, "squaredDifference")


@op
def add_n(tensors: Any) -> Tensor:
    """Adds a list of tensors of one shape and dtype element-wise."""
    if not isinstance(tensors, (list, tuple)) or len(tensors) < 1:
        raise InvalidArgumentError(
            f"Must pass at least one tensor to tf.addN(), but got {len(tensors) if isinstance(tensors, (list, tuple)) else tensors!r}"
        )
    ts = convert_to_tensor_array(tensors, "tensors", "addN", "string_or_numeric")
    first = ts[0]
    for t in ts:
        if t.dtype != first.dtype:
            raise InvalidArgumentError("All tensors passed to tf.addN() must have the same dtype")
        if t._shape != first._shape:
            raise ShapeError("All tensors passed to tf.addN() must have the same shape")
    return run_kernel(k.ADD_N, tuple(ts))
