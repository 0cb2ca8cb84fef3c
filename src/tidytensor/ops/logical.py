"""Logical (TF.js doc subheading 'Operations / Logical').

Comparisons upcast their inputs like arithmetic does and return bool; they also compare
string tensors. The logical ops take bool tensors only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import kernel_names as k
from ..dtypes import BOOL, COMPLEX64, INT32
from ..engine import ENGINE
from ..errors import DTypeError, ShapeError
from ..geometry.broadcast import assert_and_get_broadcast_shape
from ..tensor import Tensor
from ._op import convert_to_tensor, js_str, op, run_kernel
from .transformations import broadcast_to, make_types_match

__all__ = [
    "bitwise_and",
    "equal",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "not_equal",
    "where",
    "where_async",
]


def _compare(kernel: str, a: Any, b: Any, op_name: str) -> Tensor:
    a = convert_to_tensor(a, "a", op_name, "string_or_numeric")
    b = convert_to_tensor(b, "b", op_name, "string_or_numeric")
    a, b = make_types_match(a, b)
    if a._shape != b._shape:
        assert_and_get_broadcast_shape(a._shape, b._shape)
    return run_kernel(kernel, (a, b))


@op
def equal(a: Any, b: Any) -> Tensor:
    """Element-wise ``a == b`` (bool), with broadcasting.

    >>> tf.equal(tf.tensor1d([1, 2, 3]), 2).array_sync()
    [0, 1, 0]
    """
    return _compare(k.EQUAL, a, b, "equal")


@op
def not_equal(a: Any, b: Any) -> Tensor:
    """Element-wise ``a != b`` (bool), with broadcasting."""
    return _compare(k.NOT_EQUAL, a, b, "notEqual")


@op
def greater(a: Any, b: Any) -> Tensor:
    """Element-wise ``a > b`` (bool), with broadcasting.

    >>> tf.greater(tf.tensor1d([1, 2, 3]), tf.tensor1d([2, 2, 2])).array_sync()
    [0, 0, 1]
    """
    return _compare(k.GREATER, a, b, "greater")


@op
def greater_equal(a: Any, b: Any) -> Tensor:
    """Element-wise ``a >= b`` (bool), with broadcasting."""
    return _compare(k.GREATER_EQUAL, a, b, "greaterEqual")


@op
def less(a: Any, b: Any) -> Tensor:
    """Element-wise ``a < b`` (bool), with broadcasting."""
    return _compare(k.LESS, a, b, "less")


@op
def less_equal(a: Any, b: Any) -> Tensor:
    """Element-wise ``a <= b`` (bool), with broadcasting."""
    return _compare(k.LESS_EQUAL, a, b, "lessEqual")


def _logical(kernel: str, a: Any, b: Any, op_name: str) -> Tensor:
    a = convert_to_tensor(a, "a", op_name, BOOL)
    b = convert_to_tensor(b, "b", op_name, BOOL)
    assert_and_get_broadcast_shape(a._shape, b._shape)
    return run_kernel(kernel, (a, b))


@op
def logical_and(a: Any, b: Any) -> Tensor:
    """Element-wise AND of two bool tensors, with broadcasting.

    >>> tf.logical_and(tf.tensor1d([True, True]), tf.tensor1d([True, False])).array_sync()
    [1, 0]
    """
    return _logical(k.LOGICAL_AND, a, b, "logicalAnd")


@op
def logical_or(a: Any, b: Any) -> Tensor:
    """Element-wise OR of two bool tensors, with broadcasting."""
    return _logical(k.LOGICAL_OR, a, b, "logicalOr")


@op
def logical_not(x: Any) -> Tensor:
    """Element-wise NOT of a bool tensor.

    >>> tf.logical_not(tf.tensor1d([True, False])).array_sync()
    [0, 1]
    """
    x = convert_to_tensor(x, "x", "logicalNot", BOOL)
    return run_kernel(k.LOGICAL_NOT, (x,))


@op
def logical_xor(a: Any, b: Any) -> Tensor:
    """Element-wise XOR of two bool tensors, built as TF.js builds it:
    ``(a or b) and not (a and b)``.

    >>> tf.logical_xor(tf.tensor1d([True, True]), tf.tensor1d([True, False])).array_sync()
    [0, 1]
    """
    ta = convert_to_tensor(a, "a", "logicalXor", BOOL)
    tb = convert_to_tensor(b, "b", "logicalXor", BOOL)
    assert_and_get_broadcast_shape(ta._shape, tb._shape)
    return logical_and(logical_or(a, b), logical_not(logical_and(a, b)))


@op
def bitwise_and(x: Any, y: Any) -> Tensor:
    """Element-wise bitwise AND of two int32 tensors of one shape.

    >>> tf.bitwise_and(tf.tensor1d([12, 7], 'int32'), tf.tensor1d([10, 2], 'int32')).array_sync()
    [8, 2]
    """
    x = convert_to_tensor(x, "x", "bitwiseAnd")
    y = convert_to_tensor(y, "y", "bitwiseAnd")
    if x._shape != y._shape:
        raise ShapeError(
            f"BitwiseAnd: Tensors must have the same shape. x: {js_str(x.shape)}, y: {js_str(y.shape)}"
        )
    if x.dtype != INT32 or y.dtype != INT32:
        raise DTypeError(
            "BitwiseAnd: Only supports 'int32' values in tensor, found type of x: "
            f"{x.dtype} and type of y: {y.dtype}"
        )
    return run_kernel(k.BITWISE_AND, (x, y))


@op
def where(condition: Any, a: Any, b: Any) -> Tensor:
    """Picks from ``a`` where the bool ``condition`` is true, else from ``b``; all three
    broadcast together. The result has the upcast dtype of ``a`` and ``b``.

    >>> tf.where(tf.tensor1d([True, False]), tf.tensor1d([1, 2]), tf.tensor1d([3, 4])).array_sync()
    [1.0, 4.0]
    """

    a = convert_to_tensor(a, "a", "where")
    b = convert_to_tensor(b, "b", "where")
    condition = convert_to_tensor(condition, "condition", "where", BOOL)
    shape = assert_and_get_broadcast_shape(
        assert_and_get_broadcast_shape(condition._shape, a._shape), b._shape
    )
    if COMPLEX64 in (a.dtype, b.dtype):
        raise DTypeError("select does not support complex64 tensors in the CPU backend.")
    condition = broadcast_to(condition, list(shape))
    a = broadcast_to(a, list(shape))
    b = broadcast_to(b, list(shape))
    return run_kernel(k.SELECT, (condition, a, b))


def where_async(condition: Any) -> Tensor:
    """Coordinates (int32, shape ``[num_true, rank]``) of the true values of a bool tensor,
    in row-major order. TF.js's ``whereAsync``; a plain synchronous call here.

    >>> tf.where_async(tf.tensor2d([[True, False], [False, True]])).array_sync()
    [[0, 0], [1, 1]]
    """
    cond = convert_to_tensor(condition, "condition", "whereAsync", BOOL)
    values = ENGINE.read_sync(cond, "whereAsync")
    # Host-side, as TF.js's whereImpl: the number of results depends on the data.
    coords = np.argwhere(np.asarray(values).reshape(cond._shape)).astype(np.int32)
    if cond is not condition:
        cond.dispose()
    return ENGINE.make_tensor(coords, coords.shape, INT32)
