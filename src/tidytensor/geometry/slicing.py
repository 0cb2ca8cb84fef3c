"""Slice geometry (TF.js's ``slice_util``): where a ``slice`` begins and how far it reaches,
checked against the input's shape, and a strided slice's dense begin/end/strides and shapes
(``slice_info``: masks, ellipsis, new axes and shrinking, as TensorFlow's
``strided_slice_op.cc``). Shared by the slice kernels, their gradients and the memory
limit's output bounds."""

from __future__ import annotations

from ..errors import InvalidArgumentError, ShapeError

#: ``slice_info``'s gather markers: a new axis of size 1, a shrunk (dropped) axis
NEW_AXIS = -2
SHRINK_AXIS = -1


def _js(values) -> str:
    return ",".join(str(v) for v in values)


def parse_slice_params(shape, begin, size):
    """TF.js's ``parseSliceParams`` + ``assertParamsValid``: a number or short list is
    completed with zeros (begin) or -1 (size, meaning "to the end")."""
    rank = len(shape)
    if isinstance(begin, (int, float)):
        begin = [begin] + [0] * (rank - 1)
    begin = [int(b) for b in begin]
    begin += [0] * (rank - len(begin))
    if any(b < 0 for b in begin):
        raise InvalidArgumentError("slice() does not support negative begin indexing.")
    if size is None:
        size = [-1] * rank
    elif isinstance(size, (int, float)):
        size = [size] + [-1] * (rank - 1)
    size = [int(s) for s in size]
    size += [-1] * (rank - len(size))
    out_size = []
    for i, s in enumerate(size):
        if s >= 0:
            out_size.append(s)
        elif s == -1:
            out_size.append(shape[i] - begin[i] if i < rank and i < len(begin) else 0)
        else:
            raise InvalidArgumentError(
                f"Negative size values should be exactly -1 but got {s} for the slice() size at index {i}."
            )
    if len(begin) != rank:
        raise ShapeError(
            f"Error in slice{rank}D: Length of begin {_js(begin)} must match the rank of the array ({rank})."
        )
    if len(out_size) != rank:
        raise ShapeError(
            f"Error in slice{rank}D: Length of size {_js(out_size)} must match the rank of the array ({rank})."
        )
    for i in range(rank):
        if begin[i] + out_size[i] > shape[i]:
            raise ShapeError(
                f"Error in slice{rank}D: begin[{i}] + size[{i}] ({begin[i] + out_size[i]}) would "
                f"overflow input.shape[{i}] ({shape[i]})"
            )
    return begin, out_size


def _canonical(x, c, stride, dim, masks, valid):
    if masks[c]:
        return valid[c] if stride > 0 else valid[(c + 1) & 1]
    fwd = dim + x if x < 0 else x
    return valid[0] if fwd < valid[0] else valid[1] if fwd > valid[1] else fwd


def slice_info(
    shape,
    begin,
    end,
    strides,
    begin_mask=0,
    end_mask=0,
    ellipsis_mask=0,
    new_axis_mask=0,
    shrink_axis_mask=0,
):
    """Dense ``(begin, end, strides, processing_shape, final_shape, is_identity)`` of a
    strided slice (TF.js's ``sliceInfo``)."""
    begin = [int(b) for b in begin]
    end = [int(e) for e in end]
    strides = [1] * len(begin) if strides is None else [int(s) for s in strides]
    if ellipsis_mask & (ellipsis_mask - 1):
        raise InvalidArgumentError("Multiple ellipses in slice is not allowed.")
    sparse_dims = len(strides)
    for i in range(sparse_dims):  # entries with no begin/end value count as masked
        if i >= len(begin):
            begin_mask |= 1 << i
        if i >= len(end):
            end_mask |= 1 << i
    begin += [0] * (sparse_dims - len(begin))
    end += [0] * (sparse_dims - len(end))
    new_after_ellipsis = 0
    seen = False
    for i in range(sparse_dims):
        if seen and (1 << i) & new_axis_mask:
            new_after_ellipsis += 1
        if (1 << i) & ellipsis_mask:
            seen = True
    if not seen:
        ellipsis_mask |= 1 << sparse_dims
        sparse_dims += 1

    # Sparse spec -> one entry per input dimension.
    dims = len(shape)
    d_begin, d_end, d_strides = [0] * dims, [0] * dims, [1] * dims
    d_bmask = d_emask = d_shrink = 0
    gather = []
    full = 0
    for i in range(sparse_dims):
        bit = 1 << i
        if bit & ellipsis_mask:
            stop = min(dims - (sparse_dims - i) + 1 + new_after_ellipsis, dims)
            while full < stop:
                d_bmask |= 1 << full
                d_emask |= 1 << full
                gather.append(full)
                full += 1
        elif bit & new_axis_mask:
            gather.append(NEW_AXIS)
        else:
            if full == dims:
                raise InvalidArgumentError(
                    f"Index out of range using input dim {full}; input has only {dims} dims, {dims}."
                )
            d_begin[full], d_end[full], d_strides[full] = begin[i], end[i], strides[i]
            if begin_mask & bit:
                d_bmask |= 1 << full
            if end_mask & bit:
                d_emask |= 1 << full
            if shrink_axis_mask & bit:
                gather.append(SHRINK_AXIS)
                d_shrink |= 1 << full
            else:
                gather.append(full)
            full += 1

    is_identity = True
    processing = []
    for i in range(dims):
        stride = d_strides[i]
        if stride == 0:
            raise InvalidArgumentError(f"strides[{i}] must be non-zero")
        shrink = bool(d_shrink & (1 << i))
        dim = shape[i]
        masks = (d_bmask & (1 << i), d_emask & (1 << i))
        valid = (0, dim) if stride > 0 else (-1, dim - 1)
        if shrink and stride <= 0:
            raise InvalidArgumentError("only stride 1 allowed on non-range indexing.")
        if shrink:
            fwd = dim + d_begin[i] if d_begin[i] < 0 else d_begin[i]
            d_begin[i], d_end[i] = fwd, fwd + 1
            if fwd < 0 or fwd >= dim:
                raise InvalidArgumentError(f"slice index {fwd} of dimension {i} out of bounds.")
        else:
            d_begin[i] = _canonical(d_begin[i], 0, stride, dim, masks, valid)
            d_end[i] = _canonical(d_end[i], 1, stride, dim, masks, valid)
        is_identity = is_identity and stride == 1 and d_begin[i] == 0 and d_end[i] == dim
        interval = d_end[i] - d_begin[i]
        if interval == 0 or (interval < 0) != (stride < 0):
            processing.append(0)
        else:
            processing.append(-(-abs(interval) // abs(stride)))
    final = [processing[g] if g >= 0 else 1 for g in gather if g != SHRINK_AXIS]
    return d_begin, d_end, d_strides, processing, final, is_identity
