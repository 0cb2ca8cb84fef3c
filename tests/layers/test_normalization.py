"""Layers of ``layers/normalization.py`` against TF.js goldens (tests/golden/layers_families.js):
predict output, output shape, config and summary, a no-leak check and a config round trip for
every case, TF.js's refused arguments and inputs, and hand-written edge cases."""

from __future__ import annotations

import numpy as np
import pytest
from families_golden import FamilyGoldenTests

import tidytensor as tf
from tidytensor.layers import normalization as M
from tidytensor.layers.errors import LayersNotImplementedError, LayersValueError


class TestGolden(FamilyGoldenTests):
    modules = (M,)


def _np(t):
    return np.asarray(t.data_sync(), np.float64).reshape(t.shape)


def test_batchnorm_weights_order_and_trainability():
    layer = M.batch_normalization()
    layer.apply(tf.zeros([2, 3])).dispose()
    names = [w.original_name.split("/")[1] for w in layer.weights]
    assert names == ["gamma", "beta", "moving_mean", "moving_variance"]
    assert [w.name.split("/")[1] for w in layer.trainable_weights] == ["gamma", "beta"]
    assert len(layer.non_trainable_weights) == 2


def test_batchnorm_training_moves_statistics_and_inference_uses_them():
    layer = M.batch_normalization(momentum=0.5, epsilon=1e-3)
    x = tf.tensor(np.random.default_rng(0).normal(3, 2, size=(16, 4)).astype(np.float32))
    xs = _np(x)
    y = layer.apply(x, training=True)
    expected = (xs - xs.mean(0)) / np.sqrt(xs.var(0) + 1e-3)
    np.testing.assert_allclose(_np(y), expected, atol=1e-4)
    mean, var = _np(layer.weights[2].read()), _np(layer.weights[3].read())
    np.testing.assert_allclose(mean, 0.5 * xs.mean(0), rtol=1e-5)
    np.testing.assert_allclose(var, 0.5 + 0.5 * xs.var(0), rtol=1e-5)
    y_inf = layer.apply(x)  # inference: the moving statistics
    np.testing.assert_allclose(_np(y_inf), (xs - mean) / np.sqrt(var + 1e-3), atol=1e-4)


def test_batchnorm_training_does_not_leak():
    layer = M.batch_normalization()
    x = tf.ones([4, 3])
    layer.apply(x, training=True).dispose()
    before = tf.memory()
    for _ in range(3):
        layer.apply(x, training=True).dispose()
    after = tf.memory()
    assert after.num_tensors == before.num_tensors
    assert after.num_data_buffers == before.num_data_buffers


def test_batchnorm_training_without_center_or_scale():
    # TF.js reads gamma and beta unconditionally in training and crashes; here they are optional.
    for kwargs in ({"center": False}, {"scale": False}, {"center": False, "scale": False}):
        layer = M.batch_normalization(**kwargs)
        y = layer.apply(tf.tensor2d([[1, 2], [3, 4]]), training=True)
        np.testing.assert_allclose(_np(y), [[-1, -1], [1, 1]], atol=1e-3)


def test_batchnorm_bad_arguments_and_inputs():
    with pytest.raises(LayersValueError, match="BatchNormalization: expected axis to be an int"):
        M.batch_normalization(axis="1")
    # Keras 2's [3] is accepted (test_keras_layer_variants.py); several axes are not.
    with pytest.raises(LayersValueError, match=r"BatchNormalization: axis \[1, 2\] normalizes"):
        M.batch_normalization(axis=[1, 2])
    with pytest.raises(LayersValueError, match="BatchNormalization: expected momentum"):
        M.batch_normalization(momentum="fast")
    with pytest.raises(LayersValueError, match="BatchNormalization bn_ax: axis 3 is out of range"):
        M.batch_normalization(axis=3, name="bn_ax").apply(tf.zeros([2, 3]))
    layer = M.batch_normalization(name="bn_rank")
    layer.apply(tf.zeros([2, 3])).dispose()
    with pytest.raises(LayersValueError, match="layer bn_rank: expected ndim=2, found ndim=3"):
        layer.apply(tf.zeros([2, 2, 3]))
    with pytest.raises(LayersValueError, match="layer bn_rank: expected axis 1"):
        layer.apply(tf.zeros([2, 4]))
    from tidytensor.layers.engine.input_layer import input as tf_input

    with pytest.raises(LayersValueError, match="should have a defined dimension"):
        M.batch_normalization(name="bn_none").apply(tf_input(shape=[None]))


def test_batchnorm_rank5_and_rank6():
    y = M.batch_normalization().apply(tf.ones([1, 2, 2, 2, 3]))
    assert y.shape == [1, 2, 2, 2, 3]
    with pytest.raises(LayersNotImplementedError, match="inputs of rank 6 are not supported"):
        M.batch_normalization(name="bn6").apply(tf.ones([1, 1, 1, 1, 1, 2]))


def test_layernorm_normalizes_each_example():
    x = tf.tensor2d([[1, 2, 3, 4], [10, 10, 20, 20]])
    y = _np(M.layer_normalization().apply(x))
    np.testing.assert_allclose(y.mean(1), [0, 0], atol=1e-5)
    np.testing.assert_allclose(y.var(1), [1, 1], atol=1e-2)


def test_layernorm_axis_becomes_a_list_when_built():
    layer = M.layer_normalization(axis=-1)
    assert layer.get_config()["axis"] == -1
    layer.apply(tf.zeros([2, 3, 4])).dispose()
    assert layer.get_config()["axis"] == [2]
    assert [w.shape for w in layer.weights] == [[4], [4]]


@pytest.mark.parametrize(
    ("axis", "match"),
    [
        ([1, 1], r"found duplicate axes in: \[1, 1\]"),
        ([-4], "invalid axis -1"),
    ],
)
def test_layernorm_bad_axes(axis, match):
    with pytest.raises(LayersValueError, match=match):
        M.layer_normalization(axis=axis).apply(tf.zeros([2, 3, 4]))


def test_layernorm_bad_arguments():
    with pytest.raises(LayersValueError, match="LayerNormalization: expected axis to be an array"):
        M.layer_normalization(axis=[1, "2"])
    with pytest.raises(LayersValueError, match="LayerNormalization: expected epsilon"):
        M.layer_normalization(epsilon=None or "tiny")
