"""TensorBuffer as TF.js's: flat typed-array values, typed-array stores, TF.js's coordinate
checks and index helpers. Expected values were checked against TF.js 4.22.0."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tidytensor as tf


def test_values_are_flat_typed_arrays():
    assert tf.buffer([2, 3]).values.dtype == np.float32
    assert tf.buffer([2, 3]).values.shape == (6,)
    assert tf.buffer([2], "int32").values.dtype == np.int32
    assert tf.buffer([3], "bool").values.dtype == np.uint8  # TF.js: Uint8Array
    assert tf.buffer([2], "string").values == ["", ""]
    buf = tf.tensor([[1, 2], [3, 4]]).buffer_sync()
    assert buf.values.tolist() == [1, 2, 3, 4]
    assert tf.tensor([True, False]).buffer_sync().values.tolist() == [1, 0]


def test_set_stores_like_typed_arrays():
    b = tf.buffer([6], "bool")
    for i, v in enumerate([0.4, 2, -1, 256, 0.6, True]):
        b.set(v, i)
    assert b.values.tolist() == [0, 2, 255, 0, 0, 1]  # TF.js's Uint8Array
    assert b.get(1) == 2
    assert b.to_tensor().array_sync() == [0, 1, 1, 0, 0, 1]
    i = tf.buffer([5], "int32")
    for k, v in enumerate([1.9, -1.9, 2147483648, math.nan, 4294967297]):
        i.set(v, k)
    assert i.values.tolist() == [1, -1, -2147483648, 0, 1]
    f = tf.buffer([3])
    f.set(0.1, 0)
    f.set(1e40, 1)
    f.set("2.5", 2)
    assert f.values.tolist() == [0.10000000149011612, math.inf, 2.5]
    assert f.get(0) == 0.10000000149011612 and type(f.get(0)) is float


def test_set_coordinate_checks_as_tfjs():
    b = tf.buffer([2, 2])
    with pytest.raises(
        tf.InvalidArgumentError,
        match=r"The number of provided coordinates \(1\) must match the rank \(2\)",
    ):
        b.set(1, 0)
    with pytest.raises(
        tf.InvalidArgumentError, match=r"coordinates \(1\) must match the rank \(2\)"
    ):
        b.set(1)  # no coordinates means [0]
    with pytest.raises(
        tf.InvalidArgumentError, match=r"coordinates \(1\) must match the rank \(0\)"
    ):
        tf.buffer([]).set(7)
    b.set(1, 5, 0)  # outside the typed array: ignored, as in TF.js
    b.set(1, -1, 0)
    assert b.values.tolist() == [0, 0, 0, 0]
    b.set(3, 1, 1)
    assert b.values.tolist() == [0, 0, 0, 3]


def test_get_as_tfjs():
    b = tf.buffer([2, 2], "float32", [1, 2, 3, 4])
    assert b.get(1) == 2  # fewer coordinates: TF.js reads values[1]
    assert b.get() == 1
    assert b.get(1, 1, 0) is None and b.get(1, 0, 1) is None  # TF.js: undefined
    assert b.get(0.5, 0) == 2
    with pytest.raises(
        tf.InvalidArgumentError, match=r"Requested out of range element at 2,0\.   Buffer shape=2,2"
    ):
        b.get(2, 0)
    with pytest.raises(tf.InvalidArgumentError, match="out of range element at 0,-1"):
        b.get(0, -1)
    assert tf.buffer([], "int32", [5]).get() == 5


def test_index_helpers_do_not_check_ranges():
    b = tf.buffer([2, 3])
    assert b.index_to_loc(4) == [1, 1] and b.loc_to_index([1, 2]) == 5
    assert b.index_to_loc(7) == [2, 1] and b.loc_to_index([5, 5]) == 20
    c = tf.buffer([3])
    assert c.index_to_loc(4) == [4] and c.loc_to_index([7]) == 7
    assert tf.buffer([]).index_to_loc(0) == [] and tf.buffer([]).loc_to_index([]) == 0
    assert (tf.buffer([2, 3, 4]).strides, tf.buffer([]).strides, tf.buffer([5]).strides) == (
        [12, 4],
        [],
        [],
    )
    assert (b.rank, b.size, b.shape, b.dtype) == (2, 6, [2, 3], "float32")


def test_constructor_checks_and_complex64():
    with pytest.raises(
        tf.InvalidArgumentError,
        match="Length of values '1' does not match the size inferred by the shape '2'.",
    ):
        tf.TensorBuffer([2], "complex64", [1])  # TF.js checks the length first
    with pytest.raises(
        tf.DTypeError,
        match="complex64 dtype TensorBuffers are not supported. Please create a TensorBuffer",
    ):
        tf.TensorBuffer([2], "complex64")
    with pytest.raises(tf.DTypeError, match="complex64 dtype TensorBuffers are not supported"):
        tf.buffer([2, 2], "complex64")


def test_typed_array_values_are_shared_lists_are_converted():
    arr = np.zeros(3, np.float32)
    b = tf.TensorBuffer([3], "float32", arr)
    b.set(5, 1)
    assert arr.tolist() == [0, 5, 0]  # TF.js keeps a given Float32Array
    c = tf.TensorBuffer([2], "int32", [1.9, -1.9])
    assert c.values.tolist() == [1, -1]
    d = tf.TensorBuffer([3], "bool", np.array([0.0, 0.4, 3.0]))
    assert d.values.tolist() == [0, 0, 3]


def test_to_tensor_copies_and_counts_one_buffer():
    b = tf.buffer([2], "int32")
    b.set(7, 1)
    before = tf.memory()
    t = b.to_tensor()
    after = tf.memory()
    assert (
        after.num_tensors - before.num_tensors,
        after.num_data_buffers - before.num_data_buffers,
    ) == (1, 1)
    b.set(9, 0)
    assert t.array_sync() == [0, 7]
    s = tf.buffer([2], "string")
    s.set("x", 0)
    assert s.to_tensor().array_sync() == ["x", ""]
    s.set(5, 1)
    with pytest.raises(tf.ArgumentTypeError, match="only str values can make a string tensor"):
        s.to_tensor()
