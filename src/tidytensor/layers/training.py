"""Training a ``LayersModel``: ``compile``, ``fit``, ``evaluate``, ``train_on_batch``,
``fit_dataset`` and ``evaluate_dataset`` (TF.js's ``engine/training.ts``,
``training_tensors.ts``, ``training_utils.ts`` and ``training_dataset.ts``).

Each function takes the model first; the ``LayersModel`` methods of the same names call them.
This module is their entry point and holds ``train_on_batch``; the rest lives in sibling
modules: ``training_compile`` (``compile``, optimizer names, losses and metrics),
``training_inputs`` (standardizing ``x``, ``y`` and weights), ``training_steps`` (the train
and test step functions), ``training_loops`` (``fit``, ``evaluate``), ``training_args``
(argument checks) and ``training_dataset`` (``fit_dataset``, ``evaluate_dataset``).

Memory, as in TF.js: ``fit`` and ``evaluate`` run every batch inside ``tf.tidy``; repeated
``fit`` calls leave no tensor behind (with validation, metrics and callbacks); the first step
of an optimizer creates its state (Adam: two tensors per trainable weight);
``train_on_batch`` returns plain numbers and adds no tensor; ``evaluate`` returns new scalars
(the caller disposes them). Logs handed to callbacks hold Python numbers.

>>> import tidytensor.layers as layers
>>> model = layers.models.sequential([layers.dense(units=1, input_shape=[1], kernel_initializer='zeros')])
>>> model.compile(optimizer=tf.train.sgd(0.1), loss='meanSquaredError')
>>> xs, ys = tf.tensor2d([[1], [2], [3]]), tf.tensor2d([[2], [4], [6]])
>>> before = tf.memory().num_tensors
>>> history = model.fit(xs, ys, epochs=3, batch_size=3, shuffle=False, verbose=0)
>>> [round(v, 4) for v in history.history['loss']]
[18.6667, 0.2963, 0.0734]
>>> tf.memory().num_tensors - before
0
"""

from __future__ import annotations

from typing import Any

from ..engine import ENGINE
from ..scopes import dispose
from .callbacks import History

# The names marked F401 are helpers that ``training_dataset`` imports from this module.
from .training_args import _check_epochs, _check_kwargs, _check_verbose  # noqa: F401
from .training_compile import collect_metrics, compile, get_optimizer
from .training_inputs import (
    _dispose_new,
    _ensure_tensors,
    _require_compiled,  # noqa: F401
    check_array_lengths,
    standardize_class_weights,
    standardize_input_data,
    standardize_user_data,
    standardize_user_data_xy,
    standardize_weights,
)
from .training_loops import (
    _callback_model,  # noqa: F401
    evaluate,
    fit,
)
from .training_steps import (
    _numbers,
    get_deduped_metrics_names,
    make_test_function,
    make_train_function,
)
from .utils import singleton_or_array

__all__ = [
    "check_array_lengths",
    "collect_metrics",
    "compile",
    "evaluate",
    "evaluate_dataset",
    "fit",
    "fit_dataset",
    "get_deduped_metrics_names",
    "get_optimizer",
    "make_test_function",
    "make_train_function",
    "standardize_class_weights",
    "standardize_input_data",
    "standardize_user_data",
    "standardize_user_data_xy",
    "standardize_weights",
    "train_on_batch",
]


def train_on_batch(
    model: Any, x: Any, y: Any, sample_weight: Any = None, class_weight: Any = None
) -> Any:
    """One optimizer step on one batch (``model.train_on_batch``). Returns the loss, or
    ``[loss, *metrics]``, as Python numbers (computed before the step); adds no tensor."""
    with ENGINE.pin_site():  # every tensor of the step is created on the caller's line
        x, made_x = _ensure_tensors(x)
        y, made_y = _ensure_tensors(y)
        try:
            xs, ys, weights = standardize_user_data(model, x, y, sample_weight, class_weight)
            try:
                train_function = make_train_function(model)
                outs = train_function(xs + ys + (weights or []))
                return singleton_or_array(_numbers(outs))
            finally:
                if weights is not None:
                    dispose([w for w in weights if w is not None])
                _dispose_new(xs, x)
                _dispose_new(ys, y)
        finally:
            dispose(made_x + made_y)


def fit_dataset(model: Any, dataset: Any, **kwargs: Any) -> History:
    """Trains on the batches of a dataset (``model.fit_dataset``); see
    :func:`tidytensor.layers.training_dataset.fit_dataset`."""
    from .training_dataset import fit_dataset as run

    return run(model, dataset, **kwargs)


def evaluate_dataset(model: Any, dataset: Any, **kwargs: Any) -> Any:
    """Loss and metrics over the batches of a dataset (``model.evaluate_dataset``); see
    :func:`tidytensor.layers.training_dataset.evaluate_dataset`."""
    from .training_dataset import evaluate_dataset as run

    return run(model, dataset, **kwargs)
