"""Layers of ``layers/noise.py`` against TF.js goldens (tests/golden/layers_families.js):
predict output, output shape, config and summary, a no-leak check and a config round trip for
every case, training behaviour and bad arguments (TF.js validates none)."""

from __future__ import annotations

import numpy as np
import pytest
from families_golden import FamilyGoldenTests

import tidytensor as tf
from tidytensor.layers import noise as M
from tidytensor.layers.errors import LayersValueError


class TestGolden(FamilyGoldenTests):
    modules = (M,)
    test_refused_like_tfjs = None  # TF.js validates no noise argument


def _big(seed=0, mean=0.0):
    return tf.tensor(
        np.random.default_rng(seed).normal(mean, 1, size=(200, 100)).astype(np.float32)
    )


def test_inference_is_the_identity():
    x = tf.tensor2d([[1, -2, 3]])
    for layer in (
        M.gaussian_noise(stddev=1),
        M.gaussian_dropout(rate=0.5),
        M.alpha_dropout(rate=0.5),
    ):
        assert layer.apply(x).array_sync() == [[1.0, -2.0, 3.0]]
        assert layer.apply(x, training=False).array_sync() == [[1.0, -2.0, 3.0]]


def test_gaussian_noise_adds_noise_of_stddev_while_training():
    x = tf.zeros([200, 100])
    y = np.asarray(M.gaussian_noise(stddev=0.5).apply(x, training=True).data_sync())
    assert abs(y.mean()) < 0.02
    assert abs(y.std() - 0.5) < 0.02


def test_gaussian_dropout_multiplies_by_noise_around_one():
    x = tf.ones([200, 100])
    y = np.asarray(M.gaussian_dropout(rate=0.2).apply(x, training=True).data_sync())
    assert abs(y.mean() - 1) < 0.02
    assert abs(y.std() - np.sqrt(0.2 / 0.8)) < 0.02


def test_gaussian_dropout_and_alpha_dropout_with_rate_0_or_1_are_identity():
    x = tf.tensor1d([1, 2])
    for rate in (0, 1):
        assert M.gaussian_dropout(rate=rate).apply(x, training=True).array_sync() == [1.0, 2.0]
        assert M.alpha_dropout(rate=rate).apply(x, training=True).array_sync() == [1.0, 2.0]


def test_alpha_dropout_keeps_mean_and_variance_of_selu_inputs():
    x = _big(1)
    y = np.asarray(M.alpha_dropout(rate=0.3).apply(x, training=True).data_sync())
    xs = np.asarray(x.data_sync())
    assert abs(y.mean() - xs.mean()) < 0.03
    assert abs(y.std() - xs.std()) < 0.03
    alpha_p = -1.6732632423543772 * 1.0507009873554805
    a = ((1 - 0.3) * (1 + 0.3 * alpha_p**2)) ** -0.5
    dropped = np.isclose(y, a * alpha_p - a * alpha_p * 0.3, atol=1e-5)
    assert abs(dropped.mean() - 0.3) < 0.02


def test_alpha_dropout_noise_shape_drops_whole_columns():
    layer = M.alpha_dropout(rate=0.5, noise_shape=[1, 50])
    y = np.asarray(layer.apply(tf.ones([20, 50]), training=True).array_sync())
    assert (y == y[0]).all()
    assert layer.get_config()["noise_shape"] == [1, 50]
    assert "noise_shape" not in M.alpha_dropout(rate=0.5).get_config()


def test_training_calls_do_not_leak():
    x = tf.ones([3, 4])
    for layer in (
        M.gaussian_noise(stddev=1),
        M.gaussian_dropout(rate=0.5),
        M.alpha_dropout(rate=0.5),
    ):
        before = tf.memory().num_tensors
        tf.tidy(lambda layer=layer: (layer.apply(x, training=True), None)[1])
        assert tf.memory().num_tensors == before
        y = layer.apply(x, training=True)
        assert tf.memory().num_tensors == before + 1
        y.dispose()


@pytest.mark.parametrize(
    ("factory", "kwargs", "match"),
    [
        (M.gaussian_noise, {}, "GaussianNoise: required argument stddev is missing"),
        (M.gaussian_noise, {"stddev": -1}, "GaussianNoise: stddev must be >= 0"),
        (M.gaussian_dropout, {"rate": 1.5}, r"GaussianDropout: rate must be in \[0, 1\]"),
        (M.alpha_dropout, {"rate": "half"}, "AlphaDropout: rate must be a number"),
    ],
)
def test_bad_arguments(factory, kwargs, match):
    with pytest.raises(LayersValueError, match=match):
        factory(**kwargs)
