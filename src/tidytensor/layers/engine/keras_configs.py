"""Keras model configs (``model.to_json()``, a ``.keras`` file's ``config.json``, an ``.h5``
file's ``model_config``) in the form TF.js's ``model.json`` holds (Keras 2's).

Keras 2 (tf-keras) writes what TF.js reads, apart from a few values TF.js's own loader trips
on (``BatchNormalization(axis=[3])``, ``GRU(reset_after=True)``), which the layers accept.
Keras 3 writes more, and differently; :func:`keras_to_layers_config` rewrites it:

- ``module``, ``registered_name``, ``build_config`` and ``compile_config`` keys are dropped;
- dtype-policy objects (``{"class_name": "DTypePolicy", "config": {"name": "float32"}}``, also
  Keras 2's mixed-precision ``Policy``) become their dtype name (mixed policies: their
  variable dtype, float32);
- ``InputLayer``'s ``batch_shape`` becomes ``batch_input_shape``;
- a functional model's nodes (``{"args": [...], "kwargs": {...}}`` whose tensors are
  ``__keras_tensor__`` objects with a ``keras_history``) become
  ``[[layer, node_index, tensor_index, kwargs], ...]`` (a nested model's node indices one up:
  Keras 2 counts the node a model makes for itself when built, Keras 3 does not), and a
  single ``input_layers`` or ``output_layers`` triple becomes a list of one.

>>> keras_to_layers_config({'module': 'keras.layers', 'class_name': 'Dense',
...     'config': {'units': 2, 'dtype': {'module': 'keras', 'class_name': 'DTypePolicy',
...     'config': {'name': 'float32'}, 'registered_name': None}}, 'registered_name': None})
{'class_name': 'Dense', 'config': {'units': 2, 'dtype': 'float32'}}
"""

from __future__ import annotations

from typing import Any

from ...io.errors import ModelFormatError

__all__ = ["is_keras3_config", "keras_to_layers_config", "keras_training_config"]

_DROPPED_KEYS = ("module", "registered_name", "build_config", "compile_config")
_POLICY_CLASSES = ("DTypePolicy", "FloatDTypePolicy", "Policy", "QuantizedDTypePolicy")
_KERAS_TENSOR = "__keras_tensor__"
_MODEL_CLASSES = ("Sequential", "Functional", "Model")


def is_keras3_config(config: Any) -> bool:
    """Whether ``config`` (or anything inside it) has Keras 3's ``module`` keys."""
    if isinstance(config, dict):
        if "module" in config and "class_name" in config:
            return True
        return any(is_keras3_config(v) for v in config.values())
    if isinstance(config, list):
        return any(is_keras3_config(v) for v in config)
    return False


def _policy_dtype(entry: dict[str, Any]) -> str:
    name = (entry.get("config") or {}).get("name", "float32")
    if not isinstance(name, str):
        return "float32"
    return "float32" if name.startswith("mixed_") else name


def _is_policy(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("class_name") in _POLICY_CLASSES
        and isinstance(value.get("config"), dict)
    )


def _history(tensor: dict[str, Any], where: str) -> list[Any]:
    history = (tensor.get("config") or {}).get("keras_history")
    if not (isinstance(history, list) and len(history) == 3 and isinstance(history[0], str)):
        raise ModelFormatError(f"{where}: a Keras tensor without a keras_history: {tensor!r}")
    return list(history)


def _tensors(value: Any, where: str) -> list[list[Any]]:
    """The ``keras_history`` of every Keras tensor in ``value`` (nested lists and dicts)."""
    if isinstance(value, dict):
        if value.get("class_name") == _KERAS_TENSOR:
            return [_history(value, where)]
        out: list[list[Any]] = []
        for v in value.values():
            out.extend(_tensors(v, where))
        return out
    if isinstance(value, (list, tuple)):
        out = []
        for v in value:
            out.extend(_tensors(v, where))
        return out
    return []


def _has_tensor(value: Any) -> bool:
    return bool(_tensors(value, "inbound node"))


def _convert_node(node: Any, where: str) -> Any:
    """One Keras 3 node (``{"args", "kwargs"}``) as Keras 2's list of inbound tensors."""
    if not isinstance(node, dict) or "args" not in node:
        return node  # Keras 2's form already
    kwargs = node.get("kwargs") or {}
    plain_kwargs = {k: v for k, v in kwargs.items() if not _has_tensor(v)}
    histories = _tensors(node["args"], where) + _tensors(
        {k: v for k, v in kwargs.items() if _has_tensor(v)}, where
    )
    if not histories:
        raise ModelFormatError(f"{where}: a node with no input tensor: {node!r}")
    return [[*h, dict(plain_kwargs)] for h in histories]


def _layer_endpoints(value: Any) -> Any:
    """``input_layers``/``output_layers``: Keras 3 writes one triple bare."""
    if isinstance(value, list) and len(value) == 3 and isinstance(value[0], str):
        return [value]
    return value


def _has_keras3_nodes(layers: Any) -> bool:
    return isinstance(layers, list) and any(
        isinstance(node, dict) and "args" in node
        for layer in layers
        if isinstance(layer, dict)
        for node in layer.get("inbound_nodes") or []
    )


def _shift_model_nodes(model_config: dict[str, Any]) -> None:
    """Keras 2 and TF.js give a model its own node 0 when it is built, so its first call is
    node 1; Keras 3 counts calls from 0. References to nested models move up by one."""
    models = {
        layer.get("name", (layer.get("config") or {}).get("name"))
        for layer in model_config["layers"]
        if isinstance(layer, dict) and layer.get("class_name") in _MODEL_CLASSES
    }
    if not models:
        return

    def shift(ref: Any) -> None:
        if isinstance(ref, list) and len(ref) >= 3 and ref[0] in models:
            ref[1] += 1

    for layer in model_config["layers"]:
        for node in layer.get("inbound_nodes") or []:
            for ref in node:
                shift(ref)
    for ref in model_config.get("output_layers") or []:
        shift(ref)


def keras_to_layers_config(config: Any, where: str = "config") -> Any:
    """``config`` (a Keras 2 or 3 model or layer config) in TF.js's form (see the module
    docstring). Keras 2 configs come back unchanged but for dtype policies."""
    if isinstance(config, list):
        return [keras_to_layers_config(v, f"{where}[{i}]") for i, v in enumerate(config)]
    if not isinstance(config, dict):
        return config
    if _is_policy(config):
        return _policy_dtype(config)
    out: dict[str, Any] = {}
    for key, value in config.items():
        if key in _DROPPED_KEYS and "class_name" in config:
            continue
        here = f"{where}.{key}"
        if key == "inbound_nodes" and isinstance(value, list):
            out[key] = [_convert_node(n, f"{here}[{i}]") for i, n in enumerate(value)]
        elif key in ("input_layers", "output_layers"):
            out[key] = _layer_endpoints(value)
        else:
            out[key] = keras_to_layers_config(value, here)
    if _has_keras3_nodes(config.get("layers")):
        _shift_model_nodes(out)
    if out.get("class_name") == "InputLayer" and isinstance(out.get("config"), dict):
        inner = out["config"]
        if "batch_shape" in inner and "batch_input_shape" not in inner:
            inner["batch_input_shape"] = inner.pop("batch_shape")
    return out


def _metric_name(metric: Any) -> Any:
    """A metric as TF.js names it: a string, or a serialized metric's name."""
    if isinstance(metric, dict):
        config = metric.get("config") or {}
        return config.get("name") or config.get("fn") or metric.get("class_name")
    return metric


def _plain_metrics(metrics: Any) -> Any:
    """Keras 2 writes one list per output (``[[...]]``); a single output's list is flattened."""
    if isinstance(metrics, dict):
        return {k: _plain_metrics(v) for k, v in metrics.items()}
    if not isinstance(metrics, list):
        return metrics
    if len(metrics) == 1 and isinstance(metrics[0], list):
        metrics = metrics[0]
    return [_plain_metrics(m) if isinstance(m, list) else _metric_name(m) for m in metrics]


def _loss_name(loss: Any) -> Any:
    if isinstance(loss, dict) and "class_name" in loss:
        name = (loss.get("config") or {}).get("name") or loss["class_name"]
        return name
    if isinstance(loss, dict):
        return {k: _loss_name(v) for k, v in loss.items()}
    if isinstance(loss, list):
        return [_loss_name(v) for v in loss]
    return loss


def keras_training_config(raw: Any) -> dict[str, Any] | None:
    """TF.js's ``trainingConfig`` from a Keras 2 ``.h5`` file's ``training_config`` or a
    Keras 3 config's ``compile_config`` (``None`` when there is none).

    >>> keras_training_config({'optimizer': {'module': 'keras.optimizers',
    ...     'class_name': 'Adam', 'config': {'learning_rate': 0.01}}, 'loss': 'mse',
    ...     'metrics': ['accuracy'], 'jit_compile': False})
    {'loss': 'mse', 'metrics': ['accuracy'], 'optimizer_config': {'class_name': 'Adam', 'config': {'learning_rate': 0.01}}}
    """
    if not isinstance(raw, dict):
        return None
    optimizer = raw.get("optimizer_config", raw.get("optimizer"))
    if isinstance(optimizer, str):
        optimizer = {"class_name": optimizer, "config": {}}
    if not isinstance(optimizer, dict) or raw.get("loss") is None:
        return None
    class_name = str(optimizer.get("class_name", ""))
    if class_name.startswith("Custom>"):  # tf-keras's name for its optimizers
        class_name = class_name[len("Custom>") :]
    config = {
        "loss": _loss_name(raw["loss"]),
        "metrics": _plain_metrics(raw.get("metrics")),
        "optimizer_config": {"class_name": class_name, "config": optimizer.get("config") or {}},
    }
    for key in ("weighted_metrics", "loss_weights", "sample_weight_mode"):
        if raw.get(key) is not None:
            config[key] = raw[key]
    return config
