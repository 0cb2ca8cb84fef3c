"""Tensor.to_string / print / repr against TF.js 4.22.0's tensor.toString(verbose), exactly."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tidytensor as tf
from golden_util import case_ids, decode_arg, load_cases
from tidytensor.printing import (
    _fixed_7_texts,
    js_number_to_string,
    js_to_fixed_7,
    tensor_to_string,
)

CASES = load_cases("printing")


@pytest.mark.parametrize(("case", "expected"), CASES, ids=case_ids(CASES))
def test_golden(case, expected):
    """The string must equal TF.js's byte for byte; printing creates no tensors."""
    assert case["op"] == "toString" and case["method"]
    tf.engine().start_scope()
    try:
        x, *rest = (decode_arg(a) for a in case["args"])
        before = tf.memory()
        result = x.to_string(*rest)
        after = tf.memory()
        assert isinstance(result, str)
        want = expected["value"]
        assert result == want, f"\n--- got ---\n{result}\n--- TF.js ---\n{want}"
        assert after.num_tensors == before.num_tensors
        assert after.num_data_buffers == before.num_data_buffers
    finally:
        tf.engine().end_scope()


def test_golden_cases_are_not_trivial():
    """Every case's expectation is a TF.js string, and many of them are multi-line."""
    assert len(CASES) > 100
    assert all(
        isinstance(e.get("value"), str) and e["value"].startswith("Tensor") for _, e in CASES
    )
    assert sum("\n" in e["value"].split("\n", 1)[1] for _, e in CASES) > 20


# Complex tensors cannot be built by the golden harness (TF.js's tf.tensor refuses complex64),
# so these strings were taken by hand from TF.js 4.22.0 (`tf.complex(re, im).toString()`).
COMPLEX = [
    ((), [1.0], [3.0], "Tensor\n    1 + 3j"),
    ((), [0.1], [-2.5], "Tensor\n    0.1 + -2.5j"),
    ((3,), [1, 2, 3], [4, 5, 6], "Tensor\n    [1 + 4j, 2 + 5j, 3 + 6j]"),
    (
        (2, 2),
        [1, 22, 333, 4],
        [0.5, 6, 7, 8],
        "Tensor\n    [[1 + 0.5j, 22 + 6j],\n     [333 + 7j, 4 + 8j ]]",
    ),
    (
        (22,),
        list(range(22)),
        [-v for v in range(22)],
        "Tensor\n    [0 + 0j, 1 + -1j, 2 + -2j, ..., 19 + -19j, 20 + -20j, 21 + -21j]",
    ),
]


@pytest.mark.parametrize(("shape", "re", "im", "want"), COMPLEX)
def test_complex(shape, re, im, want):
    values = (np.asarray(re, np.float32) + 1j * np.asarray(im, np.float32)).astype(np.complex64)
    assert tensor_to_string(values.reshape(shape), shape, "complex64", False) == want


def test_complex_verbose_header():
    values = np.asarray([1 + 2j], np.complex64)
    got = tensor_to_string(values, (1,), "complex64", True)
    assert got == "Tensor\n  dtype: complex64\n  rank: 1\n  shape: [1]\n  values:\n    [1 + 2j]"


@pytest.mark.parametrize(
    ("x", "want"),
    [
        (0.0, "0"),
        (-0.0, "0"),
        (1.0, "1"),
        (-1.5, "-1.5"),
        (123.0, "123"),
        (1e21, "1e+21"),
        (1.5e21, "1.5e+21"),
        (1e20, "100000000000000000000"),
        (1e16, "10000000000000000"),
        (1.2345e17, "123450000000000000"),
        (1e-6, "0.000001"),
        (1.25e-6, "0.00000125"),
        (1e-7, "1e-7"),
        (-1.5e-7, "-1.5e-7"),
        (0.1, "0.1"),
        (float(np.float32(0.1)), "0.10000000149011612"),
        (float("nan"), "NaN"),
        (float("inf"), "Infinity"),
        (float("-inf"), "-Infinity"),
        (3.4028234663852886e38, "3.4028234663852886e+38"),
        (5e-324, "5e-324"),
    ],
)
def test_js_number_to_string(x, want):
    assert js_number_to_string(x) == want


@pytest.mark.parametrize(
    ("x", "want"),
    [
        (0.00390625, "0.0039063"),  # exact tie: away from zero, as toFixed
        (-0.00390625, "-0.0039063"),
        (0.01171875, "0.0117188"),
        (0.5, "0.5"),
        (1e-8, "0"),
        (-1e-8, "0"),
        (5e-8, "0"),  # 5e-8 is a little below 5e-8 in binary
        (5.00000001e-8, "1e-7"),
        (4.9e-8, "0"),
        (12345678.9, "12345678.9"),
        (1e21, "1e+21"),
        (float("nan"), "NaN"),
        (float("-inf"), "-Infinity"),
        (2.0 / 3.0, "0.6666667"),
    ],
)
def test_js_to_fixed_7(x, want):
    assert js_to_fixed_7(x) == want


def test_print_writes_to_string(capsys):
    t = tf.tensor2d([[1, 2], [3, 4]])
    t.print()
    t.print(True)
    out = capsys.readouterr().out
    assert out == t.to_string() + "\n" + t.to_string(True) + "\n"
    assert out.startswith("Tensor\n    [[1, 2],\n     [3, 4]]\n")


def test_repr_and_str_are_to_string():
    t = tf.tensor([1.5, 2, 3])
    assert repr(t) == str(t) == "Tensor\n    [1.5, 2, 3]"


def test_repr_of_disposed_tensor_names_it():
    t = tf.tensor([1, 2])
    t.dispose()
    assert repr(t) == f"<disposed Tensor id={t.id} shape=[2] dtype=float32>"
    with pytest.raises(tf.TensorDisposedError, match="to_string"):
        t.to_string()


def test_variable_prints_like_tensor(capsys):
    v = tf.variable(tf.tensor1d([0, 1, 0, 1, 0]))
    v.print()
    assert capsys.readouterr().out == "Tensor\n    [0, 1, 0, 1, 0]\n"


def test_large_2d_is_elided():
    """A 1000x1000 tensor prints only its corners, columns padded over all rows (TF.js's
    ``tf.range(0, 1e6).reshape([1000, 1000]).div(8).toString()``)."""
    values = np.arange(1_000_000, dtype=np.float32).reshape(1000, 1000) / 8
    got = tensor_to_string(values, (1000, 1000), "float32", False).split("\n")
    want = [
        "Tensor",
        "    [[0     , 0.125     , 0.25     , ..., 124.625   , 124.75   , 124.875   ],",
        "     [125   , 125.125   , 125.25   , ..., 249.625   , 249.75   , 249.875   ],",
        "     [250   , 250.125   , 250.25   , ..., 374.625   , 374.75   , 374.875   ],",
        "     ...,",
        "     [124625, 124625.125, 124625.25, ..., 124749.625, 124749.75, 124749.875],",
        "     [124750, 124750.125, 124750.25, ..., 124874.625, 124874.75, 124874.875],",
        "     [124875, 124875.125, 124875.25, ..., 124999.625, 124999.75, 124999.875]]",
    ]
    assert got == want


def test_noncontiguous_and_readonly_input():
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    view = base.T
    view.flags.writeable = False
    want = "Tensor\n    [[0, 4, 8 ],\n     [1, 5, 9 ],\n     [2, 6, 10],\n     [3, 7, 11]]"
    assert tensor_to_string(view, (4, 3), "float32", False) == want


@settings(max_examples=300)
@given(
    st.lists(
        st.one_of(
            st.floats(width=32, allow_nan=True, allow_infinity=True),
            st.integers(-(2**20), 2**20).map(lambda k: k / 256),  # exact ties at the 8th decimal
            st.floats(float(np.float32(-1e-6)), float(np.float32(1e-6)), width=32),  # 0, 1e-7
        ),
        min_size=1,
        max_size=50,
    )
)
def test_the_shortcut_writes_float32_values_as_the_reference_does(values):
    """``_fixed_7_texts`` (the shortcut for large tensors) equals ``js_to_fixed_7`` (TF.js's
    ``parseFloat(x.toFixed(7))`` written by ``toString``) value by value."""
    x = np.asarray(values, dtype=np.float32).astype(np.float64)
    assert _fixed_7_texts(x) == [js_to_fixed_7(v) for v in x.tolist()]
