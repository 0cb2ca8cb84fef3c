"""Signal helpers that TF.js leaks to the top level (``tf.enclosingPowerOfTwo``,
``tf.cosineWindow``, from ``signal_ops_util.ts``). The ``tf.signal`` namespace itself
(``frame``, ``hannWindow``, ``hammingWindow``, ``stft``) is :mod:`.signal`.

Both helpers compute on the host in JS numbers (doubles), as TF.js does; ``cosine_window``
rounds to float32 once, when it makes the tensor.
"""

from __future__ import annotations

import math
from typing import Any

from ..errors import ArgumentTypeError, InvalidArgumentError
from ..tensor import Tensor
from ._op import MAX_DIM, describe, float_arg, real_number
from .creation import tensor1d

__all__ = ["cosine_window", "enclosing_power_of_two"]


def enclosing_power_of_two(value: Any) -> float | int:
    """The smallest ``2**N`` (integer ``N``) that is ``>= value``, as a number (TF.js's
    ``Math.floor(2 ** Math.ceil(log(value) / log(2)))``: 0 for 0, NaN for a negative value).

    >>> tf.enclosing_power_of_two(5), tf.enclosing_power_of_two(8), tf.enclosing_power_of_two(0.3)
    (8, 8, 0)
    """
    v = real_number(value)
    if v is None:
        raise ArgumentTypeError(
            f"Argument 'value' passed to 'enclosing_power_of_two' must be a number, but got "
            f"{describe(value)}"
        )
    if math.isnan(v) or v < 0:
        return math.nan
    if v == 0:
        return 0  # log(0) = -Infinity, 2 ** -Infinity = 0
    if math.isinf(v):
        return math.inf
    exponent = math.ceil(math.log(v) / math.log(2.0))
    if exponent >= 1024:
        return math.inf
    return math.floor(2.0**exponent)


def cosine_window(window_length: int, a: float, b: float) -> Tensor:
    """A float32 window ``a - b * cos(2 pi i / (N - 1))`` of length ``N``; an even ``N`` uses
    ``N`` as the period, as TF.js does (so the window is periodic, not symmetric). A length-1
    window is ``[NaN]`` (0 / 0), as in TF.js. A fractional ``N`` makes ``floor(N)`` values
    (JS's typed-array length) with the period ``N + (1 - N % 2) - 1``, as in TF.js.

    >>> tf.cosine_window(3, 0.5, 0.5).array_sync()
    [0.0, 1.0, 0.0]
    """

    n = window_length
    if (
        isinstance(n, bool)
        or not isinstance(n, (int, float))
        or not math.isfinite(n)
        or not 0 <= math.trunc(n) <= MAX_DIM
    ):
        raise InvalidArgumentError(
            f"Invalid typed array length: {describe(n)} (the window length passed to "
            "cosine_window must be a non-negative number)"
        )
    size = math.trunc(n)
    if float(n).is_integer():
        n = int(n)
    a = float_arg(a, "cosineWindow", "a")
    b = float_arg(b, "cosineWindow", "b")
    even = 1 - n % 2  # n >= 0: Python's % is JS's here, fractions included
    period = n + even - 1
    values = []
    for i in range(size):
        arg = (2.0 * math.pi * i) / period if period else math.nan
        values.append(a - b * math.cos(arg))
    return tensor1d(values, "float32")
