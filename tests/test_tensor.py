"""The Tensor API: data access, buffers, properties, Python conveniences and chained methods.

Where TF.js defines the answer (dataSync, arraySync, bufferSync, strides, bytes), the
expectations are TF.js 4.22.0's: goldens in tests/golden/specs/tensor_api.json, or values
quoted from TF.js in the test.
"""

from __future__ import annotations

import asyncio
import gc
import math
import operator
import re

import numpy as np
import pytest

import tidytensor as tf
from golden_util import decode_arg, load_cases
from tidytensor.errors import ArgumentTypeError
from tidytensor.naming import snake_case
from tidytensor.ops._chained import CHAINED_OPS

CASES = load_cases("tensor_api")

_GOLDEN_PARAMS = [
    pytest.param(
        c,
        e,
        id=c["name"],
    )
    for c, e in CASES
]

#: The TypedArray each dtype's dataSync returns in TF.js, as a NumPy dtype.
TYPED_ARRAY = {"float32": np.float32, "int32": np.int32, "bool": np.uint8}


def _js(value):
    """A golden's encoded JS value as Python (nested lists, special floats decoded)."""
    if isinstance(value, dict):
        if "list" in value:
            return [_js(v) for v in value["list"]]
        return _js(value["value"])
    if isinstance(value, list):
        return [_js(v) for v in value]
    return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}.get(value, value)


def _same_nested(got, want, dtype):
    """Exact equality of nested values, with TF.js's number types (bool and int32 as int)."""
    if isinstance(want, list):
        assert isinstance(got, list), f"{got!r} is not a list"
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _same_nested(g, w, dtype)
        return
    if dtype == "string":
        assert type(got) is str and got == want
    elif dtype == "float32":
        assert type(got) is float and got == want, f"{got!r} != {want!r}"
    else:
        assert type(got) is int and got == want, f"{got!r} != {want!r}"


def _golden_tensor(case):
    (arg,) = case["args"]
    return decode_arg(arg), arg.get("dtype", "string" if _is_string(arg["tensor"]) else "float32")


def _is_string(values):
    while isinstance(values, list) and values:
        values = values[0]
    return isinstance(values, str) and values not in ("NaN", "Infinity", "-Infinity")


@pytest.mark.parametrize(("case", "expected"), _GOLDEN_PARAMS)
def test_golden(case, expected):
    t, dtype = _golden_tensor(case)
    assert t.dtype == dtype
    before = tf.memory()
    if case["op"] == "dataSync":
        got = t.data_sync()
        want = _js(expected)
        if dtype == "string":
            assert isinstance(got, list) and got == want
        else:
            assert isinstance(got, np.ndarray) and got.ndim == 1
            assert got.dtype == TYPED_ARRAY[dtype]
            assert got.tolist() == want
    elif case["op"] == "arraySync":
        _same_nested(t.array_sync(), _js(expected), dtype)
    else:
        buf = t.buffer_sync()
        assert isinstance(buf, tf.TensorBuffer)
        assert buf.dtype == expected["dtype"] and buf.shape == expected["shape"]
        assert buf.size == math.prod(expected["shape"])
        assert np.asarray(buf.values).reshape(-1).tolist() == _js(expected["values"])
    after = tf.memory()
    assert (after.num_tensors, after.num_data_buffers) == (
        before.num_tensors,
        before.num_data_buffers,
    )


# ------------------------------------------------------------------ data access
def test_data_sync_is_a_copy():
    t = tf.tensor([1, 2, 3])
    d = t.data_sync()
    d[0] = 100
    assert t.data_sync().tolist() == [1, 2, 3]


def test_data_sync_complex_interleaved():
    """TF.js: tf.complex([1, 3], [2, 4]).dataSync() is Float32Array [1, 2, 3, 4]."""
    t = tf.tensor(np.array([1 + 2j, 3 + 4j], np.complex64))
    assert t.dtype == "complex64"
    d = t.data_sync()
    assert d.dtype == np.float32 and d.tolist() == [1, 2, 3, 4]


def test_array_sync_complex_interleaved_last_axis():
    """TF.js: tf.complex([[1, 3], [5, 7]], [[2, 4], [6, 8]]).arraySync()."""
    t = tf.tensor(np.array([[1 + 2j, 3 + 4j], [5 + 6j, 7 + 8j]], np.complex64))
    assert t.array_sync() == [[1, 2, 3, 4], [5, 6, 7, 8]]


def test_array_sync_complex_scalar_is_real_part():
    """TF.js: tf.complex(1, 2).arraySync() is 1 (toNestedArray returns a[0] for rank 0)."""
    assert tf.tensor(np.complex64(1 + 2j)).array_sync() == 1


def test_array_sync_returns_fresh_lists():
    t = tf.tensor([[1, 2], [3, 4]])
    a = t.array_sync()
    a[0][0] = 9
    assert t.array_sync() == [[1, 2], [3, 4]]


def test_async_data_and_array():
    t = tf.tensor([[1, 2], [3, 4]], None, "int32")

    async def read():
        return await t.data(), await t.array()

    data, array = asyncio.run(read())
    assert data.dtype == np.int32 and data.tolist() == [1, 2, 3, 4]
    assert array == [[1, 2], [3, 4]]


def test_async_data_of_disposed_tensor_raises():
    t = tf.tensor([1])
    t.dispose()
    with pytest.raises(tf.TensorDisposedError):
        asyncio.run(t.data())


@pytest.mark.parametrize(
    ("values", "dtype", "np_dtype"),
    [
        ([[1.5, 2], [3, 4]], "float32", np.float32),
        ([[1, 2], [3, 4]], "int32", np.int32),
        ([[True, False]], "bool", np.bool_),
        ([["a", "b"]], "string", object),
    ],
)
def test_numpy_and_asarray(values, dtype, np_dtype):
    t = tf.tensor(values, None, dtype)
    for arr in (t.numpy(), np.asarray(t), np.array(t)):
        assert arr.dtype == np_dtype
        assert arr.shape == tuple(t.shape)
        assert arr.tolist() == np.array(values, dtype=np_dtype).tolist()


def test_numpy_is_a_writable_copy():
    t = tf.tensor([1, 2])
    arr = t.numpy()
    arr[0] = 5
    assert t.array_sync() == [1.0, 2.0]


def test_asarray_with_dtype():
    arr = np.asarray(tf.tensor([1.5, 2.5]), dtype=np.float64)
    assert arr.dtype == np.float64 and arr.tolist() == [1.5, 2.5]


def test_reading_a_disposed_tensor_names_the_call():
    t = tf.tensor([1, 2])
    t.dispose()
    for read in ("data_sync", "array_sync", "numpy", "bytes", "to_string"):
        with pytest.raises(tf.TensorDisposedError, match=f"Tensor {t.id} .*passed to '{read}'"):
            getattr(t, read)()


def test_buffer_sync_of_disposed_tensor_names_buffer_sync():
    t = tf.tensor([1, 2])
    t.dispose()
    with pytest.raises(tf.TensorDisposedError, match="passed to 'buffer_sync'"):
        t.buffer_sync()


def test_zero_size_array_sync_is_empty_list_when_first_axis_is_zero():
    assert tf.tensor([], [0, 3], "int32").array_sync() == []
    assert tf.tensor([], [0]).array_sync() == []


def test_zero_size_array_sync_is_empty_list_for_any_zero_axis():
    """TF.js: tf.zeros([2, 0]).arraySync() is [] (toNestedArray returns [] for size 0)."""
    assert tf.tensor([], [2, 0]).array_sync() == []
    assert tf.tensor([], [1, 2, 0]).array_sync() == []


# ------------------------------------------------------------------ bytes
def test_bytes_match_tfjs():
    """TF.js: (await t.bytes()) for float32 [1, 2] is Uint8Array [0,0,128,63, 0,0,0,64]."""
    assert list(tf.tensor([1, 2]).bytes()) == [0, 0, 128, 63, 0, 0, 0, 64]
    assert list(tf.tensor([1, -1], None, "int32").bytes()) == [1, 0, 0, 0, 255, 255, 255, 255]
    assert list(tf.tensor([True, False]).bytes()) == [1, 0]
    strings = tf.tensor(["ab", "é"]).bytes()
    assert [list(b) for b in strings] == [[97, 98], [195, 169]]


# ------------------------------------------------------------------ buffers
def test_buffer_sync_get_set_to_tensor():
    """TF.js: buf = tensor2d([[1,2],[3,4]]).bufferSync(); buf.set(10, 0, 1) ..."""
    t = tf.tensor2d([[1, 2], [3, 4]])
    buf = t.buffer_sync()
    buf.set(10, 0, 1)
    assert buf.get(0, 1) == 10 and buf.get(1, 0) == 3
    assert buf.loc_to_index([1, 1]) == 3 and buf.index_to_loc(3) == [1, 1]
    assert (buf.rank, buf.size, buf.strides) == (2, 4, [2])
    assert t.array_sync() == [[1, 2], [3, 4]]  # the tensor is unchanged
    before = tf.memory()
    u = buf.to_tensor()
    after = tf.memory()
    assert after.num_tensors == before.num_tensors + 1
    assert after.num_data_buffers == before.num_data_buffers + 1
    assert (u.shape, u.dtype, u.array_sync()) == ([2, 2], "float32", [[1, 10], [3, 4]])
    buf.set(20, 0, 0)
    assert u.array_sync() == [[1, 10], [3, 4]]  # to_tensor copies


def test_buffer_get_out_of_range():
    buf = tf.tensor2d([[1, 2], [3, 4]]).buffer_sync()
    with pytest.raises(tf.InvalidArgumentError, match="out of range element at"):
        buf.get(5, 0)


def test_buffer_scalar_and_async():
    t = tf.scalar(5)
    assert t.buffer_sync().get() == 5
    assert t.buffer_sync().strides == []
    buf = asyncio.run(t.buffer())
    assert buf.get() == 5


def test_buffer_int_and_string_types():
    b = tf.tensor([1, 2], None, "int32").buffer_sync()
    assert type(b.get(1)) is int and b.get(1) == 2
    s = tf.tensor(["x", "y"]).buffer_sync()
    s.set("z", 0)
    assert s.to_tensor().array_sync() == ["z", "y"]


# ------------------------------------------------------------------ properties
def test_properties():
    t = tf.zeros([2, 3, 4])
    assert t.shape == [2, 3, 4] and isinstance(t.shape, list)
    assert (t.rank, t.size, t.dtype) == (3, 24, "float32")
    assert t.strides == [12, 4]  # TF.js: tf.zeros([2,3,4]).strides
    assert tf.scalar(1).strides == [] and tf.tensor([1, 2]).strides == []
    assert isinstance(t.id, int)
    assert t.is_disposed is False
    t.dispose()
    assert t.is_disposed is True
    t.dispose()  # idempotent


def test_shape_is_a_fresh_list():
    t = tf.tensor([[1, 2]])
    s = t.shape
    s.append(7)
    assert t.shape == [1, 2]


def test_ids_are_unique_and_increasing():
    a, b = tf.tensor([1]), tf.tensor([1])
    c = a.reshape([1, 1])
    assert a.id < b.id < c.id


def test_identity_hashing():
    a = tf.tensor([1, 2])
    b = tf.tensor([1, 2])
    d = {a: "a", b: "b"}
    assert d[a] == "a" and d[b] == "b"
    assert len({a, b, a}) == 2
    assert hash(a) == hash(a) and a in {a}


# ------------------------------------------------------------------ python conversions
def test_len():
    assert len(tf.tensor([[1, 2], [3, 4], [5, 6]])) == 3
    assert len(tf.tensor([], [0])) == 0
    with pytest.raises(TypeError, match="scalar"):
        len(tf.scalar(1))


def test_bool_float_int_index():
    assert bool(tf.scalar(1)) is True and bool(tf.tensor([0])) is False
    assert bool(tf.scalar(True)) is True
    assert float(tf.scalar(2.5)) == 2.5 and int(tf.tensor([[7.9]])) == 7
    i = tf.scalar(2, "int32")
    assert operator.index(i) == 2 and [10, 20, 30][i] == 30
    with pytest.raises(ValueError, match="ambiguous"):
        bool(tf.tensor([1, 2]))
    with pytest.raises(ValueError, match="one element"):
        float(tf.tensor([1, 2]))
    with pytest.raises(TypeError, match="index"):
        operator.index(tf.scalar(2.0))


def test_repr_is_to_string():
    t = tf.tensor([[1, 2], [3, 4]])
    assert repr(t) == "Tensor\n    [[1, 2],\n     [3, 4]]"


# ------------------------------------------------------------------ operators
def _check(result, dtype, shape, values):
    assert isinstance(result, tf.Tensor)
    assert (result.dtype, result.shape) == (dtype, shape)
    assert result.array_sync() == values


def test_arithmetic_operators_with_numbers():
    t = tf.tensor([1, 2, 4])
    _check(t + 1, "float32", [3], [2, 3, 5])
    _check(1 + t, "float32", [3], [2, 3, 5])
    _check(t - 1, "float32", [3], [0, 1, 3])
    _check(1 - t, "float32", [3], [0, -1, -3])
    _check(t * 2, "float32", [3], [2, 4, 8])
    _check(2 * t, "float32", [3], [2, 4, 8])
    _check(t / 2, "float32", [3], [0.5, 1, 2])
    _check(4 / t, "float32", [3], [4, 2, 1])
    # TF.js's FloorDiv kernel always outputs int32: tf.floorDiv(tensor([1,2,4]), 3) is int32.
    _check(t // 3, "int32", [3], [0, 0, 1])
    _check(9 // t, "int32", [3], [9, 4, 2])
    _check(tf.tensor([7.5, -7.5]) // 2, "int32", [2], [3, -4])
    _check(t % 3, "float32", [3], [1, 2, 1])
    _check(9 % t, "float32", [3], [0, 1, 1])
    _check(t**2, "float32", [3], [1, 4, 16])
    _check(2**t, "float32", [3], [2, 4, 16])


def test_operators_follow_js_number_rule():
    """``int32_tensor + 3`` is float32 in TF.js (3 is a JS number); int32 + int32 stays int32."""
    i = tf.tensor([1, 2], None, "int32")
    _check(i + 3, "float32", [2], [4.0, 5.0])
    _check(i + i, "int32", [2], [2, 4])
    _check(i // tf.tensor([2, 2], None, "int32"), "int32", [2], [0, 1])


def test_tensor_tensor_operators_broadcast():
    a = tf.tensor([[1, 2], [3, 4]])
    b = tf.tensor([10, 20])
    _check(a + b, "float32", [2, 2], [[11, 22], [13, 24]])
    _check(b - a, "float32", [2, 2], [[9, 18], [7, 16]])
    _check(a * [1, 0], "float32", [2, 2], [[1, 0], [3, 0]])
    _check([1, 0] * a, "float32", [2, 2], [[1, 0], [3, 0]])


def test_operator_memory_is_one_tensor():
    """The Python number is converted inside the op's scope: only the result remains."""
    t = tf.tensor([1, 2])
    before = tf.memory()
    y = t * 3
    after = tf.memory()
    assert after.num_tensors == before.num_tensors + 1
    assert after.num_data_buffers == before.num_data_buffers + 1
    y.dispose()


def test_matmul_operator():
    a = tf.tensor2d([[1, 2], [3, 4]])
    b = tf.tensor2d([[5], [6]])
    _check(a @ b, "float32", [2, 1], [[17], [39]])
    _check([[1, 1]] @ a, "float32", [1, 2], [[4, 6]])


def test_unary_operators():
    t = tf.tensor([-1.5, 2])
    _check(-t, "float32", [2], [1.5, -2])
    _check(abs(t), "float32", [2], [1.5, 2])
    assert +t is t


def test_comparison_operators_are_elementwise():
    a = tf.tensor([1, 2, 3])
    _check(a == 2, "bool", [3], [0, 1, 0])
    _check(a != 2, "bool", [3], [1, 0, 1])
    _check(a < 2, "bool", [3], [1, 0, 0])
    _check(a <= 2, "bool", [3], [1, 1, 0])
    _check(a > 2, "bool", [3], [0, 0, 1])
    _check(a >= 2, "bool", [3], [0, 1, 1])
    _check(2 < a, "bool", [3], [0, 0, 1])  # reflected: a > 2


def test_logical_operators():
    p = tf.tensor([True, True, False, False])
    q = tf.tensor([True, False, True, False])
    _check(p & q, "bool", [4], [1, 0, 0, 0])
    _check(p | q, "bool", [4], [1, 1, 1, 0])
    _check(p ^ q, "bool", [4], [0, 1, 1, 0])
    _check(~p, "bool", [4], [0, 0, 1, 1])


def test_numpy_scalars_defer_to_the_tensor():
    """``__array_ufunc__ = None``: NumPy hands the operation to the tensor's reflected operator,
    so the result is a Tensor, and NumPy scalars keep their dtype as typed arrays do."""
    t = tf.tensor([1, 2])
    for value in (np.float32(2), np.float64(2)):
        _check(value + t, "float32", [2], [3, 4])
        _check(value * t, "float32", [2], [2, 4])
        _check(value - t, "float32", [2], [1, 0])
    i = tf.tensor([1, 2], None, "int32")
    _check(np.int32(2) + i, "int32", [2], [3, 4])
    _check(np.array([10, 20], np.float32) + t, "float32", [2], [11, 22])
    with pytest.raises(TypeError):
        np.add(np.array([1.0, 2.0]), t)


def test_operators_on_disposed_tensor_raise():
    t = tf.tensor([1, 2])
    t.dispose()
    with pytest.raises(tf.TensorDisposedError, match="'add'"):
        _ = t + 1


def test_operator_with_bad_type_raises_clearly():
    with pytest.raises(TypeError, match="must be a Tensor or TensorLike"):
        _ = tf.tensor([1]) + object()


# ------------------------------------------------------------------ chained methods
def test_every_implemented_chained_op_is_a_method():
    """TF.js installs 137 chained methods; each one whose op exists here must be a method."""
    ops = set(tf.ops.__all__)
    for js_name in CHAINED_OPS:
        name = snake_case(js_name)
        if name in ops:
            assert callable(getattr(tf.Tensor, name, None)), f"Tensor.{name} is missing"


def test_chained_methods_call_their_ops():
    e = tf.tensor2d([[1, 2], [3, 4]])
    f = tf.tensor2d([[5, 6], [7, 8]])
    assert e.add(f).array_sync() == [[6, 8], [10, 12]]
    assert e.add(f).square().array_sync() == [[36, 64], [100, 144]]
    assert e.reshape([4]).shape == [4]
    assert e.flatten().shape == [4]
    assert e.as1d().shape == [4]
    assert e.as_type("int32").dtype == "int32"
    assert e.to_int().dtype == "int32" and e.to_bool().dtype == "bool"
    assert e.clone().array_sync() == e.array_sync()
    assert tf.tensor([[5]]).as_scalar().shape == []
    assert e.mean().array_sync() == 2.5
    assert e.sum(1).array_sync() == [3, 7]
    assert e.mat_mul(f).array_sync() == [[19, 22], [43, 50]]
    assert e.arg_max(1).array_sync() == [1, 1]
    assert e.neg().array_sync() == [[-1, -2], [-3, -4]]


@pytest.mark.parametrize(
    "cls, maker", [(tf.Tensor, "tf.tensor(values)"), (tf.Variable, "tf.variable")]
)
def test_constructing_a_handle_directly_names_the_factory(cls, maker):
    # torch users write torch.Tensor([1, 2]); TF.js's constructor is internal.
    before = tf.memory().num_tensors
    with pytest.raises(ArgumentTypeError, match=re.escape(maker)) as info:
        cls([1, 2])
    assert isinstance(info.value, TypeError)
    gc.collect()  # the half-made handle is not reported as a leak, nor does __del__ fail
    assert tf.memory().num_tensors == before
