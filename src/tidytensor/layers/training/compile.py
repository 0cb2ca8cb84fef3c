"""``model.compile``: the optimizer (by name, with TF.js's defaults, or an instance), the loss
function of each output and the metrics (``'accuracy'`` and ``'crossentropy'`` resolved to
their binary, sparse or categorical variant), as TF.js's ``engine/training.ts`` sets them."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from ...naming import did_you_mean
from ...optimizers import Optimizer
from ...optimizers import constructors as _constructors
from ...py_strings import py_value
from .. import backend as K
from .. import losses as losses_mod
from .. import metrics as metrics_mod
from ..errors import LayersValueError
from .args import _check_kwargs
from .steps import release_compiled_steps

__all__ = [
    "collect_metrics",
    "compile",
    "get_optimizer",
]


def _optimizer_factories() -> dict[str, Callable[[], Optimizer]]:
    table: dict[str, Callable[[], Optimizer]] = {
        "Adagrad": lambda: _constructors.adagrad(0.01),
        "Adadelta": lambda: _constructors.adadelta(1, 0.95, K.epsilon()),
        "Adam": lambda: _constructors.adam(0.001, 0.9, 0.999, K.epsilon()),
        "Adamax": lambda: _constructors.adamax(0.002, 0.9, 0.999, K.epsilon(), 0),
        "RMSProp": lambda: _constructors.rmsprop(0.001, 0.9, 0, K.epsilon()),
        "SGD": lambda: _constructors.sgd(0.01),
    }
    for name in list(table):
        table[name.lower()] = table[name]
    table["RMSprop"] = table["RMSProp"]  # Keras's class name
    return table


_OPTIMIZERS = _optimizer_factories()


def get_optimizer(identifier: str) -> Optimizer:
    """A new optimizer with TF.js's defaults for a name: ``'sgd'`` (lr 0.01), ``'adam'``
    (0.001), ``'rmsprop'`` (0.001), ``'adagrad'`` (0.01), ``'adadelta'`` (1), ``'adamax'``
    (0.002); the capitalized class names too (``'Adam'``, ``'RMSProp'``)."""
    factory = _OPTIMIZERS.get(identifier) if isinstance(identifier, str) else None
    if factory is None:
        raise LayersValueError(
            f"Unknown optimizer {identifier}"
            + did_you_mean(identifier, sorted(_OPTIMIZERS, key=lambda name: name != name.lower()))
            + " (known: sgd, adam, rmsprop, adagrad, adadelta, "
            "adamax, or their class names SGD, Adam, RMSProp, Adagrad, Adadelta, Adamax)"
        )
    return factory()


def collect_metrics(metrics: Any, output_names: list[str]) -> list[list[Any]]:
    """One list of metrics per output, from a name, a function, a list (applied to every
    output) or a dict keyed by output name."""
    if metrics is None or (isinstance(metrics, (list, tuple)) and len(metrics) == 0):
        return [[] for _ in output_names]
    if isinstance(metrics, str) or callable(metrics):
        wrapped: Any = [metrics]
    elif isinstance(metrics, (list, tuple, dict)):
        wrapped = metrics
    else:
        raise LayersValueError(
            "Type of metrics argument not understood. Expected an string,function, Array, or "
            f"Object, found: {metrics!r}"
        )
    if isinstance(wrapped, (list, tuple)):
        return [list(wrapped) for _ in output_names]
    for name in wrapped:
        if name not in output_names:
            raise LayersValueError(
                f'Unknown entry in metrics dictionary: "{name}". Only expected the following '
                f"keys: {py_value(output_names)}"
            )
    nested = []
    for name in output_names:
        output_metrics = wrapped.get(name, [])
        nested.append(
            list(output_metrics) if isinstance(output_metrics, (list, tuple)) else [output_metrics]
        )
    return nested


def _resolve_losses(model: Any, loss: Any) -> list[Any]:
    if isinstance(loss, dict):
        for name in loss:
            if name not in model.output_names:
                raise LayersValueError(
                    f'Unknown entry in loss dictionary: "{name}". Only expected the following '
                    f"keys: {py_value(model.output_names)}"
                )
        functions = []
        for name in model.output_names:
            if loss.get(name) is None:
                warnings.warn(
                    f'Output "{name}" is missing from loss dictionary. We assume this was done '
                    f"on purpose, and we will not be expecting data to be passed to {name} during "
                    "training",
                    stacklevel=4,
                )
            functions.append(losses_mod.get(loss.get(name)))
        return functions
    if isinstance(loss, (list, tuple)):
        if len(loss) != len(model.outputs):
            shown = ",".join(
                str(v) if isinstance(v, str) else getattr(v, "__name__", repr(v)) for v in loss
            )
            raise LayersValueError(
                "When passing an Array as loss, it should have one entry per model output. The "
                f"model has {len(model.outputs)} output(s), but you passed loss={shown}."
            )
        return [losses_mod.get(v) for v in loss]
    fn = losses_mod.get(loss)
    return [fn for _ in model.outputs]


def _resolve_metrics(
    model: Any, metrics: Any, loss_functions: list[Any]
) -> tuple[list[str], list[tuple[Callable, int]]]:
    names = ["loss"]
    tensors: list[tuple[Callable, int]] = []
    multi = len(model.outputs) > 1
    if multi:
        for i, fn in enumerate(loss_functions):
            tensors.append((fn, i))
            names.append(model.output_names[i] + "_loss")
    nested = collect_metrics(metrics, model.output_names)
    for i, output_metrics in enumerate(nested):
        for metric in output_metrics:
            if (
                isinstance(metric, str)
                and metric in metrics_mod.ACCURACY_NAMES + metrics_mod.CROSSENTROPY_NAMES
            ):
                accuracy = metric in metrics_mod.ACCURACY_NAMES
                shape = model.internal_output_shapes[i]
                loss_fn = loss_functions[i]
                if shape[-1] == 1 or loss_fn is losses_mod.binary_crossentropy:
                    fn = (
                        metrics_mod.binary_accuracy if accuracy else metrics_mod.binary_crossentropy
                    )
                elif loss_fn is losses_mod.sparse_categorical_crossentropy:
                    fn = (
                        metrics_mod.sparse_categorical_accuracy
                        if accuracy
                        else metrics_mod.sparse_categorical_crossentropy
                    )
                else:
                    fn = (
                        metrics_mod.categorical_accuracy
                        if accuracy
                        else metrics_mod.categorical_crossentropy
                    )
                name = "acc" if accuracy else "ce"
            else:
                fn = metrics_mod.get(metric)
                name = metrics_mod.get_loss_or_metric_name(metric)
            if multi:
                name = model.output_names[i] + "_" + name
            names.append(name)
            tensors.append((fn, i))
    return names, tensors


def compile(  # noqa: A001 - TF.js's name
    model: Any, optimizer: Any = None, loss: Any = None, metrics: Any = None, **kwargs: Any
) -> None:
    """Configures ``model`` for training (``model.compile``).

    Arguments and errors: :meth:`.trainer.Trainer.compile` (the method that calls this).
    """
    run_eagerly = kwargs.pop("run_eagerly", False)
    jit_compile = kwargs.pop("jit_compile", None)
    _check_kwargs("compile", kwargs, ["optimizer", "loss", "metrics", "run_eagerly", "jit_compile"])
    if not isinstance(run_eagerly, bool):
        raise LayersValueError(
            f"compile() takes run_eagerly=True or False, but got {run_eagerly!r}"
        )
    if loss is None:
        loss = []
    if isinstance(optimizer, str):
        if optimizer not in _OPTIMIZERS:
            get_optimizer(optimizer)  # raises "Unknown Optimizer"
    elif not isinstance(optimizer, Optimizer):
        raise LayersValueError("User-defined optimizer must be an instance of tf.Optimizer.")
    loss_functions = _resolve_losses(model, loss)
    metrics_names, metrics_tensors = _resolve_metrics(model, metrics, loss_functions)

    old_optimizer, old_owned = model.optimizer_, model.is_optimizer_owned
    if isinstance(optimizer, str):
        new_optimizer, owned = get_optimizer(optimizer), True
    else:
        new_optimizer = optimizer
        owned = old_owned and new_optimizer is old_optimizer
    if old_owned and old_optimizer is not None and old_optimizer is not new_optimizer:
        old_optimizer.dispose()  # TF.js leaks an owned optimizer replaced by a new compile
    model.loss = loss
    model.optimizer_ = new_optimizer
    model.is_optimizer_owned = owned
    model.loss_functions = loss_functions
    model.feed_output_names = list(model.output_names)
    model.feed_output_shapes = list(model.internal_output_shapes)
    model.feed_loss_fns = list(loss_functions)
    model.metrics = metrics
    model.metrics_names = metrics_names
    model.metrics_tensors = metrics_tensors
    model.test_function = None
    model.run_eagerly = run_eagerly
    model.jit_compile = jit_compile
    release_compiled_steps(model)
    model.compiled_steps = {}  # traced for this configuration only (steps.py)
    model.collected_trainable_weights = model.trainable_weights
