"""Layers of ``layers/pooling.py`` against TF.js goldens (tests/golden/layers_families.js):
predict output, output shape, config and summary, a no-leak check and a config round trip for
every case, TF.js's refused arguments and inputs, and hand-written edge cases."""

from __future__ import annotations

import pytest
from families_golden import FamilyGoldenTests

import tidytensor as tf
from tidytensor.layers import pooling as M
from tidytensor.layers.errors import LayersNotImplementedError, LayersValueError


class TestGolden(FamilyGoldenTests):
    modules = (M,)


def test_tfjs_aliases_are_the_same_factories():
    assert M.avg_pool1d is M.avg_pooling1d is M.average_pooling1d
    assert M.avg_pool2d is M.avg_pooling2d is M.average_pooling2d
    assert M.avg_pool3d is M.avg_pooling3d is M.average_pooling3d
    assert M.max_pool1d is M.max_pooling1d
    assert M.max_pool2d is M.max_pooling2d
    assert M.global_max_pool1d is M.global_max_pooling1d
    assert M.global_max_pool2d is M.global_max_pooling2d
    assert isinstance(M.avg_pool2d(), M.AveragePooling2D)


def test_pooling_values():
    x = tf.tensor3d([[[1], [5], [2], [-1]]])
    assert M.max_pooling1d().apply(x).array_sync() == [[[5.0], [2.0]]]
    assert M.average_pooling1d(pool_size=2, strides=1).apply(x).array_sync() == [
        [[3.0], [3.5], [0.5]]
    ]


def test_symbolic_shapes():
    from tidytensor.layers.engine.input_layer import input as tf_input

    assert M.max_pooling2d().apply(tf_input(shape=[None, 5, 3])).shape == [None, None, 2, 3]
    assert M.average_pooling3d(padding="same").apply(tf_input(shape=[3, 5, 4, 2])).shape == [
        None,
        2,
        3,
        2,
        2,
    ]
    assert M.global_average_pooling2d(data_format="channelsFirst").apply(
        tf_input(shape=[3, 5, 4])
    ).shape == [None, 3]
    assert M.max_pooling1d(pool_size=3, padding="same").apply(tf_input(shape=[7, 2])).shape == [
        None,
        3,
        2,
    ]


def test_strides_default_to_pool_size_in_config():
    config = M.max_pooling2d(pool_size=3).get_config()
    assert config["pool_size"] == [3, 3]
    assert config["strides"] == [3, 3]
    assert config["data_format"] == "channels_last"
    assert "data_format" not in M.max_pooling1d().get_config()


@pytest.mark.parametrize(
    ("factory", "kwargs", "match"),
    [
        (M.max_pooling2d, {"pool_size": 0}, "MaxPooling2D pool_size"),
        (M.max_pooling2d, {"strides": -1}, "MaxPooling2D strides"),
        (M.average_pooling3d, {"pool_size": [2, 2]}, "AveragePooling3D: pool_size must be"),
        (M.max_pooling1d, {"strides": [1, 1]}, "MaxPooling1D: strides must be a number"),
        (M.max_pooling2d, {"padding": "full"}, "MaxPooling2D: 'full' is not a valid PaddingMode"),
        (M.global_max_pooling2d, {"data_format": "x"}, "GlobalMaxPooling2D: 'x' is not a valid"),
    ],
)
def test_bad_arguments(factory, kwargs, match):
    with pytest.raises(LayersValueError, match=match):
        factory(**kwargs)


def test_1d_pooling_refuses_channels_first():
    with pytest.raises(LayersNotImplementedError, match="MaxPooling1D: only data_format"):
        M.max_pooling1d(data_format="channelsFirst")
    assert M.max_pooling1d(data_format="channels_last").pool_size == [2]
