"""Slicing and Joining (TF.js doc subheading 'Tensors / Slicing and Joining'), plus Python
indexing (``t[1:, None, idx]``), which ``ops/_chained.py`` installs as ``Tensor.__getitem__``."""

from __future__ import annotations

import builtins
import math
import operator
from typing import Any

from .. import kernel_names as k
from ..errors import (
    ArgumentTypeError,
    DTypeError,
    InvalidArgumentError,
    ShapeError,
    TensorIndexError,
)
from ..naming import snake_case
from ..tensor import Tensor
from ..tensor_util import scalar_tensor
from ._op import (
    axis_arg,
    checked_shape,
    convert_to_tensor,
    convert_to_tensor_array,
    describe,
    int_arg,
    int_list_arg,
    ints_arg,
    op,
    parse_axis_param,
    real_number,
    run_kernel,
)
from .arithmetic import mod
from .creation import clone, ones
from .logical import where_async
from .matrices import mat_mul
from .transformations import _js, reshape, squeeze

__all__ = [
    "boolean_mask_async",
    "concat",
    "concat1d",
    "concat2d",
    "concat3d",
    "concat4d",
    "gather",
    "gather_nd",
    "meshgrid",
    "reverse",
    "reverse1d",
    "reverse2d",
    "reverse3d",
    "reverse4d",
    "scatter_nd",
    "slice",
    "slice1d",
    "slice2d",
    "slice3d",
    "slice4d",
    "split",
    "stack",
    "strided_slice",
    "tensor_scatter_update",
    "tile",
    "unstack",
]


# ----------------------------------------------------------------------------- concat / stack


@op
def concat(tensors: Any, axis: int = 0) -> Tensor:
    """Joins tensors along ``axis``. The result has the first tensor's dtype.

    >>> tf.concat([tf.tensor([[1, 2], [3, 4]]), tf.tensor([[5], [6]])], 1).array_sync()
    [[1.0, 2.0, 5.0], [3.0, 4.0, 6.0]]
    """
    if not isinstance(tensors, (list, tuple)) or len(tensors) < 1:
        raise InvalidArgumentError("Pass at least one tensor to concat")
    ts = convert_to_tensor_array(list(tensors), "tensors", "concat", "string_or_numeric")
    if ts[0].dtype == "complex64":
        for t in ts:
            if t.dtype != "complex64":
                raise DTypeError(
                    f"Cannot concatenate complex64 tensors with a tensor with dtype {t.dtype}."
                )
    elif any(t.dtype == "complex64" for t in ts) or len({t.dtype == "string" for t in ts}) > 1:
        raise DTypeError(f"concat: cannot join tensors of dtypes {', '.join(t.dtype for t in ts)}")
    axis = axis_arg(axis, ts[0]._shape, "concat")
    if len(ts) == 1:
        return clone(ts[0])
    return run_kernel(k.CONCAT, tuple(ts), {"axis": axis})


def _concat_n(rank: int):
    name = f"concat{rank}d"
    if rank == 1:

        def concat_nd(tensors: Any) -> Tensor:
            return concat(tensors, 0)

    else:

        def concat_nd(tensors: Any, axis: int = 0) -> Tensor:
            return concat(tensors, axis)

    concat_nd.__name__ = concat_nd.__qualname__ = name
    concat_nd.__doc__ = f"``concat`` for rank-{rank} tensors (``tf.{name}``)."
    return op(concat_nd, name=name)


concat1d = _concat_n(1)
concat2d = _concat_n(2)
concat3d = _concat_n(3)
concat4d = _concat_n(4)


@op
def stack(tensors: Any, axis: int = 0) -> Tensor:
    """Stacks same-shape tensors along a new dimension ``axis``.

    >>> tf.stack([tf.tensor([1, 2]), tf.tensor([3, 4])], 1).array_sync()
    [[1.0, 3.0], [2.0, 4.0]]
    """
    ts = convert_to_tensor_array(tensors, "tensors", "stack", "string_or_numeric")
    if len(ts) < 1:
        raise InvalidArgumentError("Pass at least one tensor to tf.stack")
    axis = axis_arg(axis, [*ts[0]._shape, 1], "stack")
    if axis > ts[0].rank:
        raise InvalidArgumentError("Axis must be <= rank of the tensor")
    return run_kernel(k.PACK, tuple(ts), {"axis": int(axis)})


@op
def unstack(x: Any, axis: int = 0) -> list[Tensor]:
    """Splits ``x`` along ``axis`` into a list of tensors of one rank less.

    >>> [t.array_sync() for t in tf.unstack(tf.tensor([[1, 2], [3, 4]]))]
    [[1.0, 2.0], [3.0, 4.0]]
    """
    t = convert_to_tensor(x, "x", "unstack", "string_or_numeric")
    rank = t.rank
    f = real_number(axis)
    if f is None or not -rank <= f < rank:
        raise InvalidArgumentError(f"Axis = {describe(axis)} is not in [-{rank}, {rank})")
    axis = axis_arg(axis, t._shape, "unstack")
    return run_kernel(k.UNPACK, (t,), {"axis": int(axis) + (rank if axis < 0 else 0)})


def _split_sizes(dim: int, num_or_size_splits: Any) -> list[int]:
    """TF.js's ``prepareSplitSize`` (a -1 size takes the rest, computed as TF.js computes it)."""
    if isinstance(num_or_size_splits, (int, float)) and not isinstance(num_or_size_splits, bool):
        n = num_or_size_splits
        if n == 0 or not math.isfinite(n) or dim % n != 0:
            raise InvalidArgumentError("Number of splits must evenly divide the axis.")
        return [int(dim // n)] * int(n)
    if not isinstance(num_or_size_splits, (list, tuple, Tensor)) and not hasattr(
        num_or_size_splits, "ndim"
    ):
        raise ArgumentTypeError(
            "Argument 'num_or_size_splits' passed to 'split' must be a number or an array of "
            f"numbers, but got {describe(num_or_size_splits)}"
        )
    sizes = int_list_arg(num_or_size_splits, "split", "numOrSizeSplits", minimum=-1)
    if not sizes:
        raise InvalidArgumentError("split: size_splits must not be empty")
    if sizes.count(-1) > 1:
        raise InvalidArgumentError("There should be only one negative value in split array.")
    if -1 in sizes:
        # TF.js sums with reduce() and no initial value, so sizes[0] counts even when it is -1.
        total = sizes[0] + sum(s for s in sizes[1:] if s > 0)
        sizes[sizes.index(-1)] = dim - total
    if sum(sizes) != dim or any(s < 0 for s in sizes):
        raise InvalidArgumentError("The sum of sizes must match the size of the axis dimension.")
    return sizes


@op
def split(x: Any, num_or_size_splits: Any, axis: int = 0) -> list[Tensor]:
    """Splits ``x`` along ``axis`` into ``num_or_size_splits`` equal parts, or parts of the
    given sizes (one size may be -1: the rest).

    >>> [t.shape for t in tf.split(tf.tensor([[1, 2, 3, 4]]), [1, 3], 1)]
    [[1, 1], [1, 3]]
    """
    t = convert_to_tensor(x, "x", "split")
    ax = parse_axis_param(axis_arg(axis, t._shape, "split"), t._shape, "split")[0]
    sizes = _split_sizes(t._shape[ax], num_or_size_splits)
    return run_kernel(k.SPLIT_V, (t,), {"num_or_size_splits": sizes, "axis": ax})


@op
def tile(x: Any, reps: Any) -> Tensor:
    """Repeats ``x`` ``reps[i]`` times along each dimension ``i``.

    >>> tf.tile(tf.tensor([1, 2]), [2]).array_sync()
    [1.0, 2.0, 1.0, 2.0]
    """
    t = convert_to_tensor(x, "x", "tile", "string_or_numeric")
    reps = int_list_arg(reps, "tile", "reps")
    if t.rank != len(reps):
        raise ShapeError(
            f"Error in transpose: rank of input {t.rank} must match length of reps {_js(reps)}."
        )
    if any(r < 0 for r in reps):
        raise InvalidArgumentError(f"tile: reps must be non-negative, got {_js(reps)}")
    return run_kernel(k.TILE, (t,), {"reps": reps})


# ----------------------------------------------------------------------------- slices


@op
def slice(x: Any, begin: Any, size: Any = None) -> Tensor:  # noqa: A001 - TF.js name
    """The part of ``x`` that starts at ``begin`` with ``size`` (-1 or missing: to the end).

    >>> tf.slice(tf.tensor([[1, 2, 3], [4, 5, 6]]), [0, 1], [2, 2]).array_sync()
    [[2.0, 3.0], [5.0, 6.0]]
    """
    t = convert_to_tensor(x, "x", "slice", "string_or_numeric")
    if t.rank == 0:
        raise InvalidArgumentError("Slicing scalar is not possible")
    begin = ints_arg(begin, "slice", "begin")
    size = ints_arg(size, "slice", "size", allow_none=True)
    return run_kernel(k.SLICE, (t,), {"begin": begin, "size": size})


def _slice_n(rank: int):
    name = f"slice{rank}d"

    def slice_nd(x: Any, begin: Any, size: Any) -> Tensor:
        t = convert_to_tensor(x, "x", name)
        if t.rank != rank:
            raise ShapeError(f"{name} expects a rank-{rank} tensor, but got a rank-{t.rank} tensor")
        if rank == 1:
            return slice(t, [begin], [size])
        return slice(t, begin, size)

    slice_nd.__name__ = slice_nd.__qualname__ = name
    slice_nd.__doc__ = f"``slice`` of a rank-{rank} tensor (``tf.{name}``)."
    return op(slice_nd, name=name)


slice1d = _slice_n(1)
slice2d = _slice_n(2)
slice3d = _slice_n(3)
slice4d = _slice_n(4)


@op
def strided_slice(
    x: Any,
    begin: Any,
    end: Any,
    strides: Any = None,
    begin_mask: int = 0,
    end_mask: int = 0,
    ellipsis_mask: int = 0,
    new_axis_mask: int = 0,
    shrink_axis_mask: int = 0,
) -> Tensor:
    """TensorFlow's strided slice: ``x[begin:end:strides]`` per dimension, with bit masks
    (bit ``i`` for entry ``i``) that ignore a begin or end, mark an ellipsis, insert a new
    axis or drop a dimension indexed by a single position.

    >>> tf.strided_slice(tf.tensor([[1, 2, 3], [4, 5, 6]]), [0, 2], [2, 0], [1, -1]).array_sync()
    [[3.0, 2.0], [6.0, 5.0]]
    """
    t = convert_to_tensor(x, "x", "stridedSlice", "string_or_numeric")
    name = "stridedSlice"
    attrs = {
        "begin": int_list_arg(begin, name, "begin"),
        "end": int_list_arg(end, name, "end"),
        "strides": None if strides is None else int_list_arg(strides, name, "strides"),
        "begin_mask": int_arg(begin_mask, name, "beginMask", minimum=0),
        "end_mask": int_arg(end_mask, name, "endMask", minimum=0),
        "ellipsis_mask": int_arg(ellipsis_mask, name, "ellipsisMask", minimum=0),
        "new_axis_mask": int_arg(new_axis_mask, name, "newAxisMask", minimum=0),
        "shrink_axis_mask": int_arg(shrink_axis_mask, name, "shrinkAxisMask", minimum=0),
    }
    return run_kernel(k.STRIDED_SLICE, (t,), attrs)


@op
def reverse(x: Any, axis: Any = None) -> Tensor:
    """Reverses ``x`` along ``axis`` (an int or a list; all dimensions when omitted).

    >>> tf.reverse(tf.tensor([[1, 2], [3, 4]]), 1).array_sync()
    [[2.0, 1.0], [4.0, 3.0]]
    """
    t = convert_to_tensor(x, "x", "reverse")
    axis = axis_arg(axis, t._shape, "reverse", allow_none=True, many=True)
    return run_kernel(k.REVERSE, (t,), {"dims": axis})


def _reverse_n(rank: int):
    name = f"reverse{rank}d"

    def reverse_nd(x: Any, axis: Any = None) -> Tensor:
        t = convert_to_tensor(x, "x", "reverse")
        if t.rank != rank:
            raise ShapeError(
                f"Error in reverse{rank}D: x must be rank {rank} but got rank {t.rank}."
            )
        return reverse(t, 0 if rank == 1 else axis)

    if rank == 1:

        def reverse_1d(x: Any) -> Tensor:
            return reverse_nd(x)

        fn = reverse_1d
    else:
        fn = reverse_nd
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``reverse`` of a rank-{rank} tensor (``tf.{name}``)."
    return op(fn, name=name)


reverse1d = _reverse_n(1)
reverse2d = _reverse_n(2)
reverse3d = _reverse_n(3)
reverse4d = _reverse_n(4)


# ----------------------------------------------------------------------------- gather / scatter


@op
def gather(x: Any, indices: Any, axis: int = 0, batch_dims: int = 0) -> Tensor:
    """Picks slices of ``x`` along ``axis`` at the int32 ``indices``.

    >>> tf.gather(tf.tensor([[1, 2], [3, 4], [5, 6]]), tf.tensor([2, 0], None, 'int32')).array_sync()
    [[5.0, 6.0], [1.0, 2.0]]
    """
    t = convert_to_tensor(x, "x", "gather")
    idx = convert_to_tensor(indices, "indices", "gather", "int32")
    axis = axis_arg(axis, t._shape, "gather")
    if batch_dims is not None:
        batch_dims = int_arg(batch_dims, "gather", "batchDims", minimum=-(2**31))
    return run_kernel(k.GATHER_V2, (t, idx), {"axis": axis, "batch_dims": batch_dims})


@op
def gather_nd(x: Any, indices: Any) -> Tensor:
    """Picks elements or slices of ``x`` at the index tuples in the last dimension of
    ``indices``.

    >>> tf.gather_nd(tf.tensor([[1, 2], [3, 4]]), tf.tensor([[1, 0]], None, 'int32')).array_sync()
    [3.0]
    """
    idx = convert_to_tensor(indices, "indices", "gatherND", "int32")
    t = convert_to_tensor(x, "x", "gatherND", "string_or_numeric")
    if idx.rank >= 1 and idx._shape[-1] <= t.rank:
        # Refuse a result TF.js's int32 sizes could not hold before the kernel allocates it
        # (an empty index tuple picks the whole of x, once per tuple).
        checked_shape([*idx._shape[:-1], *t._shape[idx._shape[-1] :]], "gatherND")
    return run_kernel(k.GATHER_ND, (t, idx))


def _validate_scatter(updates: Tensor, indices: Tensor, shape: list[int]) -> None:
    """TF.js's ``scatter_nd_util.validateInput``."""
    if indices.rank < 1:
        raise ShapeError(
            f"tf.scatter_nd() expects the indices to be rank 1 or higher, but the rank was {indices.rank}."
        )
    if updates.rank < 1:
        raise ShapeError(
            f"tf.scatter_nd() expects the updates to be rank 1 or higher, but the rank was {updates.rank}."
        )
    if indices.dtype != "int32":
        raise DTypeError(f"The dtype of 'indices' should be int32, but got dtype: {indices.dtype}")
    if len(shape) < 1:
        raise ShapeError(f"Output rank must be greater or equal to 1, but got shape: {_js(shape)}")
    i_shape, u_shape = indices._shape, updates._shape
    slice_dim = i_shape[-1] if indices.rank > 1 else 1
    batch_dim = indices.rank - 1 if indices.rank > 1 else 1
    prefix = (
        "Must have updates.shape = indices.shape[:batch_dim] + shape[slice_dim:], got updates.shape: "
        f"{_js(u_shape)}, indices.shape: {_js(i_shape)}, shape: {_js(shape)}, slice_dim: {slice_dim}, "
        f"and batch_dim: {batch_dim}."
    )
    if updates.rank < batch_dim:
        raise ShapeError(prefix + f" update.rank < {batch_dim}. ")
    if len(shape) < slice_dim + (updates.rank - batch_dim):
        raise ShapeError(
            prefix + f" Output shape length < {slice_dim + (updates.rank - batch_dim)}"
        )
    if updates.rank != batch_dim + len(shape) - slice_dim:
        raise ShapeError(prefix + f" update.rank != {batch_dim + len(shape) - slice_dim}")
    for d in range(batch_dim):
        if u_shape[d] != i_shape[d]:
            raise ShapeError(
                prefix + f" updates.shape[{d}] ({u_shape[d]}) != indices.shape[{d}] ({i_shape[d]})."
            )
    for d in range(updates.rank - batch_dim):
        if u_shape[d + batch_dim] != shape[d + slice_dim]:
            raise ShapeError(
                prefix + f" updates.shape[{d + batch_dim}] ({u_shape[d + batch_dim]}) != "
                f"shape[{d + batch_dim}] ({shape[d + batch_dim]})"
            )


@op
def scatter_nd(indices: Any, updates: Any, shape: Any) -> Tensor:
    """A zero tensor of ``shape`` with ``updates`` added at ``indices`` (duplicates sum).

    >>> tf.scatter_nd(tf.tensor([[1], [3]], None, 'int32'), tf.tensor([9, 10]), [4]).array_sync()
    [0.0, 9.0, 0.0, 10.0]
    """
    if not isinstance(shape, (list, tuple)) and not hasattr(shape, "ndim"):
        raise ShapeError(
            f"Tensor must have a shape comprised of positive integers but got shape "
            f"{describe(shape)}."
        )
    shape = list(shape)
    if not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape):
        raise ShapeError(
            f"Tensor must have a shape comprised of positive integers but got shape [{_js(shape)}]."
        )
    idx = convert_to_tensor(indices, "indices", "scatterND", "int32")
    upd = convert_to_tensor(updates, "updates", "scatterND")
    _validate_scatter(upd, idx, shape)
    return run_kernel(k.SCATTER_ND, (idx, upd), {"shape": shape})


@op
def tensor_scatter_update(tensor: Any, indices: Any, updates: Any) -> Tensor:
    """A copy of ``tensor`` with the slices at ``indices`` replaced by ``updates``.

    >>> tf.tensor_scatter_update(tf.tensor([1, 2, 3]), tf.tensor([[0]], None, 'int32'), tf.tensor([9])).array_sync()
    [9.0, 2.0, 3.0]
    """
    t = convert_to_tensor(tensor, "tensor", "tensorScatterupdate")
    idx = convert_to_tensor(indices, "indices", "tensorScatterupdate", "int32")
    upd = convert_to_tensor(updates, "updates", "tensorScatterupdate")
    _validate_scatter(upd, idx, list(t._shape))
    if t.dtype != upd.dtype:
        raise DTypeError(
            f"tensor and updates must have the same dtype, instead they are {t.dtype} and {upd.dtype}."
        )
    return run_kernel(k.TENSOR_SCATTER_UPDATE, (t, idx, upd), {})


# ----------------------------------------------------------------------------- composites


def meshgrid(x: Any = None, y: Any = None, indexing: Any = "xy") -> list[Tensor]:
    """Coordinate grids from two vectors: ``'xy'`` (Cartesian, the default) or ``'ij'``
    (matrix) indexing. Like TF.js's, it runs without an op scope: its reshapes and ones stay
    alive until disposed or until the enclosing ``tidy`` ends.

    >>> X, Y = tf.tidy(lambda: tf.meshgrid([1, 2, 3], [4, 5]))
    >>> X.shape, Y.array_sync()
    ([2, 3], [[4.0, 4.0, 4.0], [5.0, 5.0, 5.0]])
    """
    if isinstance(indexing, dict):
        indexing = indexing.get("indexing", "xy")
    if not isinstance(indexing, str) or indexing not in ("xy", "ij"):
        shown = indexing if isinstance(indexing, str) else describe(indexing)
        raise ArgumentTypeError(f"{shown} is not a valid third argument to meshgrid")
    if x is None:
        return []
    for name, v in (("x", x), ("y", y)):
        if isinstance(v, Tensor) and v.dtype in ("string", "complex64"):
            raise DTypeError(
                f"Argument '{snake_case(name)}' passed to 'meshgrid' must be a float32, int32 or bool "
                f"tensor, but got {describe(v)}"
            )
    tx = convert_to_tensor(x, "x", "meshgrid", x.dtype if isinstance(x, Tensor) else "float32")
    if y is None:
        return [tx]
    try:
        ty = convert_to_tensor(y, "y", "meshgrid", y.dtype if isinstance(y, Tensor) else "float32")
    except BaseException:
        if tx is not x:
            tx.dispose()
        raise
    w, h = tx.size, ty.size
    if indexing == "xy":
        tx, ty = reshape(tx, [1, -1]), reshape(ty, [-1, 1])
        return [mat_mul(ones([h, 1], tx.dtype), tx), mat_mul(ty, ones([1, w], ty.dtype))]
    tx, ty = reshape(tx, [-1, 1]), reshape(ty, [1, -1])
    return [mat_mul(tx, ones([1, h], tx.dtype)), mat_mul(ones([w, 1], ty.dtype), ty)]


def boolean_mask_async(tensor: Any, mask: Any, axis: int | None = None) -> Tensor:
    """The slices of ``tensor`` where the bool ``mask`` (covering dimensions ``axis`` to
    ``axis + mask.rank``) is true (TF.js's ``booleanMaskAsync``, synchronous here).

    >>> tf.boolean_mask_async(tf.tensor([[1, 2], [3, 4]]), tf.tensor([True, False])).array_sync()
    [[1.0, 2.0]]
    """
    start = 0 if axis is None else int_arg(axis, "boolMask", "axis", minimum=0)
    t = convert_to_tensor(tensor, "tensor", "boolMask")
    try:
        m = convert_to_tensor(mask, "mask", "boolMask", "bool")
    except BaseException:
        if t is not tensor:
            t.dispose()
        raise
    k_dims = m.rank
    shape = list(t._shape)
    covered = shape[start : start + k_dims]
    if k_dims <= 0 or covered != list(m._shape):
        for made, given in ((t, tensor), (m, mask)):  # fail without leaving conversions behind
            if made is not given:
                made.dispose()
        if k_dims <= 0:
            raise ShapeError("mask cannot be scalar")
        raise ShapeError(
            "mask's shape must match the first K dimensions of tensor's shape, "
            f"Shapes {_js(covered)} and {_js(m._shape)} must match"
        )
    target = shape[:start] + [math.prod(covered)] + shape[start + k_dims :]
    flat_t = reshape(t, target)
    flat_m = reshape(m, [-1])
    positions = where_async(flat_m)
    indices = squeeze(positions, [1])
    result = gather(flat_t, indices, start)
    if t is not tensor:
        t.dispose()
    if m is not mask:
        m.dispose()
    for tmp in (indices, flat_t, flat_m, positions):
        tmp.dispose()
    return result


# ----------------------------------------------------------------------------- indexing

_INDEX_TYPES = "only integers, slices (`:`), ellipsis (`...`), None and integer or boolean tensors/lists are valid indices"


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, (list, tuple)):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def _key_tensor(key: Any) -> Tensor:
    """A list / NumPy array key as an int32 (positions) or bool (mask) tensor."""
    kind = getattr(getattr(key, "dtype", None), "kind", None)
    if kind is not None:  # a NumPy array
        if kind == "b":
            return convert_to_tensor(key, "key", "getitem", "bool")
        if kind in "iu":
            return convert_to_tensor(key, "key", "getitem", "int32")
        raise TensorIndexError(f"{_INDEX_TYPES}; got an array of dtype {key.dtype}")
    leaves = _leaves(key)
    if leaves and all(isinstance(v, bool) for v in leaves):
        return convert_to_tensor(key, "key", "getitem", "bool")
    for v in leaves:
        if isinstance(v, bool) or not hasattr(v, "__index__"):
            raise TensorIndexError(f"{_INDEX_TYPES}; got a list holding {type(v).__name__}")
    return convert_to_tensor(_as_ints(key), "key", "getitem", "int32")


def _as_ints(v: Any) -> Any:
    return [_as_ints(u) for u in v] if isinstance(v, (list, tuple)) else operator.index(v)


def _classify(key: Any) -> list[tuple]:
    items = []
    for part in key if isinstance(key, tuple) else (key,):
        if part is None:
            items.append(("new",))
        elif part is Ellipsis:
            items.append(("ellipsis",))
        elif isinstance(part, builtins.slice):
            items.append(("slice", part))
        elif isinstance(part, Tensor):
            if part.dtype == "bool" and part.rank > 0:
                items.append(("mask", part))
            elif part.dtype == "int32":
                items.append(("int", int(part)) if part.rank == 0 else ("array", part))
            else:
                raise TensorIndexError(
                    f"{_INDEX_TYPES}; got a {part.dtype} tensor of rank {part.rank}"
                )
        elif isinstance(part, (list, tuple)) or hasattr(part, "__array_interface__"):
            t = _key_tensor(part)  # a list, a NumPy array or a NumPy scalar
            if t.rank > 0:
                items.append(("mask", t) if t.dtype == "bool" else ("array", t))
            elif t.dtype == "int32":
                items.append(("int", int(t)))
            else:
                raise TensorIndexError(f"{_INDEX_TYPES}; got a {t.dtype} scalar")
        elif isinstance(part, bool):
            raise TensorIndexError(f"{_INDEX_TYPES}; got bool")
        else:
            try:
                items.append(("int", operator.index(part)))
            except TypeError:
                raise TensorIndexError(f"{_INDEX_TYPES}; got {type(part).__name__}") from None
    return items


def _expand_ellipsis(items: list[tuple], rank: int) -> list[tuple]:
    used = sum(
        it[1].rank if it[0] == "mask" else 1
        for it in items
        if it[0] in ("int", "slice", "array", "mask")
    )
    if used > rank:
        raise TensorIndexError(
            f"too many indices for tensor: tensor is {rank}-dimensional, but {used} were indexed"
        )
    ellipses = [i for i, it in enumerate(items) if it[0] == "ellipsis"]
    if len(ellipses) > 1:
        raise TensorIndexError("an index can only have a single ellipsis ('...')")
    fill = [("slice", builtins.slice(None))] * (rank - used)
    if not ellipses:
        return items + fill
    at = ellipses[0]
    # The marker keeps NumPy's rule: an ellipsis, even of no dimensions, separates two
    # advanced indices.
    return items[:at] + [("ellipsis",)] + fill + items[at + 1 :]


def _array_positions(t: Tensor, dim: int, axis: int) -> Tensor:
    """``t`` (int32 positions along a dimension of size ``dim``) checked and made
    non-negative."""
    values = t.data_sync()
    if values.size:
        low, high = int(values.min()), int(values.max())
        if low < -dim or high >= dim:
            bad = low if low < -dim else high
            raise TensorIndexError(f"index {bad} is out of bounds for axis {axis} with size {dim}")
        if low < 0:
            return mod(t, scalar_tensor(dim, "int32"))
    return t


@op(name="getitem")
def tensor_getitem(self: Tensor, key: Any) -> Tensor:
    """NumPy-style indexing: ints (negative too), slices with steps, ``None``, ``...``, and
    one int list / int32 tensor (a gather) or bool tensor (a mask) per key.

    >>> t = tf.tensor([[1, 2, 3], [4, 5, 6]])
    >>> t[1].array_sync(), t[:, ::-2].array_sync(), t[None, -1, [0, 2]].shape
    ([4.0, 5.0, 6.0], [[3.0, 1.0], [6.0, 4.0]], [1, 2])
    """
    x = convert_to_tensor(self, "x", "getitem", "string_or_numeric")
    shape = x._shape
    items = _expand_ellipsis(_classify(key), len(shape))
    advanced = [i for i, it in enumerate(items) if it[0] in ("array", "mask")]
    if len(advanced) > 1:
        raise TensorIndexError("tidytensor supports one integer-array or boolean index per key")

    begin, end, strides = [], [], []
    end_mask = 0
    layout = []  # per item: ('drop',) for an int, ('adv',) for the advanced index, else ('dims', sizes)
    adv_dims: list[int] = []
    adv_axis = 0  # position of the advanced index in the sliced tensor
    adv_tensor = None
    d = 0
    for it in items:
        kind = it[0]
        if kind == "new":
            layout.append(("dims", [1]))
            continue
        if kind == "ellipsis":
            layout.append(("dims", []))
            continue
        if kind in ("array", "mask"):
            width = it[1].rank if kind == "mask" else 1
            covered = list(shape[d : d + width])
            if kind == "mask" and covered != list(it[1]._shape):
                raise TensorIndexError(
                    f"boolean index did not match indexed tensor along dimensions {d}..{d + width - 1}; "
                    f"shape is [{_js(covered)}] but the boolean index has shape [{_js(it[1]._shape)}]"
                )
            adv_axis = len(begin)
            adv_tensor = it[1] if kind == "mask" else _array_positions(it[1], shape[d], d)
            for _ in range(width):
                begin.append(0)
                end.append(shape[d])
                strides.append(1)
                d += 1
            layout.append(("adv",))
            continue
        dim = shape[d]
        if kind == "int":
            i = it[1]
            if not -dim <= i < dim:
                raise TensorIndexError(f"index {i} is out of bounds for axis {d} with size {dim}")
            i += dim if i < 0 else 0
            begin.append(i)
            end.append(i + 1)
            strides.append(1)
            layout.append(("drop",))
        else:
            if it[1].step == 0:
                raise InvalidArgumentError("slice step cannot be zero")
            start, stop, step = it[1].indices(dim)
            n = len(range(start, stop, step))
            if n == 0:
                start, stop, step = 0, 0, 1
            elif step < 0 and stop < 0:
                end_mask |= 1 << len(begin)
                stop = 0
            begin.append(start)
            end.append(stop)
            strides.append(step)
            layout.append(("dims", [n]))
        d += 1

    out = strided_slice(x, begin, end, strides, 0, end_mask)
    if adv_tensor is not None:
        if adv_tensor.dtype == "bool":  # booleanMaskAsync's steps, for every dtype
            sh = list(out._shape)
            width = adv_tensor.rank
            out = reshape(
                out,
                sh[:adv_axis]
                + [math.prod(sh[adv_axis : adv_axis + width])]
                + sh[adv_axis + width :],
            )
            adv_tensor = squeeze(where_async(reshape(adv_tensor, [-1])), [1])
        adv_dims = list(adv_tensor._shape)
        # The kernel directly: indexing gathers strings too, which tf.gather refuses.
        out = run_kernel(k.GATHER_V2, (out, adv_tensor), {"axis": adv_axis, "batch_dims": 0})
    final: list[int] = []
    for entry in layout:
        if entry[0] == "dims":
            final += entry[1]
        elif entry[0] == "adv":
            final += adv_dims
    if out._shape != tuple(final):
        out = reshape(out, final)
    if adv_tensor is not None and any(e[0] == "drop" for e in layout):
        group = [i for i, e in enumerate(layout) if e[0] in ("adv", "drop")]
        if group[-1] - group[0] + 1 != len(group):  # NumPy moves separated advanced dims first
            start = sum(len(e[1]) for e in layout[: layout.index(("adv",))] if e[0] == "dims")
            moved = list(range(start, start + len(adv_dims)))
            rest = [i for i in range(len(final)) if i not in moved]
            out = run_kernel(k.TRANSPOSE, (out,), {"perm": moved + rest})  # strings too
    return out
