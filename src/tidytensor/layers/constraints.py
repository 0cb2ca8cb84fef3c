"""Weight constraints (TF.js's ``tfjs-layers/src/constraints.ts``, ``tf.constraints``).

A constraint maps a weight to its projection; ``LayerVariable.write`` applies it after each
write. Identifiers: ``'maxNorm'``, ``'minMaxNorm'``, ``'nonNeg'``, ``'unitNorm'`` (Keras
spellings such as ``'max_norm'`` and ``'non_neg'`` too), or the class names.

>>> non_neg().apply(tf.tensor1d([-1, 2])).array_sync()
[0.0, 2.0]
>>> serialize_constraint(max_norm(max_value=3))
{'class_name': 'MaxNorm', 'config': {'max_value': 3, 'axis': 0}}
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
from .utils import to_camel_case

__all__ = [
    "Constraint",
    "MaxNorm",
    "MinMaxNorm",
    "NonNeg",
    "UnitNorm",
    "deserialize_constraint",
    "get_constraint",
    "max_norm",
    "min_max_norm",
    "non_neg",
    "serialize_constraint",
    "unit_norm",
]


def _l2_norms(w: Tensor, axis: int) -> Tensor:
    return ENGINE.tidy(lambda: ops.sqrt(ops.sum(ops.mul(w, w), axis, True)))


class Constraint(Serializable, metaclass=abc.ABCMeta):
    """Base class: ``apply(w)`` returns the constrained weight."""

    serialization_kind = "constraint"

    @abc.abstractmethod
    def apply(self, w: Tensor) -> Tensor:
        """The constrained weight."""

    def __call__(self, w: Tensor) -> Tensor:
        return self.apply(w)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.get_config()})"


@register_class
class MaxNorm(Constraint):
    """Rescales slices along ``axis`` whose L2 norm exceeds ``max_value`` (default 2)."""

    class_name = "MaxNorm"

    def __init__(self, max_value: float | None = None, axis: int | None = None):
        self.max_value = 2 if max_value is None else max_value
        self.axis = 0 if axis is None else axis

    def apply(self, w: Tensor) -> Tensor:
        def body() -> Tensor:
            norms = _l2_norms(w, self.axis)
            desired = ops.clip_by_value(norms, 0, self.max_value)
            return ops.mul(w, ops.div(desired, ops.add(K.epsilon(), norms)))

        return ENGINE.tidy(body)

    def get_config(self) -> dict[str, Any]:
        return {"max_value": self.max_value, "axis": self.axis}


@register_class
class UnitNorm(Constraint):
    """Scales slices along ``axis`` to unit L2 norm."""

    class_name = "UnitNorm"

    def __init__(self, axis: int | None = None):
        self.axis = 0 if axis is None else axis

    def apply(self, w: Tensor) -> Tensor:
        return ENGINE.tidy(lambda: ops.div(w, ops.add(K.epsilon(), _l2_norms(w, self.axis))))

    def get_config(self) -> dict[str, Any]:
        return {"axis": self.axis}


@register_class
class NonNeg(Constraint):
    """Clips negative values to 0."""

    class_name = "NonNeg"

    def apply(self, w: Tensor) -> Tensor:
        return ops.relu(w)


@register_class
class MinMaxNorm(Constraint):
    """Moves slice norms into ``[min_value, max_value]`` at speed ``rate``."""

    class_name = "MinMaxNorm"

    def __init__(
        self,
        min_value: float | None = None,
        max_value: float | None = None,
        rate: float | None = None,
        axis: int | None = None,
    ):
        self.min_value = 0.0 if min_value is None else min_value
        self.max_value = 1.0 if max_value is None else max_value
        self.rate = 1.0 if rate is None else rate
        self.axis = 0 if axis is None else axis

    def apply(self, w: Tensor) -> Tensor:
        def body() -> Tensor:
            norms = _l2_norms(w, self.axis)
            desired = ops.add(
                ops.mul(self.rate, ops.clip_by_value(norms, self.min_value, self.max_value)),
                ops.mul(1.0 - self.rate, norms),
            )
            return ops.mul(w, ops.div(desired, ops.add(K.epsilon(), norms)))

        return ENGINE.tidy(body)

    def get_config(self) -> dict[str, Any]:
        return {
            "min_value": self.min_value,
            "max_value": self.max_value,
            "rate": self.rate,
            "axis": self.axis,
        }


def max_norm(max_value: float | None = None, axis: int | None = None) -> Constraint:
    return MaxNorm(max_value, axis)


def unit_norm(axis: int | None = None) -> Constraint:
    return UnitNorm(axis)


def non_neg() -> Constraint:
    return NonNeg()


def min_max_norm(
    min_value: float | None = None,
    max_value: float | None = None,
    rate: float | None = None,
    axis: int | None = None,
) -> Constraint:
    return MinMaxNorm(min_value, max_value, rate, axis)


#: TF.js's string identifiers (CONSTRAINT_IDENTIFIER_REGISTRY_SYMBOL_MAP).
CONSTRAINT_IDENTIFIERS = {
    "maxNorm": "MaxNorm",
    "minMaxNorm": "MinMaxNorm",
    "nonNeg": "NonNeg",
    "unitNorm": "UnitNorm",
}


def serialize_constraint(constraint: Constraint | None) -> dict[str, Any] | None:
    return serialize_keras_object(constraint)


def deserialize_constraint(
    config: dict[str, Any], custom_objects: dict[str, Any] | None = None
) -> Constraint:
    return deserialize_keras_object(config, "constraint", custom_objects, "constraint")


def get_constraint(identifier: Any) -> Constraint | None:
    """A :class:`Constraint` from a name, a config dict or an instance (``None`` stays
    ``None``)."""
    if identifier is None:
        return None
    if isinstance(identifier, Constraint):
        return identifier
    if isinstance(identifier, str):
        class_name = CONSTRAINT_IDENTIFIERS.get(
            identifier, CONSTRAINT_IDENTIFIERS.get(to_camel_case(identifier), identifier)
        )
        table = SerializationMap.get_map().class_name_map.get("constraint", {})
        if class_name not in table:
            raise unknown_error("constraint", identifier)
        return deserialize_constraint({"class_name": class_name, "config": {}})
    if isinstance(identifier, dict):
        return deserialize_constraint(identifier)
    raise LayersValueError(
        f"constraint must be a string, a config dict or a Constraint, but got "
        f"{type(identifier).__name__}: {identifier!r}"
    )
