"""Normalization (TF.js doc subheading 'Operations / Normalization').

``batch_norm`` (and its rank-checked 2d/3d/4d forms), ``local_response_normalization``,
``log_softmax`` (a custom gradient, as TF.js), ``moments``, ``softmax`` and
``sparse_to_dense`` (which TF.js documents under this heading).
"""

from __future__ import annotations

import math
from typing import Any

from .. import kernel_names as k
from ..engine.recording import custom_grad
from ..errors import InvalidArgumentError, ShapeError
from ..geometry.axes import keep_dims_shape
from ..tensor import Tensor
from ..tensor_util import shape_str
from ._op import (
    checked_shape,
    convert_to_tensor,
    describe,
    float_arg,
    int_arg,
    js_str,
    keep_dims_arg,
    op,
    parse_axis,
    real_number,
    run_kernel,
)
from .arithmetic import mul, sub
from .basic_math import exp, log, square
from .reduction import max as max_
from .reduction import mean as mean_
from .reduction import sum as sum_
from .transformations import cast, reshape

__all__ = [
    "batch_norm",
    "batch_norm2d",
    "batch_norm3d",
    "batch_norm4d",
    "local_response_normalization",
    "log_softmax",
    "moments",
    "softmax",
    "sparse_to_dense",
]


class Moments(dict):
    """What ``moments`` returns: ``.mean`` and ``.variance`` (also ``m['mean']``).

    A dict underneath, so ``tf.tidy`` and ``tf.dispose`` find the two tensors.
    """

    __slots__ = ()

    def __init__(self, mean: Tensor, variance: Tensor):
        super().__init__(mean=mean, variance=variance)

    @property
    def mean(self) -> Tensor:
        return self["mean"]

    @property
    def variance(self) -> Tensor:
        return self["variance"]

    def __iter__(self):  # unpacks as (mean, variance)
        return iter((self["mean"], self["variance"]))

    def __repr__(self) -> str:
        return f"Moments(mean={self['mean']!r}, variance={self['variance']!r})"


# ---------------------------------------------------------------------------- batch norm
def _x_as_4d(x: Tensor) -> Tensor:
    """TF.js's ``xAs4D``: ranks 0-3 are reshaped to rank 4 with leading ones."""
    s = x._shape
    if len(s) <= 1:
        return reshape(x, [1, 1, 1, x.size])
    if len(s) == 2:
        return reshape(x, [1, 1, s[0], s[1]])
    if len(s) == 3:
        return reshape(x, [1, s[0], s[1], s[2]])
    return x


def _convert_bn_args(x, mean, variance, offset, scale):
    x = convert_to_tensor(x, "x", "batchNorm")
    mean = convert_to_tensor(mean, "mean", "batchNorm")
    variance = convert_to_tensor(variance, "variance", "batchNorm")
    if scale is not None:
        scale = convert_to_tensor(scale, "scale", "batchNorm")
    if offset is not None:
        offset = convert_to_tensor(offset, "offset", "batchNorm")
    return x, mean, variance, offset, scale


@op
def batch_norm(
    x: Any,
    mean: Any,
    variance: Any,
    offset: Any = None,
    scale: Any = None,
    variance_epsilon: float = 0.001,
) -> Tensor:
    """Batch normalization: ``offset + (x - mean) * scale / sqrt(variance + variance_epsilon)``.

    ``mean``, ``variance``, ``offset`` and ``scale`` are usually rank 1 (one value per channel,
    the last axis) or of ``x``'s shape.

    >>> x = tf.tensor2d([[1, 2], [3, 4]])
    >>> tf.batch_norm(x, [2, 3], [1, 1], variance_epsilon=0).array_sync()
    [[-1.0, -1.0], [1.0, 1.0]]
    """
    if variance_epsilon is None:
        variance_epsilon = 0.001
    variance_epsilon = float_arg(variance_epsilon, "batchNorm", "varianceEpsilon")
    x, mean, variance, offset, scale = _convert_bn_args(x, mean, variance, offset, scale)
    if mean.rank != variance.rank:
        raise ShapeError(
            "Batch normalization gradient requires mean and variance to have equal ranks."
        )
    if offset is not None and mean.rank != offset.rank:
        raise ShapeError(
            "Batch normalization gradient requires mean and offset to have equal ranks."
        )
    if scale is not None and mean.rank != scale.rank:
        raise ShapeError(
            "Batch normalization gradient requires mean and scale to have equal ranks."
        )
    x4d = _x_as_4d(x)
    # The engine takes no missing inputs: absent scale/offset are left out of the input
    # tuple (kept in kernel_names order) and the attrs say which ones are there.
    inputs = [x4d]
    if scale is not None:
        inputs.append(scale)
    if offset is not None:
        inputs.append(offset)
    inputs += [mean, variance]
    attrs = {
        "variance_epsilon": variance_epsilon,
        "has_scale": scale is not None,
        "has_offset": offset is not None,
    }
    res = run_kernel(k.FUSED_BATCH_NORM, tuple(inputs), attrs)
    return reshape(res, list(x._shape))


def _batch_norm_nd(rank: int, x, mean, variance, offset, scale, variance_epsilon) -> Tensor:
    x, mean, variance, offset, scale = _convert_bn_args(x, mean, variance, offset, scale)
    where = f"Error in batch_norm{rank}d:"
    if x.rank != rank:
        raise ShapeError(f"{where} x must be rank {rank} but got rank {x.rank}.")
    for name, t in (("mean", mean), ("variance", variance), ("scale", scale), ("offset", offset)):
        if t is not None and t.rank not in (rank, 1):
            raise ShapeError(f"{where} {name} must be rank {rank} or rank 1 but got rank {t.rank}.")
    return batch_norm(x, mean, variance, offset, scale, variance_epsilon)


@op
def batch_norm2d(
    x: Any,
    mean: Any,
    variance: Any,
    offset: Any = None,
    scale: Any = None,
    variance_epsilon: float | None = None,
) -> Tensor:
    """``batch_norm`` for a rank-2 ``x`` (parameters of rank 1 or 2).

    >>> tf.batch_norm2d(tf.tensor2d([[1, 2]]), [1, 2], [4, 4], variance_epsilon=0).array_sync()
    [[0.0, 0.0]]
    """
    return _batch_norm_nd(2, x, mean, variance, offset, scale, variance_epsilon)


@op
def batch_norm3d(
    x: Any,
    mean: Any,
    variance: Any,
    offset: Any = None,
    scale: Any = None,
    variance_epsilon: float | None = None,
) -> Tensor:
    """``batch_norm`` for a rank-3 ``x`` (parameters of rank 1 or 3).

    >>> tf.batch_norm3d(tf.ones([1, 1, 2]), [0, 1], [1, 1], variance_epsilon=0).array_sync()
    [[[1.0, 0.0]]]
    """
    return _batch_norm_nd(3, x, mean, variance, offset, scale, variance_epsilon)


@op
def batch_norm4d(
    x: Any,
    mean: Any,
    variance: Any,
    offset: Any = None,
    scale: Any = None,
    variance_epsilon: float | None = None,
) -> Tensor:
    """``batch_norm`` for a rank-4 ``x`` (parameters of rank 1 or 4).

    >>> tf.batch_norm4d(tf.ones([1, 1, 1, 2]), [0, 1], [1, 1], [5, 5], [2, 2], 0).array_sync()
    [[[[7.0, 5.0]]]]
    """
    return _batch_norm_nd(4, x, mean, variance, offset, scale, variance_epsilon)


# ---------------------------------------------------------------------------- LRN
def _is_int(value: Any) -> bool:
    """JS's ``value % 1 === 0`` for a number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        try:
            value = float(value)
        except (TypeError, ValueError):
            return False
    return isinstance(value, int) or (math.isfinite(value) and float(value).is_integer())


@op
def local_response_normalization(
    x: Any, depth_radius: int = 5, bias: float = 1, alpha: float = 1, beta: float = 0.5
) -> Tensor:
    """Normalizes each value by the sum of squares of its ``depth_radius`` neighbours along
    the last axis: ``x / (bias + alpha * sum(x[c-r..c+r] ** 2)) ** beta``. ``x`` is rank 3 or 4.

    >>> tf.local_response_normalization(tf.tensor3d([[[1, 1]]]), 1, 2, 1, 1).array_sync()
    [[[0.25, 0.25]]]
    """
    x = convert_to_tensor(x, "x", "localResponseNormalization")
    if x.rank not in (3, 4):
        raise ShapeError(
            f"Error in local_response_normalization: x must be rank 3 or 4 but got rank {x.rank}."
        )
    if not _is_int(depth_radius):
        raise InvalidArgumentError(
            "Error in local_response_normalization: depth_radius must be an integer but got "
            f"depth_radius {js_str(depth_radius)}."
        )
    depth_radius = int_arg(float(depth_radius), "localResponseNormalization", "depthRadius")
    bias = float_arg(bias, "localResponseNormalization", "bias")
    alpha = float_arg(alpha, "localResponseNormalization", "alpha")
    beta = float_arg(beta, "localResponseNormalization", "beta")
    x4d = x
    if x.rank == 3:
        x4d = reshape(x, [1, *x._shape])
    attrs = {"depth_radius": depth_radius, "bias": bias, "alpha": alpha, "beta": beta}
    res = run_kernel(k.LRN, (x4d,), attrs)
    if x.rank == 3:
        return reshape(res, list(res._shape[1:]))
    return res


@op(name="localResponseNormalizationBackprop")
def lrn_backprop(
    x: Tensor,
    y: Tensor,
    dy: Tensor,
    depth_radius: int = 5,
    bias: float = 1,
    alpha: float = 1,
    beta: float = 0.5,
) -> Tensor:
    """The gradient of ``local_response_normalization`` (the LRNGrad kernel); used by LRN's
    gradient. Not a public op."""
    attrs = {"depth_radius": depth_radius, "bias": bias, "alpha": alpha, "beta": beta}
    return run_kernel(k.LRN_GRAD, (x, y, dy), attrs)


# ---------------------------------------------------------------------------- softmax
def _last_axis(value: Any, logits: Tensor, what: str, name: str) -> None:
    """TF.js's "non-last dimension" error for an axis that is not a number at all (a list or
    an array would otherwise compare element by element)."""
    if value is not None and real_number(value) is None:
        raise InvalidArgumentError(
            f"{what} along a non-last dimension is not yet supported. Logits was rank "
            f"{logits.rank} and {name} was {describe(value)}"
        )


@op
def softmax(logits: Any, dim: int = -1) -> Tensor:
    """``exp(logits) / sum(exp(logits))`` along the last axis (the only one supported).

    >>> tf.softmax(tf.tensor1d([0, 0])).array_sync()
    [0.5, 0.5]
    """
    logits = convert_to_tensor(logits, "logits", "softmax", "float32")
    _last_axis(dim, logits, "Softmax", "dim")
    if dim is None or dim == -1:
        dim = logits.rank - 1
    if dim != logits.rank - 1:
        raise InvalidArgumentError(
            "Softmax along a non-last dimension is not yet supported. "
            f"Logits was rank {logits.rank} and dim was {js_str(dim)}"
        )
    return run_kernel(k.SOFTMAX, (logits,), {"dim": dim})


@op
def log_softmax(logits: Any, axis: int = -1) -> Tensor:
    """``logits - log(sum(exp(logits)))`` along the last axis, computed stably, with TF.js's
    custom gradient ``dy - sum(dy) * softmax``.

    >>> tf.log_softmax(tf.tensor1d([0, 0])).array_sync()
    [-0.6931471824645996, -0.6931471824645996]
    """
    logits = convert_to_tensor(logits, "logits", "logSoftmax")
    _last_axis(axis, logits, "Log Softmax", "axis")
    if axis is None or axis == -1:
        axis = logits.rank - 1
    if axis != logits.rank - 1:
        raise InvalidArgumentError(
            "Log Softmax along a non-last dimension is not yet supported. "
            f"Logits was rank {logits.rank} and axis was {js_str(axis)}"
        )

    def forward(logits: Tensor, save: Any) -> dict:
        shifted = sub(logits, max_(logits, axis, True))
        value = sub(cast(shifted, "float32"), log(sum_(exp(shifted), axis, True)))
        save([value])

        def grad_func(dy: Tensor, saved: list[Tensor]) -> Tensor:
            (value,) = saved
            return sub(dy, mul(sum_(dy, axis, True), exp(value)))

        return {"value": value, "grad_func": grad_func}

    return custom_grad(forward)(logits)


# ---------------------------------------------------------------------------- moments
@op
def moments(x: Any, axis: Any = None, keep_dims: bool = False, *, axes: Any = None) -> Moments:
    """Mean and variance of ``x`` along ``axis`` (every axis by default); read them as
    ``.mean`` and ``.variance``. ``axes=`` is accepted as another name for ``axis``.

    >>> m = tf.moments(tf.tensor1d([1, 2, 3, 4]))
    >>> m.mean.array_sync(), m.variance.array_sync()
    (2.5, 1.25)
    """
    if axis is None:
        axis = axes
    x = convert_to_tensor(x, "x", "moments")
    keep_dims = keep_dims_arg(keep_dims, "moments")
    axes_ = parse_axis(axis, x._shape, "moments")
    x_mean = mean_(x, axes_, keep_dims)
    kept_shape = list(x_mean._shape) if keep_dims else keep_dims_shape(x._shape, axes_)
    dev_squared = square(sub(cast(x, "float32"), reshape(x_mean, kept_shape)))
    variance = mean_(dev_squared, axes_, keep_dims)
    return Moments(x_mean, variance)


# ---------------------------------------------------------------------------- sparse to dense
@op
def sparse_to_dense(
    sparse_indices: Any, sparse_values: Any, output_shape: Any, default_value: Any = 0
) -> Tensor:
    """A dense tensor of ``output_shape`` filled with ``default_value``, with
    ``sparse_values`` written at ``sparse_indices`` (int32: a scalar, a vector of positions
    for a rank-1 output, or an ``[n, rank]`` matrix). A scalar value is written everywhere.

    >>> tf.sparse_to_dense(tf.tensor1d([0, 2], 'int32'), tf.tensor1d([5, 6]), [4]).array_sync()
    [5.0, 0.0, 6.0, 0.0]
    """
    output_shape = list(checked_shape(output_shape, "sparseToDense"))
    sparse_indices = convert_to_tensor(sparse_indices, "sparseIndices", "sparseToDense", "int32")
    sparse_values = convert_to_tensor(
        sparse_values, "sparseValues", "sparseToDense", "string_or_numeric"
    )
    default_value = convert_to_tensor(
        default_value, "defaultValue", "sparseToDense", sparse_values.dtype
    )
    if sparse_indices.dtype != "int32":
        raise InvalidArgumentError(
            "tf.sparse_to_dense() expects the indices to be int32 type, but the dtype was "
            f"{sparse_indices.dtype}."
        )
    if sparse_indices.rank > 2:
        raise ShapeError(
            "sparse_indices should be a scalar, vector, or matrix, but got shape "
            f"{shape_str(sparse_indices._shape)}."
        )
    num_elems = sparse_indices._shape[0] if sparse_indices.rank > 0 else 1
    num_dims = sparse_indices._shape[1] if sparse_indices.rank > 1 else 1
    if len(output_shape) != num_dims:
        raise ShapeError(
            f"output_shape has incorrect number of elements:, {len(output_shape)}, should be: {num_dims}."
        )
    if not (
        sparse_values.rank == 0 or (sparse_values.rank == 1 and sparse_values.size == num_elems)
    ):
        raise ShapeError(
            f"sparse_values has incorrect shape {shape_str(sparse_values._shape)}, "
            f"should be [] or [{num_elems}]"
        )
    if sparse_values.dtype != default_value.dtype:
        raise InvalidArgumentError("sparse_values.dtype must match default_values.dtype")
    return run_kernel(
        k.SPARSE_TO_DENSE,
        (sparse_indices, sparse_values, default_value),
        {"output_shape": output_shape},
    )
