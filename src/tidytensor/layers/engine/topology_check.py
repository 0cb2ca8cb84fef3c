"""The structure of a layers-model topology, checked before anything is built.

Every problem is reported with the file, the field (``modelTopology.config.layers[3]
.inbound_nodes[0][1]``), what was given (as the file wrote it: ``NaN`` stays ``NaN``, a name
stays as spelled) and what was expected:

- each layer entry is an object with a ``class_name`` string and a ``config`` object (a
  ``Sequential`` may have a bare list of layers), nested at most :data:`MAX_DEPTH` deep;
- a functional model (``Model``/``Functional``) names each layer once, its ``inbound_nodes``
  are lists of ``[layer_name, node_index, tensor_index, kwargs?]`` naming layers of the same
  model and nodes those layers have, and its ``input_layers``/``output_layers`` are
  ``[layer_name, node_index, tensor_index]`` triples naming existing layers and nodes;
- the activations, initializers, regularizers and constraints a layer names exist.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ...errors import TidyTensorError
from ...io.errors import ModelFormatError
from ..activations import get_activation
from ..constraints import get_constraint
from ..initializers import get_initializer
from ..regularizers import get_regularizer
from ..utils import convert_pythonic_to_ts, to_snake_case
from .serialization import SerializationMap

__all__ = ["MAX_DEPTH", "check_topology_structure", "layer_class_names", "shown"]

#: Deepest nesting of layers (wrappers, nested models) a topology may have.
MAX_DEPTH = 200
_FUNCTIONAL = ("Model", "Functional")
_CONTAINERS = ("Model", "Functional", "Sequential")


def shown(value: Any, limit: int = 120) -> str:
    """``value`` as JSON, except that NaN and infinities are written as such (not ``null``)."""
    try:
        text = json.dumps(value, allow_nan=True, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _fail(source: str, field: str, problem: str) -> ModelFormatError:
    return ModelFormatError(f"{source}: {field}: {problem}")


def _get(config: dict[str, Any], snake: str, camel: str) -> Any:
    return config[snake] if snake in config else config.get(camel)


def _is_index(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def layer_class_names(entry: Any, source: str, field: str, depth: int = 0) -> Iterator[str]:
    """The class name of ``entry`` and of every layer inside it, each entry's structure checked
    on the way (see the module's docstring)."""
    if depth > MAX_DEPTH:
        raise _fail(source, field, f"layers are nested more than {MAX_DEPTH} levels deep")
    if not isinstance(entry, dict):
        raise _fail(
            source, field, f"expected a layer object {{class_name, config}}, got {shown(entry)}"
        )
    class_name = entry.get("class_name", entry.get("className"))
    if not isinstance(class_name, str):
        raise _fail(source, f"{field}.class_name", f"expected a string, got {shown(class_name)}")
    yield class_name
    if "config" not in entry:
        raise _fail(source, f"{field}.config", f"missing (the {class_name} layer's arguments)")
    config = entry["config"]
    if isinstance(config, list) and class_name == "Sequential":
        layers: Any = config
        layers_field = f"{field}.config"
    elif isinstance(config, dict):
        layers = config.get("layers")
        layers_field = f"{field}.config.layers"
    else:
        raise _fail(
            source, f"{field}.config", f"expected an object of arguments, got {shown(config)}"
        )
    if class_name in _CONTAINERS or layers is not None:
        if not isinstance(layers, list):
            raise _fail(source, layers_field, f"expected an array of layers, got {shown(layers)}")
        for i, layer in enumerate(layers):
            yield from layer_class_names(layer, source, f"{layers_field}[{i}]", depth + 1)
        if class_name in _FUNCTIONAL and isinstance(config, dict):
            _check_functional(config, source, f"{field}.config")
    if isinstance(config, dict):
        for key in ("layer", "cell", "forward_layer", "backward_layer"):
            if isinstance(config.get(key), dict):
                yield from layer_class_names(
                    config[key], source, f"{field}.config.{key}", depth + 1
                )
        cells = config.get("cells")
        if isinstance(cells, list):
            for i, cell in enumerate(cells):
                yield from layer_class_names(cell, source, f"{field}.config.cells[{i}]", depth + 1)


def _check_functional(config: dict[str, Any], source: str, field: str) -> None:
    layers = config["layers"]
    node_counts: dict[str, int | None] = {}
    for i, layer in enumerate(layers):
        where = f"{field}.layers[{i}]"
        name = layer.get("name")
        if not isinstance(name, str) or not name:
            raise _fail(source, f"{where}.name", f"expected the layer's name, got {shown(name)}")
        if name in node_counts:
            raise _fail(source, f"{where}.name", f"{shown(name)} names two layers of the model")
        inbound = _get(layer, "inbound_nodes", "inboundNodes")
        if not isinstance(inbound, list):
            raise _fail(
                source,
                f"{where}.inbound_nodes",
                f"expected an array of nodes (each an array of [layer_name, node_index, "
                f"tensor_index, kwargs]), got {shown(inbound)}",
            )
        class_name = layer.get("class_name", layer.get("className"))
        # Nodes each layer will have once built (a nested model has nodes of its own).
        node_counts[name] = (
            None if class_name in _CONTAINERS else 1 if class_name == "InputLayer" else len(inbound)
        )
    for i, layer in enumerate(layers):
        for n, node in enumerate(_get(layer, "inbound_nodes", "inboundNodes")):
            where = f"{field}.layers[{i}].inbound_nodes[{n}]"
            if not isinstance(node, list):
                raise _fail(
                    source,
                    where,
                    f"expected an array of [layer_name, node_index, tensor_index, kwargs], got "
                    f"{shown(node)}",
                )
            for k, entry in enumerate(node):
                _check_reference(entry, node_counts, source, f"{where}[{k}]", kwargs=True)
    for key, camel in (("input_layers", "inputLayers"), ("output_layers", "outputLayers")):
        refs = _get(config, key, camel)
        if not isinstance(refs, list) or not refs:
            raise _fail(
                source,
                f"{field}.{key}",
                f"expected a non-empty array of [layer_name, node_index, tensor_index], got "
                f"{shown(refs)}",
            )
        for k, entry in enumerate(refs):
            _check_reference(entry, node_counts, source, f"{field}.{key}[{k}]", kwargs=False)


def _check_reference(
    entry: Any, node_counts: dict[str, int | None], source: str, field: str, kwargs: bool
) -> None:
    expected = (
        "[layer_name, node_index, tensor_index, kwargs]"
        if kwargs
        else "[layer_name, node_index, tensor_index]"
    )
    if (
        not isinstance(entry, list)
        or len(entry) < 3
        or len(entry) > (4 if kwargs else 3)
        or not isinstance(entry[0], str)
        or not _is_index(entry[1])
        or not _is_index(entry[2])
        or (len(entry) == 4 and entry[3] is not None and not isinstance(entry[3], dict))
    ):
        raise _fail(
            source,
            field,
            f"expected {expected} (a name, two non-negative integers"
            f"{' and an object' if kwargs else ''}), got {shown(entry)}",
        )
    name, node_index = entry[0], entry[1]
    if name not in node_counts:
        known = ", ".join(shown(n) for n in node_counts)
        raise _fail(
            source, field, f"names layer {shown(name)}, which the model does not have ({known})"
        )
    count = node_counts[name]
    if count is not None and node_index >= count:
        raise _fail(
            source,
            field,
            f"asks for node {node_index} of layer {shown(name)}, which has {count} node"
            f"{'s' if count != 1 else ''} (node indices start at 0)",
        )


# ---------------------------------------------------------------------------- identifiers
def _kind_of(key: str) -> str | None:
    if key in ("activation", "recurrent_activation"):
        return "activation"
    for suffix in ("initializer", "regularizer", "constraint"):
        if key.endswith("_" + suffix):
            return suffix
    return None


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def _getters() -> dict[str, Any]:

    return {
        "activation": get_activation,
        "initializer": get_initializer,
        "regularizer": get_regularizer,
        "constraint": get_constraint,
    }


def check_identifiers(
    entry: Any, source: str, field: str, custom_objects: dict[str, Any] | None = None
) -> None:
    """The activations, initializers, regularizers and constraints the layers name exist
    (checked with the names as the file spells them). Call after :func:`layer_class_names`."""

    getters = _getters()
    custom = set(custom_objects or {})

    def visit(layer: dict[str, Any], where: str) -> None:
        config = layer.get("config")
        if isinstance(config, list):
            for i, inner in enumerate(config):
                visit(inner, f"{where}.config[{i}]")
            return
        if not isinstance(config, dict):
            return
        for key, value in config.items():
            kind = _kind_of(key)
            if kind is None or value is None:
                continue
            name = (
                value.get("class_name", value.get("className"))
                if isinstance(value, dict)
                else value
            )
            if isinstance(name, str) and name in custom:
                continue
            if isinstance(value, dict) and (not isinstance(name, str) or "config" not in value):
                raise _fail(
                    source,
                    f"{where}.config.{key}",
                    f"expected {_article(kind)} {kind} name or {{class_name, config}} object, got {shown(value)}",
                )
            try:
                getters[kind](convert_pythonic_to_ts(value))
            except TidyTensorError as exc:
                if "Unknown" in str(exc) and isinstance(name, str):
                    table = SerializationMap.get_map().class_name_map.get(kind, {})
                    known = ", ".join(sorted({to_snake_case(k) for k in table}))
                    raise _fail(
                        source, f"{where}.config.{key}", f"unknown {kind} {name!r} (known: {known})"
                    ) from None
                raise _fail(source, f"{where}.config.{key}", str(exc)) from None
            except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
                raise _fail(
                    source,
                    f"{where}.config.{key}",
                    f"expected {_article(kind)} {kind} name or {{class_name, config}} object, got "
                    f"{shown(value)} ({type(exc).__name__}: {exc})",
                ) from None
        layers = config.get("layers")
        if isinstance(layers, list):
            for i, inner in enumerate(layers):
                if isinstance(inner, dict):
                    visit(inner, f"{where}.config.layers[{i}]")
        for key in ("layer", "cell", "forward_layer", "backward_layer"):
            if isinstance(config.get(key), dict):
                visit(config[key], f"{where}.config.{key}")
        cells = config.get("cells")
        if isinstance(cells, list):
            for i, cell in enumerate(cells):
                if isinstance(cell, dict):
                    visit(cell, f"{where}.config.cells[{i}]")

    if isinstance(entry, dict):
        visit(entry, field)


def check_topology_structure(
    topology: dict[str, Any], source: str, field: str, custom_objects: dict[str, Any] | None = None
) -> list[str]:
    """Checks the whole topology (structure, then names); returns every layer class name."""
    names = list(layer_class_names(topology, source, field))
    check_identifiers(topology, source, field, custom_objects)
    return names
