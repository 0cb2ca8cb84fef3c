"""Tensor helpers every layer uses (TF.js's ``tfjs-layers/src/backend/tfjs_backend.ts``, the
``K`` module of Keras). They call public ops only, in the same order as TF.js, so layers run
the same kernels and create the same number of tensors.

>>> x = tf.tensor2d([[1, 2]])
>>> dot(x, tf.tensor2d([[1], [1]])).array_sync()
[[3.0]]
>>> batch_flatten(tf.zeros([2, 3, 4])).shape
[2, 12]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from .. import ops
from ..engine import ENGINE
from ..naming import snake_case
from ..ops import fused, layers_dense
from ..py_strings import py_shape
from ..tensor import Tensor
from .errors import LayersNotImplementedError, LayersValueError
from .utils import array_prod, to_camel_case

__all__ = [
    "VALID_DATA_FORMAT_VALUES",
    "batch_flatten",
    "bias_add",
    "cast",
    "check_data_format",
    "concatenate",
    "count_params",
    "dot",
    "dropout",
    "elu",
    "epsilon",
    "expand_dims",
    "flatten",
    "fused_dense",
    "gather",
    "hard_sigmoid",
    "image_data_format",
    "in_train_phase",
    "random_normal",
    "repeat",
    "set_epsilon",
    "slice_along_first_axis",
    "slice_along_last_axis",
    "softsign",
    "square",
    "tile",
]

T = TypeVar("T")

VALID_DATA_FORMAT_VALUES = ("channelsFirst", "channelsLast")
_epsilon: float | None = None


def epsilon() -> float:
    """The fuzz factor of the Layers API (the backend's, 1e-7)."""
    global _epsilon
    if _epsilon is None:
        _epsilon = ENGINE.backend.epsilon()
    return _epsilon


def set_epsilon(e: float) -> None:
    global _epsilon
    _epsilon = e


def image_data_format() -> str:
    """Always ``'channelsLast'``, as in TF.js."""
    return "channelsLast"


def check_data_format(value: Any) -> str:
    """``value`` as TF.js's spelling (``'channels_last'`` is accepted); raises if unknown."""
    if value is None:
        return value
    camel = to_camel_case(value) if isinstance(value, str) else value
    if camel not in VALID_DATA_FORMAT_VALUES:
        raise LayersValueError(
            f"{value!r} is not a valid data_format.  Valid values are "
            f"{[snake_case(v) for v in VALID_DATA_FORMAT_VALUES]} or None."
        )
    return camel


def count_params(x: Any) -> int:
    return array_prod(list(x.shape))


def cast(x: Tensor, dtype: str) -> Tensor:
    return ops.cast(x, dtype)


def expand_dims(x: Tensor, axis: int = -1) -> Tensor:
    """Inserts a dimension of size 1 with a reshape (TF.js's ``K.expandDims``)."""
    out_shape = list(x.shape)
    if axis < 0:
        axis = len(out_shape) + axis + 1
    out_shape.insert(axis, 1)
    return ops.reshape(x, out_shape)


def repeat(x: Tensor, n: int) -> Tensor:
    """``[batch, dim]`` → ``[batch, n, dim]``."""

    def body() -> Tensor:
        if x.rank != 2:
            raise LayersValueError(
                f"repeat() expects a rank-2 tensor, but received a rank-{x.rank} tensor."
            )
        return tile(expand_dims(x, 1), [1, n, 1])

    return ENGINE.tidy(body)


def flatten(x: Tensor) -> Tensor:
    return ops.reshape(x, [array_prod(x.shape)])


def batch_flatten(x: Tensor) -> Tensor:
    """``[batch, ...]`` → ``[batch, prod(...)]``."""
    if x.rank <= 1:
        raise LayersValueError(f"batch_flatten requires a minimum rank of 2. Got rank: {x.rank}.")
    return ops.reshape(x, [x.shape[0], array_prod(x.shape, 1)])


def slice_along_first_axis(array: Tensor, start: int, size: int) -> Tensor:
    """``array[start:start + size]`` along axis 0."""
    if not 1 <= array.rank <= 6:
        raise LayersValueError(
            f"slice_along_first_axis() received an unsupported tensor rank: {array.rank}"
        )
    return ENGINE.tidy(
        lambda: ops.slice(array, [start] + [0] * (array.rank - 1), [size, *array.shape[1:]])
    )


def slice_along_last_axis(array: Tensor, start: int, size: int) -> Tensor:
    """``array[..., start:start + size]``."""
    if not 1 <= array.rank <= 4:
        raise LayersValueError(
            f"slice_along_last_axis() received an unsupported tensor rank: {array.rank}"
        )
    return ENGINE.tidy(
        lambda: ops.slice(array, [0] * (array.rank - 1) + [start], [*array.shape[:-1], size])
    )


def concatenate(tensors: list[Tensor], axis: int = -1) -> Tensor:
    """``concat`` where ``axis=-1`` means the last axis."""
    if axis < 0:
        rank = tensors[0].rank
        axis = rank if rank != 0 else 0
    if axis == tensors[0].rank:
        axis = -1
    return ops.concat(tensors, axis)


def tile(x: Tensor, n: Any) -> Tensor:
    reps = list(n) if isinstance(n, (list, tuple)) else [n]
    if x.rank != len(reps):
        raise LayersValueError(
            f"The length of input n ({len(reps)}) does not match the number of dimensions in "
            f"input x ({x.rank})"
        )
    return ops.tile(x, reps)


def random_normal(
    shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: str | None = None, seed: Any = None
) -> Tensor:
    return ops.random_normal(shape, mean, stddev, dtype, seed)


def _reshape_bias(x_rank: int, bias: Tensor, data_format: str) -> Tensor:
    bias_shape = bias.shape
    if bias.rank != 1 and bias.rank != x_rank:
        raise LayersValueError(
            f"Unexpected bias dimensions: {bias.rank}; expected it to be 1 or {x_rank}"
        )
    if x_rank < 3:
        return bias
    if x_rank > 5:
        raise LayersValueError(f"Unsupported input rank by bias_add: {bias.rank}")
    if data_format == "channelsFirst":
        if len(bias_shape) == 1:
            return ops.reshape(bias, [1, bias_shape[0]] + [1] * (x_rank - 2))
        return ops.reshape(bias, [1, bias_shape[-1], *bias_shape[:-1]])
    if len(bias_shape) == 1:
        return ops.reshape(bias, [1] * (x_rank - 1) + [bias_shape[0]])
    return ops.reshape(bias, [1, *bias_shape])


def dot(a: Tensor, b: Tensor, activation: str | None = None, bias: Tensor | None = None) -> Tensor:
    """Keras's ``dot`` (last axis of ``a`` with the second-to-last of ``b``), as one fused
    ``mat_mul`` with optional bias and activation."""
    if a.rank < 2 or b.rank < 2:
        raise LayersNotImplementedError(
            f"dot requires both inputs to be rank >= 2 but got x shape = {py_shape(a.shape)} "
            f"and y shape = {py_shape(b.shape)}"
        )
    if b.rank >= 3 and a.shape[-1] != b.shape[-2]:
        raise LayersNotImplementedError(
            f"If rank y >= 3, then the second last dim of y must equal the last dim of x but got "
            f"x shape = {py_shape(a.shape)} and  y shape = {py_shape(b.shape)}"
        )
    act = activation if activation is not None else "linear"
    if a.rank == 2 and b.rank == 2:
        bias_r = _reshape_bias(a.rank, bias, image_data_format()) if bias is not None else None
        return fused.mat_mul(a, b, False, False, bias_r, act)
    a_first_dims = a.shape[:-1]
    a_last_dim = a.shape[-1]
    a2 = ops.reshape(a, [-1, a_last_dim])
    b_shape = b.shape
    b_last_dim = b_shape[-1]
    y_second_last_dim = b_shape[-2]
    y_other_dims = [*b_shape[:-2], b_last_dim]
    perm = [b.rank - 2] + list(range(b.rank - 2)) + [b.rank - 1]
    b2 = ops.reshape(ops.transpose(b, perm), [y_second_last_dim, -1])
    bias_r = _reshape_bias(a2.rank, bias, image_data_format()) if bias is not None else None
    out = fused.mat_mul(a2, b2, False, False, bias_r, act)
    return ops.reshape(out, [*a_first_dims, *y_other_dims])


def fused_dense(x: Tensor, kernel: Tensor, bias: Tensor | None, activation: str) -> Tensor | None:
    """``activation(x @ kernel + bias)`` for a rank-2 ``x`` as one kernel (``TidyDense``, see
    ``ops/layers_dense.py``), or None where TF.js's ops must run instead (``dot``, then
    ``bias_add`` and the activation): an activation other than 'linear' or 'relu', other
    dtypes or ranks, or someone watching kernels one by one (``Engine.may_fuse``)."""
    if (
        (activation != "linear" and activation != "relu")
        or x.dtype != "float32"
        or kernel.dtype != "float32"
        or len(x._shape) != 2
        or len(kernel._shape) != 2
        or x._shape[1] != kernel._shape[0]
        or (bias is not None and (bias.dtype != "float32" or bias._shape != kernel._shape[1:]))
        or not ENGINE.may_fuse(1)
    ):
        return None
    return layers_dense.dense(x, kernel, bias, activation)


def bias_add(x: Tensor, bias: Tensor, data_format: str | None = None) -> Tensor:
    """``x + bias`` with ``bias`` laid along the channels axis."""

    def body() -> Tensor:
        fmt = check_data_format(data_format if data_format is not None else image_data_format())
        return ops.add(x, _reshape_bias(x.rank, bias, fmt))

    return ENGINE.tidy(body)


def elu(x: Tensor, alpha: float = 1) -> Tensor:
    if alpha != 1:
        raise LayersNotImplementedError(
            f"Support for alpha values other than 1 ({alpha}) is not implemented yet."
        )
    return ops.elu(x)


def softsign(x: Tensor) -> Tensor:
    """``x / (|x| + 1)``."""
    return ENGINE.tidy(lambda: ops.div(x, ops.add(ops.abs(x), 1)))


def dropout(x: Tensor, level: float, noise_shape: Any = None, seed: Any = None) -> Tensor:
    return ENGINE.tidy(lambda: ops.dropout(x, level, noise_shape, seed))


def hard_sigmoid(x: Tensor) -> Tensor:
    """``clip(0.2 x + 0.5, 0, 1)``."""
    return ENGINE.tidy(lambda: ops.clip_by_value(ops.add(0.5, ops.mul(0.2, x)), 0, 1))


def in_train_phase(x: Callable[[], T], alt: Callable[[], T], training: bool = False) -> T:
    """``x()`` while training, else ``alt()``."""
    return x() if training else alt()


def gather(reference: Tensor, indices: Any, axis: int | None = None) -> Tensor:
    def body() -> Tensor:
        if isinstance(indices, Tensor):
            idx = ops.cast(indices, "int32")
        else:
            idx = ops.tensor1d(list(indices), "int32")
        return ops.gather(reference, idx, axis if axis is not None else 0)

    return ENGINE.tidy(body)


def square(x: Tensor) -> Tensor:
    return ops.mul(x, x)
