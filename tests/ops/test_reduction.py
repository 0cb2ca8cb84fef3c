"""Reduction ops against TF.js goldens, plus hand-written edge cases."""

from __future__ import annotations

import zlib
from typing import Any, NamedTuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tidytensor as tf
from golden_util import case_ids, check_case, load_cases

CASES = load_cases("reduction")


@pytest.mark.parametrize(("case", "expected"), CASES, ids=case_ids(CASES))
def test_golden(case, expected):
    check_case(case, expected)


# ---------------------------------------------------------------------------- keywords, methods
def test_keyword_arguments_and_methods():
    x = tf.tensor([[1, 2, 3], [4, 5, 6]])
    assert tf.sum(x, axis=1, keep_dims=True).shape == [2, 1]
    assert tf.mean(x, keep_dims=True).array_sync() == [[3.5]]
    assert tf.max(x, axis=-1).array_sync() == [3.0, 6.0]
    assert tf.arg_max(x, axis=1).array_sync() == [2, 2]
    assert x.sum().array_sync() == 21.0
    assert x.prod(1).array_sync() == [6.0, 120.0]
    assert x.min(0, True).array_sync() == [[1.0, 2.0, 3.0]]
    assert x.arg_min(1).array_sync() == [0, 0]
    assert x.log_sum_exp(keep_dims=True).shape == [1, 1]
    b = tf.tensor([[True, False], [True, True]])
    assert b.all(1).array_sync() == [0, 1]
    assert b.any(axis=0).array_sync() == [1, 1]


def test_axis_tuple_and_numpy_ints():
    x = tf.tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    got = tf.sum(x, (np.int64(0), -1)).array_sync()
    assert got == np.arange(24).reshape(2, 3, 4).sum(axis=(0, 2)).tolist()
    assert tf.sum(x, 1.0).shape == [2, 4]  # an integral float is an integer axis, as in JS


# ---------------------------------------------------------------------------- dtypes
def test_result_dtypes():
    i = tf.tensor([1, 2, 3], dtype="int32")
    b = tf.tensor([True, False, True])
    assert tf.sum(i).dtype == "int32"
    assert tf.sum(b).dtype == "int32"
    assert tf.prod(b).dtype == "int32"
    assert tf.mean(i).dtype == "float32"
    assert tf.mean(b).dtype == "float32"
    assert tf.max(i).dtype == "int32"
    assert tf.min(b).dtype == "bool"
    assert tf.arg_max(i).dtype == "int32"
    assert tf.arg_min(b).dtype == "int32"


def test_sum_accumulates_in_double_like_tfjs():
    values = np.full(10_000, 0.1, dtype=np.float32)
    got = tf.sum(tf.tensor(values)).data_sync()[0]
    assert got == np.float32(values.astype(np.float64).sum())


def test_int32_sum_and_prod_wrap():
    assert tf.sum(tf.tensor([2147483647, 2], dtype="int32")).array_sync() == -2147483647
    assert tf.prod(tf.tensor([65536, 65536], dtype="int32")).array_sync() == 0


def test_complex_inputs():
    z = tf.tensor(np.array([1 + 2j, 3 - 1j], dtype=np.complex64))
    for fn in (tf.sum, tf.prod, tf.max, tf.min, tf.arg_max, tf.arg_min):
        with pytest.raises(tf.errors.DTypeError, match="does not support complex64"):
            fn(z)
    # TF.js's Mean casts to float32 first, which keeps the real part.
    assert tf.mean(z).array_sync() == 2.0


# ---------------------------------------------------------------------------- errors
@pytest.mark.parametrize("fn", [tf.sum, tf.prod, tf.mean, tf.max, tf.min, tf.log_sum_exp])
def test_axis_errors_name_the_op(fn):
    x = tf.tensor([[1, 2], [3, 4]])
    with pytest.raises(
        tf.errors.InvalidArgumentError, match=r"must be in range \[-2, 2\) but got axis 2"
    ):
        fn(x, 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be integers but got axis 0.5"):
        fn(x, 0.5)
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be integers but got axis a"):
        fn(x, "a")


def test_bool_only_errors():
    with pytest.raises(
        tf.errors.DTypeError, match="Argument 'x' passed to 'all' must be bool tensor"
    ):
        tf.all(tf.tensor([1.0, 0.0]))
    with pytest.raises(
        tf.errors.DTypeError, match="passed to 'any' must be bool tensor, but got int32"
    ):
        tf.any(tf.tensor([1], dtype="int32"))


def test_arg_max_axis_errors():
    x = tf.tensor([[1, 2], [3, 4]])
    with pytest.raises(
        tf.errors.InvalidArgumentError,
        match="arg_max supports only inner-most axes for now. Got axes 0 and rank-2 input.",
    ):
        tf.arg_max(x, [0, 1])
    with pytest.raises(
        tf.errors.InvalidArgumentError, match="arg_min supports only inner-most axes"
    ):
        tf.arg_min(x, [])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"range \[-0, 0\)"):
        tf.arg_max(tf.scalar(1))


def test_bincount_errors():
    x = tf.tensor([1, 2], dtype="int32")
    with pytest.raises(
        tf.errors.DTypeError, match="Error in bincount: input dtype must be int32, but got float32"
    ):
        tf.bincount(tf.tensor([1.0]), [], 3)
    with pytest.raises(
        tf.errors.InvalidArgumentError, match="size must be non-negative, but got -1."
    ):
        tf.bincount(x, [], -1)
    with pytest.raises(
        tf.errors.InvalidArgumentError, match="size must be an integer, but got 2.5"
    ):
        tf.bincount(x, [], 2.5)
    with pytest.raises(tf.errors.ShapeError, match="weights must have the same size as input"):
        tf.bincount(x, [1.0], 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input x must be non-negative!"):
        tf.bincount(tf.tensor([3, -1], dtype="int32"), [], 2)
    with pytest.raises(tf.errors.ShapeError, match="must be at most rank 2, but got rank 3."):
        tf.dense_bincount(tf.tensor([[[1]]], dtype="int32"), [], 2)
    with pytest.raises(tf.errors.ShapeError, match="weights must have the same shape as x"):
        tf.dense_bincount(tf.tensor([[1, 2, 1], [0, 0, 1]], dtype="int32"), tf.ones([3, 2]), 3)


def test_bincount_keywords_and_bool_weights():
    x = tf.tensor([[0, 1, 1], [2, 2, 2]], dtype="int32")
    out = tf.dense_bincount(x, tf.tensor([], dtype="int32"), size=3, binary_output=True)
    assert out.dtype == "int32"
    assert out.array_sync() == [[1, 1, 0], [0, 0, 1]]
    weighted = tf.bincount(tf.tensor([0, 0, 1], dtype="int32"), tf.tensor([True, True, False]), 2)
    assert weighted.dtype == "bool"
    assert weighted.array_sync() == [1, 0]


# ---------------------------------------------------------------------------- memory
def test_reductions_free_their_temporaries():
    x = tf.tensor([[True, False], [True, True]])
    before = tf.memory()
    outs = [tf.sum(x), tf.prod(x), tf.log_sum_exp(tf.tensor([1.0, 2.0]), 0, True)]
    after = tf.memory()
    # the input made for log_sum_exp, plus one result per op: every temporary is freed
    assert after.num_tensors - before.num_tensors == 4
    assert after.num_data_buffers - before.num_data_buffers == 4
    tf.dispose(outs)


# ---------------------------------------------------------------------------- properties
@st.composite
def _array_and_axes(draw, dtype=np.float32):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=4))
    elements = st.floats(-100, 100, width=32) if dtype == np.float32 else st.integers(-50, 50)
    arr = draw(hnp.arrays(dtype, shape, elements=elements))
    axes = draw(
        st.lists(
            st.integers(-len(shape), len(shape) - 1),
            unique_by=lambda a: a % len(shape),
            max_size=len(shape),
        )
    )
    return arr, axes


@settings(max_examples=60, deadline=None)
@given(_array_and_axes(), st.booleans())
def test_reductions_match_numpy(data, keep_dims):
    arr, axes = data
    ax = tuple(a % arr.ndim for a in axes)
    x = tf.tensor(arr)
    want_sum = arr.astype(np.float64).sum(axis=ax, keepdims=keep_dims)
    np.testing.assert_allclose(tf.sum(x, axes, keep_dims).numpy(), want_sum, rtol=1e-5, atol=1e-3)
    np.testing.assert_array_equal(
        tf.max(x, axes, keep_dims).numpy(), arr.max(axis=ax, keepdims=keep_dims)
    )
    np.testing.assert_array_equal(
        tf.min(x, axes, keep_dims).numpy(), arr.min(axis=ax, keepdims=keep_dims)
    )
    want_mean = arr.astype(np.float64).mean(axis=ax, keepdims=keep_dims)
    np.testing.assert_allclose(tf.mean(x, axes, keep_dims).numpy(), want_mean, rtol=1e-4, atol=1e-3)
    tf.dispose(x)


@settings(max_examples=40, deadline=None)
@given(_array_and_axes(np.int32))
def test_arg_max_matches_numpy_first_index(data):
    arr, _ = data
    x = tf.tensor(arr)
    for axis in range(arr.ndim):
        np.testing.assert_array_equal(tf.arg_max(x, axis).numpy(), arr.argmax(axis=axis))
        np.testing.assert_array_equal(tf.arg_min(x, axis).numpy(), arr.argmin(axis=axis))


# ---------------------------------------------------------------------------- gradient checks
class GradSpec(NamedTuple):
    name: str
    fn: Any
    shapes: list
    low: float = -2.0
    high: float = 2.0


def _grad_args(spec):
    rng = np.random.default_rng(zlib.crc32(spec.name.encode()))  # stable across runs
    return [
        tf.tensor(rng.uniform(spec.low, spec.high, s).astype(np.float32), s) for s in spec.shapes
    ]


GRAD_OPS = [
    GradSpec("sum", lambda x: tf.sum(x), [[2, 3]]),
    GradSpec("sum_axis_keep", lambda x: tf.sum(x, 1, True), [[2, 3]]),
    GradSpec("sum_axes_3d", lambda x: tf.sum(x, [0, 2]), [[2, 3, 2]]),
    GradSpec("mean", lambda x: tf.mean(x), [[2, 3]]),
    GradSpec("mean_axis", lambda x: tf.mean(x, -1), [[3, 4]]),
    GradSpec("mean_axes_keep", lambda x: tf.mean(x, [0, 2], True), [[2, 3, 2]]),
    GradSpec("max", lambda x: tf.max(x), [[2, 3]]),
    GradSpec("max_axis", lambda x: tf.max(x, 1), [[3, 4]]),
    GradSpec("max_axes_keep", lambda x: tf.max(x, [0, 2], True), [[2, 3, 2]]),
    GradSpec("min", lambda x: tf.min(x), [[2, 3]]),
    GradSpec("min_axis", lambda x: tf.min(x, 0), [[3, 4]]),
    GradSpec("prod", lambda x: tf.prod(x), [[2, 3]], 0.5, 1.5),
    GradSpec("prod_axis", lambda x: tf.prod(x, 1), [[3, 4]], -1.5, 1.5),
    GradSpec("prod_leading_axis", lambda x: tf.prod(x, 0, True), [[3, 2]], -1.5, 1.5),
    GradSpec("prod_axes_3d", lambda x: tf.prod(x, [2, 0]), [[2, 3, 2]], 0.5, 1.5),
    GradSpec("arg_max", lambda x: tf.arg_max(x, 1), [[3, 4]]),
    GradSpec("arg_min", lambda x: tf.arg_min(x), [[3, 4]]),
    GradSpec("log_sum_exp", lambda x: tf.log_sum_exp(x, 1), [[2, 3]]),
]


@pytest.mark.parametrize("spec", GRAD_OPS, ids=[s.name for s in GRAD_OPS])
def test_check_grads(spec):
    tf.testing.check_grads(spec.fn, _grad_args(spec))


def test_max_gradient_goes_to_every_tie():
    g = tf.grad(lambda x: tf.max(x, 1))(tf.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 1.0]]))
    assert g.array_sync() == [[0.0, 1.0, 1.0], [1.0, 1.0, 0.0]]


def test_prod_gradient_with_zeros_uses_exclusive_products():
    g = tf.grad(lambda x: tf.prod(x, 1))(tf.tensor([[1.0, 0.0, 3.0], [0.0, 0.0, 2.0]]))
    assert g.array_sync() == [[0.0, 3.0, 0.0], [0.0, 0.0, 0.0]]


def test_prod_gradient_with_a_negative_axis():
    # TF.js 4.22.0's Prod gradient fails for a negative axis (it permutes with the raw -1);
    # here the axis reaches the gradient already normalized, so it works.
    g = tf.grad(lambda x: tf.prod(x, -1))(tf.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    assert g.array_sync() == [[6.0, 3.0, 2.0], [30.0, 24.0, 20.0]]


def test_reduction_gradients_free_their_temporaries():
    x = tf.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    for fn in (tf.sum, tf.mean, tf.max, tf.min, tf.prod, tf.arg_max):
        before = tf.memory().num_tensors
        tf.grad(lambda x, fn=fn: fn(x, 1))(x).dispose()
        assert tf.memory().num_tensors == before, fn.__name__


# ---------------------------------------------------------------------------- repeated axes
@pytest.mark.parametrize("axis", [[0, 0], [2, 0, 2], [1, 1]])
@pytest.mark.parametrize("keep_dims", [False, True])
def test_repeated_axes_keep_dims_and_gradients(axis, keep_dims):
    """Repeated axes reduce the dims the kernels reduce (TF.js's permutation) in every path:
    keepDims shapes of the composite reductions and the gradients (no StopIteration)."""
    x = tf.random_uniform([2, 2, 3], 0.5, 2, "float32", 3)
    plain = tf.sum(x, axis, True).shape
    fns = [tf.sum, tf.mean, tf.max, tf.min, tf.prod, tf.log_sum_exp]
    fns.append(lambda t, a, k: tf.moments(t, a, k).variance)
    if len(axis) <= 2:
        fns.append(tf.euclidean_norm)
    for fn in fns:
        if keep_dims:
            assert fn(x, axis, True).shape == plain
        tf.testing.check_grads(lambda t, fn=fn: fn(t, axis, keep_dims), [x])
