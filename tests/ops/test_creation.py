"""Creation ops against TF.js goldens, plus hand-written edge cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tidytensor as tf
from golden_util import case_ids, check_case, load_cases
from tidytensor.random_engines import js_number_to_string

CASES = load_cases("creation")


@pytest.mark.parametrize(("case", "expected"), CASES, ids=case_ids(CASES))
def test_golden(case, expected):
    check_case(case, expected)


def _counts():
    m = tf.memory()
    return m.num_tensors, m.num_data_buffers, m.num_bytes


# ----------------------------------------------------------------------------- memory
def test_zeros_complex64_leaves_parts_alive_like_tfjs():
    before = _counts()
    z = tf.zeros([2], "complex64")
    after = _counts()
    assert (after[0] - before[0], after[1] - before[1], after[2] - before[2]) == (3, 3, 16)
    assert z.data_sync().tolist() == [0, 0, 0, 0]


def test_ones_complex64_values_and_counts():
    before = _counts()
    o = tf.ones([2, 1], "complex64")
    assert o.shape == [2, 1] and o.dtype == "complex64"
    assert o.data_sync().tolist() == [1, 0, 1, 0]
    assert _counts()[0] - before[0] == 3


def test_complex_tensors_count_zero_bytes():
    c = tf.complex([1, 2], [3, 4])
    assert tf.memory().num_bytes == 0
    assert tf.memory().num_tensors == 1
    c.dispose()
    assert _counts() == (0, 0, 0)


def test_real_imag_values_and_memory():
    c = tf.complex([1.5, 2], [3, -4])
    before = _counts()
    r = tf.real(c)
    i = tf.imag(c)
    assert r.dtype == i.dtype == "float32"
    assert r.array_sync() == [1.5, 2.0] and i.array_sync() == [3.0, -4.0]
    after = _counts()
    assert (after[0] - before[0], after[1] - before[1], after[2] - before[2]) == (2, 2, 16)
    c.dispose()
    assert r.array_sync() == [1.5, 2.0]  # the parts own their values


def test_zeros_like_ones_like_complex():
    c = tf.complex([1.5, 2], [3, -4])
    z = tf.zeros_like(c)
    o = tf.ones_like(c)
    assert z.dtype == o.dtype == "complex64"
    assert z.data_sync().tolist() == [0, 0, 0, 0]
    assert o.data_sync().tolist() == [1, 0, 1, 0]
    assert tf.memory().num_tensors == 3


@pytest.mark.parametrize(
    ("fn", "kernels", "tensors", "nbytes"),
    [
        (lambda: tf.eye(2), ["Reshape"], 1, 16),
        (lambda: tf.eye(2, 2, [3]), ["Reshape", "ExpandDims", "Tile"], 1, 48),
        (lambda: tf.zeros([2]), [], 1, 8),
        (lambda: tf.zeros([2], "complex64"), ["Complex"], 3, 16),
        (lambda: tf.fill([2], 1), ["Fill"], 1, 8),
        (lambda: tf.range(0, 3), ["Range"], 1, 12),
        (lambda: tf.linspace(0, 1, 3), ["LinSpace"], 1, 12),
        (lambda: tf.one_hot([0, 1], 2), ["OneHot"], 1, 16),
        (lambda: tf.zeros_like(tf.complex([1], [2])), ["Complex", "ZerosLike"], 2, 0),
        (lambda: tf.truncated_normal([3], 0, 1, "float32", 3), [], 1, 12),
        (lambda: tf.tensor([1, 2, 3]), [], 1, 12),
        (lambda: tf.buffer([2]).to_tensor(), [], 1, 8),
    ],
)
def test_profile_matches_tfjs(fn, kernels, tensors, nbytes):
    # Kernel names, new tensors and new bytes as tf.profile reports them in TF.js 4.22.
    p = tf.profile(fn)
    assert p.kernel_names == kernels
    assert p.new_tensors == tensors
    assert p.new_bytes == nbytes


def test_clone_shares_buffer():
    a = tf.tensor1d([1, 2, 3, 4])
    c = tf.clone(a)
    assert _counts() == (2, 1, 32)
    a.dispose()
    assert c.array_sync() == [1.0, 2.0, 3.0, 4.0]


def test_failed_creation_leaks_nothing():
    for bad in (
        lambda: tf.tensor([1, 2, 3], [2, 2]),
        lambda: tf.tensor2d([1, 2]),
        lambda: tf.eye(2, None, [1, 1, 1, 1]),
        lambda: tf.one_hot(["a"], 3),
    ):
        with pytest.raises(tf.TidyTensorError):
            bad()
    assert tf.memory().num_tensors == 0


# ----------------------------------------------------------------------------- tensor()
@pytest.mark.parametrize(
    ("values", "message"),
    [
        ([[1, 2], [3]], "Element arr[1] should have 2 elements, but has 1 elements"),
        (
            [[1, 2], 3],
            "Element arr[1] is a primitive, but should be an array/TypedArray of 2 elements",
        ),
        ([1, [2, 3]], "Element arr[1] should be a primitive, but is an array of 2 elements"),
        (
            [[[1], [2]], [[3], [4, 5]]],
            "Element arr[1][1] should have 1 elements, but has 2 elements",
        ),
        ([["a", "b"], ["c"]], "Element arr[1] should have 2 elements"),
    ],
)
def test_ragged_lists_raise_tfjs_debug_message(values, message):
    with pytest.raises(tf.ShapeError) as info:
        tf.tensor(values)
    assert message in str(info.value)
    assert tf.memory().num_tensors == 0


@pytest.mark.parametrize(
    ("array", "dtype"),
    [
        (np.array([1.5, 2], np.float32), "float32"),
        (np.array([1.5, 2], np.float64), "float32"),
        (np.array([1.5, 2], np.float16), "float32"),
        (np.array([1, 2], np.int32), "int32"),
        (np.array([1, 2], np.int64), "int32"),
        (np.array([1, 2], np.uint8), "int32"),
        (np.array([1, 2], np.int8), "int32"),
        (np.array([1, 2], np.int16), "int32"),
        (np.array([True, False]), "bool"),
        (np.array(["a", "bc"]), "string"),
        (np.array([1 + 2j]), "complex64"),
    ],
)
def test_numpy_inputs_follow_api_md(array, dtype):
    t = tf.tensor(array)
    assert t.dtype == dtype
    assert t.shape == list(array.shape)
    if dtype == "string":
        assert t.array_sync() == array.tolist()
    elif dtype != "complex64":
        np.testing.assert_array_equal(t.numpy(), array.astype(t.numpy().dtype))


def test_numpy_inputs_with_explicit_dtype_and_shape():
    t = tf.tensor(np.array([1.7, -1.7, 3e10]), None, "int32")
    assert t.array_sync() == [1, -1, -64771072]
    t = tf.tensor2d(np.arange(6, dtype=np.int64), [2, 3], "float32")
    assert t.array_sync() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    t = tf.tensor(np.zeros((2, 0, 3)))
    assert t.shape == [2, 0, 3] and t.dtype == "float32"
    assert tf.scalar(np.float64(2.5)).array_sync() == 2.5
    assert tf.scalar(np.int64(7)).dtype == "int32"


def test_python_conveniences():
    assert tf.tensor(((1, 2), (3, 4))).shape == [2, 2]
    assert tf.tensor([1 + 2j, 3]).dtype == "complex64"
    assert tf.tensor([1 + 2j]).data_sync().tolist() == [1, 2]
    assert tf.tensor([b"ab", "c"]).array_sync() == ["ab", "c"]
    assert tf.tensor([1, 2], 2).shape == [2]  # a bare int is a rank-1 shape
    assert tf.tensor([1, 2], [2.0]).shape == [2]  # an integral float is an integer, as in JS


def test_tensor_given_a_tensor_is_an_error():
    t = tf.tensor([1])
    with pytest.raises(tf.ArgumentTypeError, match="values passed to tensor"):
        tf.tensor(t)
    with pytest.raises(tf.ArgumentTypeError, match="but found a Tensor among them"):
        tf.tensor([tf.tensor([1, 2]), tf.tensor([3, 4])])
    with pytest.raises(tf.ArgumentTypeError, match="but found a dict among them"):
        tf.tensor([1, {}])
    assert tf.tensor([tf.scalar(1), tf.scalar(2)]).array_sync() == [1.0, 2.0]


def test_string_dtype_with_numbers_is_an_error():
    # TF.js builds an unreadable tensor here.
    with pytest.raises(tf.DTypeError, match="Cannot create a string tensor from float32 values"):
        tf.tensor([1, 2], None, "string")


def test_bool_shape_dimension_is_rejected():
    with pytest.raises(tf.ShapeError, match="positive integers"):
        tf.zeros([True])


def test_tensor1d_has_no_shape_argument():
    t = tf.tensor1d([1, 2], "int32")  # TF.js: tensor1d(values, dtype)
    assert t.dtype == "int32"


# ----------------------------------------------------------------------------- other ops
def test_buffer_roundtrip():
    b = tf.buffer([2, 3], "int32")
    b.set(5, 1, 2)
    b.set(-2, 0, 0)
    assert b.get(1, 2) == 5
    assert b.to_tensor().array_sync() == [[-2, 0, 0], [0, 0, 5]]
    assert tf.buffer([3], "int32", [1.9, -1.9, 2]).to_tensor().array_sync() == [1, -1, 2]
    assert tf.buffer([2], "string").to_tensor().array_sync() == ["", ""]
    with pytest.raises(tf.ArgumentTypeError):
        tf.buffer([1], "float32", tf.tensor([1]))


def test_print_prints_to_string(capsys):
    x = tf.tensor([[1, 2], [3, 4]])
    tf.print(x)
    tf.print(x, True)
    out = capsys.readouterr().out
    assert out == x.to_string() + "\n" + x.to_string(True) + "\n"
    with pytest.raises(tf.ArgumentTypeError, match="needs a Tensor"):
        tf.print([1, 2])


def test_fill_conversions():
    assert tf.fill([2], 256, "bool").array_sync() == [0, 0]  # Uint8Array store wraps
    assert tf.fill([1], -2.5, "bool").array_sync() == [1]
    assert (
        tf.fill([1], "x", "float32").data_sync()[0] != tf.fill([1], "x", "float32").data_sync()[0]
    )
    assert tf.fill([1], b"ab").array_sync() == ["ab"]
    with pytest.raises(tf.DTypeError, match="needs a string value"):
        tf.fill([2], 3, "string")
    with pytest.raises(tf.ArgumentTypeError, match="must be a number, boolean or string"):
        tf.fill([2], [1, 2])


def test_range_and_linspace_edges():
    assert tf.range(0, 3, 1, "bool").array_sync() == [0, 1, 1]
    np.testing.assert_array_equal(tf.range(0, 100000).numpy(), np.arange(100000, dtype=np.float32))
    np.testing.assert_array_equal(
        tf.range(-5, 200000, 2, "int32").numpy(), np.arange(-5, 200000, 2, dtype=np.int32)
    )
    assert tf.range(0, 3, 1, "float32").dtype == "float32"
    assert tf.linspace(0, 10, 11).array_sync() == [float(i) for i in range(11)]
    with pytest.raises(tf.InvalidArgumentError, match="Invalid typed array length"):
        tf.range(0, math.inf)
    with pytest.raises(tf.DTypeError):
        tf.range(0, 3, 1, "complex64")


def test_one_hot_errors():
    with pytest.raises(tf.InvalidArgumentError, match="depth must be an integer"):
        tf.one_hot([0], 2.5)
    with pytest.raises(tf.DTypeError, match="does not support dtype string"):
        tf.one_hot([0], 2, 1, 0, "string")


def test_complex_rejects_complex_input():
    c = tf.complex([1], [2])
    with pytest.raises(tf.DTypeError, match="real-valued"):
        tf.complex(c, [1])


def test_eye_rejects_strings():
    with pytest.raises(tf.DTypeError, match="eye"):
        tf.eye(2, 2, None, "string")


def test_truncated_normal_rejects_negative_std():
    with pytest.raises(tf.InvalidArgumentError, match="std_dev"):
        tf.truncated_normal([2], 0, -1)


def test_chained_methods():
    x = tf.tensor1d([0, 1], "int32")
    assert x.one_hot(2).array_sync() == [[1, 0], [0, 1]]
    assert x.zeros_like().array_sync() == [0, 0]
    assert x.ones_like().array_sync() == [1, 1]
    assert x.clone().array_sync() == [0, 1]


# ----------------------------------------------------------------------------- variable
def test_variable_survives_tidy():
    def body():
        tf.variable(tf.tensor([1, 2, 3]))
        assert tf.memory().num_tensors == 2
        return None

    tf.tidy(body)
    assert tf.memory().num_tensors == 1
    tf.dispose_variables()
    assert tf.memory().num_tensors == 0


def test_variable_assign_shares_buffers():
    v = tf.variable(tf.tensor([1, 2, 3]))
    assert _counts()[:2] == (2, 1)
    s = tf.tensor([4, 5, 6])
    v.assign(s)
    assert _counts()[:2] == (3, 2)
    v.dispose()
    assert _counts()[:2] == (2, 2)


def test_variable_errors():
    tf.variable(tf.tensor([1]), True, "dup")
    with pytest.raises(
        tf.VariableExistsError, match="Variable with name dup was already registered"
    ):
        tf.variable(tf.tensor([1]), True, "dup")
    with pytest.raises(tf.ArgumentTypeError, match="must be a Tensor"):
        tf.variable([1, 2])


# ----------------------------------------------------------------------------- properties
def _to_int32(x: float) -> int:
    if not math.isfinite(x):
        return 0
    r = int(x) % 2**32
    return r - 2**32 if r >= 2**31 else r


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=64), max_size=20))
def test_int32_conversion_matches_js(values):
    t = tf.tensor(values, [len(values)], "int32")
    assert t.array_sync() == [_to_int32(v) for v in values]
    t.dispose()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=True, width=64), max_size=20))
def test_float32_conversion_matches_numpy(values):
    t = tf.tensor(values, [len(values)])
    with np.errstate(over="ignore"):
        want = np.array(values, dtype=np.float64).astype(np.float32)
    np.testing.assert_array_equal(t.numpy(), want)
    t.dispose()


@settings(max_examples=200, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_js_number_to_string_roundtrips(x):
    s = js_number_to_string(x)
    assert float(s) == x
    assert "e" not in s or "e+" in s or "e-" in s


@settings(max_examples=40, deadline=None)
@given(
    st.integers(-50, 50),
    st.integers(-50, 50),
    st.sampled_from([0.5, 0.25, 1.5, 3, -0.75, -2, 0.1]),
)
def test_range_matches_sequential_float32_accumulation(start, stop, step):
    t = tf.range(start, stop, step)
    if start == stop or (start < stop and step < 0) or (stop < start and step > 1):
        assert t.size == 0
    else:
        if stop < start and step == 1:
            step = -1
        n = abs(math.ceil((stop - start) / step))
        want = [np.float32(start)]
        for _ in range(1, n):
            want.append(np.float32(float(want[-1]) + step))
        np.testing.assert_array_equal(t.numpy(), np.array(want, dtype=np.float32))
    t.dispose()
