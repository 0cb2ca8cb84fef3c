"""``tf.losses``: TF.js's loss functions (``tfjs-core/src/ops/losses/``) and ``Reduction``.

Every loss is composite, built from other ops exactly as TF.js builds it, then reduced by
``compute_weighted_loss``. Arguments come in TF.js's order; ``weights``, ``reduction`` and
the other optional arguments may also be given by keyword. ``None`` means "use the default",
like JavaScript's ``undefined``.

>>> tf.losses.mean_squared_error(tf.tensor1d([1, 2, 3]), tf.tensor1d([1, 1, 1])).array_sync()
1.6666666269302368
>>> tf.losses.mean_squared_error([1, 2, 3], [1, 1, 1], None, tf.losses.Reduction.NONE).array_sync()
[0.0, 1.0, 4.0]
"""

from __future__ import annotations

import enum
from typing import Any

from ..engine import ENGINE
from ..engine.recording import custom_grad
from ..errors import InvalidArgumentError, ShapeError
from ..kernel_names import losses as kl
from ..naming import snake_case
from ..tensor import Tensor
from ..tensor_util import shape_str
from ._op import convert_to_tensor, describe, float_arg, op, run_kernel
from .arithmetic import add, div, minimum, mul, squared_difference, sub
from .basic_math import abs as abs_
from .basic_math import exp, log, log1p, neg, relu, square
from .creation import ones, scalar
from .logical import not_equal
from .reduction import expand_shape_to_keep_dim, log_sum_exp
from .reduction import mean as mean_
from .reduction import sum as sum_
from .transformations import cast, reshape

__all__ = [
    "absolute_difference",
    "compute_weighted_loss",
    "cosine_distance",
    "hinge_loss",
    "huber_loss",
    "log_loss",
    "mean_squared_error",
    "sigmoid_cross_entropy",
    "softmax_cross_entropy",
]


class Reduction(enum.IntEnum):
    """How a loss is reduced (TF.js's ``tf.Reduction``); plain ints 0-3 work as well."""

    NONE = 0
    MEAN = 1
    SUM = 2
    SUM_BY_NONZERO_WEIGHTS = 3


_DEFAULT = Reduction.SUM_BY_NONZERO_WEIGHTS


def _convert(labels: Any, predictions: Any, weights: Any, names: tuple[str, str], op_name: str):
    a = convert_to_tensor(labels, names[0], op_name)
    b = convert_to_tensor(predictions, names[1], op_name)
    w = convert_to_tensor(weights, "weights", op_name) if weights is not None else None
    if a._shape != b._shape:
        raise ShapeError(
            f"Error in {snake_case(op_name)}: shapes [{shape_str(a._shape)}] and [{shape_str(b._shape)}] must match"
        )
    return a, b, w


def _js_divide(a: int, b: int) -> float:
    """``a / b`` as JavaScript computes it for sizes (``x / 0`` is Infinity, ``0 / 0`` NaN)."""
    if b:
        return a / b
    return float("inf") if a else float("nan")


def _js_reduction(reduction: Any) -> str:
    if isinstance(reduction, enum.Enum):
        return str(reduction.value)
    if isinstance(reduction, float) and reduction.is_integer():
        return str(int(reduction))
    return str(reduction)


@op
def compute_weighted_loss(losses: Any, weights: Any = None, reduction: Any = _DEFAULT) -> Tensor:
    """Weights ``losses`` (broadcasting ``weights``) and reduces them.

    ``Reduction.NONE``: the weighted losses; ``SUM``: their sum; ``MEAN``: their mean (with
    weights, ``sum(losses * weights) / sum(weights)``); ``SUM_BY_NONZERO_WEIGHTS`` (the
    default): the sum divided by the number of non-zero (broadcast) weights.

    >>> tf.losses.compute_weighted_loss(tf.tensor1d([1, 2, 3]), tf.tensor1d([0.5, 0, 1])).array_sync()
    1.75
    """
    if reduction is None:
        reduction = _DEFAULT
    if not isinstance(reduction, (int, float, str)):  # a list or an array compares elementwise
        raise InvalidArgumentError(f"Unknown reduction: {describe(reduction)}")
    losses = convert_to_tensor(losses, "losses", "computeWeightedLoss")
    if weights is not None:
        weights = convert_to_tensor(weights, "weights", "computeWeightedLoss")
    weighted_loss = losses if weights is None else mul(losses, weights)
    if reduction == Reduction.NONE:
        return weighted_loss
    if reduction == Reduction.SUM:
        return sum_(weighted_loss)
    if reduction == Reduction.MEAN:
        if weights is None:
            return mean_(weighted_loss)
        broadcast_factor = _js_divide(losses.size, weights.size)
        result = div(sum_(weighted_loss), sum_(weights))
        return div(result, scalar(broadcast_factor)) if broadcast_factor > 1 else result
    if reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
        if weights is None:
            return div(sum_(weighted_loss), scalar(losses.size))
        broadcasted_weights = mul(weights, ones(list(losses._shape)))
        num_non_zeros = cast(sum_(not_equal(broadcasted_weights, scalar(0))), "float32")
        return div(sum_(weighted_loss), num_non_zeros)
    raise InvalidArgumentError(f"Unknown reduction: {_js_reduction(reduction)}")


@op
def absolute_difference(
    labels: Any, predictions: Any, weights: Any = None, reduction: Any = _DEFAULT
) -> Tensor:
    """Weighted ``|labels - predictions|``, reduced.

    >>> tf.losses.absolute_difference([1, 2], [2, 0]).array_sync()
    1.5
    """
    labels, predictions, weights = _convert(
        labels, predictions, weights, ("labels", "predictions"), "absoluteDifference"
    )
    losses = abs_(sub(labels, predictions))
    return compute_weighted_loss(losses, weights, reduction)


@op
def cosine_distance(
    labels: Any, predictions: Any, axis: Any = None, weights: Any = None, reduction: Any = _DEFAULT
) -> Tensor:
    """Weighted ``1 - sum(labels * predictions, axis)`` (inputs are expected unit-normalized),
    reduced. A missing ``axis`` sums over every axis, as TF.js does with ``undefined``.

    >>> tf.losses.cosine_distance([[1, 0], [0, 1]], [[1, 0], [1, 0]], 1).array_sync()
    0.5
    """
    labels, predictions, weights = _convert(
        labels, predictions, weights, ("labels", "predictions"), "cosineDistance"
    )
    one = scalar(1)
    losses = sub(one, sum_(mul(labels, predictions), axis, True))
    return compute_weighted_loss(losses, weights, reduction)


@op
def hinge_loss(
    labels: Any, predictions: Any, weights: Any = None, reduction: Any = _DEFAULT
) -> Tensor:
    """Weighted ``relu(1 - (2 * labels - 1) * predictions)`` (labels are 0 or 1), reduced.

    >>> tf.losses.hinge_loss([1, 0], [0.5, -2]).array_sync()
    0.25
    """
    labels, predictions, weights = _convert(
        labels, predictions, weights, ("labels", "predictions"), "hingeLoss"
    )
    one = scalar(1)
    labels = sub(mul(scalar(2), labels), one)  # {0, 1} -> {-1, 1}
    losses = relu(sub(one, mul(labels, predictions)))
    return compute_weighted_loss(losses, weights, reduction)


@op
def huber_loss(
    labels: Any,
    predictions: Any,
    weights: Any = None,
    delta: float = 1.0,
    reduction: Any = _DEFAULT,
) -> Tensor:
    """Weighted Huber loss: quadratic for errors up to ``delta``, linear beyond, reduced.

    >>> tf.losses.huber_loss([0, 0], [0.5, 3]).array_sync()
    1.3125
    """
    if delta is None:
        delta = 1.0
    labels, predictions, weights = _convert(
        labels, predictions, weights, ("labels", "predictions"), "huberLoss"
    )
    delta_scalar = scalar(delta)
    error = abs_(sub(predictions, labels))
    quadratic = minimum(error, delta_scalar)
    linear = sub(error, quadratic)
    losses = add(mul(scalar(0.5), square(quadratic)), mul(delta_scalar, linear))
    return compute_weighted_loss(losses, weights, reduction)


@op
def log_loss(
    labels: Any,
    predictions: Any,
    weights: Any = None,
    epsilon: float = 1e-7,
    reduction: Any = _DEFAULT,
) -> Tensor:
    """Weighted binary cross-entropy of probabilities ``predictions``, reduced.

    >>> round(float(tf.losses.log_loss([1, 0], [0.5, 0.5]).array_sync()), 4)
    0.6931
    """
    if epsilon is None:
        epsilon = 1e-7
    labels, predictions, weights = _convert(
        labels, predictions, weights, ("labels", "predictions"), "logLoss"
    )
    one = scalar(1)
    epsilon_scalar = scalar(epsilon)
    l1 = neg(mul(labels, log(add(predictions, epsilon_scalar))))
    l2 = mul(sub(one, labels), log(add(sub(one, predictions), epsilon_scalar)))
    losses = sub(l1, l2)
    return compute_weighted_loss(losses, weights, reduction)


@op
def mean_squared_error(
    labels: Any, predictions: Any, weights: Any = None, reduction: Any = _DEFAULT
) -> Tensor:
    """Weighted ``(labels - predictions) ** 2``, reduced.

    >>> tf.losses.mean_squared_error([0, 0], [1, 3]).array_sync()
    5.0
    """
    labels, predictions, weights = _convert(
        labels, predictions, weights, ("labels", "predictions"), "meanSquaredError"
    )
    losses = squared_difference(labels, predictions)
    return compute_weighted_loss(losses, weights, reduction)


def _sigmoid_cross_entropy_with_logits(labels: Tensor, logits: Tensor) -> Tensor:
    """``max(x, 0) - x * z + log(1 + exp(-|x|))``: the stable form of the logistic loss."""
    if labels._shape != logits._shape:
        raise ShapeError(
            "Error in sigmoid_cross_entropy_with_logits: shapes "
            f"[{shape_str(labels._shape)}] and [{shape_str(logits._shape)}] must match"
        )
    max_output = relu(logits)
    output_x_target = mul(logits, labels)
    sigmoid_output = log1p(exp(neg(abs_(logits))))
    return add(sub(max_output, output_x_target), sigmoid_output)


@op
def sigmoid_cross_entropy(
    multi_class_labels: Any,
    logits: Any,
    weights: Any = None,
    label_smoothing: float = 0,
    reduction: Any = _DEFAULT,
) -> Tensor:
    """Weighted sigmoid cross-entropy of ``logits`` against 0/1 ``multi_class_labels``
    (smoothed towards 0.5 by ``label_smoothing``), reduced.

    >>> round(float(tf.losses.sigmoid_cross_entropy([1, 0], [0, 0]).array_sync()), 4)
    0.6931
    """
    if label_smoothing is None:
        label_smoothing = 0
    label_smoothing = float_arg(label_smoothing, "sigmoidCrossEntropy", "labelSmoothing")
    multi_class_labels, logits, weights = _convert(
        multi_class_labels, logits, weights, ("multiClassLabels", "logits"), "sigmoidCrossEntropy"
    )
    if label_smoothing > 0:
        label_smoothing_scalar = scalar(label_smoothing)
        one = scalar(1)
        half = scalar(0.5)
        multi_class_labels = add(
            mul(multi_class_labels, sub(one, label_smoothing_scalar)),
            mul(half, label_smoothing_scalar),
        )
    losses = _sigmoid_cross_entropy_with_logits(multi_class_labels, logits)
    return compute_weighted_loss(losses, weights, reduction)


def fusable_pair(a: Any, b: Any) -> bool:
    """Whether a loss of ``a`` and ``b`` may run as its fused kernel (``kernel_names/losses.py``
    and ``kernel_names/layers_losses.py``): float32 tensors of one shape and rank >= 1, under
    at most a first-order tape (``Engine.may_fuse``)."""
    return (
        isinstance(a, Tensor)
        and isinstance(b, Tensor)
        and a.dtype == "float32"
        and b.dtype == "float32"
        and a._shape == b._shape
        and len(b._shape) > 0
        and ENGINE.may_fuse(1)
    )


def _softmax_cross_entropy_with_logits(labels: Tensor, logits: Tensor, dim: int = -1) -> Tensor:
    """Per-example softmax cross-entropy along the last axis, with TF.js's custom gradient
    (``dy * (softmax - labels)`` for the logits, its negation for the labels)."""
    if dim == -1:
        dim = logits.rank - 1
    if dim != logits.rank - 1:
        raise InvalidArgumentError(
            "Softmax cross entropy along a non-last dimension is not yet supported. "
            f"Labels / logits was rank {logits.rank} and dim was {dim}"
        )
    if fusable_pair(labels, logits):  # the same arithmetic and custom gradient, fused
        return run_kernel(kl.SOFTMAX_CROSS_ENTROPY, (labels, logits))

    def forward(labels: Tensor, logits: Tensor, save: Any) -> dict:
        lse = log_sum_exp(logits, [dim], True)
        log_result = sub(cast(logits, "float32"), lse)
        save([labels, log_result])
        cost_vector = neg(mul(log_result, labels))
        value = sum_(cost_vector, [dim])

        def grad_func(dy: Tensor, saved: list[Tensor]) -> list[Tensor]:
            labels, log_result = saved
            dy_shape = expand_shape_to_keep_dim(dy._shape, [dim])
            return [
                mul(reshape(dy, dy_shape), sub(cast(labels, "float32"), exp(log_result))),
                mul(reshape(dy, dy_shape), sub(exp(log_result), cast(labels, "float32"))),
            ]

        return {"value": value, "grad_func": grad_func}

    return custom_grad(forward)(labels, logits)


@op
def softmax_cross_entropy(
    onehot_labels: Any,
    logits: Any,
    weights: Any = None,
    label_smoothing: float = 0,
    reduction: Any = _DEFAULT,
) -> Tensor:
    """Weighted softmax cross-entropy of ``logits`` (last axis) against one-hot labels
    (smoothed towards uniform by ``label_smoothing``), reduced.

    >>> tf.losses.softmax_cross_entropy([[0, 1], [1, 0]], [[1, 2], [3, 4]]).array_sync()
    0.8132616281509399
    """
    if label_smoothing is None:
        label_smoothing = 0
    label_smoothing = float_arg(label_smoothing, "softmaxCrossEntropy", "labelSmoothing")
    onehot_labels, logits, weights = _convert(
        onehot_labels, logits, weights, ("onehotLabels", "logits"), "softmaxCrossEntropy"
    )
    if label_smoothing > 0:
        label_smoothing_scalar = scalar(label_smoothing)
        one = scalar(1)
        num_classes = scalar(onehot_labels._shape[1])
        onehot_labels = add(
            mul(onehot_labels, sub(one, label_smoothing_scalar)),
            div(label_smoothing_scalar, num_classes),
        )
    losses = _softmax_cross_entropy_with_logits(onehot_labels, logits)
    return compute_weighted_loss(losses, weights, reduction)
