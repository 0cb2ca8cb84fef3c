"""Weight regularizers (TF.js's ``tfjs-layers/src/regularizers.ts``, ``tf.regularizers``).

Every regularizer is an :class:`L1L2` (``l1`` and ``l2`` make one with the other factor 0) and
serializes as ``{'class_name': 'L1L2', 'config': {'l1': ..., 'l2': ...}}``.

>>> r = l2(l2=0.5)
>>> serialize_regularizer(r)
{'class_name': 'L1L2', 'config': {'l1': 0, 'l2': 0.5}}
>>> r.apply(tf.tensor1d([1, 2])).array_sync()
2.5
"""

from __future__ import annotations

import abc
from typing import Any

from .. import ops
from ..engine import ENGINE
from ..tensor import Tensor
from . import backend as K
from .engine.serialization import (
    Serializable,
    SerializationMap,
    deserialize_keras_object,
    register_class,
    serialize_keras_object,
    unknown_error,
)
from .errors import LayersValueError

__all__ = [
    "L1L2",
    "Regularizer",
    "deserialize_regularizer",
    "get_regularizer",
    "l1",
    "l1l2",
    "l2",
    "serialize_regularizer",
]


class Regularizer(Serializable, metaclass=abc.ABCMeta):
    """Base class: ``apply(x)`` returns a scalar penalty."""

    serialization_kind = "regularizer"

    @abc.abstractmethod
    def apply(self, x: Tensor) -> Tensor:
        """The scalar penalty of ``x``."""

    def __call__(self, x: Tensor) -> Tensor:
        return self.apply(x)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.get_config()})"


def _check_factor(value: Any, name: str) -> Any:
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise LayersValueError(
            f"Argument {name} of the L1L2 regularizer must be a number, but got {value!r}"
        )
    return value


@register_class
class L1L2(Regularizer):
    """``l1 * sum(|x|) + l2 * sum(x²)`` (each factor defaults to 0.01)."""

    class_name = "L1L2"

    def __init__(self, l1: float | None = None, l2: float | None = None):
        l1 = _check_factor(l1, "l1")
        l2 = _check_factor(l2, "l2")
        self.l1 = 0.01 if l1 is None else l1
        self.l2 = 0.01 if l2 is None else l2
        self.has_l1 = self.l1 != 0
        self.has_l2 = self.l2 != 0

    def apply(self, x: Tensor) -> Tensor:
        def body() -> Tensor:
            regularization = ops.zeros([1])
            if self.has_l1:
                regularization = ops.add(regularization, ops.sum(ops.mul(self.l1, ops.abs(x))))
            if self.has_l2:
                regularization = ops.add(regularization, ops.sum(ops.mul(self.l2, K.square(x))))
            return ops.reshape(regularization, [])

        return ENGINE.tidy(body)

    def get_config(self) -> dict[str, Any]:
        return {"l1": self.l1, "l2": self.l2}

    @classmethod
    def from_config(
        cls, config: dict[str, Any], custom_objects: Any = None, fast_weight_init: bool = False
    ) -> L1L2:
        return cls(l1=config.get("l1"), l2=config.get("l2"))


def l1l2(l1: float | None = None, l2: float | None = None) -> Regularizer:
    """L1 and L2 penalties (each defaults to 0.01)."""
    return L1L2(l1, l2)


def l1(l1: float | None = None) -> Regularizer:  # noqa: F811 - TF.js's argument name
    """An L1 penalty (default 0.01)."""
    return L1L2(l1=l1, l2=0)


def l2(l2: float | None = None) -> Regularizer:  # noqa: F811
    """An L2 penalty (default 0.01)."""
    return L1L2(l1=0, l2=l2)


#: TF.js's string identifiers (REGULARIZER_IDENTIFIER_REGISTRY_SYMBOL_MAP).
REGULARIZER_IDENTIFIERS = {"l1l2": "L1L2"}


def serialize_regularizer(regularizer: Regularizer | None) -> dict[str, Any] | None:
    return serialize_keras_object(regularizer)


def deserialize_regularizer(
    config: dict[str, Any], custom_objects: dict[str, Any] | None = None
) -> Regularizer:
    return deserialize_keras_object(config, "regularizer", custom_objects, "regularizer")


def get_regularizer(identifier: Any) -> Regularizer | None:
    """A :class:`Regularizer` from ``'l1l2'``, a class name, a config dict or an instance
    (``None`` stays ``None``)."""
    if identifier is None:
        return None
    if isinstance(identifier, Regularizer):
        return identifier
    if isinstance(identifier, str):
        class_name = REGULARIZER_IDENTIFIERS.get(identifier, identifier)
        table = SerializationMap.get_map().class_name_map.get("regularizer", {})
        if class_name not in table:
            raise unknown_error("regularizer", identifier)
        return deserialize_regularizer({"class_name": class_name, "config": {}})
    if isinstance(identifier, dict):
        return deserialize_regularizer(identifier)
    raise LayersValueError(
        f"regularizer must be a string, a config dict or a Regularizer, but got "
        f"{type(identifier).__name__}: {identifier!r}"
    )
