"""String ops (tf.string: string_n_grams, string_split, string_to_hash_bucket_fast,
static_regex_replace) against TF.js goldens (hash buckets bit-exact with TF.js's
fingerprint64), plus result objects, JavaScript regex semantics, errors and properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tidytensor as tf
from golden_util import call_case, case_ids, check_case, load_cases
from tidytensor.backends.xp_kernels.string import fingerprint64

CASES = load_cases("string")


@pytest.mark.parametrize(("case", "expected"), CASES, ids=case_ids(CASES))
def test_golden(case, expected):
    check_case(case, expected)


EXACT = [(c, e) for c, e in CASES if e.get("dtype") == "int32"]


@pytest.mark.parametrize(("case", "expected"), EXACT, ids=case_ids(EXACT))
def test_hash_buckets_exact(case, expected):
    got = call_case(case)
    assert [int(v) for v in np.asarray(got.data_sync()).reshape(-1)] == expected["values"]


# ---------------------------------------------------------------------------- result objects
def test_split_result_fields():
    r = tf.string.string_split(["a b", "c"], " ")
    assert set(r) == {"indices", "values", "shape"}
    assert r.indices.array_sync() == [[0, 0], [0, 1], [1, 0]]
    assert r["values"].array_sync() == ["a", "b", "c"]
    assert r.shape.array_sync() == [2, 2]
    n = tf.memory().num_tensors
    kept = tf.tidy(lambda: tf.string.string_split(["x y z"], " "))
    assert tf.memory().num_tensors == n + 3
    tf.dispose(kept)
    assert tf.memory().num_tensors == n


def test_split_result_values_attribute():
    r = tf.string.string_split(["a b"], " ")
    assert isinstance(r.values, tf.Tensor)


def test_n_grams_result_and_keywords():
    r = tf.string.string_n_grams(
        data=["a", "b", "c"],
        data_splits=tf.tensor1d([0, 3], "int32"),
        separator=" ",
        n_gram_widths=[2],
        left_pad="<",
        right_pad=">",
        pad_width=1,
        preserve_short_sequences=False,
    )
    assert r.n_grams.array_sync() == ["< a", "a b", "b c", "c >"]
    assert r.n_grams_splits.array_sync() == [0, 4]
    assert "StringNGramsResult(n_grams=" in repr(r)
    out = tf.string.static_regex_replace(
        input=["aa"], pattern="a", rewrite="b", replace_global=False
    )
    assert out.array_sync() == ["ba"]
    assert tf.string.string_to_hash_bucket_fast(input=["a"], num_buckets=1).array_sync() == [0]
    assert tf.string.string_split(input=["a,,b"], delimiter=",", skip_empty=False)[
        "values"
    ].array_sync() == [
        "a",
        "",
        "b",
    ]


def test_namespace():
    assert set(tf.string.__all__) == {
        "static_regex_replace",
        "string_n_grams",
        "string_split",
        "string_to_hash_bucket_fast",
    }


# ---------------------------------------------------------------------------- errors
def test_n_grams_rejects_what_tfjs_mangles():
    data = ["a", "b"]
    splits = tf.tensor1d([0, 2], "int32")
    with pytest.raises(tf.InvalidArgumentError, match="every n_gram_width must be >= 1, but got 0"):
        tf.string.string_n_grams(data, splits, "|", [0], "", "", 0, False)
    with pytest.raises(
        tf.InvalidArgumentError, match="data_splits is empty but data has 2 strings"
    ):
        tf.string.string_n_grams(data, tf.tensor1d([], "int32"), "|", [2], "", "", 0, False)


def test_hash_fractional_bucket_count_below_one():
    # TF.js's check passes 0.5 and Long.fromNumber(0.5) is 0: Long's modulo throws.
    with pytest.raises(tf.InvalidArgumentError, match="division by zero"):
        tf.string.string_to_hash_bucket_fast(["a"], 0.5)


def test_regex_errors():
    with pytest.raises(tf.InvalidArgumentError, match="Invalid regular expression: /\\(/g: "):
        tf.string.static_regex_replace(["x"], "(", "")
    # Python's re refuses variable-width look-behind (JavaScript allows it).
    with pytest.raises(
        tf.InvalidArgumentError, match="Invalid regular expression: /\\(\\?<=a\\+\\)b/g"
    ):
        tf.string.static_regex_replace(["aab"], "(?<=a+)b", "")


# ---------------------------------------------------------------------------- regex semantics
@pytest.mark.parametrize(
    ("text", "pattern", "rewrite", "want"),
    [
        ("aXbXc", "X", "-", "a-b-c"),
        ("2024-01-15", "(?<y>\\d+)-(?<m>\\d+)-(?<d>\\d+)", "$<d>.$<m>.$<y>", "15.01.2024"),
        ("abab", "(?<p>ab)\\k<p>", "[$<p>]", "[ab]"),
        ("abc", "b", "$<p>", "a$<p>c"),  # no named groups: "$<" is literal
        ("a.b", "\\.", "$$", "a$b"),
        ("a1b22", "\\d+", "<$&>", "a<1>b<22>"),
        ("tab\there", "\\t", " ", "tab here"),
        ("x[y]z", "[\\[\\]]", "", "xyz"),
        ("a&b|c~d", "[&|~]", "_", "a_b_c_d"),
        ("\u00e9t\u00e9", "\\W", "?", "?t?"),
        ("end\n", "\\n$", "", "end"),
        ("AbC", "[^A-Z]", "", "AC"),
        ("aaa", "a{2}", "b", "ba"),
        ("a\u2028b", ".", "x", "x\u2028x"),
        ("\\Z", "\\Z", "z", "\\z"),  # JS: \Z is an identity escape for "Z"
    ],
)
def test_javascript_regex_semantics(text, pattern, rewrite, want):
    assert tf.string.static_regex_replace([text], pattern, rewrite).array_sync() == [want]


# ---------------------------------------------------------------------------- properties
_ascii_words = st.text(alphabet="ab ,;", max_size=12)


@settings(max_examples=80, deadline=None)
@given(st.lists(_ascii_words, max_size=4), st.sampled_from([" ", ",", ",;", ""]), st.booleans())
def test_split_matches_python(strings, delimiter, skip_empty):
    r = tf.string.string_split(tf.tensor(strings, [len(strings)], "string"), delimiter, skip_empty)
    want = []
    for s in strings:
        if not s:
            want.append([])
            continue
        if delimiter == "":
            tokens = list(s)
        else:
            tokens = [""]
            for ch in s:
                if ch in delimiter:
                    tokens.append("")
                else:
                    tokens[-1] += ch
        want.append([t for t in tokens if t or not skip_empty])
    assert r["values"].array_sync() == [t for row in want for t in row]
    assert r.indices.numpy().tolist() == [
        [i, j] for i, row in enumerate(want) for j in range(len(row))
    ]
    assert r.shape.array_sync() == [len(strings), max([len(w) for w in want], default=0)]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from("abcde"), max_size=5), min_size=1, max_size=4),
    st.integers(1, 3),
)
def test_unpadded_n_grams_match_python(rows, width):
    data = [t for row in rows for t in row]
    splits = np.cumsum([0] + [len(r) for r in rows]).tolist()
    r = tf.string.string_n_grams(
        tf.tensor(data, [len(data)], "string"),
        tf.tensor1d(splits, "int32"),
        "-",
        [width],
        "",
        "",
        0,
        False,
    )
    grams = [["-".join(row[i : i + width]) for i in range(len(row) - width + 1)] for row in rows]
    assert r.n_grams.array_sync() == [g for row in grams for g in row]
    assert r.n_grams_splits.array_sync() == np.cumsum([0] + [len(g) for g in grams]).tolist()


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200), st.integers(1, 2**31 - 1))
def test_fingerprint64_is_64_bit_and_buckets_in_range(data, buckets):
    h = fingerprint64(data)
    assert 0 <= h < 2**64
    assert fingerprint64(bytes(data)) == h
    text = data.decode("latin-1")
    got = tf.string.string_to_hash_bucket_fast([text], buckets).array_sync()[0]
    assert got == fingerprint64(text.encode("utf-8")) % buckets
