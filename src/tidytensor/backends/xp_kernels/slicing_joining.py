"""Slicing and joining kernels: slices, concatenation, gathers and scatters.

The strided-slice index arithmetic (``geometry.slicing.slice_info``) follows TF.js's
``slice_util.ts``, which follows TensorFlow's ``strided_slice_op.cc``.
Kernels that TF.js's CPU backend answers with its input's buffer (an identity strided slice,
``Pack`` of one tensor, ``Concat`` with a single non-empty input, ``Reverse`` of a scalar)
share it here too.
"""

from __future__ import annotations

import math

from ... import kernel_names as k
from ...dtypes import NUMPY_DTYPE, STRING
from ...errors import DTypeError, InvalidArgumentError, ShapeError
from ...geometry.axes import parse_axis
from ...geometry.slicing import parse_slice_params, slice_info
from ..xp_compat import errstate, ufunc_at
from .transformations import expand_dims


def _js(values) -> str:
    return ",".join(str(v) for v in values)


def convert_like_typed_array(values, dtype, xp):
    """Values written into TF.js's typed array for ``dtype`` (how its CPU kernels store
    numbers of another dtype): float to int32 truncates (NaN to 0, wrapping), bool keeps
    the low byte."""
    target = NUMPY_DTYPE[dtype]
    if values.dtype == target:
        return values
    if (dtype == STRING) != (values.dtype == object):
        raise DTypeError(f"Cannot store {values.dtype} values in a {dtype} tensor")
    if values.dtype.kind == "c" and dtype != "complex64":
        values = values.real
    if dtype in ("int32", "bool") and values.dtype.kind == "f":
        with errstate(xp, invalid="ignore"):
            values = xp.where(xp.isfinite(values), xp.trunc(values), 0).astype(xp.int64)
    if dtype == "bool":
        return (values.astype(xp.int64) & 255) != 0
    return values.astype(target)


# ----------------------------------------------------------------------------- slice


def slice_(x, *, xp, begin, size):
    begin, size = parse_slice_params(x.shape, begin, size)
    index = tuple(slice(b, b + s) for b, s in zip(begin, size, strict=True))
    return xp.array(x[index], copy=True)


# ----------------------------------------------------------------------------- strided slice


def strided_slice(inputs, attrs, backend):
    x = inputs[0]
    begin, end, strides, processing, final, is_identity = slice_info(
        x._shape,
        attrs["begin"],
        attrs["end"],
        attrs.get("strides"),
        attrs.get("begin_mask", 0),
        attrs.get("end_mask", 0),
        attrs.get("ellipsis_mask", 0),
        attrs.get("new_axis_mask", 0),
        attrs.get("shrink_axis_mask", 0),
    )
    if is_identity:
        return backend.share(x, tuple(final))
    xp = backend.xp
    index = []
    for b, e, s, n in zip(begin, end, strides, processing, strict=True):
        index.append(slice(0, 0) if n == 0 else slice(b, e if e >= 0 else None, s))
    out = backend.array(x)[tuple(index)]
    return backend.write_array(xp.array(out, copy=True).reshape(final))


# ----------------------------------------------------------------------------- joining


def _assert_concat_params(shapes, axis):
    rank = len(shapes[0])
    for i, shape in enumerate(shapes):
        if len(shape) != rank:
            raise ShapeError(
                f"Error in concat{rank}D: rank of tensors[{i}] must be the same as the rank of the rest ({rank})"
            )
    if not 0 <= axis < rank:
        raise InvalidArgumentError(
            f"Error in concat{rank}D: axis must be between 0 and {rank - 1}."
        )
    first = shapes[0]
    for i, shape in enumerate(shapes):
        for r in range(rank):
            if r != axis and shape[r] != first[r]:
                # TF.js names the tensor's index where it means the axis; its message kept.
                raise ShapeError(
                    f"Error in concat{rank}D: Shape of tensors[{i}] ({_js(shape)}) does not match "
                    f"the shape of the rest ({_js(first)}) along the non-concatenated axis {i}."
                )


def concat(inputs, attrs, backend):
    xp = backend.xp
    shapes = [t._shape for t in inputs]
    axis = parse_axis(attrs["axis"], shapes[0])[0]
    _assert_concat_params(shapes, axis)
    out_shape = list(shapes[0])
    out_shape[axis] = sum(s[axis] for s in shapes)
    dtype = inputs[0].dtype
    if math.prod(out_shape) == 0:
        return backend.write_array(xp.zeros(out_shape, dtype=NUMPY_DTYPE[dtype]))
    nonempty = [t for t in inputs if t.size > 0]
    if len(nonempty) == 1:
        return backend.share(nonempty[0], nonempty[0]._shape)
    arrays = [convert_like_typed_array(backend.array(t), dtype, xp) for t in nonempty]
    return backend.write_array(xp.concatenate(arrays, axis=axis))


def pack(inputs, attrs, backend):
    axis = attrs["axis"]
    if len(inputs) == 1:
        return expand_dims(inputs, {"dim": axis}, backend)
    shape, dtype = inputs[0]._shape, inputs[0].dtype
    for t in inputs:
        if t._shape != shape:
            raise ShapeError(
                "All tensors passed to stack must have matching shapes "
                f"Shapes {_js(shape)} and {_js(t._shape)} must match"
            )
        if t.dtype != dtype:
            raise DTypeError("All tensors passed to stack must have matching dtypes")
    rank = len(shape)
    if axis < -(rank + 1):
        raise InvalidArgumentError(f"Axis must be in the interval [{-(rank + 1)}, {rank}]")
    xp = backend.xp
    return backend.write_array(xp.stack([backend.array(t) for t in inputs], axis=axis))


def split_v(x, *, xp, num_or_size_splits, axis):
    out = []
    start = 0
    index = [slice(None)] * x.ndim
    for size in num_or_size_splits:
        index[axis] = slice(start, start + size)
        out.append(xp.array(x[tuple(index)], copy=True))
        start += size
    return out


def unpack(value, *, xp, axis):
    if axis < 0:
        axis += value.ndim
    return [xp.array(xp.take(value, i, axis=axis), copy=True) for i in range(value.shape[axis])]


def tile(x, *, xp, reps):
    return xp.tile(x, tuple(int(r) for r in reps)).reshape(
        tuple(d * int(r) for d, r in zip(x.shape, reps, strict=True))
    )


def reverse(inputs, attrs, backend):
    x = inputs[0]
    dims = parse_axis(attrs["dims"], x._shape)
    if not x._shape:
        return backend.share(x, x._shape)
    flips = tuple(d for d in set(dims) if dims.count(d) % 2 == 1)  # each listed axis flips once
    xp = backend.xp
    return backend.write_array(xp.array(xp.flip(backend.array(x), axis=flips), copy=True))


# ----------------------------------------------------------------------------- gather / scatter


def gather_shape_info(x_shape, indices_shape, axis, batch_dims):
    """TF.js's ``collectGatherOpShapeInfo``: (batch, outer, dim, slice sizes, output shape)."""
    indices_rank = len(indices_shape)
    x_rank = len(x_shape)
    if batch_dims != 0 and not -indices_rank <= batch_dims <= indices_rank:
        raise InvalidArgumentError(
            f"Expect batch_dims in the range of [-{indices_rank}, {indices_rank}], but got {batch_dims}"
        )
    if batch_dims < 0:
        batch_dims += indices_rank
    if batch_dims > x_rank:
        raise InvalidArgumentError(
            f"batch_dims ({batch_dims}) must be less than rank(x) (\n    {x_rank})."
        )
    if axis < batch_dims:
        raise InvalidArgumentError(
            f"batch_dims ({batch_dims}) must be less than or equal to axis ({axis})."
        )
    for i in range(batch_dims):
        if x_shape[i] != indices_shape[i]:
            raise ShapeError(
                f"x.shape[{i}]: {x_shape[i]} should be equal to indices.shape[{i}]: {indices_shape[i]}."
            )
    batch = math.prod(x_shape[:batch_dims])
    outer = math.prod(x_shape[batch_dims:axis])
    slice_size = math.prod(x_shape[axis + 1 :])
    out_shape = [*x_shape[:axis], *indices_shape[batch_dims:], *x_shape[axis + 1 :]]
    return batch, outer, x_shape[axis], slice_size, out_shape


def gather_v2(x, indices, *, xp, axis, batch_dims=0):
    axis = parse_axis(axis, x.shape)[0]
    dim = x.shape[axis]
    flat = indices.reshape(-1)
    if flat.size:
        bad = (flat < 0) | (flat > dim - 1)
        if bad.any():
            value = int(flat[int(xp.argmax(bad))])
            raise InvalidArgumentError(
                f"GatherV2: the index value {value} is not in [0, {dim - 1}]"
            )
    batch, outer, dim, slice_size, out_shape = gather_shape_info(
        x.shape, indices.shape, axis, 0 if batch_dims is None else int(batch_dims)
    )
    if math.prod(out_shape) == 0:
        return xp.zeros(out_shape, dtype=x.dtype)
    per_batch = flat.size // batch
    x4 = x.reshape(batch, outer, dim, slice_size)
    idx = flat.reshape(batch, per_batch).astype(xp.intp)
    out = x4[xp.arange(batch)[:, None, None], xp.arange(outer)[None, :, None], idx[:, None, :]]
    return out.reshape(out_shape)


def _flat_slice_indices(indices, strides, slice_rank, limit, shape, xp):
    """Flat slice positions of each index tuple in ``indices``, checked as TF.js checks them
    (the flattened position must fall inside the tensor)."""
    rows = (
        indices.reshape(-1, slice_rank).astype(xp.int64) if slice_rank else indices.reshape(-1, 0)
    )
    flat = (
        rows @ xp.asarray(strides[:slice_rank], dtype=xp.int64)
        if slice_rank
        else xp.zeros(rows.shape[0], xp.int64)
    )
    bad = (flat < 0) | (flat >= limit)
    if bad.any():
        row = rows[int(xp.argmax(bad))]
        raise InvalidArgumentError(
            f"Invalid indices: {_js(int(v) for v in row)} does not index into {_js(shape)}"
        )
    return flat


def gather_nd(params, indices, *, xp):
    p_rank, i_rank = params.ndim, indices.ndim
    if p_rank < 1:
        raise ShapeError(
            f"tf.gather_nd() expects the input to be rank 1 or higher, but the rank was {p_rank}."
        )
    if i_rank < 1:
        raise ShapeError(
            f"tf.gather_nd() expects the indices to be rank 1 or higher, but the rank was {i_rank}."
        )
    if indices.dtype != xp.int32:
        raise DTypeError(
            f"tf.gather_nd() expects the indices to be int32 type, but the dtype was {indices.dtype}."
        )
    slice_rank = indices.shape[-1]
    if slice_rank > p_rank:
        raise ShapeError(
            f"index innermost dimension length must be <= tensor rank; saw: {slice_rank} vs. {p_rank}"
        )
    if params.size == 0:
        raise ShapeError(
            f"Requested more than 0 entries, but input is empty. Input shape: {_js(params.shape)}."
        )
    n_slices = math.prod(indices.shape[:-1])
    slice_size = math.prod(params.shape[slice_rank:])
    out_shape = [*indices.shape[:-1], *params.shape[slice_rank:]]
    if n_slices == 0:
        return xp.zeros(out_shape, dtype=params.dtype)
    if slice_rank == 0:  # an empty index tuple picks the whole of params (as TF.js's does)
        return xp.array(xp.broadcast_to(params, out_shape), copy=True)
    strides = [math.prod(params.shape[i + 1 :]) // slice_size for i in range(p_rank)]
    flat = _flat_slice_indices(
        indices, strides, slice_rank, params.size // slice_size, params.shape, xp
    )
    return xp.array(params.reshape(-1, slice_size)[flat], copy=True).reshape(out_shape)


def scatter_shapes(indices_shape, shape):
    """TF.js's ``calculateShapes``: (slice rank, number of updates, slice size, strides)."""
    slice_rank = indices_shape[-1] if len(indices_shape) > 1 else 1
    slice_size = math.prod(shape[slice_rank:])
    num_updates = math.prod(indices_shape) // max(slice_rank, 1)
    strides = [math.prod(shape[i + 1 : slice_rank]) for i in range(slice_rank)]
    return slice_rank, num_updates, slice_size, strides


def _scatter(base, indices, updates, shape, sum_duplicates, xp):
    slice_rank, num_updates, slice_size, strides = scatter_shapes(indices.shape, shape)
    size = math.prod(shape)
    if size == 0:
        return base.reshape(shape)
    out = base.reshape(size // slice_size, slice_size)
    flat = _flat_slice_indices(indices, strides, slice_rank, size // slice_size, shape, xp)
    values = updates.reshape(num_updates, slice_size)
    if sum_duplicates:
        if out.dtype == xp.bool_:
            ufunc_at(xp, "logical_or", out, flat, values)
        else:
            ufunc_at(xp, "add", out, flat, values.astype(out.dtype, copy=False))
    elif flat.size:
        order = flat[::-1]
        targets, first = xp.unique(order, return_index=True)  # the last update of each slice wins
        out[targets] = values[flat.size - 1 - first]
    return out.reshape(shape)


def scatter_nd(indices, updates, *, xp, shape):
    shape = [int(d) for d in shape]
    base = xp.zeros(math.prod(shape), dtype=updates.dtype)
    return _scatter(base, indices, updates, shape, True, xp)


def tensor_scatter_update(tensor, indices, updates, *, xp):
    base = xp.array(tensor, copy=True).reshape(-1)
    return _scatter(base, indices, updates, list(tensor.shape), False, xp)


KERNELS = {
    k.SLICE: slice_,
    k.SPLIT_V: split_v,
    k.UNPACK: unpack,
    k.TILE: tile,
    k.GATHER_V2: gather_v2,
    k.GATHER_ND: gather_nd,
    k.SCATTER_ND: scatter_nd,
    k.TENSOR_SCATTER_UPDATE: tensor_scatter_update,
}

RAW_KERNELS = {
    k.CONCAT: concat,
    k.PACK: pack,
    k.REVERSE: reverse,
    k.STRIDED_SLICE: strided_slice,
}
