"""Layers of ``layers/preprocessing.py`` against TF.js goldens (tests/golden/layers_families.js):
predict output, output shape, config and summary, a no-leak check and a config round trip for
every case, TF.js's refused arguments and inputs, and hand-written edge cases."""

from __future__ import annotations

import numpy as np
import pytest
from families_golden import FamilyGoldenTests

import tidytensor as tf
from tidytensor.layers import preprocessing as M
from tidytensor.layers.errors import LayersNotImplementedError, LayersValueError


class TestGolden(FamilyGoldenTests):
    modules = (M,)


def test_rescaling_casts_ints_to_float():
    y = M.rescaling(scale=0.5, offset=1).apply(tf.tensor1d([2, 4], "int32"))
    assert y.dtype == "float32" and y.array_sync() == [2.0, 3.0]
    assert M.rescaling(scale=2).get_config()["offset"] == 0


def test_center_crop_keeps_the_dtype_and_takes_the_centre():
    x = tf.tensor(np.arange(36).reshape(1, 6, 6, 1), None, "int32")
    y = M.center_crop(height=2, width=2).apply(x)
    assert y.dtype == "int32"
    assert np.asarray(y.array_sync())[0, :, :, 0].tolist() == [[14, 15], [20, 21]]
    assert M.center_crop(height=2, width=3).compute_output_shape([None, 5, 5, 3]) == [
        None,
        2,
        3,
        3,
    ]


def test_image_layers_refuse_other_ranks():
    with pytest.raises(LayersValueError, match="CenterCrop cc2: expects an image"):
        M.center_crop(height=1, width=1, name="cc2").apply(tf.ones([2, 2]))
    with pytest.raises(LayersValueError, match="Resizing rs5: expects an image"):
        M.resizing(height=1, width=1, name="rs5").apply(tf.ones([1, 1, 2, 2, 1]))


def test_resizing_shape_and_symbolic_shape():
    from tidytensor.layers.engine.input_layer import input as tf_input

    layer = M.resizing(height=3, width=7)
    assert layer.apply(tf.ones([2, 5, 5, 3])).shape == [2, 3, 7, 3]
    assert layer.apply(tf_input(shape=[5, 5, 3])).shape == [None, 3, 7, 3]


def test_category_encoding_count_weights():
    layer = M.category_encoding(num_tokens=3, output_mode="count")
    x = tf.tensor2d([[0, 2, 2]], None, "int32")
    w = tf.tensor2d([[0.5, 1, 2]])
    assert layer.apply(x, count_weights=w).array_sync() == [[0.5, 0.0, 3.0]]
    with pytest.raises(LayersValueError, match="count_weights is not used when output_mode"):
        M.category_encoding(num_tokens=3).apply(x, count_weights=w)


def test_category_encoding_modes_and_spellings():
    layer = M.category_encoding(num_tokens=3, output_mode="one_hot")
    assert layer.output_mode == "oneHot"
    assert layer.get_config()["output_mode"] == "one_hot"
    with pytest.raises(LayersValueError, match="CategoryEncoding: unknown output_mode 'binary'"):
        M.category_encoding(num_tokens=3, output_mode="binary")
    with pytest.raises(LayersValueError, match="tfIdf', weights must be provided"):
        M.category_encoding(num_tokens=3, output_mode="tfIdf").apply(tf.tensor1d([1], "int32"))
    with pytest.raises(LayersValueError, match="maximum output rank is 2"):
        M.category_encoding(num_tokens=3).apply(tf.zeros([1, 1, 2], "int32"))
    assert M.category_encoding(num_tokens=4, output_mode="oneHot").compute_output_shape(
        [None, 3]
    ) == [None, 3, 4]


def test_category_encoding_out_of_range_names_the_layer():
    with pytest.raises(LayersValueError, match=r"CategoryEncoding ce_r: .*\[-1, 1\]"):
        M.category_encoding(num_tokens=3, name="ce_r").apply(tf.tensor1d([-1, 1], "int32"))


def test_random_width_seed_advances_and_is_in_the_config():
    layer = M.random_width(factor=[0, 1], seed=5)
    widths = {layer.apply(tf.ones([1, 4, 10, 1])).shape[2] for _ in range(6)}
    assert layer.get_config()["seed"] == 11
    assert all(10 <= w <= 20 for w in widths) and len(widths) > 1
    assert layer.compute_output_shape([None, 4, 10, 1]) == [None, 4, None, 1]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"factor": [0.5, -0.5]}, "upper bound less than lower bound"),
        ({"factor": [-2, 0]}, "values larger than -1"),
        ({"factor": 0.2, "interpolation": "bicubic"}, "RandomWidth: invalid interpolation"),
    ],
)
def test_random_width_bad_arguments(kwargs, match):
    with pytest.raises(LayersValueError, match=match):
        M.random_width(**kwargs)


def test_required_sizes_are_checked():
    with pytest.raises(LayersValueError, match="Resizing: height must be a positive integer"):
        M.resizing(width=2)
    with pytest.raises(LayersValueError, match="CenterCrop: width must be a positive integer"):
        M.center_crop(height=2, width=0)
    with pytest.raises(LayersValueError, match="Rescaling: scale must be a number"):
        M.rescaling()
    assert issubclass(LayersNotImplementedError, NotImplementedError)
