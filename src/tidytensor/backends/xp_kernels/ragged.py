"""Ragged kernels (TF.js's CPU ``RaggedGather``, ``RaggedRange`` and
``RaggedTensorToTensor``), with TF.js's checks, messages and quirks.

Row partitions are index structures: they are walked on the host in TF.js's order (so the
first error is TF.js's); values move with array indexing.
"""

from __future__ import annotations

import math

import numpy as np

from ... import kernel_names as k
from ...errors import InvalidArgumentError
from ...js_numbers import js_store

_INT32_MAX = 2147483647


def _host(a):
    """A small index array as host Python ints (``tolist`` works for NumPy and CuPy)."""
    return [int(v) for v in a.reshape(-1).tolist()]


def _js(values):
    return ",".join(str(v) for v in values)


def _wrap_int32(v):
    """A JS number stored into an ``Int32Array`` (NaN and infinities become 0)."""
    if isinstance(v, float):
        if not math.isfinite(v):
            return 0
        v = int(v)
    v &= 0xFFFFFFFF
    return v - 0x100000000 if v >= 0x80000000 else v


def _undefined_fill(dtype):
    """What a typed array of ``dtype`` stores for ``undefined`` (a read past the end)."""
    return np.nan if dtype == np.float32 else 0


def _read(flat, start, n, xp):
    """``flat[start:start + n]``, with TF.js's ``undefined`` past the end."""
    part = flat[start : start + n]
    if part.shape[0] == n:
        return part
    pad = xp.full((n - part.shape[0],), _undefined_fill(flat.dtype), dtype=flat.dtype)
    return xp.concatenate([part, pad])


# ============================================================================ RaggedGather
def _validate_splits(nested, num_dense):
    for dim, splits in enumerate(nested):
        last = num_dense if dim == len(nested) - 1 else len(nested[dim + 1])
        if not splits:
            raise InvalidArgumentError("Ragged splits may not be empty")
        if splits[0] < 0:
            raise InvalidArgumentError("Ragged splits must be non-negative")
        if splits[-1] > last:
            raise InvalidArgumentError("Ragged splits must not point past values")
        for i in range(1, len(splits)):
            if splits[i - 1] > splits[i]:
                raise InvalidArgumentError("Ragged splits must be sorted in ascending order")


def _split_at(splits, i):
    if i >= len(splits):
        raise InvalidArgumentError(
            "Ragged splits must not point past values (a split equals the next partition's "
            "length, which TF.js reads past the end of)"
        )
    return splits[i]


def ragged_gather(*arrays, xp, output_ragged_rank=None):
    *split_arrays, dense, indices = arrays
    if not split_arrays:
        raise InvalidArgumentError("params_nested_splits must be non empty")
    if split_arrays[0].ndim == 0:
        raise InvalidArgumentError("Split tensors must not be scalars")
    nested = [_host(s) for s in split_arrays]
    num_params = split_arrays[0].shape[0] - 1
    idx = _host(indices)
    ind_shape = indices.shape
    for i, index in enumerate(idx):
        if index < 0 or index >= num_params:
            loc = _js(np.unravel_index(i, ind_shape)) if len(ind_shape) > 1 else str(i)
            raise InvalidArgumentError(f"indices[{loc}] = {index} is not in [0, {num_params})")
    if dense.ndim == 0:
        raise InvalidArgumentError("params.rank must be nonzero")
    num_dense = dense.shape[0]
    # Output splits: first those of the dense dimensions of ``indices``, then the ragged ones.
    out_splits = [[0] for _ in range(len(ind_shape) - 1 + len(nested))]
    _validate_splits(nested, num_dense)
    nrows = 1
    for dim in range(len(ind_shape) - 1):
        nrows *= ind_shape[dim]
        row_length = ind_shape[dim + 1]
        out_splits[dim].extend(i * row_length for i in range(1, nrows + 1))
    slices = []
    for index in idx:
        start, limit = index, index + 1
        for dim, splits in enumerate(nested):
            out_dim = dim + len(ind_shape) - 1
            if out_dim >= 0:
                out = out_splits[out_dim]
                delta = out[-1] - _split_at(splits, start)
                out.extend(_split_at(splits, j + 1) + delta for j in range(start, limit))
            start, limit = _split_at(splits, start), _split_at(splits, limit)
        if limit != start:
            slices.append((start, limit))
    outputs = [xp.asarray([_wrap_int32(v) for v in s], dtype=xp.int32) for s in out_splits]
    rows = [r for s, e in slices for r in range(s, e)]
    out_shape = (len(rows), *dense.shape[1:])
    if dense.size == 0 or not rows:
        values = xp.zeros(out_shape, dtype=dense.dtype)
    else:
        values = dense[xp.asarray(rows, dtype=xp.int64)]
    return [*outputs, values]


# ============================================================================ RaggedRange
def ragged_range(starts, limits, deltas, *, xp):
    for name, a in (("starts", starts), ("limits", limits), ("deltas", deltas)):
        if a.ndim > 1:
            raise InvalidArgumentError(f"{name} must be a scalar or vector")
    sizes = [a.shape[0] for a in (starts, limits, deltas) if a.ndim == 1]
    for i in range(1, len(sizes)):
        if sizes[i] != sizes[i - 1]:
            raise InvalidArgumentError("starts, limits, and deltas must have the same shape")
    n_rows = sizes[0] if sizes else 1

    def column(a):
        vals = [float(v) for v in a.reshape(-1).tolist()]
        return (lambda r: vals[0]) if a.ndim == 0 else (lambda r: vals[r])

    start_of, limit_of, delta_of = column(starts), column(limits), column(deltas)
    splits = [0]
    for row in range(n_rows):
        start, limit, delta = start_of(row), limit_of(row), delta_of(row)
        if delta == 0:
            raise InvalidArgumentError("Requires delta != 0")
        if (delta > 0 and limit < start) or (delta < 0 and limit > start):
            size = 0.0
        else:
            size = (
                math.ceil(abs((limit - start) / delta))
                if math.isfinite((limit - start) / delta)
                else (limit - start) / delta
            )
            if abs(size) > _INT32_MAX if not math.isnan(size) else False:
                raise InvalidArgumentError(f"Requires ((limit - start) / delta) <= {_INT32_MAX}")
        splits.append(_wrap_int32(splits[-1] + size))
    n_vals = splits[n_rows]
    if n_vals < 0:
        raise InvalidArgumentError(f"Invalid typed array length: {n_vals}")
    dtype = starts.dtype
    pieces = []
    for row in range(n_rows):
        row_size = splits[row + 1] - splits[row]
        if row_size <= 0:
            continue
        steps = np.full(row_size, delta_of(row), dtype=np.float64)
        steps[0] = start_of(row)
        pieces.append(np.cumsum(steps))  # value += delta, in doubles, one step at a time
    seq = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.float64)
    seq = seq[:n_vals]
    if seq.shape[0] < n_vals:
        seq = np.concatenate([seq, np.zeros(n_vals - seq.shape[0])])
    if dtype == np.int32:
        values = js_store(seq, "int32")
    else:
        values = seq.astype(dtype)
    return [xp.asarray(splits, dtype=xp.int32), xp.asarray(values)]


# ============================================================================ RaggedTensorToTensor
_TYPES = ["FIRST_DIM_SIZE", "VALUE_ROWIDS", "ROW_LENGTHS", "ROW_SPLITS", "ROW_LIMITS", "ROW_STARTS"]
_FIRST_DIM_SIZE, _VALUE_ROWIDS, _ROW_SPLITS = 0, 1, 3


def _partition_types(names):
    out = []
    for name in names:
        if name not in _TYPES:
            break
        out.append(_TYPES.index(name))
    return out


def _type_name(t):
    return _TYPES[t] if t is not None and 0 <= t < len(_TYPES) else "undefined"


def _make_shape(shape, partial):
    out = []
    for dim in shape:
        if dim < 0:
            if not partial:
                raise InvalidArgumentError(f"Dimension {dim} must be >= 0")
            if dim < -1:
                raise InvalidArgumentError(f"Dimension {dim} must be >= -1")
            dim = -1
        out.append(dim)
    return out


class _ToTensor:
    """TF.js's ``RaggedTensorToTensorOp``, step by step."""

    def __init__(self, shape, shape_shape, values, default, partitions, partition_shapes, types):
        self.shape = shape
        self.shape_shape = shape_shape
        self.values = values
        self.default = default
        self.partitions = partitions
        self.partition_shapes = partition_shapes
        self.types = _partition_types(types)
        if not self.types:
            self.ragged_rank = 0
        elif self.types[0] == _FIRST_DIM_SIZE:
            self.ragged_rank = len(self.types) - 1
        else:
            self.ragged_rank = len(self.types)

    def _offset(self):
        return 1 if self.types and self.types[0] == _FIRST_DIM_SIZE else 0

    def type_of(self, dimension):
        i = dimension + self._offset()
        return self.types[i] if 0 <= i < len(self.types) else None

    def tensor_of(self, dimension):
        i = dimension + self._offset()
        if not 0 <= i < len(self.partitions):
            raise InvalidArgumentError(
                f"ragged_tensor_to_tensor: no row partition tensor for dimension {dimension} "
                f"({len(self.partitions)} given)"
            )
        return self.partitions[i]

    def max_width(self, dimension):
        tensor = self.tensor_of(dimension - 1)
        kind = self.type_of(dimension - 1)
        if kind == _VALUE_ROWIDS:
            if not tensor:
                return 0
            first, first_value, width = 0, tensor[0], 0
            for i in range(1, len(tensor)):
                if tensor[i] != first_value:
                    first_value = tensor[i]
                    width = max(i - first, width)
                    first = i
            return max(len(tensor) - first, width)
        if kind == _ROW_SPLITS:
            if len(tensor) <= 1:
                return 0
            return max(0, max(tensor[i + 1] - tensor[i] for i in range(len(tensor) - 1)))
        raise InvalidArgumentError(f"Cannot handle partition type {_type_name(kind)}")

    def output_size(self, first_dim, value_shape):
        default_shape = self.default.shape
        if len(default_shape) >= len(value_shape):
            raise InvalidArgumentError(
                f"default_value.shape={_js(default_shape)} and ragged tensor flat_values.shape="
                f"{_js(value_shape)}, are incompatible: default_value.rank = {len(default_shape)} "
                f"must be less than ragged tensor input flat_values.rank = {len(value_shape)})"
            )
        for i in range(min(len(default_shape), len(value_shape) - 1)):
            d, v = default_shape[i], value_shape[i + 1]
            if d >= 0 and v >= 0 and d != 1 and d != v:
                j = i - len(default_shape)
                raise InvalidArgumentError(
                    f"default_value.shape={_js(default_shape)}, and ragged tensor input "
                    f"flat_values.shape={_js(value_shape)} are incompatible: default_value.shape[{j}] "
                    f"= {d} but ragged tensor input.flat_values.shape[{j}] = {v}"
                )
        if not self.shape_shape:
            if self.shape[0] != -1:
                raise InvalidArgumentError(
                    "The only valid scalar shape tensor is the fully unknown shape specified as -1."
                )
            shape = []
        else:
            shape = _make_shape(self.shape, True)
        out = list(shape)
        if self.ragged_rank + len(value_shape) != len(out):
            raise InvalidArgumentError(
                f"rt input.shape and shape={_js(shape)} are incompatible: rt input.rank = "
                f"{self.ragged_rank + len(value_shape)}, but shape.rank = {len(out)}"
            )
        for i in range(1, len(value_shape)):
            value_dim = value_shape[i]
            # TF.js (its quirk) reads the output dimension at the index this slot holds.
            index = out[len(out) - len(value_shape) + i]
            if index >= len(out):
                raise InvalidArgumentError(
                    f"rt input.shape and shape={_js(shape)} are incompatible: TF.js reads "
                    f"shape[{index}] (past its end) to check rt input.shape[{i + self.ragged_rank}] "
                    f"= {value_dim}, and makes a tensor with unknown dimensions"
                )
            out_dim = out[index] if index >= 0 else None  # out[-1] is undefined in JS
            if value_dim >= 0:
                if out_dim is not None and out_dim >= 0:
                    if out_dim != value_dim:
                        raise InvalidArgumentError(
                            f"rt input.shape and shape={_js(shape)} are incompatible: rt "
                            f"input.shape[{i + self.ragged_rank}] = {value_dim} but "
                            f"shape[{i + self.ragged_rank}] = {out_dim}"
                        )
                elif index >= 0:
                    out[index] = value_dim
        if out and out[0] < 0:
            out[0] = first_dim
        for i in range(1, self.ragged_rank + 1):
            if out[i] < 0:
                out[i] = self.max_width(i)
        return out

    def first_dimension(self):
        if not self.types:
            raise InvalidArgumentError("No row_partition_types given.")
        kind = self.types[0]
        if kind == _FIRST_DIM_SIZE:
            return self.partitions[0][0]
        if kind == _VALUE_ROWIDS:
            raise InvalidArgumentError("Cannot handle VALUE_ROWIDS in first dimension.")
        if kind == _ROW_SPLITS:
            return self.partition_shapes[0][0] - 1
        raise InvalidArgumentError(f"Cannot handle type {_type_name(kind)}")

    @staticmethod
    def index_row_split(splits, parent, multiplier, size):
        out = []
        for i in range(len(splits) - 1):
            length = splits[i + 1] - splits[i]
            real = min(size, length)
            current = parent[i] if i < len(parent) else None
            if current == -1 or current is None:
                real = 0
            for _ in range(real):
                out.append(current)
                current += multiplier
            out.extend([-1] * (length - real))
        if splits and len(out) != splits[-1]:
            raise InvalidArgumentError("Invalid row split size.")
        return out

    @staticmethod
    def index_value_rowids(rowids, parent, multiplier, size):
        if not rowids:
            return []
        column = 0
        current_id = rowids[0]
        _check_row_id(current_id, "current_value_row_id", len(parent))
        if current_id >= len(parent):
            raise InvalidArgumentError(
                f"Got current_value_row_id={current_id}, which is not less than {len(parent)}"
            )
        current = parent[current_id]
        out = [current]
        for i in range(1, len(rowids)):
            next_id = rowids[i]
            if next_id == current_id:
                if current >= 0:
                    column += 1
                    current = current + multiplier if column < size else -1
            else:
                column = 0
                current_id = next_id
                _check_row_id(next_id, "next_value_row_id", len(parent))
                if next_id >= len(parent):
                    raise InvalidArgumentError(
                        f"Got next_value_row_id={next_id} which is not less than {len(parent)}"
                    )
                current = parent[next_id]
            out.append(current)
        return out

    def output_index(self, dimension, parent, multiplier, size):
        tensor = self.tensor_of(dimension)
        kind = self.type_of(dimension)
        if kind == _VALUE_ROWIDS:
            return self.index_value_rowids(tensor, parent, multiplier, size)
        if kind == _ROW_SPLITS:
            if len(tensor) - 1 > len(parent):
                raise InvalidArgumentError(
                    f"Row partition size is greater than output size: {len(tensor) - 1} > "
                    f"{len(parent)}"
                )
            return self.index_row_split(tensor, parent, multiplier, size)
        raise InvalidArgumentError(f"Unsupported partition type: {_type_name(kind)}")

    def compute(self, xp, dtype):
        if not self.partitions:
            raise InvalidArgumentError(
                "ragged_tensor_to_tensor needs at least one row partition tensor"
            )
        if len(self.partitions[0]) <= 0:
            raise InvalidArgumentError(
                "Invalid first partition input. Tensor requires at least one element."
            )
        first_dim = self.first_dimension()
        size = self.output_size(first_dim, list(self.values.shape))
        multiplier = [1] * (self.ragged_rank + 1)
        for i in range(len(multiplier) - 2, -1, -1):
            multiplier[i] = multiplier[i + 1] * size[i + 1]
        out_shape = _make_shape(size, False)
        total = 1
        for d in out_shape:
            total *= d
        out = xp.zeros(total, dtype=dtype)
        if multiplier[0] * size[0] > 0:
            n = min(first_dim, size[0])
            index = [i * multiplier[0] for i in range(n)] + [-1] * (first_dim - n)
            if len(index) != first_dim:  # a negative first dimension size
                raise InvalidArgumentError(
                    "Final length of result must be equal to first_dimension."
                )
            for i in range(1, self.ragged_rank + 1):
                index = self.output_index(i - 1, index, multiplier[i], size[i])
            self.set_output(out, index, out_shape, xp)
        return out.reshape(out_shape)

    def set_output(self, out, index, out_shape, xp):
        if out.shape[0] == 0:
            return
        element = 1
        for d in out_shape[self.ragged_rank + 1 :]:
            element *= d
        values = self.values.reshape(-1)
        default = self.default.reshape(-1)
        if default.shape[0] != element and default.shape[0] != 1:
            # TF.js broadcasts the default to the element shape (which can fail) and then,
            # copying into a copy of the output, pads with zeros.
            _check_broadcast(list(self.default.shape), list(out_shape[self.ragged_rank + 1 :]))
        scalar_default = default.shape[0] == 1
        src_start = dst_start = dst_end = 0
        n = len(index)
        for src in range(n + 1):
            dst = index[src] if src < n else -1
            if dst == dst_end:
                dst_end += 1
                continue
            if dst_start < dst_end:
                count = (dst_end - dst_start) * element
                out[dst_start * element : dst_start * element + count] = _read(
                    values, src_start * element, count, xp
                )
            if src >= n:
                dst = out.shape[0] // element
            if dst > dst_end:
                if scalar_default:
                    out[dst_end * element : dst * element] = default[0]
                dst_end = dst  # a longer default pads with zeros (TF.js copies into a copy)
            if dst < 0:
                src_start = src + 1
                dst_start = dst_end
            else:
                src_start = src
                dst_start = dst_end
                dst_end = dst_start + 1


def _check_row_id(row_id, what, n):
    """A negative value row id: TF.js reads ``parent[-1]`` (undefined) and writes garbage,
    TF's kernel refuses it; so is it refused here, before Python's ``parent[-1]`` wraps."""
    if row_id < 0:
        raise InvalidArgumentError(
            f"Got {what}={row_id}, which is negative: value row ids must be in [0, {n})"
        )


def _check_broadcast(x_shape, shape):
    """TF.js's ``broadcastTo`` checks (its messages)."""
    if len(shape) < len(x_shape):
        raise InvalidArgumentError(
            f"broadcast_to(): shape.length={len(shape)} < input.rank={len(x_shape)}."
        )
    padded = [1] * (len(shape) - len(x_shape)) + x_shape
    for have, want in zip(padded, shape, strict=True):
        if have != want and have != 1:
            raise InvalidArgumentError(
                f"broadcast_to(): [{_js(x_shape)}] cannot be broadcast to [{_js(shape)}]."
            )


def ragged_tensor_to_tensor(shape, values, default_value, *partitions, xp, row_partition_types):
    op = _ToTensor(
        _host(shape),
        list(shape.shape),
        values,
        default_value,
        [_host(p) for p in partitions],
        [list(p.shape) for p in partitions],
        list(row_partition_types),
    )
    return op.compute(xp, values.dtype)


KERNELS = {
    k.RAGGED_GATHER: ragged_gather,
    k.RAGGED_RANGE: ragged_range,
    k.RAGGED_TENSOR_TO_TENSOR: ragged_tensor_to_tensor,
}
