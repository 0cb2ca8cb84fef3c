"""Bidirectional and TimeDistributed (layers/wrappers.py) against TF.js goldens
(tests/golden/layers_recurrent.js → results/layers_recurrent.json), plus memory, config round
trips, merge modes, initial states and errors."""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
import pytest
from recurrent_golden import RESULTS, delta, js_input_values, mem, replay, scenarios

import tidytensor as tf
from python_spelling import python_spelling
from tensor_cleanup import release_rnn_tensors
from tidytensor.errors import TidyTensorError
from tidytensor.layers import core, models, recurrent, serialization, wrappers
from tidytensor.layers.engine.input_layer import input as tf_input
from tidytensor.layers.errors import LayersNotImplementedError, LayersValueError

W, R = wrappers, recurrent


def _discard(_: Any) -> None:
    """Drops a value (so a tidy returns nothing)."""


@pytest.mark.parametrize("name", scenarios(("bidi_", "td_")))
def test_golden(name: str) -> None:
    replay(name)


EAGER = {
    "bidirectional": lambda: W.bidirectional(layer=R.gru(units=2)),
    "timeDistributed": lambda: W.time_distributed(layer=core.dense(units=2)),
}


@pytest.mark.parametrize("name", sorted(EAGER))
def test_golden_eager_memory(name: str) -> None:
    expected = RESULTS["eager"][name]
    x = tf.tensor(js_input_values([2, 4, 3], 2), [2, 4, 3])
    layer = EAGER[name]()
    before = mem()
    y = layer.apply(x)
    assert delta(before) == expected["first"]
    before = mem()
    y2 = layer.apply(x)
    assert delta(before) == expected["second"]
    before = mem()
    tf.tidy(lambda: _discard(layer.apply(x)))
    assert delta(before) == expected["tidied"]
    before = mem()
    r = layer.dispose()
    assert [r.ref_count_after_dispose, r.num_disposed_variables] == expected["dispose"]
    assert delta(before) == expected["disposeDelta"]
    assert [y.shape] == expected["outShapes"]
    tf.dispose([y, y2])


def test_golden_errors() -> None:
    case = RESULTS["errors"]
    with pytest.raises(LayersValueError, match=re.escape(python_spelling(case["badMergeMode"]))):
        W.bidirectional(layer=R.lstm(units=2), merge_mode="max")
    with pytest.raises(LayersValueError, match=re.escape(python_spelling(case["tdRank2"]))):
        W.time_distributed(layer=core.dense(units=2)).apply(tf.zeros([2, 3]))
    with pytest.raises(LayersValueError, match=re.escape(python_spelling(case["bidiOddStates"]))):
        W.bidirectional(layer=R.gru(units=2)).apply(
            tf.zeros([1, 2, 2]), initial_state=[tf.zeros([1, 2])]
        )
    with pytest.raises(
        LayersNotImplementedError, match=re.escape(python_spelling(case["bidiWeights"]))
    ):
        W.bidirectional(layer=R.gru(units=2), weights=[tf.zeros([1])])
    with pytest.raises(LayersValueError, match="expects a Layer"):
        W.time_distributed(layer="dense")


@pytest.mark.parametrize("merge_mode", ["concat", "sum", "ave", "mul", None])
def test_merge_modes_match_the_two_directions(merge_mode: Any) -> None:
    """The merged output is the forward layer's output combined with the backward layer's
    (which runs ``go_backwards`` and is reversed back to time order)."""
    bi = W.bidirectional(layer=R.lstm(units=2, return_sequences=True), merge_mode=merge_mode)
    x = tf.tensor(np.random.default_rng(0).standard_normal([2, 4, 3]).astype("float32"))
    out = bi.apply(x)
    forward = bi.forward_layer.call(x)
    backward = tf.reverse(bi.backward_layer.call(x), 1)
    f, b = (
        np.asarray(forward.data_sync()).reshape(2, 4, 2),
        np.asarray(backward.data_sync()).reshape(2, 4, 2),
    )
    expected = {
        "concat": np.concatenate([f, b], -1),
        "sum": f + b,
        "ave": 0.5 * (f + b),
        "mul": f * b,
    }
    if merge_mode is None:
        np.testing.assert_allclose(out[0].data_sync(), f.reshape(-1), atol=1e-6)
        np.testing.assert_allclose(out[1].data_sync(), b.reshape(-1), atol=1e-6)
    else:
        np.testing.assert_allclose(out.data_sync(), expected[merge_mode].reshape(-1), atol=1e-6)


def test_bidirectional_initial_state_eager_and_symbolic() -> None:
    x = tf.ones([2, 3, 2])
    states = [tf.fill([2, 2], 0.5), tf.zeros([2, 2]), tf.fill([2, 2], -0.5), tf.zeros([2, 2])]
    bi = W.bidirectional(layer=R.lstm(units=2), merge_mode="concat")
    y0 = bi.apply(x)
    y = bi.apply(x, initial_state=states)
    assert y.shape == [2, 4]
    assert not np.allclose(y.data_sync(), y0.data_sync())
    xi = tf_input(shape=[3, 2])
    hs = [tf_input(shape=[2]) for _ in range(4)]
    bi2 = W.bidirectional(layer=R.lstm(units=2), merge_mode="sum")
    model = models.model(inputs=[xi, *hs], outputs=bi2.apply(xi, initial_state=hs))
    assert model.predict([x, *states]).shape == [2, 2]


def test_bidirectional_weights_and_trainable() -> None:
    bi = W.bidirectional(layer=R.gru(units=2, kernel_regularizer=None))
    bi.apply(tf.ones([1, 3, 2]))
    assert len(bi.get_weights()) == 6
    values = [tf.fill(w.shape, float(j)) for j, w in enumerate(bi.weights)]
    bi.set_weights(values)
    assert [float(w.read().data_sync()[0]) for w in bi.weights] == [0, 1, 2, 3, 4, 5]
    bi.trainable = False
    assert bi.trainable_weights == [] and len(bi.non_trainable_weights) == 6
    assert not bi.forward_layer.trainable and not bi.backward_layer.trainable


@pytest.mark.parametrize(
    "make",
    [
        lambda: W.bidirectional(layer=R.lstm(units=2, return_sequences=True), merge_mode="ave"),
        lambda: W.bidirectional(layer=R.gru(units=3), merge_mode=None),
        lambda: W.time_distributed(layer=core.dense(units=3, activation="relu")),
    ],
    ids=["bidi_ave", "bidi_none", "td_dense"],
)
def test_config_round_trip(make: Any) -> None:
    layer = make()
    for _ in range(2):
        config = json.loads(json.dumps(serialization.serialize(layer)))
        copy = serialization.deserialize(config)
        assert type(copy) is type(layer)
        assert json.loads(json.dumps(copy.get_config())) == config["config"]
        layer.apply(tf.zeros([1, 4, 2]))


def test_time_distributed_per_step_path_for_other_layers() -> None:
    """A layer that is not row-wise runs once per step (TF.js's loop), e.g. an inner RNN over
    a 4-D input."""
    td = W.time_distributed(layer=R.simple_rnn(units=2))
    y = td.apply(tf.ones([2, 3, 4, 5]))
    assert y.shape == [2, 3, 2]
    step = td.layer.call(tf.ones([2, 4, 5]))
    np.testing.assert_allclose(
        np.asarray(y.data_sync()).reshape(2, 3, 2)[:, 1],
        np.asarray(step.data_sync()).reshape(2, 2),
        atol=1e-6,
    )


def test_no_leaks_training_through_wrappers() -> None:
    x_in = tf_input(shape=[4, 3])
    h = W.bidirectional(layer=R.lstm(units=3, return_sequences=True)).apply(x_in)
    y = W.time_distributed(layer=core.dense(units=2)).apply(h)
    model = models.model(inputs=x_in, outputs=y)
    model.compile(optimizer="sgd", loss="meanSquaredError")
    x, target = tf.ones([2, 4, 3]), tf.zeros([2, 4, 2])
    model.train_on_batch(x, target)
    before = mem()
    for _ in range(3):
        model.train_on_batch(x, target)
    tf.tidy(lambda: _discard(model.predict(x)))
    assert delta(before) == [0, 0]
    release_rnn_tensors(model)
    model.dispose()


def test_bad_inputs() -> None:
    with pytest.raises(TidyTensorError, match="expected ndim=3"):
        W.bidirectional(layer=R.lstm(units=2)).apply(tf.zeros([2, 3]))
