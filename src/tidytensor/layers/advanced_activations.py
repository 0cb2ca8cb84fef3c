"""Activation layers with their own arguments or weights (TF.js's
``layers/advanced_activations.ts``): ReLU, LeakyReLU, PReLU, ELU, ThresholdedReLU, Softmax —
and their ``tf.layers`` factories (``re_lu``, ``leaky_re_lu``, ``prelu``, ``elu``,
``thresholded_re_lu``, ``softmax``).

>>> re_lu(max_value=1).apply(tf.tensor1d([-1, 0.5, 3])).array_sync()
[0.0, 0.5, 1.0]
>>> leaky_re_lu(alpha=0.1).apply(tf.tensor1d([-2, 2])).array_sync()
[-0.20000000298023224, 2.0]
"""

from __future__ import annotations

import math
from typing import Any

from .. import ops
from ..py_strings import py_shape
from .activations import Softmax as _SoftmaxActivation
from .constraints import get_constraint, serialize_constraint
from .engine.serialization import register_class
from .engine.topology import InputSpec, Layer
from .errors import LayersNotImplementedError, LayersValueError
from .initializers import get_initializer, serialize_initializer
from .regularizers import get_regularizer, serialize_regularizer
from .utils import get_exactly_one_shape, get_exactly_one_tensor

__all__ = ["elu", "leaky_re_lu", "prelu", "re_lu", "softmax", "thresholded_re_lu"]


def _check_number(value: Any, layer: str, arg: str, allow_none: bool = True) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise LayersValueError(f"{layer}: {arg} must be a number, but got {value!r}")


@register_class
class ReLU(Layer):
    """``relu(x)``, optionally clipped at ``max_value``.

    Args:
        max_value: upper bound of the output (default none).
    """

    class_name = "ReLU"

    def __init__(self, max_value: float | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        _check_number(max_value, "ReLU", "max_value")
        self.supports_masking = True
        self.max_value = max_value

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        x = get_exactly_one_tensor(inputs)
        out = ops.relu(x)
        if self.max_value is not None:
            out = ops.clip_by_value(out, 0, self.max_value)
        return out

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"max_value": self.max_value}
        config.update(super().get_config())
        return config


@register_class
class LeakyReLU(Layer):
    """``x`` for ``x >= 0``, ``alpha * x`` below.

    Args:
        alpha: slope of the negative part (default 0.3, Keras's, not ``tf.leaky_relu``'s 0.2).
    """

    class_name = "LeakyReLU"
    DEFAULT_ALPHA = 0.3

    def __init__(self, alpha: float | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        _check_number(alpha, "LeakyReLU", "alpha")
        self.alpha = self.DEFAULT_ALPHA if alpha is None else alpha

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        return ops.leaky_relu(get_exactly_one_tensor(inputs), self.alpha)

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"alpha": self.alpha}
        config.update(super().get_config())
        return config


@register_class
class PReLU(Layer):
    """Leaky ReLU whose negative slope ``alpha`` is a learned weight of shape
    ``input_shape[1:]`` (size 1 along ``shared_axes``).

    Args:
        alpha_initializer: default ``'zeros'``.
        alpha_regularizer, alpha_constraint: for the ``alpha`` weight.
        shared_axes: axis or axes (1-based, batch excluded) along which ``alpha`` is shared.
    """

    class_name = "PReLU"
    DEFAULT_ALPHA_INITIALIZER = "zeros"

    def __init__(
        self,
        alpha_initializer: Any = None,
        alpha_regularizer: Any = None,
        alpha_constraint: Any = None,
        shared_axes: Any = None,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.alpha_initializer = get_initializer(
            alpha_initializer or self.DEFAULT_ALPHA_INITIALIZER
        )
        self.alpha_regularizer = get_regularizer(alpha_regularizer)
        self.alpha_constraint = get_constraint(alpha_constraint)
        if shared_axes is None:
            self.shared_axes = None
        elif isinstance(shared_axes, (list, tuple)):
            self.shared_axes = list(shared_axes)
        elif isinstance(shared_axes, int) and not isinstance(shared_axes, bool):
            self.shared_axes = [shared_axes]
        else:
            raise LayersValueError(
                f"PReLU: expected shared_axes to be a number or an array of numbers, but got "
                f"{shared_axes!r}"
            )
        self.alpha = None

    def build(self, input_shape: Any) -> None:
        input_shape = get_exactly_one_shape(input_shape)
        param_shape = list(input_shape[1:])
        for axis in self.shared_axes or []:
            if not isinstance(axis, int) or not 1 <= axis < len(input_shape):
                raise LayersValueError(
                    f"PReLU {self.name}: shared_axes entry {axis!r} is not an axis of the input "
                    f"(shape {py_shape(input_shape)}; axes are 1-based, the batch axis excluded)"
                )
            param_shape[axis - 1] = 1
        if any(d is None for d in param_shape):
            raise LayersValueError(
                f"PReLU {self.name}: every non-shared input dimension must be known, but got "
                f"input shape {py_shape(input_shape)}"
            )
        self.alpha = self.add_weight(
            "alpha",
            param_shape,
            "float32",
            self.alpha_initializer,
            self.alpha_regularizer,
            True,
            self.alpha_constraint,
        )
        axes = {}
        if self.shared_axes is not None:
            axes = {i: input_shape[i] for i in range(1, len(input_shape))}
        self.input_spec = [InputSpec(ndim=len(input_shape), axes=axes)]
        self.built = True

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        return ops.prelu(get_exactly_one_tensor(inputs), self.alpha.read())

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {
            "alpha_initializer": serialize_initializer(self.alpha_initializer),
            "alpha_regularizer": serialize_regularizer(self.alpha_regularizer),
            "alpha_constraint": serialize_constraint(self.alpha_constraint),
            "shared_axes": self.shared_axes,
        }
        config.update(super().get_config())
        return config


@register_class
class ELU(Layer):
    """Exponential linear unit: ``x`` for ``x > 0``, ``exp(x) - 1`` below.

    Args:
        alpha: must be 1 (the only value TF.js supports).
    """

    class_name = "ELU"
    DEFAULT_ALPHA = 1.0

    def __init__(self, alpha: float | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        _check_number(alpha, "ELU", "alpha")
        if alpha is not None and alpha != self.DEFAULT_ALPHA:
            raise LayersNotImplementedError(
                f"Non-default alpha value ({alpha}) is not supported by the ELU layer yet."
            )
        self.alpha = self.DEFAULT_ALPHA if alpha is None else alpha

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        return ops.elu(get_exactly_one_tensor(inputs))

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"alpha": self.alpha}
        config.update(super().get_config())
        return config


@register_class
class ThresholdedReLU(Layer):
    """``x`` where ``x > theta``, else 0.

    Args:
        theta: the threshold (default 1).
    """

    class_name = "ThresholdedReLU"
    DEFAULT_THETA = 1.0

    def __init__(self, theta: float | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        _check_number(theta, "ThresholdedReLU", "theta")
        self.theta = self.DEFAULT_THETA if theta is None else theta

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        x = get_exactly_one_tensor(inputs)
        return ops.mul(x, ops.cast(ops.greater(x, self.theta), "float32"))

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"theta": self.theta}
        config.update(super().get_config())
        return config


@register_class
class Softmax(Layer):
    """Softmax along ``axis``. A ``mask`` call argument (1 = keep, 0 = masked) pushes the
    masked positions to ~0 probability.

    Args:
        axis: an axis, or a list of axes normalized together (default 1, as in TF.js).
    """

    class_name = "Softmax"
    DEFAULT_AXIS = 1

    def __init__(self, axis: Any = None, **kwargs: Any):
        super().__init__(**kwargs)
        if axis is not None:
            items = axis if isinstance(axis, (list, tuple)) else [axis]
            if not items or any(isinstance(a, bool) or not isinstance(a, int) for a in items):
                raise LayersValueError(
                    f"Softmax: axis must be an integer or a non-empty list of integers, but "
                    f"got {axis!r}"
                )
        self.axis = (
            self.DEFAULT_AXIS
            if axis is None
            else (list(axis) if isinstance(axis, (list, tuple)) else axis)
        )
        self._softmax = _SoftmaxActivation()

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        x = get_exactly_one_tensor(inputs)
        mask = kwargs.get("mask")
        if mask is not None:
            adder = ops.mul(ops.sub(ops.ones(x.shape), ops.cast(mask, x.dtype)), ops.scalar(-1e9))
            x = ops.add(x, adder)
        if isinstance(self.axis, list):
            if len(self.axis) > 1:
                return ops.exp(ops.sub(x, ops.log_sum_exp(x, self.axis, True)))
            return self._softmax.apply(x, self.axis[0])
        return self._softmax.apply(x, self.axis)

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"axis": self.axis}
        config.update(super().get_config())
        return config


# ------------------------------------------------------------------- tf.layers factories
def re_lu(**kwargs: Any) -> ReLU:
    """A :class:`ReLU` layer (TF.js's ``tf.layers.reLU``); ``tf.layers.relu`` is the same
    factory under Keras's spelling."""
    return ReLU(**kwargs)


def leaky_re_lu(**kwargs: Any) -> LeakyReLU:
    """A :class:`LeakyReLU` layer (TF.js's ``tf.layers.leakyReLU``); ``tf.layers.leaky_relu``
    is the same factory under Keras's spelling."""
    return LeakyReLU(**kwargs)


def prelu(**kwargs: Any) -> PReLU:
    """A :class:`PReLU` layer (TF.js's ``tf.layers.prelu``); ``tf.layers.p_re_lu`` is the same
    factory under Keras's mechanical snake_case of ``PReLU`` (as ``re_lu`` is of ``ReLU``)."""
    return PReLU(**kwargs)


def elu(**kwargs: Any) -> ELU:
    """An :class:`ELU` layer."""
    return ELU(**kwargs)


def thresholded_re_lu(**kwargs: Any) -> ThresholdedReLU:
    """A :class:`ThresholdedReLU` layer (TF.js's ``tf.layers.thresholdedReLU``);
    ``tf.layers.thresholded_relu`` is the same factory under Keras's spelling."""
    return ThresholdedReLU(**kwargs)


def softmax(**kwargs: Any) -> Softmax:
    """A :class:`Softmax` layer."""
    return Softmax(**kwargs)
