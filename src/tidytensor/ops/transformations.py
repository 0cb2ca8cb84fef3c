"""Transformations (TF.js doc subheading 'Tensors / Transformations')."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import kernel_names as k
from ..dtypes import DTYPES, STRING, upcast_type
from ..errors import ArgumentTypeError, DTypeError, InvalidArgumentError, ShapeError
from ..naming import snake_case
from ..tensor import Tensor
from ..tensor_util import make_tensor
from ._op import (
    MAX_RANK,
    checked_shape,
    convert_to_tensor,
    describe,
    float_arg,
    int_value,
    js_str,
    op,
    parse_axis_param,
    real_number,
    run_kernel,
    str_arg,
)
from .creation import clone

__all__ = [
    "batch_to_space_nd",
    "broadcast_args",
    "broadcast_to",
    "cast",
    "depth_to_space",
    "ensure_shape",
    "expand_dims",
    "mirror_pad",
    "pad",
    "pad1d",
    "pad2d",
    "pad3d",
    "pad4d",
    "reshape",
    "setdiff1d_async",
    "space_to_batch_nd",
    "squeeze",
]


def _js(values: Any) -> str:
    """A list as JS's ``${array}`` prints it: ``1,2,3`` (null/None as an empty string)."""
    if isinstance(values, (list, tuple)):
        return ",".join(_js(v) for v in values)
    if isinstance(values, float):
        return js_str(values)
    return "" if values is None else str(values)


def _items(values: Any) -> Any:
    """An array argument's items (a list, tuple, NumPy array or tensor), else None."""
    if isinstance(values, Tensor):
        if values.is_disposed or values.dtype == STRING or values.rank == 0:
            return None
        return values.array_sync()
    if isinstance(values, np.ndarray):
        return values.tolist() if values.ndim else None
    return values if isinstance(values, (list, tuple)) else None


def _as_list(values: Any) -> Any:
    """``_items``, with a bare number (or a one-element scalar tensor) as a list of one."""
    if isinstance(values, Tensor):
        return (
            [values.array_sync()] if values.rank == 0 and not values.is_disposed else _items(values)
        )
    if isinstance(values, np.ndarray) and values.ndim:
        return _items(values)
    return [values] if real_number(values) is not None else _items(values)


def _ints(values: Any, what: str, op_name: str) -> list[int]:
    items = _as_list(values)
    out = None if not isinstance(items, list) else [int_value(v) for v in items]
    if out is None or any(v is None for v in out):
        raise InvalidArgumentError(
            f"{snake_case(op_name)}: {what} must be a list of integers, got {describe(values)}"
        )
    return out  # type: ignore[return-value]


def _pairs(paddings: Any, op_name: str) -> list[list[int]]:
    rows = _items(paddings)
    out = None
    if isinstance(rows, list):
        out = [_items(p) for p in rows]
        if all(isinstance(p, list) for p in out):
            out = [[int_value(v) for v in p] for p in out]  # type: ignore[union-attr]
            if any(v is None for p in out for v in p):
                out = None
        else:
            out = None
    if out is None:
        raise InvalidArgumentError(
            f"{snake_case(op_name)}: paddings must be a list of [before, after] integer pairs, got "
            f"{describe(paddings)}"
        )
    return out  # type: ignore[return-value]


def _padded_shape(shape: tuple[int, ...], pairs: list[list[int]], op_name: str) -> None:
    """Refuses paddings that would make a result past TF.js's int32 element count."""
    checked_shape([p[0] + d + p[1] for d, p in zip(shape, pairs, strict=True)], op_name)


@op
def cast(x: Any, dtype: str) -> Tensor:
    """Casts to ``dtype``: floats truncate toward zero into int32, anything becomes bool as
    ``!= 0``. Casting to the same dtype shares the buffer.

    >>> tf.cast(tf.tensor([1.7, -1.7, 2.5]), 'int32').array_sync()
    [1, -1, 2]
    """
    x = convert_to_tensor(x, "x", "cast")
    if not isinstance(dtype, str) or dtype not in DTYPES:
        shown = dtype if isinstance(dtype, (str, list, tuple)) or dtype is None else describe(dtype)
        raise DTypeError(f"Failed to cast to unknown dtype {shown}")
    if (dtype == STRING) != (x.dtype == STRING):
        raise DTypeError("Only strings can be casted to strings")
    return run_kernel(k.CAST, (x,), {"dtype": dtype})


def infer_from_implicit_shape(shape: Any, size: int) -> tuple[int, ...]:
    """Resolves one ``-1`` in ``shape`` (TF.js's ``inferFromImplicitShape``). Numbers that
    are not integers go through TF.js's checks as they would there (a NaN is skipped), so
    its messages come out; the caller refuses what is left."""
    shape = list([shape] if isinstance(shape, (int, float)) else shape)
    implicit = -1
    prod = 1
    for i, d in enumerate(shape):
        if d >= 0:
            prod *= d
        elif d == -1:
            if implicit != -1:
                raise ShapeError(
                    f"reshape: shapes can only have 1 implicit size. Found -1 at dim {implicit} "
                    f"and dim {i} of [{_js(shape)}]"
                )
            implicit = i
        elif d < 0:
            raise ShapeError(f"reshape: shapes can not be < 0. Found {_js(d)} at dim {i}")
    if implicit == -1:
        if size > 0 and prod != size:
            raise ShapeError(
                f"reshape: the tensor has {size} elements, but the new shape [{_js(shape)}] has "
                f"{_js(prod)}; the element counts must match (one dimension may be -1, inferred)"
            )
        return tuple(shape)
    if prod == 0:
        raise ShapeError(
            f"reshape: cannot infer the missing size in [{_js(shape)}] when there are 0 elements"
        )
    if size % prod != 0:
        raise ShapeError(
            f"reshape: the tensor has {size} elements, which the known dimensions of "
            f"[{_js(shape)}] (product {_js(prod)}) do not divide: the implicit (-1) dimension "
            "can't be a fractional number"
        )
    shape[implicit] = size // prod
    return tuple(shape)


def _shape_numbers(shape: Any) -> list[Any]:
    """``reshape``'s ``shape`` as a list of numbers (ints where they are integral)."""
    if isinstance(shape, (list, tuple)) and all(
        isinstance(d, int) and not isinstance(d, bool) for d in shape
    ):
        return list(shape)
    items = _as_list(shape)
    out = []
    for d in items if isinstance(items, list) else [None]:
        f = real_number(d)
        if f is None:
            raise ArgumentTypeError(
                f"Argument 'shape' passed to 'reshape' must be an array of integers, but got "
                f"{describe(shape)}"
            )
        out.append(int(f) if f.is_integer() else f)
    return out


@op
def reshape(x: Any, shape: Any) -> Tensor:
    """Views the values with a new shape (one ``-1`` is inferred); shares the buffer.

    >>> tf.reshape(tf.tensor([1, 2, 3, 4]), [2, -1]).shape
    [2, 2]
    """
    x = convert_to_tensor(x, "x", "reshape", "string_or_numeric")
    new_shape = infer_from_implicit_shape(_shape_numbers(shape), x.size)
    new_size = math.prod(new_shape)
    if new_size != x.size:
        raise ShapeError(
            f"reshape: the new shape ({_js(new_shape)}) has {_js(new_size)} elements and the old shape "
            f"({_js(x._shape)}) has {x.size} elements. The new shape and old shape must have "
            "the same number of elements."
        )
    for i, d in enumerate(new_shape):
        if not isinstance(d, int):  # fractions whose product is the size
            raise ShapeError(
                f"The new shape ({_js(new_shape)}) passed to 'reshape' must hold integers, but "
                f"has {_js(d)} at dim {i}"
            )
    if x.size == 0 or len(new_shape) > MAX_RANK:
        checked_shape(new_shape, "reshape")
    return run_kernel(k.RESHAPE, (x,), {"shape": new_shape})


@op
def expand_dims(x: Any, axis: int = 0) -> Tensor:
    """Inserts a dimension of size 1 at ``axis`` (negative counts from the end); shares the
    buffer.

    >>> tf.expand_dims(tf.tensor([1, 2]), 1).shape
    [2, 1]
    """
    x = convert_to_tensor(x, "x", "expandDims", "string_or_numeric")
    rank = x.rank
    f = real_number(axis)
    if f is None or f != f:
        raise InvalidArgumentError(
            f"Axis must be in the interval [{-(rank + 1)}, {rank}], but got axis "
            f"{describe(axis)} (op 'expandDims')"
        )
    if f > rank:
        raise InvalidArgumentError("Axis must be <= rank of the tensor")
    if f < -(rank + 1):
        raise InvalidArgumentError(f"Axis must be in the interval [{-(rank + 1)}, {rank}]")
    if f.is_integer():
        dim = int(f)
    else:  # TF.js's splice truncates a fractional position
        dim = int(f if f >= 0 else rank + 1 + f)
    return run_kernel(k.EXPAND_DIMS, (x,), {"dim": dim})


def _squeeze_shape(shape: tuple[int, ...], axis: Any) -> tuple[int, ...]:
    if axis is None or (isinstance(axis, (list, tuple)) and len(axis) == 0):
        return tuple(d for d in shape if d != 1)
    axes = set(parse_axis_param(axis, shape, "squeeze"))
    for ax in sorted(axes):
        if shape[ax] != 1:
            raise InvalidArgumentError(
                f"Can't squeeze axis {ax} since its dim '{shape[ax]}' is not 1"
            )
    return tuple(d for i, d in enumerate(shape) if i not in axes)


@op
def squeeze(x: Any, axis: Any = None) -> Tensor:
    """Removes dimensions of size 1 (all of them, or those in ``axis``); shares the buffer.

    >>> tf.squeeze(tf.tensor([[[1], [2]]])).shape
    [2]
    """
    x = convert_to_tensor(x, "x", "squeeze", "string_or_numeric")
    return reshape(x, list(_squeeze_shape(x._shape, axis)))


@op
def ensure_shape(x: Any, shape: Any) -> Any:
    """Checks that ``x`` has ``shape`` (``None`` entries match any size) and returns ``x``
    itself, the same object.

    >>> t = tf.tensor([1, 2]); tf.ensure_shape(t, [None]) is t
    True
    """
    t = convert_to_tensor(x, "x", "ensureShape", "string_or_numeric")
    given = list(shape) if isinstance(shape, (list, tuple)) else shape
    ok = isinstance(given, list) and len(given) == t.rank
    if ok:
        ok = all(g is None or g == d for g, d in zip(given, t._shape, strict=True))
    if not ok:
        raise ShapeError(
            f"EnsureShape: Shape of tensor {_js(t._shape)} is not compatible with expected shape "
            f"{_js(given)}"
        )
    return x


def _is_dim(d: Any) -> bool:
    return (
        isinstance(d, (int, float)) and not isinstance(d, bool) and float(d).is_integer() and d >= 0
    )


@op
def broadcast_to(x: Any, shape: Any) -> Tensor:
    """Broadcasts ``x`` to ``shape`` (NumPy rules) by tiling.

    >>> tf.broadcast_to(tf.tensor([1, 2]), [2, 2]).array_sync()
    [[1.0, 2.0], [1.0, 2.0]]
    """
    # TF.js passes its argument and op names swapped here; its messages read that way.
    t = convert_to_tensor(x, "broadcastTo", "x")
    x_shape = t._shape
    shape_list = list(shape) if isinstance(shape, (list, tuple)) else [shape]
    if not all(_is_dim(d) for d in shape_list):
        raise ShapeError(
            f"Tensor must have a shape comprised of positive integers but got shape [{_js(shape_list)}]."
        )
    shape_list = [int(d) for d in shape_list]
    checked_shape(shape_list, "broadcastTo")
    if len(shape_list) < t.rank:
        raise ShapeError(f"broadcast_to(): shape.length={len(shape_list)} < input.rank={t.rank}.")
    if len(shape_list) > t.rank:
        t = reshape(t, [1] * (len(shape_list) - t.rank) + list(t._shape))
    reps = list(shape_list)
    for i in range(len(shape_list) - 1, -1, -1):
        if t._shape[i] == shape_list[i]:
            reps[i] = 1
        elif t._shape[i] != 1:
            raise ShapeError(
                f"broadcast_to(): [{_js(x_shape)}] cannot be broadcast to [{_js(shape_list)}]."
            )
    if not any(n > 1 for n in reps):
        return clone(t)
    return run_kernel(k.TILE, (t,), {"reps": reps})


@op
def broadcast_args(s0: Any, s1: Any) -> Tensor:
    """The shape (an int32 vector) that shapes ``s0`` and ``s1`` broadcast to.

    >>> tf.broadcast_args([2, 1], [3]).array_sync()
    [2, 3]
    """
    a = convert_to_tensor(s0, "s0", "broadcastArgs", "int32")
    b = convert_to_tensor(s1, "s1", "broadcastArgs", "int32")
    if a.rank != 1:
        raise ShapeError(
            f"broadcast_args(): first input must be a vector (rank=1). Has rank {a.rank}"
        )
    if b.rank != 1:
        raise ShapeError(
            f"broadcast_args(): second input must be a vector (rank=1). Has rank {b.rank}"
        )
    return run_kernel(k.BROADCAST_ARGS, (a, b))


@op
def pad(x: Any, paddings: Any, constant_value: float = 0) -> Tensor:
    """Pads with ``constant_value``; ``paddings[i] = [before, after]`` for dimension ``i``.

    >>> tf.pad(tf.tensor([[1, 2], [3, 4]]), [[1, 0], [0, 1]], 9).array_sync()
    [[9.0, 9.0, 9.0], [1.0, 2.0, 9.0], [3.0, 4.0, 9.0]]
    """
    t = convert_to_tensor(x, "x", "pad")
    if t.rank == 0:
        raise InvalidArgumentError("pad(scalar) is not defined. Pass non-scalar to pad")
    pairs = _pairs(paddings, "pad")
    if len(pairs) != t.rank or any(len(p) != 2 or p[0] < 0 or p[1] < 0 for p in pairs):
        raise InvalidArgumentError(
            f"pad: paddings must be {t.rank} pairs [before, after] of non-negative integers for an "
            f"input of shape [{_js(t._shape)}], got {pairs}"
        )
    _padded_shape(t._shape, pairs, "pad")
    value = _constant_value(constant_value, "pad")
    return run_kernel(k.PAD_V2, (t,), {"paddings": pairs, "constant_value": value})


def _constant_value(value: Any, op_name: str) -> Any:
    """``pad``'s ``constantValue``: a number (or a bool); None is TF.js's ``undefined``,
    the default 0."""
    if value is None:
        return 0
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    float_arg(value, op_name, "constantValue")
    return value.item() if isinstance(value, (np.generic, np.ndarray)) else value


def _pad_n(rank: int):
    name = f"pad{rank}d"

    def pad_nd(x: Any, paddings: Any, constant_value: float = 0) -> Tensor:
        if _items(paddings) is None:
            raise InvalidArgumentError(
                f"{name}: paddings must be "
                f"{'a [before, after] pair' if rank == 1 else f'{rank} [before, after] pairs'}"
                f", got {describe(paddings)}"
            )
        paddings = _items(paddings)
        if rank == 1:
            if len(paddings) != 2:
                raise InvalidArgumentError("Invalid number of paddings. Must be length of 2.")
            return pad(x, [paddings], constant_value)
        if len(paddings) != rank or any(
            not isinstance(p, (list, tuple)) or len(p) != 2 for p in paddings
        ):
            raise InvalidArgumentError("Invalid number of paddings. Must be length of 2 each.")
        return pad(x, paddings, constant_value)

    pad_nd.__name__ = pad_nd.__qualname__ = name
    pad_nd.__doc__ = f"``pad`` with {'one [before, after] pair' if rank == 1 else f'{rank} pairs'} (``tf.{name}``)."
    return op(pad_nd, name=name)


pad1d = _pad_n(1)
pad2d = _pad_n(2)
pad3d = _pad_n(3)
pad4d = _pad_n(4)


@op
def mirror_pad(x: Any, paddings: Any, mode: str) -> Tensor:
    """Pads by mirroring the edges: ``'reflect'`` leaves out the edge value, ``'symmetric'``
    repeats it.

    >>> tf.mirror_pad(tf.tensor([1, 2, 3]), [[2, 1]], 'reflect').array_sync()
    [3.0, 2.0, 1.0, 2.0, 3.0, 2.0]
    """
    if not isinstance(mode, str) or mode not in ("reflect", "symmetric"):
        shown = (
            (_js(mode) if isinstance(mode, (list, tuple)) else mode)
            if isinstance(mode, (str, list, tuple))
            else describe(mode)
        )
        raise InvalidArgumentError(
            f"Invalid mode. Mode must be either reflect or symmetric. Got {shown}."
        )
    t = convert_to_tensor(x, "x", "mirrorPad")
    if t.rank == 0:
        raise InvalidArgumentError(
            "mirror_pad(scalar) is not defined. Pass non-scalar to mirror_pad"
        )
    pairs = _pairs(paddings, "mirrorPad")
    if len(pairs) != t.rank:
        raise InvalidArgumentError(
            f"Padding doesn't match input. Must be {t.rank}. Got {len(pairs)}."
        )
    offset = 1 if mode == "reflect" else 0
    for i, p in enumerate(pairs):
        if len(p) != 2:
            raise InvalidArgumentError("Invalid number of paddings. Must be length of 2 each.")
        limit = t._shape[i] - offset
        if not (0 <= p[0] <= limit and 0 <= p[1] <= limit):
            raise InvalidArgumentError(
                f"Padding in dimension {i} cannot be greater than or equal to {limit} or less than 0 "
                f"for input of shape {_js(t._shape)}"
            )
    return run_kernel(k.MIRROR_PAD, (t,), {"paddings": pairs, "mode": mode})


@op
def batch_to_space_nd(x: Any, block_shape: Any, crops: Any) -> Tensor:
    """Moves blocks of the batch dimension back into the spatial dimensions, then crops
    (the inverse of ``space_to_batch_nd``).

    >>> tf.batch_to_space_nd(tf.tensor([1, 2, 3, 4], [4, 1, 1, 1]), [2, 2], [[0, 0], [0, 0]]).shape
    [1, 2, 2, 1]
    """
    t = convert_to_tensor(x, "x", "batchToSpaceND")
    block = _ints(block_shape, "blockShape", "batchToSpaceND")
    crops_ = _pairs(crops, "batchToSpaceND")
    if not block:
        raise InvalidArgumentError("batch_to_space_nd: block_shape must not be empty")
    prod = math.prod(block)
    if t.rank < 1 + len(block):
        raise ShapeError(
            f"input rank is {t.rank} but should be > than block_shape.length {len(block)}"
        )
    if len(crops_) != len(block):
        raise InvalidArgumentError(
            f"crops.length is {len(crops_)} but should be equal to block_shape.length  {len(block)}"
        )
    if prod == 0 or t._shape[0] % prod != 0:
        raise ShapeError(
            f"input tensor batch is {t._shape[0]} but is not divisible by the product of the "
            f"elements of block_shape {' * '.join(map(str, block))} === {prod}"
        )
    if any(b <= 0 for b in block):
        raise InvalidArgumentError(
            f"batch_to_space_nd: block_shape must hold positive integers, got {_js(block)}"
        )
    for i, crop in enumerate(crops_):
        c0, c1 = crop if len(crop) == 2 else (-1, -1)
        if c0 < 0 or c1 < 0 or c0 + c1 > t._shape[i + 1] * block[i]:
            raise InvalidArgumentError(
                f"batch_to_space_nd: crops[{i}] = [{_js(crop)}] must be non-negative and at most "
                f"{t._shape[i + 1] * block[i]} in total"
            )
    return run_kernel(k.BATCH_TO_SPACE_ND, (t,), {"block_shape": block, "crops": crops_})


@op
def space_to_batch_nd(x: Any, block_shape: Any, paddings: Any) -> Tensor:
    """Zero-pads the spatial dimensions, then moves blocks of them into the batch dimension.

    >>> tf.space_to_batch_nd(tf.tensor([1, 2, 3, 4], [1, 2, 2, 1]), [2, 2], [[0, 0], [0, 0]]).shape
    [4, 1, 1, 1]
    """
    t = convert_to_tensor(x, "x", "spaceToBatchND")
    block = _ints(block_shape, "blockShape", "spaceToBatchND")
    pads = _pairs(paddings, "spaceToBatchND")
    if t.rank < 1 + len(block):
        raise ShapeError(f"input rank {t.rank} should be > than [block_shape] {len(block)}")
    if len(pads) != len(block):
        raise InvalidArgumentError(
            f"paddings.shape[0] {len(pads)} must be equal to [block_shape] {len(block)}"
        )
    if (
        any(b <= 0 for b in block)
        or any(len(p) != 2 for p in pads)  # TF.js's sum is NaN there
        or any(
            (t._shape[i + 1] + pads[i][0] + pads[i][1]) % block[i] != 0 for i in range(len(block))
        )
    ):
        raise ShapeError(
            f"input spatial dimensions {_js(t._shape[1:])} with paddings {_js(pads)} must be "
            f"divisible by block_shapes {_js(block)}"
        )
    if any(p < 0 for pair in pads for p in pair):
        raise InvalidArgumentError(f"space_to_batch_nd: paddings must be non-negative, got {pads}")
    padded = [[0, 0], *pads]
    _padded_shape(t._shape, padded + [[0, 0]] * (t.rank - len(padded)), "spaceToBatchND")
    return run_kernel(k.SPACE_TO_BATCH_ND, (t,), {"block_shape": block, "paddings": pads})


@op
def depth_to_space(x: Any, block_size: int, data_format: str = "NHWC") -> Tensor:
    """Moves depth (channel) blocks of size ``block_size * block_size`` into height and width.

    >>> tf.depth_to_space(tf.tensor([1, 2, 3, 4], [1, 1, 1, 4]), 2).shape
    [1, 2, 2, 1]
    """
    t = convert_to_tensor(x, "x", "depthToSpace", "float32")
    str_arg(data_format, "depthToSpace", "dataFormat")
    nhwc = data_format == "NHWC"
    dims = (1, 2, 3) if nhwc else (2, 3, 1)
    height, width, depth = (t._shape[d] if d < t.rank else None for d in dims)
    size = real_number(block_size)
    if size is None or not size > 1:
        shown = js_str(block_size) if isinstance(block_size, (int, float, str)) else None
        raise InvalidArgumentError(
            "block_size should be > 1 for depth_to_space, but was: "
            f"{shown if shown is not None else describe(block_size)}"
        )
    if depth is None or depth % (size * size) != 0:
        raise ShapeError(
            f"Dimension size must be evenly divisible by {js_str(size * size)} but is "
            f"{depth} for depth_to_space with input shape {_js(t._shape)}"
        )
    if t.rank != 4 or height is None or width is None:
        raise ShapeError(f"depth_to_space: input must be rank 4, got shape [{_js(t._shape)}]")
    if not math.isfinite(size) or not size.is_integer():
        raise InvalidArgumentError(
            f"block_size should be an integer for depth_to_space, but was: {js_str(size)}"
        )
    return run_kernel(k.DEPTH_TO_SPACE, (t,), {"block_size": int(size), "data_format": data_format})


def setdiff1d_async(x: Any, y: Any) -> list[Tensor]:
    """The values of ``x`` that are not in ``y``, in order, and their int32 positions in ``x``
    (TF.js's ``setdiff1dAsync``, synchronous here). Returns ``[values, indices]``.

    >>> out, idx = tf.setdiff1d_async([1, 2, 3, 4], [2, 4])
    >>> out.array_sync(), idx.array_sync()
    ([1.0, 3.0], [0, 2])
    """
    tx = convert_to_tensor(x, "x", "setdiff1d")
    try:
        ty = convert_to_tensor(y, "y", "setdiff1d")
    except BaseException:
        if tx is not x:
            tx.dispose()
        raise
    try:
        return _setdiff1d(tx, ty)
    except BaseException:
        # A failed call leaves no conversion behind. (A successful one keeps them, as TF.js's
        # does: it runs outside an op scope, and the golden memory counts pin that.)
        for made, given in ((tx, x), (ty, y)):
            if made is not given:
                made.dispose()
        raise


def _setdiff1d(tx: Tensor, ty: Tensor) -> list[Tensor]:
    if tx.dtype != ty.dtype:
        raise DTypeError(
            f"x and y should have the same dtype, but got x ({tx.dtype}) and y ({ty.dtype})."
        )
    if tx.rank != 1:
        raise ShapeError(f"x should be 1D tensor, but got x ({_js(tx._shape)}).")
    if ty.rank != 1:
        raise ShapeError(f"y should be 1D tensor, but got y ({_js(ty._shape)}).")
    x_values = tx.array_sync()
    exclude = set(ty.array_sync())
    exclude_nan = any(v != v for v in exclude)  # JS's Set matches NaN with NaN
    kept = [
        (i, v) for i, v in enumerate(x_values) if not (v in exclude or (exclude_nan and v != v))
    ]
    values = make_tensor([v for _, v in kept], [len(kept)], tx.dtype, "setdiff1dAsync")
    indices = make_tensor([i for i, _ in kept], [len(kept)], "int32", "setdiff1dAsync")
    return [values, indices]


def make_types_match(a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """Casts both tensors to their upcast dtype (TF.js's ``makeTypesMatch``)."""
    if a.dtype == b.dtype:
        return a, b
    dtype = upcast_type(a.dtype, b.dtype)
    return cast(a, dtype), cast(b, dtype)
