"""unsorted_segment_sum against TF.js goldens, plus gradient checks, edge cases, errors and
properties vs NumPy."""

from __future__ import annotations

import zlib
from typing import Any, NamedTuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tidytensor as tf
from golden_util import case_ids, check_case, load_cases
from tidytensor.backends.xp_kernels import segment as segment_kernels

CASES = load_cases("segment")


@pytest.mark.parametrize(("case", "expected"), CASES, ids=case_ids(CASES))
def test_golden(case, expected):
    check_case(case, expected)


def ids(values):
    return tf.tensor(values, None, "int32")


# ---------------------------------------------------------------------------- gradient checks
class GradSpec(NamedTuple):
    name: str
    fn: Any
    shapes: list
    low: float = -2.0
    high: float = 2.0


GRAD_OPS = [
    GradSpec(
        "unsorted_segment_sum", lambda x: tf.unsorted_segment_sum(x, ids([0, 2, 0, 1]), 3), [[4]]
    ),
    GradSpec(
        "unsorted_segment_sum_dropped_ids",
        lambda x: tf.unsorted_segment_sum(x, ids([1, -1, 1, 0, -3]), 2),
        [[5]],
    ),
    GradSpec(
        "unsorted_segment_sum_2d", lambda x: tf.unsorted_segment_sum(x, ids([1, 1, 0]), 2), [[3, 4]]
    ),
    GradSpec(
        "unsorted_segment_sum_3d", lambda x: tf.unsorted_segment_sum(x, ids([2, 0]), 3), [[2, 2, 3]]
    ),
]


@pytest.mark.parametrize("spec", GRAD_OPS, ids=[s.name for s in GRAD_OPS])
def test_check_grads(spec):
    rng = np.random.default_rng(zlib.crc32(spec.name.encode()))  # stable across runs
    args = [
        tf.tensor(rng.uniform(spec.low, spec.high, s).astype(np.float32), s) for s in spec.shapes
    ]
    tf.testing.check_grads(spec.fn, args)


def test_gradient_gathers_dy_and_zeroes_negative_ids():
    g = tf.grad(lambda x: tf.unsorted_segment_sum(x, ids([0, -1, 2, 0]), 3))(
        tf.tensor([1.0, 2.0, 3.0, 4.0]), tf.tensor([10.0, 20.0, 30.0])
    )
    assert g.array_sync() == [10.0, 0.0, 30.0, 10.0]


def test_gradient_with_respect_to_ids_is_not_defined():
    # TF.js's gradient has no entry for segmentIds; int32 ids never get one.
    x = tf.tensor([1.0, 2.0])
    with pytest.raises(tf.errors.TidyTensorError):
        tf.grads(lambda x, i: tf.unsorted_segment_sum(x, i, 2))([x, ids([0, 1])])


# ---------------------------------------------------------------------------- API
def test_keywords_method_and_kernel():
    x = tf.tensor([1, 2, 3, 4])
    assert tf.unsorted_segment_sum(
        x, segment_ids=ids([0, 1, 0, 1]), num_segments=2
    ).array_sync() == [4, 6]
    assert x.unsorted_segment_sum(ids([1, 1, 1, 1]), 2).array_sync() == [0, 10]
    assert tf.profile(lambda: tf.unsorted_segment_sum(x, ids([0, 0, 0, 0]), 1)).kernel_names == [
        "UnsortedSegmentSum"
    ]


def test_result_is_float32_for_any_input_dtype():
    for x in (tf.tensor([1, 2], dtype="int32"), tf.tensor([True, False]), tf.tensor([1.5, 2.0])):
        assert tf.unsorted_segment_sum(x, ids([0, 0]), 1).dtype == "float32"


def test_memory_one_new_tensor():
    x = tf.tensor([[1, 2], [3, 4]])
    i = ids([1, 0])
    before = tf.memory()
    y = tf.unsorted_segment_sum(x, i, 3)
    after = tf.memory()
    assert (
        after.num_tensors - before.num_tensors,
        after.num_data_buffers - before.num_data_buffers,
    ) == (1, 1)
    assert y.shape == [3, 2]


def test_segment_by_segment_path_matches_vectorized(monkeypatch):
    rng = np.random.default_rng(3)
    x = tf.tensor(rng.standard_normal((6, 3)).astype(np.float32))
    i = ids([3, 0, -1, 3, 7, 1])
    fast = tf.unsorted_segment_sum(x, i, 5).numpy()
    monkeypatch.setattr(segment_kernels, "_VECTORIZED_LIMIT", 0)
    slow = tf.unsorted_segment_sum(x, i, 5).numpy()
    np.testing.assert_array_equal(fast, slow)


# ---------------------------------------------------------------------------- errors
def test_errors():
    x = tf.tensor([1.0, 2.0])
    with pytest.raises(
        tf.errors.DTypeError,
        match="Argument 'segment_ids' passed to 'unsorted_segment_sum' must be int32 tensor, but got float32 tensor",
    ):
        tf.unsorted_segment_sum(x, tf.tensor([0.0, 1.0]), 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_segments must be of dtype int"):
        tf.unsorted_segment_sum(x, ids([0, 1]), 1.5)
    with pytest.raises(
        tf.errors.InvalidArgumentError, match="num_segments must be positive, but got 0"
    ):
        tf.unsorted_segment_sum(x, ids([0, 1]), 0)
    with pytest.raises(
        tf.errors.ShapeError,
        match="operands could not be broadcast together with shapes \\[3,1\\] and \\[2,2\\]",
    ):
        tf.unsorted_segment_sum(tf.ones([2, 2]), ids([0, 1, 1]), 2)
    with pytest.raises(tf.errors.ShapeError, match=r"range \[-0, 0\) but got axis 0"):
        tf.unsorted_segment_sum(tf.scalar(1.0), tf.scalar(0, "int32"), 2)
    with pytest.raises(tf.errors.DTypeError, match="does not support complex64"):
        tf.unsorted_segment_sum(tf.complex([1.0], [1.0]), ids([0]), 1)
    with pytest.raises(tf.errors.DTypeError, match="must be numeric tensor"):
        tf.unsorted_segment_sum(tf.tensor(["a"]), ids([0]), 1)


# ---------------------------------------------------------------------------- properties
@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(0, 8),
    inner=st.lists(st.integers(1, 3), max_size=2),
    num=st.integers(1, 6),
    seed=st.integers(0, 2**31 - 1),
)
def test_matches_numpy_add_at(n, inner, num, seed):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-10, 10, [n, *inner]).astype(np.float32)
    seg = rng.integers(-2, num + 2, n).astype(np.int32)
    want = np.zeros([num, *inner], np.float64)
    keep = (seg >= 0) & (seg < num)
    np.add.at(want, seg[keep], x[keep].astype(np.float64))
    got = tf.unsorted_segment_sum(
        tf.tensor(x, [n, *inner]), tf.tensor(seg, [n], "int32"), num
    ).numpy()
    np.testing.assert_array_equal(got, want.astype(np.float32))
