"""Loss functions of the Layers API (TF.js's ``tfjs-layers/src/losses.ts``), by TF.js and Keras
names.

Each loss takes ``(y_true, y_pred)`` and returns one value per sample (the last axis is
reduced); ``compile`` averages it over the batch. Every one runs inside ``tf.tidy``, so only
its result survives.

>>> y_true = tf.tensor2d([[0, 1], [1, 0]])
>>> y_pred = tf.tensor2d([[0.2, 0.8], [0.6, 0.4]])
>>> [round(v, 5) for v in mean_squared_error(y_true, y_pred).array_sync()]
[0.04, 0.16]
>>> get('categorical_crossentropy') is get('categoricalCrossentropy') is categorical_crossentropy
True
>>> get('softmaxCrossEntropy')
Traceback (most recent call last):
...
tidytensor.layers.errors.LayersValueError: Unknown loss softmaxCrossEntropy. Use "categorical_crossentropy" as the string name for tf.losses.softmax_cross_entropy
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from typing import Any

from .. import ops
from ..naming import did_you_mean, snake_case
from ..ops import layers_losses as fused_losses
from ..ops.losses import fusable_pair
from ..py_strings import py_shape
from ..scopes import tidy
from ..tensor import Tensor
from . import backend as K
from .errors import LayersValueError

__all__ = [
    "KERAS_LOSS_NAMES",
    "LOSSES_MAP",
    "KLD",
    "MAE",
    "MAPE",
    "MSE",
    "MSLE",
    "binary_crossentropy",
    "categorical_crossentropy",
    "categorical_hinge",
    "cosine",
    "cosine_proximity",
    "get",
    "hinge",
    "kld",
    "kullback_leibler_divergence",
    "l2_normalize",
    "logcosh",
    "mae",
    "mape",
    "mean_absolute_error",
    "mean_absolute_percentage_error",
    "mean_squared_error",
    "mean_squared_logarithmic_error",
    "mse",
    "msle",
    "poisson",
    "sigmoid_cross_entropy_with_logits",
    "sparse_categorical_crossentropy",
    "squared_hinge",
]

LossFn = Callable[[Tensor, Tensor], Tensor]

_MAX_VALUE = sys.float_info.max  # JavaScript's Number.MAX_VALUE


def l2_normalize(x: Tensor, axis: int | None = None) -> Tensor:
    """``x / sqrt(max(sum(x^2, axis), epsilon))``."""

    def body() -> Tensor:
        v = ops.cast(x, "float32") if x.dtype != "float32" else x
        square_sum = ops.sum(K.square(v), axis, True)
        epsilon_tensor = ops.fill(square_sum.shape, K.epsilon())
        norm = ops.sqrt(ops.maximum(square_sum, epsilon_tensor))
        return ops.div(v, norm)

    return tidy(body)


def mean_squared_error(y_true: Tensor, y_pred: Tensor) -> Tensor:
    """``mean((y_pred - y_true)^2, -1)``."""
    return tidy(lambda: ops.mean(K.square(ops.sub(y_pred, y_true)), -1))


def mean_absolute_error(y_true: Tensor, y_pred: Tensor) -> Tensor:
    """``mean(|y_pred - y_true|, -1)``."""
    return tidy(lambda: ops.mean(ops.abs(ops.sub(y_pred, y_true)), -1))


def mean_absolute_percentage_error(y_true: Tensor, y_pred: Tensor) -> Tensor:
    """``100 * mean(|(y_true - y_pred) / max(|y_true|, epsilon)|, -1)``."""

    def body() -> Tensor:
        diff = ops.sub(y_true, y_pred)
        clipped_true = ops.clip_by_value(ops.abs(y_true), K.epsilon(), _MAX_VALUE)
        abs_result = ops.abs(ops.div(diff, clipped_true))
        return ops.mul(100, ops.mean(abs_result, -1))

    return tidy(body)


def mean_squared_logarithmic_error(y_true: Tensor, y_pred: Tensor) -> Tensor:
    """``mean((log(1 + max(y_pred, eps)) - log(1 + max(y_true, eps)))^2, -1)``."""

    def body() -> Tensor:
        clipped_pred = ops.clip_by_value(y_pred, K.epsilon(), _MAX_VALUE)
        first_log = ops.log(ops.add(1, clipped_pred))
        clipped_true = ops.clip_by_value(y_true, K.epsilon(), _MAX_VALUE)
        second_log = ops.log(ops.add(1, clipped_true))
        return ops.mean(K.square(ops.sub(first_log, second_log)), -1)

    return tidy(body)


def squared_hinge(y_true: Tensor, y_pred: Tensor) -> Tensor:
    """``mean(max(0, 1 - y_true * y_pred)^2, -1)`` (labels in {-1, 1})."""

    def body() -> Tensor:
        max_result = ops.maximum(0, ops.sub(1, ops.mul(y_true, y_pred)))
        return ops.mean(K.square(max_result), -1)

    return tidy(body)


def hinge(y_true: Tensor, y_pred: Tensor) -> Tensor:
    """``mean(max(0, 1 - y_true * y_pred), -1)`` (labels in {-1, 1})."""

    def body() -> Tensor:
        max_result = ops.maximum(0, ops.sub(1, ops.mul(y_true, y_pred)))
        return ops.mean(max_result, -1)

    return tidy(body)


def categorical_hinge(y_true: Tensor, y_pred: Tensor) -> Tensor:
    """``max(0, 1 + max((1 - y_true) * y_pred) - sum(y_true * y_pred))``."""

    def body() -> Tensor:
        pos = ops.sum(ops.mul(y_true, y_pred), -1)
        neg = ops.max(ops.mul(ops.sub(1, y_true), y_pred), -1)
        return ops.maximum(0, ops.add(1, ops.sub(neg, pos)))

    return tidy(body)


def logcosh(y_true: Tensor, y_pred: Tensor) -> Tensor:
    """``mean(log(cosh(y_pred - y_true)), -1)``, written as ``d + softplus(-2d) - log 2``."""

    def body() -> Tensor:
        diff = ops.sub(y_pred, y_true)
        result = ops.sub(ops.add(diff, ops.softplus(ops.mul(-2, diff))), math.log(2))
        return ops.mean(result, -1)

    return tidy(body)


def categorical_crossentropy(target: Tensor, output: Tensor, from_logits: bool = False) -> Tensor:
    """``-sum(target * log(p), -1)`` with ``p`` the output normalized to sum to 1 (or its
    softmax when ``from_logits``), clipped to ``[eps, 1 - eps]``."""

    if not from_logits and fusable_pair(target, output):
        return fused_losses.categorical_crossentropy(target, output, K.epsilon())

    def body() -> Tensor:
        out = output
        if from_logits:
            out = ops.softmax(out)
        else:
            out = ops.div(out, ops.sum(out, out.rank - 1, True))
        out = ops.clip_by_value(out, K.epsilon(), 1 - K.epsilon())
        return ops.neg(ops.sum(ops.mul(ops.cast(target, "float32"), ops.log(out)), out.rank - 1))

    return tidy(body)


def sparse_categorical_crossentropy(
    target: Tensor, output: Tensor, from_logits: bool = False
) -> Tensor:
    """Categorical crossentropy with integer class targets (``[batch]`` or ``[batch, 1]``)."""

    def body() -> Tensor:
        flat_target = ops.cast(ops.floor(K.flatten(target)), "int32")
        out = ops.clip_by_value(output, K.epsilon(), 1 - K.epsilon())
        one_hot = ops.reshape(ops.one_hot(flat_target, out.shape[-1]), out.shape)
        return categorical_crossentropy(one_hot, out, from_logits)

    return tidy(body)


def sigmoid_cross_entropy_with_logits(labels: Tensor, logits: Tensor) -> Tensor:
    """``relu(x) - x * z + log1p(exp(-|x|))`` elementwise (``x`` logits, ``z`` labels)."""
    if list(labels.shape) != list(logits.shape):
        raise LayersValueError(
            f"logits and labels must have the same shape, but got shapes "
            f"{py_shape(labels.shape)} and {py_shape(logits.shape)}"
        )

    def body() -> Tensor:
        relu_logits = ops.relu(logits)
        neg_abs_logits = ops.neg(ops.abs(logits))
        return ops.add(
            ops.sub(relu_logits, ops.mul(logits, labels)), ops.log1p(ops.exp(neg_abs_logits))
        )

    return tidy(body)


def binary_crossentropy(y_true: Tensor, y_pred: Tensor) -> Tensor:
    """``mean`` over the last axis of the sigmoid crossentropy of the clipped probabilities."""
    if fusable_pair(y_true, y_pred):
        return fused_losses.binary_crossentropy(y_true, y_pred, K.epsilon())

    def body() -> Tensor:
        y = ops.clip_by_value(y_pred, K.epsilon(), 1 - K.epsilon())
        y = ops.log(ops.div(y, ops.sub(1, y)))
        return ops.mean(sigmoid_cross_entropy_with_logits(y_true, y), -1)

    return tidy(body)


def kullback_leibler_divergence(y_true: Tensor, y_pred: Tensor) -> Tensor:
    """``sum(y_true * log(clip(y_true) / clip(y_pred)), -1)``."""

    def body() -> Tensor:
        clipped_true = ops.clip_by_value(y_true, K.epsilon(), 1)
        clipped_pred = ops.clip_by_value(y_pred, K.epsilon(), 1)
        return ops.sum(ops.mul(y_true, ops.log(ops.div(clipped_true, clipped_pred))), -1)

    return tidy(body)


def poisson(y_true: Tensor, y_pred: Tensor) -> Tensor:
    """``mean(y_pred - y_true * log(y_pred + eps), -1)``."""

    def body() -> Tensor:
        log_pred = ops.log(ops.add(K.epsilon(), y_pred))
        return ops.mean(ops.sub(y_pred, ops.mul(y_true, log_pred)), -1)

    return tidy(body)


def cosine_proximity(y_true: Tensor, y_pred: Tensor) -> Tensor:
    """``-sum(l2_normalize(y_true) * l2_normalize(y_pred), -1)``."""

    def body() -> Tensor:
        true_normalized = l2_normalize(y_true, -1)
        pred_normalized = l2_normalize(y_pred, -1)
        return ops.neg(ops.sum(ops.mul(true_normalized, pred_normalized), -1))

    return tidy(body)


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence
cosine = cosine_proximity

#: TF.js's ``lossesMap``: the string names ``compile(loss=...)`` accepts in TF.js.
LOSSES_MAP: dict[str, LossFn] = {
    "meanSquaredError": mean_squared_error,
    "meanAbsoluteError": mean_absolute_error,
    "meanAbsolutePercentageError": mean_absolute_percentage_error,
    "meanSquaredLogarithmicError": mean_squared_logarithmic_error,
    "squaredHinge": squared_hinge,
    "hinge": hinge,
    "categoricalHinge": categorical_hinge,
    "logcosh": logcosh,
    "categoricalCrossentropy": categorical_crossentropy,
    "sparseCategoricalCrossentropy": sparse_categorical_crossentropy,
    "binaryCrossentropy": binary_crossentropy,
    "kullbackLeiblerDivergence": kullback_leibler_divergence,
    "poisson": poisson,
    "cosineProximity": cosine_proximity,
}

#: Keras's spellings (and its short aliases), accepted as well.
KERAS_LOSS_NAMES: dict[str, LossFn] = {
    "mean_squared_error": mean_squared_error,
    "mse": mean_squared_error,
    "MSE": mean_squared_error,
    "mean_absolute_error": mean_absolute_error,
    "mae": mean_absolute_error,
    "MAE": mean_absolute_error,
    "mean_absolute_percentage_error": mean_absolute_percentage_error,
    "mape": mean_absolute_percentage_error,
    "MAPE": mean_absolute_percentage_error,
    "mean_squared_logarithmic_error": mean_squared_logarithmic_error,
    "msle": mean_squared_logarithmic_error,
    "MSLE": mean_squared_logarithmic_error,
    "squared_hinge": squared_hinge,
    "categorical_hinge": categorical_hinge,
    "log_cosh": logcosh,
    "categorical_crossentropy": categorical_crossentropy,
    "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
    "binary_crossentropy": binary_crossentropy,
    "kullback_leibler_divergence": kullback_leibler_divergence,
    "kl_divergence": kullback_leibler_divergence,
    "kld": kullback_leibler_divergence,
    "KLD": kullback_leibler_divergence,
    "cosine_proximity": cosine_proximity,
    "cosine_similarity": cosine_proximity,
    "cosine": cosine_proximity,
}


def get(identifier_or_fn: Any) -> Any:
    """The loss function for a name (TF.js's or Keras's spelling), or the function itself.

    Raises:
        LayersValueError: an unknown name (``Unknown loss <name>``).
    """
    if isinstance(identifier_or_fn, str):
        fn = LOSSES_MAP.get(identifier_or_fn) or KERAS_LOSS_NAMES.get(identifier_or_fn)
        if fn is not None:
            return fn
        message = f"Unknown loss {identifier_or_fn}" + did_you_mean(
            identifier_or_fn, [*KERAS_LOSS_NAMES, *LOSSES_MAP]
        )
        if "softmaxcrossentropy" in identifier_or_fn.lower():
            message = (
                f'Unknown loss {identifier_or_fn}. Use "categorical_crossentropy" as the string '
                "name for tf.losses.softmax_cross_entropy"
            )
        else:
            known = ", ".join(snake_case(name) for name in LOSSES_MAP)
            message += f" (known losses: {known}, and TF.js's camelCase spellings)"
        raise LayersValueError(message)
    if identifier_or_fn is not None and not callable(identifier_or_fn):
        raise LayersValueError(
            f"A loss must be a string name or a function (y_true, y_pred) -> Tensor, but got "
            f"{type(identifier_or_fn).__name__}: {identifier_or_fn!r}"
        )
    return identifier_or_fn


def name_of(fn: Any) -> str | None:
    """TF.js's name of a loss function of this module (``'meanSquaredError'``), else None."""
    for key, value in LOSSES_MAP.items():
        if value is fn:
            return key
    return None
