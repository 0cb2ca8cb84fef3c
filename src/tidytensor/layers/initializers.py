"""Weight initializers (TF.js's ``tfjs-layers/src/initializers.ts``, ``tf.initializers``).

``get_initializer`` takes TF.js's identifiers (``'glorotNormal'``, ``'zeros'``...), the class
names (``'GlorotNormal'``) and the Keras spellings (``'glorot_normal'``, ``'lecun_uniform'``).
Glorot, He and LeCun initializers are :class:`VarianceScaling` presets and serialize as
``VarianceScaling``, exactly as TF.js writes them. With a ``seed`` the values are TF.js's.

>>> init = glorot_normal(seed=1)
>>> serialize_initializer(init)
{'class_name': 'VarianceScaling', 'config': {'scale': 1.0, 'mode': 'fan_avg', 'distribution': 'normal', 'seed': 1}}
>>> get_initializer('ones').apply([2]).array_sync()
[1.0, 1.0]

Differences from TF.js (bugs there, fixed here): ``random_uniform(minval=0)`` and
``random_normal(stddev=0)``-style zero arguments are kept (TF.js replaces any falsy value by the
default), and ``distribution='truncatedNormal'`` draws from a truncated normal (TF.js draws
uniform values for it).
"""

from __future__ import annotations

import abc
import math
import warnings
from typing import Any

import numpy as np

from .. import ops
from ..engine import ENGINE
from ..errors import DTypeError
from ..ops import linalg
from ..ops._op import float_arg, seed_arg
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
from .errors import LayersNotImplementedError, LayersValueError
from .utils import array_prod, to_camel_case, to_snake_case

__all__ = [
    "Constant",
    "GlorotNormal",
    "GlorotUniform",
    "HeNormal",
    "HeUniform",
    "Identity",
    "Initializer",
    "LeCunNormal",
    "LeCunUniform",
    "Ones",
    "Orthogonal",
    "RandomNormal",
    "RandomUniform",
    "TruncatedNormal",
    "VarianceScaling",
    "Zeros",
    "constant",
    "deserialize_initializer",
    "get_initializer",
    "glorot_normal",
    "glorot_uniform",
    "he_normal",
    "he_uniform",
    "identity",
    "le_cun_normal",
    "le_cun_uniform",
    "ones",
    "orthogonal",
    "random_normal",
    "random_uniform",
    "serialize_initializer",
    "truncated_normal",
    "variance_scaling",
    "zeros",
]

VALID_FAN_MODE_VALUES = ("fanIn", "fanOut", "fanAvg")
VALID_DISTRIBUTION_VALUES = ("normal", "uniform", "truncatedNormal")


def _number(value: Any, name: str, who: str, default: float) -> Any:
    """An initializer's numeric argument (``default`` for None), checked as ops check theirs;
    an int stays an int, so configs serialize as TF.js's do."""
    if value is None:
        return default
    number = float_arg(value, f"{who} initializer", name)
    return int(number) if isinstance(value, (int, np.integer)) else number


def _seed(seed: Any, who: str) -> Any:
    """An initializer's seed: None, a number or a string; a NumPy number becomes a Python one
    (configs are JSON)."""
    seed = seed_arg(seed, who)
    return seed.item() if isinstance(seed, np.generic) else seed


def _check_union(values: tuple, label: str, value: Any) -> str:
    camel = to_camel_case(value) if isinstance(value, str) else None
    if camel not in values:
        raise LayersValueError(
            f"{value} is not a valid {label}.  Valid values are {','.join(values)} or None."
        )
    return camel


def _float_dtype(dtype: str | None, who: str) -> str:
    dtype = dtype or "float32"
    if dtype not in ("float32", "int32"):
        raise LayersNotImplementedError(f"{who} does not support dtype {dtype}.")
    return dtype


class Initializer(Serializable, metaclass=abc.ABCMeta):
    """Base class: ``apply(shape, dtype)`` returns a new tensor of initial values."""

    serialization_kind = "initializer"

    @abc.abstractmethod
    def apply(self, shape: Any, dtype: str | None = None) -> Tensor:
        """A new tensor of initial values of ``shape``."""

    def __call__(self, shape: Any, dtype: str | None = None) -> Tensor:
        return self.apply(shape, dtype)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.get_config()})"


@register_class
class Zeros(Initializer):
    class_name = "Zeros"

    def apply(self, shape: Any, dtype: str | None = None) -> Tensor:
        return ops.zeros(shape, dtype or "float32")


@register_class
class Ones(Initializer):
    class_name = "Ones"

    def apply(self, shape: Any, dtype: str | None = None) -> Tensor:
        return ops.ones(shape, dtype or "float32")


@register_class
class Constant(Initializer):
    """Every element ``value``."""

    class_name = "Constant"

    def __init__(self, value: float | None = None):
        if value is None:
            raise LayersValueError(f"config must have value set but got {{'value': {value}}}")
        self.value = _number(value, "value", "Constant", None)

    def apply(self, shape: Any, dtype: str | None = None) -> Tensor:
        return ENGINE.tidy(
            lambda: ops.mul(ops.scalar(self.value), ops.ones(shape, dtype or "float32"))
        )

    def get_config(self) -> dict[str, Any]:
        return {"value": self.value}


@register_class
class RandomUniform(Initializer):
    """Uniform values in ``[minval, maxval)`` (defaults -0.05, 0.05)."""

    class_name = "RandomUniform"

    def __init__(self, minval: float | None = None, maxval: float | None = None, seed: Any = None):
        self.minval = _number(minval, "minval", "RandomUniform", -0.05)
        self.maxval = _number(maxval, "maxval", "RandomUniform", 0.05)
        self.seed = _seed(seed, "RandomUniform initializer")

    def apply(self, shape: Any, dtype: str | None = None) -> Tensor:
        return ops.random_uniform(shape, self.minval, self.maxval, dtype or "float32", self.seed)

    def get_config(self) -> dict[str, Any]:
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


class _Normal(Initializer):
    """The arguments of the normal initializers: ``mean`` (default 0), ``stddev`` (0.05)."""

    def __init__(self, mean: float | None = None, stddev: float | None = None, seed: Any = None):
        who = self.class_name
        self.mean = _number(mean, "mean", who, 0.0)
        self.stddev = _number(stddev, "stddev", who, 0.05)
        self.seed = _seed(seed, f"{who} initializer")

    def get_config(self) -> dict[str, Any]:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


@register_class
class RandomNormal(_Normal):
    """Normal values (defaults mean 0, stddev 0.05)."""

    class_name = "RandomNormal"

    def apply(self, shape: Any, dtype: str | None = None) -> Tensor:
        dtype = _float_dtype(dtype, "randomNormal")
        return K.random_normal(shape, self.mean, self.stddev, dtype, self.seed)


@register_class
class TruncatedNormal(_Normal):
    """Normal values redrawn beyond two standard deviations (defaults mean 0, stddev 0.05)."""

    class_name = "TruncatedNormal"

    def apply(self, shape: Any, dtype: str | None = None) -> Tensor:
        dtype = _float_dtype(dtype, "truncatedNormal")
        return ops.truncated_normal(shape, self.mean, self.stddev, dtype, self.seed)


@register_class
class Identity(Initializer):
    """``gain`` times the identity matrix (2-D square shapes only)."""

    class_name = "Identity"

    def __init__(self, gain: float | None = None):
        self.gain = _number(gain, "gain", "Identity", 1.0)

    def apply(self, shape: Any, dtype: str | None = None) -> Tensor:
        if len(shape) != 2 or shape[0] != shape[1]:
            raise LayersValueError(
                "Identity matrix initializer can only be used for 2D square matrices."
            )
        return ENGINE.tidy(lambda: ops.mul(self.gain, ops.eye(shape[0])))

    def get_config(self) -> dict[str, Any]:
        return {"gain": self.gain}


def compute_fans(shape: Any, data_format: str = "channelsLast") -> tuple[float, float]:
    """``(fan_in, fan_out)`` of a weight shape (dense, conv kernels, or anything else)."""
    data_format = K.check_data_format(data_format)
    shape = list(shape)
    if len(shape) == 2:
        return shape[0], shape[1]
    if len(shape) in (3, 4, 5):
        if data_format == "channelsFirst":
            receptive = array_prod(shape, 2)
            return shape[1] * receptive, shape[0] * receptive
        receptive = array_prod(shape, 0, len(shape) - 2)
        return shape[-2] * receptive, shape[-1] * receptive
    prod = array_prod(shape)
    return math.sqrt(prod), math.sqrt(prod)


@register_class
class VarianceScaling(Initializer):
    """Values with variance ``scale / n``, ``n`` being the fan-in, fan-out or their average;
    ``distribution='normal'`` draws a truncated normal (TF.js), ``'uniform'`` a uniform."""

    class_name = "VarianceScaling"

    def __init__(
        self,
        scale: float | None = None,
        mode: str | None = None,
        distribution: str | None = None,
        seed: Any = None,
    ):
        scale = _number(scale, "scale", "VarianceScaling", 1.0)
        if scale < 0.0:
            raise LayersValueError(f"scale must be a positive float. Got: {scale}")
        self.scale = scale
        self.mode = _check_union(
            VALID_FAN_MODE_VALUES, "FanMode", "fanIn" if mode is None else mode
        )
        self.distribution = _check_union(
            VALID_DISTRIBUTION_VALUES,
            "Distribution",
            "normal" if distribution is None else distribution,
        )
        self.seed = _seed(seed, "VarianceScaling initializer")

    def apply(self, shape: Any, dtype: str | None = None) -> Tensor:
        fan_in, fan_out = compute_fans(shape)
        scale = self.scale
        if self.mode == "fanIn":
            scale /= max(1, fan_in)
        elif self.mode == "fanOut":
            scale /= max(1, fan_out)
        else:
            scale /= max(1, (fan_in + fan_out) / 2)
        if self.distribution in ("normal", "truncatedNormal"):
            dtype = _float_dtype(dtype, self.get_class_name())
            return ops.truncated_normal(shape, 0, math.sqrt(scale), dtype, self.seed)
        limit = math.sqrt(3 * scale)
        return ops.random_uniform(shape, -limit, limit, dtype or "float32", self.seed)

    def get_config(self) -> dict[str, Any]:
        return {
            "scale": self.scale,
            "mode": to_snake_case(self.mode),
            "distribution": to_snake_case(self.distribution),
            "seed": self.seed,
        }


class _Preset(VarianceScaling):
    """A VarianceScaling preset: serialized as ``VarianceScaling``."""

    _preset: tuple[float, str, str] = (1.0, "fanIn", "normal")

    def __init__(self, seed: Any = None):
        scale, mode, distribution = self._preset
        super().__init__(scale=scale, mode=mode, distribution=distribution, seed=seed)

    def get_class_name(self) -> str:
        return VarianceScaling.class_name

    @classmethod
    def from_config(
        cls, config: dict[str, Any], custom_objects: Any = None, fast_weight_init: bool = False
    ) -> Any:
        return cls(seed=config.get("seed"))


@register_class
class GlorotUniform(_Preset):
    class_name = "GlorotUniform"
    _preset = (1.0, "fanAvg", "uniform")


@register_class
class GlorotNormal(_Preset):
    class_name = "GlorotNormal"
    _preset = (1.0, "fanAvg", "normal")


@register_class
class HeNormal(_Preset):
    class_name = "HeNormal"
    _preset = (2.0, "fanIn", "normal")


@register_class
class HeUniform(_Preset):
    class_name = "HeUniform"
    _preset = (2.0, "fanIn", "uniform")


@register_class
class LeCunNormal(_Preset):
    class_name = "LeCunNormal"
    _preset = (1.0, "fanIn", "normal")


@register_class
class LeCunUniform(_Preset):
    class_name = "LeCunUniform"
    _preset = (1.0, "fanIn", "uniform")


@register_class
class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix from the QR decomposition of normal values, times ``gain``."""

    class_name = "Orthogonal"
    ELEMENTS_WARN_SLOW = 2000

    def __init__(self, gain: float | None = None, seed: Any = None):
        self.gain = _number(gain, "gain", "Orthogonal", 1)
        self.seed = _seed(seed, "Orthogonal initializer")

    def apply(self, shape: Any, dtype: str | None = None) -> Tensor:
        shape = list(shape)
        if len(shape) < 2:
            raise LayersNotImplementedError("Shape must be at least 2D.")
        if dtype not in ("int32", "float32", None):
            raise DTypeError(f"Unsupported data type {dtype}.")
        num_rows = array_prod(shape[:-1])
        num_cols = shape[-1]
        if num_rows * num_cols > self.ELEMENTS_WARN_SLOW:
            warnings.warn(
                f"Orthogonal initializer is being called on a matrix with more than "
                f"{self.ELEMENTS_WARN_SLOW} ({num_rows * num_cols}) elements: Slowness may "
                f"result.",
                stacklevel=2,
            )

        def body() -> Tensor:
            small = min(num_cols, num_rows)
            flat_shape = [max(num_cols, num_rows), small]
            rand = K.random_normal(flat_shape, 0, 1, dtype, self.seed)
            q, r = linalg.qr(rand, False)
            diag = ops.strided_slice(ops.reshape(r, [-1]), [0], [small * small], [small + 1])
            q = ops.mul(q, ops.sign(diag))
            if num_rows < num_cols:
                q = ops.transpose(q)
            return ops.mul(ops.scalar(self.gain), ops.reshape(q, shape))

        return ENGINE.tidy(body)

    def get_config(self) -> dict[str, Any]:
        return {"gain": self.gain, "seed": self.seed}


#: TF.js's string identifiers (INITIALIZER_IDENTIFIER_REGISTRY_SYMBOL_MAP).
INITIALIZER_IDENTIFIERS = {
    "constant": "Constant",
    "glorotNormal": "GlorotNormal",
    "glorotUniform": "GlorotUniform",
    "heNormal": "HeNormal",
    "heUniform": "HeUniform",
    "identity": "Identity",
    "leCunNormal": "LeCunNormal",
    "leCunUniform": "LeCunUniform",
    "ones": "Ones",
    "orthogonal": "Orthogonal",
    "randomNormal": "RandomNormal",
    "randomUniform": "RandomUniform",
    "truncatedNormal": "TruncatedNormal",
    "varianceScaling": "VarianceScaling",
    "zeros": "Zeros",
}
#: Lower-cased, underscore-free spellings: Keras's ``'glorot_normal'``, ``'lecun_uniform'``,
#: ``'he_normal'`` and the class names all land on the same class.
_LOOSE = {k.lower(): v for k, v in INITIALIZER_IDENTIFIERS.items()}
_LOOSE.update({"zero": "Zeros", "one": "Ones"})


def serialize_initializer(initializer: Initializer | None) -> dict[str, Any] | None:
    return serialize_keras_object(initializer)


def deserialize_initializer(
    config: dict[str, Any], custom_objects: dict[str, Any] | None = None
) -> Initializer:
    return deserialize_keras_object(config, "initializer", custom_objects, "initializer")


def get_initializer(identifier: Any) -> Initializer:
    """An :class:`Initializer` from a name, a ``{'class_name', 'config'}`` dict or an
    instance.

    Raises:
        LayersValueError: for an unknown name ("Unknown initializer: ...").
    """
    if isinstance(identifier, Initializer):
        return identifier
    if isinstance(identifier, str):
        table = SerializationMap.get_map().class_name_map.get("initializer", {})
        class_name = INITIALIZER_IDENTIFIERS.get(identifier)
        if class_name is None and identifier in table:
            class_name = identifier
        if class_name is None:
            class_name = _LOOSE.get(identifier.replace("_", "").lower())
        if class_name is None:
            raise unknown_error("initializer", identifier)
        return deserialize_initializer({"class_name": class_name, "config": {}})
    if isinstance(identifier, dict):
        return deserialize_initializer(identifier)
    raise LayersValueError(
        f"initializer must be a string, a config dict or an Initializer, but got "
        f"{type(identifier).__name__}: {identifier!r}"
    )


# ----------------------------------------------------------------- tf.initializers factories
def zeros() -> Initializer:
    """Zeros."""
    return Zeros()


def ones() -> Initializer:
    """Ones."""
    return Ones()


def constant(value: float | None = None) -> Initializer:
    """Every element ``value``."""
    return Constant(value)


def random_uniform(
    minval: float | None = None, maxval: float | None = None, seed: Any = None
) -> Initializer:
    return RandomUniform(minval, maxval, seed)


def random_normal(
    mean: float | None = None, stddev: float | None = None, seed: Any = None
) -> Initializer:
    return RandomNormal(mean, stddev, seed)


def truncated_normal(
    mean: float | None = None, stddev: float | None = None, seed: Any = None
) -> Initializer:
    return TruncatedNormal(mean, stddev, seed)


def identity(gain: float | None = None) -> Initializer:
    return Identity(gain)


def variance_scaling(
    scale: float | None = None,
    mode: str | None = None,
    distribution: str | None = None,
    seed: Any = None,
) -> Initializer:
    return VarianceScaling(scale, mode, distribution, seed)


def glorot_uniform(seed: Any = None) -> Initializer:
    return GlorotUniform(seed)


def glorot_normal(seed: Any = None) -> Initializer:
    return GlorotNormal(seed)


def he_normal(seed: Any = None) -> Initializer:
    return HeNormal(seed)


def he_uniform(seed: Any = None) -> Initializer:
    return HeUniform(seed)


def le_cun_normal(seed: Any = None) -> Initializer:
    return LeCunNormal(seed)


def le_cun_uniform(seed: Any = None) -> Initializer:
    return LeCunUniform(seed)


def orthogonal(gain: float | None = None, seed: Any = None) -> Initializer:
    return Orthogonal(gain, seed)
