"""Signal ops (tf.signal: frame, hann_window, hamming_window, stft; top-level
enclosing_power_of_two, cosine_window) against TF.js goldens, plus gradient checks, errors
and properties vs NumPy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tidytensor as tf
from golden_util import call_case, case_ids, check_case, load_cases
from tidytensor.ops import signal as signal_ns

CASES = load_cases("signal")


def test_tf_signal_is_the_namespace():
    assert tf.signal is signal_ns
    assert "signal" in tf.__all__


def test_namespace_and_top_level_helpers():
    assert set(signal_ns.__all__) == {"frame", "hamming_window", "hann_window", "stft"}
    assert tf.enclosing_power_of_two is tf.ops.signal_util.enclosing_power_of_two
    assert tf.cosine_window is tf.ops.signal_util.cosine_window
    assert not hasattr(tf, "frame") and not hasattr(tf, "stft")


@pytest.mark.parametrize(("case", "expected"), CASES, ids=case_ids(CASES))
def test_golden(case, expected):
    check_case(case, expected)


EXACT = [(c, e) for c, e in CASES if e.get("dtype") in ("int32", "float32") and "grad" not in c]


@pytest.mark.parametrize(("case", "expected"), EXACT, ids=case_ids(EXACT))
def test_golden_float32_and_int32_exact(case, expected):
    """Windows and frames are computed as TF.js computes them: bit for bit."""
    got = np.asarray(call_case(case).data_sync()).reshape(-1).astype(np.float64)
    want = np.asarray([math.nan if v == "NaN" else v for v in expected["values"]], np.float64)
    np.testing.assert_array_equal(got, want)


# ---------------------------------------------------------------------------- gradients
GRAD_OPS = [
    ("frame", lambda x: tf.signal.frame(x, 3, 1), [6]),
    ("frame_step_2", lambda x: tf.signal.frame(x, 2, 2), [7]),
    ("frame_padded", lambda x: tf.signal.frame(x, 4, 3, True, 2.5), [7]),
    (
        "frame_then_window",
        lambda x: tf.mul(tf.signal.frame(x, 4, 2), tf.signal.hann_window(4)),
        [8],
    ),
]


@pytest.mark.parametrize(("name", "fn", "shape"), GRAD_OPS, ids=[g[0] for g in GRAD_OPS])
def test_check_grads(name, fn, shape):
    rng = np.random.default_rng(len(name))
    tf.testing.check_grads(fn, [tf.tensor(rng.uniform(-2, 2, shape).astype(np.float32), shape)])


# ---------------------------------------------------------------------------- stft windows
def test_stft_with_custom_window_functions():
    """Values from TF.js's stft_test.ts (hamming window and a window of ones)."""
    x = tf.tensor1d([1, 1, 1, 1, 1])
    out = tf.signal.stft(x, 3, 1, 3, lambda n: tf.signal.hamming_window(n))
    assert out.shape == [3, 2]
    np.testing.assert_allclose(
        out.data_sync(),
        [1.16, 0.0, -0.46, -0.79674333] * 3,
        atol=1e-5,
    )
    out = tf.signal.stft(tf.tensor1d([1, 2, 3, 4, 5]), 5, 1, 5, tf.signal.hamming_window)
    np.testing.assert_allclose(
        out.data_sync(), [6.72, 0.0, -3.6371822, -1.1404576, 0.4771822, 0.3991935], atol=1e-5
    )
    out = tf.signal.stft(x, 3, 2, 3, lambda n: tf.ones([n]).as1d())
    np.testing.assert_allclose(out.data_sync(), [3.0, 0.0, 0.0, 0.0] * 2, atol=1e-6)
    out = tf.signal.stft(x, 3, 2, window_fn=lambda n: tf.ones([n]))
    assert out.shape == [2, 3]


def test_keywords():
    x = tf.tensor1d([1, 2, 3, 4, 5])
    a = tf.signal.frame(x, frame_length=3, frame_step=3, pad_end=True, pad_value=-1)
    assert a.array_sync() == [[1, 2, 3], [4, 5, -1]]
    b = tf.signal.stft(x, frame_length=3, frame_step=1, fft_length=4)
    assert b.shape == [3, 3]
    assert tf.signal.hann_window(window_length=3).array_sync() == [0, 1, 0]


# ---------------------------------------------------------------------------- errors, memory
def test_frame_zero_step_that_would_loop_forever_raises():
    x = tf.tensor1d([1, 2, 3, 4, 5])
    with pytest.raises(tf.InvalidArgumentError, match="frame_step 0 .* would make frames forever"):
        tf.signal.frame(x, 3, 0)
    with pytest.raises(tf.InvalidArgumentError, match="frame_step 0"):
        tf.signal.frame(x, 6, 0, True)
    assert tf.signal.frame(x, 6, 0).shape == [0, 6]  # TF.js: no frame, no loop


def test_frame_accepts_lists():
    # TF.js reads signal.size before converting (a plain array gives no frames); tidytensor
    # converts TensorLike values as every other op does.
    assert tf.signal.frame([1, 2, 3, 4], 2, 2).array_sync() == [[1, 2], [3, 4]]


@pytest.mark.parametrize("bad", [-1, -1.5, "3", None])
def test_window_length_errors(bad):
    with pytest.raises(tf.InvalidArgumentError, match="Invalid typed array length"):
        tf.cosine_window(bad, 0.5, 0.5)


def test_fractional_window_length_truncates_like_a_typed_array():
    """TF.js 4.22: new Float32Array(4.5) has 4 values; the period stays 4.5 + 0.5 - 1."""
    assert tf.signal.hann_window(4.5).data_sync().tolist() == [0, 0.5, 1, 0.5]
    assert tf.signal.hann_window(0.5).shape == [0]


def test_helpers_return_numbers_and_one_tensor():
    before = tf.memory().num_tensors
    assert tf.enclosing_power_of_two(17) == 32
    assert isinstance(tf.enclosing_power_of_two(3), int)
    assert math.isnan(tf.enclosing_power_of_two(-1))
    assert tf.enclosing_power_of_two(math.inf) == math.inf
    assert tf.enclosing_power_of_two(1e308) == math.inf
    assert tf.memory().num_tensors == before
    w = tf.cosine_window(4, 0.5, 0.5)
    assert tf.memory().num_tensors == before + 1
    assert (w.dtype, w.shape) == ("float32", [4])


def test_stft_and_frame_leave_one_tensor():
    x = tf.tensor1d(np.arange(20, dtype=np.float32))
    before = tf.memory()
    y = tf.signal.stft(x, 8, 4)
    after = tf.memory()
    assert (
        after.num_tensors - before.num_tensors,
        after.num_data_buffers - before.num_data_buffers,
    ) == (1, 1)
    assert (y.dtype, y.shape) == ("complex64", [4, 5])
    assert after.num_bytes == before.num_bytes  # complex64 counts 0 bytes, as in TF.js


# ---------------------------------------------------------------------------- properties
@settings(max_examples=50, deadline=None)
@given(st.integers(0, 20), st.integers(1, 6), st.integers(1, 5), st.booleans())
def test_frame_matches_sliding_windows(n, length, step, pad_end):
    values = np.arange(1, n + 1, dtype=np.float32)
    got = tf.tidy(lambda: tf.signal.frame(tf.tensor1d(values), length, step, pad_end, -7).numpy())
    want = []
    start = 0
    while start + length <= n:
        want.append(values[start : start + length])
        start += step
    while pad_end and start < n:
        part = values[start:]
        want.append(np.concatenate([part, np.full(length - part.size, -7, np.float32)]))
        start += step
    want = np.asarray(want, dtype=np.float32).reshape(len(want), length)
    np.testing.assert_array_equal(got, want)


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 64))
def test_windows_match_formula(n):
    period = n if n % 2 == 0 else n - 1
    i = np.arange(n)
    hann = (0.5 - 0.5 * np.cos(2 * np.pi * i / period)).astype(np.float32)
    hamming = (0.54 - 0.46 * np.cos(2 * np.pi * i / period)).astype(np.float32)
    np.testing.assert_allclose(tf.signal.hann_window(n).numpy(), hann, atol=1e-7)
    np.testing.assert_allclose(tf.signal.hamming_window(n).numpy(), hamming, atol=1e-7)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 100000))
def test_enclosing_power_of_two_is_a_power_of_two_at_least_value(v):
    p = tf.enclosing_power_of_two(v)
    assert p & (p - 1) == 0
    assert v <= p < 4 * v
