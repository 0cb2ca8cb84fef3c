"""``trainingConfig`` of a ``model.json``: checked, then the model compiled with it (TF.js's
``loadTrainingConfig``).

Everything is checked before anything is made: the fields tidytensor cannot load yet, the loss
and metric names (reported as the file spells them, with the field they are in), the optimizer
class and its config. Configs written by Keras are read as Keras means them: ``learning_rate``
(or Keras 2's ``lr``) and ``beta_1``-style keys are accepted, missing values take Keras's
defaults (Adam's ``beta_1`` 0.9, ``beta_2`` 0.999, ``epsilon`` 1e-7...), ``RMSprop`` is
``RMSProp`` with Keras's ``rho`` as TF.js's ``decay``, and an ``SGD`` with a ``momentum`` is a
``Momentum`` optimizer. If compiling still fails, the optimizer is disposed: a failed load keeps
no tensor.
"""

from __future__ import annotations

from typing import Any

from ...errors import TidyTensorError
from ...io.errors import ModelFormatError
from ...optimizers import OPTIMIZER_CLASSES
from ...tensor import Tensor
from .. import losses, metrics
from ..utils import convert_pythonic_to_ts, to_camel_case, to_snake_case

__all__ = ["KERAS_OPTIMIZER_DEFAULTS", "load_training_config"]

#: Keras's defaults for what a config may leave out, in TF.js's key names.
KERAS_OPTIMIZER_DEFAULTS: dict[str, dict[str, Any]] = {
    "SGD": {"learningRate": 0.01},
    "Momentum": {"learningRate": 0.01, "momentum": 0.0, "useNesterov": False},
    "Adam": {"learningRate": 0.001, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-7},
    "Adamax": {
        "learningRate": 0.001,
        "beta1": 0.9,
        "beta2": 0.999,
        "epsilon": 1e-7,
        "decay": 0.0,
    },
    "RMSProp": {
        "learningRate": 0.001,
        "decay": 0.9,
        "momentum": 0.0,
        "epsilon": 1e-7,
        "centered": False,
    },
    "Adagrad": {"learningRate": 0.001, "initialAccumulatorValue": 0.1},
    "Adadelta": {"learningRate": 0.001, "rho": 0.95, "epsilon": 1e-7},
}
#: Keras's class names that TF.js spells differently.
_KERAS_CLASS_NAMES = {"RMSprop": "RMSProp"}
_METRIC_SHORTHANDS = ("accuracy", "acc", "crossentropy", "ce")


def _fail(source: str, field: str, problem: str) -> ModelFormatError:
    return ModelFormatError(f"{source}: trainingConfig.{field}: {problem}")


def _shown(value: Any) -> str:
    """A value as the file wrote it (Python's repr: NaN is ``nan``, not JSON's ``null``)."""
    return repr(value)


def _camel_identifiers(value: Any) -> Any:
    """Loss and metric names camelCased (``mean_squared_error`` -> ``meanSquaredError``);
    the keys of a per-output object are output names and stay as they are."""
    if isinstance(value, str):
        return to_camel_case(value)
    if isinstance(value, list):
        return [_camel_identifiers(v) for v in value]
    if isinstance(value, dict):
        return {k: _camel_identifiers(v) for k, v in value.items()}
    return value


def _names(value: Any, field: str, source: str, what: str) -> list[tuple[str, str]]:
    """``(field path, name)`` for a name, a list of names or an object of names."""
    if isinstance(value, str):
        return [(field, value)]
    if isinstance(value, list):
        out = []
        for i, v in enumerate(value):
            out.extend(_names(v, f"{field}[{i}]", source, what))
        return out
    if isinstance(value, dict):
        out = []
        for k, v in value.items():
            out.extend(_names(v, f"{field}.{k}", source, what))
        return out
    raise _fail(source, field, f"a {what} must be a name (a string), got {_shown(value)}")


def _check_losses_and_metrics(training_config: dict[str, Any], source: str) -> None:

    loss = training_config.get("loss")
    if loss is not None:
        known = ", ".join(sorted({to_snake_case(k) for k in losses.LOSSES_MAP}))
        for field, name in _names(loss, "loss", source, "loss"):
            try:
                losses.get(to_camel_case(name))
            except TidyTensorError:
                raise _fail(
                    source, field, f"unknown loss {name!r} (known losses: {known})"
                ) from None
    metric_value = training_config.get("metrics")
    if metric_value is not None:
        for field, name in _names(metric_value, "metrics", source, "metric"):
            if name in _METRIC_SHORTHANDS:
                continue
            try:
                metrics.get(to_camel_case(name))
            except TidyTensorError:
                known = ", ".join(
                    [*_METRIC_SHORTHANDS, *sorted({to_snake_case(k) for k in metrics.METRICS_MAP})]
                )
                raise _fail(
                    source, field, f"unknown metric {name!r} (known metrics: {known})"
                ) from None


def optimizer_config(opt_config: Any, source: str) -> tuple[str, dict[str, Any]]:
    """The TF.js optimizer class name and its complete config (Keras's defaults filled in)."""

    if not isinstance(opt_config, dict):
        raise ModelFormatError(f"{source}: trainingConfig has no optimizer_config object")
    class_name = opt_config.get("class_name", opt_config.get("className"))
    class_name = _KERAS_CLASS_NAMES.get(class_name, class_name)
    if class_name not in OPTIMIZER_CLASSES:
        raise ModelFormatError(
            f"{source}: Unknown optimizer {class_name!r} in trainingConfig (known: "
            f"{', '.join(OPTIMIZER_CLASSES)})"
        )
    raw = opt_config.get("config")
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise _fail(
            source,
            "optimizer_config.config",
            f"must be an object of {class_name}'s arguments, got {_shown(raw)}",
        )
    config = convert_pythonic_to_ts(raw)
    if "learningRate" not in config and "lr" in config:  # Keras 2
        config["learningRate"] = config["lr"]
    if class_name == "RMSProp" and "rho" in config:  # Keras's rho is TF.js's decay
        config["decay"] = config["rho"]
    if class_name == "SGD" and config.get("momentum") not in (None, 0, 0.0):
        class_name = "Momentum"
        config.setdefault("useNesterov", bool(config.get("nesterov", False)))
    for key, value in KERAS_OPTIMIZER_DEFAULTS[class_name].items():
        if config.get(key) is None:
            config[key] = value
    return class_name, config


def _dispose_everything(optimizer: Any) -> None:
    """Frees what an optimizer the loader made holds, including what its ``dispose`` keeps
    (TF.js's Momentum keeps its ``-learning_rate`` scalar)."""

    optimizer.dispose()
    for value in vars(optimizer).values():
        if isinstance(value, Tensor) and not value.is_disposed:
            value.dispose()


def load_training_config(model: Any, training_config: dict[str, Any], source: str) -> None:
    """Compiles ``model`` as ``trainingConfig`` says (see the module's docstring)."""

    for key, what in (
        ("weighted_metrics", "weight_metrics"),
        ("loss_weights", "loss_weights"),
        ("sample_weight_mode", "sample_weight_mode"),
    ):
        if training_config.get(key) is not None:
            raise ModelFormatError(f"{source}: Loading {what} is not supported yet.")
    class_name, config = optimizer_config(training_config.get("optimizer_config"), source)
    _check_losses_and_metrics(training_config, source)
    cls = OPTIMIZER_CLASSES[class_name]
    try:
        optimizer = cls.from_config(cls, config)
    except TidyTensorError as exc:
        raise _fail(source, "optimizer_config", f"cannot make {class_name}: {exc}") from None
    loss = _camel_identifiers(training_config.get("loss"))
    metrics = _camel_identifiers(training_config.get("metrics"))
    try:
        model.compile(optimizer=optimizer, loss=loss, metrics=metrics)
    except BaseException as exc:
        _dispose_everything(optimizer)
        if isinstance(exc, TidyTensorError):
            raise ModelFormatError(
                f"{source}: cannot compile the model with its trainingConfig: {exc}"
            ) from None
        raise
    # The loader made the optimizer and nobody else holds it: dispose it with the model.
    model.is_optimizer_owned = True
