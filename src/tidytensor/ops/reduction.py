"""Reduction (TF.js doc subheading 'Operations / Reduction').

Every reduction takes ``axis`` as None (all axes), an int or a list of ints (negatives count
from the end) and ``keep_dims``, in TF.js's order. Axes are checked here with TF.js's messages.
"""

from __future__ import annotations

from typing import Any

from .. import kernel_names as k
from ..dtypes import BOOL, COMPLEX64, INT32
from ..errors import DTypeError, InvalidArgumentError, ShapeError
from ..geometry.axes import keep_dims_shape
from ..naming import snake_case
from ..tensor import Tensor
from ._op import (
    MAX_DIM,
    _is_int,
    bool_arg,
    checked_shape,
    convert_to_tensor,
    js_str,
    keep_dims_arg,
    op,
    parse_axis,
    real_number,
    run_kernel,
)
from .arithmetic import add, sub
from .basic_math import exp, log
from .transformations import cast, reshape

__all__ = [
    "all",
    "any",
    "arg_max",
    "arg_min",
    "bincount",
    "dense_bincount",
    "log_sum_exp",
    "max",
    "mean",
    "min",
    "prod",
    "sum",
]


# ---------------------------------------------------------------------------- helpers
def expand_shape_to_keep_dim(shape: tuple[int, ...] | list[int], axes: list[int]) -> list[int]:
    """TF.js's ``expandShapeToKeepDim``: puts a 1 back at each reduced axis (``axes`` unique;
    for a reduction's parsed axes, which may repeat, use ``keep_dims_shape``)."""
    out: list[int] = []
    it = iter(shape)
    for dim in range(len(shape) + len(axes)):
        out.append(1 if dim in axes else next(it))
    return out


def _not_complex(x: Tensor, op_name: str) -> None:
    if x.dtype == COMPLEX64:
        raise DTypeError(
            f"{snake_case(op_name)} does not support complex64 tensors in the CPU backend."
        )


def _reduce(
    kernel: str, x: Tensor, axis: Any, keep_dims: bool, op_name: str, axis_attr: str = "axis"
) -> Tensor:
    keep = keep_dims_arg(keep_dims, op_name)
    axes = parse_axis(axis, x._shape, op_name)
    return run_kernel(kernel, (x,), {axis_attr: axes, "keep_dims": keep})


# ---------------------------------------------------------------------------- sums and means
@op
def sum(x: Any, axis: Any = None, keep_dims: bool = False) -> Tensor:  # noqa: A001 - TF.js name
    """Sums along ``axis`` (all axes by default). bool sums to int32.

    >>> tf.sum(tf.tensor2d([[1, 2], [3, 4]]), 1).array_sync()
    [3.0, 7.0]
    >>> tf.sum(tf.tensor([True, True, False])).dtype
    'int32'
    """
    x = convert_to_tensor(x, "x", "sum")
    if x.dtype == BOOL:
        x = cast(x, INT32)
    _not_complex(x, "sum")
    return _reduce(k.SUM, x, axis, keep_dims, "sum")


@op
def prod(x: Any, axis: Any = None, keep_dims: bool = False) -> Tensor:
    """Multiplies along ``axis`` (all axes by default). bool multiplies as int32.

    >>> tf.prod(tf.tensor1d([1, 2, 3, 4])).array_sync()
    24.0
    """
    x = convert_to_tensor(x, "x", "prod")
    if x.dtype == BOOL:
        x = cast(x, INT32)
    _not_complex(x, "prod")
    return _reduce(k.PROD, x, axis, keep_dims, "prod")


@op
def mean(x: Any, axis: Any = None, keep_dims: bool = False) -> Tensor:
    """Mean along ``axis``; always float32 (int32 and bool are averaged as floats).

    >>> tf.mean(tf.tensor2d([[1, 2], [3, 0], [0, 1]]), 1, True).array_sync()
    [[1.5], [1.5], [0.5]]
    """
    x = convert_to_tensor(x, "x", "mean")
    return _reduce(k.MEAN, x, axis, keep_dims, "mean")


@op
def log_sum_exp(x: Any, axis: Any = None, keep_dims: bool = False) -> Tensor:
    """``log(sum(exp(x)))`` along ``axis``, computed stably around the max.

    >>> round(tf.log_sum_exp(tf.tensor1d([1, 2, 3])).array_sync(), 4)
    3.4076
    """

    x = convert_to_tensor(x, "x", "logSumExp")
    keep_dims = keep_dims_arg(keep_dims, "logSumExp")
    axes = parse_axis(axis, x._shape, "logSumExp")
    x_max = max(x, axes, True)
    shifted_exp = exp(sub(x, x_max))
    summed = sum(shifted_exp, axes)
    log_summed = log(summed)
    res = add(reshape(x_max, log_summed.shape), log_summed)
    if keep_dims:
        return reshape(res, keep_dims_shape(x._shape, axes))
    return res


# ---------------------------------------------------------------------------- extremes
@op
def max(x: Any, axis: Any = None, keep_dims: bool = False) -> Tensor:  # noqa: A001 - TF.js name
    """Maximum along ``axis``; NaN wins, as in TF.js.

    >>> tf.max(tf.tensor2d([[1, 5], [4, 2]]), 0).array_sync()
    [4.0, 5.0]
    """
    x = convert_to_tensor(x, "x", "max")
    _not_complex(x, "max")
    return _reduce(k.MAX, x, axis, keep_dims, "max", "reduction_indices")


@op
def min(x: Any, axis: Any = None, keep_dims: bool = False) -> Tensor:  # noqa: A001 - TF.js name
    """Minimum along ``axis``; NaN wins, as in TF.js.

    >>> tf.min(tf.tensor1d([3, -1, 2])).array_sync()
    -1.0
    """
    x = convert_to_tensor(x, "x", "min")
    _not_complex(x, "min")
    return _reduce(k.MIN, x, axis, keep_dims, "min")


@op
def all(x: Any, axis: Any = None, keep_dims: bool = False) -> Tensor:  # noqa: A001 - TF.js name
    """Logical AND along ``axis`` of a bool tensor (an empty reduction gives false, as in TF.js).

    >>> tf.all(tf.tensor1d([True, False])).array_sync()
    0
    """
    x = convert_to_tensor(x, "x", "all", BOOL)
    return _reduce(k.ALL, x, axis, keep_dims, "all")


@op
def any(x: Any, axis: Any = None, keep_dims: bool = False) -> Tensor:  # noqa: A001 - TF.js name
    """Logical OR along ``axis`` of a bool tensor.

    >>> tf.any(tf.tensor2d([[True, False], [False, False]]), 1).array_sync()
    [1, 0]
    """
    x = convert_to_tensor(x, "x", "any", BOOL)
    return _reduce(k.ANY, x, axis, keep_dims, "any")


def _arg_axis(x: Tensor, axis: Any, op_name: str) -> int:
    """TF.js's ArgMax/ArgMin axis handling: the axes are moved to the end and only the first
    of them is reduced, which must then be the last dim, so exactly one axis is accepted."""
    rank = x.rank
    axes = parse_axis(0 if axis is None else axis, x._shape, op_name)
    if len(axes) == 1:
        return axes[0]
    got = "" if not axes else str(rank - len(axes))
    raise InvalidArgumentError(
        f"{snake_case(op_name)} supports only inner-most axes for now. Got axes {got} and rank-{rank} input."
    )


@op
def arg_max(x: Any, axis: int = 0) -> Tensor:
    """Index (int32) of the maximum along ``axis``; the first one on ties.

    >>> tf.arg_max(tf.tensor2d([[1, 2, 3], [4, 5, 1]]), 1).array_sync()
    [2, 1]
    """
    x = convert_to_tensor(x, "x", "argMax")
    _not_complex(x, "argMax")
    return run_kernel(k.ARG_MAX, (x,), {"axis": _arg_axis(x, axis, "argMax")})


@op
def arg_min(x: Any, axis: int = 0) -> Tensor:
    """Index (int32) of the minimum along ``axis``; the first one on ties.

    >>> tf.arg_min(tf.tensor1d([3, 1, 1])).array_sync()
    1
    """
    x = convert_to_tensor(x, "x", "argMin")
    _not_complex(x, "argMin")
    return run_kernel(k.ARG_MIN, (x,), {"axis": _arg_axis(x, axis, "argMin")})


# ---------------------------------------------------------------------------- bin counts
def _check_size(size: Any, op_name: str) -> int:
    if not _is_int(size):
        raise InvalidArgumentError(
            f"Error in {snake_case(op_name)}: size must be an integer, but got {js_str(size)}."
        )
    size = int(real_number(size))  # type: ignore[arg-type]
    if size < 0:
        raise InvalidArgumentError(f"size must be non-negative, but got {size}.")
    if size > MAX_DIM:
        raise InvalidArgumentError(
            f"Error in {snake_case(op_name)}: size must be at most {MAX_DIM} (TF.js's int32 sizes), but got "
            f"{size}."
        )
    return size


@op
def bincount(x: Any, weights: Any, size: int) -> Tensor:
    """Counts each value of the int32 ``x`` in ``size`` bins (values >= size are dropped);
    with non-empty ``weights``, sums the weights instead. The result has the weights' dtype.

    >>> tf.bincount(tf.tensor1d([1, 1, 3], 'int32'), tf.tensor1d([]), 4).array_sync()
    [0.0, 2.0, 0.0, 1.0]
    """
    x = convert_to_tensor(x, "x", "bincount")
    weights = convert_to_tensor(weights, "weights", "bincount")
    if x.dtype != INT32:
        raise DTypeError(f"Error in bincount: input dtype must be int32, but got {x.dtype}")
    size = _check_size(size, "bincount")
    if weights.size != x.size and weights.size != 0:
        raise ShapeError(
            "Error in bincount: weights must have the same size as input or0-length, but got "
            f"input shape: {js_str(x.shape)}, weights shape: {js_str(weights.shape)}."
        )
    return run_kernel(k.BINCOUNT, (x, weights), {"size": size})


@op
def dense_bincount(x: Any, weights: Any, size: int, binary_output: bool = False) -> Tensor:
    """``bincount`` for rank-1 ``x``, or per row for rank-2 ``x`` (shape ``[rows, size]``);
    ``binary_output`` marks presence with 1 instead of counting (rank 2 only, as in TF.js).

    >>> tf.dense_bincount(tf.tensor2d([[1, 1], [0, 2]], dtype='int32'), [], 3).array_sync()
    [[0.0, 2.0, 0.0], [1.0, 0.0, 1.0]]
    """
    x = convert_to_tensor(x, "x", "denseBincount")
    weights = convert_to_tensor(weights, "weights", "denseBincount")
    if x.dtype != INT32:
        raise DTypeError(f"Error in dense_bincount: input dtype must be int32, but got {x.dtype}")
    if x.rank > 2:
        raise ShapeError(
            f"Error in dense_bincount: input must be at most rank 2, but got rank {x.rank}."
        )
    size = _check_size(size, "denseBincount")
    if weights.size != x.size and weights.size != 0:
        raise ShapeError(
            "Error in dense_bincount: weights must have the same shape as x or 0-length, but got "
            f"x shape: {js_str(x.shape)}, weights shape: {js_str(weights.shape)}."
        )
    if x.rank == 0:
        raise ShapeError("Error in dense_bincount: input must be at most rank 2, but got rank 0.")
    if x.rank == 2 and weights.size != 0 and weights._shape != x._shape:
        raise ShapeError(
            "Error in dense_bincount: weights must have the same shape as x or 0-length, but got "
            f"x shape: {js_str(x.shape)}, weights shape: {js_str(weights.shape)}."
        )
    binary = bool_arg(binary_output, "denseBincount", "binaryOutput")
    checked_shape([*x._shape[:-1], size], "denseBincount")
    return run_kernel(k.DENSE_BINCOUNT, (x, weights), {"size": size, "binary_output": binary})
