"""Transformations (TF.js doc subheading 'Tensors / Transformations')."""

from __future__ import annotations

import math
from typing import Any

from .. import kernel_names as k
from ..dtypes import DTYPES, STRING
from ..errors import DTypeError, InvalidArgumentError, ShapeError
from ..tensor import Tensor
from ..tensor_util import make_tensor
from ._op import convert_to_tensor, op, parse_axis_param, run_kernel

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
    return "" if values is None else str(values)


def _ints(values: Any, what: str, op_name: str) -> list[int]:
    if isinstance(values, Tensor):
        values = values.array_sync()
    if isinstance(values, (int, float)) and not isinstance(values, bool):
        values = [values]
    try:
        return [int(v) for v in values]
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            f"{op_name}: {what} must be a list of integers, got {values!r}"
        ) from None


def _pairs(paddings: Any, op_name: str) -> list[list[int]]:
    if isinstance(paddings, Tensor):
        paddings = paddings.array_sync()
    try:
        return [[int(v) for v in p] for p in paddings]
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            f"{op_name}: paddings must be a list of [before, after] integer pairs, got {paddings!r}"
        ) from None


@op
def cast(x: Any, dtype: str) -> Tensor:
    """Casts to ``dtype``: floats truncate toward zero into int32, anything becomes bool as
    ``!= 0``. Casting to the same dtype shares the buffer.

    >>> tf.cast(tf.tensor([1.7, -1.7, 2.5]), 'int32').array_sync()
    [1, -1, 2]
    """
    x = convert_to_tensor(x, "x", "cast")
    if dtype not in DTYPES:
        raise DTypeError(f"Failed to cast to unknown dtype {dtype}")
    if (dtype == STRING) != (x.dtype == STRING):
        raise DTypeError("Only strings can be casted to strings")
    return run_kernel(k.CAST, (x,), {"dtype": dtype})


def infer_from_implicit_shape(shape: Any, size: int) -> tuple[int, ...]:
    """Resolves one ``-1`` in ``shape`` (TF.js's ``inferFromImplicitShape``)."""
    shape = [int(d) for d in ([shape] if isinstance(shape, int) else shape)]
    implicit = -1
    prod = 1
    for i, d in enumerate(shape):
        if d >= 0:
            prod *= d
        elif d == -1:
            if implicit != -1:
                raise ShapeError(
                    f"Shapes can only have 1 implicit size. Found -1 at dim {implicit} and dim {i}"
                )
            implicit = i
        else:
            raise ShapeError(f"Shapes can not be < 0. Found {d} at dim {i}")
    if implicit == -1:
        if size > 0 and prod != size:
            raise ShapeError(f"Size({size}) must match the product of shape {_js(shape)}")
        return tuple(shape)
    if prod == 0:
        raise ShapeError(
            f"Cannot infer the missing size in [{_js(shape)}] when there are 0 elements"
        )
    if size % prod != 0:
        raise ShapeError(f"The implicit shape can't be a fractional number. Got {size} / {prod}")
    shape[implicit] = size // prod
    return tuple(shape)


@op
def reshape(x: Any, shape: Any) -> Tensor:
    """Views the values with a new shape (one ``-1`` is inferred); shares the buffer.

    >>> tf.reshape(tf.tensor([1, 2, 3, 4]), [2, -1]).shape
    [2, 2]
    """
    x = convert_to_tensor(x, "x", "reshape", "string_or_numeric")
    new_shape = infer_from_implicit_shape(_ints(shape, "shape", "reshape"), x.size)
    new_size = math.prod(new_shape)
    if new_size != x.size:
        raise ShapeError(
            f"The new shape ({_js(new_shape)}) has {new_size} elements and the old shape "
            f"({_js(x._shape)}) has {x.size} elements. The new shape and old shape must have "
            "the same number of elements."
        )
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
    axis = int(axis)
    if axis > rank:
        raise InvalidArgumentError("Axis must be <= rank of the tensor")
    if axis < -(rank + 1):
        raise InvalidArgumentError(f"Axis must be in the interval [{-(rank + 1)}, {rank}]")
    return run_kernel(k.EXPAND_DIMS, (x,), {"dim": axis})


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
    if len(shape_list) < t.rank:
        raise ShapeError(f"broadcastTo(): shape.length={len(shape_list)} < input.rank={t.rank}.")
    if len(shape_list) > t.rank:
        t = reshape(t, [1] * (len(shape_list) - t.rank) + list(t._shape))
    reps = list(shape_list)
    for i in range(len(shape_list) - 1, -1, -1):
        if t._shape[i] == shape_list[i]:
            reps[i] = 1
        elif t._shape[i] != 1:
            raise ShapeError(
                f"broadcastTo(): [{_js(x_shape)}] cannot be broadcast to [{_js(shape_list)}]."
            )
    if not any(n > 1 for n in reps):
        from .creation import clone

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
            f"broadcastArgs(): first input must be a vector (rank=1). Has rank {a.rank}"
        )
    if b.rank != 1:
        raise ShapeError(
            f"broadcastArgs(): second input must be a vector (rank=1). Has rank {b.rank}"
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
    return run_kernel(k.PAD_V2, (t,), {"paddings": pairs, "constant_value": constant_value})


def _pad_n(rank: int):
    name = f"pad{rank}d"

    def pad_nd(x: Any, paddings: Any, constant_value: float = 0) -> Tensor:
        if rank == 1:
            if len(paddings) != 2:
                raise InvalidArgumentError("Invalid number of paddings. Must be length of 2.")
            return pad(x, [paddings], constant_value)
        if len(paddings) != rank or any(len(p) != 2 for p in paddings):
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
    if mode not in ("reflect", "symmetric"):
        raise InvalidArgumentError(
            f"Invalid mode. Mode must be either reflect or symmetric. Got {mode}."
        )
    t = convert_to_tensor(x, "x", "mirrorPad")
    if t.rank == 0:
        raise InvalidArgumentError("mirrorPad(scalar) is not defined. Pass non-scalar to mirrorPad")
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
        raise InvalidArgumentError("batchToSpaceND: blockShape must not be empty")
    prod = math.prod(block)
    if t.rank < 1 + len(block):
        raise ShapeError(
            f"input rank is {t.rank} but should be > than blockShape.length {len(block)}"
        )
    if len(crops_) != len(block):
        raise InvalidArgumentError(
            f"crops.length is {len(crops_)} but should be equal to blockShape.length  {len(block)}"
        )
    if prod == 0 or t._shape[0] % prod != 0:
        raise ShapeError(
            f"input tensor batch is {t._shape[0]} but is not divisible by the product of the "
            f"elements of blockShape {' * '.join(map(str, block))} === {prod}"
        )
    for i, (c0, c1) in enumerate(crops_):
        if c0 < 0 or c1 < 0 or c0 + c1 > t._shape[i + 1] * block[i]:
            raise InvalidArgumentError(
                f"batchToSpaceND: crops[{i}] = [{c0}, {c1}] must be non-negative and at most "
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
        raise ShapeError(f"input rank {t.rank} should be > than [blockShape] {len(block)}")
    if len(pads) != len(block):
        raise InvalidArgumentError(
            f"paddings.shape[0] {len(pads)} must be equal to [blockShape] {len(block)}"
        )
    if any(b <= 0 for b in block) or any(
        (t._shape[i + 1] + pads[i][0] + pads[i][1]) % block[i] != 0 for i in range(len(block))
    ):
        raise ShapeError(
            f"input spatial dimensions {_js(t._shape[1:])} with paddings {_js(pads)} must be "
            f"divisible by blockShapes {_js(block)}"
        )
    if any(p < 0 for pair in pads for p in pair):
        raise InvalidArgumentError(f"spaceToBatchND: paddings must be non-negative, got {pads}")
    return run_kernel(k.SPACE_TO_BATCH_ND, (t,), {"block_shape": block, "paddings": pads})


@op
def depth_to_space(x: Any, block_size: int, data_format: str = "NHWC") -> Tensor:
    """Moves depth (channel) blocks of size ``block_size * block_size`` into height and width.

    >>> tf.depth_to_space(tf.tensor([1, 2, 3, 4], [1, 1, 1, 4]), 2).shape
    [1, 2, 2, 1]
    """
    t = convert_to_tensor(x, "x", "depthToSpace", "float32")
    nhwc = data_format == "NHWC"
    dims = (1, 2, 3) if nhwc else (2, 3, 1)
    height, width, depth = (t._shape[d] if d < t.rank else None for d in dims)
    if not block_size > 1:
        raise InvalidArgumentError(
            f"blockSize should be > 1 for depthToSpace, but was: {block_size}"
        )
    if depth is None or depth % (block_size * block_size) != 0:
        raise ShapeError(
            f"Dimension size must be evenly divisible by {block_size * block_size} but is "
            f"{'undefined' if depth is None else depth} for depthToSpace with input shape {_js(t._shape)}"
        )
    if t.rank != 4 or height is None or width is None:
        raise ShapeError(f"depthToSpace: input must be rank 4, got shape [{_js(t._shape)}]")
    return run_kernel(
        k.DEPTH_TO_SPACE, (t,), {"block_size": int(block_size), "data_format": data_format}
    )


def setdiff1d_async(x: Any, y: Any) -> list[Tensor]:
    """The values of ``x`` that are not in ``y``, in order, and their int32 positions in ``x``
    (TF.js's ``setdiff1dAsync``, synchronous here). Returns ``[values, indices]``.

    >>> out, idx = tf.setdiff1d_async([1, 2, 3, 4], [2, 4])
    >>> out.array_sync(), idx.array_sync()
    ([1.0, 3.0], [0, 2])
    """
    tx = convert_to_tensor(x, "x", "setdiff1d")
    ty = convert_to_tensor(y, "y", "setdiff1d")
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
