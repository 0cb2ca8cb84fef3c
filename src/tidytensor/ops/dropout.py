"""Dropout (TF.js doc subheading 'Operations / Dropout')."""

from __future__ import annotations

from typing import Any

from ..errors import ArgumentTypeError, DTypeError, InvalidArgumentError
from ..tensor import Tensor
from ._op import convert_to_tensor, describe, js_str, op
from .arithmetic import add, div, mul
from .basic_math import floor
from .creation import clone
from .random import random_uniform

__all__ = ["dropout"]


def _noise_shape(x: Tensor, noise_shape: Any) -> list:
    """TF.js's ``getNoiseShape``: x's shape by default; ``None`` entries take x's size."""
    if noise_shape is None:
        return list(x._shape)
    if not isinstance(noise_shape, (list, tuple)) and getattr(noise_shape, "ndim", None) != 1:
        raise ArgumentTypeError(
            f"Argument 'noise_shape' passed to 'dropout' must be an array of integers, but got "
            f"{describe(noise_shape)}"
        )
    noise_shape = list(noise_shape)
    if len(noise_shape) == x.rank:
        return [d if d is not None else x._shape[i] for i, d in enumerate(noise_shape)]
    return noise_shape


@op
def dropout(x: Any, rate: float, noise_shape: Any = None, seed: Any = None) -> Tensor:
    """Sets each element to 0 with probability ``rate`` and scales the rest by
    ``1 / (1 - rate)``. ``noise_shape`` (broadcast against ``x``) shares one draw across the
    axes where it is 1; ``seed`` (a number or string) gives TF.js's draws.

    >>> y = tf.dropout(tf.ones([1000]), 0.5, seed=1)
    >>> sorted(set(y.data_sync().tolist()))
    [0.0, 2.0]
    """
    is_tensor = isinstance(x, Tensor)
    x = convert_to_tensor(x, "x", "dropout")
    if x.dtype != "float32":
        raise DTypeError(
            "x has to be a floating point tensor since it's going to be scaled, but got a "
            f"{x.dtype} tensor instead."
        )
    if not (isinstance(rate, (int, float)) and not isinstance(rate, bool) and 0 <= rate < 1):
        raise InvalidArgumentError(
            f"rate must be a float in the range [0, 1), but got {js_str(rate)}."
        )
    if rate == 0:
        return clone(x) if is_tensor else x
    shape = _noise_shape(x, noise_shape)
    keep_prob = 1 - rate
    multiplier = div(floor(add(random_uniform(shape, 0, 1, "float32", seed), keep_prob)), keep_prob)
    return mul(x, multiplier)
