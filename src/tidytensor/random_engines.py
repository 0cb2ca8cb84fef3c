"""Host-side random number engines that reproduce TF.js's seeded streams bit for bit.

TF.js draws every seeded random value on the host from the ``seedrandom`` package's
*alea* generator (a lag-3 multiply-with-carry generator seeded through its "Mash" string
hash) and turns those uniforms into normals (Marsaglia's polar method), gammas
(Marsaglia and Tsang) or uniform ranges (``tfjs-core/src/ops/rand_util.ts``). This module
re-implements those algorithms so that ``tf.random_normal([3], seed=7)`` gives exactly the
numbers TF.js gives. Without a seed, fast NumPy generators draw from the same
distributions (TF.js itself then seeds from ``Math.random()``, so no sequence is expected).

Seeds are turned into strings the way JavaScript does (``String(x)``), because alea hashes
the seed's text: ``7`` and ``7.0`` are both ``"7"``; ``1e21`` is ``"1e+21"``.
"""

from __future__ import annotations

import decimal
import math
import random as _py_random
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = [
    "Alea",
    "MPRandGauss",
    "RandGamma",
    "UniformRandom",
    "gamma_sampler",
    "js_number_to_string",
    "js_round",
    "multinomial_samples",
    "normal_sampler",
    "uniform_sampler",
]

_TWO_POW_32 = 4294967296
_TWO_POW_MINUS_32 = 2.3283064365386963e-10
_ALEA_MULTIPLIER = 2091639

#: The generator used when no seed is given (reproducibility is not promised there).
_unseeded = np.random.default_rng()


# ---------------------------------------------------------------------------- JS numbers
def js_number_to_string(x: Any) -> str:
    """``String(x)`` for a JS number (Python ints and floats are JS numbers)."""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, str):
        return x
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    # repr() gives the shortest digit string that round-trips, as ECMAScript requires.
    dec = decimal.Decimal(repr(abs(x))).normalize()
    _, digit_tuple, exponent = dec.as_tuple()
    digits = "".join(str(d) for d in digit_tuple)
    k = len(digits)
    n = exponent + k  # value = 0.digits * 10**n
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    e = n - 1
    exp = ("+" if e >= 0 else "-") + str(abs(e))
    mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
    return sign + mantissa + "e" + exp


def js_round(x: float) -> float:
    """``Math.round``: nearest integer, halves toward +Infinity."""
    if not math.isfinite(x):
        return x
    r = math.floor(x)
    if x - r >= 0.5:
        r += 1
    return float(r)


def _js_truthy(v: Any) -> bool:
    if v is None:
        return False
    if isinstance(v, float) and math.isnan(v):
        return False
    return bool(v)


def _seed_text(seed: Any) -> str:
    if isinstance(seed, str):
        return seed
    return js_number_to_string(seed)


# ---------------------------------------------------------------------------- alea
class _Mash:
    """seedrandom's string hash; its state carries over from one call to the next."""

    __slots__ = ("n",)

    def __init__(self) -> None:
        self.n = float(0xEFC8249D)

    def __call__(self, data: str) -> float:
        n = self.n
        units = data.encode("utf-16-le")
        for i in range(0, len(units), 2):
            n += units[i] | (units[i + 1] << 8)  # a UTF-16 code unit, as charCodeAt
            h = 0.02519603282416938 * n
            n = float(int(h) % _TWO_POW_32)  # h >>> 0 (h is never negative here)
            h -= n
            h *= n
            n = float(int(h) % _TWO_POW_32)
            h -= n
            n += h * 4294967296.0
        self.n = n
        return (int(n) % _TWO_POW_32) * _TWO_POW_MINUS_32


class Alea:
    """seedrandom's ``alea(seed)``: call it for the next uniform in [0, 1).

    The generator's state is kept as 32-bit integers (every state value of the JS original
    is an exact multiple of 2**-32), which gives the same stream with integer arithmetic.
    """

    __slots__ = ("_s0", "_s1", "_s2", "_c")

    def __init__(self, seed: Any):
        text = _seed_text(seed)
        mash = _Mash()
        s0 = mash(" ")
        s1 = mash(" ")
        s2 = mash(" ")
        s0 -= mash(text)
        if s0 < 0:
            s0 += 1
        s1 -= mash(text)
        if s1 < 0:
            s1 += 1
        s2 -= mash(text)
        if s2 < 0:
            s2 += 1
        self._s0 = int(s0 * 4294967296.0)
        self._s1 = int(s1 * 4294967296.0)
        self._s2 = int(s2 * 4294967296.0)
        self._c = 1

    def __call__(self) -> float:
        t = _ALEA_MULTIPLIER * self._s0 + self._c
        self._s0 = self._s1
        self._s1 = self._s2
        self._c = t >> 32
        self._s2 = t & 0xFFFFFFFF
        return self._s2 * _TWO_POW_MINUS_32

    def int32(self) -> int:
        """seedrandom's ``prng.int32()``: the next draw as a signed 32-bit integer
        (``(prng() * 2**32) | 0``)."""
        self()
        x = self._s2
        return x - 0x100000000 if x >= 0x80000000 else x

    def take(self, n: int) -> np.ndarray:
        """The next ``n`` uniforms as a float64 array."""
        out = np.empty(n, dtype=np.float64)
        s0, s1, s2, c = self._s0, self._s1, self._s2, self._c
        scale = _TWO_POW_MINUS_32
        for i in range(n):
            t = _ALEA_MULTIPLIER * s0 + c
            s0 = s1
            s1 = s2
            c = t >> 32
            s2 = t & 0xFFFFFFFF
            out[i] = s2 * scale
        self._s0, self._s1, self._s2, self._c = s0, s1, s2, c
        return out


# ---------------------------------------------------------------------------- TF.js classes
class MPRandGauss:
    """Normal samples by Marsaglia's polar method, two per accepted pair (TF.js's
    ``MPRandGauss``). ``truncated`` rejects values more than two standard deviations away
    from the mean; non-float dtypes round with ``Math.round``."""

    def __init__(
        self, mean: float, std_deviation: float, dtype: str | None, truncated: bool, seed: Any
    ):
        self.mean = float(mean)
        self.std_dev = float(std_deviation)
        self.dtype = dtype
        self.next_val = math.nan
        self.truncated = truncated
        if truncated:
            self.upper = self.mean + self.std_dev * 2
            self.lower = self.mean - self.std_dev * 2
        seed_value = seed if _js_truthy(seed) else _py_random.random()
        self.random = Alea(seed_value)

    def next_value(self) -> float:
        if not math.isnan(self.next_val):
            value = self.next_val
            self.next_val = math.nan
            return value
        rnd = self.random
        mean, std, truncated = self.mean, self.std_dev, self.truncated
        while True:
            while True:
                v1 = 2 * rnd() - 1
                v2 = 2 * rnd() - 1
                s = v1 * v1 + v2 * v2
                if not (s >= 1 or s == 0):
                    break
            mul = math.sqrt(-2.0 * math.log(s) / s)
            result_x = mean + std * v1 * mul
            result_y = mean + std * v2 * mul
            if not truncated or self.is_valid_truncated(result_x):
                break
        if not truncated or self.is_valid_truncated(result_y):
            self.next_val = self.convert_value(result_y)
        return self.convert_value(result_x)

    def convert_value(self, value: float) -> float:
        if self.dtype is None or self.dtype == "float32":
            return value
        return js_round(value)

    def is_valid_truncated(self, value: float) -> bool:
        return self.lower <= value <= self.upper

    def take(self, n: int) -> np.ndarray:
        """The next ``n`` values; the same stream as ``n`` calls of ``next_value``."""
        out: list[float] = []
        if n > 0 and not math.isnan(self.next_val):
            out.append(self.next_val)
            self.next_val = math.nan
        rnd = self.random
        mean, std, truncated = self.mean, self.std_dev, self.truncated
        lower = self.lower if truncated else 0.0
        upper = self.upper if truncated else 0.0
        log, sqrt, append = math.log, math.sqrt, out.append
        while len(out) < n:
            v1 = 2 * rnd() - 1
            v2 = 2 * rnd() - 1
            s = v1 * v1 + v2 * v2
            if s >= 1 or s == 0:
                continue
            mul = sqrt(-2.0 * log(s) / s)
            x = mean + std * v1 * mul
            if truncated and not lower <= x <= upper:
                continue
            append(x)
            y = mean + std * v2 * mul
            if not truncated or lower <= y <= upper:
                append(y)
        if len(out) > n:  # the pair's second value waits for the next call
            self.next_val = out.pop()
        values = np.array(out, dtype=np.float64)
        if self.dtype is None or self.dtype == "float32":
            return values
        return _js_round_array(values)


class RandGamma:
    """Gamma samples by Marsaglia and Tsang's method (TF.js's ``RandGamma``). As in TF.js,
    ``beta`` ends up multiplying the samples (it acts as a scale), and for non-float dtypes
    the inner normal samples are rounded too."""

    def __init__(self, alpha: float, beta: float, dtype: str | None, seed: Any):
        self.alpha = float(alpha)
        self.beta = 1 / float(beta) if beta != 0 else math.copysign(math.inf, beta)
        self.dtype = dtype
        seed_value = seed if _js_truthy(seed) else _py_random.random()
        self.randu = Alea(seed_value)
        self.randn = MPRandGauss(0, 1, dtype, False, self.randu())
        self.d = self.alpha + 2 / 3 if self.alpha < 1 else self.alpha - 1 / 3
        self.c = 1 / math.sqrt(9 * self.d)

    def next_value(self) -> float:
        randn, randu, c, d = self.randn.next_value, self.randu, self.c, self.d
        while True:
            while True:
                x = randn()
                v = 1 + c * x
                if not v <= 0:
                    break
            v *= v * v
            x2 = x * x
            v0 = 1 - 0.331 * x2 * x2
            v1 = 0.5 * x2 + d * (1 - v + math.log(v))
            u = randu()
            if u < v0 or _js_log(u) < v1:
                break
        v = (1 / self.beta) * d * v
        if self.alpha < 1:
            # JS: 1 / 0 is Infinity (alpha 0 draws zeros)
            v *= _js_pow(
                randu(), 1 / self.alpha if self.alpha else math.copysign(math.inf, self.alpha)
            )
        return self.convert_value(v)

    def convert_value(self, value: float) -> float:
        if self.dtype == "float32":
            return value
        return js_round(value)

    def take(self, n: int) -> np.ndarray:
        out = np.empty(n, dtype=np.float64)
        nxt = self.next_value
        for i in range(n):
            out[i] = nxt()
        return out


class UniformRandom:
    """Uniform samples in [min, max) (TF.js's ``UniformRandom``); a seed that is not a
    string is turned into one as JavaScript would."""

    def __init__(self, min: float = 0, max: float = 1, dtype: str | None = None, seed: Any = None):  # noqa: A002
        self.min = float(min)
        self.range = float(max) - float(min)
        self.dtype = dtype
        if seed is None:
            seed = _py_random.random()
        if not self.can_return_float() and self.range <= 1:
            raise ValueError(
                f"The difference between {js_number_to_string(min)} - {js_number_to_string(max)} "
                "<= 1 and dtype is not float"
            )
        self.random = Alea(seed)

    def can_return_float(self) -> bool:
        return self.dtype is None or self.dtype == "float32"

    def convert_value(self, value: float) -> float:
        if self.can_return_float():
            return value
        return js_round(value)

    def next_value(self) -> float:
        return self.convert_value(self.min + self.range * self.random())

    def take(self, n: int) -> np.ndarray:
        with np.errstate(invalid="ignore", over="ignore"):  # an infinite bound gives NaN, as in JS
            values = self.min + self.range * self.random.take(n)
        if self.can_return_float():
            return values
        return _js_round_array(values)


def _js_log(x: float) -> float:
    if x == 0:
        return -math.inf
    return math.log(x)


def _js_pow(x: float, y: float) -> float:
    try:
        return math.pow(x, y)
    except (OverflowError, ValueError):
        return float(np.power(np.float64(x), np.float64(y)))


def _js_round_array(values: np.ndarray) -> np.ndarray:
    r = np.floor(values)
    return np.where(values - r >= 0.5, r + 1, r)


# ---------------------------------------------------------------------------- sampling API
def uniform_sampler(minval: float, maxval: float, seed: Any) -> Callable[[int], np.ndarray]:
    """``take(n)``: the next ``n`` float64 values ``minval + (maxval - minval) * u`` of one
    stream (TF.js's ``randomUniform``); calls in turn give the stream of one large call."""
    if seed is not None:
        return UniformRandom(minval, maxval, None, seed).take
    lo = float(minval)
    span = float(maxval) - lo
    return lambda n: lo + span * _unseeded.random(n)


def normal_sampler(
    mean: float, std_dev: float, dtype: str | None, truncated: bool, seed: Any
) -> Callable[[int], np.ndarray]:
    """``take(n)``: the next ``n`` float64 normal samples (rounded for non-float dtypes),
    optionally truncated to two standard deviations, as TF.js's ``randomNormal`` /
    ``truncatedNormal``."""
    if _js_truthy(seed):
        return MPRandGauss(mean, std_dev, dtype, truncated, seed).take
    mean, std_dev = float(mean), float(std_dev)
    lower, upper = mean - 2 * std_dev, mean + 2 * std_dev

    def take(n: int) -> np.ndarray:
        values = mean + std_dev * _unseeded.standard_normal(n)
        if truncated:
            bad = np.flatnonzero(~((values >= lower) & (values <= upper)))
            while bad.size:
                values[bad] = mean + std_dev * _unseeded.standard_normal(bad.size)
                bad = bad[~((values[bad] >= lower) & (values[bad] <= upper))]
        if dtype is None or dtype == "float32":
            return values
        return _js_round_array(values)

    return take


def gamma_sampler(alpha: float, beta: float, dtype: str, seed: Any) -> Callable[[int], np.ndarray]:
    """``take(n)``: the next ``n`` gamma samples with shape ``alpha`` and scale ``beta``
    (TF.js's ``randomGamma``)."""
    if _js_truthy(seed):
        return RandGamma(alpha, beta, dtype, seed).take
    alpha, beta = float(alpha), float(beta)

    def take(n: int) -> np.ndarray:
        values = _unseeded.gamma(alpha, 1.0, n) * beta
        return values if dtype == "float32" else _js_round_array(values)

    return take


def multinomial_samples(probs: np.ndarray, num_samples: int, seed: Any) -> np.ndarray:
    """int32 ``[batch, num_samples]`` draws from float32 probabilities ``[batch, events]``,
    as TF.js's CPU ``Multinomial`` kernel: a float32 running sum that leaves out the last
    event, and one alea stream, restarted from ``seed`` for every batch row."""
    batch, events = probs.shape
    out = np.zeros((batch, num_samples), dtype=np.int32)
    if events < 2:
        return out
    # cdf[k] = float32(cdf[k-1] + p[k]), accumulated in order as a Float32Array does.
    cdf = np.empty((batch, events - 1), dtype=np.float32)
    probs32 = probs.astype(np.float32, copy=False)
    cdf[:, 0] = probs32[:, 0]
    for e in range(1, events - 1):
        cdf[:, e] = (cdf[:, e - 1].astype(np.float64) + probs32[:, e].astype(np.float64)).astype(
            np.float32
        )
    cdf64 = cdf.astype(np.float64)
    if seed is None:
        draws = _unseeded.random((batch, num_samples))
    else:
        draws = np.broadcast_to(Alea(seed).take(num_samples), (batch, num_samples))
    for b in range(batch):
        row = cdf64[b]
        if np.all(row[1:] >= row[:-1]):
            # The first event whose cdf is above the draw; the last event when there is none.
            out[b] = np.searchsorted(row, draws[b], side="right")
        else:  # negative or NaN "probabilities": scan as the kernel does
            above = draws[b][:, None] < row[None, :]
            out[b] = np.where(above.any(axis=1), above.argmax(axis=1), events - 1)
    return out
