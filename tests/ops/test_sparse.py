"""Sparse ops (tf.sparse: sparse_fill_empty_rows, sparse_reshape, sparse_segment_sum,
sparse_segment_mean) against TF.js goldens, plus result objects, memory, errors and
properties vs NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tidytensor as tf
from golden_util import call_case, case_ids, check_case, load_cases
from tidytensor.naming import snake_case

CASES = load_cases("sparse")


@pytest.mark.parametrize(("case", "expected"), CASES, ids=case_ids(CASES))
def test_golden(case, expected):
    check_case(case, expected)


def _flat_results(got, expected):
    """(tensor, expected tensor) pairs of a result and its TF.js golden."""
    if "object" in expected:
        return [
            pair
            for key, e in expected["object"].items()
            for pair in _flat_results(getattr(got, snake_case(key)), e)
        ]
    return [(got, expected)]


EXACT = [(c, e) for c, e in CASES if "error" not in e and "grad" not in c]


@pytest.mark.parametrize(("case", "expected"), EXACT, ids=case_ids(EXACT))
def test_golden_exact(case, expected):
    """Every sparse result is exact in TF.js (float sums accumulate in float32 one row at
    a time, in index order): bit for bit here too."""
    for got, want in _flat_results(call_case(case), expected):
        assert got.dtype == want["dtype"] and got.shape == want["shape"]
        values = np.asarray(got.data_sync(), dtype=np.float64).reshape(-1)
        np.testing.assert_array_equal(values, np.asarray(want["values"], dtype=np.float64))


# ---------------------------------------------------------------------------- result objects
def test_results_read_by_attribute_and_key():
    r = tf.sparse.sparse_fill_empty_rows([[0, 0], [2, 1]], [5, 6], [3, 2], -1)
    assert isinstance(r, dict)
    assert set(r) == {"output_indices", "output_values", "empty_row_indicator", "reverse_index_map"}
    assert r.output_values is r["output_values"]
    assert r.empty_row_indicator.dtype == "bool"
    assert "SparseFillEmptyRowsResult(output_indices=" in repr(r)
    with pytest.raises(AttributeError, match="has no field 'nope'"):
        r.nope  # noqa: B018
    s = tf.sparse.sparse_reshape([[0, 1]], [2, 3], [3, 2])
    assert set(s) == {"output_indices", "output_shape"}
    assert s.output_shape.array_sync() == [3, 2]


def test_tidy_keeps_every_field_and_dispose_frees_them():
    n = tf.memory().num_tensors
    r = tf.tidy(lambda: tf.sparse.sparse_fill_empty_rows([[1, 0]], [5], [3, 2], 0))
    assert tf.memory().num_tensors == n + 4
    assert r.output_indices.array_sync() == [[0, 0], [1, 0], [2, 0]]
    tf.dispose(r)
    assert tf.memory().num_tensors == n


def test_keywords():
    r = tf.sparse.sparse_fill_empty_rows(
        indices=[[1, 0]], values=[5], dense_shape=[2, 2], default_value=7
    )
    assert r.output_values.array_sync() == [7, 5]
    s = tf.sparse.sparse_reshape(input_indices=[[1]], input_shape=[4], new_shape=[2, 2])
    assert s.output_indices.array_sync() == [[0, 1]]
    data = tf.tensor([1.0, 2.0, 4.0])
    assert tf.sparse.sparse_segment_mean(
        data=data, indices=[0, 2], segment_ids=[0, 0]
    ).array_sync() == [2.5]
    assert tf.sparse.sparse_segment_sum(data, indices=[0, 2], segment_ids=[1, 1]).array_sync() == [
        0,
        5,
    ]


def test_namespace():
    assert set(tf.sparse.__all__) == {
        "sparse_fill_empty_rows",
        "sparse_reshape",
        "sparse_segment_mean",
        "sparse_segment_sum",
    }
    assert not hasattr(tf, "sparse_reshape")


# ---------------------------------------------------------------------------- errors
def test_kernel_level_errors_name_the_problem():
    with pytest.raises(
        tf.InvalidArgumentError, match="values has 1 entries but indices has 2 rows"
    ):
        tf.sparse.sparse_fill_empty_rows([[0, 0], [1, 0]], [5], [2, 2], 0)
    with pytest.raises(tf.InvalidArgumentError, match="dense_shape must give at least"):
        tf.sparse.sparse_fill_empty_rows(
            tf.zeros([0, 0], "int32"), tf.zeros([0]), tf.zeros([0], "int32"), 0
        )
    with pytest.raises(
        tf.InvalidArgumentError, match="input_indices has 2 columns but input_shape has rank 3"
    ):
        tf.sparse.sparse_reshape([[0, 1]], [2, 3, 4], [24])
    with pytest.raises(tf.DTypeError, match="does not support complex64"):
        tf.sparse.sparse_segment_sum(tf.complex([1.0], [2.0]), [0], [0])


def test_failed_ops_leak_nothing():
    data = tf.tensor([1.0, 2.0])
    n = tf.memory().num_tensors
    with pytest.raises(tf.InvalidArgumentError):
        tf.sparse.sparse_segment_sum(data, [0, 5], [0, 0])
    with pytest.raises(tf.InvalidArgumentError):
        tf.sparse.sparse_reshape([[0, 1]], [3, 4], [5, -1])
    assert tf.memory().num_tensors == n


# ---------------------------------------------------------------------------- properties
@settings(max_examples=60, deadline=None)
@given(st.data())
def test_segment_sum_and_mean_match_numpy(data):
    rows = data.draw(st.integers(1, 6))
    cols = data.draw(st.integers(0, 3))
    n = data.draw(st.integers(0, 10))
    idx = data.draw(st.lists(st.integers(0, rows - 1), min_size=n, max_size=n))
    seg = sorted(data.draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)))
    dtype = data.draw(st.sampled_from(["float32", "int32"]))
    rng = np.random.default_rng(n * 7 + rows)
    values = rng.integers(-50, 50, (rows, cols)).astype(dtype)
    num_out = seg[-1] + 1 if seg else 0
    want_sum = np.zeros((num_out, cols), np.float64)
    counts = np.zeros(num_out)
    for i, s in zip(idx, seg, strict=True):
        want_sum[s] += values[i]
        counts[s] += 1
    x = tf.tensor(values, [rows, cols], dtype)
    got_sum = tf.sparse.sparse_segment_sum(
        x, tf.tensor(idx, [n], "int32"), tf.tensor(seg, [n], "int32")
    )
    np.testing.assert_array_equal(got_sum.numpy(), want_sum.astype(dtype))
    mean = want_sum / np.maximum(counts, 1)[:, None]
    want_mean = np.trunc(mean).astype(dtype) if dtype == "int32" else mean.astype(np.float32)
    got_mean = tf.sparse.sparse_segment_mean(
        x, tf.tensor(idx, [n], "int32"), tf.tensor(seg, [n], "int32")
    )
    np.testing.assert_allclose(got_mean.numpy(), want_mean, rtol=1e-6)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_sparse_reshape_matches_dense_reshape(data):
    in_shape = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    size = int(np.prod(in_shape))
    divisors = [d for d in range(1, size + 1) if size % d == 0]
    first = data.draw(st.sampled_from(divisors))
    new_shape = [first, -1]
    flat = data.draw(st.lists(st.integers(0, size - 1), max_size=6, unique=True))
    indices = np.array([np.unravel_index(f, in_shape) for f in flat], dtype=np.int32).reshape(
        len(flat), len(in_shape)
    )
    r = tf.sparse.sparse_reshape(
        tf.tensor(indices, list(indices.shape), "int32"), in_shape, new_shape
    )
    out_shape = [first, size // first]
    assert r.output_shape.array_sync() == out_shape
    want = np.array([np.unravel_index(f, out_shape) for f in flat], dtype=np.int32).reshape(
        len(flat), 2
    )
    np.testing.assert_array_equal(r.output_indices.numpy(), want)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_fill_empty_rows_gives_every_row_an_entry(data):
    dense_rows = data.draw(st.integers(1, 6))
    n = data.draw(st.integers(0, 8))
    rows = data.draw(st.lists(st.integers(0, dense_rows - 1), min_size=n, max_size=n))
    cols = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    indices = np.array([rows, cols], dtype=np.int32).T.reshape(n, 2)
    values = np.arange(1, n + 1, dtype=np.float32)
    r = tf.sparse.sparse_fill_empty_rows(
        tf.tensor(indices, [n, 2], "int32"), tf.tensor(values, [n]), [dense_rows, 4], -1
    )
    out_idx = r.output_indices.numpy()
    out_val = r.output_values.numpy()
    assert sorted(set(out_idx[:, 0].tolist())) == list(range(dense_rows))
    assert np.all(np.diff(out_idx[:, 0]) >= 0)  # rows come out ordered
    reverse = r.reverse_index_map.numpy()
    np.testing.assert_array_equal(out_val[reverse], values)
    np.testing.assert_array_equal(out_idx[reverse], indices)
    empty = r.empty_row_indicator.numpy()
    assert empty.tolist() == [row not in rows for row in range(dense_rows)]
    assert (out_val == -1).sum() == empty.sum()
