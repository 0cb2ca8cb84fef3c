"""Matrices ops against TF.js goldens, plus hand-written edge cases."""

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

CASES = load_cases("matrices")


@pytest.mark.parametrize(("case", "expected"), CASES, ids=case_ids(CASES))
def test_golden(case, expected):
    check_case(case, expected)


# ---------------------------------------------------------------------------- mat_mul
def test_mat_mul_keywords_operator_and_method():
    a = tf.tensor([[1, 2, 3], [4, 5, 6]])
    b = tf.tensor([[1, 0, 2], [4, 3, 0]])
    want = np.array([[1, 2, 3], [4, 5, 6]]) @ np.array([[1, 0, 2], [4, 3, 0]]).T
    assert tf.mat_mul(a, b, transpose_b=True).array_sync() == want.tolist()
    assert a.mat_mul(b, False, True).array_sync() == want.tolist()
    assert (a @ tf.transpose(b)).array_sync() == want.tolist()
    assert tf.mat_mul(a, b, transpose_a=True).shape == [3, 3]


def test_mat_mul_kernel_uses_views_not_copies(monkeypatch):
    from tidytensor.backends.xp_kernels import matrices as kernels

    seen = []
    real_matmul = np.matmul

    class SpyXp:
        def __getattr__(self, name):
            return getattr(np, name)

        @staticmethod
        def matmul(x, y):
            seen.append((x, y))
            return real_matmul(x, y)

    a = np.arange(6, dtype=np.float32).reshape(3, 2)
    b = np.arange(6, dtype=np.float32).reshape(3, 2)
    out = kernels.batch_mat_mul(a, b, xp=SpyXp(), transpose_a=True, transpose_b=False)
    np.testing.assert_array_equal(out, a.T @ b)
    ((x, y),) = seen
    # the transpose is a view handed straight to matmul: no copy of either input
    assert np.shares_memory(x, a) and x.strides == a.T.strides and y is b
    assert out.dtype == np.float32


def test_mat_mul_inner_mismatch_message():
    with pytest.raises(
        tf.errors.ShapeError,
        match=r"Error in mat_mul: inner shapes \(3\) and \(2\) of Tensors with shapes \[2,3\] and \[2,3\] "
        r"and transpose_a=False and transpose_b=False must match\.",
    ):
        tf.mat_mul(tf.ones([2, 3]), tf.ones([2, 3]))


def test_mat_mul_rank_errors():
    with pytest.raises(tf.errors.ShapeError, match="inner shapes \\(3\\) and \\(None\\)"):
        tf.mat_mul(tf.tensor([1, 2, 3]), tf.tensor([1, 2, 3]))
    with pytest.raises(tf.errors.ShapeError, match="rank >= 2"):
        tf.mat_mul(tf.tensor([1, 2, 3]), tf.ones([3, 2]))
    with pytest.raises(tf.errors.ShapeError, match="rank >= 2"):
        tf.mat_mul(tf.scalar(2), tf.scalar(3))
    with pytest.raises(
        tf.errors.ShapeError, match=r"could not be broadcast together with shapes \[2\] and \[3\]"
    ):
        tf.mat_mul(tf.ones([2, 2, 3]), tf.ones([3, 3, 2]))
    with pytest.raises(tf.errors.DTypeError, match="mat_mul does not support complex64"):
        tf.mat_mul(np.ones((2, 2), np.complex64), np.ones((2, 2), np.complex64))


def test_mat_mul_batch_pairing_follows_tfjs():
    a = np.arange(8, dtype=np.float32).reshape(2, 1, 2, 2)
    b = np.arange(24, dtype=np.float32).reshape(2, 3, 2, 2)
    got = tf.mat_mul(a, b).numpy()
    # TF.js pairs output batch i with a[i % 2] and b[i % 6].
    a3, b3 = a.reshape(2, 2, 2), b.reshape(6, 2, 2)
    want = np.stack([a3[i % 2] @ b3[i] for i in range(6)]).reshape(2, 3, 2, 2)
    np.testing.assert_array_equal(got, want)


def test_mat_mul_broadcasts_where_tfjs_output_is_malformed():
    # TF.js returns 12 values for this [2,3,2,2] result; we broadcast instead.
    a = np.arange(8, dtype=np.float32).reshape(2, 1, 2, 2)
    b = np.arange(12, dtype=np.float32).reshape(1, 3, 2, 2)
    np.testing.assert_array_equal(tf.mat_mul(a, b).numpy(), np.matmul(a, b))
    empty = tf.mat_mul(tf.zeros([0, 2, 2]), tf.ones([2, 3]))
    assert empty.shape == [0, 2, 3]


def test_mat_mul_dtypes():
    i = tf.tensor([[1, 2], [3, 4]], dtype="int32")
    assert tf.mat_mul(i, i).dtype == "int32"
    assert tf.mat_mul(i, tf.ones([2, 2])).dtype == "float32"
    b = tf.tensor([[True, False], [True, True]])
    out = tf.mat_mul(b, b)
    assert out.dtype == "bool"
    assert out.array_sync() == [[1, 0], [1, 1]]


def test_dot_and_outer_product_keywords():
    assert tf.dot(t1=[1, 2], t2=[3, 4]).array_sync() == 11.0
    assert tf.outer_product(v1=[1, 2], v2=[3]).array_sync() == [[3.0], [6.0]]
    assert tf.tensor([1, 2]).dot(tf.tensor([[1], [1]])).array_sync() == [3.0]


# ---------------------------------------------------------------------------- transpose
def test_transpose_keywords_and_memory():
    x = tf.tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    out = tf.transpose(x, perm=[2, 0, 1])
    np.testing.assert_array_equal(out.numpy(), np.transpose(x.numpy(), (2, 0, 1)))
    before = tf.memory()
    v = tf.transpose(tf.tensor([1, 2, 3]))  # a clone: no new buffer beyond its input's
    assert tf.memory().num_data_buffers - before.num_data_buffers == 1
    assert tf.memory().num_tensors - before.num_tensors == 2
    assert v.array_sync() == [1.0, 2.0, 3.0]


def test_transpose_result_is_contiguous_copy():
    x = tf.tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    out = tf.transpose(x)
    arr = tf.engine().backend.array(out)
    assert arr.flags["C_CONTIGUOUS"]
    assert not np.shares_memory(arr, tf.engine().backend.array(x))


def test_transpose_perm_errors():
    x = tf.ones([2, 3])
    with pytest.raises(
        tf.errors.ShapeError, match="rank of input 2 must match length of perm 0,1,2"
    ):
        tf.transpose(x, [0, 1, 2])
    with pytest.raises(
        tf.errors.InvalidArgumentError,
        match="All entries in 'perm' must be between 0 and 1 but got 0,-1",
    ):
        tf.transpose(x, [0, -1])
    with pytest.raises(tf.errors.ArgumentTypeError, match="perm must hold integers"):
        tf.transpose(x, [0.5, 1])


@pytest.mark.skipif(
    not all(hasattr(tf, n) for n in ("complex", "real", "imag", "neg")), reason="needs complex ops"
)
def test_transpose_complex_and_conjugate():
    z = np.array([[1 + 2j, 3 - 1j, 0 + 1j]], dtype=np.complex64)
    x = tf.tensor(z)
    np.testing.assert_array_equal(tf.transpose(x).numpy(), z.T)
    np.testing.assert_array_equal(tf.transpose(x, None, True).numpy(), z.T.conj())


# ---------------------------------------------------------------------------- einsum
def test_einsum_identity_returns_the_input_itself():
    x = tf.tensor([[1, 2], [3, 4]])
    before = tf.memory().num_tensors
    assert tf.einsum("ij->ij", x) is x
    assert tf.memory().num_tensors == before


def test_einsum_matches_numpy():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    b = rng.standard_normal((2, 4, 5)).astype(np.float32)
    for eq, args in [
        ("bij,bjk->bik", (a, b)),
        ("bij,bjk->kib", (a, b)),
        ("bij->jb", (a,)),
        ("bij,bjk->", (a, b)),
        ("ijk->kji", (a,)),
    ]:
        np.testing.assert_allclose(
            tf.einsum(eq, *args).numpy(), np.einsum(eq, *args), rtol=1e-5, atol=1e-5
        )


def test_einsum_errors():
    x = tf.ones([2, 3])
    with pytest.raises(
        tf.errors.InvalidArgumentError, match="Equations without an arrow are not supported."
    ):
        tf.einsum("ij", x)
    with pytest.raises(
        tf.errors.InvalidArgumentError, match="Expected 2 input tensors, received 1"
    ):
        tf.einsum("ij,jk->ik", x)
    with pytest.raises(
        tf.errors.ShapeError, match=r"Expected dimension 3 at axis 0 of input shaped \[2,3\]"
    ):
        tf.einsum("ij,jk->ik", x, x)
    with pytest.raises(tf.errors.ArgumentTypeError, match="equation must be a string"):
        tf.einsum(x, x)


# ---------------------------------------------------------------------------- norms
def test_norm_keywords_and_methods():
    x = tf.tensor([[3, -4], [0, 12]])
    assert tf.norm(x, ord=1, axis=1, keep_dims=True).array_sync() == [[7.0], [12.0]]
    assert tf.norm(x, ord=float("inf"), axis=[0, 1]).array_sync() == 12.0
    assert x.norm("fro", [0, 1]).array_sync() == 13.0
    assert x.euclidean_norm(1).array_sync() == [5.0, 12.0]
    assert tf.euclidean_norm(x, axis=0, keep_dims=True).shape == [1, 2]


def test_norm_errors():
    x = tf.ones([2, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Error in norm: invalid ord value: 3"):
        tf.norm(x, 3)
    with pytest.raises(
        tf.errors.InvalidArgumentError, match="Error in norm: invalid ord value: Infinity"
    ):
        tf.norm(x, "Infinity")  # a string is not JS's Infinity
    with pytest.raises(tf.errors.InvalidArgumentError, match="Error in norm: invalid axis: 0,1,2"):
        tf.norm(tf.ones([2, 2, 2]), "fro", [0, 1, 2])


@settings(max_examples=40, deadline=None)
@given(
    hnp.arrays(
        np.float32,
        hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=5),
        elements=st.floats(-10, 10, width=32),
    ),
    st.sampled_from([1, 2, float("inf"), -float("inf"), "euclidean"]),
)
def test_vector_norms_match_numpy(arr, ord_):
    x = tf.tensor(arr)
    np_ord = 2 if ord_ == "euclidean" else ord_
    want = np.linalg.norm(arr.astype(np.float64), ord=np_ord, axis=1)
    np.testing.assert_allclose(tf.norm(x, ord_, 1).numpy(), want, rtol=1e-5, atol=1e-4)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 4),
    st.integers(1, 4),
    st.integers(0, 4),
    st.booleans(),
    st.booleans(),
    st.sampled_from([(), (3,), (2, 3), (1, 3)]),
    st.sampled_from([(), (3,), (2, 1), (1,)]),
)
def test_mat_mul_matches_numpy(m, n, kk, ta, tb, batch_a, batch_b):
    rng = np.random.default_rng(m * 100 + n * 10 + kk)
    a_shape = batch_a + ((kk, m) if ta else (m, kk))
    b_shape = batch_b + ((n, kk) if tb else (kk, n))
    a = rng.standard_normal(a_shape).astype(np.float32)
    b = rng.standard_normal(b_shape).astype(np.float32)
    got = tf.mat_mul(a, b, ta, tb).numpy()
    a2 = np.swapaxes(a, -1, -2) if ta else a
    b2 = np.swapaxes(b, -1, -2) if tb else b
    out_batch = np.broadcast_shapes(batch_a, batch_b)
    size_a, size_b = int(np.prod(batch_a)), int(np.prod(batch_b))
    total = int(np.prod(out_batch))
    if max(size_a, size_b) == total:  # TF.js's pairing: batch i uses a[i % A] and b[i % B]
        a3, b3 = a2.reshape((size_a, m, kk)), b2.reshape((size_b, kk, n))
        want = np.stack([a3[i % size_a] @ b3[i % size_b] for i in range(total)]).reshape(
            out_batch + (m, n)
        )
    else:
        want = np.matmul(a2, b2)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


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
    GradSpec("mat_mul", lambda a, b: tf.mat_mul(a, b), [[2, 3], [3, 4]]),
    GradSpec("mat_mul_transpose_a", lambda a, b: tf.mat_mul(a, b, True, False), [[3, 2], [3, 4]]),
    GradSpec("mat_mul_transpose_b", lambda a, b: tf.mat_mul(a, b, False, True), [[2, 3], [4, 3]]),
    GradSpec("mat_mul_transpose_both", lambda a, b: tf.mat_mul(a, b, True, True), [[3, 2], [4, 3]]),
    GradSpec("mat_mul_batched", lambda a, b: tf.mat_mul(a, b), [[2, 2, 3], [2, 3, 2]]),
    GradSpec("transpose", lambda x: tf.transpose(x), [[2, 3]]),
    GradSpec("transpose_perm", lambda x: tf.transpose(x, [1, 2, 0]), [[2, 3, 4]]),
    GradSpec("dot", lambda a, b: tf.dot(a, b), [[3], [3]]),
    GradSpec("dot_matrix_vector", lambda a, b: tf.dot(a, b), [[2, 3], [3]]),
    GradSpec("outer_product", lambda a, b: tf.outer_product(a, b), [[2], [3]]),
    GradSpec("norm", lambda x: tf.norm(x), [[2, 3]], 0.5, 2.0),
    GradSpec("norm_ord_1_axis", lambda x: tf.norm(x, 1, 1), [[2, 3]], 0.5, 2.0),
    GradSpec("norm_fro", lambda x: tf.norm(x, "fro", [0, 1]), [[2, 3]], 0.5, 2.0),
    GradSpec("euclidean_norm", lambda x: tf.euclidean_norm(x, 0, True), [[2, 3]], 0.5, 2.0),
]


@pytest.mark.parametrize("spec", GRAD_OPS, ids=[s.name for s in GRAD_OPS])
def test_check_grads(spec):
    tf.testing.check_grads(spec.fn, _grad_args(spec))


def test_mat_mul_gradient_with_broadcast_batch_fails_like_tfjs():
    # TF.js's BatchMatMul gradient does not sum over broadcast batch dims; the tape rejects it.
    a, b = tf.ones([2, 2, 3]), tf.ones([3, 2])
    with pytest.raises(tf.errors.TidyTensorError, match="does not match the shape of the input"):
        tf.grads(lambda a, b: tf.mat_mul(a, b))([a, b])


def test_transpose_gradient_undoes_the_permutation():
    x = tf.tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    dy = tf.tensor(np.arange(24, dtype=np.float32).reshape(3, 4, 2))
    g = tf.grad(lambda t: tf.transpose(t, [1, 2, 0]))(x, dy)
    np.testing.assert_array_equal(g.numpy(), np.transpose(dy.numpy(), [2, 0, 1]))
