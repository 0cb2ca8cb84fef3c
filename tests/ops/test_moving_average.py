"""moving_average against TF.js goldens, plus gradient checks, errors and properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tidytensor as tf
from golden_util import case_ids, check_case, load_cases

CASES = load_cases("moving_average")


@pytest.mark.parametrize(("case", "expected"), CASES, ids=case_ids(CASES))
def test_golden(case, expected):
    check_case(case, expected)


GRAD_OPS = [
    ("moving_average", lambda v, x: tf.moving_average(v, x, 0.8, 3), [[2, 3], [2, 3]]),
    (
        "moving_average_no_debias",
        lambda v, x: tf.moving_average(v, x, 0.8, None, False),
        [[4], [4]],
    ),
    ("moving_average_decay", lambda v, x, d: tf.moving_average(v, x, d, 2), [[3], [3], []]),
]


@pytest.mark.parametrize(("name", "fn", "shapes"), GRAD_OPS, ids=[g[0] for g in GRAD_OPS])
def test_check_grads(name, fn, shapes):
    rng = np.random.default_rng(len(name))
    args = [tf.tensor(rng.uniform(0.2, 0.8, s).astype(np.float32), list(s)) for s in shapes]
    tf.testing.check_grads(fn, args)


def test_keywords_and_memory():
    v, x = tf.tensor1d([1.0, 2.0]), tf.tensor1d([3.0, 6.0])
    tf.testing.assert_close(
        tf.moving_average(v=v, x=x, decay=0.5, step=2, zero_debias=True),
        tf.moving_average(v, x, 0.5, 2),
    )
    before = tf.memory()
    y = tf.moving_average(v, x, 0.5, zero_debias=False)
    after = tf.memory()
    assert (
        after.num_tensors - before.num_tensors,
        after.num_data_buffers - before.num_data_buffers,
    ) == (1, 1)
    assert y.array_sync() == [2.0, 4.0]


def test_errors():
    v = tf.tensor1d([1.0, 2.0])
    with pytest.raises(
        tf.InvalidArgumentError, match=r"^When using zero_debias=True, step is required.$"
    ):
        tf.moving_average(v, v, 0.5)
    with pytest.raises(tf.ShapeError, match="^Shape mismatch in v and x$"):
        tf.moving_average(v, tf.tensor1d([1.0]), 0.5, 1)
    with pytest.raises(
        tf.DTypeError,
        match=r"The dtypes of the first\(float32\) and second\(int32\) input must match",
    ):
        tf.moving_average(v, tf.tensor1d([1, 2], "int32"), 0.5, 1)
    before = tf.memory().num_tensors
    with pytest.raises(tf.InvalidArgumentError):
        tf.moving_average([1, 2], [3, 4], 0.5)
    assert tf.memory().num_tensors == before


@settings(max_examples=50, deadline=None)
@given(
    hnp.arrays(np.float32, st.integers(1, 6), elements=st.floats(-100, 100, width=32)),
    st.floats(0.05, 0.95),
    st.integers(1, 20),
    st.booleans(),
)
def test_matches_formula(v, decay, step, zero_debias):
    x = v[::-1].copy() + 1
    out = tf.moving_average(tf.tensor(v), tf.tensor(x), decay, step, zero_debias).numpy()
    d = np.float32(decay).astype(np.float64)
    update = (x.astype(np.float64) - v) * (1 - d)
    if zero_debias:
        update /= 1 - d**step
    np.testing.assert_allclose(out, v + update, rtol=1e-4, atol=1e-3)
