"""Activation functions by name (TF.js's ``tfjs-layers/src/activations.ts``).

``get_activation`` takes TF.js's identifiers (``'relu'``, ``'hardSigmoid'``...) and the Keras
spellings (``'hard_sigmoid'``, ``'log_softmax'``); ``None`` means ``'linear'``, which returns
its input unchanged (no new tensor). In a layer's config an activation is its snake_case name,
as in ``model.json``.

>>> get_activation('hard_sigmoid').apply(tf.tensor1d([0, 10])).array_sync()
[0.5, 1.0]
>>> serialize_activation(get_activation('hardSigmoid'))
'hard_sigmoid'
"""

from __future__ import annotations

import abc
import math
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
    unknown_error,
)
from .errors import LayersValueError
from .utils import to_camel_case, to_snake_case

__all__ = [
    "Activation",
    "deserialize_activation",
    "get_activation",
    "serialize_activation",
]


class Activation(Serializable, metaclass=abc.ABCMeta):
    """Base class: ``apply(x)`` returns the activated tensor."""

    serialization_kind = "activation"

    @abc.abstractmethod
    def apply(self, x: Tensor, *args: Any) -> Tensor:
        """The activated tensor."""

    def __call__(self, x: Tensor, *args: Any) -> Tensor:
        return self.apply(x, *args)

    def __repr__(self) -> str:
        return f"Activation({self.get_class_name()!r})"


@register_class
class Elu(Activation):
    class_name = "elu"

    def apply(self, x: Tensor, alpha: float = 1) -> Tensor:
        return K.elu(x, alpha)


@register_class
class Selu(Activation):
    class_name = "selu"

    def apply(self, x: Tensor) -> Tensor:
        return ops.selu(x)


@register_class
class Relu(Activation):
    class_name = "relu"

    def apply(self, x: Tensor) -> Tensor:
        return ops.relu(x)


@register_class
class Relu6(Activation):
    class_name = "relu6"

    def apply(self, x: Tensor) -> Tensor:
        return ENGINE.tidy(lambda: ops.minimum(6.0, ops.relu(x)))


@register_class
class Linear(Activation):
    class_name = "linear"

    def apply(self, x: Tensor) -> Tensor:
        return x


@register_class
class Sigmoid(Activation):
    class_name = "sigmoid"

    def apply(self, x: Tensor) -> Tensor:
        return ops.sigmoid(x)


@register_class
class HardSigmoid(Activation):
    class_name = "hardSigmoid"

    def apply(self, x: Tensor) -> Tensor:
        return K.hard_sigmoid(x)


@register_class
class Softplus(Activation):
    class_name = "softplus"

    def apply(self, x: Tensor) -> Tensor:
        return ops.softplus(x)


@register_class
class Softsign(Activation):
    class_name = "softsign"

    def apply(self, x: Tensor) -> Tensor:
        return K.softsign(x)


@register_class
class Tanh(Activation):
    class_name = "tanh"

    def apply(self, x: Tensor) -> Tensor:
        return ops.tanh(x)


@register_class
class Softmax(Activation):
    class_name = "softmax"

    def apply(self, x: Tensor, axis: int = -1) -> Tensor:
        return ops.softmax(x, axis)


@register_class
class LogSoftmax(Activation):
    class_name = "logSoftmax"

    def apply(self, x: Tensor, axis: int = -1) -> Tensor:
        return ops.log_softmax(x, axis)


@register_class
class Gelu(Activation):
    """``x * 0.5 * (1 + erf(x / sqrt(2)))``."""

    class_name = "gelu"

    def apply(self, x: Tensor) -> Tensor:
        return ENGINE.tidy(
            lambda: ops.mul(x, ops.mul(0.5, ops.add(1, ops.erf(ops.div(x, math.sqrt(2))))))
        )


@register_class
class GeluNew(Activation):
    """The tanh approximation of gelu."""

    class_name = "gelu_new"

    def apply(self, x: Tensor) -> Tensor:
        def body() -> Tensor:
            inner = ops.mul(
                ops.sqrt(ops.div(2, math.pi)), ops.add(x, ops.mul(0.044715, ops.pow(x, 3)))
            )
            return ops.mul(0.5, ops.mul(x, ops.add(1, ops.tanh(inner))))

        return ENGINE.tidy(body)


@register_class
class Mish(Activation):
    """``x * tanh(softplus(x))``."""

    class_name = "mish"

    def apply(self, x: Tensor) -> Tensor:
        return ENGINE.tidy(lambda: ops.mul(x, ops.tanh(ops.softplus(x))))


@register_class
class Swish(Activation):
    """``x * sigmoid(alpha * x)``."""

    class_name = "swish"

    def apply(self, x: Tensor, alpha: float = 1) -> Tensor:
        return ENGINE.tidy(lambda: ops.mul(ops.sigmoid(ops.mul(x, alpha)), x))


def serialize_activation(activation: Activation) -> str:
    """The activation's name as ``model.json`` writes it (``'hard_sigmoid'``)."""
    return to_snake_case(activation.get_class_name())


def deserialize_activation(
    config: dict[str, Any], custom_objects: dict[str, Any] | None = None
) -> Activation:
    return deserialize_keras_object(config, "activation", custom_objects, "activation")


def _loose(name: str) -> str:
    return name.replace("_", "").lower()


def get_activation(identifier: Any) -> Activation:
    """An :class:`Activation` from a name, a ``{'class_name', 'config'}`` dict or an instance;
    ``None`` gives ``linear``.

    Raises:
        LayersValueError: for an unknown name ("Unknown activation: ...").
    """
    if identifier is None:
        return Linear()
    if isinstance(identifier, Activation):
        return identifier
    if isinstance(identifier, str):
        table = SerializationMap.get_map().class_name_map.get("activation", {})
        for candidate in (identifier, to_camel_case(identifier)):
            if candidate in table:
                return table[candidate]()
        loose = {_loose(name): cls for name, cls in table.items()}
        if _loose(identifier) in loose:  # 'geluNew' (a camel-cased 'gelu_new'), 'LogSoftmax'
            return loose[_loose(identifier)]()
        raise unknown_error("activation", identifier)
    if isinstance(identifier, dict):
        return deserialize_activation(identifier)
    raise LayersValueError(
        f"activation must be a string, a config dict or an Activation, but got "
        f"{type(identifier).__name__}: {identifier!r}"
    )
