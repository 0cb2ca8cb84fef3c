"""Ragged ops (TF.js's top-level ``raggedGather``, ``raggedRange``,
``raggedTensorToTensor``).

A ragged tensor is described by flat ``values`` and one row partition per ragged dimension
(``row_splits``: row ``i`` is ``values[splits[i]:splits[i + 1]]``). Ops that TF.js answers
with an object return a :class:`~tidytensor.ops.sparse.Record` read by attribute
(``result.rt_dense_values``).
"""

from __future__ import annotations

from typing import Any

from .. import kernel_names as k
from ..errors import ArgumentTypeError
from ..naming import snake_case
from ..tensor import Tensor
from ._op import convert_to_tensor, describe, op, run_kernel
from .sparse import Record

__all__ = ["ragged_gather", "ragged_range", "ragged_tensor_to_tensor"]


class RaggedGatherResult(Record):
    """``ragged_gather``'s result: ``output_nested_splits`` (a list of int32 tensors) and
    ``output_dense_values``."""

    __slots__ = ()


class RaggedRangeResult(Record):
    """``ragged_range``'s result: ``rt_nested_splits`` (int32) and ``rt_dense_values``."""

    __slots__ = ()


def _tensor_list(tensors: Any, op_name: str, what: str) -> list[Tensor]:
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise ArgumentTypeError(
            f"{snake_case(what)} passed to '{snake_case(op_name)}' must be a list of tensors, but got "
            f"{type(tensors).__name__}"
        )
    return [convert_to_tensor(t, f"tensors{i}", op_name, "int32") for i, t in enumerate(tensors)]


@op(name="raggedGather")
def ragged_gather(
    params_nested_splits: Any, params_dense_values: Any, indices: Any, output_ragged_rank: int
) -> RaggedGatherResult:
    """Gathers rows of a ragged tensor: ``params_nested_splits`` (a list of int32 row-splits,
    outermost first) and ``params_dense_values`` describe it, ``indices`` picks its rows.
    The result has ``output_nested_splits`` and ``output_dense_values``.

    >>> r = tf.ragged_gather([[0, 2, 2, 5]], [1, 2, 3, 4, 5], [2, 0], 1)
    >>> [s.array_sync() for s in r.output_nested_splits], r.output_dense_values.array_sync()
    ([[0, 3, 5]], [3.0, 4.0, 5.0, 1.0, 2.0])
    """
    name = "raggedGather"
    splits = _tensor_list(params_nested_splits, name, "paramsNestedSplits")
    dense = convert_to_tensor(params_dense_values, "paramsDenseValues", name)
    ind = convert_to_tensor(indices, "indices", name, "int32")
    out = run_kernel(
        k.RAGGED_GATHER, (*splits, dense, ind), {"output_ragged_rank": output_ragged_rank}
    )
    return RaggedGatherResult(output_nested_splits=list(out[:-1]), output_dense_values=out[-1])


@op(name="raggedRange")
def ragged_range(starts: Any, limits: Any, deltas: Any) -> RaggedRangeResult:
    """One range per row, ``range(starts[i], limits[i], deltas[i])`` (scalars broadcast),
    as a ragged tensor: ``rt_nested_splits`` and ``rt_dense_values``.

    >>> r = tf.ragged_range([2, 5, 8], [3, 5, 12], 1)
    >>> r.rt_nested_splits.array_sync(), r.rt_dense_values.array_sync()
    ([0, 1, 1, 5], [2.0, 8.0, 9.0, 10.0, 11.0])
    """
    name = "raggedRange"
    s = convert_to_tensor(starts, "starts", name)
    lim = convert_to_tensor(limits, "limits", name, s.dtype)
    d = convert_to_tensor(deltas, "deltas", name, s.dtype)
    out = run_kernel(k.RAGGED_RANGE, (s, lim, d))
    return RaggedRangeResult(rt_nested_splits=out[0], rt_dense_values=out[1])


@op(name="raggedTensorToTensor")
def ragged_tensor_to_tensor(
    shape: Any,
    values: Any,
    default_value: Any,
    row_partition_tensors: Any,
    row_partition_types: Any,
) -> Tensor:
    """A dense tensor from a ragged one, padded with ``default_value``.

    ``row_partition_types`` names each of ``row_partition_tensors``: ``'FIRST_DIM_SIZE'``
    (first only), ``'VALUE_ROWIDS'`` or ``'ROW_SPLITS'``. ``shape`` gives the output shape
    (``-1``: as wide as the widest row). As in TF.js, a default value with more than one
    element pads with zeros.

    >>> tf.ragged_tensor_to_tensor([4, 4], [1, 2, 3, 4, 5, 6, 7, 8, 9], 0,
    ...                            [[0, 3, 3, 7, 9]], ['ROW_SPLITS']).array_sync()
    [[1.0, 2.0, 3.0, 0.0], [0.0, 0.0, 0.0, 0.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 0.0, 0.0]]
    """
    name = "raggedTensorToTensor"
    shape_t = convert_to_tensor(shape, "shape", name, "int32")
    vals = convert_to_tensor(values, "values", name)
    default = convert_to_tensor(default_value, "defaultValue", name, vals.dtype)
    partitions = _tensor_list(row_partition_tensors, name, "rowPartitionTensors")
    if not isinstance(row_partition_types, (list, tuple)) or not all(
        isinstance(t, str) for t in row_partition_types
    ):
        raise ArgumentTypeError(
            f"Argument 'row_partition_types' passed to '{snake_case(name)}' must be a list of strings, but "
            f"got {describe(row_partition_types)}"
        )
    types = list(row_partition_types)
    return run_kernel(
        k.RAGGED_TENSOR_TO_TENSOR,
        (shape_t, vals, default, *partitions),
        {"row_partition_types": types},
    )
