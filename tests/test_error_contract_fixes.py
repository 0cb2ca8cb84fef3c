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
    err = fails(lambda: tf.expand_dims(x, 0, "abc"), tf.ArgumentTypeError)
    text = str(err)
    assert "Invalid arguments to 'expand_dims'" in text
    assert "arg0=a float32 tensor of shape [2], arg1=0, arg2='abc'" in text
    assert "Expected: expand_dims(x, axis: int = 0)" in text
    assert isinstance(err.__context__, TypeError)  # the original error, kept for debugging
    assert err.__suppress_context__  # but not printed as a NumPy/Python traceback
    err = fails(lambda: tf.reshape(x), tf.ArgumentTypeError, "Invalid arguments to 'reshape'")
    assert "Given: x=a float32 tensor of shape [2]. Expected: reshape(x, shape)" in str(err)


def test_backstop_keeps_errors_from_the_users_own_callback():
    def broken() -> float:
        raise ValueError("my callback")

    with pytest.raises(ValueError, match="my callback") as info:
        tf.rand([2], broken)
    assert not isinstance(info.value, tf.TidyTensorError)


def test_backstop_translates_each_builtin_error_to_its_kind():
    from tidytensor.ops._op import op

    invalid = "Invalid arguments to 'myop'"
    for fn, args, cls, match in (
        (np.empty, (2**50,), tf.ResourceExhaustedError, "'myop' ran out of host memory"),
        (operator.getitem, ((), 0), tf.TensorIndexError, invalid),  # IndexError
        (math.exp, (1000,), tf.InvalidArgumentError, invalid),  # OverflowError
        (int, ("x",), tf.InvalidArgumentError, invalid),  # ValueError
        (len, (3,), tf.ArgumentTypeError, invalid),  # TypeError
    ):
        with pytest.raises(cls, match=match):
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
    fails(lambda: tf.gather(x, [0], 0, "b"), tf.ArgumentTypeError, "'batch_dims'")


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
    fails(lambda: tf.eye(2, 2, "ab"), tf.ArgumentTypeError, "'batch_shape'")


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
    fails(lambda: tf.one_hot(idx, 3, "on"), tf.ArgumentTypeError, "'on_value'")


def test_random_ops_check_numbers_and_seeds():
    fails(lambda: tf.random_normal([2], "a"), tf.ArgumentTypeError, "'mean'")
    fails(lambda: tf.random_uniform([2], 0, None), tf.ArgumentTypeError, "'maxval'")
    fails(lambda: tf.random_uniform([2], 0, 1, "float32", [1]), tf.ArgumentTypeError, "'seed'")
    fails(lambda: tf.random_gamma([2], None), tf.ArgumentTypeError, "'alpha'")
    fails(lambda: tf.truncated_normal([2], 0, "x"), tf.ArgumentTypeError, "'std_dev'")
    fails(lambda: tf.multinomial([0.5, 0.5], "a"), tf.ArgumentTypeError, "'num_samples'")
    fails(lambda: tf.multinomial([0.5, 0.5], 2**40), tf.InvalidArgumentError)
    fails(lambda: tf.rand([2], lambda: 1, ["float32"]), tf.DTypeError, "Unknown data type")


# ----------------------------------------------------------------------------- slicing
def test_slicing_and_joining_attrs():
    x = tf.tensor([[1.0, 2.0], [3.0, 4.0]])
    fails(lambda: tf.split(x, None), tf.ArgumentTypeError, "'num_or_size_splits'")
    fails(lambda: tf.split(x, [1, "a"]), tf.InvalidArgumentError, "'num_or_size_splits'")
    fails(lambda: tf.split(x, math.inf), tf.InvalidArgumentError, "evenly divide")
    fails(lambda: tf.tile(x, "ab"), tf.ArgumentTypeError, "'reps' passed to 'tile'")
    fails(lambda: tf.tile(x, [2**31, 1]), tf.InvalidArgumentError, "'reps'")
    fails(lambda: tf.slice(x, None), tf.ArgumentTypeError, "'begin' passed to 'slice'")
    fails(lambda: tf.slice(x, [0, 0], [math.nan, 1]), tf.InvalidArgumentError, "'size'")
    fails(lambda: tf.strided_slice(x, None, [1]), tf.ArgumentTypeError, "'begin'")
    fails(lambda: tf.strided_slice(x, [0], [1], [1], "a"), tf.ArgumentTypeError, "'begin_mask'")
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
    fails(lambda: tf.enclosing_power_of_two(None), tf.ArgumentTypeError, "enclosing_power_of_two")
    fails(lambda: tf.cosine_window(3, None, 0.5), tf.ArgumentTypeError, "'a' passed")
    pair = tf.tensor([1, 2])
    fails(lambda: tf.cosine_window(3, 0.5, pair), tf.ArgumentTypeError, "'b'")
    fails(lambda: tf.cosine_window(2**62, 0.5, 0.5), tf.InvalidArgumentError, "typed array")
    signal = tf.tensor([1.0, 2.0, 3.0])
    fails(lambda: tf.signal.frame(signal, "a", 1), tf.ArgumentTypeError, "'frame_length'")
    fails(lambda: tf.signal.frame(signal, 2, math.nan), tf.InvalidArgumentError, "'frame_step'")
    fails(lambda: tf.signal.stft(signal, 2, 1, None, 3), tf.ArgumentTypeError, "'window_fn'")


# ----------------------------------------------------------------------------- conv / pool
def test_convolution_and_pooling_attrs():
    x, x1 = tf.ones([1, 4, 4, 1]), tf.ones([3])
    f = tf.ones([2, 2, 1, 1])
    fails(lambda: tf.conv2d(x, f, 1, None), tf.InvalidArgumentError, "pad must be 'valid'")
    fails(lambda: tf.conv2d(x, f, 1, [1, "a"]), tf.InvalidArgumentError, "pad must be")
    fails(
        lambda: tf.conv2d(x, f, 1, "valid", "NHWC", 1, np.ones(2)),
        tf.InvalidArgumentError,
        "dim_rounding_mode",
    )
    fails(lambda: tf.conv2d(x, f, 2**62, "valid"), tf.InvalidArgumentError, "strides must be")
    fails(lambda: tf.max_pool(x, 2, [1, None], "valid"), tf.InvalidArgumentError, "strides")
    fails(lambda: tf.avg_pool(x, 2**40, 1, "valid"), tf.InvalidArgumentError, "filter_size")
    fails(lambda: tf.pool(x1, 2, "max", "valid"), tf.ShapeError, "rank 4")
    fails(lambda: tf.pool(x, 2, np.ones(2), "valid"), tf.InvalidArgumentError, "pooling_type")
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
        "'row_partition_types'",
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
    fails(lambda: tf.conv2d_transpose(x, f, None, 1, "valid"), tf.ArgumentTypeError, "output_shape")
    fails(lambda: tf.dropout(x, 0.5, 3.5), tf.ArgumentTypeError, "'noise_shape'")
    fails(lambda: tf.transpose(x, 1.5), tf.ArgumentTypeError, "'perm' passed to 'transpose'")
    labels = tf.ones([2, 2])
    fails(
        lambda: tf.losses.softmax_cross_entropy(labels, labels, None, "a"),
        tf.ArgumentTypeError,
        "'label_smoothing'",
    )
    fails(lambda: tf.spectral.rfft(labels, "abc"), tf.InvalidArgumentError, "fft_length")
    fails(lambda: tf.random_gamma([2], 1, math.inf), tf.InvalidArgumentError, "'beta'")
    fails(lambda: tf.split(labels, 2, []), tf.InvalidArgumentError, "one integer")


# ----------------------------------------------------------------------------- transformations
def test_setdiff1d_async_leaves_no_conversion_behind_when_it_fails():
    fails(lambda: tf.setdiff1d_async(3, [1, 2]), tf.ShapeError, "x should be 1D tensor")
    fails(lambda: tf.setdiff1d_async([1, 2], 3), tf.ShapeError, "y should be 1D tensor")
    fails(lambda: tf.setdiff1d_async([1, 2], [[1]]), tf.ShapeError, "y should be 1D")
    ints = tf.tensor([1], None, "int32")
    fails(lambda: tf.setdiff1d_async([1.0, 2.0], ints), tf.DTypeError, "same dtype")
    fails(lambda: tf.setdiff1d_async([1, 2], "a"), tf.TidyTensorError)
    assert not ints.is_disposed  # the caller's own tensors are never disposed
    values, indices = tf.setdiff1d_async([1, 2, 3], [2])
    assert values.array_sync() == [1.0, 3.0] and indices.array_sync() == [0, 2]


def test_pad_checks_its_constant_value_and_paddings():
    x, x2, x3, x4 = tf.ones([2]), tf.ones([2, 2]), tf.ones([1, 1, 1]), tf.ones([1, 2, 2, 1])
    one = tf.scalar(1)
    fails(
        lambda: tf.pad(x, [[1, 1]], "a"), tf.ArgumentTypeError, "'constant_value' passed to 'pad'"
    )
    fails(lambda: tf.pad1d(x, [1, 1], [0]), tf.ArgumentTypeError, "'constant_value'")
    fails(lambda: tf.pad2d(x2, [[1, 1], [0, 0]], np.ones(2)), tf.ArgumentTypeError)
    # None is TF.js's undefined: the default 0 (TF.js pads with 0 for null too).
    assert tf.pad(x, [[1, 1]], None).array_sync() == [0.0, 1.0, 1.0, 0.0]
    assert tf.pad(tf.tensor([True]), [[1, 0]], True).array_sync() == [1, 1]
    fails(lambda: tf.pad(x, [[math.inf, 1]]), tf.InvalidArgumentError, "integer pairs")
    fails(lambda: tf.pad(x, [[2**40, 1]]), tf.ShapeError, "at most 2147483647")
    fails(lambda: tf.pad1d(x, None), tf.InvalidArgumentError, "pad1d: paddings must be")
    fails(lambda: tf.pad2d(x2, 3), tf.InvalidArgumentError, "pad2d: paddings")
    fails(lambda: tf.pad3d(x3, one), tf.InvalidArgumentError, "pad3d")
    fails(lambda: tf.mirror_pad(x, [[math.inf, 1]], "reflect"), tf.InvalidArgumentError)
    fails(
        lambda: tf.space_to_batch_nd(x4, [2, 2], [[2**40, 0], [0, 0]]),
        tf.ShapeError,
        "at most",
    )


def test_transformations_give_tfjs_style_argument_errors():
    x, five, nine, batch4 = tf.ones([2]), tf.ones([5]), tf.ones([1, 1, 1, 9]), tf.ones([4, 1, 1, 1])
    single = tf.ones([1])
    # TF.js: "Axis must be <= rank of the tensor" ('a' <= 1 is false); here the interval.
    fails(
        lambda: tf.expand_dims(x, "a"),
        tf.InvalidArgumentError,
        "Axis must be in the interval \\[-2, 1\\]",
    )
    fails(lambda: tf.expand_dims(x, None), tf.InvalidArgumentError, "got axis None")
    fails(lambda: tf.expand_dims(x, math.inf), tf.InvalidArgumentError, "Axis must be <= rank")
    assert tf.expand_dims(x, 0.5).shape == [1, 2]  # TF.js's splice truncates
    # TF.js's messages for shapes that are not integers (nan and inf as Python writes them).
    fails(
        lambda: tf.reshape(x, [math.inf]),
        tf.ShapeError,
        "reshape: the tensor has 2 elements, but the new shape \\[inf\\] has inf",
    )
    fails(lambda: tf.reshape(x, [math.nan]), tf.ShapeError, "new shape \\[nan\\] has 1")
    fails(lambda: tf.reshape(x, [2.5]), tf.ShapeError, "new shape \\[2.5\\] has 2.5")
    fails(lambda: tf.reshape(x, [math.nan, 2]), tf.ShapeError, "has nan elements")
    fails(lambda: tf.reshape(five, [-1, 2.5]), tf.ShapeError, "must hold integers")
    fails(lambda: tf.reshape(x, None), tf.ArgumentTypeError, "'shape' passed to 'reshape'")
    assert tf.reshape(x, np.array([2, 1])).shape == [2, 1]
    assert tf.reshape(x, [tf.scalar(1), 2]).shape == [1, 2]
    fails(lambda: tf.reshape(single, [1] * 70), tf.ShapeError, "rank 70")
    # The mode as an array prints as TF.js's template string does.
    fails(
        lambda: tf.mirror_pad(x, [[1, 1]], ["reflect"]),
        tf.InvalidArgumentError,
        "Mode must be either reflect or symmetric. Got reflect.",
    )
    fails(lambda: tf.mirror_pad(x, [[1, 1]], np.array(["reflect"])), tf.InvalidArgumentError)
    img = tf.ones([1, 1, 1, 4])
    fails(lambda: tf.depth_to_space(img, None), tf.InvalidArgumentError, "block_size should be > 1")
    fails(lambda: tf.depth_to_space(img, "a"), tf.InvalidArgumentError, "but was: a")
    fails(lambda: tf.depth_to_space(img, 2.5), tf.ShapeError, "evenly divisible by 6.25")
    fails(lambda: tf.depth_to_space(nine, 1.5), tf.InvalidArgumentError, "integer")
    fails(lambda: tf.depth_to_space(img, 2, ["NHWC"]), tf.ArgumentTypeError, "'data_format'")
    fails(lambda: tf.broadcast_to(x, [2**40, 2]), tf.ShapeError, "at most")
    fails(lambda: tf.cast(x, np.ones(2)), tf.DTypeError, "Failed to cast to unknown dtype")
    fails(
        lambda: tf.batch_to_space_nd(batch4, [2, 2], [[0], [0, 0]]),
        tf.InvalidArgumentError,
        "crops\\[0\\]",
    )


# ----------------------------------------------------------------------------- reduction
def test_bincount_refuses_a_size_past_int32_before_allocating():
    x = tf.tensor([1, 2], None, "int32")
    fails(lambda: tf.bincount(x, [], 2**62), tf.InvalidArgumentError, "size must be at most")
    fails(lambda: tf.dense_bincount(x, [], 2**62), tf.InvalidArgumentError, "at most")
    rows = tf.zeros([2**16, 1], "int32")
    fails(lambda: tf.dense_bincount(rows, [], 2**16), tf.ShapeError, "dense_bincount")
    fails(lambda: tf.dense_bincount(x, [], 3, np.ones(2)), tf.ArgumentTypeError, "'binary_output'")


def test_a_complex_axis_is_not_an_integer():
    x = tf.ones([2, 2])
    cplx = tf.complex([1.0], [2.0])
    one = tf.tensor([1], None, "int32")
    fails(lambda: tf.sum(x, cplx), tf.InvalidArgumentError, "must be integers")
    fails(lambda: tf.arg_max(x, cplx), tf.InvalidArgumentError, "must be integers")
    fails(lambda: tf.bincount(one, [], cplx), tf.InvalidArgumentError)
    assert tf.sum(x, tf.scalar(1)).shape == [2]  # a real one-element tensor still works


def test_keep_dims_must_be_a_boolean():
    x = tf.ones([2, 2])
    fails(lambda: tf.sum(x, None, np.ones(2)), tf.ArgumentTypeError, "'keep_dims' passed to 'sum'")
    fails(lambda: tf.log_sum_exp(x, None, "a"), tf.ArgumentTypeError, "'keep_dims'")
    fails(lambda: tf.norm(x, "euclidean", None, np.ones(2)), tf.ArgumentTypeError, "'norm'")
    fails(lambda: tf.moments(x, None, np.ones(2)), tf.ArgumentTypeError, "'moments'")
    assert tf.mean(x, 1, 1).shape == [2, 1]  # 0/1 are booleans, as JS's truthiness allows


# ----------------------------------------------------------------------------- tensor, dtypes
def test_a_complex_tensor_has_no_float_or_int_value():
    c = tf.complex([1.0], [2.0])
    fails(lambda: float(c), tf.DTypeError, "float\\(\\) needs a real tensor")
    fails(lambda: int(c), tf.DTypeError, "int\\(\\) needs a real tensor")
    assert complex(c) == 1 + 2j
    assert complex(tf.scalar(2.0)) == 2 + 0j
    text = tf.tensor(["a"])
    fails(lambda: float(text), tf.InvalidArgumentError, "cannot convert the string")
    assert float(tf.tensor(["1.5"])) == 1.5


def test_check_dtype_name_refuses_unhashable_values():
    from tidytensor.tensor_util import check_dtype_name

    fails(lambda: check_dtype_name(["float32"], "op"), tf.DTypeError, "Unknown data type")
    fails(lambda: check_dtype_name({"a": 1}, "op"), tf.DTypeError, "in 'op'")
    assert check_dtype_name("int32", "op") == "int32"


def test_variable_checks_its_dtype_and_trainable():
    x = tf.ones([2])
    fails(lambda: tf.variable(x, True, None, np.ones(2)), tf.DTypeError, "'variable'")
    fails(lambda: tf.variable(x, True, None, ["int32"]), tf.DTypeError, "Unknown data type")
    fails(lambda: tf.variable(x, np.ones(2)), tf.ArgumentTypeError, "'trainable'")
    fails(lambda: x.variable(np.ones(2)), tf.ArgumentTypeError, "'trainable'")
    fails(lambda: x.variable(True, None, "float64"), tf.DTypeError, "Unknown data type")
    assert tf.variable(x, None).trainable is True  # None is TF.js's undefined: the default


def test_meshgrid_indexing_that_is_not_a_string():
    fails(lambda: tf.meshgrid([1, 2], [3], np.ones(2)), tf.ArgumentTypeError, "third argument")
    strings = tf.tensor(["a"])
    fails(lambda: tf.meshgrid([1, 2], [3], strings), tf.ArgumentTypeError)


# ----------------------------------------------------------------------------- layers
@pytest.mark.parametrize("cell", ["lstm_cell", "gru_cell", "simple_rnn_cell"])
def test_rnn_cells_check_their_config(cell):
    make = getattr(tf.layers, cell)
    fails(lambda: make(units=[3]), LayersValueError, "units to be a positive integer")
    fails(lambda: make(units=0), LayersValueError, "units")
    fails(lambda: make(units=2, dropout=""), LayersValueError, "dropout to be a number")
    fails(
        lambda: make(units=2, recurrent_dropout=np.ones(2)), LayersValueError, "recurrent_dropout"
    )
    fails(lambda: make(units=2, use_bias=np.ones(2)), LayersValueError, "use_bias")
    fails(lambda: make(units=2, kernel_initializer=np.ones(2)), LayersValueError, "initializer")
    assert make(units=2, dropout=1.5).dropout == 1  # clipped to [0, 1], as in TF.js


def test_permute_dims_must_be_numbers():
    fails(lambda: tf.layers.permute(dims=[1, "a"]), LayersValueError, "Invalid permutation")


# ----------------------------------------------------------------------------- image
def test_image_ops_check_their_numbers_and_sizes():
    img = tf.ones([1, 4, 4, 1])
    rotate = tf.image.rotate_with_offset
    fails(
        lambda: rotate(img, None), tf.ArgumentTypeError, "'radians' passed to 'rotate_with_offset'"
    )
    fails(lambda: rotate(img, 0.5, "a"), tf.ArgumentTypeError, "'fill_value'")
    fails(lambda: rotate(img, 0.5, [1, "a", 3]), tf.ArgumentTypeError, "'fill_value'")
    fails(lambda: rotate(img, 0.5, 0, "a"), tf.ArgumentTypeError, "'center'")
    fails(lambda: rotate(img, 0.5, 0, [1]), tf.InvalidArgumentError, "array of 2 numbers")
    # TF.js's sin/cos of an infinite angle are NaN: every pixel takes the fill value.
    assert rotate(img, math.inf, 7).data_sync().tolist() == [7.0] * 16
    assert rotate(img, 0.5, None).shape == [1, 4, 4, 1]  # None: the default fill, 0
    assert rotate(img, 0.5, np.array([1, 2, 3]), np.array([0.5, 0.5])).shape == [1, 4, 4, 1]
    fails(lambda: tf.image.resize_bilinear(img, [2**40, 2]), tf.ShapeError, "resize_bilinear")
    fails(lambda: tf.image.resize_nearest_neighbor(img, [2**20, 2**20]), tf.ShapeError, "at most")
    fails(lambda: tf.image.resize_bilinear(img, [2, 2], np.ones(2)), tf.ArgumentTypeError)
    box, ind = [[0, 0, 1, 1]], [0]
    crop = tf.image.crop_and_resize
    fails(lambda: crop(img, box, ind, [2**40, 2]), tf.ShapeError, "crop_and_resize")
    fails(lambda: crop(img, box, ind, [2, 2], "bilinear", "a"), tf.ArgumentTypeError)
    fails(lambda: crop(img, box, ind, [2, 2], np.array(["nearest"])), tf.InvalidArgumentError)
    identity = [[1, 0, 0, 0, 1, 0, 0, 0]]
    transform = tf.image.transform
    fails(lambda: transform(img, identity, "nearest", "constant", 0, [2**40, 2]), tf.ShapeError)
    fails(lambda: transform(img, identity, "nearest", "constant", "a"), tf.ArgumentTypeError)
    fails(lambda: transform(img, identity, "nearest", "bad"), tf.InvalidArgumentError, "fill_mode")
    fails(lambda: transform(img, identity, np.array(["nearest"])), tf.InvalidArgumentError)
    gray = tf.ones([2, 2, 1])
    fails(lambda: tf.image.threshold(gray, "binary", False, "a"), tf.ArgumentTypeError)
    fails(lambda: tf.image.threshold(gray, "binary", np.ones(2)), tf.ArgumentTypeError)


def test_non_max_suppression_checks_its_numbers():
    boxes, scores = [[0, 0, 1, 1], [0, 0.1, 1, 1.1]], [0.9, 0.8]
    image = tf.image
    for nms in (image.non_max_suppression, image.non_max_suppression_async):
        fails(lambda nms=nms: nms(boxes, scores, None), tf.ArgumentTypeError, "'max_output_size'")
        fails(lambda nms=nms: nms(boxes, scores, [2]), tf.ArgumentTypeError, "must be an integer")
        fails(lambda nms=nms: nms(boxes, scores, 2.5), tf.InvalidArgumentError, "an integer")
        fails(lambda nms=nms: nms(boxes, scores, math.nan), tf.InvalidArgumentError, "got nan")
        # TF.js's message for a threshold that is not a number.
        fails(
            lambda nms=nms: nms(boxes, scores, 2, "a"),
            tf.ArgumentTypeError,
            "iou_threshold must be in \\[0, 1\\], but was 'a'",
        )
        fails(lambda nms=nms: nms(boxes, scores, 2, np.ones(2)), tf.ArgumentTypeError)
        fails(lambda nms=nms: nms(boxes, scores, 2, 0.5, "a"), tf.ArgumentTypeError, "'score_thr")
        assert nms(boxes, scores, -1).shape == [0]  # a negative count selects nothing (TF.js)
        assert nms(boxes, scores, math.inf).shape == [1]  # +Infinity: every box may be kept
    fails(
        lambda: image.non_max_suppression_with_score(boxes, scores, 2, 0.5, 0, "a"),
        tf.ArgumentTypeError,
        "soft_nms_sigma must be in",
    )
    fails(
        lambda: image.non_max_suppression_padded(boxes, scores, 2, 0.5, 0, np.ones(2)),
        tf.ArgumentTypeError,
        "'pad_to_max_output_size'",
    )


# ----------------------------------------------------------------------------- kernels reached
def test_gather_nd_with_empty_index_tuples_picks_the_whole_tensor_as_tfjs_does():
    x = tf.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert tf.gather_nd(x, tf.tensor([], [0], "int32")).array_sync() == [[1, 2], [3, 4]]
    assert tf.gather_nd(x, tf.zeros([2, 0], "int32")).shape == [2, 2, 2]
    assert tf.gather_nd(x, tf.zeros([0, 2], "int32")).shape == [0]
    huge = tf.zeros([2**20, 2**20, 0], "int32")
    fails(lambda: tf.gather_nd(x, huge), tf.ShapeError, "at most")


def test_einsum_operand_of_the_wrong_rank_gets_tfjs_broadcast_error():
    b = tf.tensor([[1.0, 0.0], [2.0, 1.0], [0.0, 3.0]])
    fails(
        lambda: tf.einsum("ij,jk->ik", [], b),
        tf.ShapeError,
        "operands could not be broadcast together with shapes \\[1,2,3\\] and \\[0,1\\]",
    )
    assert tf.einsum("i,i->", tf.zeros([0]), tf.zeros([0])).array_sync() == 0


def test_ragged_tensor_to_tensor_refuses_negative_sizes_and_row_ids():
    values = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
    rowids = tf.tensor([0, 0, 0, 2, 2, 2, 2, 3, 3], None, "int32")
    types = ["FIRST_DIM_SIZE", "VALUE_ROWIDS"]
    minus_four, four = tf.scalar(-4, "int32"), tf.scalar(4, "int32")
    to_tensor = tf.ragged_tensor_to_tensor
    # TF.js's message for a negative first dimension size.
    message = "Final length of result must be equal to first_dimension."
    fails(lambda: to_tensor([4, 4], values, 1.5, [2**31, 2**31], types), match=message)
    fails(
        lambda: to_tensor([4, 4], values, 1.5, [minus_four, rowids], types),
        tf.InvalidArgumentError,
        message,
    )
    # A negative row id: TF.js writes garbage, Python would wrap around; refused here.
    negative = tf.tensor([0, 0, 0, -1, 2, 2, 2, 3, 3], None, "int32")
    fails(
        lambda: to_tensor([4, 4], values, 1.5, [four, negative], types),
        tf.InvalidArgumentError,
        "next_value_row_id=-1, which is negative",
    )
    fails(
        lambda: to_tensor([2, 2], [1.0, 2.0, 3.0], 0, [[0, -1, 3]], ["ROW_SPLITS"]),
        tf.InvalidArgumentError,
        "Invalid row split size.",
    )


def test_truncated_normal_refuses_bounds_no_value_could_meet():
    fails(lambda: tf.truncated_normal([2], math.nan, 1), tf.InvalidArgumentError, "mean nan")
    fails(lambda: tf.truncated_normal([2], math.inf, math.inf), tf.InvalidArgumentError)


def test_conv_and_pool_geometry_is_checked_before_the_kernels():
    x, f = tf.ones([1, 4, 4, 2]), tf.ones([2, 2, 2, 2])
    x5, f_t = tf.ones([1, 4, 4, 4, 1]), tf.ones([3, 3, 2, 3])
    x1d, f1d = tf.ones([2, 6, 2]), tf.ones([3, 2, 3])
    fails(lambda: tf.conv2d(x, f, [1], "valid"), tf.InvalidArgumentError, "strides must be")
    fails(lambda: tf.conv2d(x, f, 1, "same", "NHWC", [1]), tf.InvalidArgumentError, "dilations")
    fails(lambda: tf.conv2d(x, f, 1, "same", np.ones(2)), tf.InvalidArgumentError, "data_format")
    fails(lambda: tf.max_pool(x, [1], 2, "valid"), tf.InvalidArgumentError, "filter_size")
    fails(lambda: tf.max_pool(x, 2, 0, "valid"), tf.InvalidArgumentError, "larger than 0")
    fails(lambda: tf.avg_pool(x, 2, 0, "valid"), tf.InvalidArgumentError, "Strides should")
    fails(lambda: tf.max_pool3d(x5, 2, 0, "valid"), tf.InvalidArgumentError)
    fails(
        lambda: tf.avg_pool3d(x5, 2, [[1, 2], [3], [4]], "valid"),
        tf.InvalidArgumentError,
        "Stride must be > 0",
    )
    fails(lambda: tf.depthwise_conv2d(x, f, 0, "same"), tf.InvalidArgumentError, "Strides")
    fails(lambda: tf.depthwise_conv2d(x, f, 1, "valid", "NHWC", -1), tf.InvalidArgumentError)
    fails(lambda: tf.pool(x, [1], "avg", "valid"), tf.InvalidArgumentError, "window_shape")
    fails(lambda: tf.pool(x, [2, 2], "max", "valid", [1, 1], 0), tf.InvalidArgumentError)
    dy = tf.ones([1, 2, 2, 3])
    fails(
        lambda: tf.conv2d_transpose(dy, f_t, [1, 4, 4, 2], 0, "same"),
        tf.InvalidArgumentError,
        "Strides should be larger than 0",
    )
    fails(
        lambda: tf.conv1d(x1d, f1d, 1, "valid", np.ones(2)),
        tf.InvalidArgumentError,
    )


def test_boolean_and_mode_flags_that_are_arrays():
    x, v3, image = tf.ones([2, 2]), tf.ones([3]), tf.ones([1, 2, 2, 1])
    array = np.ones(2)
    fails(
        lambda: tf.mat_mul(x, x, array), tf.ArgumentTypeError, "'transpose_a' passed to 'mat_mul'"
    )
    fails(lambda: tf.mat_mul(x, x, False, array), tf.ArgumentTypeError, "'transpose_b'")
    fails(lambda: tf.topk(v3, 1, array), tf.ArgumentTypeError, "'sorted'")
    fails(lambda: tf.cumsum(x, 0, array), tf.ArgumentTypeError, "'exclusive' passed to 'cumsum'")
    fails(lambda: tf.cumprod(x, 0, False, array), tf.ArgumentTypeError, "'reverse'")
    fails(lambda: tf.linalg.qr(x, array), tf.ArgumentTypeError, "'full_matrices'")
    fails(lambda: tf.moving_average(x, x, 0.5, 1, array), tf.ArgumentTypeError, "'zero_debias'")
    fails(
        lambda: tf.max_pool_with_argmax(image, 2, 1, "valid", array),
        tf.ArgumentTypeError,
        "'include_batch_in_index'",
    )
    fails(lambda: tf.softmax(x, array), tf.InvalidArgumentError, "non-last dimension")
    fails(lambda: tf.log_softmax(x, [0]), tf.InvalidArgumentError, "non-last dimension")
    fails(lambda: tf.norm(x, array), tf.InvalidArgumentError, "invalid ord value")
    fails(lambda: tf.norm(x, 1, [1, "a"]), tf.InvalidArgumentError, "must be integers")
    fails(
        lambda: tf.losses.compute_weighted_loss(x, None, array),
        tf.InvalidArgumentError,
        "Unknown reduction",
    )
    fails(lambda: tf.linalg.gram_schmidt([1]), tf.ShapeError, "must be 1-D")


def test_a_binary_op_called_with_one_tensor_names_the_op():
    # The fast path of add/sub/mul/div is for two tensors; one goes through the op's checks.
    x = tf.ones([2])
    before = tf.memory().num_tensors
    for fn, name in ((tf.add, "add"), (tf.sub, "sub"), (tf.mul, "mul"), (tf.div, "div")):
        with pytest.raises(tf.ArgumentTypeError, match=f"'{name}'"):
            fn(x)
    assert tf.memory().num_tensors == before
    x.dispose()


def test_a_huge_dimension_is_refused_even_in_an_empty_shape():
    with pytest.raises(tf.ShapeError, match="has a dimension of 1099511627776"):
        tf.zeros([0, 2**40])
    with pytest.raises(tf.ShapeError, match="has a dimension of"):
        tf.eye(0, 2**40)
    assert tf.zeros([0, 5]).shape == [0, 5]


TENSOR = object()  # stands for a tensor made inside the test


@pytest.mark.parametrize(
    "factory, kwargs",
    [
        ("variance_scaling", {"scale": np.array(["a"])}),
        ("variance_scaling", {"mode": np.array([1, 2])}),
        ("random_normal", {"stddev": TENSOR}),
        ("random_uniform", {"minval": "0"}),
        ("constant", {"value": [1]}),
        ("orthogonal", {"seed": object()}),
    ],
)
def test_initializer_arguments_are_checked_before_any_math(factory, kwargs):
    kwargs = {k: tf.tensor([1.0, 2.0]) if v is TENSOR else v for k, v in kwargs.items()}
    before = tf.memory().num_tensors
    with pytest.raises(tf.TidyTensorError, match="initializer|FanMode"):
        getattr(tf.initializers, factory)(**kwargs)
    assert tf.memory().num_tensors == before  # no comparison tensor left behind
    tf.dispose([v for v in kwargs.values() if isinstance(v, tf.Tensor)])
