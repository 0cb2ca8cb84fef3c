"""Regression tests for the error-contract violations that ``test_error_contract.py`` found:
each bad call now raises a tidytensor error that names the op, what was given and what was
expected, and leaves no tensor behind."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import tidytensor as tf
from tidytensor.layers.errors import LayersValueError


def fails(
    call: Callable[[], Any], error: type = tf.TidyTensorError, match: str | None = None
) -> tf.TidyTensorError:
    """``call()`` raises ``error`` (a tidytensor error) matching ``match``, leaving
    ``num_tensors`` as it was."""
    before = tf.memory().num_tensors
    with pytest.raises(error, match=match) as info:
        call()
    assert isinstance(info.value, tf.TidyTensorError)
    assert tf.memory().num_tensors == before, "the failed call left tensors behind"
    return info.value


# ----------------------------------------------------------------------------- the backstop
def test_unforeseen_argument_error_names_op_given_and_signature():
    x = tf.tensor([1.0, 2.0])
    err = fails(lambda: tf.expand_dims(x, "abc"), tf.InvalidArgumentError)
    text = str(err)
    assert "Invalid arguments to 'expand_dims'" in text
    assert "x=a float32 tensor of shape [2], axis='abc'" in text
    assert "Expected: expand_dims(x, axis: int = 0)" in text
    assert isinstance(err.__context__, ValueError)  # the original error, kept for debugging
    assert err.__suppress_context__  # but not printed as a NumPy/Python traceback


def test_backstop_keeps_errors_from_the_users_own_callback():
    def broken() -> float:
        raise ValueError("my callback")

    with pytest.raises(ValueError, match="my callback") as info:
        tf.rand([2], broken)
    assert not isinstance(info.value, tf.TidyTensorError)


def test_backstop_translates_each_builtin_error_to_its_kind():
    from tidytensor.ops._op import op

    for fn, args, cls in (
        (np.empty, (2**50,), tf.ResourceExhaustedError),  # MemoryError
        (operator.getitem, ((), 0), tf.TensorIndexError),  # IndexError
        (math.exp, (1000,), tf.InvalidArgumentError),  # OverflowError
        (int, ("x",), tf.InvalidArgumentError),  # ValueError
        (len, (3,), tf.ArgumentTypeError),  # TypeError
    ):
        with pytest.raises(cls, match="Invalid arguments to 'myop'"):
            op(fn, name="myop")(*args)


# ----------------------------------------------------------------------------- axes
def test_axis_that_is_not_a_number_gets_tfjs_range_error():
    x = tf.tensor([[1.0, 2.0], [3.0, 4.0]])
    fails(lambda: tf.split(x, 2, "a"), tf.InvalidArgumentError, "axis param must be in range")
    fails(lambda: tf.split(x, 2, 0.5), tf.InvalidArgumentError, "must be integers")
    fails(lambda: tf.concat([x, x], "a"), tf.InvalidArgumentError, "in range \\[-2, 2\\)")
    fails(lambda: tf.concat([x, x], []), tf.InvalidArgumentError, "must be one integer")
    fails(lambda: tf.stack([x, x], None), tf.InvalidArgumentError, "axis param")
    fails(lambda: tf.unstack(x, "a"), tf.InvalidArgumentError, "Axis = 'a' is not in")
    fails(lambda: tf.reverse(x, "a"), tf.InvalidArgumentError, "axis param")
    fails(lambda: tf.gather(x, [0], {"a": 1}), tf.InvalidArgumentError, "axis param")
    fails(lambda: tf.gather(x, [0], 0, "b"), tf.ArgumentTypeError, "'batchDims'")


# ----------------------------------------------------------------------------- creation
@pytest.mark.parametrize(
    "call",
    [
        lambda: tf.tensor([1, 2], None, ["float32"]),
        lambda: tf.scalar(1, {"dtype": "x"}),
        lambda: tf.tensor1d([1, 2], np.ones(2)),
        lambda: tf.zeros([2], np.ones(2)),
        lambda: tf.ones([2], ["int32"]),
        lambda: tf.fill([2], 1, ["int32"]),
        lambda: tf.buffer([2], np.ones(2)),
        lambda: tf.range(0, 3, 1, np.ones(2)),
        lambda: tf.one_hot([0], 3, 1, 0, ["int32"]),
        lambda: tf.random_normal([2], 0, 1, ["float32"]),
        lambda: tf.truncated_normal([2], 0, 1, ["float32"]),
    ],
)
def test_dtype_that_is_not_a_name_is_an_unknown_data_type(call):
    fails(call, tf.DTypeError, "Unknown data type")


def test_tensor_nd_shape_that_is_a_number():
    fails(lambda: tf.tensor2d([1, 2], 2.5), tf.ShapeError, "requires shape to have two numbers")


def test_shapes_past_int32_or_64_dims_are_refused_before_allocating():
    fails(lambda: tf.zeros([2**31]), tf.ShapeError, "at most 2147483647")
    fails(lambda: tf.buffer([2**20, 2**20]), tf.ShapeError, "has 1099511627776 elements")
    fails(lambda: tf.fill([2**62], 1), tf.ShapeError)
    fails(lambda: tf.random_uniform([2**40]), tf.ShapeError)
    fails(lambda: tf.ones([1] * 65), tf.ShapeError, "rank 65")
    rank40 = tf.ones([1] * 40)
    fails(lambda: tf.diag(rank40), tf.ShapeError, "rank 80")
    fails(lambda: tf.eye(2**62), tf.ShapeError)


def test_fill_value_that_is_not_a_scalar():
    fails(lambda: tf.fill([2], object()), tf.ArgumentTypeError, "must be a number")


def test_eye_batch_shape_must_be_integers():
    fails(lambda: tf.eye(2, 2, "ab"), tf.ArgumentTypeError, "'batchShape'")


def test_linspace_and_range_check_their_numbers_without_leaking():
    pair = tf.tensor([1, 2])
    fails(lambda: tf.linspace(0, 1, None), tf.ArgumentTypeError, "'num' passed to 'linspace'")
    fails(lambda: tf.linspace(0, 1, pair), tf.ArgumentTypeError)
    fails(lambda: tf.linspace("a", 1, 3), tf.ArgumentTypeError, "'start'")
    fails(lambda: tf.linspace(0, 1, 2**40), tf.InvalidArgumentError, "at most")
    fails(lambda: tf.range(None, 3), tf.ArgumentTypeError, "'start' passed to 'range'")
    fails(lambda: tf.range(0, 3, pair), tf.ArgumentTypeError, "'step'")
    fails(lambda: tf.range(0, 2**62), tf.InvalidArgumentError, "at most")
    fails(lambda: tf.range(2**62, 5), tf.InvalidArgumentError, "at most")


def test_one_hot_depth_and_values():
    idx = tf.tensor([0, 1], None, "int32")
    fails(lambda: tf.one_hot(idx, None), tf.ArgumentTypeError, "'depth'")
    fails(lambda: tf.one_hot(idx, 2**40), tf.ShapeError, "at most")
    fails(lambda: tf.one_hot(idx, 3, "on"), tf.ArgumentTypeError, "'onValue'")


def test_random_ops_check_numbers_and_seeds():
    fails(lambda: tf.random_normal([2], "a"), tf.ArgumentTypeError, "'mean'")
    fails(lambda: tf.random_uniform([2], 0, None), tf.ArgumentTypeError, "'maxval'")
    fails(lambda: tf.random_uniform([2], 0, 1, "float32", [1]), tf.ArgumentTypeError, "'seed'")
    fails(lambda: tf.random_gamma([2], None), tf.ArgumentTypeError, "'alpha'")
    fails(lambda: tf.truncated_normal([2], 0, "x"), tf.ArgumentTypeError, "'stdDev'")
    fails(lambda: tf.multinomial([0.5, 0.5], "a"), tf.ArgumentTypeError, "'numSamples'")
    fails(lambda: tf.multinomial([0.5, 0.5], 2**40), tf.InvalidArgumentError)
    fails(lambda: tf.rand([2], lambda: 1, ["float32"]), tf.DTypeError, "Unknown data type")


# ----------------------------------------------------------------------------- slicing
def test_slicing_and_joining_attrs():
    x = tf.tensor([[1.0, 2.0], [3.0, 4.0]])
    fails(lambda: tf.split(x, None), tf.ArgumentTypeError, "'numOrSizeSplits'")
    fails(lambda: tf.split(x, [1, "a"]), tf.InvalidArgumentError, "'numOrSizeSplits'")
    fails(lambda: tf.split(x, math.inf), tf.InvalidArgumentError, "evenly divide")
    fails(lambda: tf.tile(x, "ab"), tf.ArgumentTypeError, "'reps' passed to 'tile'")
    fails(lambda: tf.tile(x, [2**31, 1]), tf.InvalidArgumentError, "'reps'")
    fails(lambda: tf.slice(x, None), tf.ArgumentTypeError, "'begin' passed to 'slice'")
    fails(lambda: tf.slice(x, [0, 0], [math.nan, 1]), tf.InvalidArgumentError, "'size'")
    fails(lambda: tf.strided_slice(x, None, [1]), tf.ArgumentTypeError, "'begin'")
    fails(lambda: tf.strided_slice(x, [0], [1], [1], "a"), tf.ArgumentTypeError, "'beginMask'")
    fails(lambda: tf.scatter_nd([[0]], [1.0], None), tf.ShapeError, "positive integers")


def test_boolean_mask_async_leaves_no_conversion_behind():
    fails(lambda: tf.boolean_mask_async([1, 2, 3], [True, False]), tf.ShapeError, "must match")
    fails(lambda: tf.boolean_mask_async([1, 2], True), tf.ShapeError, "cannot be scalar")
    fails(lambda: tf.boolean_mask_async([1, 2], [True, False], "a"), tf.ArgumentTypeError)


def test_meshgrid_refuses_string_tensors_without_leaking():
    strings, cplx = tf.tensor(["a"]), tf.complex([1.0], [1.0])
    fails(lambda: tf.meshgrid(strings, [1, 2]), tf.DTypeError, "'x' passed to 'meshgrid'")
    fails(lambda: tf.meshgrid([1, 2], cplx), tf.DTypeError, "'y'")


# ----------------------------------------------------------------------------- signal
def test_signal_helpers_check_their_numbers():
    fails(lambda: tf.enclosing_power_of_two(None), tf.ArgumentTypeError, "enclosingPowerOfTwo")
    fails(lambda: tf.cosine_window(3, None, 0.5), tf.ArgumentTypeError, "'a' passed")
    pair = tf.tensor([1, 2])
    fails(lambda: tf.cosine_window(3, 0.5, pair), tf.ArgumentTypeError, "'b'")
    fails(lambda: tf.cosine_window(2**62, 0.5, 0.5), tf.InvalidArgumentError, "typed array")
    signal = tf.tensor([1.0, 2.0, 3.0])
    fails(lambda: tf.signal.frame(signal, "a", 1), tf.ArgumentTypeError, "'frameLength'")
    fails(lambda: tf.signal.frame(signal, 2, math.nan), tf.InvalidArgumentError, "'frameStep'")
    fails(lambda: tf.signal.stft(signal, 2, 1, None, 3), tf.ArgumentTypeError, "'windowFn'")


# ----------------------------------------------------------------------------- conv / pool
def test_convolution_and_pooling_attrs():
    x, x1 = tf.ones([1, 4, 4, 1]), tf.ones([3])
    f = tf.ones([2, 2, 1, 1])
    fails(lambda: tf.conv2d(x, f, 1, None), tf.InvalidArgumentError, "pad must be 'valid'")
    fails(lambda: tf.conv2d(x, f, 1, [1, "a"]), tf.InvalidArgumentError, "pad must be")
    fails(
        lambda: tf.conv2d(x, f, 1, "valid", "NHWC", 1, np.ones(2)),
        tf.InvalidArgumentError,
        "dimRoundingMode",
    )
    fails(lambda: tf.conv2d(x, f, 2**62, "valid"), tf.InvalidArgumentError, "strides must be")
    fails(lambda: tf.max_pool(x, 2, [1, None], "valid"), tf.InvalidArgumentError, "strides")
    fails(lambda: tf.avg_pool(x, 2**40, 1, "valid"), tf.InvalidArgumentError, "filterSize")
    fails(lambda: tf.pool(x1, 2, "max", "valid"), tf.ShapeError, "rank 4")
    fails(lambda: tf.pool(x, 2, np.ones(2), "valid"), tf.InvalidArgumentError, "poolingType")
    x3, f3, f2 = tf.ones([1, 2, 2, 2, 1]), tf.ones([1, 1, 1, 1, 1]), tf.ones([2, 2, 1])
    fails(lambda: tf.conv3d(x3, f3, 1, None), tf.InvalidArgumentError, "pad must be")
    fails(
        lambda: tf.dilation2d(x, f2, 1, "valid", -1),
        tf.InvalidArgumentError,
        "Dilated rates",
    )


# ----------------------------------------------------------------------------- others
def test_normalization_attrs():
    x = tf.ones([1, 1, 1, 2])
    fails(lambda: tf.batch_norm(x, [0, 0], [1, 1], None, None, "a"), tf.ArgumentTypeError)
    fails(lambda: tf.local_response_normalization(x, 1, None), tf.ArgumentTypeError, "'bias'")
    fails(lambda: tf.sparse_to_dense([0], [1.0], [2**40]), tf.ShapeError, "at most")


def test_unsorted_segment_sum_refuses_a_huge_segment_count():
    ids = tf.tensor([0, 1], None, "int32")
    fails(
        lambda: tf.unsorted_segment_sum([1.0, 2.0], ids, 2**40),
        tf.InvalidArgumentError,
        "at most",
    )


def test_string_ops_check_their_attrs():
    data = tf.tensor(["a", "b"])
    splits = tf.tensor([0, 2], None, "int32")
    ngrams = tf.string.string_n_grams
    fails(lambda: ngrams(data, splits, None, [2], "", "", 0, False), tf.ArgumentTypeError)
    fails(lambda: ngrams(data, splits, "|", "a", "", "", 0, False), tf.ArgumentTypeError)
    fails(lambda: ngrams(data, splits, "|", [2**40], "", "", 0, False), tf.InvalidArgumentError)
    fails(lambda: ngrams(data, splits, "|", [2], "", "", "a", False), tf.ArgumentTypeError)
    fails(lambda: tf.string.string_to_hash_bucket_fast(data, math.nan), tf.InvalidArgumentError)
    fails(lambda: tf.string.static_regex_replace(data, None, "x"), tf.ArgumentTypeError)
    fails(lambda: tf.string.string_split(data, " ", np.ones(2)), tf.ArgumentTypeError)


def test_search_sorted_side_must_be_a_string():
    seq = tf.tensor([1.0, 2.0])
    fails(lambda: tf.search_sorted(seq, seq, np.ones(2)), tf.ArgumentTypeError, "'side'")


def test_ragged_tensor_to_tensor_partition_types_must_be_strings():
    fails(
        lambda: tf.ragged_tensor_to_tensor([2, 2], [1.0, 2.0], 0, [[0, 1, 2]], None),
        tf.ArgumentTypeError,
        "'rowPartitionTypes'",
    )


def test_to_string_verbose_must_be_a_boolean():
    t = tf.tensor([1.0])
    fails(lambda: t.to_string(np.ones(2)), tf.ArgumentTypeError, "'verbose'")


# ----------------------------------------------------------------------------- layers
def test_layer_shape_and_identity_arguments():
    fails(lambda: tf.layers.dense(units=2, input_shape=[[1, 2], [3]]), LayersValueError)
    fails(lambda: tf.layers.dense(units=2, input_shape=[math.nan]), LayersValueError)
    fails(lambda: tf.layers.dense(units=2, name=np.ones(2)), LayersValueError, "name")
    fails(lambda: tf.layers.dense(units=2, trainable=np.ones(2)), LayersValueError, "trainable")
    fails(lambda: tf.layers.dense(units=2, dtype=["float32"]), LayersValueError, "dtype")


def test_positive_integer_layer_args_refuse_lists_and_objects():
    fails(lambda: tf.layers.dense(units=[3]), LayersValueError, "units to be a positive integer")
    fails(lambda: tf.layers.dense(units=object()), LayersValueError, "units")
    fails(lambda: tf.layers.embedding(input_dim=[[1, 2]], output_dim=2), LayersValueError)
    fails(lambda: tf.layers.lstm(units=[2, 3]), LayersValueError, "units")
    fails(lambda: tf.layers.conv2d(filters=2, kernel_size=[[2], 2]), LayersValueError)


def test_reshape_target_shape_must_be_integers():
    fails(lambda: tf.layers.reshape(target_shape=[[1, 2], [3]]), LayersValueError, "integer")
    fails(lambda: tf.layers.reshape(target_shape=[2, "a"]), LayersValueError, "integer")


def test_rnn_apply_refuses_a_list_that_is_not_tensors():
    layer = tf.layers.simple_rnn(units=2)
    fails(lambda: layer.apply([[1.0, 2.0], [3.0]]), LayersValueError, "initial_state")


def test_a_failed_first_apply_leaves_the_layer_unbuilt():
    layer = tf.layers.batch_normalization()
    vector = tf.ones([2])
    fails(lambda: layer.apply(vector), tf.TidyTensorError)
    assert not layer.built and layer.weights == []
    out = layer.apply(tf.ones([2, 3]))  # builds again, for the right shape
    assert out.shape == [2, 3] and len(layer.weights) == 4


def test_a_failed_first_apply_unbuilds_the_rnn_cell_too():
    layer = tf.layers.lstm(units=2)
    strings = tf.fill([1, 3, 2], "a")
    fails(lambda: layer.apply(strings), tf.TidyTensorError)
    assert not layer.built and not layer.cell.built and layer.weights == []
    assert layer.apply(tf.ones([1, 3, 2])).shape == [1, 2]


def test_shape_and_number_attrs_of_more_ops():
    x = tf.ones([1, 2, 2, 1])
    f = tf.ones([1, 1, 1, 1])
    fails(lambda: tf.conv2d_transpose(x, f, None, 1, "valid"), tf.ArgumentTypeError, "outputShape")
    fails(lambda: tf.dropout(x, 0.5, 3.5), tf.ArgumentTypeError, "'noiseShape'")
    fails(lambda: tf.transpose(x, 1.5), tf.ArgumentTypeError, "'perm' passed to 'transpose'")
    labels = tf.ones([2, 2])
    fails(
        lambda: tf.losses.softmax_cross_entropy(labels, labels, None, "a"),
        tf.ArgumentTypeError,
        "'labelSmoothing'",
    )
    fails(lambda: tf.spectral.rfft(labels, "abc"), tf.InvalidArgumentError, "fftLength")
    fails(lambda: tf.random_gamma([2], 1, math.inf), tf.InvalidArgumentError, "'beta'")
    fails(lambda: tf.split(labels, 2, []), tf.InvalidArgumentError, "one integer")
