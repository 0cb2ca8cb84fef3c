"""Arithmetic (TF.js doc subheading 'Operations / Arithmetic').

Binary ops convert their arguments (Python numbers are float32, as JS numbers), cast both to
the upcast dtype (``make_types_match``) and broadcast NumPy-style. Result dtypes follow
TF.js's CPU backend: int32 math wraps, ``div`` of two int32 tensors is ``floor_div``,
``floor_div`` always returns int32, and bool math keeps dtype bool.
"""

from __future__ import annotations

from typing import Any

from .. import kernel_names as k
from ..dtypes import BOOL, INT32
from ..errors import ArgumentTypeError, DTypeError, InvalidArgumentError, ShapeError
from ..geometry.broadcast import assert_and_get_broadcast_shape
from ..tensor import Tensor
from ._op import convert_to_tensor, op, run_kernel
from .creation import zeros_like
from .logical import equal, where
from .transformations import cast, make_types_match

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


def _binary(
    kernel: str, a: Any, b: Any, op_name: str, a_name: str = "a", b_name: str = "b"
) -> Tensor:
    # Numeric tensors (the hot case) skip convert_to_tensor; run_kernel checks disposal.
    if not isinstance(a, Tensor) or a.dtype == "string":
        a = convert_to_tensor(a, a_name, op_name)
    if not isinstance(b, Tensor) or b.dtype == "string":
        b = convert_to_tensor(b, b_name, op_name)
    if a.dtype != b.dtype:
        a, b = make_types_match(a, b)
    if a._shape != b._shape:
        assert_and_get_broadcast_shape(a._shape, b._shape)
    return run_kernel(kernel, (a, b))


@op(fast_kernel=k.ADD)
def add(a: Any, b: Any) -> Tensor:
    """Adds two tensors element-wise, ``a + b``, with broadcasting.

    int32 addition wraps around; ``bool + bool`` stays bool (logical or).

    >>> tf.add(tf.tensor1d([1, 2]), 10).array_sync()
    [11.0, 12.0]
    >>> tf.add(tf.tensor([2147483647], None, 'int32'), tf.scalar(1, 'int32')).array_sync()
    [-2147483648]
    """
    return _binary(k.ADD, a, b, "add")


@op(fast_kernel=k.SUB)
def sub(a: Any, b: Any) -> Tensor:
    """Subtracts two tensors element-wise, ``a - b``, with broadcasting.

    >>> tf.sub(tf.tensor1d([10, 20]), tf.tensor1d([1, 2])).array_sync()
    [9.0, 18.0]
    """
    return _binary(k.SUB, a, b, "sub")


@op(fast_kernel=k.MULTIPLY)
def mul(a: Any, b: Any) -> Tensor:
    """Multiplies two tensors element-wise, ``a * b``, with broadcasting.

    >>> tf.mul(tf.tensor2d([[1, 2], [3, 4]]), tf.tensor1d([10, 100])).array_sync()
    [[10.0, 200.0], [30.0, 400.0]]
    """
    return _binary(k.MULTIPLY, a, b, "mul")


@op(fast_kernel=k.REAL_DIV)
def div(a: Any, b: Any) -> Tensor:
    """Divides two tensors element-wise, ``a / b``, with broadcasting.

    Two int32 tensors are floor-divided (``floor_div``), as in TF.js; ``x / 0`` is
    ``Infinity`` (or NaN for ``0 / 0``) for float32.

    >>> tf.div(tf.tensor([-7, 7], None, 'int32'), tf.scalar(2, 'int32')).array_sync()
    [-4, 3]
    >>> tf.div(tf.tensor1d([1, -1]), 0).array_sync()
    [inf, -inf]
    """
    a = convert_to_tensor(a, "a", "div")
    b = convert_to_tensor(b, "b", "div")
    if a.dtype != b.dtype:
        a, b = make_types_match(a, b)
    if a.dtype == INT32:
        return floor_div(a, b)
    if a._shape != b._shape:
        assert_and_get_broadcast_shape(a._shape, b._shape)
    return run_kernel(k.REAL_DIV, (a, b))


@op
def floor_div(a: Any, b: Any) -> Tensor:
    """Divides element-wise and rounds toward negative infinity.

    The result is int32 for every input dtype (TF.js's CPU kernel); ``x // 0`` gives 0.

    >>> tf.floor_div(tf.tensor1d([7, -7]), tf.scalar(2)).array_sync()
    [3, -4]
    """
    return _binary(k.FLOOR_DIV, a, b, "floorDiv")


@op
def div_no_nan(a: Any, b: Any) -> Tensor:
    """Divides element-wise, giving 0 wherever the divisor is 0.

    >>> tf.div_no_nan(tf.tensor1d([2, 3]), tf.tensor1d([4, 0])).array_sync()
    [0.5, 0.0]
    """

    a = convert_to_tensor(a, "a", "div")  # TF.js names the op 'div' here too
    b = convert_to_tensor(b, "b", "div")
    if a.dtype != b.dtype:
        a, b = make_types_match(a, b)
    quotient = div(a, b)
    zeros = zeros_like(quotient)
    b_is_zero = equal(b, zeros)
    return where(b_is_zero, zeros, quotient)


@op
def mod(a: Any, b: Any) -> Tensor:
    """Element-wise remainder with the sign of the divisor (Python's ``%``).

    >>> tf.mod(tf.tensor1d([5, -5, 5, -5]), tf.tensor1d([3, 3, -3, -3])).array_sync()
    [2.0, 1.0, -1.0, -2.0]
    """
    return _binary(k.MOD, a, b, "mod")


def _min_max(kernel: str, a: Any, b: Any, op_name: str) -> Tensor:
    a = convert_to_tensor(a, "a", op_name)
    b = convert_to_tensor(b, "b", op_name)
    if a.dtype != b.dtype:
        a, b = make_types_match(a, b)
    if a.dtype == BOOL:
        a, b = cast(a, INT32), cast(b, INT32)
    if a._shape != b._shape:
        assert_and_get_broadcast_shape(a._shape, b._shape)
    return run_kernel(kernel, (a, b))


@op
def maximum(a: Any, b: Any) -> Tensor:
    """Element-wise maximum, with broadcasting; NaN wins. bool inputs give int32.

    >>> tf.maximum(tf.tensor1d([1, 4]), tf.tensor1d([3, 2])).array_sync()
    [3.0, 4.0]
    """
    return _min_max(k.MAXIMUM, a, b, "maximum")


@op
def minimum(a: Any, b: Any) -> Tensor:
    """Element-wise minimum, with broadcasting; NaN wins. bool inputs give int32.

    >>> tf.minimum(tf.tensor1d([1, 4]), tf.tensor1d([3, 2])).array_sync()
    [1.0, 2.0]
    """
    return _min_max(k.MINIMUM, a, b, "minimum")


@op
def pow(base: Any, exp: Any) -> Tensor:  # noqa: A001 - TF.js's name
    """Element-wise ``base ** exp``, with broadcasting. int32 ** int32 stays int32 (and wraps).

    >>> tf.pow(tf.tensor([2, 3], None, 'int32'), tf.scalar(2, 'int32')).array_sync()
    [4, 9]
    """
    return _binary(k.POW, base, exp, "pow", "base", "exp")


@op
def squared_difference(a: Any, b: Any) -> Tensor:
    """Element-wise ``(a - b) ** 2``, with broadcasting.

    >>> tf.squared_difference(tf.tensor1d([1, 4]), tf.tensor1d([3, 2])).array_sync()
    [4.0, 4.0]
    """
    return _binary(k.SQUARED_DIFFERENCE, a, b, "squaredDifference")


@op
def add_n(tensors: Any) -> Tensor:
    """Adds a list of tensors of one shape and dtype element-wise (no broadcasting).

    >>> tf.add_n([tf.tensor1d([1, 2]), tf.tensor1d([3, 4]), tf.tensor1d([5, 6])]).array_sync()
    [9.0, 12.0]
    """
    if not isinstance(tensors, (list, tuple)):
        raise ArgumentTypeError(
            "The argument passed to tf.add_n() must be a list of tensors, but got "
            f"{type(tensors).__name__}"
        )
    if len(tensors) < 1:
        raise InvalidArgumentError(
            f"Must pass at least one tensor to tf.add_n(), but got {len(tensors)}"
        )
    ts = [convert_to_tensor(t, f"tensors{i}", "addN") for i, t in enumerate(tensors)]
    first = ts[0]
    for t in ts:
        if t.dtype != first.dtype:
            raise DTypeError(
                "All tensors passed to tf.add_n() must have the same dtype, but got "
                f"{', '.join(t.dtype for t in ts)}"
            )
    for t in ts:
        if t._shape != first._shape:
            raise ShapeError(
                "All tensors passed to tf.add_n() must have the same shape, but got "
                f"{', '.join(str(list(t._shape)) for t in ts)}"
            )
    return run_kernel(k.ADD_N, tuple(ts))
