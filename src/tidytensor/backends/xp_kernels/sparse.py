"""Sparse kernels (TF.js's CPU ``SparseFillEmptyRows``, ``SparseReshape``,
``SparseSegmentSum`` and ``SparseSegmentMean``), with TF.js's checks and messages.

Indices are validated on the host in TF.js's order, so the first bad entry TF.js reports is
the one reported here. Segment sums accumulate in the output's dtype one row at a time, in
index order, as TF.js's typed arrays do (float32 rounding at every step, int32 wrap-around).
"""

from __future__ import annotations

import numpy as np

from ... import kernel_names as k
from ...errors import DTypeError, InvalidArgumentError
from ..xp_compat import ufunc_at


def _host(a):
    """A small index array as host Python ints (``tolist`` works for NumPy and CuPy)."""
    return [int(v) for v in a.reshape(-1).tolist()]


def _js(values):
    return ",".join(str(v) for v in values)


# ----------------------------------------------------------------------------- fill empty rows
def sparse_fill_empty_rows(indices, values, dense_shape, default_value, *, xp):
    if dense_shape.ndim != 1:
        raise InvalidArgumentError(
            f"Dense shape must be a vector, saw:\n        {_js(dense_shape.shape)}"
        )
    if indices.ndim != 2:
        raise InvalidArgumentError(f"Indices must be a matrix, saw:\n        {_js(indices.shape)}")
    if values.ndim != 1:
        raise InvalidArgumentError(f"Values must be a vector, saw:\n        {_js(values.shape)}")
    if default_value.ndim != 0:
        raise InvalidArgumentError(
            f"Default value must be a scalar, saw:\n        {_js(default_value.shape)}"
        )
    count, rank = indices.shape
    if dense_shape.size == 0:
        raise InvalidArgumentError(
            "sparse_fill_empty_rows: dense_shape must give at least the number of rows, but it is empty"
        )
    dense_rows = int(dense_shape[0])
    if dense_rows == 0:
        if count != 0:
            raise InvalidArgumentError(
                f"Received SparseTensor with dense_shape[0] = 0 but\n  indices.shape[0] = {count}"
            )
        return [
            xp.zeros((0, rank), dtype=indices.dtype),
            xp.zeros((0,), dtype=values.dtype),
            xp.zeros((0,), dtype=xp.bool_),
            xp.zeros((0,), dtype=indices.dtype),
        ]
    if values.shape[0] != count:
        raise InvalidArgumentError(
            f"sparse_fill_empty_rows: values has {values.shape[0]} entries but indices has {count} "
            "rows (TF.js reads past the end)"
        )
    rows = indices[:, 0] if rank else xp.zeros((count,), dtype=indices.dtype)
    bad = (rows < 0) | (rows >= dense_rows)
    if count and bool(bad.any()):
        i = int(xp.argmax(bad))
        row = int(rows[i])
        if row < 0:
            raise InvalidArgumentError(f"indices({i}, 0) is invalid: {row} < 0")
        raise InvalidArgumentError(f"indices({i}, 0) is invalid: {row} >= {dense_rows}")
    rows = rows.astype(xp.int64)
    counts = xp.bincount(rows, minlength=dense_rows) if count else xp.zeros(dense_rows, xp.int64)
    empty = counts == 0
    ordered = bool((rows[1:] >= rows[:-1]).all()) if count > 1 else True
    if not bool(empty.any()) and ordered:
        return [indices.copy(), values.copy(), empty, xp.arange(count, dtype=indices.dtype)]
    per_row = xp.maximum(counts, 1)
    row_start = xp.concatenate([xp.zeros(1, xp.int64), xp.cumsum(per_row)[:-1]])
    total = int(per_row.sum())
    order = xp.argsort(rows, kind="stable")
    sorted_rows = rows[order]
    first_in_sorted = xp.concatenate([xp.zeros(1, xp.int64), xp.cumsum(counts)[:-1]])
    offset = xp.empty(count, dtype=xp.int64)
    offset[order] = xp.arange(count) - first_in_sorted[sorted_rows]
    positions = row_start[rows] + offset
    out_indices = xp.zeros((total, rank), dtype=indices.dtype)
    out_values = xp.zeros((total,), dtype=values.dtype)
    out_indices[positions] = indices
    out_values[positions] = values
    empty_rows = xp.nonzero(empty)[0]
    out_indices[row_start[empty_rows], 0] = empty_rows.astype(indices.dtype)
    out_values[row_start[empty_rows]] = default_value
    return [out_indices, out_values, empty, positions.astype(indices.dtype)]


# ----------------------------------------------------------------------------- reshape
def _strides(shape):
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    return strides


def _size(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def sparse_reshape(input_indices, input_shape, new_shape, *, xp):
    if input_indices.ndim != 2:
        raise InvalidArgumentError(
            f"Input indices should be a matrix but received shape\n        {_js(input_indices.shape)}"
        )
    if input_shape.ndim != 1:
        raise InvalidArgumentError(
            f"Input shape should be a vector but received shape\n        {_js(input_shape.shape)}"
        )
    if new_shape.ndim != 1:
        raise InvalidArgumentError(
            f"Target shape should be a vector but received shape {_js(new_shape.shape)}"
        )
    in_shape = _host(input_shape)
    target = _host(new_shape)
    dense_size = _size(in_shape)
    nnz = input_indices.shape[0]
    out_shape = []
    product = 1
    unknown = -1
    for d, size in enumerate(target):
        if size == -1:
            if unknown != -1:
                raise InvalidArgumentError(
                    f"only one output dimension may be -1, not both {unknown} and {d}"
                )
            unknown = d
            out_shape.append(1)
        else:
            if size < 0:
                raise InvalidArgumentError(f"size {d} must be non-negative, not {size}")
            product *= size
            out_shape.append(size)
    if unknown != -1:
        if product <= 0:
            raise InvalidArgumentError(
                "reshape cannot infer the missing input size for an empty tensor unless all "
                "specified input sizes are non-zero"
            )
        missing = int(dense_size / product)
        if product * missing != dense_size:
            raise InvalidArgumentError(
                f"Input to reshape is a SparseTensor with {dense_size}\n  dense values, but the "
                f"requested shape requires a multiple of {_size(out_shape)}. "
                f"input_shape={_js(in_shape)} output_shape= {_js(out_shape)}"
            )
        out_shape[unknown] = missing
    if _size(out_shape) != dense_size:
        raise InvalidArgumentError(
            f"Input to reshape is a tensor with {dense_size} dense values, but the requested "
            f"shape has {_size(out_shape)}. input_shape={_js(in_shape)} "
            f"output_shape={_js(out_shape)}"
        )
    if input_indices.shape[1] != len(in_shape):
        raise InvalidArgumentError(
            f"sparse_reshape: input_indices has {input_indices.shape[1]} columns but input_shape has "
            f"rank {len(in_shape)} (TF.js reads the indices out of step)"
        )
    flat_ids = input_indices.astype(xp.int64) @ xp.asarray(_strides(in_shape), dtype=xp.int64)
    if not in_shape:
        flat_ids = xp.zeros((nnz,), dtype=xp.int64)
    columns = []
    ids = flat_ids
    for stride in _strides(out_shape):
        if stride == 0:  # JS: id / 0 is not finite, stored as 0; id % 0 is NaN from then on
            columns.append(xp.zeros((nnz,), dtype=xp.int64))
            ids = xp.zeros((nnz,), dtype=xp.int64)
            continue
        q = xp.where(ids >= 0, ids // stride, -((-ids) // stride))  # Math.trunc(id / stride)
        columns.append(q)
        ids = ids - q * stride  # JS %: the sign of the dividend
    out = (xp.stack(columns, axis=1) if columns else xp.zeros((nnz, 0), dtype=xp.int64)).astype(
        input_indices.dtype
    )
    return [out, xp.asarray(out_shape, dtype=xp.int32)]


# ----------------------------------------------------------------------------- segment reductions
def _segment_reduce(data, indices, segment_ids, xp, is_mean):
    if data.ndim < 1:
        raise InvalidArgumentError("Data should be at least 1 dimensional but received scalar")
    if indices.shape[0] != segment_ids.shape[0]:
        raise InvalidArgumentError("segment_ids and indices should have same size.")
    if data.dtype == xp.complex64 or data.dtype == object:
        raise DTypeError(
            f"sparse_segment_{'mean' if is_mean else 'sum'} does not support "
            f"{'complex64' if data.dtype == xp.complex64 else 'string'} data"
        )
    idx = _host(indices)
    seg = _host(segment_ids)
    n = len(idx)
    num_rows = data.shape[0]
    out_rows = seg[-1] + 1 if n else 0
    out_shape = (out_rows, *data.shape[1:]) if out_rows >= 0 else None
    if out_rows < 0:
        raise InvalidArgumentError("segment ids must be >= 0")
    if n == 0:
        return xp.zeros(out_shape, dtype=data.dtype)
    if out_rows <= 0:
        raise InvalidArgumentError("segment ids must be >= 0")
    # Walk the segments exactly as TF.js does, so that the first error is TF.js's.
    segments = []  # (out_index, start, end)
    start, end = 0, 1
    out_index = seg[0]
    while True:
        next_index = 0
        if end < n:
            next_index = seg[end]
            if out_index == next_index:
                end += 1
                continue
            if out_index >= next_index:
                raise InvalidArgumentError("segment ids are not increasing")
        if out_index < 0 or out_index >= out_rows:
            raise InvalidArgumentError(
                f"Segment id {out_index} out of range [0, {out_rows}), possibly because "
                "segment_ids input is not sorted."
            )
        for i in range(start, end):
            if idx[i] < 0 or idx[i] >= num_rows:
                raise InvalidArgumentError(
                    f"Bad: indices[{i}] == {idx[i]} out of range [0, {num_rows})"
                )
        segments.append((out_index, start, end))
        start = end
        end += 1
        out_index = next_index
        if end > n:
            break
    cols = int(np.prod(data.shape[1:], dtype=np.int64))
    rows = data.reshape(num_rows, cols)
    gathered = rows[xp.asarray(idx, dtype=xp.int64)]
    targets = xp.asarray(seg, dtype=xp.int64)
    if data.dtype == xp.bool_:
        acc = xp.zeros((out_rows, cols), dtype=xp.uint8)  # TF.js's Uint8Array: wraps at 256
        ufunc_at(xp, "add", acc, targets, gathered.astype(xp.uint8))
    else:
        acc = xp.zeros((out_rows, cols), dtype=data.dtype)
        ufunc_at(xp, "add", acc, targets, gathered)  # one row at a time, in index order
    if is_mean:
        counts = xp.zeros((out_rows, 1), dtype=xp.int64)
        for out_index, s, e in segments:
            counts[out_index, 0] = e - s
        counts = xp.maximum(counts, 1)
        if data.dtype == xp.float32:
            acc = (acc / counts.astype(xp.float32)).astype(xp.float32)
        else:
            acc = xp.trunc(acc.astype(xp.float64) / counts).astype(acc.dtype)
    if data.dtype == xp.bool_:
        acc = acc != 0
    return acc.reshape(out_shape)


def sparse_segment_sum(data, indices, segment_ids, *, xp):
    return _segment_reduce(data, indices, segment_ids, xp, False)


def sparse_segment_mean(data, indices, segment_ids, *, xp):
    return _segment_reduce(data, indices, segment_ids, xp, True)


KERNELS = {
    k.SPARSE_FILL_EMPTY_ROWS: sparse_fill_empty_rows,
    k.SPARSE_RESHAPE: sparse_reshape,
    k.SPARSE_SEGMENT_SUM: sparse_segment_sum,
    k.SPARSE_SEGMENT_MEAN: sparse_segment_mean,
}
