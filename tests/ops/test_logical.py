"""Logical ops against TF.js goldens, plus hand-written edge cases."""

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

CASES = load_cases("logical")


@pytest.mark.parametrize(("case", "expected"), CASES, ids=case_ids(CASES))
def test_golden(case, expected):
    check_case(case, expected)


# ---------------------------------------------------------------------------- operators, methods
def test_operators_and_methods():
    a = tf.tensor([1, 2, 3])
    b = tf.tensor([3, 2, 1])
    assert (a == b).array_sync() == [0, 1, 0]
    assert (a != b).array_sync() == [1, 0, 1]
    assert (a < b).array_sync() == [1, 0, 0]
    assert (a <= b).array_sync() == [1, 1, 0]
    assert (a > 2).array_sync() == [0, 0, 1]
    assert (a >= 2).array_sync() == [0, 1, 1]
    t = tf.tensor([True, True, False])
    f = tf.tensor([True, False, False])
    assert (t & f).array_sync() == [1, 0, 0]
    assert (t | f).array_sync() == [1, 1, 0]
    assert (t ^ f).array_sync() == [0, 1, 0]
    assert (~t).array_sync() == [0, 0, 1]
    assert a.greater_equal(b).array_sync() == [0, 1, 1]
    assert t.logical_xor(f).array_sync() == [0, 1, 0]
    assert t.logical_not().array_sync() == [0, 0, 1]


def test_comparison_dtypes_and_keywords():
    out = tf.less(a=tf.tensor([1, 2], dtype="int32"), b=1.5)
    assert out.dtype == "bool"
    assert out.array_sync() == [1, 0]
    assert tf.equal(tf.tensor(["x", "y"]), "y").array_sync() == [0, 1]


def test_logical_errors():
    with pytest.raises(
        tf.errors.DTypeError,
        match="Argument 'a' passed to 'logical_and' must be bool tensor, but got float32 tensor",
    ):
        tf.logical_and(tf.tensor([1.0]), tf.tensor([True]))
    with pytest.raises(
        tf.errors.DTypeError,
        match="Argument 'x' passed to 'logical_not' must be bool tensor, but got int32",
    ):
        tf.logical_not(tf.tensor([1], dtype="int32"))
    with pytest.raises(
        tf.errors.ShapeError, match=r"could not be broadcast together with shapes \[3\] and \[2\]"
    ):
        tf.logical_xor(tf.tensor([True, True, False]), tf.tensor([True, False]))
    with pytest.raises(tf.errors.DTypeError, match="Can not upcast string with float32"):
        tf.equal(tf.tensor(["a"]), tf.tensor([1.0]))


def test_bitwise_and_errors():
    with pytest.raises(
        tf.errors.ShapeError, match="BitwiseAnd: Tensors must have the same shape. x: 2, y: 1"
    ):
        tf.bitwise_and(tf.tensor([1, 2], dtype="int32"), tf.tensor([1], dtype="int32"))
    with pytest.raises(
        tf.errors.DTypeError,
        match="BitwiseAnd: Only supports 'int32' values in tensor, found type of x: int32 and type of y: float32",
    ):
        tf.bitwise_and(tf.tensor([1], dtype="int32"), tf.tensor([1.0]))


def test_logical_xor_frees_its_temporaries():
    a = tf.tensor([True, False])
    b = tf.tensor([True, True])
    before = tf.memory()
    out = tf.logical_xor(a, b)
    after = tf.memory()
    assert after.num_tensors - before.num_tensors == 1
    assert after.num_data_buffers - before.num_data_buffers == 1
    assert out.array_sync() == [0, 1]


# ---------------------------------------------------------------------------- where
def test_where_keywords_dtype_and_memory():
    cond = tf.tensor([[True], [False]])
    a = tf.tensor([1, 2], dtype="int32")
    b = tf.tensor([[0.5], [1.5]])
    before = tf.memory()
    out = tf.where(condition=cond, a=a, b=b)
    after = tf.memory()
    assert out.dtype == "float32"
    assert out.array_sync() == [[1.0, 2.0], [1.5, 1.5]]
    assert after.num_tensors - before.num_tensors == 1
    assert after.num_data_buffers - before.num_data_buffers == 1


def test_where_errors():
    with pytest.raises(
        tf.errors.DTypeError, match="Argument 'condition' passed to 'where' must be bool tensor"
    ):
        tf.where(tf.tensor([1.0]), 1, 2)
    with pytest.raises(
        tf.errors.ShapeError, match=r"could not be broadcast together with shapes \[3\] and \[2\]"
    ):
        tf.where(tf.tensor([True, False, True]), tf.tensor([1, 2]), 0)
    with pytest.raises(tf.errors.DTypeError, match="passed to 'where' must be numeric tensor"):
        tf.where(tf.tensor([True]), tf.tensor(["a"]), tf.tensor(["b"]))


@settings(max_examples=50, deadline=None)
@given(
    hnp.mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=3, min_side=1, max_side=3),
    st.integers(0, 2**31 - 1),
)
def test_where_matches_numpy(shapes, seed):
    rng = np.random.default_rng(seed)
    c_shape, a_shape, b_shape = shapes.input_shapes
    cond = rng.random(c_shape) > 0.5
    a = rng.standard_normal(a_shape).astype(np.float32)
    b = rng.standard_normal(b_shape).astype(np.float32)
    got = tf.where(cond, a, b).numpy()
    np.testing.assert_array_equal(got, np.where(cond, a, b))


@settings(max_examples=50, deadline=None)
@given(
    hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, min_side=1, max_side=3),
    st.integers(0, 2**31 - 1),
)
def test_comparisons_match_numpy(shapes, seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(-2, 3, shapes.input_shapes[0]).astype(np.int32)
    b = rng.integers(-2, 3, shapes.input_shapes[1]).astype(np.float32)
    ta, tb = tf.tensor(a), tf.tensor(b)
    for fn, ref in [
        (tf.equal, np.equal),
        (tf.not_equal, np.not_equal),
        (tf.greater, np.greater),
        (tf.greater_equal, np.greater_equal),
        (tf.less, np.less),
        (tf.less_equal, np.less_equal),
    ]:
        out = fn(ta, tb)
        assert out.dtype == "bool"
        np.testing.assert_array_equal(out.numpy(), ref(a, b))


# ---------------------------------------------------------------------------- where_async
def test_where_async_coordinates():
    cond = tf.tensor([[True, False, True], [False, False, True]])
    out = tf.where_async(cond)
    assert out.dtype == "int32"
    assert out.shape == [3, 2]
    assert out.array_sync() == [[0, 0], [0, 2], [1, 2]]


def test_where_async_edges():
    assert tf.where_async(tf.tensor([False, False])).shape == [0, 1]
    assert tf.where_async(tf.scalar(True)).shape == [1, 0]
    assert tf.where_async(tf.scalar(False)).shape == [0, 0]
    assert tf.where_async(tf.zeros([2, 0, 3], "bool")).shape == [0, 3]
    with pytest.raises(
        tf.errors.DTypeError,
        match="Argument 'condition' passed to 'where_async' must be bool tensor",
    ):
        tf.where_async(tf.tensor([1.0, 0.0]))


def test_where_async_memory():
    cond = tf.tensor([True, False, True])
    before = tf.memory()
    out = tf.where_async(cond)
    assert tf.memory().num_tensors - before.num_tensors == 1
    assert not cond.is_disposed
    # A TensorLike condition is converted and disposed again: only the result remains.
    out2 = tf.where_async([[True, False], [False, True]])
    assert tf.memory().num_tensors - before.num_tensors == 2
    assert tf.memory().num_data_buffers - before.num_data_buffers == 2
    assert out2.array_sync() == [[0, 0], [1, 1]]
    assert out.array_sync() == [[0], [2]]


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


def _cond(shape):
    return tf.tensor((np.arange(int(np.prod(shape))) % 3 == 0).reshape(shape))


GRAD_OPS = [
    GradSpec("where", lambda a, b: tf.where(_cond([2, 3]), a, b), [[2, 3], [2, 3]]),
    GradSpec("where_only_a", lambda a: tf.where(_cond([4]), a, tf.zeros([4])), [[4]]),
    GradSpec("greater_equal", lambda a, b: tf.greater_equal(a, b), [[2, 3], [2, 3]]),
]


@pytest.mark.parametrize("spec", GRAD_OPS, ids=[s.name for s in GRAD_OPS])
def test_check_grads(spec):
    tf.testing.check_grads(spec.fn, _grad_args(spec))


def test_where_gradient_splits_dy_by_condition():
    c = tf.tensor([True, False, True])
    ga, gb = tf.grads(lambda a, b: tf.where(c, a, b))(
        [tf.ones([3]), tf.ones([3])], tf.tensor([1.0, 2.0, 3.0])
    )
    assert ga.array_sync() == [1.0, 0.0, 3.0]
    assert gb.array_sync() == [0.0, 2.0, 0.0]


def test_greater_equal_gradient_is_zero():
    ga, gb = tf.grads(lambda a, b: tf.greater_equal(a, b))(
        [tf.tensor([1.0, 2.0]), tf.tensor([2.0, 2.0])]
    )
    assert ga.array_sync() == [0.0, 0.0] and gb.array_sync() == [0.0, 0.0]


def test_other_comparisons_have_no_gradient():
    for fn in (tf.greater, tf.less, tf.equal):
        with pytest.raises(tf.errors.TidyTensorError, match="gradient function not found"):
            tf.grads(lambda a, b, fn=fn: fn(a, b))([tf.tensor([1.0]), tf.tensor([2.0])])
