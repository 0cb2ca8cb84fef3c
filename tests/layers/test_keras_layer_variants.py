"""What Keras writes and TF.js refuses or trips on: ``GRU(reset_after=True)`` (Keras 2's and
3's default) and ``BatchNormalization(axis=[3])`` (Keras 2's config after build). Keras's own
numbers for both are in test_keras_files.py; here, a NumPy reference, gradients against
finite differences, the cell inside ``rnn``, and configs."""

from __future__ import annotations

import numpy as np
import pytest

import tidytensor as tf
from tidytensor.layers.errors import LayersValueError

layers = tf.layers
UNITS, INPUT_DIM, STEPS, BATCH = 3, 2, 4, 2


def sigmoid(v):
    return 1 / (1 + np.exp(-v))


def numpy_gru_reset_after(x, kernel, recurrent, bias):
    """Keras's GRU step with reset_after, unrolled over x [batch, steps, input]."""
    h = np.zeros((x.shape[0], UNITS))
    for t in range(x.shape[1]):
        mx = x[:, t] @ kernel + bias[0]
        mh = h @ recurrent + bias[1]
        z = sigmoid(mx[:, :UNITS] + mh[:, :UNITS])
        r = sigmoid(mx[:, UNITS : 2 * UNITS] + mh[:, UNITS : 2 * UNITS])
        hh = np.tanh(mx[:, 2 * UNITS :] + r * mh[:, 2 * UNITS :])
        h = z * h + (1 - z) * hh
    return h


@pytest.fixture
def values():
    rng = np.random.default_rng(18)
    return {
        "x": rng.normal(size=(BATCH, STEPS, INPUT_DIM)),
        "kernel": rng.normal(size=(INPUT_DIM, 3 * UNITS)),
        "recurrent": rng.normal(size=(UNITS, 3 * UNITS)),
        "bias": rng.normal(size=(2, 3 * UNITS)),
    }


def gru_model(values, via_cell: bool):
    options = {"reset_after": True, "recurrent_activation": "sigmoid"}
    if via_cell:
        layer = layers.rnn(cell=layers.gru_cell(units=UNITS, **options), input_shape=[STEPS, 2])
    else:
        layer = layers.gru(units=UNITS, input_shape=[STEPS, INPUT_DIM], **options)
    model = tf.sequential([layer])
    weights = [tf.tensor(values[k], None, "float32") for k in ("kernel", "recurrent", "bias")]
    model.set_weights(weights)
    tf.dispose(weights)
    return model


@pytest.mark.parametrize("via_cell", [False, True])
def test_reset_after_forward_matches_numpy(values, via_cell):
    model = gru_model(values, via_cell)
    assert [w.shape for w in model.weights] == [[2, 9], [3, 9], [2, 9]]
    x = tf.tensor(values["x"], None, "float32")
    got = tf.tidy(lambda: model.predict(x).array_sync())
    expected = numpy_gru_reset_after(
        values["x"], values["kernel"], values["recurrent"], values["bias"]
    )
    np.testing.assert_allclose(got, expected, atol=1e-5)
    x.dispose()
    model.dispose()


def test_reset_after_differs_from_reset_before(values):
    """The two placements of the reset gate give different outputs (so the test above can fail)."""
    before = tf.sequential(
        [layers.gru(units=UNITS, input_shape=[STEPS, 2], recurrent_activation="sigmoid")]
    )
    weights = [tf.tensor(values[k], None, "float32") for k in ("kernel", "recurrent")]
    bias = tf.tensor(values["bias"][0] + values["bias"][1], None, "float32")
    before.set_weights([*weights, bias])
    x = tf.tensor(values["x"], None, "float32")
    got = tf.tidy(lambda: before.predict(x).array_sync())
    expected = numpy_gru_reset_after(
        values["x"], values["kernel"], values["recurrent"], values["bias"]
    )
    assert np.abs(np.array(got) - expected).max() > 1e-3
    tf.dispose([*weights, bias, x])
    before.dispose()


@pytest.mark.parametrize("via_cell", [False, True])
def test_reset_after_gradients_match_finite_differences(values, via_cell):
    model = gru_model(values, via_cell)
    x = tf.tensor(values["x"], None, "float32")
    probe = np.random.default_rng(1).normal(size=(BATCH, UNITS))

    def loss_of(kernel, recurrent, bias):
        return float((numpy_gru_reset_after(values["x"], kernel, recurrent, bias) * probe).sum())

    def loss():
        return tf.sum(tf.mul(model.apply(x), tf.tensor(probe, None, "float32")))

    result = tf.variable_grads(loss, [w.read() for w in model.weights])
    keys = ("kernel", "recurrent", "bias")
    eps = 1e-6
    for key, weight in zip(keys, model.weights, strict=True):
        grad = np.array(result.grads[weight.read().name].array_sync())
        numeric = np.zeros_like(values[key])
        for index in np.ndindex(values[key].shape):
            plus = {k: values[k].copy() for k in keys}
            minus = {k: values[k].copy() for k in keys}
            plus[key][index] += eps
            minus[key][index] -= eps
            numeric[index] = (loss_of(**plus) - loss_of(**minus)) / (2 * eps)
        np.testing.assert_allclose(grad, numeric, atol=2e-4)
    tf.dispose([result.value, *result.grads.values(), x])
    model.dispose()


def test_reset_after_config_round_trip_and_default():
    layer = layers.gru(units=2, reset_after=True)
    config = layer.get_config()
    assert config["reset_after"] is True
    again = tf.serialization.deserialize({"class_name": "GRU", "config": config})
    assert again.cell.reset_after is True
    assert layers.gru(units=2).get_config()["reset_after"] is False  # TF.js's default
    cell = layers.gru_cell(units=2, reset_after=True)
    assert cell.get_config()["reset_after"] is True


def test_reset_after_trains_eagerly(values):
    model = gru_model(values, via_cell=False)
    model.compile(optimizer="sgd", loss="meanSquaredError")
    x = tf.tensor(values["x"], None, "float32")
    y = tf.zeros([BATCH, UNITS])
    bias_before = model.weights[2].read().array_sync()
    history = model.fit(x, y, epochs=3, verbose=0)
    losses = history.history["loss"]
    assert losses[2] < losses[0]
    assert model.weights[2].read().array_sync() != bias_before  # both bias rows train
    tf.dispose([x, y])
    model.dispose()


# --------------------------------------------------------------------- batch norm
def test_batch_norm_axis_list_of_one():
    x = tf.random_normal([2, 3, 3, 4], seed=1)
    as_list = layers.batch_normalization(axis=[3], epsilon=0.1)
    as_int = layers.batch_normalization(axis=3, epsilon=0.1)
    a = as_list.apply(x, training=True)
    b = as_int.apply(x, training=True)
    assert as_list.axis == 3 and as_list.get_config()["axis"] == 3
    assert a.data_sync().tobytes() == b.data_sync().tobytes()
    loaded = tf.serialization.deserialize(
        {"class_name": "BatchNormalization", "config": {"axis": [1], "name": "bn_axis_list"}}
    )
    assert loaded.axis == 1
    with pytest.raises(LayersValueError, match=r"axis \[1, 2\] normalizes over several axes"):
        layers.batch_normalization(axis=[1, 2])
    tf.dispose([x, a, b])
    for layer in (as_list, as_int):
        layer.dispose()
