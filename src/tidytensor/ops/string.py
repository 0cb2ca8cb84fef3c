"""String ops, the ``tf.string`` namespace (TF.js's ``ops/string/``).

As in TF.js, ``string_split``, ``string_n_grams`` and ``string_to_hash_bucket_fast`` work on
the UTF-8 bytes of each string (an empty delimiter splits into single bytes; each byte of a
multi-byte delimiter is a delimiter), and ``static_regex_replace`` applies a JavaScript
regular expression. Ops that TF.js answers with an object return a
:class:`~tidytensor.ops.sparse.Record` read by attribute (``result.n_grams``).
"""

from __future__ import annotations

import math
from typing import Any

from .. import kernel_names as k
from ..dtypes import INT32, STRING
from ..errors import DTypeError, InvalidArgumentError
from ..tensor import Tensor
from ._op import (
    MAX_DIM,
    bool_arg,
    convert_to_tensor,
    describe,
    float_arg,
    int_arg,
    int_list_arg,
    op,
    run_kernel,
    str_arg,
)
from .sparse import Record, js_shape

__all__ = [
    "static_regex_replace",
    "string_n_grams",
    "string_split",
    "string_to_hash_bucket_fast",
]


class StringNGramsResult(Record):
    """``string_n_grams``'s result: ``n_grams`` (string) and ``n_grams_splits`` (int32)."""

    __slots__ = ()


class StringSplitResult(Record):
    """``string_split``'s result, a sparse tensor: ``indices`` (``[n, 2]`` int32),
    ``values`` (string) and ``shape`` (``[batch, longest]`` int32)."""

    __slots__ = ()

    # The field shadows dict.values(); the engine walks dicts with dict.values(d).
    values = property(lambda self: self["values"])  # type: ignore[assignment]


@op(name="stringNGrams")
def string_n_grams(
    data: Any,
    data_splits: Any,
    separator: str,
    n_gram_widths: Any,
    left_pad: str,
    right_pad: str,
    pad_width: int,
    preserve_short_sequences: bool,
) -> StringNGramsResult:
    """The n-grams of each row of a ragged string tensor (``data`` split by ``data_splits``,
    an int32 tensor), one width per ``n_gram_widths``, joined with ``separator``. Rows are
    padded with ``pad_width`` (``-1``: ``width - 1``) copies of ``left_pad``/``right_pad``;
    ``preserve_short_sequences`` makes one n-gram of a row too short for any.

    >>> r = tf.string.string_n_grams(['a', 'b', 'c', 'd', 'e', 'f'],
    ...                              tf.tensor1d([0, 4, 6], 'int32'), '|', [2], '', '', 0, False)
    >>> r.n_grams.array_sync(), r.n_grams_splits.array_sync()
    (['a|b', 'b|c', 'c|d', 'e|f'], [0, 3, 4])
    """
    x = convert_to_tensor(data, "data", "stringNGrams", STRING)
    if x.dtype != STRING:
        raise DTypeError("Data must be of datatype string")
    if len(x._shape) != 1:
        raise InvalidArgumentError(f"Data must be a vector, saw: {js_shape(x._shape)}")
    splits = convert_to_tensor(data_splits, "dataSplits", "stringNGrams")
    if splits.dtype != INT32:
        raise DTypeError("Data splits must be of datatype int32")
    name = "stringNGrams"
    widths = int_list_arg(n_gram_widths, name, "nGramWidths", scalar_ok=True)
    # Any negative padWidth means ``width - 1`` in TF.js (not just -1).
    pad_width = max(int_arg(pad_width, name, "padWidth", minimum=-MAX_DIM), -1)
    attrs = {
        "separator": str_arg(separator, name, "separator"),
        "n_gram_widths": widths,
        "left_pad": str_arg(left_pad, name, "leftPad"),
        "right_pad": str_arg(right_pad, name, "rightPad"),
        "pad_width": pad_width,
        "preserve_short_sequences": bool_arg(
            preserve_short_sequences, name, "preserveShortSequences"
        ),
    }
    out = run_kernel(k.STRING_N_GRAMS, (x, splits), attrs)
    return StringNGramsResult(n_grams=out[0], n_grams_splits=out[1])


@op(name="stringSplit")
def string_split(input: Any, delimiter: Any, skip_empty: bool = True) -> StringSplitResult:  # noqa: A002
    """Splits each string of a 1-D string tensor at any byte of ``delimiter`` (a scalar
    string; empty: into single bytes), as a sparse tensor: ``indices``, ``values``,
    ``shape``. ``skip_empty`` drops empty tokens.

    >>> r = tf.string.string_split(['hello world', 'a b c'], ' ')
    >>> r.indices.array_sync(), r['values'].array_sync(), r.shape.array_sync()
    ([[0, 0], [0, 1], [1, 0], [1, 1], [1, 2]], ['hello', 'world', 'a', 'b', 'c'], [2, 3])
    """
    x = convert_to_tensor(input, "input", "stringSplit", STRING)
    delim = convert_to_tensor(delimiter, "delimiter", "stringSplit", STRING)
    if x.rank != 1:
        raise InvalidArgumentError(
            f"Input should be Tensor1D but received shape {js_shape(x._shape)}"
        )
    if delim.rank != 0:
        raise InvalidArgumentError(
            f"Delimiter should be a scalar but received shape {js_shape(delim._shape)}"
        )
    # undefined takes the default (true), as in TF.js
    skip_empty = True if skip_empty is None else bool_arg(skip_empty, "stringSplit", "skipEmpty")
    out = run_kernel(k.STRING_SPLIT, (x, delim), {"skip_empty": skip_empty})
    return StringSplitResult(indices=out[0], values=out[1], shape=out[2])


@op(name="stringToHashBucketFast")
def string_to_hash_bucket_fast(input: Any, num_buckets: int) -> Tensor:  # noqa: A002
    """Each string's bucket, ``fingerprint64(utf8 bytes) % num_buckets`` (int32): the same
    bucket ids as TF.js (and TensorFlow's ``StringToHashBucketFast``).

    >>> tf.string.string_to_hash_bucket_fast(['Hello', 'TensorFlow', '2.x'], 3).array_sync()
    [0, 2, 2]
    """
    x = convert_to_tensor(input, "input", "stringToHashBucketFast", STRING)
    buckets = float_arg(num_buckets, "stringToHashBucketFast", "numBuckets")
    if buckets <= 0:
        raise InvalidArgumentError("Number of buckets must be at least 1")
    if not math.isfinite(buckets):
        raise InvalidArgumentError(
            f"Number of buckets must be a finite number, but got {describe(num_buckets)}"
        )
    return run_kernel(k.STRING_TO_HASH_BUCKET_FAST, (x,), {"num_buckets": num_buckets})


@op(name="staticRegexReplace")
def static_regex_replace(
    input: Any,  # noqa: A002 - TF.js name
    pattern: str,
    rewrite: str,
    replace_global: bool = True,
) -> Tensor:
    """Replaces the matches of a JavaScript regular expression ``pattern`` in every string
    with ``rewrite`` (JavaScript's replacement syntax: ``$&``, ``$1``, ``$<name>``, ``$$``);
    only the first match of each string unless ``replace_global``.

    >>> tf.string.static_regex_replace(['This     will  have normal    whitespace'],
    ...                                ' +', ' ').array_sync()
    ['This will have normal whitespace']
    """
    x = convert_to_tensor(input, "input", "staticRegexReplace", STRING)
    name = "staticRegexReplace"
    attrs = {
        "pattern": str_arg(pattern, name, "pattern"),
        "rewrite": str_arg(rewrite, name, "rewrite"),
        "replace_global": replace_global is None or bool_arg(replace_global, name, "replaceGlobal"),
    }
    return run_kernel(k.STATIC_REGEX_REPLACE, (x,), attrs)
