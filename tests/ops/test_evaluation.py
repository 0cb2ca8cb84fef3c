"""Evaluation ops (topk, unique, search_sorted, lower/upper_bound, in_top_k_async,
tf.math.confusion_matrix) against TF.js goldens, plus the result objects, edge cases, errors
and properties vs NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import golden_util
import tidytensor as tf
from golden_util import call_case, case_ids, check_case, load_cases
from tidytensor.ops import evaluation
from tidytensor.ops.evaluation import TopKResult, UniqueResult, confusion_matrix

CASES = load_cases("evaluation")


@pytest.mark.parametrize(("case", "expected"), CASES, ids=case_ids(CASES))
def test_golden(case, expected):
    check_case(case, expected)


def _int_parts(encoded):
    if "object" in encoded:
        return [e for e in encoded["object"].values() if e.get("dtype") == "int32"]
    return [encoded] if encoded.get("dtype") == "int32" else []


EXACT = [(c, e) for c, e in CASES if "error" not in e and _int_parts(e)]


@pytest.mark.parametrize(("case", "expected"), EXACT, ids=case_ids(EXACT))
def test_golden_integers_exact(case, expected):
    """Indices and int32 values must match TF.js exactly (the golden tolerance is relative)."""
    got = _int_parts(golden_util.encode(call_case(case)))
    assert [[int(v) for v in part["values"]] for part in got] == [
        part["values"] for part in _int_parts(expected)
    ]


def i32(values):
    return tf.tensor(values, None, "int32")


# ---------------------------------------------------------------------------- result objects
def test_topk_result_object():
    r = tf.topk(tf.tensor([20, 10, 40, 30]), 2)
    assert isinstance(r, TopKResult)
    assert r.values.array_sync() == [40.0, 30.0]
    assert r["indices"].array_sync() == [2, 3]
    assert r["values"] is r.values and r[1] is r.indices
    values, indices = r
    assert indices.dtype == "int32" and values is r.values
    with pytest.raises(KeyError):
        r["other"]


def test_unique_result_object():
    r = tf.unique(tf.tensor([1, 1, 2]))
    assert isinstance(r, UniqueResult)
    assert r["values"].array_sync() == [1.0, 2.0]
    values, indices = r
    assert indices.array_sync() == [0, 0, 1]


def test_results_survive_tidy_and_count_two_tensors():
    x = tf.tensor([3, 1, 2])
    before = tf.memory().num_tensors
    r = tf.tidy(lambda: tf.topk(x.add(1), 2))
    u = tf.tidy(lambda: tf.unique(x.mul(0)))
    assert tf.memory().num_tensors == before + 4
    assert not r.values.is_disposed and not r.indices.is_disposed
    assert u.values.array_sync() == [0.0]
    tf.dispose([r, u])
    assert tf.memory().num_tensors == before


def test_methods_and_keywords():
    x = tf.tensor([[5, 1, 7], [2, 9, 4]])
    assert x.topk(k=2).indices.array_sync() == [[2, 0], [1, 2]]
    assert tf.topk(x, k=3, sorted=False).indices.array_sync() == [[0, 1, 2], [0, 1, 2]]
    assert tf.unique(x, axis=1).indices.array_sync() == [0, 1, 2]
    assert tf.search_sorted(sorted_sequence=[1, 3], values=[2], side="right").array_sync() == [[1]]
    assert tf.in_top_k_async(x, i32([2, 1]), k=1).array_sync() == [1, 1]
    assert confusion_matrix([0, 1], [1, 1], num_classes=2).array_sync() == [[0, 1], [0, 1]]


def test_kernels_run():
    x = tf.tensor([3, 1, 2])
    assert tf.profile(lambda: tf.topk(x)).kernel_names == ["TopK"]
    assert tf.profile(lambda: tf.unique(x)).kernel_names == ["Unique"]
    assert "SearchSorted" in tf.profile(lambda: tf.lower_bound(x, x)).kernel_names


def test_confusion_matrix_is_only_under_math():
    assert "confusion_matrix" not in evaluation.__all__
    assert "confusion_matrix" not in tf.__all__


def test_in_top_k_async_disposes_converted_inputs():
    before = tf.memory().num_tensors
    out = tf.in_top_k_async([[1.0, 2.0]], [1], 1)
    assert out.dtype == "bool" and out.array_sync() == [1]
    assert tf.memory().num_tensors == before + 1


# ---------------------------------------------------------------------------- edge cases
def test_topk_nan_follows_tfjs_selection():
    x = tf.tensor([1, np.nan, 3, np.nan, 2])
    assert tf.topk(x, 3).indices.array_sync() == [2, 4, 0]
    assert tf.topk(x, 5).indices.array_sync() == [0, 1, 2, 3, 4]


def test_topk_unsorted_uses_selection_order():
    assert tf.topk(tf.tensor([5, 1, 7, 3, 9, 2, 8]), 3, False).indices.array_sync() == [6, 4, 2]


def test_unique_strings_are_keyed_by_their_bytes_like_tfjs():
    # TF.js joins the slices' UTF-8 bytes with commas, so these two rows are "equal".
    r = tf.unique(tf.tensor([["ab", "c"], ["a", "bc"], ["x", "y"]]))
    assert r.indices.array_sync() == [0, 0, 1]
    assert r.values.array_sync() == [["ab", "c"], ["x", "y"]]


def test_unique_zero_width_slices():
    r = tf.unique(tf.zeros([3, 0]))
    assert r.values.shape == [1, 0] and r.indices.array_sync() == [0, 0, 0]


def test_search_sorted_output_shape_is_two_dimensional():
    assert tf.search_sorted(tf.tensor([1, 2, 3]), tf.tensor([2])).shape == [1, 1]
    assert tf.upper_bound(tf.ones([2, 3, 4]), tf.ones([6, 5])).shape == [6, 5]


# ---------------------------------------------------------------------------- errors
def test_topk_errors():
    with pytest.raises(
        tf.errors.ShapeError, match=r"topk\(\) expects the input to be of rank 1 or higher"
    ):
        tf.topk(tf.scalar(1))
    with pytest.raises(
        tf.errors.InvalidArgumentError, match="'k' passed to topk\\(\\) must be >= 0 but got -1"
    ):
        tf.topk(tf.tensor([1, 2]), -1)
    with pytest.raises(
        tf.errors.InvalidArgumentError, match=r"must be <= the last dimension \(2\) but got 3"
    ):
        tf.topk(tf.tensor([1, 2]), 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be an integer but got 1.5"):
        tf.topk(tf.tensor([1, 2]), 1.5)
    with pytest.raises(tf.errors.DTypeError, match="topk does not support complex64"):
        tf.topk(tf.complex([1.0], [1.0]))


def test_unique_errors():
    with pytest.raises(tf.errors.ShapeError, match="The input tensor must be at least 1D"):
        tf.unique(tf.scalar(1))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"range \[-1, 1\) but got axis 1"):
        tf.unique(tf.tensor([1, 2]), 1)
    with pytest.raises(tf.errors.DTypeError, match="unique does not support complex64"):
        tf.unique(tf.complex([1.0], [1.0]))


def test_search_sorted_errors():
    with pytest.raises(
        tf.errors.ShapeError, match="Leading dimension of 'sortedSequence' and 'values' must match."
    ):
        tf.search_sorted(tf.ones([2, 2]), tf.ones([3, 1]))
    with pytest.raises(tf.errors.ShapeError, match="'sortedSequence' must be at least 1-D"):
        tf.lower_bound(tf.scalar(1), tf.tensor([1]))
    with pytest.raises(tf.errors.ShapeError, match="'values' must be at least 1-D"):
        tf.upper_bound(tf.tensor([1]), tf.scalar(1))
    with pytest.raises(
        tf.errors.TidyTensorError, match=r"cannot infer the missing size in \[-1,0\]"
    ):
        tf.search_sorted(tf.tensor([]), tf.tensor([1]))
    with pytest.raises(
        tf.errors.DTypeError, match="Argument 'values' passed to 'search_sorted' must be numeric"
    ):
        tf.search_sorted(tf.tensor([1]), tf.tensor(["a"]))


def test_in_top_k_errors():
    p = tf.tensor([[1, 2, 3]])
    with pytest.raises(
        tf.errors.InvalidArgumentError,
        match=r"must be > 0 && <= the predictions last dimension \(3\), but got 0",
    ):
        tf.in_top_k_async(p, i32([0]), 0)
    with pytest.raises(tf.errors.ShapeError, match="rank 2 or higher, but got 1"):
        tf.in_top_k_async(tf.tensor([1, 2]), i32([0]))
    with pytest.raises(tf.errors.ShapeError, match="predictions rank 2 and targets rank 0"):
        tf.in_top_k_async(p, tf.scalar(0, "int32"))
    with pytest.raises(tf.errors.ShapeError, match="Shapes 1 and 2 must match"):
        tf.in_top_k_async(p, i32([0, 1]))


def test_confusion_matrix_errors():
    with pytest.raises(
        tf.errors.InvalidArgumentError,
        match="If provided, num_classes must be a positive integer, but got -1",
    ):
        confusion_matrix([0], [0], -1)
    with pytest.raises(
        tf.errors.InvalidArgumentError,
        match="num_classes is required to be a positive integer, but got None",
    ):
        confusion_matrix([0], [0])
    with pytest.raises(
        tf.errors.ShapeError, match="Expected the rank of labels to be 1, but got 0"
    ):
        confusion_matrix(tf.scalar(0), [0], 2)
    with pytest.raises(tf.errors.ShapeError, match="Mismatch in the number of examples: 1 vs. 2."):
        confusion_matrix([0], [0, 1], 2)


# ---------------------------------------------------------------------------- properties
@settings(max_examples=60, deadline=None)
@given(
    arr=hnp.arrays(
        np.int32, hnp.array_shapes(min_dims=1, max_dims=3, max_side=6), elements=st.integers(-5, 5)
    ),
    data=st.data(),
)
def test_topk_matches_stable_sort(arr, data):
    k = data.draw(st.integers(0, arr.shape[-1]))
    r = tf.topk(tf.tensor(arr, None, "int32"), k)
    order = np.argsort(-arr.astype(np.int64), axis=-1, kind="stable")[..., :k]
    np.testing.assert_array_equal(r.indices.numpy(), order)
    np.testing.assert_array_equal(r.values.numpy(), np.take_along_axis(arr, order, -1))
    unsorted = tf.topk(tf.tensor(arr, None, "int32"), k, False).indices.numpy()
    np.testing.assert_array_equal(np.sort(unsorted, -1), np.sort(order, -1))


def test_topk_unsorted_selection_on_long_rows_picks_the_top_set():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 2000)).astype(np.float32)
    got = tf.topk(tf.tensor(x), 50, False).indices.numpy()
    want = np.argsort(-x, axis=-1, kind="stable")[:, :50]
    np.testing.assert_array_equal(np.sort(got, -1), np.sort(want, -1))


@settings(max_examples=60, deadline=None)
@given(
    arr=hnp.arrays(
        np.float32,
        st.integers(1, 12),
        elements=st.sampled_from([0.0, -0.0, 1.5, -2.0, np.nan, 7.0]),
    )
)
def test_unique_matches_first_occurrence(arr):
    r = tf.unique(tf.tensor(arr))
    keys = ["nan" if np.isnan(v) else float(v) + 0.0 for v in arr]
    first = list(dict.fromkeys(keys))
    assert r.indices.array_sync() == [first.index(k) for k in keys]
    np.testing.assert_array_equal(r.values.numpy(), arr[[keys.index(k) for k in first]])


@settings(max_examples=60, deadline=None)
@given(
    seq=hnp.arrays(np.float32, st.integers(1, 20), elements=st.integers(-10, 10).map(float)),
    vals=hnp.arrays(np.float32, st.integers(1, 8), elements=st.floats(-12, 12, width=32)),
    side=st.sampled_from(["left", "right"]),
)
def test_search_sorted_matches_numpy_on_sorted_input(seq, vals, side):
    seq = np.sort(seq)
    got = tf.search_sorted(tf.tensor(seq), tf.tensor(vals), side).numpy()
    np.testing.assert_array_equal(got[0], np.searchsorted(seq, vals, side))


@settings(max_examples=40, deadline=None)
@given(
    preds=hnp.arrays(
        np.float32,
        st.tuples(st.integers(1, 4), st.integers(1, 6)),
        elements=st.integers(-3, 3).map(float),
    ),
    data=st.data(),
)
def test_in_top_k_matches_stable_ranking(preds, data):
    b, n = preds.shape
    targets = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=b, max_size=b)), np.int32)
    k = data.draw(st.integers(1, n))
    got = tf.in_top_k_async(tf.tensor(preds), tf.tensor(targets, None, "int32"), k).numpy()
    ranks = np.argsort(-preds, axis=-1, kind="stable")[:, :k]
    np.testing.assert_array_equal(got, [t in row for t, row in zip(targets, ranks, strict=True)])


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_confusion_matrix_matches_counts(data):
    n = data.draw(st.integers(1, 15))
    c = data.draw(st.integers(2, 5))
    labels = np.array(data.draw(st.lists(st.integers(0, c - 1), min_size=n, max_size=n)), np.int32)
    preds = np.array(data.draw(st.lists(st.integers(0, c - 1), min_size=n, max_size=n)), np.int32)
    want = np.zeros((c, c), np.int32)
    np.add.at(want, (labels, preds), 1)
    got = confusion_matrix(tf.tensor(labels, None, "int32"), tf.tensor(preds, None, "int32"), c)
    assert got.dtype == "int32"
    np.testing.assert_array_equal(got.numpy(), want)
