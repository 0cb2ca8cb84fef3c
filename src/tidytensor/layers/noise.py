"""Noise layers (TF.js's ``layers/noise.ts``): GaussianNoise, GaussianDropout, AlphaDropout
and their factories. They act only when called with ``training=True`` (as ``fit`` does); at
inference they return their input unchanged.

Difference from TF.js 4.22 (a bug there, fixed here): AlphaDropout sets dropped units to
SELU's saturation value ``-alpha * scale`` as Keras does; TF.js flips its sign, which breaks
the mean and variance the layer exists to keep.

>>> g = gaussian_noise(stddev=0.5)
>>> g.apply(tf.ones([2]), training=False).array_sync()
[1.0, 1.0]
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from .. import ops
from . import backend as K
from .engine.serialization import register_class
from .engine.topology import Layer
from .errors import LayersValueError
from .utils import get_exactly_one_tensor

__all__ = ["alpha_dropout", "gaussian_dropout", "gaussian_noise"]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _check_number(value: Any, who: str, arg: str, low: float, high: float | None) -> None:
    if value is None:
        raise LayersValueError(f"{who}: required argument {arg} is missing.")
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or math.isnan(value):
        raise LayersValueError(f"{who}: {arg} must be a number, but got {value!r}")
    if value < low or (high is not None and value > high):
        bound = f"in [{low}, {high}]" if high is not None else f">= {low}"
        raise LayersValueError(f"{who}: {arg} must be {bound}, but got {value}")


def _training(kwargs: dict[str, Any]) -> bool:
    return bool(kwargs.get("training") or False)


@register_class
class GaussianNoise(Layer):
    """Adds zero-centred Gaussian noise of standard deviation ``stddev`` while training
    (a regularizer).

    Args:
        stddev: standard deviation of the noise (required, >= 0).
    """

    class_name = "GaussianNoise"

    def __init__(self, stddev: float | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        _check_number(stddev, "GaussianNoise", "stddev", 0, None)
        self.supports_masking = True
        self.stddev = stddev

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        self.invoke_call_hook(inputs, kwargs)
        x = get_exactly_one_tensor(inputs)
        return K.in_train_phase(
            lambda: ops.add(K.random_normal(x.shape, 0, self.stddev), x),
            lambda: x,
            _training(kwargs),
        )

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"stddev": self.stddev}
        config.update(super().get_config())
        return config


@register_class
class GaussianDropout(Layer):
    """Multiplies the inputs by Gaussian noise of mean 1 and standard deviation
    ``sqrt(rate / (1 - rate))`` while training.

    Args:
        rate: drop probability (required, in [0, 1]); 0 or 1 disables the noise.
    """

    class_name = "GaussianDropout"

    def __init__(self, rate: float | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        _check_number(rate, "GaussianDropout", "rate", 0, 1)
        self.supports_masking = True
        self.rate = rate

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        self.invoke_call_hook(inputs, kwargs)
        x = get_exactly_one_tensor(inputs)
        if 0 < self.rate < 1:
            stddev = math.sqrt(self.rate / (1 - self.rate))
            return K.in_train_phase(
                lambda: ops.mul(x, K.random_normal(x.shape, 1, stddev)),
                lambda: x,
                _training(kwargs),
            )
        return x

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"rate": self.rate}
        config.update(super().get_config())
        return config


@register_class
class AlphaDropout(Layer):
    """Dropout that keeps the mean and variance of SELU activations: dropped units are set
    to SELU's negative saturation value, then the result is affinely rescaled (training only).

    Args:
        rate: drop probability (required, in [0, 1]); 0 or 1 disables the noise.
        noise_shape: shape of the keep/drop mask (default the input's shape).
    """

    class_name = "AlphaDropout"

    def __init__(self, rate: float | None = None, noise_shape: Any = None, **kwargs: Any):
        super().__init__(**kwargs)
        _check_number(rate, "AlphaDropout", "rate", 0, 1)
        self.supports_masking = True
        self.rate = rate
        self.noise_shape = None if noise_shape is None else list(noise_shape)

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        x = get_exactly_one_tensor(inputs)
        if not 0 < self.rate < 1:
            return x
        noise_shape = self.noise_shape or x.shape
        rate = self.rate

        def dropped() -> Any:
            alpha_p = -_SELU_ALPHA * _SELU_SCALE
            kept = ops.cast(ops.greater_equal(ops.random_uniform(noise_shape), rate), "float32")
            a = ((1 - rate) * (1 + rate * alpha_p**2)) ** -0.5
            b = -a * alpha_p * rate
            y = ops.add(ops.mul(x, kept), ops.mul(ops.sub(1, kept), alpha_p))
            return ops.add(ops.mul(y, a), b)

        return K.in_train_phase(dropped, lambda: x, _training(kwargs))

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"rate": self.rate}
        if self.noise_shape is not None:
            config["noise_shape"] = list(self.noise_shape)
        config.update(super().get_config())
        return config


# ------------------------------------------------------------------- tf.layers factories
def gaussian_noise(stddev: float | None = None, **kwargs: Any) -> GaussianNoise:
    """A :class:`GaussianNoise` layer."""
    return GaussianNoise(stddev, **kwargs)


def gaussian_dropout(rate: float | None = None, **kwargs: Any) -> GaussianDropout:
    """A :class:`GaussianDropout` layer."""
    return GaussianDropout(rate, **kwargs)


def alpha_dropout(rate: float | None = None, **kwargs: Any) -> AlphaDropout:
    """An :class:`AlphaDropout` layer."""
    return AlphaDropout(rate, **kwargs)
