"""JavaScript's number conversions: ``Number(v)`` (``js_to_number``) and a typed array's store
for each dtype (``js_store``), as ``tensor_util``'s module doc describes.

Layer: the bottom (NumPy, ``dtypes`` and ``errors`` only): the tensor's ``TensorBuffer`` and
``tensor_util``'s conversions both store values with these.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

from .dtypes import BOOL, COMPLEX64, FLOAT32, INT32
from .errors import ArgumentTypeError, DTypeError

__all__ = ["js_store", "js_to_number"]

_JS_WS = " \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_DECIMAL = re.compile(r"[+-]?(?:Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\Z")
_PREFIXED = re.compile(r"0(?:[xX][0-9a-fA-F]+|[oO][0-7]+|[bB][01]+)\Z")


def js_to_number(v: Any) -> float:
    """JavaScript's ``Number(v)`` for the values a TensorLike can hold."""
    if isinstance(v, (bool, np.bool_)):
        return 1.0 if v else 0.0
    if isinstance(v, (int, np.integer)):
        try:
            return float(v)
        except OverflowError:
            return math.inf if v > 0 else -math.inf
    if isinstance(v, (float, np.floating)):
        return float(v)
    if isinstance(v, bytes):
        v = v.decode("utf-8", errors="replace")
    if isinstance(v, str):
        s = v.strip(_JS_WS)
        if not s:
            return 0.0
        if _DECIMAL.match(s):
            return float(s.replace("Infinity", "inf"))
        if _PREFIXED.match(s):
            return float(int(s, 0))
        return math.nan
    if v is None:
        return math.nan
    raise ArgumentTypeError(
        "values passed to tensor(values) must be a number/boolean/string or an array of "
        f"numbers/booleans/strings, or a TypedArray, but found a {type(v).__name__} among them"
    )


def js_store(values: Any, dtype: str, xp: Any = np, bool_mode: str = "round") -> Any:
    """Numbers (a float64 array) as JS stores them for ``dtype``; see ``tensor_util``'s module doc.

    ``bool_mode`` is ``'round'`` (``toTypedArray``: ``Math.round(v) !== 0``) or ``'uint8'``
    (a ``Uint8Array`` store, as ``fill``/``range``/random ops do)."""
    values = xp.asarray(values, dtype=xp.float64)
    if dtype == FLOAT32:
        with np.errstate(over="ignore"):
            return values.astype(xp.float32)
    if dtype == INT32:
        with np.errstate(invalid="ignore"):
            t = xp.where(xp.isfinite(values), xp.trunc(values), 0.0)
            t = xp.fmod(t, 4294967296.0)
            t = xp.where(t >= 2147483648.0, t - 4294967296.0, t)
            t = xp.where(t < -2147483648.0, t + 4294967296.0, t)
        return t.astype(xp.int32)
    if dtype == BOOL:
        with np.errstate(invalid="ignore"):
            if bool_mode == "uint8":
                t = xp.where(xp.isfinite(values), xp.trunc(values), 0.0)
                return xp.fmod(t, 256.0) != 0
            r = xp.floor(values)
            r = xp.where(values - r >= 0.5, r + 1, r)
            return r != 0  # NaN stays NaN, and NaN !== 0
    if dtype == COMPLEX64:
        return values.astype(xp.complex64)
    raise DTypeError(f"Unknown data type {dtype}")
