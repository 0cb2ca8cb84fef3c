"""Gradients of the slicing and joining kernels (TF.js's Concat_grad.ts, GatherV2_grad.ts,
Pack_grad.ts, Reverse_grad.ts, Slice_grad.ts, SplitV_grad.ts, Tile_grad.ts, Unpack_grad.ts).

StridedSlice, GatherNd, ScatterNd and TensorScatterUpdate have no gradient, as in TF.js.
SplitV and Unpack with a single output get that output's dy as a tensor, not a list; TF.js
then fails inside concat/stack ("Pass at least one tensor to concat"), here the one
gradient is joined as a list of one.
"""

from __future__ import annotations

import itertools

from .. import kernel_names as k
from .. import ops
from ..errors import GradientError
from ..geometry.axes import parse_axis
from ..geometry.slicing import parse_slice_params
from ..kernel_registry import GradConfig, register_gradient
from .reduction import get_undo_axes_permutation


def _as_list(dy):
    return list(dy) if isinstance(dy, (list, tuple)) else [dy]


def _concat_grad(dy, saved, attrs):
    axis = parse_axis(attrs["axis"], saved[0]._shape)[0]
    size_splits = [t._shape[axis] for t in saved]
    # As in TF.js, dy is split when the gradient function runs; each thunk hands out a part.
    parts = ops.split(dy, size_splits, axis)
    return tuple((lambda t=t: t) for t in parts)


def _pack_grad(dy, saved, attrs):
    parts = ops.unstack(dy, attrs["axis"])
    return tuple((lambda t=t: t) for t in parts)


def _unpack_grad(dy, saved, attrs):
    return (lambda: ops.stack(_as_list(dy), attrs["axis"]),)


def _split_v_grad(dy, saved, attrs):
    return (lambda: ops.concat(_as_list(dy), attrs["axis"]),)


def _reverse_grad(dy, saved, attrs):
    axes = parse_axis(attrs["dims"], dy._shape)
    return (lambda: ops.reverse(dy, axes),)


def _slice_grad(dy, saved, attrs):
    (x,) = saved
    begin, size = parse_slice_params(x._shape, attrs["begin"], attrs["size"])
    # [zeros before, zeros after] per dimension.
    paddings = [[begin[i], x._shape[i] - begin[i] - size[i]] for i in range(dy.rank)]
    return (lambda: ops.pad(dy, paddings),)


def _tile_grad(dy, saved, attrs):
    (x,) = saved
    reps = attrs["reps"]

    def der_x():
        rank = x.rank
        if not 1 <= rank <= 4:
            raise GradientError(
                f"Gradient for tile operation is not implemented for rank-{rank} tensors yet."
            )
        shape = list(x._shape)
        x_grad = ops.zeros_like(x)
        # Sums dy's tiles one by one, the first dimension's index outermost (TF.js's loops).
        for index in itertools.product(*(range(int(r)) for r in reps[:rank])):
            begin = [i * d for i, d in zip(index, shape, strict=True)]
            x_grad = ops.add(x_grad, ops.slice(dy, begin, shape))
        return x_grad

    return (der_x,)


def _gather_grad(dy, saved, attrs):
    x, indices = saved
    axis = attrs["axis"]
    batch_dims = attrs.get("batch_dims", 0)
    parsed_axis = parse_axis(axis, x._shape)[0]

    def der_x_batch(x, indices, dy):
        def der():
            params_shape = list(x._shape)
            indices_size = indices.size
            outer_shape = params_shape[:parsed_axis]
            outer_dims = len(outer_shape)
            inner_shape = params_shape[parsed_axis + 1 :]
            inner_dims = len(inner_shape)
            outer_axes = list(range(outer_dims))
            inner_axes = list(range(outer_dims + 1, outer_dims + 1 + inner_dims))
            values = ops.reshape(dy, [*outer_shape, indices_size, *inner_shape])
            reshaped_indices = ops.reshape(indices, [indices_size])
            transpose_dims = [outer_dims, *outer_axes, *inner_axes]
            values_transpose = ops.transpose(values, transpose_dims)
            params_grad = ops.unsorted_segment_sum(
                values_transpose, reshaped_indices, x._shape[parsed_axis]
            )
            return ops.transpose(params_grad, get_undo_axes_permutation(transpose_dims))

        return der

    if batch_dims == 1:
        batch_size = x._shape[0]
        x_batch = ops.split(x, batch_size, 0)

        def der_x_batched():
            stacked = ops.stack(
                [
                    der_x_batch(xi, ops.slice(indices, i, 1), ops.slice(dy, i, 1))()
                    for i, xi in enumerate(x_batch)
                ]
            )
            return ops.reshape(stacked, list(x._shape))

        return (der_x_batched, lambda: indices)
    # TF.js "differentiates" the int32 indices as themselves; the tape then refuses them.
    return (der_x_batch(x, indices, dy), lambda: indices)


for _config in (
    GradConfig(k.CONCAT, _concat_grad, save_all_inputs=True),
    GradConfig(k.GATHER_V2, _gather_grad, inputs_to_save=(0, 1)),
    GradConfig(k.PACK, _pack_grad, save_all_inputs=True),
    GradConfig(k.REVERSE, _reverse_grad),
    GradConfig(k.SLICE, _slice_grad, inputs_to_save=(0,)),
    GradConfig(k.SPLIT_V, _split_v_grad),
    GradConfig(k.TILE, _tile_grad, inputs_to_save=(0,)),
    GradConfig(k.UNPACK, _unpack_grad),
):
    register_gradient(_config)
