"""Serialization of layers, initializers, activations, regularizers and constraints by
``class_name`` (TF.js's ``serialization.registerClass`` and ``deserializeKerasObject``).

Every serializable class has a ``class_name`` (TF.js's ``static className``), a
``get_config()`` and a ``from_config(config)`` class method, and registers itself with
:func:`register_class`. Each base class names its *kind* (``'layer'``, ``'initializer'``...)
in ``serialization_kind``, and each kind has its own table, so the activation ``'softmax'``
and the layer ``'Softmax'`` never collide.

A serialized object is ``{'class_name': ..., 'config': {...}}`` with snake_case config keys,
exactly as in TF.js's ``model.json``.

>>> import tidytensor.layers as layers
>>> d = layers.dense(units=2, name='d1')
>>> cfg = serialize(d)
>>> cfg['class_name'], cfg['config']['units']
('Dense', 2)
>>> deserialize(cfg).name
'd1'

A custom layer registers once and then loads by name:

>>> class Doubler(layers.Layer):
...     class_name = 'Doubler'
...     def call(self, inputs, **kwargs):
...         return tf.mul(layers.utils.get_exactly_one_tensor(inputs), 2)
>>> _ = register_class(Doubler)
>>> deserialize({'class_name': 'Doubler', 'config': {'name': 'dbl'}}).name
'dbl'
"""

from __future__ import annotations

from typing import Any, ClassVar

from ...naming import did_you_mean, snake_case
from ...py_strings import py_value
from ..errors import LayersValueError
from ..utils import to_snake_case

__all__ = [
    "Serializable",
    "SerializationMap",
    "deserialize",
    "deserialize_keras_object",
    "get_registered_name",
    "register_class",
    "serialize",
    "serialize_keras_object",
]


class Serializable:
    """Base of every class that can be written to and read from a config."""

    #: The name written as ``class_name`` (TF.js's ``static className``).
    class_name: ClassVar[str] = ""
    #: Which table :func:`register_class` puts subclasses in.
    serialization_kind: ClassVar[str] = "object"

    def get_class_name(self) -> str:
        return type(self).class_name

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments, with snake_case keys, as TF.js's ``model.json`` has them."""
        return {}

    @classmethod
    def from_config(
        cls,
        config: dict[str, Any],
        custom_objects: dict[str, Any] | None = None,
        fast_weight_init: bool = False,
    ) -> Any:
        """A new instance from ``get_config()``'s output (camelCase keys are accepted too)."""
        return cls(**normalize_config_keys(config))


def normalize_config_keys(config: dict[str, Any]) -> dict[str, Any]:
    """Top-level keys in snake_case (TF.js's own ``getConfig`` uses camelCase)."""
    return {to_snake_case(k): v for k, v in config.items() if k != "custom_objects"}


class SerializationMap:
    """The registered classes: ``SerializationMap.get_map().class_name_map[kind][name]``."""

    _instance: SerializationMap | None = None

    def __init__(self) -> None:
        self.class_name_map: dict[str, dict[str, type]] = {}
        self.registered_names: dict[type, str] = {}

    @classmethod
    def get_map(cls) -> SerializationMap:
        if cls._instance is None:
            cls._instance = SerializationMap()
        return cls._instance

    @classmethod
    def register(cls, klass: type) -> None:
        kind = getattr(klass, "serialization_kind", "object")
        cls.get_map().class_name_map.setdefault(kind, {})[klass.class_name] = klass


def register_class(cls: type, pkg: str | None = None, name: str | None = None) -> type:
    """Registers ``cls`` under its ``class_name`` so configs naming it can be loaded; returns
    ``cls`` (usable as a decorator). ``class_name`` must be set on ``cls`` itself."""
    class_name = cls.__dict__.get("class_name")
    if class_name is None:
        raise LayersValueError(
            f"Class being registered does not have the static class_name property defined "
            f"(set class_name on {cls.__name__})."
        )
    if not isinstance(class_name, str):
        raise LayersValueError(
            f"class_name is required to be a string, but got type {type(class_name).__name__}"
        )
    if not class_name:
        raise LayersValueError(
            "Class being registered has an empty-string as its class_name, which is disallowed."
        )
    SerializationMap.register(cls)
    SerializationMap.get_map().registered_names[cls] = f"{pkg or 'Custom'}>{name or class_name}"
    return cls


def get_registered_name(cls: type) -> str:
    """``'pkg>name'`` for a class registered by :func:`register_class`, else its class name."""
    return SerializationMap.get_map().registered_names.get(cls, getattr(cls, "class_name", ""))


def serialize_keras_object(instance: Any) -> dict[str, Any] | None:
    """``{'class_name': ..., 'config': ...}`` for ``instance`` (``None`` for ``None``)."""
    if instance is None:
        return None
    return {"class_name": instance.get_class_name(), "config": instance.get_config()}


def unknown_error(kind: str, class_name: Any) -> LayersValueError:
    """TF.js's "Unknown <kind>: <name>" error, with the closest registered name (in its
    snake_case spelling, which the lookups accept) and the names that are registered."""
    known = sorted(SerializationMap.get_map().class_name_map.get(kind, {}))
    hint = did_you_mean(class_name, [snake_case(name) for name in known] + known)
    return LayersValueError(
        f"Unknown {kind}: {class_name}{hint}. This may be due to one of the following "
        f"reasons:\n1. The {kind} is defined in Keras (Python) or JavaScript and has no "
        f"tidytensor port yet.\n"
        f"2. It is a custom {kind} whose class is not registered with "
        f"tf.serialization.register_class() yet.\n"
        f"Registered {kind} classes: {', '.join(known) if known else '(none)'}"
    )


def lookup_class(kind: str, class_name: str, custom_objects: dict | None = None) -> type:
    """The class registered as ``class_name`` for ``kind`` (or in ``custom_objects``)."""
    if custom_objects and class_name in custom_objects:
        return custom_objects[class_name]
    table = SerializationMap.get_map().class_name_map.get(kind, {})
    if class_name not in table:
        raise unknown_error(kind, class_name)
    return table[class_name]


def deserialize_keras_object(
    identifier: Any,
    kind: str,
    custom_objects: dict[str, Any] | None = None,
    printable_module_name: str | None = None,
    fast_weight_init: bool = False,
) -> Any:
    """An instance from ``{'class_name', 'config'}`` (``className`` accepted too), or the
    class registered as ``identifier`` when it is a string."""
    printable = printable_module_name or kind
    if isinstance(identifier, str):
        return lookup_class(kind, identifier, custom_objects)
    if not isinstance(identifier, dict):
        raise LayersValueError(
            f"{printable}: expected a config dict {{'class_name': ..., 'config': ...}}, "
            f"but got {identifier!r}"
        )
    class_name = identifier.get("class_name", identifier.get("className"))
    config = identifier.get("config")
    if class_name is None or config is None:
        raise LayersValueError(
            f"{printable}: Improper config format: {py_value(identifier)}.\n"
            f"'className' and 'config' must set."
        )
    cls = lookup_class(kind, class_name, custom_objects)
    config = _ndarray_scalars(dict(config))
    return cls.from_config(config, custom_objects or {}, fast_weight_init)


def _ndarray_scalars(config: Any) -> Any:
    """Keras writes some numbers as ``{'type': 'ndarray', 'value': 3}``: unwrap them."""
    if isinstance(config, dict):
        if config.get("type") == "ndarray" and isinstance(config.get("value"), (int, float)):
            return config["value"]
        return {k: _ndarray_scalars(v) for k, v in config.items()}
    if isinstance(config, list):
        return [_ndarray_scalars(v) for v in config]
    return config


def serialize(layer: Any) -> dict[str, Any] | None:
    """A layer (or model) as ``{'class_name', 'config'}``."""
    return serialize_keras_object(layer)


def deserialize(
    config: dict[str, Any],
    custom_objects: dict[str, Any] | None = None,
    fast_weight_init: bool = False,
) -> Any:
    """A layer (or model) from ``{'class_name', 'config'}`` (TF.js's ``layers/serialization``)."""
    return deserialize_keras_object(config, "layer", custom_objects, "layer", fast_weight_init)
