"""Matrices (TF.js doc subheading 'Operations / Matrices')."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import kernel_names as k
from ..backends.xp_kernels.matrices import decode_einsum_equation, einsum_returns_input
from ..dtypes import COMPLEX64, INT32
from ..errors import ArgumentTypeError, DTypeError, InvalidArgumentError, ShapeError
from ..geometry.axes import keep_dims_shape
from ..geometry.broadcast import assert_and_get_broadcast_shape
from ..tensor import Tensor
from ._op import (
    _is_int,
    bool_arg,
    convert_to_tensor,
    describe,
    js_str,
    keep_dims_arg,
    op,
    parse_axis,
    real_number,
    run_kernel,
)
from .arithmetic import pow as pow_
from .basic_math import abs as abs_
from .basic_math import neg, sqrt, square
from .creation import clone, imag, real, scalar
from .creation import complex as complex_
from .reduction import max as max_
from .reduction import min as min_
from .reduction import sum as sum_
from .transformations import make_types_match, reshape

__all__ = [
    "dot",
    "einsum",
    "euclidean_norm",
    "mat_mul",
    "norm",
    "outer_product",
    "transpose",
]


def _dim(shape: tuple[int, ...], i: int) -> int | None:
    """``shape[i]`` as JS reads it: a negative or too-large index is undefined (None)."""
    return shape[i] if 0 <= i < len(shape) else None


def _js_dim(d: int | None) -> str:
    return "None" if d is None else str(d)


@op
def mat_mul(a: Any, b: Any, transpose_a: bool = False, transpose_b: bool = False) -> Tensor:
    """Matrix product of the last two dims, batched over the leading dims (broadcast as in
    TF.js's BatchMatMul). ``transpose_a``/``transpose_b`` transpose the inner matrices.

    >>> tf.mat_mul(tf.tensor2d([[1, 2], [3, 4]]), tf.tensor2d([[1], [1]])).array_sync()
    [[3.0], [7.0]]
    """
    a = convert_to_tensor(a, "a", "matMul")
    b = convert_to_tensor(b, "b", "matMul")
    transpose_a = bool_arg(transpose_a, "matMul", "transposeA")
    transpose_b = bool_arg(transpose_b, "matMul", "transposeB")
    a, b = make_types_match(a, b)
    if a.dtype == COMPLEX64:
        raise DTypeError("mat_mul does not support complex64 tensors in the CPU backend.")
    a_shape, b_shape = a._shape, b._shape
    a_rank, b_rank = len(a_shape), len(b_shape)
    inner_a = _dim(a_shape, a_rank - 2 if transpose_a else a_rank - 1)
    inner_b = _dim(b_shape, b_rank - 1 if transpose_b else b_rank - 2)
    assert_and_get_broadcast_shape(a_shape[:-2], b_shape[:-2])
    if inner_a != inner_b:
        raise ShapeError(
            f"Error in mat_mul: inner shapes ({_js_dim(inner_a)}) and ({_js_dim(inner_b)}) of Tensors "
            f"with shapes [{js_str(a.shape)}] and [{js_str(b.shape)}] and "
            f"transpose_a={js_str(bool(transpose_a))} and transpose_b={js_str(bool(transpose_b))} must match."
        )
    if a_rank < 2 or b_rank < 2:
        raise ShapeError(
            f"Error in mat_mul: both inputs must have rank >= 2, but got shapes [{js_str(a.shape)}] "
            f"and [{js_str(b.shape)}]. Reshape vectors to matrices (or use tf.dot)."
        )
    return run_kernel(
        k.BATCH_MAT_MUL,
        (a, b),
        {"transpose_a": bool(transpose_a), "transpose_b": bool(transpose_b)},
    )


@op
def dot(t1: Any, t2: Any) -> Tensor:
    """Dot product of two vectors or matrices (rank 1 or 2 each).

    >>> tf.dot(tf.tensor1d([1, 2, 3]), tf.tensor1d([4, 5, 6])).array_sync()
    32.0
    """

    t1 = convert_to_tensor(t1, "t1", "dot")
    t2 = convert_to_tensor(t2, "t2", "dot")
    if t1.rank not in (1, 2) or t2.rank not in (1, 2):
        raise ShapeError(
            f"Error in dot: inputs must all be rank 1 or 2, but got ranks {t1.rank} and {t2.rank}."
        )
    t1_inner = t1.size if t1.rank == 1 else t1._shape[1]
    t2_inner = t2.size if t2.rank == 1 else t2._shape[0]
    if t1_inner != t2_inner:
        raise ShapeError(
            f"Error in dot: inner dimensions of inputs must match, but got {t1_inner} and {t2_inner}."
        )
    if t1.rank == 1 and t2.rank == 1:
        product = mat_mul(reshape(t1, [1, -1]), reshape(t2, [-1, 1]))
        return reshape(product, [])
    if t1.rank == 1:
        product = mat_mul(reshape(t1, [1, -1]), reshape(t2, list(t2._shape)))
        return reshape(product, [product.size])
    if t2.rank == 1:
        product = mat_mul(t1, reshape(t2, [-1, 1]))
        return reshape(product, [product.size])
    return mat_mul(t1, reshape(t2, list(t2._shape)))


@op
def outer_product(v1: Any, v2: Any) -> Tensor:
    """Outer product of two vectors: shape ``[len(v1), len(v2)]``.

    >>> tf.outer_product(tf.tensor1d([1, 2]), tf.tensor1d([3, 4])).array_sync()
    [[3.0, 4.0], [6.0, 8.0]]
    """

    v1 = convert_to_tensor(v1, "v1", "outerProduct")
    v2 = convert_to_tensor(v2, "v2", "outerProduct")
    if v1.rank != 1 or v2.rank != 1:
        raise ShapeError(
            f"Error in outer_product: inputs must be rank 1, but got ranks {v1.rank} and {v2.rank}."
        )
    return mat_mul(reshape(v1, [-1, 1]), reshape(v2, [1, -1]))


@op
def transpose(x: Any, perm: Any = None, conjugate: bool = False) -> Tensor:
    """Permutes the dims (reverses them by default). Rank 0 and 1 give a clone.

    >>> tf.transpose(tf.tensor2d([[1, 2, 3], [4, 5, 6]])).shape
    [3, 2]
    """
    x = convert_to_tensor(x, "x", "transpose")
    rank = x.rank
    if perm is not None and not isinstance(perm, (list, tuple, np.ndarray)):
        raise ArgumentTypeError(
            f"Argument 'perm' passed to 'transpose' must be an array of integers, but got "
            f"{describe(perm)}"
        )
    perm = list(range(rank))[::-1] if perm is None else list(perm)
    if len(perm) != rank:
        raise ShapeError(
            f"Error in transpose: rank of input {rank} must match length of perm {js_str(perm)}."
        )
    for axis in perm:
        if not isinstance(axis, int) or isinstance(axis, bool):
            try:
                ok = float(axis).is_integer()
            except (TypeError, ValueError):
                ok = False
            if not ok:
                raise ArgumentTypeError(
                    f"Error in transpose: perm must hold integers, but got {js_str(perm)}"
                )
        if not 0 <= axis < rank:
            raise InvalidArgumentError(
                f"All entries in 'perm' must be between 0 and {rank - 1} but got {js_str(perm)}"
            )
    perm = [int(p) for p in perm]
    if rank <= 1:
        return clone(x)
    if x.dtype == COMPLEX64:
        re = run_kernel(k.TRANSPOSE, (real(x),), {"perm": perm})
        im = run_kernel(k.TRANSPOSE, (imag(x),), {"perm": perm})
        if conjugate:
            im = neg(im)
        return complex_(re, im)
    return run_kernel(k.TRANSPOSE, (x,), {"perm": perm})


@op
def einsum(equation: str, *tensors: Any) -> Tensor:
    """Einstein summation over one or two tensors (TF.js's subset: exactly one ``->``, no
    ellipsis, no repeated label within an input).

    >>> tf.einsum('ij,jk->ik', tf.tensor2d([[1, 2]]), tf.tensor2d([[3], [4]])).array_sync()
    [[11.0]]
    """
    if not isinstance(equation, str):
        raise ArgumentTypeError(
            f"Error in einsum: the equation must be a string, but got {type(equation).__name__}"
        )
    ts = tuple(convert_to_tensor(t, f"tensors{i}", "einsum") for i, t in enumerate(tensors))
    decode_einsum_equation(equation, len(ts))
    if einsum_returns_input(equation, [t._shape for t in ts]):
        return ts[0]  # TF.js's kernel hands back its input itself
    return run_kernel(k.EINSUM, ts, {"equation": equation})


# ---------------------------------------------------------------------------- norms
def _is_ord(p: Any, value: Any) -> bool:
    """JS's ``p === value`` for a number ``value`` (strings never equal numbers)."""
    if isinstance(p, (str, bool)) or p is None:
        return False
    try:
        return float(p) == value
    except (TypeError, ValueError):
        return False


def _norm_impl(x: Tensor, p: Any, axis: Any) -> Tensor:
    if x.rank == 0:
        return abs_(x)
    if x.rank != 1 and axis is None:
        return _norm_impl(reshape(x, [-1]), p, axis)
    is_list = isinstance(axis, (list, tuple))
    if x.rank == 1 or (axis is not None and not is_list) or (is_list and len(axis) == 1):
        if _is_ord(p, 1):
            return sum_(abs_(x), axis)
        if _is_ord(p, math.inf):
            return max_(abs_(x), axis)
        if _is_ord(p, -math.inf):
            return min_(abs_(x), axis)
        if p == "euclidean" or _is_ord(p, 2):
            return sqrt(sum_(pow_(abs_(x), scalar(2, INT32)), axis))
        raise InvalidArgumentError(f"Error in norm: invalid ord value: {js_str(p)}")
    if is_list and len(axis) == 2:
        if _is_ord(p, 1):
            return max_(sum_(abs_(x), axis[0]), axis[1] - 1)
        if _is_ord(p, math.inf):
            return max_(sum_(abs_(x), axis[1]), axis[0])
        if _is_ord(p, -math.inf):
            return min_(sum_(abs_(x), axis[1]), axis[0])
        if p in ("fro", "euclidean"):
            return sqrt(sum_(square(x), axis))
        raise InvalidArgumentError(f"Error in norm: invalid ord value: {js_str(p)}")
    raise InvalidArgumentError(f"Error in norm: invalid axis: {js_str(axis)}")


@op
def norm(x: Any, ord: Any = "euclidean", axis: Any = None, keep_dims: bool = False) -> Tensor:  # noqa: A002
    """Vector or matrix norm. ``ord``: 'euclidean' (default), 'fro', 1, 2, ``math.inf``,
    ``-math.inf``; ``axis``: None (all values as one vector), an int (vector norms) or two
    ints (matrix norms).

    >>> tf.norm(tf.tensor1d([3, 4])).array_sync()
    5.0
    >>> tf.norm(tf.tensor2d([[1, -2], [3, 4]]), 1, [0, 1]).array_sync()
    6.0
    """

    x = convert_to_tensor(x, "x", "norm")
    keep_dims = keep_dims_arg(keep_dims, "norm")
    if ord is not None and not isinstance(ord, str) and real_number(ord) is None:
        raise InvalidArgumentError(f"Error in norm: invalid ord value: {describe(ord)}")
    axes = axis if isinstance(axis, (list, tuple)) else [axis]
    if axis is not None and not all(_is_int(a) for a in axes):
        raise InvalidArgumentError(
            f"All values in axis param must be integers but got axis {js_str(axis)} (op 'norm')"
        )
    result = _norm_impl(x, ord, axis)
    shape = list(result._shape)
    if keep_dims:
        shape = keep_dims_shape(x._shape, parse_axis(axis, x._shape, "norm"))
    return reshape(result, shape)


@op
def euclidean_norm(x: Any, axis: Any = None, keep_dims: bool = False) -> Tensor:
    """The Euclidean norm: ``norm(x, 'euclidean', axis, keep_dims)``.

    >>> tf.euclidean_norm(tf.tensor1d([3, 4])).array_sync()
    5.0
    """
    return norm(x, "euclidean", axis, keep_dims)
