"""Ragged ops (ragged_gather, ragged_range, ragged_tensor_to_tensor) against TF.js goldens,
plus result objects, TF.js's quirks, errors and properties vs plain Python."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tidytensor as tf
from golden_util import call_case, case_ids, check_case, load_cases
from tidytensor.naming import snake_case

CASES = load_cases("ragged")


@pytest.mark.parametrize(("case", "expected"), CASES, ids=case_ids(CASES))
def test_golden(case, expected):
    check_case(case, expected)


def _flat_results(got, expected):
    if "object" in expected:
        return [
            pair
            for key, e in expected["object"].items()
            for pair in _flat_results(getattr(got, snake_case(key)), e)
        ]
    if "list" in expected:
        assert len(got) == len(expected["list"])
        return [
            pair for g, e in zip(got, expected["list"], strict=True) for pair in _flat_results(g, e)
        ]
    return [(got, expected)]


EXACT = [(c, e) for c, e in CASES if "error" not in e]


@pytest.mark.parametrize(("case", "expected"), EXACT, ids=case_ids(EXACT))
def test_golden_exact(case, expected):
    """Ragged results copy or step values exactly as TF.js does: bit for bit."""
    for got, want in _flat_results(call_case(case), expected):
        assert got.dtype == want["dtype"] and got.shape == want["shape"]
        values = np.asarray(got.data_sync(), dtype=np.float64).reshape(-1)
        np.testing.assert_array_equal(values, np.asarray(want["values"], dtype=np.float64))


# ---------------------------------------------------------------------------- API
def test_results_and_memory():
    n = tf.memory().num_tensors
    r = tf.ragged_gather([[0, 1, 3], [0, 2, 3, 4]], [1, 2, 3, 4], [1, 0], 2)
    assert set(r) == {"output_nested_splits", "output_dense_values"}
    assert [s.array_sync() for s in r.output_nested_splits] == [[0, 2, 3], [0, 1, 2, 4]]
    assert r.output_dense_values.array_sync() == [3, 4, 1, 2]
    assert tf.memory().num_tensors == n + 3
    tf.dispose(r)
    assert tf.memory().num_tensors == n
    kept = tf.tidy(lambda: tf.ragged_range(0, 3, 1))
    assert tf.memory().num_tensors == n + 2
    assert kept.rt_dense_values.array_sync() == [0, 1, 2]
    assert "RaggedRangeResult(rt_nested_splits=" in repr(kept)


def test_keywords_and_top_level():
    t = tf.ragged_tensor_to_tensor(
        shape=[2, 2],
        values=[1, 2, 3],
        default_value=9,
        row_partition_tensors=[[0, 1, 3]],
        row_partition_types=["ROW_SPLITS"],
    )
    assert t.array_sync() == [[1, 9], [2, 3]]
    r = tf.ragged_range(starts=[0, 2], limits=4, deltas=2)
    assert r.rt_nested_splits.array_sync() == [0, 2, 3]
    g = tf.ragged_gather(
        params_nested_splits=[[0, 1, 2]],
        params_dense_values=[5, 6],
        indices=[1],
        output_ragged_rank=1,
    )
    assert g.output_dense_values.array_sync() == [6]


def test_split_list_must_be_a_list():
    with pytest.raises(
        tf.ArgumentTypeError, match="params_nested_splits passed to 'ragged_gather' must be a list"
    ):
        tf.ragged_gather(tf.tensor([0, 1], None, "int32"), [1], [0], 1)


def test_vector_default_pads_with_zeros_as_tfjs():
    """TF.js copies a non-scalar default into a copy of the output: padding stays 0."""
    t = tf.ragged_tensor_to_tensor(
        [2, 2, 2], tf.tensor([[1, 2]]), [7, 8], [[0, 1, 1]], ["ROW_SPLITS"]
    )
    assert t.array_sync() == [[[1, 2], [0, 0]], [[0, 0], [0, 0]]]


def test_shape_check_reading_past_the_shape_raises():
    """TF.js's shape check reads shape[5] here and makes a [3,4,5,undefined,undefined,5]
    tensor; tidytensor refuses the input."""
    with pytest.raises(tf.InvalidArgumentError, match="TF.js reads shape\\[5\\]"):
        tf.ragged_tensor_to_tensor([3, 4, 5], tf.ones([4, 5]), 0, [[0, 1, 3, 4]], ["ROW_SPLITS"])


def test_ragged_range_steps_in_doubles_like_tfjs():
    # value += delta in JS doubles, each value rounded to float32 when stored.
    r = tf.ragged_range(tf.tensor([0.1]), tf.tensor([1.0]), tf.tensor([0.1]))
    want = []
    v = float(np.float32(0.1))
    for _ in range(r.rt_dense_values.size):
        want.append(float(np.float32(v)))
        v += float(np.float32(0.1))
    assert r.rt_dense_values.data_sync().tolist() == want


def test_errors_leak_nothing():
    n = tf.memory().num_tensors
    with pytest.raises(tf.InvalidArgumentError, match="Requires delta != 0"):
        tf.ragged_range(0, 5, 0)
    with pytest.raises(tf.InvalidArgumentError, match="is not in"):
        tf.ragged_gather([[0, 1]], [1], [3], 1)
    with pytest.raises(tf.InvalidArgumentError, match="needs at least one row partition tensor"):
        tf.ragged_tensor_to_tensor([2], [1, 2], 0, [], [])
    assert tf.memory().num_tensors == n


# ---------------------------------------------------------------------------- properties
@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(-20, 20), st.integers(-20, 20), st.integers(-5, 5).filter(bool)),
        min_size=0,
        max_size=5,
    )
)
def test_ragged_range_matches_python_range(rows):
    starts = [r[0] for r in rows]
    limits = [r[1] for r in rows]
    deltas = [r[2] for r in rows]
    r = tf.ragged_range(
        tf.tensor(starts, [len(rows)], "int32"),
        tf.tensor(limits, [len(rows)], "int32"),
        tf.tensor(deltas, [len(rows)], "int32"),
    )
    ranges = [list(range(s, lim, d)) for s, lim, d in rows]
    assert r.rt_dense_values.array_sync() == [v for part in ranges for v in part]
    assert r.rt_nested_splits.array_sync() == np.cumsum([0] + [len(p) for p in ranges]).tolist()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(-9, 9), max_size=4), min_size=1, max_size=5), st.data())
def test_to_tensor_and_gather_match_python(rows, data):
    values = [v for row in rows for v in row]
    splits = np.cumsum([0] + [len(r) for r in rows]).tolist()
    width = max(len(r) for r in rows)
    dense = tf.ragged_tensor_to_tensor(
        [-1, -1], tf.tensor(values, [len(values)], "int32"), -100, [splits], ["ROW_SPLITS"]
    )
    assert dense.numpy().tolist() == [r + [-100] * (width - len(r)) for r in rows]
    picks = data.draw(st.lists(st.integers(0, len(rows) - 1), max_size=6))
    g = tf.ragged_gather(
        [splits],
        tf.tensor(values, [len(values)], "int32"),
        tf.tensor(picks, [len(picks)], "int32"),
        1,
    )
    assert g.output_dense_values.array_sync() == [v for p in picks for v in rows[p]]
    want_splits = np.cumsum([0] + [len(rows[p]) for p in picks]).tolist()
    assert g.output_nested_splits[0].array_sync() == want_splits
