"""Arithmetic ops against TF.js goldens, plus edge cases, errors and properties vs NumPy."""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tidytensor as tf
from golden_util import call_case, case_ids, check_case, load_cases
from tidytensor.backends.xp_kernels.arithmetic import to_int32
from tidytensor.errors import GradientError

CASES = load_cases("arithmetic")


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


# ---------------------------------------------------------------------------- dtype quirks
def test_bool_add_sub_keep_bool():
    # TF.js stores true + true as 2 and false - true as 255 in a bool tensor: both read as true.
    t, f = b([True, True, False, False]), b([True, False, True, False])
    assert tf.add(t, f).dtype == "bool"
    assert tf.add(t, f).array_sync() == [1, 1, 1, 0]
    assert tf.sub(t, f).array_sync() == [0, 1, 1, 0]
    assert tf.mul(t, f).array_sync() == [1, 0, 0, 0]


def test_add_n_bool_counts_modulo_256():
    # TF.js accumulates bools in a Uint8Array: 256 trues wrap to 0 (false).
    ones = [b([True, True]) for _ in range(256)]
    assert tf.add_n(ones).array_sync() == [0, 0]
    assert tf.add_n(ones[:255]).array_sync() == [1, 1]


def test_int32_results_are_exact():
    assert tf.mul(i32([2147483647, 46341]), i32([2147483647, 46341])).array_sync() == [
        0,
        -2147479015,
    ]
    assert tf.pow(i32([3, 2, 7]), i32([40, 31, 11])).array_sync() == [
        689956864,
        -2147483648,
        1977326743,
    ]
    assert tf.squared_difference(i32([-2147483648]), i32([2147483647])).array_sync() == [0]
    assert tf.floor_div(tf.tensor([1e10, -1e10]), tf.tensor([1, 1])).array_sync() == [
        1410065408,
        -1410065408,
    ]


def test_div_int32_is_floor_div_and_runs_floor_div_kernel():
    a, c = i32([-7, 7]), i32([2, 2])
    prof = tf.profile(lambda: tf.div(a, c))
    assert prof.kernel_names == ["FloorDiv"]
    prof = tf.profile(lambda: tf.div(tf.tensor([1.0]), tf.tensor([2.0])))
    assert prof.kernel_names == ["RealDiv"]


def test_maximum_bool_casts_to_int32():
    out = tf.maximum(b([True, False]), b([False, False]))
    assert out.dtype == "int32"
    assert out.array_sync() == [1, 0]


def test_to_int32_matches_javascript():
    def js_to_int32(v):
        if not np.isfinite(v):
            return 0
        n = int(v) % 2**32  # int() truncates toward zero
        return n - 2**32 if n >= 2**31 else n

    values = np.array(
        [
            0.0,
            -0.5,
            2.9,
            -2.9,
            2**31,
            -(2**31),
            2**32 + 5,
            -(2**40) - 3,
            1e300,
            -1e20,
            np.nan,
            np.inf,
            -np.inf,
            4294967295.0,
        ]
    )
    assert to_int32(values, np).tolist() == [js_to_int32(v) for v in values]
    assert to_int32(np.array([], np.float64), np).dtype == np.int32
    assert to_int32(np.float64(3.7), np) == 3


# ---------------------------------------------------------------------------- complex64
def test_complex_add_sub_mul():
    c = tf.complex([1, 2], [3, -4])
    d = tf.complex([0.5, -1], [2, 1])
    ref_c, ref_d = np.array([1 + 3j, 2 - 4j]), np.array([0.5 + 2j, -1 + 1j])
    for fn, ref in ((tf.add, ref_c + ref_d), (tf.sub, ref_c - ref_d), (tf.mul, ref_c * ref_d)):
        out = fn(c, d)
        assert out.dtype == "complex64"
        np.testing.assert_allclose(np.asarray(out.data_sync()).reshape(-1, 2) @ [1, 1j], ref)
    # A real tensor is upcast to complex64.
    out = tf.add(c, tf.tensor([1, 1]))
    assert out.dtype == "complex64"
    assert out.data_sync().tolist() == [2, 3, 3, -4]


@pytest.mark.parametrize(
    ("fn", "kernel"),
    [
        (tf.div, "RealDiv"),
        (tf.floor_div, "FloorDiv"),
        (tf.mod, "Mod"),
        (tf.maximum, "Maximum"),
        (tf.minimum, "Minimum"),
        (tf.pow, "Pow"),
        (tf.squared_difference, "SquaredDifference"),
    ],
)
def test_complex_unsupported(fn, kernel):
    c = tf.complex([1], [2])
    with pytest.raises(
        tf.DTypeError, match=f"^{kernel} does not support complex64 tensors in the CPU backend"
    ):
        fn(c, c)


def test_add_n_complex_unsupported():
    c = tf.complex([1], [2])
    with pytest.raises(tf.DTypeError, match="add_n does not support complex64"):
        tf.add_n([c, c])


# ---------------------------------------------------------------------------- Python surface
def test_operators():
    x = tf.tensor([1.0, 2.0, 4.0])
    assert (x + 1).array_sync() == [2, 3, 5]
    assert (1 + x).array_sync() == [2, 3, 5]
    assert (x - 1).array_sync() == [0, 1, 3]
    assert (1 - x).array_sync() == [0, -1, -3]
    assert (x * x).array_sync() == [1, 4, 16]
    assert (x / 2).array_sync() == [0.5, 1, 2]
    assert (2 / x).array_sync() == [2, 1, 0.5]
    assert (x**2).array_sync() == [1, 4, 16]
    assert (2**x).array_sync() == [2, 4, 16]
    assert (x // 3).array_sync() == [0, 0, 1]
    assert (x // 3).dtype == "int32"
    assert (x % 3).array_sync() == [1, 2, 1]
    assert (-7 % x).array_sync() == [0, 1, 1]


def test_keyword_arguments():
    x, y = tf.tensor([1.0, 2.0]), tf.tensor([3.0, 4.0])
    assert tf.add(a=x, b=y).array_sync() == [4, 6]
    assert tf.sub(x, b=y).array_sync() == [-2, -2]
    assert tf.pow(base=x, exp=y).array_sync() == [1, 16]
    assert tf.add_n(tensors=[x, y]).array_sync() == [4, 6]
    assert x.squared_difference(b=y).array_sync() == [4, 4]


def test_chained_methods_exist():
    x = tf.tensor([4.0, 9.0])
    for name in (
        "add",
        "sub",
        "mul",
        "div",
        "div_no_nan",
        "floor_div",
        "maximum",
        "minimum",
        "mod",
        "pow",
        "squared_difference",
    ):
        assert getattr(x, name)(2).shape == [2], name


def test_numpy_arguments():
    out = tf.add(np.array([1, 2], np.int64), np.array([3, 4], np.int16))
    assert out.dtype == "int32"
    assert out.array_sync() == [4, 6]
    assert tf.mul(np.float64(2.5), tf.tensor([2.0])).array_sync() == [5.0]


# ---------------------------------------------------------------------------- errors
def test_error_types():
    x = tf.tensor([1.0, 2.0])
    with pytest.raises(
        tf.ShapeError,
        match="operands could not be broadcast together with shapes \\[2\\] and \\[3\\]",
    ):
        tf.add(x, tf.tensor([1.0, 2.0, 3.0]))
    with pytest.raises(
        tf.DTypeError,
        match="Argument 'b' passed to 'mul' must be numeric tensor, but got string tensor",
    ):
        tf.mul(x, tf.tensor(["a", "b"]))
    with pytest.raises(
        tf.ArgumentTypeError, match="Argument 'a' passed to 'sub' must be a Tensor or TensorLike"
    ):
        tf.sub({"a": 1}, x)
    with pytest.raises(
        tf.ArgumentTypeError, match=r"The argument passed to tf.add_n\(\) must be a list of tensors"
    ):
        tf.add_n(x)
    with pytest.raises(
        tf.InvalidArgumentError, match=r"Must pass at least one tensor to tf.add_n\(\), but got 0"
    ):
        tf.add_n([])
    with pytest.raises(tf.DTypeError, match=r"same dtype, but got float32, int32"):
        tf.add_n([x, i32([1, 2])])
    with pytest.raises(tf.ShapeError, match=r"same shape, but got \[2\], \[1\]"):
        tf.add_n([x, tf.tensor([1.0])])


def test_disposed_argument():
    x = tf.tensor([1.0])
    x.dispose()
    with pytest.raises(tf.TensorDisposedError):
        tf.add(x, 1)


@pytest.mark.parametrize(
    "fn",
    [
        tf.add,
        tf.sub,
        tf.mul,
        tf.div,
        tf.floor_div,
        tf.mod,
        tf.maximum,
        tf.minimum,
        tf.pow,
        tf.squared_difference,
        tf.div_no_nan,
    ],
)
def test_failed_op_leaves_no_tensors(fn):
    x, y = tf.tensor([1.0, 2.0]), i32([1, 2, 3])
    before = tf.memory().num_tensors
    with pytest.raises(tf.ShapeError):
        fn(x, y)  # the int32 -> float32 cast of y happens before the broadcast check
    assert tf.memory().num_tensors == before


# ---------------------------------------------------------------------------- no warnings
SPECIALS = [0.0, -0.0, 1.0, -1.0, 3e38, -3e38, 1e-45, np.inf, -np.inf, np.nan]


@pytest.mark.parametrize(
    "fn",
    [
        tf.add,
        tf.sub,
        tf.mul,
        tf.div,
        tf.div_no_nan,
        tf.floor_div,
        tf.mod,
        tf.maximum,
        tf.minimum,
        tf.pow,
        tf.squared_difference,
        lambda a, c: tf.add_n([a, c, a]),
    ],
)
@pytest.mark.parametrize("dtype", ["float32", "int32", "bool"])
def test_no_numpy_warnings(fn, dtype):
    grid_a, grid_b = np.meshgrid(SPECIALS, SPECIALS)
    if dtype == "int32":
        grid_a = np.where(np.isfinite(grid_a), np.clip(grid_a, -(2**31), 2**31 - 1), 0)
        grid_b = np.where(np.isfinite(grid_b), np.clip(grid_b, -(2**31), 2**31 - 1), 0)
        grid_a[0, :2] = [-(2**31), 2**31 - 1]
    a = tf.tensor(grid_a.astype(np.float64).reshape(-1).tolist(), None, dtype)
    c = tf.tensor(grid_b.astype(np.float64).reshape(-1).tolist(), None, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fn(a, c).data_sync()
        fn(tf.scalar(float(grid_a[0, 0]), dtype), tf.scalar(float(grid_b[0, 1]), dtype)).data_sync()


# ---------------------------------------------------------------------------- properties
float32s = st.floats(width=32, allow_nan=True, allow_infinity=True)
int32s = st.integers(-(2**31), 2**31 - 1)


@st.composite
def broadcastable_pair(draw, elements, dtype):
    shapes = draw(
        hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=4)
    )
    a = draw(hnp.arrays(dtype, shapes.input_shapes[0], elements=elements))
    c = draw(hnp.arrays(dtype, shapes.input_shapes[1], elements=elements))
    return a, c


@settings(max_examples=60, deadline=None)
@given(broadcastable_pair(float32s, np.float32))
def test_float32_ops_match_numpy(pair):
    """+, -, *, / are correctly rounded in float32, so they equal TF.js's double-then-round."""
    a, c = pair
    ta, tc = tf.tensor(a), tf.tensor(c)
    with np.errstate(all="ignore"):
        for fn, ref in (
            (tf.add, np.add),
            (tf.sub, np.subtract),
            (tf.mul, np.multiply),
            (tf.div, np.true_divide),
            (tf.maximum, np.maximum),
            (tf.minimum, np.minimum),
        ):
            out = fn(ta, tc)
            assert out.shape == list(np.broadcast_shapes(a.shape, c.shape))
            np.testing.assert_array_equal(np.asarray(out.data_sync()).reshape(out.shape), ref(a, c))
    tf.dispose([ta, tc])


@settings(max_examples=60, deadline=None)
@given(broadcastable_pair(int32s, np.int32))
def test_int32_ops_match_modular_arithmetic(pair):
    a, c = pair
    ta, tc = tf.tensor(a, None, "int32"), tf.tensor(c, None, "int32")
    a64, c64 = np.broadcast_arrays(a.astype(np.int64), c.astype(np.int64))

    def wrap(v):
        return [((int(x) + 2**31) % 2**32) - 2**31 for x in np.asarray(v).reshape(-1)]

    assert tf.add(ta, tc).data_sync().tolist() == wrap(a64 + c64)
    assert tf.sub(ta, tc).data_sync().tolist() == wrap(a64 - c64)
    prods = [int(x) * int(y) for x, y in zip(a64.reshape(-1), c64.reshape(-1), strict=True)]
    got = tf.mul(ta, tc).data_sync().tolist()
    for g, p in zip(got, prods, strict=True):
        if abs(p) <= 2**53:  # beyond 2**53 TF.js rounds the product to a double first
            assert g == wrap([p])[0]
    quot = tf.floor_div(ta, tc).data_sync().tolist()
    rem = tf.mod(ta, tc).data_sync().tolist()
    for x, y, q, r in zip(a64.reshape(-1), c64.reshape(-1), quot, rem, strict=True):
        if y == 0:
            assert q == 0 and r == 0
        else:
            assert q == wrap([int(x) // int(y)])[0]
            assert r == int(x) % int(y)
    tf.dispose([ta, tc])


@settings(max_examples=60, deadline=None)
@given(
    hnp.arrays(np.float32, st.integers(1, 8), elements=st.floats(-1e6, 1e6, width=32)),
    hnp.arrays(np.float32, st.integers(1, 8), elements=st.floats(-1e3, 1e3, width=32)),
)
def test_float_mod_follows_divisor_sign(a, c):
    n = min(a.size, c.size)
    a, c = a[:n], c[:n]
    out = np.asarray(tf.mod(tf.tensor(a), tf.tensor(c)).data_sync())
    for x, y, r in zip(a.astype(np.float64), c.astype(np.float64), out, strict=True):
        if y == 0:
            assert np.isnan(r)
        else:
            rem = np.fmod(x, y)
            want = rem if (x < 0) == (y < 0) else np.fmod(rem + y, y)
            assert r == np.float32(want)
            assert r == 0 or (r > 0) == (y > 0) or abs(r) == abs(np.float32(y))


# ---------------------------------------------------------------------------- gradients
class GradSpec(NamedTuple):
    name: str  # the op's name, then optionally a space and a variant
    fn: object
    shapes: list
    ranges: list  # (low, high) per argument


S = [2, 3]
GRAD_OPS = [
    GradSpec("add", lambda a, b: tf.add(a, b), [S, S], [(-2, 2), (-2, 2)]),
    GradSpec("add broadcast", lambda a, b: tf.add(a, b), [S, [3]], [(-2, 2), (-2, 2)]),
    GradSpec("add_n", lambda a, b, c: tf.add_n([a, b, c]), [S, S, S], [(-2, 2)] * 3),
    GradSpec("add_n repeated", lambda a, b: tf.add_n([a, b, a, a]), [S, S], [(-2, 2)] * 2),
    GradSpec("div", lambda a, b: tf.div(a, b), [S, S], [(-2, 2), (0.5, 2)]),
    GradSpec("div broadcast", lambda a, b: tf.div(a, b), [[2, 1], S], [(-2, 2), (0.5, 2)]),
    # tf.divNoNan runs Equal (no gradient) on a path from each input: not differentiable in
    # TF.js either (goldens "grad divNoNan ..."); its gradient check is in NOT_DIFFERENTIABLE.
    GradSpec("maximum", lambda a, b: tf.maximum(a, b), [S, S], [(-2, 2), (-2, 2)]),
    GradSpec("maximum broadcast", lambda a, b: tf.maximum(a, b), [[3], S], [(-2, 2), (-2, 2)]),
    GradSpec("minimum", lambda a, b: tf.minimum(a, b), [S, S], [(-2, 2), (-2, 2)]),
    GradSpec("minimum broadcast", lambda a, b: tf.minimum(a, b), [S, [1, 3]], [(-2, 2), (-2, 2)]),
    # a / b stays in (2, 3), away from mod's jumps.
    GradSpec("mod", lambda a, b: tf.mod(a, b), [S, S], [(3.1, 3.4), (1.2, 1.5)]),
    GradSpec("mod broadcast", lambda a, b: tf.mod(a, b), [S, []], [(3.1, 3.4), (1.2, 1.5)]),
    GradSpec("mul", lambda a, b: tf.mul(a, b), [S, S], [(-2, 2), (-2, 2)]),
    GradSpec("mul broadcast", lambda a, b: tf.mul(a, b), [[2, 1], [1, 3]], [(-2, 2), (-2, 2)]),
    GradSpec("pow", lambda a, b: tf.pow(a, b), [S, S], [(0.5, 2), (-2, 2)]),
    GradSpec("pow broadcast", lambda a, b: tf.pow(a, b), [S, [3]], [(0.5, 2), (-2, 2)]),
    GradSpec("pow number exponent", lambda a: tf.pow(a, 3), [S], [(-2, 2)]),
    GradSpec(
        "squared_difference", lambda a, b: tf.squared_difference(a, b), [S, S], [(-2, 2), (-2, 2)]
    ),
    GradSpec(
        "squared_difference broadcast",
        lambda a, b: tf.squared_difference(a, b),
        [[2, 1], S],
        [(-2, 2), (-2, 2)],
    ),
    GradSpec("sub", lambda a, b: tf.sub(a, b), [S, S], [(-2, 2), (-2, 2)]),
    GradSpec("sub broadcast", lambda a, b: tf.sub(a, b), [[], S], [(-2, 2), (-2, 2)]),
    GradSpec("operators", lambda a, b: (a + b) * a - b / (a * a + 1), [S, S], [(-2, 2)] * 2),
]

#: Ops of the family whose TF.js gradient is not the derivative, or that have none.
NOT_DIFFERENTIABLE = {
    # TF.js gives floorDiv the gradient of real division (goldens "grad floorDiv ..."), while
    # floor division is piecewise constant: finite differences cannot check it.
    "floor_div": "gradient of real division, by design (test_floor_div_grad_is_real_div_grad)",
    "div_no_nan": "runs Equal, which has no gradient (goldens 'grad divNoNan ...')",
}


@pytest.mark.parametrize("spec", GRAD_OPS, ids=[s.name for s in GRAD_OPS])
def test_check_grads(spec):
    rng = np.random.default_rng(sum(map(ord, spec.name)))
    args = [
        tf.tensor(rng.uniform(lo, hi, shape).astype(np.float32), list(shape))
        for shape, (lo, hi) in zip(spec.shapes, spec.ranges, strict=True)
    ]
    tf.testing.check_grads(spec.fn, args)


def test_grad_table_covers_every_op():
    from tidytensor.ops import arithmetic

    covered = {s.name.split()[0] for s in GRAD_OPS} | set(NOT_DIFFERENTIABLE)
    assert set(arithmetic.__all__) <= covered, set(arithmetic.__all__) - covered


def test_floor_div_grad_is_real_div_grad():
    a, b = tf.tensor([7.0, -7.0, 5.0]), tf.tensor([2.0, 2.0, -3.0])
    got = tf.grads(tf.floor_div)([a, b])
    want = tf.grads(tf.div)([a, b])
    for g, w in zip(got, want, strict=True):
        tf.testing.assert_close(g, w)


def test_div_no_nan_has_no_gradient():
    with pytest.raises(GradientError, match="gradient function not found for Equal"):
        tf.grad(lambda a: tf.div_no_nan(a, tf.tensor([1.0, 0.0])))(tf.tensor([1.0, 2.0]))


# The spec format cannot put a differentiated tensor inside a list argument: TF.js 4.22.0's
# results for tf.grads((x, y, z) => tf.addN([x, y, z])) etc., with its tf.memory() deltas.
def test_add_n_grad_matches_tfjs():
    a, b = tf.tensor2d([[1, 2], [3, 4]]), tf.tensor2d([[5, 6], [7, 8]])
    c, dy = a.clone(), tf.tensor2d([[1, 2], [3, 4]])
    before = tf.memory()
    grads = tf.grads(lambda x, y, z: tf.add_n([x, y, z]))([a, b, c], dy)
    after = tf.memory()
    assert [g.array_sync() for g in grads] == [[[1, 2], [3, 4]]] * 3
    # Each gradient is a clone of dy: new tensors, no new buffers.
    assert (
        after.num_tensors - before.num_tensors,
        after.num_data_buffers - before.num_data_buffers,
    ) == (3, 0)

    before = tf.memory()
    grads = tf.grads(lambda x, y: tf.add_n([x, y, x]))([a, b])
    after = tf.memory()
    assert [g.array_sync() for g in grads] == [[[2, 2], [2, 2]], [[1, 1], [1, 1]]]
    assert (
        after.num_tensors - before.num_tensors,
        after.num_data_buffers - before.num_data_buffers,
    ) == (2, 2)


@pytest.mark.parametrize(
    ("fn", "op_name"),
    [
        (tf.maximum, "Maximum"),
        (tf.minimum, "Minimum"),
        (tf.squared_difference, "SquaredDifference"),
    ],
)
def test_broadcast_grads_are_reduced_where_tfjs_fails(fn, op_name):
    """TF.js 4.22.0 raises "Error in gradient for op <op>. The gradient of input 'b' has shape
    '2,2' ..." here; tidytensor sums the gradient back to each input's shape, as for add."""
    a, b = tf.tensor2d([[1, 5], [3, 2]]), tf.tensor1d([2, 3])
    da, db = tf.grads(fn)([a, b])
    assert da.shape == [2, 2] and db.shape == [2]
    full_a, full_b = tf.grads(fn)([a, tf.tensor2d([[2, 3], [2, 3]])])
    np.testing.assert_allclose(da.numpy(), full_a.numpy())
    np.testing.assert_allclose(db.numpy(), full_b.numpy().sum(axis=0))


def test_mod_grad_with_reused_input_survives_accumulation():
    """Mod's gradient for a is dy itself in TF.js; here a new tensor, so adding a's other
    gradient in (which disposes the partial sums) leaves dy alive for b's gradient."""
    a, b = tf.tensor([5.0, 7.5]), tf.tensor([3.0, 2.0])
    da, db = tf.grads(lambda x, y: tf.add(tf.mod(x, y), tf.mul(x, 2)))([a, b])
    assert da.array_sync() == [3.0, 3.0]
    assert db.array_sync() == [-1.0, -3.0]


def test_grads_leave_no_tensors_behind():
    a, b = tf.tensor([[1.0, 2.0], [3.0, 4.0]]), tf.tensor([0.5, 2.0])
    for fn in (tf.add, tf.sub, tf.mul, tf.div, tf.pow, tf.mod, tf.maximum, tf.minimum):
        with tf.testing.assert_no_leaks(2):
            tf.grads(fn)([a, b])
