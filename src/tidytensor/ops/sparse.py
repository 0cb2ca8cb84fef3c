"""Sparse ops, the ``tf.sparse`` namespace (TF.js's ``ops/sparse/``).

Ops that TF.js answers with an object return a :class:`Record`: a dict (so ``tidy`` and
``tf.dispose`` find its tensors) whose fields are also read as attributes, with TF.js's field
names in snake_case (``result.output_indices``).
"""

from __future__ import annotations

from typing import Any

from .. import kernel_names as k
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from ._op import convert_to_tensor, op, run_kernel

__all__ = [
    "sparse_fill_empty_rows",
    "sparse_reshape",
    "sparse_segment_mean",
    "sparse_segment_sum",
]


class Record(dict):
    """An op's result object: a dict of tensors whose keys also read as attributes."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"{type(self).__name__} has no field '{name}'") from None

    def __dir__(self) -> list[str]:
        return [*super().__dir__(), *self.keys()]

    def __repr__(self) -> str:
        inner = ", ".join(f"{key}={value!r}" for key, value in self.items())
        return f"{type(self).__name__}({inner})"


class SparseFillEmptyRowsResult(Record):
    """``sparse_fill_empty_rows``'s result: ``output_indices``, ``output_values``,
    ``empty_row_indicator`` and ``reverse_index_map``."""

    __slots__ = ()


class SparseReshapeResult(Record):
    """``sparse_reshape``'s result: ``output_indices`` and ``output_shape``."""

    __slots__ = ()


def js_shape(shape: Any) -> str:
    """A shape as JavaScript prints an array in a template string: ``2,3``."""
    return ",".join(str(d) for d in shape)


@op(name="sparseFillEmptyRows")
def sparse_fill_empty_rows(
    indices: Any, values: Any, dense_shape: Any, default_value: Any
) -> SparseFillEmptyRowsResult:
    """Gives every empty row of a 2-D sparse tensor one ``default_value`` entry at column 0.

    ``indices`` (``[N, rank]``), ``values`` (``[N]``) and ``dense_shape`` (``[rank]``)
    describe the sparse tensor. The result has ``output_indices``, ``output_values``,
    ``empty_row_indicator`` (bool, one per dense row) and ``reverse_index_map`` (where each
    input entry went).

    >>> r = tf.sparse.sparse_fill_empty_rows([[0, 0], [2, 1]], [5, 6], [3, 2], -1)
    >>> r.output_indices.array_sync(), r.output_values.array_sync()
    ([[0, 0], [1, 0], [2, 1]], [5.0, -1.0, 6.0])
    >>> r.empty_row_indicator.array_sync(), r.reverse_index_map.array_sync()
    ([0, 1, 0], [0, 2])
    """
    name = "sparseFillEmptyRows"
    ind = convert_to_tensor(indices, "indices", name, "int32")
    vals = convert_to_tensor(values, "values", name)
    shape = convert_to_tensor(dense_shape, "denseShape", name, "int32")
    default = convert_to_tensor(default_value, "defaultValue", name, vals.dtype)
    if ind.rank != 2:
        raise InvalidArgumentError(
            f"Indices should be Tensor2D but received shape\n        {js_shape(ind._shape)}"
        )
    if vals.rank != 1:
        raise InvalidArgumentError(
            f"Values should be Tensor1D but received shape {js_shape(vals._shape)}"
        )
    if shape.rank != 1:
        raise InvalidArgumentError(
            f"Dense shape should be Tensor1D but received shape {js_shape(shape._shape)}"
        )
    if default.rank != 0:
        raise InvalidArgumentError(
            f"Default value should be a scalar but received shape {js_shape(default._shape)}"
        )
    out = run_kernel(k.SPARSE_FILL_EMPTY_ROWS, (ind, vals, shape, default))
    return SparseFillEmptyRowsResult(
        output_indices=out[0],
        output_values=out[1],
        empty_row_indicator=out[2],
        reverse_index_map=out[3],
    )


@op(name="sparseReshape")
def sparse_reshape(input_indices: Any, input_shape: Any, new_shape: Any) -> SparseReshapeResult:
    """Reshapes a sparse tensor: the indices of its entries in a dense tensor of
    ``new_shape`` (one ``-1`` is inferred). The result has ``output_indices`` and
    ``output_shape``.

    >>> r = tf.sparse.sparse_reshape([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 2, 3]],
    ...                              [2, 3, 6], [9, -1])
    >>> r.output_indices.array_sync(), r.output_shape.array_sync()
    ([[0, 0], [0, 1], [1, 2], [4, 2], [8, 1]], [9, 4])
    """
    name = "sparseReshape"
    ind = convert_to_tensor(input_indices, "inputIndices", name, "int32")
    shape = convert_to_tensor(input_shape, "inputShape", name, "int32")
    target = convert_to_tensor(new_shape, "newShape", name, "int32")
    if ind.rank != 2:
        raise InvalidArgumentError(
            f"Input indices should be Tensor2D but received shape\n        {js_shape(ind._shape)}"
        )
    if shape.rank != 1:
        raise InvalidArgumentError(
            f"Input shape should be Tensor1D but received shape {js_shape(shape._shape)}"
        )
    if target.rank != 1:
        raise InvalidArgumentError(
            f"New shape should be Tensor1D but received shape {js_shape(target._shape)}"
        )
    out = run_kernel(k.SPARSE_RESHAPE, (ind, shape, target))
    return SparseReshapeResult(output_indices=out[0], output_shape=out[1])


def _segment_reduction(
    kernel: str, name: str, data: Any, indices: Any, segment_ids: Any, indent: str
) -> Tensor:
    x = convert_to_tensor(data, "data", name)
    ind = convert_to_tensor(indices, "indices", name, "int32")
    seg = convert_to_tensor(segment_ids, "segmentIds", name, "int32")
    if x.rank < 1:
        raise InvalidArgumentError("Data should be at least 1 dimensional but received scalar")
    if ind.rank != 1:
        raise InvalidArgumentError(
            f"Indices should be Tensor1D but received shape\n{indent}{js_shape(ind._shape)}"
        )
    if seg.rank != 1:
        raise InvalidArgumentError(
            f"Segment ids should be Tensor1D but received shape\n{indent}{js_shape(seg._shape)}"
        )
    return run_kernel(kernel, (x, ind, seg))


@op(name="sparseSegmentMean")
def sparse_segment_mean(data: Any, indices: Any, segment_ids: Any) -> Tensor:
    """The mean of the rows ``data[indices]`` over each segment; ``segment_ids`` (sorted)
    gives each selected row's segment. Segments with no row are 0.

    >>> c = tf.tensor2d([[1, 2, 3, 4], [-1, -2, -3, -4], [6, 7, 8, 9]])
    >>> tf.sparse.sparse_segment_mean(c, tf.tensor1d([0, 1], 'int32'),
    ...                               tf.tensor1d([0, 0], 'int32')).array_sync()
    [[0.0, 0.0, 0.0, 0.0]]
    """
    return _segment_reduction(
        k.SPARSE_SEGMENT_MEAN, "sparseSegmentMean", data, indices, segment_ids, " " * 10
    )


@op(name="sparseSegmentSum")
def sparse_segment_sum(data: Any, indices: Any, segment_ids: Any) -> Tensor:
    """The sum of the rows ``data[indices]`` over each segment; ``segment_ids`` (sorted)
    gives each selected row's segment. Segments with no row are 0.

    >>> c = tf.tensor2d([[1, 2, 3, 4], [-1, -2, -3, -4], [5, 6, 7, 8]])
    >>> tf.sparse.sparse_segment_sum(c, tf.tensor1d([0, 1], 'int32'),
    ...                              tf.tensor1d([0, 1], 'int32')).array_sync()
    [[1.0, 2.0, 3.0, 4.0], [-1.0, -2.0, -3.0, -4.0]]
    """
    return _segment_reduction(
        k.SPARSE_SEGMENT_SUM, "sparseSegmentSum", data, indices, segment_ids, " " * 9
    )
