"""``tf.metrics``: metric functions and their names (TF.js's ``tfjs-layers/src/metrics.ts``
and ``exports_metrics.ts``).

Each metric takes ``(y_true, y_pred)``. Per-sample metrics (accuracies, crossentropies,
errors) return one value per sample; ``precision``, ``recall`` and ``r2_score`` return a
scalar. ``compile(metrics=[...])`` averages them over each batch.

>>> y_true = tf.tensor2d([[0, 1], [1, 0], [0, 1]])
>>> y_pred = tf.tensor2d([[0.1, 0.9], [0.3, 0.7], [0.2, 0.8]])
>>> categorical_accuracy(y_true, y_pred).array_sync()
[1.0, 0.0, 1.0]
>>> get('mse') is mean_squared_error
True
>>> get_loss_or_metric_name(categorical_accuracy)
'categoricalAccuracy'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import ops
from ..naming import did_you_mean, snake_case
from ..scopes import tidy
from ..tensor import Tensor
from . import backend as K
from . import losses as _losses
from .errors import LayersNotImplementedError, LayersValueError
from .losses import (
    cosine_proximity,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
)

__all__ = [
    "MAE",
    "MAPE",
    "METRICS_MAP",
    "MSE",
    "binary_accuracy",
    "binary_crossentropy",
    "categorical_accuracy",
    "categorical_crossentropy",
    "cosine",
    "cosine_proximity",
    "get",
    "get_loss_or_metric_name",
    "mae",
    "mape",
    "mean_absolute_error",
    "mean_absolute_percentage_error",
    "mean_squared_error",
    "mse",
    "precision",
    "r2_score",
    "recall",
    "sparse_categorical_accuracy",
    "sparse_categorical_crossentropy",
    "sparse_top_k_categorical_accuracy",
    "top_k_categorical_accuracy",
]

MetricFn = Callable[[Tensor, Tensor], Tensor]


def binary_accuracy(y_true: Tensor, y_pred: Tensor) -> Tensor:
    """Share of ``y_pred > 0.5`` equal to ``y_true``, over the last axis.

    >>> binary_accuracy(tf.tensor2d([[1, 0]]), tf.tensor2d([[0.7, 0.6]])).array_sync()
    [0.5]
    """

    def body() -> Tensor:
        threshold = ops.mul(0.5, ops.ones_like(y_pred))
        y_pred_thresholded = K.cast(ops.greater(y_pred, threshold), y_true.dtype)
        return ops.mean(ops.equal(y_true, y_pred_thresholded), -1)

    return tidy(body)


def categorical_accuracy(y_true: Tensor, y_pred: Tensor) -> Tensor:
    """1 where ``arg_max(y_true, -1) == arg_max(y_pred, -1)``, else 0."""
    return tidy(
        lambda: K.cast(ops.equal(ops.arg_max(y_true, -1), ops.arg_max(y_pred, -1)), "float32")
    )


def _count(y_true: Tensor, y_pred: Tensor, true_value: int, pred_value: int) -> Tensor:
    return tidy(
        lambda: ops.cast(
            ops.sum(ops.logical_and(ops.equal(y_true, true_value), ops.equal(y_pred, pred_value))),
            "float32",
        )
    )


def precision(y_true: Tensor, y_pred: Tensor) -> Tensor:
    """``tp / (tp + fp)`` for 0/1 labels and predictions (0 when there is no positive
    prediction); a scalar."""

    def body() -> Tensor:
        tp = _count(y_true, y_pred, 1, 1)
        fp = _count(y_true, y_pred, 0, 1)
        denominator = ops.add(tp, fp)
        return ops.cast(
            ops.where(ops.greater(denominator, 0), ops.div(tp, denominator), 0), "float32"
        )

    return tidy(body)


def recall(y_true: Tensor, y_pred: Tensor) -> Tensor:
    """``tp / (tp + fn)`` for 0/1 labels and predictions (0 when there is no positive
    label); a scalar."""

    def body() -> Tensor:
        tp = _count(y_true, y_pred, 1, 1)
        fn = _count(y_true, y_pred, 1, 0)
        denominator = ops.add(tp, fn)
        return ops.cast(
            ops.where(ops.greater(denominator, 0), ops.div(tp, denominator), 0), "float32"
        )

    return tidy(body)


def binary_crossentropy(y_true: Tensor, y_pred: Tensor) -> Tensor:
    """The binary crossentropy loss, as a metric."""
    return _losses.binary_crossentropy(y_true, y_pred)


def sparse_categorical_accuracy(y_true: Tensor, y_pred: Tensor) -> Tensor:
    """1 where the integer label equals ``arg_max(y_pred, -1)``, else 0. ``y_true`` is
    ``[batch]`` or ``[batch, 1]``.

    >>> sparse_categorical_accuracy(tf.tensor1d([1, 0]), tf.tensor2d([[0.2, 0.8], [0.3, 0.7]])).array_sync()
    [1.0, 0.0]
    """

    def body() -> Tensor:
        labels = y_true
        if labels.rank == y_pred.rank:
            labels = ops.squeeze(labels, [labels.rank - 1])
        predicted = ops.arg_max(y_pred, -1)
        if predicted.dtype != labels.dtype:
            predicted = ops.cast(predicted, labels.dtype)
        return ops.cast(ops.equal(labels, predicted), "float32")

    return tidy(body)


def top_k_categorical_accuracy(y_true: Tensor, y_pred: Tensor) -> Tensor:
    """Not implemented in TF.js either."""
    raise LayersNotImplementedError("top_k_categorical_accuracy is not implemented (nor in TF.js).")


def sparse_top_k_categorical_accuracy(y_true: Tensor, y_pred: Tensor) -> Tensor:
    """Not implemented in TF.js either."""
    raise LayersNotImplementedError(
        "sparse_top_k_categorical_accuracy is not implemented (nor in TF.js)."
    )


def r2_score(y_true: Tensor, y_pred: Tensor) -> Tensor:
    """The coefficient of determination ``1 - SS_res / SS_tot`` over all elements; a scalar.

    >>> round(r2_score(tf.tensor1d([1, 2, 3]), tf.tensor1d([1, 2, 4])).array_sync(), 5)
    0.5
    """

    def body() -> Tensor:
        sum_squares_residuals = ops.sum(ops.square(ops.sub(y_true, y_pred)))
        sum_squares = ops.sum(ops.square(ops.sub(y_true, ops.mean(y_true))))
        return ops.sub(ops.scalar(1), ops.div(sum_squares_residuals, sum_squares))

    return tidy(body)


# ``tf.metrics.MSE`` / ``mse`` / ``MAPE`` / ``mape`` (and ``MAE`` / ``mae``) are functions of
# their own, as in TF.js's ``tf.metrics``: given to ``compile(metrics=[tf.metrics.MAPE])``,
# each is logged under its own name (``'MAPE'``), not the loss's (``'meanAbsolutePercentageError'``).
def MSE(y_true: Tensor, y_pred: Tensor) -> Tensor:  # noqa: N802 - TF.js's name
    """Mean squared error over the last axis (``tf.metrics.MSE``), logged as ``'MSE'``."""
    return mean_squared_error(y_true, y_pred)


def mse(y_true: Tensor, y_pred: Tensor) -> Tensor:
    """Mean squared error over the last axis (``tf.metrics.mse``), logged as ``'mse'``."""
    return mean_squared_error(y_true, y_pred)


def MAE(y_true: Tensor, y_pred: Tensor) -> Tensor:  # noqa: N802 - TF.js's name
    """Mean absolute error over the last axis (``tf.metrics.MAE``), logged as ``'MAE'``."""
    return mean_absolute_error(y_true, y_pred)


def mae(y_true: Tensor, y_pred: Tensor) -> Tensor:
    """Mean absolute error over the last axis (``tf.metrics.mae``), logged as ``'mae'``."""
    return mean_absolute_error(y_true, y_pred)


def MAPE(y_true: Tensor, y_pred: Tensor) -> Tensor:  # noqa: N802 - TF.js's name
    """Mean absolute percentage error (``tf.metrics.MAPE``), logged as ``'MAPE'``."""
    return mean_absolute_percentage_error(y_true, y_pred)


def mape(y_true: Tensor, y_pred: Tensor) -> Tensor:
    """Mean absolute percentage error (``tf.metrics.mape``), logged as ``'mape'``."""
    return mean_absolute_percentage_error(y_true, y_pred)


#: The crossentropy losses are metrics as they are (as in TF.js).
categorical_crossentropy = _losses.categorical_crossentropy
sparse_categorical_crossentropy = _losses.sparse_categorical_crossentropy
cosine = cosine_proximity

#: TF.js's ``metricsMap``: the metric names ``compile(metrics=[...])`` accepts in TF.js
#: (``'accuracy'``/``'acc'`` and ``'crossentropy'``/``'ce'`` are resolved by ``compile``).
METRICS_MAP: dict[str, MetricFn] = {
    "binaryAccuracy": binary_accuracy,
    "categoricalAccuracy": categorical_accuracy,
    "precision": precision,
    "categoricalCrossentropy": categorical_crossentropy,
    "sparseCategoricalCrossentropy": sparse_categorical_crossentropy,
    "mse": mean_squared_error,
    "MSE": mean_squared_error,
    "mae": mean_absolute_error,
    "MAE": mean_absolute_error,
    "mape": mean_absolute_percentage_error,
    "MAPE": mean_absolute_percentage_error,
    "cosine": cosine_proximity,
}

#: Names accepted besides TF.js's: the other ``tf.metrics`` functions and Keras's spellings.
EXTRA_METRIC_NAMES: dict[str, MetricFn] = {
    "recall": recall,
    "sparseCategoricalAccuracy": sparse_categorical_accuracy,
    "binaryCrossentropy": binary_crossentropy,
    "meanSquaredError": mean_squared_error,
    "meanAbsoluteError": mean_absolute_error,
    "meanAbsolutePercentageError": mean_absolute_percentage_error,
    "cosineProximity": cosine_proximity,
    "r2Score": r2_score,
    "binary_accuracy": binary_accuracy,
    "categorical_accuracy": categorical_accuracy,
    "sparse_categorical_accuracy": sparse_categorical_accuracy,
    "binary_crossentropy": binary_crossentropy,
    "categorical_crossentropy": categorical_crossentropy,
    "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
    "mean_squared_error": mean_squared_error,
    "mean_absolute_error": mean_absolute_error,
    "mean_absolute_percentage_error": mean_absolute_percentage_error,
    "cosine_proximity": cosine_proximity,
    "cosine_similarity": cosine_proximity,
    "r2_score": r2_score,
}

#: The names ``compile`` resolves by the output's shape and loss.
ACCURACY_NAMES = ("accuracy", "acc")
CROSSENTROPY_NAMES = ("crossentropy", "ce")


def get(identifier: Any) -> Any:
    """The metric function for a name (TF.js's or Keras's spelling), or the function itself.

    Raises:
        LayersValueError: an unknown name or ``None`` (``Unknown metric <name>``).
    """
    if isinstance(identifier, str):
        fn = METRICS_MAP.get(identifier) or EXTRA_METRIC_NAMES.get(identifier)
        if fn is not None:
            return fn
        raise LayersValueError(
            f"Unknown metric {identifier}"
            + did_you_mean(identifier, [*EXTRA_METRIC_NAMES, *METRICS_MAP, *ACCURACY_NAMES])
            + " (known metrics: accuracy, acc, crossentropy, ce, "
            f"{', '.join(dict.fromkeys(snake_case(name) for name in METRICS_MAP))}, recall, and "
            "TF.js's camelCase spellings)"
        )
    if identifier is None or not callable(identifier):
        raise LayersValueError(
            f"Unknown metric {identifier!r}: a metric must be a string name or a function "
            "(y_true, y_pred) -> Tensor"
        )
    return identifier


def get_loss_or_metric_name(fn: Any) -> str:
    """The name of a loss or metric in the logs: a string as given; a function of this
    package by its TF.js name (``'meanSquaredError'``, ``'binaryAccuracy'``); any other
    function by its ``__name__``."""
    if fn is None:
        raise LayersValueError(f"Unknown LossOrMetricFn {fn}")
    if isinstance(fn, str):
        return fn
    for table in (_losses.LOSSES_MAP, METRICS_MAP, EXTRA_METRIC_NAMES):
        for key, value in table.items():
            if value is fn:
                return key
    return getattr(fn, "__name__", None) or type(fn).__name__
