"""JavaScript's string forms of values, for messages and ``model.json`` text that must read as
TF.js's: ``String(number)`` (:func:`js_number`), ``String(array)`` (:func:`js_array_str`) and
``JSON.stringify`` (:func:`js_json`). Shared by the Layers API and ``tf.io``.

>>> js_number(1.0), js_number(1e-07), js_array_str([2, None, 3]), js_json({'a': [1.0, None]})
('1', '1e-7', '2,,3', '{"a":[1,null]}')
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["js_array_str", "js_json", "js_number"]


def js_number(x: float | int) -> str:
    """A number as JavaScript prints it (``1.0`` → ``'1'``, ``1e-07`` → ``'1e-7'``)."""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        return str(x)
    x = float(x)
    if x != x:
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    if x < 0:
        return "-" + js_number(-x)
    mantissa, _, exp = repr(x).partition("e")
    int_part, _, frac_part = mantissa.partition(".")
    digits = (int_part + frac_part).lstrip("0")
    exp10 = (int(exp) if exp else 0) - len(frac_part)
    stripped = digits.rstrip("0")
    exp10 += len(digits) - len(stripped)
    digits = stripped
    k = len(digits)
    n = k + exp10
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    e = n - 1
    sign = "+" if e >= 0 else "-"
    head = digits if k == 1 else digits[0] + "." + digits[1:]
    return f"{head}e{sign}{abs(e)}"


def js_json(value: Any) -> str:
    """``JSON.stringify(value)``: no spaces, ``None`` → ``null``, numbers as JavaScript
    prints them (``1.0`` → ``1``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
            return "null"
        return js_number(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict):
        return (
            "{"
            + ",".join(
                f"{json.dumps(str(k), ensure_ascii=False)}:{js_json(v)}" for k, v in value.items()
            )
            + "}"
        )
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(js_json(v) for v in value) + "]"
    try:
        return json.dumps(value)
    except (TypeError, ValueError):  # not JSON: a Python object (JS would print {} or a class)
        return repr(value)


def js_array_str(value: Any) -> str:
    """JavaScript's ``String(array)``: ``[2, None, 3]`` → ``'2,,3'`` (as TF.js's messages show)."""
    if isinstance(value, (list, tuple)):
        return ",".join(js_array_str(v) for v in value)
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return js_number(value)
    return str(value)
