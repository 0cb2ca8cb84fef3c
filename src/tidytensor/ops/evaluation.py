"""Evaluation (TF.js doc subheading 'Operations / Evaluation'): top-k, unique, sorted search,
in-top-k, and ``confusion_matrix`` (TF.js's ``tf.math.confusionMatrix``).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from .. import kernel_names as kn
from ..backends.xp_kernels.evaluation import in_top_k_host
from ..dtypes import BOOL, COMPLEX64, INT32
from ..engine import ENGINE
from ..errors import ArgumentTypeError, DTypeError, InvalidArgumentError, ShapeError
from ..named_result import getitem_by_name_or_index
from ..naming import snake_case
from ..tensor import Tensor
from ._op import _is_int, bool_arg, convert_to_tensor, describe, js_str, op, parse_axis, run_kernel
from .creation import one_hot
from .matrices import mat_mul, transpose
from .transformations import cast, reshape

__all__ = [
    "in_top_k_async",
    "lower_bound",
    "search_sorted",
    "topk",
    "unique",
    "upper_bound",
]

_INT32_MAX = 2147483648


class _ValuesAndIndices(NamedTuple):
    values: Tensor
    indices: Tensor

    __getitem__ = getitem_by_name_or_index  # type: ignore[assignment]


class TopKResult(_ValuesAndIndices):
    """``topk``'s result: ``.values`` and ``.indices`` (also ``r['values']``, and it unpacks
    as ``values, indices``)."""

    __slots__ = ()


class UniqueResult(_ValuesAndIndices):
    """``unique``'s result: ``.values`` and ``.indices`` (also ``r['values']``, and it
    unpacks as ``values, indices``)."""

    __slots__ = ()


def _not_complex(x: Tensor, op_name: str) -> None:
    if x.dtype == COMPLEX64:
        raise DTypeError(
            f"{snake_case(op_name)} does not support complex64 tensors in the CPU backend."
        )


# ---------------------------------------------------------------------------- topk, unique
@op
def topk(x: Any, k: int = 1, sorted: bool = True) -> TopKResult:  # noqa: A002 - TF.js name
    """The ``k`` largest values along the last dim and their int32 indices (ties: the lower
    index first). ``sorted=False`` keeps TF.js's selection order.

    >>> r = tf.topk(tf.tensor1d([20, 10, 40, 30]), 2)
    >>> r.values.array_sync(), r.indices.array_sync()
    ([40.0, 30.0], [2, 3])
    """
    x = convert_to_tensor(x, "x", "topk")
    if x.rank == 0:
        raise ShapeError("topk() expects the input to be of rank 1 or higher")
    last_dim = x._shape[-1]
    if not _is_int(k):
        raise InvalidArgumentError(f"'k' passed to topk() must be an integer but got {js_str(k)}")
    k_ = int(k)
    if k_ < 0:
        raise InvalidArgumentError(f"'k' passed to topk() must be >= 0 but got {k_}")
    if k_ > last_dim:
        raise InvalidArgumentError(
            f"'k' passed to topk() must be <= the last dimension ({last_dim}) but got {k_}"
        )
    _not_complex(x, "topk")
    values, indices = run_kernel(
        kn.TOP_K, (x,), {"k": k_, "sorted": bool_arg(sorted, "topk", "sorted")}
    )
    return TopKResult(values, indices)


@op
def unique(x: Any, axis: int = 0) -> UniqueResult:
    """The distinct slices of ``x`` along ``axis`` in order of first appearance (``.values``),
    and for each slice the int32 index of its distinct value (``.indices``). NaN equals NaN
    and -0 equals 0, as in TF.js. Strings are accepted.

    >>> r = tf.unique(tf.tensor1d([1, 1, 2, 4, 4, 4, 7, 8, 8]))
    >>> r.values.array_sync(), r.indices.array_sync()
    ([1.0, 2.0, 4.0, 7.0, 8.0], [0, 0, 1, 2, 2, 2, 3, 4, 4])
    """
    x = convert_to_tensor(x, "x", "unique", "string_or_numeric")
    if x.rank == 0:
        raise ShapeError("The input tensor must be at least 1D")
    (axis_,) = parse_axis(axis, x._shape, "unique")[:1] or [0]
    _not_complex(x, "unique")
    values, indices = run_kernel(kn.UNIQUE, (x,), {"axis": axis_})
    return UniqueResult(values, indices)


# ---------------------------------------------------------------------------- sorted search
def _last_dim(t: Tensor, arg_name: str) -> int:
    if t.rank == 0:
        raise ShapeError(
            f"Error in search_sorted: '{arg_name}' must be at least 1-D (its last dim is searched), "
            "but got a scalar"
        )
    return t._shape[-1]


@op
def search_sorted(sorted_sequence: Any, values: Any, side: str = "left") -> Tensor:
    """For each value, the int32 index at which it would be inserted into the matching row
    of ``sorted_sequence`` (its last dim is searched) to keep it sorted: before equal values
    with ``side='left'``, after them otherwise. The result has shape ``[-1, values' last
    dim]``, as in TF.js (so a 1-D search gives shape ``[1, n]``).

    >>> tf.search_sorted(tf.tensor1d([1, 2, 2, 3]), tf.tensor1d([2, 0, 5]), 'right').array_sync()
    [[3, 0, 4]]
    """

    seq = convert_to_tensor(sorted_sequence, "sortedSequence", "searchSorted")
    vals = convert_to_tensor(values, "values", "searchSorted")
    seq2d = reshape(seq, [-1, _last_dim(seq, "sortedSequence")])
    vals2d = reshape(vals, [-1, _last_dim(vals, "values")])
    if seq2d._shape[0] != vals2d._shape[0]:
        raise ShapeError("Leading dimension of 'sortedSequence' and 'values' must match.")
    if vals2d.size >= _INT32_MAX:
        raise InvalidArgumentError(f"values tensor size must less than {_INT32_MAX}")
    if seq2d._shape[1] >= _INT32_MAX:
        raise InvalidArgumentError(
            f"trailing dim_size must less than {_INT32_MAX} for int32 output type, was "
            f"{seq2d._shape[1]}"
        )
    _not_complex(seq2d, "searchSorted")
    _not_complex(vals2d, "searchSorted")
    if not isinstance(side, str):  # TF.js takes any other string as 'right'
        raise ArgumentTypeError(
            f"Argument 'side' passed to 'search_sorted' must be 'left' or 'right', but got "
            f"{describe(side)}"
        )
    return run_kernel(kn.SEARCH_SORTED, (seq2d, vals2d), {"side": side})


def lower_bound(sorted_sequence: Any, values: Any) -> Tensor:
    """``search_sorted(sorted_sequence, values, 'left')``: the first index whose value is
    not less than each value.

    >>> tf.lower_bound(tf.tensor1d([1, 2, 2, 3]), tf.tensor1d([2])).array_sync()
    [[1]]
    """
    return search_sorted(sorted_sequence, values, "left")


def upper_bound(sorted_sequence: Any, values: Any) -> Tensor:
    """``search_sorted(sorted_sequence, values, 'right')``: the first index whose value is
    greater than each value.

    >>> tf.upper_bound(tf.tensor1d([1, 2, 2, 3]), tf.tensor1d([2])).array_sync()
    [[3]]
    """
    return search_sorted(sorted_sequence, values, "right")


# ---------------------------------------------------------------------------- inTopK
def in_top_k_async(predictions: Any, targets: Any, k: int = 1) -> Tensor:
    """Whether each target index is among the ``k`` largest predictions of its row (bool,
    the targets' shape). TF.js's ``inTopKAsync``; a plain synchronous call here.

    >>> preds = tf.tensor2d([[20, 10, 40, 30], [30, 50, -20, 10]])
    >>> tf.in_top_k_async(preds, tf.tensor1d([2, 0], 'int32'), 2).array_sync()
    [1, 1]
    """
    preds = convert_to_tensor(predictions, "predictions", "inTopK")
    try:
        targs = convert_to_tensor(targets, "targets", "inTopK")
    except BaseException:
        if preds is not predictions:  # no conversion left behind
            preds.dispose()
        raise
    try:
        if preds.rank <= 1:
            raise ShapeError(
                f"in_top_k() expects the predictions to be of rank 2 or higher, but got {preds.rank}"
            )
        if preds.rank - 1 != targs.rank:
            raise ShapeError(
                "predictions rank should be 1 larger than targets rank, but got predictions rank "
                f"{preds.rank} and targets rank {targs.rank}"
            )
        if preds._shape[:-1] != targs._shape:
            raise ShapeError(
                "predictions's shape should be align with the targets' shape, except the last "
                f"dimension. Shapes {js_str(list(preds._shape[:-1]))} and "
                f"{js_str(list(targs._shape))} must match"
            )
        last_dim = preds._shape[-1]
        if not (isinstance(k, (int, float)) and not isinstance(k, bool) and 0 < k <= last_dim):
            raise InvalidArgumentError(
                "'k' passed to in_top_k() must be > 0 && <= the predictions last dimension "
                f"({last_dim}), but got {js_str(k)}"
            )
        _not_complex(preds, "inTopK")
        # Host-side, as TF.js's inTopKAsync: it reads both tensors' data.
        pred_values = ENGINE.read_sync(preds, "inTopK").reshape(-1, last_dim)
        target_values = ENGINE.read_sync(targs, "inTopK").reshape(-1)
        hits = in_top_k_host(pred_values, target_values, math.ceil(k))
    finally:
        if preds is not predictions:
            preds.dispose()
        if targs is not targets:
            targs.dispose()
    return ENGINE.make_tensor(hits.reshape(targs._shape), targs._shape, BOOL)


# ---------------------------------------------------------------------------- tf.math
@op
def confusion_matrix(labels: Any, predictions: Any, num_classes: int | None = None) -> Tensor:
    """The int32 ``[num_classes, num_classes]`` matrix counting, at ``[i, j]``, the examples
    labelled ``i`` and predicted ``j`` (TF.js's ``tf.math.confusionMatrix``).

    >>> labels = tf.tensor1d([0, 1, 2, 1, 0], 'int32')
    >>> preds = tf.tensor1d([0, 2, 2, 1, 0], 'int32')
    >>> from tidytensor.ops.evaluation import confusion_matrix
    >>> confusion_matrix(labels, preds, 3).array_sync()
    [[2, 0, 0], [0, 1, 1], [0, 0, 1]]
    """

    lab = convert_to_tensor(labels, "labels", "confusionMatrix")
    pred = convert_to_tensor(predictions, "predictions", "confusionMatrix")
    positive_int = _is_int(num_classes) and num_classes > 0
    if num_classes is not None and not positive_int:
        raise InvalidArgumentError(
            f"If provided, num_classes must be a positive integer, but got {js_str(num_classes)}"
        )
    if lab.rank != 1:
        raise ShapeError(f"Expected the rank of labels to be 1, but got {lab.rank}")
    if pred.rank != 1:
        raise ShapeError(f"Expected the rank of predictions to be 1, but got {pred.rank}")
    if lab._shape[0] != pred._shape[0]:
        raise ShapeError(
            f"Mismatch in the number of examples: {lab._shape[0]} vs. {pred._shape[0]}. "
            "Labels and predictions should have the same number of elements."
        )
    if not positive_int:
        raise InvalidArgumentError(
            f"num_classes is required to be a positive integer, but got {js_str(num_classes)}"
        )
    one_hot_labels = one_hot(cast(lab, INT32), int(num_classes))
    one_hot_predictions = one_hot(cast(pred, INT32), int(num_classes))
    product = mat_mul(transpose(one_hot_labels), one_hot_predictions)
    return cast(product, INT32)
