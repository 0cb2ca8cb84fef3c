"""Spectral ops (tf.spectral: fft, ifft, rfft, irfft) against TF.js 4.22.0.

Real-input cases are goldens (tests/golden/specs/spectral.json). The golden spec format has
no complex64 argument, so the complex-input cases are the table below: each builds its input
with ``tf.complex(tf.tensor(re, shape), tf.tensor(im, shape))`` and expects what TF.js 4.22.0
(cpu backend) returned for the same call, with its memory deltas measured after the input
was made. The table was recorded with a small node script doing exactly that.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tidytensor as tf
from golden_util import assert_matches, check_case, encode, load_cases

CASES = load_cases("spectral")


def _params(cases):
    return [pytest.param(c, e, id=c["name"]) for c, e in cases]


@pytest.mark.parametrize(("case", "expected"), _params(CASES))
def test_golden(case, expected):
    check_case(case, expected)


# (case, TF.js result) for complex64 inputs.
COMPLEX_CASES = [
    (
        {"name": "fft n3", "op": "fft", "re": [1, 2, 3], "im": [1, 2, 3], "shape": [3]},
        {
            "dtype": "complex64",
            "shape": [3],
            "values": [
                6,
                6,
                -2.366025447845459,
                -0.6339746117591858,
                -0.6339746117591858,
                -2.366025447845459,
            ],
            "new_tensors": 1,
            "new_buffers": 1,
            "new_bytes": 0,
        },
    ),
    (
        {"name": "fft n4", "op": "fft", "re": [1, 2, 3, 4], "im": [0, -1, 0.5, 2], "shape": [4]},
        {
            "dtype": "complex64",
            "shape": [4],
            "values": [10, 1.5, -5, 1.5, -2, -0.5, 1, -2.5],
            "new_tensors": 1,
            "new_buffers": 1,
            "new_bytes": 0,
        },
    ),
    (
        {
            "name": "fft n8",
            "op": "fft",
            "re": [1, 2, 3, 4, 5, 6, 7, 8],
            "im": [0.5, 0, -1, 0, 2, 0, 0, 3],
            "shape": [8],
        },
        {
            "dtype": "complex64",
            "shape": [8],
            "values": [
                36,
                4.5,
                -7.1213202476501465,
                10.27817440032959,
                -7,
                7.5,
                -5.1213202476501465,
                -1.9644660949707031,
                -4,
                -1.5,
                -2.8786797523498535,
                -5.27817440032959,
                -1,
                -0.5,
                -0.8786797523498535,
                -9.035533905029297,
            ],
            "new_tensors": 1,
            "new_buffers": 1,
            "new_bytes": 0,
        },
    ),
    (
        {"name": "fft n1", "op": "fft", "re": [2.5], "im": [-1], "shape": [1]},
        {
            "dtype": "complex64",
            "shape": [1],
            "values": [2.5, -1],
            "new_tensors": 1,
            "new_buffers": 1,
            "new_bytes": 0,
        },
    ),
    (
        {
            "name": "fft 2d",
            "op": "fft",
            "re": [1, 2, 3, 4, 5, 6],
            "im": [6, 5, 4, 3, 2, 1],
            "shape": [2, 3],
        },
        {
            "dtype": "complex64",
            "shape": [2, 3],
            "values": [
                6,
                15,
                -0.6339746117591858,
                2.366025447845459,
                -2.366025447845459,
                0.6339746117591858,
                15,
                6,
                -0.6339746117591858,
                2.366025447845459,
                -2.366025447845459,
                0.6339746117591858,
            ],
            "new_tensors": 1,
            "new_buffers": 1,
            "new_bytes": 0,
        },
    ),
    (
        {
            "name": "fft 3d",
            "op": "fft",
            "re": [1, 2, 3, 4, 5, 6, 7, 8],
            "im": [0, 0, 0, 0, 1, 1, 1, 1],
            "shape": [2, 2, 2],
        },
        {
            "dtype": "complex64",
            "shape": [2, 2, 2],
            "values": [3, 0, -1, 0, 7, 0, -1, 0, 11, 2, -1, 0, 15, 2, -1, 0],
            "new_tensors": 1,
            "new_buffers": 1,
            "new_bytes": 0,
        },
    ),
    (
        {"name": "fft zero rows", "op": "fft", "re": [], "im": [], "shape": [0, 4]},
        {
            "dtype": "complex64",
            "shape": [0, 4],
            "values": [],
            "new_tensors": 1,
            "new_buffers": 1,
            "new_bytes": 0,
        },
    ),
    (
        {
            "name": "ifft n3",
            "op": "ifft",
            "re": [6, -1.5, -1.5],
            "im": [0, 0.866, -0.866],
            "shape": [3],
        },
        {
            "dtype": "complex64",
            "shape": [3],
            "values": [
                1,
                0,
                2.0000147819519043,
                1.4802974102831747e-16,
                2.9999852180480957,
                -6.661338147750939e-16,
            ],
            "new_tensors": 1,
            "new_buffers": 1,
            "new_bytes": 0,
        },
    ),
    (
        {"name": "ifft n4", "op": "ifft", "re": [1, 2, 3, 4], "im": [0, -1, 0.5, 2], "shape": [4]},
        {
            "dtype": "complex64",
            "shape": [4],
            "values": [2.5, 0.375, 0.25, -0.625, -0.5, -0.125, -1.25, 0.375],
            "new_tensors": 1,
            "new_buffers": 1,
            "new_bytes": 0,
        },
    ),
    (
        {
            "name": "ifft n8",
            "op": "ifft",
            "re": [1, 2, 3, 4, 5, 6, 7, 8],
            "im": [0.5, 0, -1, 0, 2, 0, 0, 3],
            "shape": [8],
        },
        {
            "dtype": "complex64",
            "shape": [8],
            "values": [
                4.5,
                0.5625,
                -0.10983496904373169,
                -1.129441738128662,
                -0.125,
                -0.0625,
                -0.3598349690437317,
                -0.6597718000411987,
                -0.5,
                -0.1875,
                -0.6401650309562683,
                -0.2455582618713379,
                -0.875,
                0.9375,
                -0.8901650309562683,
                1.2847718000411987,
            ],
            "new_tensors": 1,
            "new_buffers": 1,
            "new_bytes": 0,
        },
    ),
    (
        {
            "name": "ifft 2d",
            "op": "ifft",
            "re": [1, 2, 3, 4, 5, 6],
            "im": [6, 5, 4, 3, 2, 1],
            "shape": [3, 2],
        },
        {
            "dtype": "complex64",
            "shape": [3, 2],
            "values": [1.5, 5.5, -0.5, 0.5, 3.5, 3.5, -0.5, 0.5, 5.5, 1.5, -0.5, 0.5],
            "new_tensors": 1,
            "new_buffers": 1,
            "new_bytes": 0,
        },
    ),
    (
        {"name": "irfft n1", "op": "irfft", "re": [3], "im": [1], "shape": [1]},
        {
            "dtype": "float32",
            "shape": [1, 1],
            "values": [3],
            "new_tensors": 1,
            "new_buffers": 1,
            "new_bytes": 4,
        },
    ),
    (
        {"name": "irfft n2", "op": "irfft", "re": [3, 1], "im": [0, 2], "shape": [2]},
        {
            "dtype": "float32",
            "shape": [1, 2],
            "values": [2, 1],
            "new_tensors": 1,
            "new_buffers": 1,
            "new_bytes": 8,
        },
    ),
    (
        {"name": "irfft n3", "op": "irfft", "re": [1, 2, 3], "im": [0, 0, 0], "shape": [3]},
        {
            "dtype": "float32",
            "shape": [1, 4],
            "values": [2, -0.5, 0, -0.5],
            "new_tensors": 1,
            "new_buffers": 1,
            "new_bytes": 16,
        },
    ),
    (
        {
            "name": "irfft n5",
            "op": "irfft",
            "re": [10, -2, 3, 1, 0.5],
            "im": [0, 1, -1, 2, 0],
            "shape": [5],
        },
        {
            "dtype": "float32",
            "shape": [1, 8],
            "values": [
                1.8125,
                0.37683987617492676,
                0.8125,
                0.9375,
                2.3125,
                2.4981601238250732,
                0.3125,
                0.9375,
            ],
            "new_tensors": 1,
            "new_buffers": 1,
            "new_bytes": 32,
        },
    ),
    (
        {
            "name": "irfft 2d",
            "op": "irfft",
            "re": [1, 2, 3, 4, 5, 6],
            "im": [0, 1, 0, 0, -1, 0],
            "shape": [2, 3],
        },
        {
            "dtype": "float32",
            "shape": [2, 4],
            "values": [2, -1, 0, 0, 5, 0, 0, -1],
            "new_tensors": 1,
            "new_buffers": 1,
            "new_bytes": 32,
        },
    ),
    (
        {
            "name": "irfft 3d",
            "op": "irfft",
            "re": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
            "im": [0, 1, 0, 0, -1, 0, 0, 2, 0, 0, 0, 0],
            "shape": [2, 2, 3],
        },
        {
            "dtype": "float32",
            "shape": [2, 2, 4],
            "values": [2, -1, 0, 0, 5, 0, 0, -1, 8, -1.5, 0, 0.5, 11, -0.5, 0, -0.5],
            "new_tensors": 1,
            "new_buffers": 1,
            "new_bytes": 64,
        },
    ),
    (
        {
            "name": "irfft 3d short",
            "op": "irfft",
            "re": [1, 2, 3, 4],
            "im": [0, 1, 0, 2],
            "shape": [2, 1, 2],
        },
        {
            "dtype": "float32",
            "shape": [2, 1, 2],
            "values": [1.5, -0.5, 3.5, -0.5],
            "new_tensors": 1,
            "new_buffers": 1,
            "new_bytes": 16,
        },
    ),
    (
        {
            "name": "irfft 4d stays 2d",
            "op": "irfft",
            "re": [1, 2, 3, 4, 5, 6],
            "im": [0, 0, 0, 0, 0, 0],
            "shape": [1, 2, 1, 3],
        },
        {
            "dtype": "float32",
            "shape": [2, 4],
            "values": [2, -0.5, 0, -0.5, 5, -0.5, 0, -0.5],
            "new_tensors": 1,
            "new_buffers": 1,
            "new_bytes": 32,
        },
    ),
    (
        {"name": "irfft 3d zero batch", "op": "irfft", "re": [], "im": [], "shape": [0, 2, 3]},
        {
            "dtype": "float32",
            "shape": [0, 4],
            "values": [],
            "new_tensors": 1,
            "new_buffers": 1,
            "new_bytes": 0,
        },
    ),
    (
        {
            "name": "fft method",
            "op": "fft",
            "method": True,
            "re": [1, 0, 0, 0],
            "im": [0, 1, 0, 0],
            "shape": [4],
        },
        {
            "dtype": "complex64",
            "shape": [4],
            "values": [1, 1, 2, 6.123234262925839e-17, 1, -1, 0, -6.123234262925839e-17],
            "new_tensors": 1,
            "new_buffers": 1,
            "new_bytes": 0,
        },
    ),
    (
        {
            "name": "irfft method",
            "op": "irfft",
            "method": True,
            "re": [4, 1, 0],
            "im": [0, 0, 0],
            "shape": [3],
        },
        {
            "dtype": "float32",
            "shape": [1, 4],
            "values": [1.5, 1, 0.5, 1],
            "new_tensors": 1,
            "new_buffers": 1,
            "new_bytes": 16,
        },
    ),
    (
        {"name": "rfft of complex error", "op": "rfft", "re": [1, 2], "im": [0, 0], "shape": [2]},
        {"error": "The dtype for rfft() must be real value but got complex64", "new_tensors": 0},
    ),
    (
        {"name": "fft scalar", "op": "fft", "re": [1], "im": [2], "shape": []},
        {
            "error": "The new shape (NaN,) has NaN elements and the old shape () has 1 elements. The new shape and old shape must have the same number of elements.",
            "new_tensors": 0,
        },
    ),
    (
        {"name": "fft zero inner", "op": "fft", "re": [], "im": [], "shape": [2, 0]},
        {
            "error": "The new shape (NaN,0) has NaN elements and the old shape (2,0) has 0 elements. The new shape and old shape must have the same number of elements.",
            "new_tensors": 0,
        },
    ),
    (
        {"name": "ifft zero inner", "op": "ifft", "re": [], "im": [], "shape": [0]},
        {
            "error": "The new shape (NaN,0) has NaN elements and the old shape (0) has 0 elements. The new shape and old shape must have the same number of elements.",
            "new_tensors": 0,
        },
    ),
    (
        {"name": "irfft zero inner", "op": "irfft", "re": [], "im": [], "shape": [2, 0]},
        {
            "error": "The new shape (NaN,0) has NaN elements and the old shape (2,0) has 0 elements. The new shape and old shape must have the same number of elements.",
            "new_tensors": 0,
        },
    ),
    (
        {"name": "irfft scalar", "op": "irfft", "re": [1], "im": [2], "shape": []},
        {
            "error": "The new shape (NaN,) has NaN elements and the old shape () has 1 elements. The new shape and old shape must have the same number of elements.",
            "new_tensors": 0,
        },
    ),
    (
        {"name": "ifft scalar", "op": "ifft", "re": [1], "im": [2], "shape": []},
        {
            "error": "The new shape (NaN,) has NaN elements and the old shape () has 1 elements. The new shape and old shape must have the same number of elements.",
            "new_tensors": 0,
        },
    ),
]


def _complex_input(case):
    re = tf.tensor(case["re"], case["shape"])
    im = tf.tensor(case["im"], case["shape"])
    x = tf.complex(re, im)
    re.dispose()
    im.dispose()
    return x


@pytest.mark.parametrize(("case", "expected"), _params(COMPLEX_CASES))
def test_complex_input_matches_tfjs(case, expected):
    x = _complex_input(case)
    before = tf.memory()
    if "error" in expected:
        with pytest.raises(tf.TidyTensorError):
            getattr(tf.spectral, case["op"])(x)
        assert tf.memory().num_tensors == before.num_tensors
        return
    if case.get("method"):
        out = getattr(x, case["op"])()
    else:
        out = getattr(tf.spectral, case["op"])(x)
    after = tf.memory()
    assert_matches(encode(out), expected, 1e-5, 1e-5)
    assert after.num_tensors - before.num_tensors == expected["new_tensors"]
    assert after.num_data_buffers - before.num_data_buffers == expected["new_buffers"]
    assert after.num_bytes - before.num_bytes == expected["new_bytes"]


# ---------------------------------------------------------------------------- errors
@pytest.mark.parametrize("name", ["fft", "ifft", "irfft"])
def test_scalar_and_empty_innermost_dimension_raise_tfjs_reshape_error(name):
    scalar = tf.complex(tf.scalar(1), tf.scalar(2))
    with pytest.raises(
        tf.ShapeError, match=r"The new shape \(NaN,\) has NaN elements and the old shape \(\)"
    ):
        getattr(tf.spectral, name)(scalar)
    empty = tf.complex(tf.zeros([2, 0]), tf.zeros([2, 0]))
    with pytest.raises(
        tf.ShapeError,
        match=r"The new shape \(NaN,0\) has NaN elements and the old shape \(2,0\) has 0",
    ):
        getattr(tf.spectral, name)(empty)


def test_rfft_scalar_and_empty_innermost_dimension():
    with pytest.raises(tf.ShapeError, match=r"tf.spectral.rfft\(\) transforms the innermost"):
        tf.spectral.rfft(tf.scalar(3))
    with pytest.raises(tf.ShapeError, match=r"\(NaN,0\)"):
        tf.spectral.rfft(tf.zeros([2, 0]), 4)


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_rfft_fft_length_must_be_a_positive_integer(bad):
    # TF.js crashes (0: a NaN reshape, 2.5: call stack overflow) or returns an empty
    # tensor (-1); tidytensor refuses all of them.
    with pytest.raises(tf.InvalidArgumentError, match="fft_length passed to tf.spectral.rfft"):
        tf.spectral.rfft(tf.tensor([1, 2, 3]), bad)


def test_dtype_errors():
    with pytest.raises(tf.DTypeError, match="must be complex64 but got string"):
        tf.spectral.fft(tf.tensor(["a"]))
    with pytest.raises(
        tf.DTypeError, match="The dtype for rfft\\(\\) must be real value but got bool"
    ):
        tf.spectral.rfft(tf.tensor([True], None, "bool"))


def test_lists_are_accepted():
    # TF.js reads input.dtype before converting (a list fails there); tidytensor converts.
    assert np.allclose(tf.spectral.rfft([1, 2, 3]).data_sync(), [6, 0, -1.5, 0.8660254])


# ---------------------------------------------------------------------------- memory, kernels
def test_complex_outputs_count_zero_bytes_and_one_buffer():
    x = _complex_input({"re": [1, 2, 3, 4], "im": [0, 0, 0, 0], "shape": [4]})
    before = tf.memory()
    y = tf.spectral.fft(x)
    after = tf.memory()
    assert (
        after.num_tensors - before.num_tensors,
        after.num_data_buffers - before.num_data_buffers,
    ) == (1, 1)
    assert after.num_bytes == before.num_bytes
    y.dispose()
    assert tf.memory().num_bytes == before.num_bytes


def test_kernels_run_as_tfjs_composes_them():
    x = tf.tensor([[1, 2, 3, 4], [5, 6, 7, 8]])
    names = tf.profile(lambda: tf.spectral.rfft(x)).kernel_names
    for kernel in ("ZerosLike", "Complex", "Reshape", "FFT", "Real", "Imag", "SplitV"):
        assert kernel in names
    c = tf.spectral.rfft(x)
    names = tf.profile(lambda: tf.spectral.irfft(c)).kernel_names
    for kernel in ("Real", "Imag", "Slice", "Reverse", "Multiply", "Concat", "Complex", "IFFT"):
        assert kernel in names
    assert tf.profile(lambda: tf.spectral.fft(c)).kernel_names == ["FFT"]


def test_no_leaks_inside_tidy():
    x = tf.tensor([[1, 2, 3, 4, 5]])
    n = tf.memory().num_tensors

    def body():
        tf.spectral.irfft(tf.spectral.rfft(x))

    tf.tidy(body)
    assert tf.memory().num_tensors == n
    y = tf.tidy(lambda: tf.spectral.irfft(tf.spectral.rfft(x)))
    assert tf.memory().num_tensors == n + 1
    y.dispose()


def test_rfft_has_no_gradient_as_in_tfjs():
    # Backprop meets Real first (Real, Imag and Complex have no gradient in TF.js).
    with pytest.raises(tf.TidyTensorError, match="gradient function not found for Real"):
        tf.grad(lambda a: tf.real(tf.spectral.rfft(a)))(tf.tensor([1.0, 2.0, 3.0]))


# ---------------------------------------------------------------------------- properties
_floats = st.floats(-100, 100, width=32)


@settings(max_examples=40, deadline=None)
@given(
    hnp.arrays(
        np.float32,
        hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=9),
        elements=_floats,
    )
)
def test_rfft_matches_numpy(values):
    got = tf.tidy(lambda: tf.spectral.rfft(tf.tensor(values, list(values.shape))).numpy())
    want = np.fft.rfft(values.astype(np.float64), axis=-1)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3 * (1 + np.abs(values).max()))


@settings(max_examples=40, deadline=None)
@given(
    hnp.arrays(
        np.float32,
        hnp.array_shapes(min_dims=1, max_dims=2, min_side=1, max_side=9),
        elements=_floats,
    ),
    st.booleans(),
)
def test_fft_and_ifft_match_numpy(values, inverse):
    def run():
        x = tf.complex(
            tf.tensor(values, list(values.shape)),
            tf.tensor(values[..., ::-1].copy(), list(values.shape)),
        )
        return (tf.spectral.ifft(x) if inverse else tf.spectral.fft(x)).numpy()

    got = tf.tidy(run)
    z = values.astype(np.float64) + 1j * values[..., ::-1].astype(np.float64)
    want = np.fft.ifft(z, axis=-1) if inverse else np.fft.fft(z, axis=-1)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3 * (1 + np.abs(values).max()))


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 8), st.integers(1, 3))
def test_irfft_inverts_rfft_for_even_lengths(half, rows):
    rng = np.random.default_rng(half * 10 + rows)
    values = rng.uniform(-5, 5, (rows, 2 * half)).astype(np.float32)
    got = tf.tidy(lambda: tf.spectral.irfft(tf.spectral.rfft(tf.tensor(values))).numpy())
    np.testing.assert_allclose(got, values, atol=1e-4)
