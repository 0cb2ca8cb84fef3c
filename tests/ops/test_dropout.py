"""dropout against TF.js goldens (seeded draws match TF.js), plus gradient checks, errors
and statistical properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tidytensor as tf
from golden_util import case_ids, check_case, load_cases

CASES = load_cases("dropout")


@pytest.mark.parametrize(("case", "expected"), CASES, ids=case_ids(CASES))
def test_golden(case, expected):
    check_case(case, expected)


GRAD_OPS = [
    ("dropout", lambda x: tf.dropout(x, 0.4, None, 7), [5, 6]),
    ("dropout_noise_shape", lambda x: tf.dropout(x, 0.5, [1, 6], "seed"), [5, 6]),
    ("dropout_rate_0", lambda x: tf.dropout(x, 0), [3]),
]


@pytest.mark.parametrize(("name", "fn", "shape"), GRAD_OPS, ids=[g[0] for g in GRAD_OPS])
def test_check_grads(name, fn, shape):
    rng = np.random.default_rng(len(name))
    tf.testing.check_grads(fn, [tf.tensor(rng.uniform(-2, 2, shape).astype(np.float32), shape)])


def test_composite_kernels_and_memory():
    x = tf.ones([4, 4])
    prof = tf.profile(lambda: tf.dropout(x, 0.5, seed=1))
    assert "Floor" in prof.kernel_names and "Multiply" in prof.kernel_names
    before = tf.memory()
    y = tf.dropout(x, 0.5, seed=1)
    after = tf.memory()
    assert (
        after.num_tensors - before.num_tensors,
        after.num_data_buffers - before.num_data_buffers,
    ) == (1, 1)
    # rate 0 clones: a new tensor that shares x's buffer.
    before = tf.memory()
    z = tf.dropout(x, 0)
    after = tf.memory()
    assert (
        after.num_tensors - before.num_tensors,
        after.num_data_buffers - before.num_data_buffers,
    ) == (1, 0)
    assert z is not x
    tf.dispose([y, z])


def test_seed_is_deterministic_and_keywords():
    x = tf.ones([50])
    a = tf.dropout(x, 0.3, seed=5).array_sync()
    b = tf.dropout(x=x, rate=0.3, noise_shape=None, seed=5).array_sync()
    assert a == b
    c = tf.dropout(x, 0.3, seed=6).array_sync()
    assert a != c


def test_noise_shape_shares_draws():
    x = tf.ones([6, 8])
    y = tf.dropout(x, 0.5, [6, 1], seed=3).numpy()
    assert all(len(set(row.tolist())) == 1 for row in y)
    y = tf.dropout(x, 0.5, [None, 1], seed=3).numpy()
    assert all(len(set(row.tolist())) == 1 for row in y)


def test_errors():
    x = tf.ones([2])
    with pytest.raises(
        tf.DTypeError,
        match="x has to be a floating point tensor since it's going to be scaled, but got a int32",
    ):
        tf.dropout(tf.tensor1d([1, 2], "int32"), 0.5)
    for rate in (1, 1.5, -0.1, float("nan")):
        with pytest.raises(
            tf.InvalidArgumentError, match=r"rate must be a float in the range \[0, 1\)"
        ):
            tf.dropout(x, rate)
    with pytest.raises(tf.InvalidArgumentError, match=r"but got nan\."):
        tf.dropout(x, float("nan"))


@settings(max_examples=20, deadline=None)
@given(st.floats(0.05, 0.9), st.integers(0, 2**31 - 1))
def test_keep_fraction_and_scale(rate, seed):
    y = tf.dropout(tf.ones([4000]), rate, seed=seed).numpy()
    kept = y != 0
    np.testing.assert_allclose(y[kept], 1 / np.float32(1 - rate), rtol=1e-6)
    assert abs(kept.mean() - (1 - rate)) < 0.05
