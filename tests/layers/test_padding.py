"""Layers of ``layers/padding.py`` against TF.js goldens (tests/golden/layers_families.js):
predict output, output shape, config and summary, a no-leak check and a config round trip for
every case, TF.js's refused arguments and inputs, and hand-written edge cases."""

from __future__ import annotations

import numpy as np
import pytest
from families_golden import FamilyGoldenTests

import tidytensor as tf
from tidytensor.layers import padding as M
from tidytensor.layers.errors import LayersNotImplementedError, LayersValueError


class TestGolden(FamilyGoldenTests):
    modules = (M,)


def test_padding_values_are_zeros_around_the_input():
    y = M.zero_padding2d(padding=[[1, 0], [0, 2]]).apply(tf.ones([1, 1, 1, 1]))
    assert np.asarray(y.array_sync())[0, :, :, 0].tolist() == [[0, 0, 0], [1, 0, 0]]


def test_symbolic_shapes_keep_unknown_dimensions():
    from tidytensor.layers.engine.input_layer import input as tf_input

    x = tf_input(shape=[None, 4, 2])
    assert M.zero_padding2d(padding=2).apply(x).shape == [None, None, 8, 2]
    first = M.zero_padding2d(padding=[1, 2], data_format="channels_first")
    assert first.apply(x).shape == [None, None, 6, 6]


@pytest.mark.parametrize(
    ("padding", "match"),
    [
        (-1, "ZeroPadding2D: padding must be a non-negative integer"),
        ([1, 2, 3], "length-2 array, but received a length-3 array"),
        ([[1, 2], [3]], "width padding to be a length-2 array"),
        ([[1, -2], [3, 4]], "height padding to hold non-negative integers"),
        ("same", "ZeroPadding2D: padding must be"),
    ],
)
def test_bad_padding_is_refused(padding, match):
    with pytest.raises(LayersValueError, match=match):
        M.zero_padding2d(padding=padding)


def test_bad_data_format_is_refused():
    with pytest.raises(LayersValueError, match="ZeroPadding2D: 'NHWC' is not a valid data_format"):
        M.zero_padding2d(data_format="NHWC")


def test_not_implemented_error_class_is_importable():
    assert issubclass(LayersNotImplementedError, NotImplementedError)
