"""``Tensor.to_string`` / ``Tensor.print``: TF.js's text layout, character for character.

TF.js (tensor_format) lays values out like this:

- rank 0: the value as JS's ``Number.prototype.toString`` writes it (all digits of the
  float32 value, e.g. ``0.10000000149011612``), strings unquoted, bools ``true``/``false``;
- rank >= 1: each number rounded to 7 decimals and written without trailing zeros
  (``parseFloat(v.toFixed(7))``), strings in single quotes, complex as ``re + imj``;
- rank >= 2: every column padded on the right to its widest value (over all rows);
- an axis longer than 20 shows its first 3 and last 3 entries around ``...``;
- ``verbose`` adds ``dtype``, ``rank``, ``shape`` and ``values:`` header lines.

>>> print(tensor_to_string(np.array([[1, 2.5], [10, 3]], np.float32), (2, 2), 'float32', False))
Tensor
    [[1 , 2.5],
     [10, 3  ]]
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import numpy as np

from .errors import ArgumentTypeError

__all__ = ["js_number_to_string", "js_to_fixed_7", "tensor_to_string"]

#: More entries than this along an axis are elided.
_LIMIT = 20
#: Entries kept on each side of an elision.
_EDGE = 3
#: Decimals kept by ``toFixed``.
_DECIMALS = 7
_QUANTUM = Decimal(1).scaleb(-_DECIMALS)


def js_number_to_string(x: float) -> str:
    """JavaScript's ``Number.prototype.toString()`` for a double.

    >>> [js_number_to_string(v) for v in (1.0, -0.0, 1e21, 1.5e-7, 0.000001, 123.25)]
    ['1', '0', '1e+21', '1.5e-7', '0.000001', '123.25']
    """
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    r = repr(float(x))
    if "e" not in r:
        # Python writes 1e-4 <= |x| < 1e16 in positional form, as JS does; JS drops ".0".
        return r[:-2] if r.endswith(".0") else r
    sign = "-" if r[0] == "-" else ""
    mantissa, exp_text = r.lstrip("-").split("e")
    int_part, _, frac_part = mantissa.partition(".")
    digits = (int_part + frac_part).lstrip("0").rstrip("0") or "0"
    # The decimal point sits after ``n`` digits (ECMAScript's Number::toString notation).
    n = len(int_part) + int(exp_text)
    k = len(digits)
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        exp = ("+" if e >= 0 else "-") + str(abs(e))
        body = (digits if k == 1 else digits[0] + "." + digits[1:]) + "e" + exp
    return sign + body


def js_to_fixed_7(x: float) -> str:
    """``parseFloat(x.toFixed(7)).toString()``: rounded half away from zero on the exact
    binary value, then written without trailing zeros.

    >>> [js_to_fixed_7(v) for v in (0.1, 1e-8, -1e-8, 0.00390625, 12345678.9, 1e21)]
    ['0.1', '0', '0', '0.0039063', '12345678.9', '1e+21']
    """
    if math.isnan(x) or math.isinf(x):
        return js_number_to_string(x)
    if abs(x) >= 1e21:
        return js_number_to_string(x)
    scaled = abs(x) * 256.0
    if scaled == int(scaled) and int(scaled) % 2 == 1:
        # An exact tie at the 8th decimal: toFixed takes the larger magnitude, while
        # Python's formatting would round to even.
        d = Decimal(abs(x)).quantize(_QUANTUM, rounding=ROUND_HALF_UP)
        rounded = float(d) if x > 0 else -float(d)
    else:
        rounded = float(f"{x:.{_DECIMALS}f}")
    return js_number_to_string(rounded)


def _js_len(s: str) -> int:
    """A JS string's ``length`` (UTF-16 code units)."""
    return len(s) if s.isascii() else len(s.encode("utf-16-le")) // 2


def _right_pad(s: str, size: int) -> str:
    n = _js_len(s)
    return s if size <= n else s + " " * (size - n)


def _element_strings(flat: np.ndarray, dtype: str) -> list[str]:
    """Every element written as TF.js writes an entry of a rank >= 1 tensor (unpadded)."""
    if flat.size == 0:
        return []
    if dtype == "string":
        return [f"'{s}'" for s in flat.tolist()]
    if dtype == "bool":
        return ["true" if v else "false" for v in flat.tolist()]
    if dtype == "int32":
        return [str(v) for v in flat.tolist()]
    if dtype == "complex64":
        re = _element_strings(np.ascontiguousarray(flat.real, dtype=np.float32), "float32")
        im = _element_strings(np.ascontiguousarray(flat.imag, dtype=np.float32), "float32")
        return [f"{a} + {b}j" for a, b in zip(re, im, strict=True)]
    # float32: format each distinct value once.
    uniques, inverse = np.unique(flat, return_inverse=True)
    texts = _fixed_7_texts(uniques.astype(np.float64))
    return [texts[i] for i in inverse.reshape(-1).tolist()]


def _fixed_7_texts(values: np.ndarray) -> list[str]:
    """``js_to_fixed_7`` of each value, the common values written by a shortcut.

    For a finite ``|x| < 1e8`` that is not an exact tie at the 8th decimal and does not round
    to an exponent form (``1e-7``), ``x.toFixed(7)`` with its trailing zeros dropped is the
    answer: the rounded decimal has at most 15 significant digits, so it is the shortest
    string that reads back as its double, which is what ``toString`` writes. The others (rare)
    take ``js_to_fixed_7``. A 1000x1000 tensor prints in a fraction of a second instead of
    seconds.
    """
    magnitude = np.abs(values)
    with np.errstate(invalid="ignore"):
        scaled = magnitude * 256.0
        tie = (scaled == np.floor(scaled)) & (np.fmod(scaled, 2.0) == 1.0)
        fast = (magnitude < 1e8) & ((magnitude >= 1e-6) | (magnitude == 0)) & ~tie
    texts = [f"{x:.7f}".rstrip("0").rstrip(".") for x in values.tolist()]
    for i in np.flatnonzero(~fast).tolist():
        texts[i] = js_to_fixed_7(float(values[i]))
    for i in np.flatnonzero(fast & np.signbit(values) & (magnitude < 5e-8)).tolist():
        texts[i] = "0"  # "-0.0000000": -0, which JavaScript writes as "0"
    return texts


def _scalar_string(value: Any, dtype: str) -> str:
    if dtype == "complex64":
        return _element_strings(np.asarray([value], dtype=np.complex64), dtype)[0]
    if dtype == "bool":
        return "true" if value else "false"
    if dtype == "string":
        return str(value)
    if dtype == "int32":
        return str(int(value))
    return js_number_to_string(float(value))


def _strides(shape: tuple[int, ...]) -> list[int]:
    strides: list[int] = []
    acc = 1
    for d in reversed(shape[1:]):
        acc *= d
        strides.append(acc)
    return strides[::-1]


def _sub_tensor_lines(
    strs: list[str],
    offset: int,
    shape: tuple[int, ...],
    strides: list[int],
    pads: list[int],
    is_last: bool,
) -> list[str]:
    """The lines of the block of ``shape`` whose first element is ``strs[offset]``."""
    size = shape[0]
    rank = len(shape)

    def entry(i: int) -> str:
        return _right_pad(strs[offset + i], pads[i] if i < len(pads) else 0)

    if rank == 1:
        if size > _LIMIT:
            first = ", ".join(entry(i) for i in range(_EDGE))
            last = ", ".join(entry(i) for i in range(size - _EDGE, size))
            return [f"[{first}, ..., {last}]"]
        return ["[" + ", ".join(entry(i) for i in range(size)) + "]"]

    sub_shape = shape[1:]
    sub_strides = strides[1:]
    stride = strides[0]
    lines: list[str] = []
    if size > _LIMIT:
        shown = [*range(_EDGE), None, *range(size - _EDGE, size)]
    else:
        shown = list(range(size))
    for i in shown:
        if i is None:
            lines.append("...")
            continue
        lines.extend(
            _sub_tensor_lines(
                strs, offset + i * stride, sub_shape, sub_strides, pads, i == size - 1
            )
        )
    sep = "," if rank == 2 else ""
    if lines:
        lines[0] = "[" + lines[0] + sep
    else:
        lines.append("[")
    for i in range(1, len(lines) - 1):
        lines[i] = " " + lines[i] + sep
    new_line_sep = ",\n" + "\n" * (rank - 2)
    lines[-1] = " " + lines[-1] + "]" + ("" if is_last else new_line_sep)
    return lines


def tensor_to_string(values: Any, shape: Any, dtype: str, verbose: bool = False) -> str:
    """TF.js's ``tensor.toString(verbose)`` for ``values`` (an array of ``shape`` in the
    storage dtype of ``dtype``).

    >>> print(tensor_to_string(np.array(0.1, np.float32), (), 'float32', True))
    Tensor
      dtype: float32
      rank: 0
      shape: []
      values:
        0.10000000149011612
    """
    shape = tuple(int(d) for d in shape)
    flat = np.asarray(values).reshape(-1)
    rank = len(shape)
    if rank == 0:
        value_lines = [_scalar_string(flat[0], dtype)]
    else:
        if rank == 1 and shape[0] > _LIMIT:
            # Only the shown entries are needed (rank-1 entries are never padded).
            picked = np.concatenate([flat[:_EDGE], flat[-_EDGE:]])
            shown = _element_strings(picked, dtype)
            strs = shown[:_EDGE] + [""] * (shape[0] - 2 * _EDGE) + shown[_EDGE:]
        else:
            strs = _element_strings(flat, dtype)
        pads: list[int] = []
        if rank > 1 and shape[-1] > 0:
            lengths = np.fromiter((_js_len(s) for s in strs), dtype=np.int64, count=len(strs))
            if lengths.size:
                pads = lengths.reshape(-1, shape[-1]).max(axis=0).tolist()
        value_lines = _sub_tensor_lines(strs, 0, shape, _strides(shape), pads, True)
    if verbose is not None and not isinstance(verbose, (bool, int, np.bool_, np.integer)):
        raise ArgumentTypeError(
            f"Argument 'verbose' passed to 'to_string' must be a boolean, but got "
            f"{type(verbose).__name__}"
        )
    lines = ["Tensor"]
    if verbose:
        lines.append(f"  dtype: {dtype}")
        lines.append(f"  rank: {rank}")
        lines.append(f"  shape: [{','.join(str(d) for d in shape)}]")
        lines.append("  values:")
    lines.append("\n".join("    " + line for line in value_lines))
    return "\n".join(lines)
