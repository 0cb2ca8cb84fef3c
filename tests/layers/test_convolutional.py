"""Layers of ``layers/convolutional.py`` and ``layers/convolutional_depthwise.py`` against TF.js
goldens (tests/golden/layers_families.js): predict output, output shape, config and summary, a
no-leak check and a config round trip for every case, TF.js's refused arguments and inputs, and
hand-written edge cases (including the TF.js bugs fixed here)."""

from __future__ import annotations

import numpy as np
import pytest
from families_golden import FamilyGoldenTests

import tidytensor as tf
from tidytensor.layers import convolutional as M
from tidytensor.layers import convolutional_depthwise as MD
from tidytensor.layers.errors import LayersNotImplementedError, LayersValueError
from tidytensor.layers.regularizers import l2


class TestGolden(FamilyGoldenTests):
    modules = (M, MD)


def test_the_two_modules_export_different_names():
    assert not set(M.__all__) & set(MD.__all__)


def _rand(shape, seed=0):
    return tf.tensor(np.random.default_rng(seed).normal(size=shape).astype(np.float32))


def _set(layer, *arrays):
    tensors = [tf.tensor(np.asarray(a, np.float32)) for a in arrays]
    layer.set_weights(tensors)
    tf.dispose(tensors)


def test_default_initializers_are_tfjs_glorot_normal_and_zeros():
    config = M.conv2d(filters=1, kernel_size=2).get_config()
    assert config["kernel_initializer"] == {
        "class_name": "VarianceScaling",
        "config": {"scale": 1, "mode": "fan_avg", "distribution": "normal", "seed": None},
    }
    assert config["bias_initializer"] == {"class_name": "Zeros", "config": {}}


def test_keras_spellings_are_accepted():
    layer = M.conv2d(filters=1, kernel_size=2, data_format="channels_first")
    assert layer.data_format == "channelsFirst"
    assert layer.get_config()["data_format"] == "channels_first"


def test_symbolic_output_shapes_with_unknown_dimensions():
    from tidytensor.layers.engine.input_layer import input as tf_input

    x = tf_input(shape=[None, None, 3])
    assert M.conv2d(filters=4, kernel_size=3).apply(x).shape == [None, None, None, 4]
    assert M.up_sampling2d().apply(x).shape == [None, None, None, 3]
    assert M.cropping2d(cropping=1).apply(x).shape == [None, None, None, 3]
    y = tf_input(shape=[7, 5, 3])
    assert M.conv2d(filters=2, kernel_size=3, strides=2, padding="same").apply(y).shape == [
        None,
        4,
        3,
        2,
    ]
    assert M.conv2d_transpose(filters=2, kernel_size=3, strides=2).apply(y).shape == [
        None,
        15,
        11,
        2,
    ]
    assert MD.depthwise_conv2d(kernel_size=3, depth_multiplier=2).apply(y).shape == [
        None,
        5,
        3,
        6,
    ]


def test_depthwise_dilation_is_applied():
    # TF.js 4.22 ignores dilation_rate in DepthwiseConv2D.call; Keras (and we) apply it.
    layer = MD.depthwise_conv2d(kernel_size=2, dilation_rate=2, use_bias=False)
    x = _rand([1, 5, 5, 2])
    y = layer.apply(x)
    expected = tf.depthwise_conv2d(x, layer.weights[0].read(), 1, "valid", "NHWC", 2)
    assert y.shape == [1, 3, 3, 2] == expected.shape
    np.testing.assert_allclose(y.data_sync(), expected.data_sync(), atol=1e-6)
    assert layer.compute_output_shape([None, 5, 5, 2]) == [None, 3, 3, 2]


def test_depthwise_config_writes_the_constraint():
    # TF.js writes the regularizer under depthwise_constraint.
    layer = MD.depthwise_conv2d(
        kernel_size=2, depthwise_constraint="nonNeg", depthwise_regularizer=l2(0.01)
    )
    config = layer.get_config()
    assert config["depthwise_constraint"]["class_name"] == "NonNeg"
    assert config["depthwise_regularizer"]["class_name"] == "L1L2"


def test_separable_channels_first_matches_channels_last():
    x = _rand([2, 5, 5, 3], 1)
    last = M.separable_conv2d(filters=2, kernel_size=3, depth_multiplier=2)
    first = M.separable_conv2d(
        filters=2, kernel_size=3, depth_multiplier=2, data_format="channelsFirst"
    )
    y_last = last.apply(x)
    first.apply(tf.transpose(x, [0, 3, 1, 2])).dispose()  # build
    weights = [np.asarray(w.read().data_sync()).reshape(w.shape) for w in last.weights]
    weights[-1] = np.array([0.5, -1.5], np.float32)  # a bias that shows the channel axis
    _set(last, *weights)
    _set(first, *weights)
    y_last = last.apply(x)
    y_first = first.apply(tf.transpose(x, [0, 3, 1, 2]))
    np.testing.assert_allclose(
        tf.transpose(y_first, [0, 2, 3, 1]).data_sync(), y_last.data_sync(), atol=1e-5
    )


def test_separable_initializers_and_depth_multiplier_round_trip():
    layer = M.separable_conv2d(
        filters=2, kernel_size=2, depth_multiplier=3, pointwise_initializer="ones"
    )
    config = layer.get_config()
    assert config["depth_multiplier"] == 3
    assert config["pointwise_initializer"] == {"class_name": "Ones", "config": {}}
    copy = M.SeparableConv2D.from_config(config)
    assert copy.depth_multiplier == 3
    copy.apply(tf.zeros([1, 3, 3, 1])).dispose()
    assert [w.shape for w in copy.weights] == [[2, 2, 1, 3], [1, 1, 3, 2], [2]]
    assert "depth_multiplier" not in M.separable_conv2d(filters=1, kernel_size=1).get_config()


def test_conv1d_channels_first_output_is_channels_first():
    x = _rand([2, 6, 3], 2)
    last = M.conv1d(filters=4, kernel_size=3)
    first = M.conv1d(filters=4, kernel_size=3, data_format="channelsFirst")
    y_last = last.apply(x)
    first.apply(tf.transpose(x, [0, 2, 1])).dispose()
    weights = [np.asarray(w.read().data_sync()).reshape(w.shape) for w in last.weights]
    weights[1] = np.arange(4, dtype=np.float32)
    _set(last, *weights)
    _set(first, *weights)
    y_last = last.apply(x)
    y_first = first.apply(tf.transpose(x, [0, 2, 1]))
    assert y_first.shape == first.compute_output_shape([2, 3, 6]) == [2, 4, 4]
    np.testing.assert_allclose(
        tf.transpose(y_first, [0, 2, 1]).data_sync(), y_last.data_sync(), atol=1e-5
    )
    assert first.get_config()["data_format"] == "channels_first"
    assert "data_format" not in last.get_config()
    assert M.Conv1D.from_config(first.get_config()).data_format == "channelsFirst"


def test_conv1d_causal_padding_only_looks_back():
    layer = M.conv1d(filters=1, kernel_size=3, dilation_rate=2, padding="causal", use_bias=False)
    x = _rand([1, 8, 1], 3)
    y = layer.apply(x)
    assert y.shape == [1, 8, 1]
    assert layer.compute_output_shape([None, 8, 1]) == [None, 8, 1]
    kernel = np.asarray(layer.weights[0].read().data_sync())
    xs = np.asarray(x.data_sync())
    padded = np.concatenate([np.zeros(4, np.float32), xs])
    expected = [sum(kernel[k] * padded[t + 2 * k] for k in range(3)) for t in range(8)]
    np.testing.assert_allclose(y.data_sync(), expected, atol=1e-5)


def test_causal_padding_is_refused_for_2d_and_3d():
    with pytest.raises(LayersNotImplementedError, match="Conv2D: padding 'causal'"):
        M.conv2d(filters=1, kernel_size=2, padding="causal")
    with pytest.raises(LayersNotImplementedError, match="Conv3D: padding 'causal'"):
        M.conv3d(filters=1, kernel_size=2, padding="causal")


def test_transpose_refuses_dilation():
    with pytest.raises(LayersNotImplementedError, match="Conv2DTranspose does not support"):
        M.conv2d_transpose(filters=1, kernel_size=2, dilation_rate=2)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"filters": 1}, "Conv2D: required argument kernel_size is missing"),
        ({"filters": 1, "kernel_size": 0}, "Conv2D kernel_size to be a positive integer"),
        ({"filters": 1, "kernel_size": [2, 2.5]}, "non-integer number 2.5"),
        ({"filters": 1, "kernel_size": 2, "strides": [1, 0]}, "Conv2D strides"),
        ({"filters": 1.5, "kernel_size": 2}, "Conv2D filters to be a positive integer"),
        ({"filters": 1, "kernel_size": 2, "padding": "full"}, "Conv2D: 'full' is not a valid"),
        ({"filters": 1, "kernel_size": 2, "activation": "nope"}, "Unknown activation: nope"),
    ],
)
def test_bad_arguments_name_the_argument(kwargs, match):
    with pytest.raises(LayersValueError, match=match):
        M.conv2d(**kwargs)


def test_unknown_channel_dimension_is_refused_at_build():
    from tidytensor.layers.engine.input_layer import input as tf_input

    layer = M.conv2d(filters=1, kernel_size=1, name="c_none")
    with pytest.raises(LayersValueError, match="Conv2D c_none: the channel dimension"):
        layer.apply(tf_input(shape=[3, 3, None]))


def test_wrong_channel_count_after_build():
    layer = M.conv2d(filters=1, kernel_size=1, name="c_ch")
    layer.apply(tf.zeros([1, 2, 2, 3])).dispose()
    with pytest.raises(LayersValueError, match="layer c_ch: expected axis 3"):
        layer.apply(tf.zeros([1, 2, 2, 4]))


def test_cropping_larger_than_input_is_refused():
    layer = M.cropping2d(cropping=[[2, 2], [0, 0]], name="crop_big")
    with pytest.raises(LayersValueError, match="Cropping2D crop_big: cropping"):
        layer.apply(tf.zeros([1, 3, 3, 1]))
    with pytest.raises(LayersValueError, match="Cropping2D: required argument cropping"):
        M.cropping2d()
    with pytest.raises(LayersValueError, match="Cropping2D: each entry of cropping"):
        M.cropping2d(cropping=[[1, -1], [0, 0]])


def test_upsampling_accepts_one_integer_and_checks_interpolation():
    y = M.up_sampling2d(size=3).apply(tf.ones([1, 1, 2, 1]))
    assert y.shape == [1, 3, 6, 1]
    with pytest.raises(LayersValueError, match="UpSampling2D: 'area' is not a valid"):
        M.up_sampling2d(interpolation="area")


def test_conv_regularizer_adds_a_loss():
    layer = M.conv2d(
        filters=1, kernel_size=1, kernel_initializer="ones", kernel_regularizer=l2(0.01)
    )
    layer.apply(tf.zeros([1, 1, 1, 2])).dispose()
    losses = layer.calculate_losses()
    np.testing.assert_allclose(losses[0].data_sync(), [0.02], rtol=1e-6)
    tf.dispose(losses)
