"""ConvLSTM2D and ConvLSTM2DCell (layers/convolutional_recurrent.py) against TF.js goldens
(tests/golden/layers_recurrent.js → results/layers_recurrent.json), plus config round trips,
memory and errors."""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
import pytest
from recurrent_golden import RESULTS, delta, mem, replay, scenarios

import tidytensor as tf
from tensor_cleanup import release_rnn_tensors
from tidytensor.errors import TidyTensorError
from tidytensor.layers import convolutional_recurrent, models, recurrent, serialization
from tidytensor.layers.engine.input_layer import input as tf_input
from tidytensor.layers.errors import LayersNotImplementedError

C = convolutional_recurrent


def _discard(_: Any) -> None:
    """Drops a value (so a tidy returns nothing)."""


@pytest.mark.parametrize("name", scenarios(("convlstm_",)))
def test_golden(name: str) -> None:
    replay(name)


def test_golden_errors() -> None:
    case = RESULTS["errors"]
    with pytest.raises(LayersNotImplementedError, match=re.escape(case["convUnroll"])):
        C.conv_lstm2d(filters=1, kernel_size=2, unroll=True)
    with pytest.raises(TidyTensorError, match=re.escape(case["convRank4"])):
        C.conv_lstm2d(filters=1, kernel_size=2).apply(tf.zeros([1, 2, 3, 3]))
    with pytest.raises(LayersNotImplementedError, match="stack convolutional cells"):
        C.ConvRNN2D(cell=[C.conv_lstm2d_cell(filters=1, kernel_size=2)])
    with pytest.raises(TidyTensorError, match="kernel"):
        C.conv_lstm2d(filters=1, kernel_size=[1, 2, 3])
    with pytest.raises(TidyTensorError, match="filters"):
        C.conv_lstm2d(filters=0, kernel_size=2)


@pytest.mark.parametrize(
    "make",
    [
        lambda: C.conv_lstm2d(filters=2, kernel_size=3, padding="same", return_sequences=True),
        lambda: C.conv_lstm2d(
            filters=1,
            kernel_size=[2, 3],
            strides=2,
            dilation_rate=1,
            unit_forget_bias=True,
            recurrent_activation="sigmoid",
            go_backwards=True,
        ),
    ],
    ids=["same_seq", "strided"],
)
def test_config_round_trip(make: Any) -> None:
    layer = make()
    for _ in range(2):
        config = json.loads(json.dumps(serialization.serialize(layer)))
        copy = serialization.deserialize(config)
        assert type(copy) is type(layer)
        assert json.loads(json.dumps(copy.get_config())) == config["config"]
        layer.apply(tf.zeros([1, 2, 5, 5, 1]))


def test_stateful_conv_lstm() -> None:
    layer = C.conv_lstm2d(
        filters=2, kernel_size=3, padding="same", stateful=True, batch_input_shape=[1, 2, 4, 4, 1]
    )
    x = tf.ones([1, 2, 4, 4, 1])
    y1 = layer.apply(x)
    assert [s.shape for s in layer.states] == [[1, 4, 4, 2], [1, 4, 4, 2]]
    y2 = layer.apply(x)
    assert not np.allclose(y1.data_sync(), y2.data_sync())
    layer.reset_states()
    np.testing.assert_allclose(layer.apply(x).data_sync(), y1.data_sync(), atol=1e-6)
    release_rnn_tensors(layer)


def test_cell_in_rnn_layer() -> None:
    rnn = recurrent.rnn(cell=C.conv_lstm2d_cell(filters=2, kernel_size=3, padding="same"))
    with pytest.raises(TidyTensorError):
        # RNN's input spec is rank 3: a ConvLSTM2DCell needs ConvLSTM2D's rank-5 inputs.
        rnn.apply(tf.zeros([1, 2, 4, 4, 1]))


def test_no_leaks_and_training() -> None:
    x_in = tf_input(shape=[2, 4, 4, 1])
    model = models.model(
        inputs=x_in,
        outputs=C.conv_lstm2d(filters=2, kernel_size=2, dropout=0.2, recurrent_dropout=0.2).apply(
            x_in
        ),
    )
    x = tf.ones([2, 2, 4, 4, 1])
    model.predict(x).dispose()
    before = mem()
    tf.tidy(lambda: _discard(model.predict(x)))
    assert delta(before) == [0, 0]
    model.compile(optimizer="sgd", loss="meanSquaredError")
    target = tf.zeros([2, 3, 3, 2])
    model.train_on_batch(x, target)
    before = mem()
    model.train_on_batch(x, target)
    assert delta(before) == [0, 0]
    release_rnn_tensors(model)
    model.dispose()
