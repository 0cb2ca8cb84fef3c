"""Layers of ``layers/advanced_activations.py`` against TF.js goldens (tests/golden/layers_families.js):
predict output, output shape, config and summary, a no-leak check and a config round trip for
every case, TF.js's refused arguments and inputs, and hand-written edge cases."""

from __future__ import annotations

import numpy as np
import pytest
from families_golden import FamilyGoldenTests

import tidytensor as tf
from tidytensor.errors import TidyTensorError
from tidytensor.layers import advanced_activations as M
from tidytensor.layers.errors import LayersNotImplementedError, LayersValueError


class TestGolden(FamilyGoldenTests):
    modules = (M,)


def test_factory_names_follow_the_naming_rule():
    assert isinstance(M.re_lu(), M.ReLU)
    assert isinstance(M.leaky_re_lu(), M.LeakyReLU)
    assert isinstance(M.thresholded_re_lu(), M.ThresholdedReLU)
    assert M.__all__ == ["elu", "leaky_re_lu", "prelu", "re_lu", "softmax", "thresholded_re_lu"]


def test_leaky_relu_default_alpha_is_keras_not_op_default():
    y = M.leaky_re_lu().apply(tf.tensor1d([-10, 10]))
    np.testing.assert_allclose(y.data_sync(), [-3, 10], rtol=1e-6)


def test_relu_max_value_must_be_a_number():
    with pytest.raises(LayersValueError, match="ReLU: max_value must be a number"):
        M.re_lu(max_value="big")


def test_unknown_argument_is_named():
    with pytest.raises(TidyTensorError, match="maxvalue.*did you mean 'max_value'"):
        M.re_lu(maxvalue=1)


def test_elu_alpha_not_one_is_not_implemented():
    with pytest.raises(LayersNotImplementedError, match=r"Non-default alpha value \(0.5\)"):
        M.elu(alpha=0.5)
    assert M.elu(alpha=1).alpha == 1


def test_prelu_shared_axis_out_of_range_names_the_layer():
    layer = M.prelu(shared_axes=[3], name="p1")
    with pytest.raises(LayersValueError, match="PReLU p1: shared_axes entry 3"):
        layer.apply(tf.zeros([2, 3, 4]))


def test_prelu_learns_alpha_per_feature():
    layer = M.prelu(alpha_initializer="ones")
    y = layer.apply(tf.tensor2d([[-2, 3]]))
    assert y.array_sync() == [[-2.0, 3.0]]
    assert layer.weights[0].shape == [2]


def test_softmax_mask_pushes_masked_positions_to_zero():
    layer = M.softmax(axis=-1)
    x = tf.tensor2d([[1, 2, 3]])
    mask = tf.tensor2d([[1, 1, 0]])
    y = layer.apply(x, mask=mask)
    expected = np.exp([1, 2]) / np.exp([1, 2]).sum()
    np.testing.assert_allclose(y.data_sync(), [*expected, 0], atol=1e-6)


def test_softmax_axis_must_be_integers():
    with pytest.raises(LayersValueError, match="Softmax: axis must be an integer"):
        M.softmax(axis=1.5)
    with pytest.raises(LayersValueError, match="Softmax: axis must be an integer"):
        M.softmax(axis=[])


def test_symbolic_shapes_pass_through():
    from tidytensor.layers.engine.input_layer import input as tf_input

    x = tf_input(shape=[None, 3])
    for layer in (M.re_lu(), M.leaky_re_lu(), M.elu(), M.thresholded_re_lu(), M.softmax()):
        assert layer.apply(x).shape == [None, None, 3]
