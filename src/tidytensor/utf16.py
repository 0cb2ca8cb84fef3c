"""Python strings seen as JavaScript sees them: sequences of UTF-16 code units.

JavaScript's (non-unicode) regular expressions match code units, so ``.`` takes half of an
emoji, and TF.js's TextEncoder stores a string as UTF-8, joining a high+low surrogate pair
into one character and writing each lone surrogate as U+FFFD.
"""

from __future__ import annotations


def to_code_units(s: str) -> str:
    """``s`` with each character beyond U+FFFF split into its two surrogates."""
    if all(ord(c) < 0x10000 for c in s):
        return s
    out = []
    for c in s:
        v = ord(c) - 0x10000
        out.append(c if v < 0 else chr(0xD800 + (v >> 10)) + chr(0xDC00 + (v & 0x3FF)))
    return "".join(out)


def from_code_units(s: str) -> str:
    """``s`` as TextEncoder stores it: surrogate pairs joined, lone surrogates as U+FFFD."""
    if all(not 0xD800 <= ord(c) <= 0xDFFF for c in s):
        return s
    return s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
