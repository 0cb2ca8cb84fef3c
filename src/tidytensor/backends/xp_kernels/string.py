"""String kernels (TF.js's CPU ``StringNGrams``, ``StringSplit``,
``StringToHashBucketFast`` and ``StaticRegexReplace``).

TF.js's CPU backend keeps strings as UTF-8 bytes: splitting, n-grams and hashing work on
those bytes here too (tokens are decoded back with U+FFFD for a broken sequence, as
TF.js's ``TextDecoder`` does). ``StaticRegexReplace`` runs JavaScript's ``String.replace``
with a JavaScript ``RegExp``: the pattern is translated to Python's ``re`` (ASCII ``\\d \\w
\\b``, JavaScript's ``\\s``, ``.`` and ``$``; named groups) and the replacement follows
JavaScript's ``$`` rules. Known differences: JavaScript matches UTF-16 code units, Python
code points (only strings with characters beyond U+FFFF can differ), and Python refuses
variable-width look-behind.
"""

from __future__ import annotations

import re

import numpy as np

from ... import kernel_names as k
from ...errors import InvalidArgumentError
from ...utf16 import from_code_units, to_code_units

# ============================================================================ helpers


def _bytes_of(values):
    return [s.encode("utf-8") for s in np.asarray(values, dtype=object).reshape(-1).tolist()]


def _decode(b):
    return b.decode("utf-8", errors="replace")


def _string_array(strings, shape):
    out = np.empty(len(strings), dtype=object)
    for i, s in enumerate(strings):
        out[i] = s
    return out.reshape(shape)


def _js(values):
    return ",".join(str(v) for v in values)


# ============================================================================ StringNGrams
def string_n_grams(
    data,
    data_splits,
    *,
    xp,
    separator,
    n_gram_widths,
    left_pad,
    right_pad,
    pad_width,
    preserve_short_sequences,
):
    tokens = _bytes_of(data)
    splits = [int(v) for v in np.asarray(data_splits).reshape(-1).tolist()]
    sep, lpad, rpad = (s.encode("utf-8") for s in (separator, left_pad, right_pad))
    size = len(tokens)
    if splits:
        prev = splits[0]
        if prev != 0:
            raise InvalidArgumentError(f"First split value must be 0, got {prev}")
        for s in splits[1:]:
            if not prev <= s <= size:
                raise InvalidArgumentError(f"Invalid split value {s}, must be in [{prev}, {size}]")
            prev = s
        if prev != size:
            raise InvalidArgumentError(
                f"Last split value must be data size. Expected {size}, got {prev}"
            )
    for w in n_gram_widths:
        if w < 1:
            raise InvalidArgumentError(
                f"string_n_grams: every n_gram_width must be >= 1, but got {w} (TF.js builds "
                "malformed n-grams or fails)"
            )
    n_rows = len(splits) - 1
    out_splits = [0] * len(splits)
    if not splits and size:
        raise InvalidArgumentError(
            f"string_n_grams: data_splits is empty but data has {size} strings (TF.js returns "
            f"{size} n-grams left unset); pass splits [0, ..., {size}]"
        )
    if size == 0 or not splits:
        return [_string_array([], (0,)), np.zeros(data_splits.shape, dtype=np.int32)]

    def pad_of(width):
        return min(width - 1 if pad_width < 0 else pad_width, width - 1)

    def count(length, width):
        return max(0, length + 2 * pad_of(width) - width + 1)

    for i in range(1, n_rows + 1):
        length = splits[i] - splits[i - 1]
        n = sum(count(length, w) for w in n_gram_widths)
        if preserve_short_sequences and length > 0 and n == 0:
            n = 1
        out_splits[i] = out_splits[i - 1] + n

    grams = []

    def make(start, n_grams, width, pad):
        for g in range(n_grams):
            left = max(0, pad - g)
            right = max(0, pad - (n_grams - (g + 1)))
            n_tokens = width - (left + right)
            first = start + (0 if left > 0 else g - pad)
            parts = [lpad] * left + [tokens[first + t] for t in range(n_tokens)] + [rpad] * right
            grams.append(sep.join(parts))

    for i in range(n_rows):
        length = splits[i + 1] - splits[i]
        before = len(grams)
        for w in n_gram_widths:
            make(splits[i], count(length, w), w, pad_of(w))
        if preserve_short_sequences and len(grams) == before and length > 0:
            width = length + 2 * pad_width
            make(splits[i], 1, width, pad_of(width))
    strings = [_decode(g) for g in grams]
    return [
        _string_array(strings, (len(strings),)),
        np.asarray(out_splits, dtype=np.int32).reshape(data_splits.shape),
    ]


# ============================================================================ StringSplit
def _split_one(s, delim, skip_empty, out):
    if not s:
        return
    if len(delim) == 0:
        out.extend(s[i : i + 1] for i in range(len(s)))
        return
    if len(delim) == 1:
        for token in s.split(delim):
            if not skip_empty or token:
                out.append(token)
        return
    start = 0
    for i in range(len(s) + 1):
        if i == len(s) or s[i] in delim:
            token = s[start:i]
            if not skip_empty or token:
                out.append(token)
            start = i + 1


def string_split(input, delimiter, *, xp, skip_empty):  # noqa: A002 - TF.js name
    if input.ndim != 1:
        raise InvalidArgumentError(f"Input must be a vector, got shape: {_js(input.shape)}")
    if delimiter.ndim != 0:
        raise InvalidArgumentError(f"Delimiter must be a scalar, got shape: {_js(delimiter.shape)}")
    strings = _bytes_of(input)
    delim = str(delimiter.reshape(-1)[0]).encode("utf-8")
    tokens = []
    indices = []
    longest = 0
    for row, s in enumerate(strings):
        before = len(tokens)
        _split_one(s, delim, skip_empty, tokens)
        n = len(tokens) - before
        indices.extend((row, j) for j in range(n))
        longest = max(longest, n)
    values = [_decode(t) for t in tokens]
    return [
        np.asarray(indices, dtype=np.int32).reshape(len(values), 2),
        _string_array(values, (len(values),)),
        np.asarray([len(strings), longest], dtype=np.int32),
    ]


# ============================================================================ fingerprint64
_MASK = (1 << 64) - 1
_K0 = 0xC3A5C85C97CB3127
_K1 = 0xB492B66FBE98F273
_K2 = 0x9AE16A3B2F90404F
_KMUL = 0x9DDFEA08EB382D69


def _fetch(s, offset, n):
    return int.from_bytes(s[offset : offset + n], "little")


def _rot(v, shift):
    return v if shift == 0 else ((v >> shift) | (v << (64 - shift))) & _MASK


def _shift_mix(v):
    return v ^ (v >> 47)


def _hash16(u, v, mul=_KMUL):
    a = ((u ^ v) * mul) & _MASK
    a ^= a >> 47
    b = ((v ^ a) * mul) & _MASK
    b ^= b >> 47
    return (b * mul) & _MASK


def _weak32(w, x, y, z, a, b):
    a = (a + w) & _MASK
    b = _rot((b + a + z) & _MASK, 21)
    c = a
    a = (a + x + y) & _MASK
    b = (b + _rot(a, 44)) & _MASK
    return (a + z) & _MASK, (b + c) & _MASK


def _weak32_at(s, offset, a, b):
    return _weak32(
        _fetch(s, offset, 8),
        _fetch(s, offset + 8, 8),
        _fetch(s, offset + 16, 8),
        _fetch(s, offset + 24, 8),
        a,
        b,
    )


def _len0to16(s):
    n = len(s)
    if n >= 8:
        mul = (_K2 + n * 2) & _MASK
        a = (_fetch(s, 0, 8) + _K2) & _MASK
        b = _fetch(s, n - 8, 8)
        c = (_rot(b, 37) * mul + a) & _MASK
        d = ((_rot(a, 25) + b) * mul) & _MASK
        return _hash16(c, d, mul)
    if n >= 4:
        mul = (_K2 + n * 2) & _MASK
        a = _fetch(s, 0, 4)
        return _hash16(((a << 3) + n) & _MASK, _fetch(s, n - 4, 4), mul)
    if n > 0:
        y = s[0] + (s[n >> 1] << 8)
        z = n + (s[n - 1] << 2)
        return (_shift_mix(((_K2 * y) ^ (_K0 * z)) & _MASK) * _K2) & _MASK
    return _K2


def _len17to32(s):
    n = len(s)
    mul = (_K2 + n * 2) & _MASK
    a = (_fetch(s, 0, 8) * _K1) & _MASK
    b = _fetch(s, 8, 8)
    c = (_fetch(s, n - 8, 8) * mul) & _MASK
    d = (_fetch(s, n - 16, 8) * _K2) & _MASK
    return _hash16(
        (_rot((a + b) & _MASK, 43) + _rot(c, 30) + d) & _MASK,
        (a + _rot((b + _K2) & _MASK, 18) + c) & _MASK,
        mul,
    )


def _len33to64(s):
    n = len(s)
    mul = (_K2 + n * 2) & _MASK
    a = (_fetch(s, 0, 8) * _K2) & _MASK
    b = _fetch(s, 8, 8)
    c = (_fetch(s, n - 8, 8) * mul) & _MASK
    d = (_fetch(s, n - 16, 8) * _K2) & _MASK
    y = (_rot((a + b) & _MASK, 43) + _rot(c, 30) + d) & _MASK
    z = _hash16(y, (a + _rot((b + _K2) & _MASK, 18) + c) & _MASK, mul)
    e = (_fetch(s, 16, 8) * mul) & _MASK
    f = _fetch(s, 24, 8)
    g = ((y + _fetch(s, n - 32, 8)) * mul) & _MASK
    h = ((z + _fetch(s, n - 24, 8)) * mul) & _MASK
    return _hash16(
        (_rot((e + f) & _MASK, 43) + _rot(g, 30) + h) & _MASK,
        (e + _rot((f + a) & _MASK, 18) + g) & _MASK,
        mul,
    )


def fingerprint64(s: bytes) -> int:
    """FarmHash's ``Fingerprint64`` (TF.js's ``util.fingerPrint64``) of ``s``, unsigned."""
    n = len(s)
    if n <= 16:
        return _len0to16(s)
    if n <= 32:
        return _len17to32(s)
    if n <= 64:
        return _len33to64(s)
    seed = 81
    x = seed
    y = (seed * _K1 + 113) & _MASK
    z = (_shift_mix((y * _K2 + 113) & _MASK) * _K2) & _MASK
    v = (0, 0)
    w = (0, 0)
    x = (x * _K2 + _fetch(s, 0, 8)) & _MASK
    end = ((n - 1) >> 6) * 64
    last64 = end + ((n - 1) & 63) - 63
    offset = 0
    while True:
        x = (_rot((x + y + v[0] + _fetch(s, offset + 8, 8)) & _MASK, 37) * _K1) & _MASK
        y = (_rot((y + v[1] + _fetch(s, offset + 48, 8)) & _MASK, 42) * _K1) & _MASK
        x ^= w[1]
        y = (y + v[0] + _fetch(s, offset + 40, 8)) & _MASK
        z = (_rot((z + w[0]) & _MASK, 33) * _K1) & _MASK
        v = _weak32_at(s, offset, (v[1] * _K1) & _MASK, (x + w[0]) & _MASK)
        w = _weak32_at(s, offset + 32, (z + w[1]) & _MASK, (y + _fetch(s, offset + 16, 8)) & _MASK)
        z, x = x, z
        offset += 64
        if offset == end:
            break
    mul = (_K1 + ((z & 0xFF) << 1)) & _MASK
    offset = last64
    w0 = (w[0] + ((n - 1) & 63)) & _MASK
    v0 = (v[0] + w0) & _MASK
    w0 = (w0 + v0) & _MASK
    v = (v0, v[1])
    w = (w0, w[1])
    x = (_rot((x + y + v[0] + _fetch(s, offset + 8, 8)) & _MASK, 37) * mul) & _MASK
    y = (_rot((y + v[1] + _fetch(s, offset + 48, 8)) & _MASK, 42) * mul) & _MASK
    x ^= (w[1] * 9) & _MASK
    y = (y + ((v[0] * 9) & _MASK) + _fetch(s, offset + 40, 8)) & _MASK
    z = (_rot((z + w[0]) & _MASK, 33) * mul) & _MASK
    v = _weak32_at(s, offset, (v[1] * mul) & _MASK, (x + w[0]) & _MASK)
    w = _weak32_at(s, offset + 32, (z + w[1]) & _MASK, (y + _fetch(s, offset + 16, 8)) & _MASK)
    z, x = x, z
    return _hash16(
        (_hash16(v[0], w[0], mul) + ((_shift_mix(y) * _K0) & _MASK) + z) & _MASK,
        (_hash16(v[1], w[1], mul) + x) & _MASK,
        mul,
    )


def string_to_hash_bucket_fast(x, *, xp, num_buckets):
    if x.dtype != object:
        raise InvalidArgumentError("Input must be of datatype string")
    if num_buckets <= 0:
        raise InvalidArgumentError("Number of buckets must be at least 1")
    buckets = int(num_buckets)  # Long.fromNumber truncates
    if buckets == 0:
        raise InvalidArgumentError("division by zero")  # Long.modulo by 0
    out = []
    for s in _bytes_of(x):
        low = (fingerprint64(s) % buckets) & 0xFFFFFFFF  # getLowBitsUnsigned
        out.append(low - 0x100000000 if low >= 0x80000000 else low)  # into an Int32Array
    return np.asarray(out, dtype=np.int32).reshape(x.shape)


# ============================================================================ StaticRegexReplace
#: JavaScript's ``\s``: ASCII whitespace plus the Unicode space separators and BOM.
_JS_SPACE = (
    "\\t\\n\\x0b\\x0c\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
)
_KNOWN_ESCAPES = set("dDwWbBfnrtv0123456789")


class _RegexError(Exception):
    pass


def _translate(pattern):
    """A JavaScript (non-unicode) regular expression as a Python ``re`` pattern (compiled
    with ``re.ASCII``), and whether it has named groups."""
    out = []
    i, n = 0, len(pattern)
    in_class = False
    named = False
    while i < n:
        c = pattern[i]
        if c == "\\":
            if i + 1 >= n:
                raise _RegexError("\\ at end of pattern")
            e = pattern[i + 1]
            i += 2
            if e == "s":
                out.append(_JS_SPACE if in_class else f"[{_JS_SPACE}]")
            elif e == "S":
                out.append("\\S" if in_class else f"[^{_JS_SPACE}]")
            elif e == "k" and not in_class and i < n and pattern[i] == "<":
                end = pattern.find(">", i)
                if end < 0:
                    raise _RegexError("Invalid named reference")
                out.append(f"(?P={pattern[i + 1 : end]})")
                i = end + 1
            elif e == "c" and i < n and pattern[i].isascii() and pattern[i].isalpha():
                out.append(re.escape(chr(ord(pattern[i]) % 32)))
                i += 1
            elif e == "x" and re.match(r"[0-9a-fA-F]{2}", pattern[i : i + 2]):
                out.append("\\x" + pattern[i : i + 2])
                i += 2
            elif e == "u" and re.match(r"[0-9a-fA-F]{4}", pattern[i : i + 4]):
                out.append("\\u" + pattern[i : i + 4])
                i += 4
            elif e == "b" and in_class:
                out.append("\\x08")
            elif e in _KNOWN_ESCAPES and not (in_class and e == "B"):
                out.append("\\" + e)
            else:
                out.append(re.escape(e))  # JavaScript's identity escape
            continue
        if in_class:
            if c == "]":
                in_class = False
            elif c in "[&~|":
                c = "\\" + c  # literal in a JS class; Python may read them as set operations
            out.append(c)
            i += 1
            continue
        if c == "[":
            if pattern.startswith("[^]", i):
                out.append("(?s:.)")  # JS: any character
                i += 3
            elif pattern.startswith("[]", i):
                out.append("(?!)")  # JS: no character
                i += 2
            elif pattern.startswith("[^", i):
                out.append("[^")
                in_class = True
                i += 2
            else:
                out.append("[")
                in_class = True
                i += 1
            continue
        if c == ".":
            out.append("[^\\n\\r\\u2028\\u2029]")
        elif c == "$":
            out.append("\\Z")
        elif c == "(" and pattern.startswith("(?", i):
            rest = pattern[i + 2 : i + 3]
            if pattern.startswith("(?<", i) and pattern[i + 3 : i + 4] not in ("=", "!"):
                named = True
                out.append("(?P<")
                i += 3
                continue
            if rest not in (":", "=", "!", "<"):
                raise _RegexError("Invalid group")
            out.append("(?")
            i += 2
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out), named


def _substitute(rewrite, named):
    """A function computing JavaScript's ``GetSubstitution`` of ``rewrite`` for a match."""

    def replace(m):
        s = m.string
        groups = m.re.groups
        out = []
        i, n = 0, len(rewrite)
        while i < n:
            c = rewrite[i]
            if c != "$" or i + 1 >= n:
                out.append(c)
                i += 1
                continue
            e = rewrite[i + 1]
            if e == "$":
                out.append("$")
                i += 2
            elif e == "&":
                out.append(m.group(0))
                i += 2
            elif e == "`":
                out.append(s[: m.start()])
                i += 2
            elif e == "'":
                out.append(s[m.end() :])
                i += 2
            elif e.isdigit():
                two = rewrite[i + 1 : i + 3]
                if len(two) == 2 and two.isdigit() and 1 <= int(two) <= groups:
                    out.append(m.group(int(two)) or "")
                    i += 3
                elif 1 <= int(e) <= groups:
                    out.append(m.group(int(e)) or "")
                    i += 2
                else:
                    out.append("$")
                    i += 1
            elif e == "<" and named:
                end = rewrite.find(">", i + 2)
                if end < 0:
                    out.append("$<")
                    i += 2
                else:
                    name = rewrite[i + 2 : end]
                    value = m.groupdict().get(name)
                    out.append(value or "")
                    i = end + 1
            else:
                out.append("$")
                i += 1
        return "".join(out)

    return replace


def static_regex_replace(x, *, xp, pattern, rewrite, replace_global):
    strings = np.asarray(x, dtype=object).reshape(-1).tolist()
    if not strings:
        return np.empty(x.shape, dtype=object)  # TF.js makes no RegExp for no string
    flags = "g" if replace_global else ""
    try:
        translated, named = _translate(to_code_units(pattern))
        regex = re.compile(translated, re.ASCII)
    except (_RegexError, re.error) as exc:
        raise InvalidArgumentError(
            f"Invalid regular expression: /{pattern}/{flags}: {exc}"
        ) from None
    sub = _substitute(to_code_units(rewrite), named)
    count = 0 if replace_global else 1
    out = [from_code_units(regex.sub(sub, to_code_units(s), count=count)) for s in strings]
    return _string_array(out, x.shape)


KERNELS = {
    k.STRING_N_GRAMS: string_n_grams,
    k.STRING_SPLIT: string_split,
    k.STRING_TO_HASH_BUCKET_FAST: string_to_hash_bucket_fast,
    k.STATIC_REGEX_REPLACE: static_regex_replace,
}
