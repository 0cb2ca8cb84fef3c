"""Normalization ops against TF.js goldens, plus gradient checks, edge cases, errors and
properties vs NumPy."""

from __future__ import annotations

import zlib
from typing import NamedTuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tidytensor as tf
from golden_util import call_case, case_ids, check_case, load_cases
from tidytensor.kernel_registry import get_gradient

CASES = load_cases("normalization")


@pytest.mark.parametrize(("case", "expected"), CASES, ids=case_ids(CASES))
def test_golden(case, expected):
    check_case(case, expected)


EXACT = [(c, e) for c, e in CASES if e.get("dtype") in ("int32", "bool", "string")]


@pytest.mark.parametrize(("case", "expected"), EXACT, ids=case_ids(EXACT))
def test_golden_exact(case, expected):
    """int32, bool and string results must match TF.js exactly."""
    got = call_case(case)
    assert got.dtype == expected["dtype"]
    values = got.data_sync()
    if got.dtype == "string":
        assert list(values) == expected["values"]
    else:
        assert [int(v) for v in np.asarray(values).reshape(-1)] == expected["values"]


# ---------------------------------------------------------------------------- gradient checks
class GradSpec(NamedTuple):
    name: str
    fn: object
    shapes: list
    low: float = -2.0
    high: float = 2.0
    kernels: tuple = ()  # the kernels whose registered gradient this case exercises


GRAD_OPS = [
    GradSpec(
        "batch_norm",
        lambda x, m, v, o, s: tf.batch_norm(x, m, v, o, s),
        [[3, 4], [4], [4], [4], [4]],
        kernels=("FusedBatchNorm",),
    ),
    GradSpec(
        "batch_norm_no_scale_offset",
        lambda x, m, v: tf.batch_norm(x, m, v),
        [[2, 3, 4], [4], [4]],
        kernels=("FusedBatchNorm",),
    ),
    GradSpec(
        "batch_norm_offset_only",
        lambda x, m, v, o: tf.batch_norm(x, m, v, o, None, 0.1),
        [[5], [5], [5], [5]],
        kernels=("FusedBatchNorm",),
    ),
    GradSpec(
        "batch_norm_scale_only",
        lambda x, m, v, s: tf.batch_norm(x, m, v, None, s),
        [[2, 3], [3], [3], [3]],
        kernels=("FusedBatchNorm",),
    ),
    GradSpec(
        "batch_norm_full_shape_params",
        lambda x, m, v, o, s: tf.batch_norm(x, m, v, o, s),
        [[2, 3], [2, 3], [2, 3], [2, 3], [2, 3]],
        kernels=("FusedBatchNorm",),
    ),
    GradSpec(
        "batch_norm2d",
        lambda x, m, v, o, s: tf.batch_norm2d(x, m, v, o, s),
        [[3, 2], [2], [2], [2], [2]],
    ),
    GradSpec(
        "batch_norm3d",
        lambda x, m, v, o, s: tf.batch_norm3d(x, m, v, o, s),
        [[2, 2, 3], [3], [3], [3], [3]],
    ),
    GradSpec(
        "batch_norm4d",
        lambda x, m, v, o, s: tf.batch_norm4d(x, m, v, o, s),
        [[2, 2, 2, 3], [3], [3], [3], [3]],
    ),
    GradSpec(
        "local_response_normalization",
        lambda x: tf.local_response_normalization(x, 2, 1.5, 0.5, 0.75),
        [[2, 2, 2, 6]],
        kernels=("LRN",),
    ),
    GradSpec(
        "local_response_normalization_3d",
        lambda x: tf.local_response_normalization(x, 1, 1, 1, 0.5),
        [[2, 3, 4]],
        kernels=("LRN",),
    ),
    GradSpec(
        "local_response_normalization_wide",
        lambda x: tf.local_response_normalization(x, 9, 2, 0.3, 1),
        [[1, 1, 2, 5]],
        kernels=("LRN",),
    ),
    GradSpec("log_softmax", lambda x: tf.log_softmax(x), [[3, 5]], -4, 4),
    GradSpec("log_softmax_1d", lambda x: tf.log_softmax(x), [[6]], -4, 4),
    GradSpec("moments_mean", lambda x: tf.moments(x, 1).mean, [[3, 4]]),
    GradSpec("moments_variance", lambda x: tf.moments(x, [0, 2], True).variance, [[2, 3, 4]]),
    GradSpec("softmax", lambda x: tf.softmax(x), [[3, 5]], -4, 4, kernels=("Softmax",)),
    GradSpec("softmax_3d", lambda x: tf.softmax(x), [[2, 2, 4]], -4, 4, kernels=("Softmax",)),
]


@pytest.mark.parametrize("spec", GRAD_OPS, ids=[s.name for s in GRAD_OPS])
def test_check_grads(spec):
    rng = np.random.default_rng(zlib.crc32(spec.name.encode()))  # stable across runs
    args = []
    for i, shape in enumerate(spec.shapes):
        values = rng.uniform(spec.low, spec.high, shape).astype(np.float32)
        if spec.name.startswith("batch_norm") and i == 2:  # variance > 0
            values = rng.uniform(0.5, 2.0, shape).astype(np.float32)
        args.append(tf.tensor(values, list(shape)))
    tf.testing.check_grads(spec.fn, args)


def test_grad_table_covers_registered_gradients():
    """Every kernel of this family with a registered gradient is exercised above."""
    covered = {kernel for spec in GRAD_OPS for kernel in spec.kernels}
    for kernel in ("FusedBatchNorm", "LRN", "Softmax"):
        assert get_gradient(kernel) is not None, kernel
        assert kernel in covered, kernel
    differentiable = {
        "batch_norm",
        "batch_norm2d",
        "batch_norm3d",
        "batch_norm4d",
        "local_response_normalization",
        "log_softmax",
        "moments",
        "softmax",
    }
    names = {s.name for s in GRAD_OPS}
    for op_name in differentiable:
        assert any(n == op_name or n.startswith(op_name + "_") for n in names), op_name


def test_batch_norm_grad_without_scale_matches_unit_scale():
    # TF.js 4.22 crashes here (it clones the missing scale); its gradient function is written
    # for a missing scale (scalar 1), which is what tidytensor computes.
    x = tf.tensor2d([[1, 2], [3, 5], [-1, 0.5]])
    m, v = tf.tensor1d([1, 2]), tf.tensor1d([2, 3])
    without = tf.grads(lambda a, b, c: tf.batch_norm(a, b, c))([x, m, v])
    with_unit = tf.grads(lambda a, b, c: tf.batch_norm(a, b, c, tf.zeros([2]), tf.ones([2])))(
        [x, m, v]
    )
    for g, h in zip(without, with_unit, strict=True):
        tf.testing.assert_close(g, h)


def test_second_order_through_saved_outputs_fails_as_in_tfjs():
    # TF.js 4.22 tapes the clone of a saved output before the kernel that makes it, so a
    # second-order gradient finds no path through Softmax (or logSoftmax's saved value).
    x = tf.tensor1d([0.5, -1.0, 2.0])
    w = tf.tensor1d([1.0, 2.0, 3.0])
    for fn in (tf.softmax, tf.log_softmax):
        g2 = tf.grad(lambda a, fn=fn: tf.grad(lambda b: fn(b).mul(w).sum())(a).square().sum())
        with pytest.raises(tf.TidyTensorError, match="Cannot compute gradient of y=f"):
            g2(x)


# ---------------------------------------------------------------------------- batch norm
def test_batch_norm_keywords_and_defaults():
    x = tf.tensor2d([[1.0, 2.0], [3.0, 4.0]])
    a = tf.batch_norm(x, [1, 2], [2, 3], scale=[2, 2], variance_epsilon=0.5)
    b = tf.batch_norm(x, [1, 2], [2, 3], None, [2, 2], 0.5)
    tf.testing.assert_close(a, b)
    # None means the default epsilon, 0.001.
    tf.testing.assert_close(
        tf.batch_norm(x, [1, 2], [2, 3], variance_epsilon=None), tf.batch_norm(x, [1, 2], [2, 3])
    )
    ref = (np.array([[1, 2], [3, 4]]) - [1, 2]) / np.sqrt(np.array([2, 3]) + 0.001)
    np.testing.assert_allclose(tf.batch_norm(x, [1, 2], [2, 3]).numpy(), ref, rtol=1e-6)


def test_batch_norm_runs_one_fused_kernel():
    x = tf.tensor2d([[1.0, 2.0], [3.0, 4.0]])
    m, v = tf.tensor1d([1.0, 2.0]), tf.tensor1d([2.0, 3.0])
    prof = tf.profile(lambda: tf.batch_norm(x, m, v))
    assert prof.kernel_names == ["Reshape", "FusedBatchNorm"]  # unique names, as TF.js
    assert [kp.name for kp in prof.kernels] == ["Reshape", "FusedBatchNorm", "Reshape"]
    prof = tf.profile(lambda: tf.batch_norm4d(tf.ones([1, 1, 1, 2]), m, v, m, v))
    assert "FusedBatchNorm" in prof.kernel_names


def test_batch_norm_complex_refused():
    c = tf.complex([1.0, 2.0], [0.0, 1.0])
    with pytest.raises(tf.DTypeError, match="batch_norm does not support complex64 tensors"):
        tf.batch_norm(c, [1, 1], [1, 1])


def test_batch_norm_empty_params_give_nan():
    out = tf.batch_norm(tf.tensor1d([1.0, 2.0]), tf.tensor1d([]), tf.tensor1d([]))
    assert np.isnan(out.numpy()).all()


@settings(max_examples=40, deadline=None)
@given(
    hnp.arrays(
        np.float32,
        hnp.array_shapes(min_dims=1, max_dims=4, max_side=4),
        elements=st.floats(-100, 100, width=32),
    ),
    st.floats(0.0, 1.0),
)
def test_batch_norm_matches_numpy(x, eps):
    c = x.shape[-1]
    rng = np.random.default_rng(c)
    mean, var = rng.normal(size=c).astype(np.float32), rng.uniform(0.1, 3, c).astype(np.float32)
    off, scale = rng.normal(size=c).astype(np.float32), rng.normal(size=c).astype(np.float32)
    out = tf.batch_norm(
        tf.tensor(x), tf.tensor(mean), tf.tensor(var), tf.tensor(off), tf.tensor(scale), eps
    )
    x64 = x.astype(np.float64)
    ref = off + (x64 - mean) * scale / np.sqrt(var.astype(np.float64) + eps)
    assert out.shape == list(x.shape)
    np.testing.assert_allclose(out.numpy(), ref.astype(np.float32), rtol=1e-5, atol=1e-5)
    tf.dispose(out)


# ---------------------------------------------------------------------------- LRN
def _lrn_ref(x, r, bias, alpha, beta):
    x = x.astype(np.float64)
    out = np.empty_like(x)
    channels = x.shape[-1]
    for c in range(channels):
        lo, hi = max(0, c - r), min(c + r, channels - 1)
        total = (x[..., lo : hi + 1] ** 2).sum(-1)
        out[..., c] = x[..., c] * (bias + alpha * total) ** -beta
    return out


@settings(max_examples=40, deadline=None)
@given(
    hnp.arrays(
        np.float32,
        st.tuples(st.integers(1, 2), st.integers(1, 3), st.integers(1, 3), st.integers(1, 7)),
        elements=st.floats(-10, 10, width=32),
    ),
    st.integers(0, 8),
    st.floats(0.5, 3),
    st.floats(0.01, 2),
    st.floats(0, 1.5),
)
def test_lrn_matches_numpy(x, r, bias, alpha, beta):
    out = tf.local_response_normalization(tf.tensor(x), r, bias, alpha, beta)
    np.testing.assert_allclose(out.numpy(), _lrn_ref(x, r, bias, alpha, beta), rtol=1e-5, atol=1e-6)


def test_lrn_keywords_and_backprop_kernel():
    x = tf.tensor3d([[[1.0, 2.0, 3.0]]])
    a = tf.local_response_normalization(x, depth_radius=1, bias=2, alpha=0.5, beta=0.75)
    b = tf.local_response_normalization(x, 1, 2, 0.5, 0.75)
    tf.testing.assert_close(a, b)
    prof = tf.profile(lambda: tf.grad(lambda t: tf.local_response_normalization(t, 1))(x))
    assert "LRNGrad" in prof.kernel_names


# ---------------------------------------------------------------------------- softmax / logSoftmax
@settings(max_examples=40, deadline=None)
@given(
    hnp.arrays(
        np.float32,
        hnp.array_shapes(min_dims=1, max_dims=3, max_side=5),
        elements=st.floats(-50, 50, width=32),
    )
)
def test_softmax_and_log_softmax_match_numpy(x):
    x64 = x.astype(np.float64)
    shifted = x64 - x64.max(-1, keepdims=True)
    ref = np.exp(shifted) / np.exp(shifted).sum(-1, keepdims=True)
    np.testing.assert_allclose(tf.softmax(tf.tensor(x)).numpy(), ref, rtol=1e-5, atol=1e-6)
    log_ref = shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))
    np.testing.assert_allclose(tf.log_softmax(tf.tensor(x)).numpy(), log_ref, rtol=1e-5, atol=1e-5)


def test_softmax_keywords_and_kernels():
    x = tf.tensor2d([[1.0, 2.0], [3.0, 5.0]])
    tf.testing.assert_close(tf.softmax(logits=x, dim=1), tf.softmax(x))
    tf.testing.assert_close(tf.log_softmax(logits=x, axis=-1), tf.log_softmax(x))
    assert tf.profile(lambda: tf.softmax(x)).kernel_names == ["Softmax"]
    # logSoftmax is composite (TF.js has no LogSoftmax kernel on CPU).
    assert "LogSoftmax" not in tf.profile(lambda: tf.log_softmax(x)).kernel_names


def test_log_softmax_grad_is_custom():
    x = tf.tensor2d([[1.0, 2.0, 3.0]])
    dy = tf.tensor2d([[1.0, -1.0, 0.5]])
    g = tf.grad(lambda t: tf.log_softmax(t))(x, dy)
    sm = tf.softmax(x).numpy()
    np.testing.assert_allclose(
        g.numpy(), dy.numpy() - dy.numpy().sum(-1, keepdims=True) * sm, rtol=1e-5
    )


def test_softmax_leaves_no_temporaries():
    x = tf.tensor2d([[1.0, 2.0], [3.0, 5.0]])
    before = tf.memory()
    y = tf.log_softmax(x)
    after = tf.memory()
    assert after.num_tensors - before.num_tensors == 1
    y.dispose()


# ---------------------------------------------------------------------------- moments
def test_moments_record():
    x = tf.tensor2d([[1.0, 2.0], [3.0, 6.0]])
    m = tf.moments(x, 0)
    assert m.mean.array_sync() == [2.0, 4.0]
    assert m["variance"].array_sync() == [1.0, 4.0]
    mean, variance = m
    assert mean is m.mean and variance is m.variance
    assert tf.moments(x, axes=[1]).mean.array_sync() == [1.5, 4.5]
    assert tf.moments(x, keep_dims=True).variance.shape == [1, 1]
    assert "Moments(mean=" in repr(m)


def test_moments_survive_tidy_and_dispose():
    x = tf.tensor2d([[1.0, 2.0], [3.0, 6.0]])
    before = tf.memory().num_tensors
    m = tf.tidy(lambda: tf.moments(x, 1))
    assert tf.memory().num_tensors == before + 2
    assert m.mean.array_sync() == [1.5, 4.5]
    tf.dispose(m)
    assert tf.memory().num_tensors == before


@settings(max_examples=40, deadline=None)
@given(
    hnp.arrays(
        np.float32,
        hnp.array_shapes(min_dims=1, max_dims=3, max_side=4),
        elements=st.floats(-100, 100, width=32),
    ),
    st.booleans(),
)
def test_moments_match_numpy(x, keep_dims):
    m = tf.moments(tf.tensor(x), -1, keep_dims)
    np.testing.assert_allclose(
        m.mean.numpy(), x.astype(np.float64).mean(-1, keepdims=keep_dims), rtol=1e-5, atol=1e-4
    )
    np.testing.assert_allclose(
        m.variance.numpy(), x.astype(np.float64).var(-1, keepdims=keep_dims), rtol=1e-4, atol=1e-2
    )
    tf.dispose(m)


# ---------------------------------------------------------------------------- sparse to dense
def test_sparse_to_dense_keywords_and_numpy():
    out = tf.sparse_to_dense(
        sparse_indices=np.array([[0, 1], [2, 0]]),
        sparse_values=[1.5, 2.5],
        output_shape=[3, 2],
        default_value=-1,
    )
    assert out.array_sync() == [[-1, 1.5], [-1, -1], [2.5, -1]]


def test_sparse_to_dense_errors():
    idx = tf.tensor1d([0, 1], "int32")
    with pytest.raises(
        tf.ShapeError,
        match=r"Tensor must have a shape comprised of positive integers but got shape \[2.5\]",
    ):
        tf.sparse_to_dense(idx, tf.tensor1d([1.0, 2.0]), [2.5])
    with pytest.raises(tf.InvalidArgumentError, match="Invalid indices: 3 does not index into 3"):
        tf.sparse_to_dense(tf.tensor1d([0, 3], "int32"), tf.tensor1d([1.0, 2.0]), [3])
    with pytest.raises(tf.DTypeError, match="Unsupported type complex64"):
        tf.sparse_to_dense(
            idx, tf.complex([1.0, 2.0], [0.0, 0.0]), [3], tf.complex([0.0], [0.0]).reshape([])
        )


# ---------------------------------------------------------------------------- errors
def test_error_classes():
    x2 = tf.tensor2d([[1.0, 2.0]])
    with pytest.raises(tf.ShapeError, match="mean and variance to have equal ranks"):
        tf.batch_norm(x2, [1, 2], [[1, 2]])
    with pytest.raises(
        tf.ShapeError, match="Error in batch_norm4d: x must be rank 4 but got rank 2."
    ):
        tf.batch_norm4d(x2, [1, 2], [1, 2])
    with pytest.raises(tf.ShapeError, match="x must be rank 3 or 4 but got rank 2."):
        tf.local_response_normalization(x2)
    with pytest.raises(
        tf.InvalidArgumentError, match="depth_radius must be an integer but got depth_radius 0.5."
    ):
        tf.local_response_normalization(tf.ones([1, 1, 2]), 0.5)
    with pytest.raises(tf.InvalidArgumentError, match="Softmax along a non-last dimension"):
        tf.softmax(x2, 0)
    with pytest.raises(tf.InvalidArgumentError, match="Log Softmax along a non-last dimension"):
        tf.log_softmax(x2, 0)
    with pytest.raises(tf.DTypeError, match="must be float32 tensor, but got int32 tensor"):
        tf.softmax(tf.tensor1d([1, 2], "int32"))


def test_failed_ops_leave_no_tensors():
    x2 = tf.tensor2d([[1.0, 2.0]])
    before = tf.memory().num_tensors
    for fn in (
        lambda: tf.batch_norm(x2, [1, 2], [[1, 2]]),
        lambda: tf.batch_norm2d(x2, [1, 2], [1, 2], [[[1]]]),
        lambda: tf.sparse_to_dense([0, 1], [1, 2, 3], [3]),
    ):
        with pytest.raises(tf.TidyTensorError):
            fn()
    assert tf.memory().num_tensors == before


def test_chained_methods():
    x = tf.tensor3d([[[1.0, 2.0, 3.0]]])
    tf.testing.assert_close(x.softmax(), tf.softmax(x))
    tf.testing.assert_close(x.log_softmax(), tf.log_softmax(x))
    tf.testing.assert_close(
        x.local_response_normalization(1), tf.local_response_normalization(x, 1)
    )
