"""Basic math ops against TF.js goldens, plus edge cases, errors and properties."""

from __future__ import annotations

import math
import warnings
from typing import NamedTuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tidytensor as tf
from golden_util import call_case, case_ids, check_case, load_cases
from tidytensor.ops import basic_math

CASES = load_cases("basic_math")


@pytest.mark.parametrize(("case", "expected"), CASES, ids=case_ids(CASES))
def test_golden(case, expected):
    check_case(case, expected)


EXACT = [(c, e) for c, e in CASES if e.get("dtype") in ("int32", "bool")]


@pytest.mark.parametrize(("case", "expected"), EXACT, ids=case_ids(EXACT))
def test_golden_integers_exact(case, expected):
    """int32 and bool results must match TF.js bit for bit (the golden tolerance is relative)."""
    got = call_case(case)
    assert got.dtype == expected["dtype"]
    assert [int(v) for v in np.asarray(got.data_sync()).reshape(-1)] == expected["values"]


def i32(values):
    return tf.tensor(values, None, "int32")


def b(values):
    return tf.tensor(values, None, "bool")


def values(t):
    return np.asarray(t.data_sync(), dtype=np.float64).reshape(t.shape)


UNARY = [name for name in basic_math.__all__ if name not in ("atan2", "prelu", "clip_by_value")]
FLOAT_ONLY = [
    "ceil",
    "cos",
    "cosh",
    "elu",
    "floor",
    "log",
    "rsqrt",
    "sigmoid",
    "sin",
    "sqrt",
    "tan",
    "tanh",
]


def test_every_op_is_covered_by_goldens():
    from tidytensor.naming import snake_case

    covered = {snake_case(c["op"]) for c, _ in CASES}
    assert set(basic_math.__all__) <= covered
    assert len(basic_math.__all__) == 42


# ---------------------------------------------------------------------------- dtypes
@pytest.mark.parametrize("name", FLOAT_ONLY)
def test_float_only_ops_refuse_int32(name):
    with pytest.raises(
        tf.DTypeError,
        match=f"Argument 'x' passed to '{name}' must be float32 tensor, but got int32",
    ):
        getattr(tf, name)(i32([1]))


def test_result_dtypes():
    x = i32([-2, 0, 3])
    assert tf.exp(x).dtype == "float32"
    assert tf.erf(x).dtype == "float32"
    assert tf.leaky_relu(x).dtype == "float32"
    assert tf.prelu(x, i32([2])).dtype == "float32"
    assert tf.is_nan(x).dtype == "bool"
    for name in (
        "abs",
        "acos",
        "neg",
        "relu",
        "relu6",
        "round",
        "selu",
        "sign",
        "sinh",
        "softplus",
        "square",
        "step",
        "log_sigmoid",
        "reciprocal",
        "expm1",
        "log1p",
    ):
        assert getattr(tf, name)(x).dtype == "int32", name
        assert getattr(tf, name)(b([True, False])).dtype == "bool", name


def test_int32_results_truncate_like_typed_arrays():
    assert tf.acos(i32([0, 1, 2, -1])).array_sync() == [1, 0, 0, 3]
    assert tf.sinh(i32([2, 100, -100])).array_sync() == [3, 0, 0]
    assert tf.step(i32([0, -2, 3]), -1.5).array_sync() == [-1, -1, 1]
    assert tf.clip_by_value(i32([0, 1, -1, 5]), -0.5, 2.5).array_sync() == [0, 1, 0, 2]
    # Abs and Square fill a Float32Array: int32 values above 2**24 are rounded.
    assert tf.abs(i32([16777217, -2147483648])).array_sync() == [16777216, -2147483648]
    assert tf.square(i32([4097, 46341])).array_sync() == [16785408, -2147479040]
    assert tf.neg(i32([-2147483648])).array_sync() == [-2147483648]


def test_bool_results_store_like_uint8():
    assert tf.neg(b([True, False])).array_sync() == [1, 0]
    assert tf.acos(b([True, False])).array_sync() == [0, 1]
    assert tf.step(b([True, False]), 256).array_sync() == [1, 0]  # 256 stored in a Uint8Array is 0
    assert tf.step(b([True, False]), 257).array_sync() == [1, 1]
    assert tf.log_sigmoid(b([True, False])).array_sync() == [1, 0]


def test_abs_of_complex_is_float32_magnitude():
    out = tf.abs(tf.complex([3, -1, 0], [4, 0, -2]))
    assert out.dtype == "float32"
    assert out.array_sync() == [5, 1, 2]
    assert abs(tf.complex([3], [4])).array_sync() == [5]
    assert tf.profile(lambda: tf.abs(tf.complex([3], [4]))).kernel_names[-1] == "ComplexAbs"


COMPLEX_KERNEL_NAMES = {
    "neg": "neg",
    "square": "square",
    "leaky_relu": "leaky_relu",  # an op name (TF.js: leakyRelu), in snake_case
    "exp": "Exp",
    "is_nan": "IsNan",
    "is_inf": "IsInf",
    "is_finite": "IsFinite",
    "sinh": "Sinh",
    "acos": "Acos",
    "relu": "Relu",
    "relu6": "Relu6",
    "round": "Round",
    "sign": "Sign",
    "softplus": "Softplus",
    "selu": "Selu",
    "step": "Step",
    "expm1": "Expm1",
    "log1p": "Log1p",
    "reciprocal": "Reciprocal",
    "atanh": "Atanh",
    "asinh": "Asinh",
    "acosh": "Acosh",
    "asin": "Asin",
    "atan": "Atan",
    "log_sigmoid": "neg",
}


@pytest.mark.parametrize(("name", "kernel"), sorted(COMPLEX_KERNEL_NAMES.items()))
def test_complex_unsupported(name, kernel):
    with pytest.raises(
        tf.DTypeError, match=f"^{kernel} does not support complex64 tensors in the CPU backend"
    ):
        getattr(tf, name)(tf.complex([1], [2]))


def test_complex_binary_unsupported():
    c = tf.complex([1], [2])
    with pytest.raises(tf.DTypeError, match="Atan2 does not support complex64"):
        tf.atan2(c, c)
    with pytest.raises(tf.DTypeError, match="prelu does not support complex64"):
        tf.prelu(c, tf.tensor([1.0]))
    with pytest.raises(tf.DTypeError, match="ClipByValue does not support complex64"):
        tf.clip_by_value(c, 0, 1)
    with pytest.raises(
        tf.DTypeError, match=r"Input dtype must be `int32` or `float32`. \(tf.erf got a complex64"
    ):
        tf.erf(c)


# ---------------------------------------------------------------------------- arguments
def test_keyword_arguments():
    x = tf.tensor([-2.0, 0.5, 3.0])
    assert tf.leaky_relu(x, alpha=0.5).array_sync() == [-1, 0.5, 3]
    assert tf.step(x, alpha=-1).array_sync() == [-1, 1, 1]
    assert tf.clip_by_value(x, clip_value_min=0, clip_value_max=1).array_sync() == [0, 0.5, 1]
    assert tf.prelu(x, alpha=tf.scalar(0.25)).array_sync() == [-0.5, 0.5, 3]
    assert tf.abs(x=x).array_sync() == [2, 0.5, 3]
    assert tf.atan2(a=x, b=x).shape == [3]
    assert x.clip_by_value(0, 1).array_sync() == [0, 0.5, 1]
    assert x.leaky_relu(alpha=0.5).array_sync() == [-1, 0.5, 3]


def test_numpy_numbers_as_attributes():
    x = tf.tensor([-2.0, 3.0])
    assert tf.leaky_relu(x, np.float64(0.5)).array_sync() == [-1, 3]
    assert tf.clip_by_value(x, np.int64(0), np.float32(1)).array_sync() == [0, 1]


def test_bad_number_arguments():
    x = tf.tensor([1.0])
    with pytest.raises(
        tf.ArgumentTypeError,
        match="Argument 'alpha' passed to 'leaky_relu' must be a number, but got str",
    ):
        tf.leaky_relu(x, "0.2")
    with pytest.raises(
        tf.ArgumentTypeError, match="Argument 'alpha' passed to 'step' must be a number"
    ):
        tf.step(x, None)
    with pytest.raises(
        tf.ArgumentTypeError,
        match="Argument 'clip_value_min' passed to 'clip_by_value' must be a number, but got Tensor",
    ):
        tf.clip_by_value(x, tf.scalar(0), 1)
    with pytest.raises(
        tf.InvalidArgumentError,
        match=r"Error in clip: min \(1.5\) must be less than or equal to max \(-2\).",
    ):
        tf.clip_by_value(x, 1.5, -2)
    with pytest.raises(
        tf.InvalidArgumentError, match=r"min \(nan\) must be less than or equal to max \(inf\)"
    ):
        tf.clip_by_value(x, math.nan, math.inf)


def test_errors():
    with pytest.raises(
        tf.ShapeError,
        match="operands could not be broadcast together with shapes \\[3\\] and \\[2\\]",
    ):
        tf.prelu(tf.tensor([1.0, 2.0, 3.0]), tf.tensor([1.0, 2.0]))
    with pytest.raises(
        tf.DTypeError, match="Argument 'x' passed to 'relu' must be numeric tensor, but got string"
    ):
        tf.relu(tf.tensor(["a"]))
    with pytest.raises(
        tf.ArgumentTypeError,
        match="Argument 'x' passed to 'sigmoid' must be a Tensor or TensorLike",
    ):
        tf.sigmoid(object())
    with pytest.raises(tf.DTypeError, match="Input dtype must be `int32` or `float32`."):
        tf.erf(b([True]))


def test_operators():
    x = tf.tensor([-1.5, 2.0])
    assert (-x).array_sync() == [1.5, -2]
    assert abs(x).array_sync() == [1.5, 2]


def test_one_tensor_per_op():
    x = tf.tensor([-1.0, 0.0, 2.0])
    for name in UNARY:
        before = tf.memory()
        out = getattr(tf, name)(x)
        after = tf.memory()
        assert (
            after.num_tensors - before.num_tensors,
            after.num_data_buffers - before.num_data_buffers,
        ) == (1, 1), name
        out.dispose()
    # int32 input to erf is cast to float32 inside the op; the cast is freed.
    y = i32([1])
    before = tf.memory().num_tensors
    tf.erf(y)
    assert tf.memory().num_tensors == before + 1


def test_log_sigmoid_is_composite():
    x = tf.tensor([-1.0, 0.0, 30.0])
    assert [kernel.name for kernel in tf.profile(lambda: tf.log_sigmoid(x)).kernels] == [
        "Neg",
        "Softplus",
        "Neg",
    ]
    np.testing.assert_allclose(
        values(tf.log_sigmoid(x)), -np.log1p(np.exp(-np.array([-1.0, 0.0, 30.0]))), rtol=1e-6
    )


def test_clip_equal_bounds_fills():
    x = tf.tensor([[1.0, 5.0], [-3.0, math.nan]])
    assert tf.profile(lambda: tf.clip_by_value(x, 2, 2)).kernel_names == ["Fill"]
    assert tf.clip_by_value(x, 2, 2).array_sync() == [[2, 2], [2, 2]]


# ---------------------------------------------------------------------------- no warnings
SPECIALS = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    2.0,
    1e-45,
    1e-30,
    100.0,
    -100.0,
    3e38,
    -3e38,
    np.inf,
    -np.inf,
    np.nan,
]


@pytest.mark.parametrize("name", UNARY + ["clip_by_value", "atan2", "prelu"])
@pytest.mark.parametrize("dtype", ["float32", "int32", "bool"])
def test_no_numpy_warnings(name, dtype):
    if dtype != "float32" and name in FLOAT_ONLY:
        return
    if dtype == "bool" and name == "erf":
        return
    vals = SPECIALS if dtype == "float32" else [0, 1, -1, 2, 100, -100, 2**31 - 1, -(2**31)]
    fn = getattr(tf, name)

    def call(t, *rest):
        if name == "clip_by_value":
            return fn(t, -1, 1e39)
        if name in ("atan2", "prelu"):
            return fn(t, t)
        return fn(t, *rest)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        call(tf.tensor(vals, None, dtype)).data_sync()
        for v in vals:
            call(tf.scalar(v, dtype)).data_sync()
        if name in ("leaky_relu", "step"):
            call(tf.tensor(vals, None, dtype), 3.0).data_sync()
            call(tf.tensor(vals, None, dtype), 0).data_sync()


# ---------------------------------------------------------------------------- properties
finite32 = st.floats(-1e4, 1e4, width=32)
any32 = st.floats(width=32, allow_nan=True, allow_infinity=True)
arrays32 = hnp.arrays(
    np.float32, hnp.array_shapes(min_dims=0, max_dims=3, max_side=5), elements=any32
)

# TF.js's CPU formulas, evaluated in double precision and rounded once to float32.
SP_T = math.log(1.1920928955078125e-7) + 2.0


def _ref(name, v):
    with np.errstate(all="ignore"):
        if name == "sigmoid":
            return 1 / (1 + np.exp(-v))
        if name == "softplus":
            return np.where(v < SP_T, np.exp(v), np.where(v > -SP_T, v, np.log(1 + np.exp(v))))
        if name == "elu":
            return np.where(v >= 0, v, np.exp(v) - 1)
        if name == "selu":
            return np.where(v >= 0, 1.0507009873554805 * v, 1.7580993408473768 * (np.exp(v) - 1))
        if name == "erf":
            a = np.abs(v)
            t = 1 / (1 + 0.3275911 * a)
            poly = (
                (((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t
                + 0.254829592
            ) * t
            return np.sign(v) * (1 - poly * np.exp(-a * a))
        if name == "rsqrt":
            return 1 / np.sqrt(v)
        if name == "relu6":
            return np.where(np.isnan(v), v, np.minimum(np.maximum(v, 0), 6))
        if name == "sign":
            return np.where(v > 0, 1.0, np.where(v < 0, -1.0, 0.0))
        if name == "round":
            return np.rint(v)
        if name == "leaky_relu":
            return np.where(v < 0, 0.2 * v, v)
        if name == "step":
            return np.where(np.isnan(v), v, np.where(v > 0, 1.0, 0.0))
        fn = {
            "acos": np.arccos,
            "asin": np.arcsin,
            "atan": np.arctan,
            "acosh": np.arccosh,
            "asinh": np.arcsinh,
            "atanh": np.arctanh,
            "reciprocal": np.reciprocal,
            "relu": lambda u: np.where(np.isnan(u), u, np.maximum(u, 0)),
            "neg": np.negative,
            "is_nan": np.isnan,
            "is_inf": np.isinf,
            "is_finite": np.isfinite,
        }.get(name, getattr(np, name, None))
        return fn(v)


# ulp-level differences come from NumPy's float32 libm (TF.js rounds a double result once).
PROPERTY_OPS = [n for n in UNARY if n not in ("log_sigmoid",)]


@settings(max_examples=40, deadline=None)
@given(arrays32)
@pytest.mark.parametrize("name", PROPERTY_OPS)
def test_float32_matches_tfjs_formula(name, x):
    out = getattr(tf, name)(tf.tensor(x))
    assert out.shape == list(x.shape)
    got = values(out)
    want = np.asarray(_ref(name, x.astype(np.float64)))
    if out.dtype == "bool":
        np.testing.assert_array_equal(got, want)
        return
    with np.errstate(all="ignore"):
        want = want.astype(np.float32).astype(np.float64)
    exact = (
        "abs",
        "neg",
        "ceil",
        "floor",
        "round",
        "relu",
        "relu6",
        "sign",
        "step",
        "sqrt",
        "square",
        "reciprocal",
    )
    if name in exact:
        np.testing.assert_array_equal(got, want)
    else:
        # A few float32 ulps. Absolute slack: below 1e-37 TF.js keeps float32 denormals (sigmoid);
        # its exp(x) - 1 in double loses digits near 0 where we use expm1 (elu, selu).
        atol = 1e-15 if name in ("elu", "selu") else 1e-37
        np.testing.assert_allclose(got, want, rtol=4e-7, atol=atol)


@settings(max_examples=60, deadline=None)
@given(
    hnp.arrays(np.float32, st.integers(0, 12), elements=any32),
    st.floats(-1e6, 1e6, width=32),
    st.floats(-1e6, 1e6, width=32),
)
def test_clip_by_value_matches_comparisons(x, lo, hi):
    lo, hi = min(lo, hi), max(lo, hi)
    if lo == hi:
        return
    got = values(tf.clip_by_value(tf.tensor(x), lo, hi))
    want = np.where(x > hi, np.float32(hi), np.where(x < lo, np.float32(lo), x))
    np.testing.assert_array_equal(got, want)


@settings(max_examples=60, deadline=None)
@given(st.floats(-20, 20, width=32))
def test_softplus_thresholds(v):
    # float32 comparisons against the double thresholds: check the neighbours of each cut-off too.
    for u in (np.float32(v), np.float32(13.942385), np.float32(-13.942385)):
        for w in (np.nextafter(u, np.float32(-np.inf)), u, np.nextafter(u, np.float32(np.inf))):
            got = values(tf.softplus(tf.tensor([w])))[0]
            want = np.float32(_ref("softplus", np.array([float(w)]))[0])
            assert got == pytest.approx(float(want), rel=3e-7), w


# ---------------------------------------------------------------------------- gradients
class GradSpec(NamedTuple):
    name: str  # the op's name, then optionally a space and a variant
    fn: object
    low: float = -2.0
    high: float = 2.0
    kinks: tuple = ()  # points where fn is not differentiable: samples keep 0.05 away
    shape: tuple = (2, 3)


GRAD_OPS = [
    GradSpec("abs", tf.abs, kinks=(0,)),
    GradSpec("acos", tf.acos, -0.9, 0.9),
    GradSpec("acosh", tf.acosh, 1.2, 3),
    GradSpec("asin", tf.asin, -0.9, 0.9),
    GradSpec("asinh", tf.asinh),
    GradSpec("atan", tf.atan),
    GradSpec("atanh", tf.atanh, -0.9, 0.9),
    GradSpec("ceil", tf.ceil, kinks=(-2, -1, 0, 1, 2)),
    GradSpec("clip_by_value", lambda x: tf.clip_by_value(x, -0.5, 1), kinks=(-0.5, 1)),
    GradSpec("cos", tf.cos),
    GradSpec("cosh", tf.cosh),
    GradSpec("elu", tf.elu, -3, 2),
    GradSpec("erf", tf.erf),
    GradSpec("exp", tf.exp),
    GradSpec("expm1", tf.expm1),
    GradSpec("floor", tf.floor, kinks=(-2, -1, 0, 1, 2)),
    GradSpec("is_finite", tf.is_finite),
    GradSpec("is_inf", tf.is_inf),
    GradSpec("is_nan", tf.is_nan),
    GradSpec("leaky_relu", lambda x: tf.leaky_relu(x, 0.3), kinks=(0,)),
    GradSpec("log", tf.log, 0.2, 3),
    GradSpec("log1p", tf.log1p, -0.5, 3),
    GradSpec("log_sigmoid", tf.log_sigmoid, -4, 4),
    GradSpec("neg", tf.neg),
    GradSpec("reciprocal", tf.reciprocal, 0.3, 2),
    GradSpec("reciprocal negative", tf.reciprocal, -2, -0.3),
    GradSpec("relu", tf.relu, kinks=(0,)),
    GradSpec("relu6", tf.relu6, -2, 8, kinks=(0, 6)),
    GradSpec("round", tf.round, kinks=(-1.5, -0.5, 0.5, 1.5)),
    GradSpec("rsqrt", tf.rsqrt, 0.2, 3),
    GradSpec("selu", tf.selu, -3, 2, kinks=(0,)),
    GradSpec("sigmoid", tf.sigmoid, -4, 4),
    GradSpec("sign", tf.sign, kinks=(0,)),
    GradSpec("sin", tf.sin),
    GradSpec("sinh", tf.sinh),
    GradSpec("softplus", tf.softplus, -4, 4),
    GradSpec("sqrt", tf.sqrt, 0.2, 3),
    GradSpec("square", tf.square),
    GradSpec("step", lambda x: tf.step(x, 0.5), kinks=(0,)),
    GradSpec("tan", tf.tan, -1.2, 1.2),
    GradSpec("tanh", tf.tanh),
    GradSpec("chained", lambda x: x.square().add(1).sqrt().mul(x.sin()).exp()),
]

#: Ops with more than one differentiable input: each input's gradient is checked.
GRAD_OPS_2 = [
    ("atan2", tf.atan2, [(2, 3), (2, 3)], [(-2, 2), (0.5, 2)]),
    ("atan2 broadcast", tf.atan2, [(2, 3), (3,)], [(0.5, 2), (-2, 2)]),
    ("prelu", tf.prelu, [(2, 3), (2, 3)], [(-2, 2), (0.1, 0.9)]),
    ("prelu broadcast alpha", tf.prelu, [(2, 3), (3,)], [(-2, 2), (0.1, 0.9)]),
    ("prelu scalar alpha", tf.prelu, [(2, 3), ()], [(-2, 2), (0.1, 0.9)]),
]


def _away_from(x, kinks, gap=0.05):
    for k in kinks:
        near = np.abs(x - k) < gap
        x = np.where(near, k + np.where(x >= k, gap, -gap), x)
    return x.astype(np.float32)


@pytest.mark.parametrize("spec", GRAD_OPS, ids=[s.name for s in GRAD_OPS])
def test_check_grads(spec):
    rng = np.random.default_rng(sum(map(ord, spec.name)))
    x = _away_from(rng.uniform(spec.low, spec.high, spec.shape), spec.kinks)
    tf.testing.check_grads(spec.fn, [tf.tensor(x, list(spec.shape))])


@pytest.mark.parametrize(
    ("name", "fn", "shapes", "ranges"), GRAD_OPS_2, ids=[g[0] for g in GRAD_OPS_2]
)
def test_check_grads_two_inputs(name, fn, shapes, ranges):
    rng = np.random.default_rng(sum(map(ord, name)))
    args = [
        tf.tensor(_away_from(rng.uniform(lo, hi, shape), (0,)), list(shape))
        for shape, (lo, hi) in zip(shapes, ranges, strict=True)
    ]
    tf.testing.check_grads(fn, args)


def test_grad_table_covers_every_op():
    covered = {s.name.split()[0] for s in GRAD_OPS} | {g[0].split()[0] for g in GRAD_OPS_2}
    assert set(basic_math.__all__) <= covered, set(basic_math.__all__) - covered


def test_zero_gradients():
    x = tf.tensor([-1.5, 0.0, 0.5, 2.0])
    for fn in (tf.ceil, tf.floor, tf.round, tf.sign, tf.step, tf.is_finite, tf.is_inf, tf.is_nan):
        assert tf.grad(fn)(x).array_sync() == [0.0] * 4


def test_complex_abs_grad_matches_tfjs():
    """tf.grad(abs) at a complex64 tensor: dy * step(real(x), -1), float32 (TF.js 4.22.0 gives
    [1, -1, -1] and, with dy [2, 3], [2, -3]); complex tensors cannot be written in specs."""
    x = tf.complex([1.0, -2.0, 0.0], [3.0, 4.0, 5.0])
    g = tf.grad(tf.abs)(x)
    assert (g.dtype, g.array_sync()) == ("float32", [1.0, -1.0, -1.0])
    x2 = tf.complex([1.0, -2.0], [3.0, 4.0])
    assert tf.grad(tf.abs)(x2, tf.tensor([2.0, 3.0])).array_sync() == [2.0, -3.0]


def test_elu_grad_runs_the_elu_grad_kernel():
    x = tf.tensor([-3.0, -1.0, 0.0, 0.5])
    profile = tf.profile(lambda: tf.grad(tf.elu)(x))
    assert "EluGrad" in profile.kernel_names
    y = np.expm1(np.minimum(np.float32([-3.0, -1.0, 0.0, 0.5]), 0))
    want = np.where(y >= 0, 1.0, y + 1.0).astype(np.float32)
    np.testing.assert_array_equal(tf.grad(tf.elu)(x).numpy(), want)


def test_elu_grad_kernel_directly():
    dy = tf.tensor([2.0, -1.0, 3.0, float("nan")])
    y = tf.tensor([0.5, -0.25, -1.0, -0.5])
    got = basic_math._elu_grad(dy, y)
    assert got.dtype == "float32"
    np.testing.assert_array_equal(got.numpy(), np.float32([2.0, -0.75, 0.0, np.nan]))


def test_log_sigmoid_uses_a_custom_gradient():
    """TF.js's customGrad: the backward pass runs dy * sigmoid(-x) (Neg, Sigmoid, Multiply),
    not the gradients of Neg, Softplus, Neg. TF.js 4.22.0's profile lists Neg, Softplus, Neg,
    logSigmoid__op (its customGrad entry), Neg, Sigmoid, Multiply."""
    x = tf.tensor([-30.0, 0.0, 30.0])
    profile = tf.profile(lambda: tf.grad(tf.log_sigmoid)(x))
    names = [k.name for k in profile.kernels if not k.name.endswith("__op")]
    assert names == ["Neg", "Softplus", "Neg", "Neg", "Sigmoid", "Multiply"]
    g = tf.grad(tf.log_sigmoid)(x).numpy()
    np.testing.assert_allclose(g, [1.0, 0.5, 9.357623e-14], rtol=1e-5)


def test_basic_math_grads_leave_no_tensors_behind():
    x, x2 = tf.tensor([0.25, 0.5]), tf.tensor([0.5, 0.75])
    extra = {"clip_by_value": (0.3, 0.6)}
    for name in basic_math.__all__:
        op = getattr(tf, name)

        def fn(*xs, op=op, name=name):
            return op(*xs, *extra.get(name, ()))

        if name in ("atan2", "prelu"):
            with tf.testing.assert_no_leaks(2):
                tf.grads(fn)([x, x2])
            continue
        with tf.testing.assert_no_leaks(1):
            tf.grad(fn)(x)


def test_second_order_grads_match_tfjs():
    """TF.js 4.22.0: d2/dx2 works through saved inputs (sin, log_sigmoid) but not through saved
    outputs (tanh, exp, sigmoid, elu: "Cannot compute gradient of y=f(x) ...")."""
    x = tf.tensor([0.3, -1.2, 2.0])

    def second(f):
        return tf.grad(lambda t: tf.grad(f)(t))(x)

    np.testing.assert_allclose(second(tf.sin).numpy(), [-0.29552022, 0.93203908, -0.90929741])
    np.testing.assert_allclose(
        second(tf.log_sigmoid).numpy(), [-0.24445832, -0.17789444, -0.10499358], rtol=1e-6
    )
    for f in (tf.tanh, tf.exp, tf.sigmoid, tf.elu):
        with pytest.raises(tf.errors.GradientError, match="Cannot compute gradient of y=f"):
            second(f)
