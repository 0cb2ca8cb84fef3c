"""Recurrent layers (layers/recurrent.py) against TF.js goldens (tests/golden/layers_recurrent.js
→ results/layers_recurrent.json), plus the fused kernels against TF.js's per-step ops,
gradient checks, memory (no leaks; dropout masks and stateful states kept as TF.js keeps
them), config round trips, errors and examples/rnn_training.py."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from recurrent_golden import (
    RESULTS,
    delta,
    js_input_values,
    js_values,
    mem,
    replay,
    scenarios,
    set_js_weights,
)

import tidytensor as tf
from python_spelling import python_spelling
from tensor_cleanup import release_rnn_tensors
from tidytensor.errors import TidyTensorError
from tidytensor.kernel_names import recurrent as kr
from tidytensor.layers import (
    core,
    models,
    recurrent,
    recurrent_cells,
    regularizers,
    serialization,
)
from tidytensor.layers.engine import state
from tidytensor.layers.engine.input_layer import input as tf_input
from tidytensor.layers.errors import LayersAttributeError, LayersValueError
from tidytensor.ops.recurrent import SEQUENCE_OPS

R = recurrent
ROOT = Path(__file__).resolve().parents[2]


def _discard(_: Any) -> None:
    """Drops a value (so a tidy returns nothing)."""


def _as_list(x: Any) -> list[Any]:
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _random(shape: list[int], seed: int, scale: float = 0.5) -> Any:
    rng = np.random.default_rng(seed)
    return tf.tensor(rng.standard_normal(shape).astype("float32") * scale)


def _close(a: Any, b: Any, atol: float = 1e-5) -> None:
    a_list, b_list = _as_list(a), _as_list(b)
    assert len(a_list) == len(b_list)
    for x, y in zip(a_list, b_list, strict=True):
        assert x.shape == y.shape
        np.testing.assert_allclose(x.data_sync(), y.data_sync(), atol=atol, rtol=1e-5)


# ---------------------------------------------------------------- TF.js goldens
@pytest.mark.parametrize("name", scenarios(("srnn_", "gru_", "lstm_", "rnn_")))
def test_golden(name: str) -> None:
    replay(name)


def test_golden_stateful() -> None:
    case = RESULTS["stateful"]
    model = models.sequential([R.lstm(units=2, stateful=True, batch_input_shape=[2, 3, 2])])
    set_js_weights(model)
    layer = model.layers[0]
    for got, exp in zip(layer.states, case["initialStates"], strict=True):
        np.testing.assert_allclose(got.data_sync(), exp["values"])
    x = tf.tensor(case["x"], [2, 3, 2])
    for key, delta_key in (("y1", "delta1"), ("y2", "delta2")):
        before = mem()
        y = model.predict(x)
        assert delta(before) == case[delta_key], key
        np.testing.assert_allclose(y.data_sync(), case[key]["values"], atol=1e-5, rtol=1e-5)
    for got, exp in zip(layer.states, case["statesAfter"], strict=True):
        np.testing.assert_allclose(got.data_sync(), exp["values"], atol=1e-5, rtol=1e-5)
    before = mem()
    model.reset_states()
    assert delta(before) == case["resetDelta"]
    np.testing.assert_allclose(model.predict(x).data_sync(), case["y3"]["values"], atol=1e-5)
    h = tf.tensor(js_values(4, 9), [2, 2])
    c = tf.tensor(js_values(4, 10), [2, 2])
    layer.reset_states([h, c])
    np.testing.assert_allclose(model.predict(x).data_sync(), case["y4"]["values"], atol=1e-5)
    assert case["resetWrongCount"].startswith(
        "Layer lstm_LSTM1 expects 2 state(s), but it received 1"
    )
    with pytest.raises(LayersValueError, match=re.escape("expects 2 state(s), but it received 1")):
        layer.reset_states([h])
    with pytest.raises(LayersValueError, match=re.escape(python_spelling(case["resetWrongShape"]))):
        layer.reset_states([tf.zeros([3, 2]), tf.zeros([2, 2])])
    srnn = models.sequential(
        [R.simple_rnn(units=2, stateful=True, batch_input_shape=[2, 3, 2], return_sequences=True)]
    )
    set_js_weights(srnn)
    for key in ("srnnY1", "srnnY2"):
        np.testing.assert_allclose(srnn.predict(x).data_sync(), case[key]["values"], atol=1e-5)
    release_rnn_tensors(model, srnn)


def test_golden_stateful_training_keeps_old_states() -> None:
    """``train_on_batch`` on a stateful RNN keeps the previous states alive (TF.js keeps them
    for backprop through time) until ``reset_states()``: +1 tensor per step, then -2."""
    case = RESULTS["stateful_training"]
    model = models.sequential(
        [R.simple_rnn(units=2, stateful=True, batch_input_shape=[2, 3, 2]), core.dense(units=1)]
    )
    set_js_weights(model)
    optimizer = tf.train.sgd(0.1)
    model.compile(optimizer=optimizer, loss="meanSquaredError")
    x = tf.tensor(js_input_values([2, 3, 2], 1), [2, 3, 2])
    y = tf.tensor([[0.5], [-0.5]])
    for loss_key, delta_key in (("loss1", "delta1"), ("loss2", "delta2")):
        before = mem()
        loss = model.train_on_batch(x, y)
        assert delta(before) == case[delta_key]
        np.testing.assert_allclose(loss, case[loss_key], rtol=1e-5)
    before = mem()
    model.reset_states()
    assert delta(before) == case["resetDelta"]
    for w, expected in zip(model.get_weights(), case["weights"], strict=True):
        np.testing.assert_allclose(w.data_sync(), expected, atol=1e-5, rtol=1e-5)
    release_rnn_tensors(model)
    optimizer.dispose()


EAGER = {
    "simpleRNN": lambda: R.simple_rnn(units=2),
    "gru": lambda: R.gru(units=2, return_sequences=True),
    "lstm": lambda: R.lstm(units=2, return_state=True),
    "lstmDropout": lambda: R.lstm(units=2, dropout=0.5),
    "gruRecurrentDropout": lambda: R.gru(units=2, recurrent_dropout=0.5),
    "rnnCellDropout": lambda: R.rnn(cell=R.lstm_cell(units=2, dropout=0.5)),
}


@pytest.mark.parametrize("name", sorted(EAGER))
def test_golden_eager_memory(name: str) -> None:
    """``apply`` outside a model: tensor counts of the first call (weights, kept dropout
    masks), later calls, calls inside tidy, and dispose, as in TF.js."""
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
    assert [t.shape for t in _as_list(y)] == expected["outShapes"]
    tf.dispose([y, y2])
    release_rnn_tensors(layer)


def test_golden_mask_call_argument() -> None:
    case = RESULTS["mask_kwarg"]
    layer = R.gru(units=2, return_sequences=True)
    x = tf.tensor(case["x"], [2, 3, 2])
    layer.apply(x)
    layer.set_weights(
        [tf.tensor(v, w.shape) for v, w in zip(case["weights"], layer.weights, strict=True)]
    )
    y = layer.apply(x, mask=tf.tensor2d([[1, 0, 1], [0.5, 1, 0]]))
    np.testing.assert_allclose(y.data_sync(), case["y"]["values"], atol=1e-5)
    mask = tf.tensor2d([[True, False, True], [True, True, False]], [2, 3], "bool")
    yb = layer.apply(x, {"mask": mask})
    np.testing.assert_allclose(yb.data_sync(), case["yBool"]["values"], atol=1e-5)


def test_golden_errors() -> None:
    case = RESULTS["errors"]
    with pytest.raises(TidyTensorError, match=re.escape(python_spelling(case["rank2"]))):
        R.lstm(units=2).apply(tf.zeros([2, 3]))
    with pytest.raises(TidyTensorError, match=re.escape(python_spelling(case["unitsZero"]))):
        R.simple_rnn(units=0)
    # TF.js refuses reset_after; tidytensor runs it as Keras does (test_keras_layer_variants.py).
    assert case["resetAfter"] == "GRUCell does not support reset_after parameter set to true."
    assert R.gru(units=2, reset_after=True).cell.reset_after is True
    with pytest.raises(LayersValueError, match=re.escape(python_spelling(case["noCell"]))):
        R.rnn(cell=None)
    layer = R.lstm(units=2)
    layer.apply(tf.zeros([1, 2, 2]))
    with pytest.raises(
        LayersAttributeError, match=re.escape(python_spelling(case["resetNotStateful"]))
    ):
        layer.reset_states()
    assert case["statefulNoBatch"] is None  # the eager input's batch size is used
    stateful = R.lstm(units=2, stateful=True)
    stateful.apply(tf.zeros([1, 2, 2])).dispose()
    release_rnn_tensors(stateful)
    assert case["wrongStateCount"].startswith("An initialState was passed that is not compatible")
    with pytest.raises(
        LayersValueError, match="An initial_state was passed that is not compatible"
    ):
        R.lstm(units=2).apply(tf.zeros([1, 2, 2]), initial_state=[tf.zeros([1, 2])])
    layer = R.lstm(units=2, input_shape=[3, 2])
    layer.apply(tf.zeros([1, 3, 2]))
    wrong_features = re.escape(python_spelling(case["wrongFeatures"])).replace("LSTM6", r"LSTM\d+")
    with pytest.raises(TidyTensorError, match=wrong_features):
        layer.apply(tf.zeros([1, 3, 4]))


# ---------------------------------------------- fused kernels vs TF.js's per-step ops
FUSED_CASES = {
    "lstm": lambda: R.lstm(units=3, return_sequences=True),
    "lstm_back_last": lambda: R.lstm(units=3, go_backwards=True),
    "lstm_relu_sigmoid": lambda: R.lstm(
        units=2, activation="relu", recurrent_activation="sigmoid", return_state=True
    ),
    "lstm_tanh_nobias": lambda: R.lstm(
        units=2, recurrent_activation="tanh", use_bias=False, return_sequences=True
    ),
    "gru": lambda: R.gru(units=3, return_sequences=True, go_backwards=True),
    "gru_hard_sigmoid_both": lambda: R.gru(units=3, activation="hardSigmoid", return_state=True),
    "gru_relu_linear_nobias": lambda: R.gru(
        units=2, activation="relu", recurrent_activation=None, use_bias=False
    ),
    "simple": lambda: R.simple_rnn(units=3, return_sequences=True),
    "simple_hard_sigmoid_back": lambda: R.simple_rnn(
        units=3, activation="hardSigmoid", go_backwards=True
    ),
    "simple_relu_state": lambda: R.simple_rnn(
        units=2, activation="relu", return_state=True, return_sequences=True
    ),
    "rnn_lstm_cell": lambda: R.rnn(cell=R.lstm_cell(units=2), return_sequences=True),
}


def _outputs_and_grads(layer: Any, x: Any, kw: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    outs = _as_list(layer.apply(x, **kw))
    weights = [_random(o.shape, 7 + j) for j, o in enumerate(outs)]

    def loss_of(xx: Any) -> Any:
        ys = _as_list(layer.apply(xx, training=True, **kw))
        return tf.add_n([tf.sum(tf.mul(y, w)) for y, w in zip(ys, weights, strict=True)])

    variables = [w.read() for w in layer.trainable_weights]
    result = tf.variable_grads(lambda: loss_of(x), variables)
    dx = tf.grad(loss_of)(x)
    return outs, [result.value, *(result.grads[v.name] for v in variables), dx]


@pytest.mark.parametrize("masked", [False, True], ids=["unmasked", "masked"])
@pytest.mark.parametrize("name", sorted(FUSED_CASES))
def test_fused_matches_per_step_ops(
    name: str, masked: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fused kernel and TF.js's per-step ops give the same outputs and gradients."""
    x = _random([3, 4, 2], 1)
    kw = {"mask": tf.tensor2d([[1, 0, 1, 1], [1, 1, 1, 0], [0, 1, 0, 1]])} if masked else {}
    results = []
    for fused in (True, False):
        state._reset_for_tests()
        with monkeypatch.context() as m:
            if not fused:
                m.setattr(recurrent, "_fused_kind", lambda *args: None)
            layer = FUSED_CASES[name]()
            layer.apply(x)
            layer.set_weights([_random(w.shape, 10 + j) for j, w in enumerate(layer.weights)])
            profile = tf.profile(lambda layer=layer: _discard(layer.apply(x, **kw)))
            uses_kernel = any(k.name.startswith("Tidy") for k in profile.kernels)
            assert uses_kernel == fused
            results.append(_outputs_and_grads(layer, x, kw))
            layer.dispose()
    (out_f, grads_f), (out_s, grads_s) = results
    _close(out_f, out_s)
    _close(grads_f, grads_s, atol=2e-5)


@pytest.mark.parametrize("kind", ["lstm", "gru", "simple"])
def test_fused_dropout_matches_per_step_ops(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Training with dropout and recurrent dropout: a ``dropout_func`` makes TF.js's per-step
    path run; the same masks given to the fused path give the same values and gradients."""
    x = _random([2, 4, 2], 3)

    def fixed(ones: Any, rate: float) -> Any:
        keep = tf.cast(tf.greater(_random(ones.shape, 99, 1.0), -0.3), "float32")
        return tf.mul(ones, tf.div(keep, 1 - rate))

    make = {"lstm": R.lstm, "gru": R.gru, "simple": R.simple_rnn}[kind]
    original = recurrent_cells.generate_dropout_mask
    results = []
    for per_step in (True, False):
        state._reset_for_tests()
        with monkeypatch.context() as m:
            if not per_step:

                def masks(ones, rate, training=False, count=1, dropout_func=None):
                    return original(ones, rate, training, count, fixed)

                m.setattr(recurrent_cells, "generate_dropout_mask", masks)
            layer = make(
                units=3,
                return_sequences=True,
                dropout=0.3,
                recurrent_dropout=0.4,
                dropout_func=fixed if per_step else None,
            )
            layer.apply(x)
            layer.set_weights([_random(w.shape, 20 + j) for j, w in enumerate(layer.weights)])
            variables = [w.read() for w in layer.trainable_weights]
            result = tf.variable_grads(
                lambda layer=layer: tf.sum(tf.square(layer.apply(x, training=True))), variables
            )
            results.append([result.value, *(result.grads[v.name] for v in variables)])
            release_rnn_tensors(layer)
            layer.dispose()
    _close(results[0], results[1], atol=2e-5)


GRAD_CHECK = {
    "lstm": (kr.LSTM_SEQUENCE, 4, 2, {"activation": "tanh", "recurrent_activation": "hardSigmoid"}),
    "lstm_sigmoid_back": (
        kr.LSTM_SEQUENCE,
        4,
        2,
        {"activation": "relu", "recurrent_activation": "sigmoid", "go_backwards": True},
    ),
    "gru": (kr.GRU_SEQUENCE, 3, 1, {"activation": "tanh", "recurrent_activation": "hardSigmoid"}),
    "gru_masked": (
        kr.GRU_SEQUENCE,
        3,
        1,
        {"activation": "sigmoid", "recurrent_activation": "tanh", "has_mask": True},
    ),
    "simple": (kr.SIMPLE_RNN_SEQUENCE, 1, 1, {"activation": "tanh"}),
    "simple_rec_mask": (
        kr.SIMPLE_RNN_SEQUENCE,
        1,
        1,
        {"activation": "sigmoid", "has_rec_mask": True},
    ),
}


@pytest.mark.parametrize("name", sorted(GRAD_CHECK))
def test_fused_kernel_gradient_check(name: str) -> None:
    """``tf.testing.check_grads`` on the fused kernels: every input, every output."""
    kernel, gates, num_states, extra = GRAD_CHECK[name]
    batch, steps, dim, units = 2, 3, 2, 2
    attrs = {
        "go_backwards": False,
        "return_sequences": True,
        "has_bias": True,
        "has_rec_mask": False,
        "has_mask": False,
        **extra,
    }
    args = [
        _random([batch, steps, dim], 1),
        _random([dim, gates * units], 2),
        _random([units, gates * units], 3),
        *(_random([batch, units], 4 + k) for k in range(num_states)),
        _random([gates * units], 7),
    ]
    if attrs["has_rec_mask"]:
        args.append(tf.tensor([[1.5, 0], [1.5, 1.5]]))
    if attrs["has_mask"]:
        args.append(tf.tensor([[1, 0, 1], [1, 1, 0]]))
    op = SEQUENCE_OPS[kernel]

    def f(*inputs: Any) -> Any:
        outs = op(tuple(inputs), dict(attrs))
        return tf.concat([tf.reshape(o, [-1]) for o in outs[:-1]], 0)

    tf.testing.check_grads(f, args, eps=1e-3)


def test_fused_layer_is_one_tape_node() -> None:
    """An LSTM layer's forward is one kernel and its backward one more."""
    layer = R.lstm(units=4)
    x = _random([2, 6, 3], 2)
    layer.apply(x)
    variables = [w.read() for w in layer.weights]
    profile = tf.profile(
        lambda: _discard(tf.variable_grads(lambda: tf.sum(layer.apply(x)), variables))
    )
    names = [k.name for k in profile.kernels]
    assert names.count(kr.LSTM_SEQUENCE) == 1
    assert names.count(kr.LSTM_SEQUENCE_GRAD) == 1
    assert not {"MatMul", "_FusedMatMul", "Sigmoid", "Tanh"} & set(names)


# ------------------------------------------------------------------ memory
LEAK_CASES = {
    "simple": lambda: R.simple_rnn(units=3),
    "gru_seq_back": lambda: R.gru(units=3, return_sequences=True, go_backwards=True),
    "lstm_state": lambda: R.lstm(units=3, return_state=True),
    "lstm_dropout": lambda: R.lstm(units=3, dropout=0.2, recurrent_dropout=0.2),
    "stacked_cells": lambda: R.rnn(cell=[R.gru_cell(units=2), R.simple_rnn_cell(units=2)]),
    "lstm_elu": lambda: R.lstm(units=2, activation="elu"),
}


@pytest.mark.parametrize("name", sorted(LEAK_CASES))
def test_no_leaks_in_tidy_and_training(name: str) -> None:
    x_in = tf_input(shape=[5, 3])
    model = models.model(inputs=x_in, outputs=LEAK_CASES[name]().apply(x_in))
    x = _random([4, 5, 3], 4)
    y = model.predict(x)
    targets = [tf.zeros(t.shape) for t in _as_list(y)]
    tf.dispose(y)
    before = mem()
    tf.tidy(lambda: _discard(model.predict(x)))
    assert delta(before) == [0, 0]
    model.compile(optimizer="adam", loss="meanSquaredError")
    target = targets[0] if len(targets) == 1 else targets
    model.train_on_batch(x, target)
    before = mem()
    for _ in range(3):
        model.train_on_batch(x, target)
    assert delta(before) == [0, 0]
    release_rnn_tensors(model)


def test_dropout_masks_kept_until_next_call() -> None:
    """As in TF.js, a layer with dropout keeps its cell's masks (4 of each kind for an
    LSTM) after a call and frees them at the next one."""
    layer = R.lstm(units=2, dropout=0.5, recurrent_dropout=0.5)
    x = tf.ones([2, 3, 2])
    layer.apply(x).dispose()
    assert len(layer.cell.dropout_mask) == 4
    assert len(layer.cell.recurrent_dropout_mask) == 4
    masks = list(layer.cell.dropout_mask)
    before = mem()
    layer.apply(x).dispose()
    assert delta(before) == [0, 0]
    assert all(m.is_disposed for m in masks)
    y_train = layer.apply(x, training=True)
    y_infer = layer.apply(x)
    assert not np.allclose(y_train.data_sync(), y_infer.data_sync())
    release_rnn_tensors(layer)


# ------------------------------------------------------------- configs, API
ROUND_TRIP = {
    "simple": lambda: R.simple_rnn(units=3, activation="relu", dropout=0.1, input_shape=[4, 2]),
    "gru": lambda: R.gru(
        units=2, recurrent_activation="sigmoid", implementation=2, go_backwards=True
    ),
    "lstm": lambda: R.lstm(units=4, unit_forget_bias=True, return_state=True),
    "rnn_cell": lambda: R.rnn(cell=R.lstm_cell(units=2), return_sequences=True),
    "rnn_cells": lambda: R.rnn(cell=[R.simple_rnn_cell(units=2), R.gru_cell(units=3)]),
    "rnn_stacked": lambda: R.rnn(cell=R.stacked_rnn_cells(cells=[R.lstm_cell(units=2)])),
}


@pytest.mark.parametrize("name", sorted(ROUND_TRIP))
def test_config_round_trip(name: str) -> None:
    layer = ROUND_TRIP[name]()
    for built in (False, True):
        config = json.loads(json.dumps(serialization.serialize(layer)))
        copy = serialization.deserialize(config)
        assert type(copy) is type(layer), built
        assert json.loads(json.dumps(copy.get_config())) == config["config"]
        layer.apply(tf.zeros([1, 4, 2]))
    release_rnn_tensors(layer)


def test_cells_standalone() -> None:
    cell = R.lstm_cell(units=2)
    cell.build([None, 3])
    x, h, c = tf.ones([1, 3]), tf.zeros([1, 2]), tf.zeros([1, 2])
    assert [t.shape for t in cell.call([x, h, c])] == [[1, 2], [1, 2], [1, 2]]
    assert cell.state_size == [2, 2]
    stacked = R.stacked_rnn_cells(cells=[R.gru_cell(units=2), R.lstm_cell(units=3)])
    assert stacked.state_size == [3, 3, 2]
    with pytest.raises(LayersValueError, match="LSTMCell expects 3 input Tensors"):
        cell.call([x, h])


def test_unit_forget_bias_initializes_forget_gate_to_one() -> None:
    layer = R.lstm(units=2, unit_forget_bias=True)
    layer.apply(tf.ones([1, 2, 3]))
    np.testing.assert_array_equal(layer.cell.bias.read().data_sync(), [0, 0, 1, 1, 0, 0, 0, 0])


def test_layer_attributes_and_trainable() -> None:
    layer = R.lstm(units=5, dropout=0.25)
    assert layer.units == 5 and layer.dropout == 0.25
    assert layer.recurrent_activation.get_class_name() == "hardSigmoid"
    layer.apply(tf.ones([1, 2, 3]))
    assert [w.shape for w in layer.weights] == [[3, 20], [5, 20], [20]]
    layer.trainable = False
    assert layer.trainable_weights == [] and len(layer.non_trainable_weights) == 3
    release_rnn_tensors(layer)


def test_regularizer_losses_are_reported() -> None:
    """TF.js drops a recurrent cell's regularization losses (RNN.losses holds only the
    layer's own); here they count, as in Keras."""
    layer = R.gru(units=2, kernel_regularizer=regularizers.l2(l2=0.01))
    layer.apply(tf.ones([1, 2, 3]))
    assert len(layer.losses) == 1
    expected = 0.01 * float(tf.sum(tf.square(layer.cell.kernel.read())).data_sync()[0])
    np.testing.assert_allclose(layer.calculate_losses()[0].data_sync(), [expected], rtol=1e-5)


def test_symbolic_shapes_and_initial_state() -> None:
    x = tf_input(shape=[5, 3])
    outs = R.lstm(units=4, return_sequences=True, return_state=True).apply(x)
    assert [o.shape for o in outs] == [[None, 5, 4], [None, 4], [None, 4]]
    h0 = tf_input(shape=[4])
    model = models.model(inputs=[x, h0], outputs=R.gru(units=4).apply(x, initial_state=h0))
    assert model.predict([tf.ones([2, 5, 3]), tf.ones([2, 4])]).shape == [2, 4]


def test_bad_inputs() -> None:
    with pytest.raises(
        LayersValueError,
        match=re.escape("SimpleRNN got unexpected argument(s) 'unitz' (did you mean 'units'?)"),
    ):
        R.simple_rnn(units=2, unitz=3)
    with pytest.raises(LayersValueError, match="no time steps"):
        R.lstm(units=2).apply(tf.zeros([2, 0, 3]))
    with pytest.raises(TidyTensorError, match="Unknown activation"):
        R.gru(units=2, activation="nope")
    layer = R.lstm(units=2)
    layer.apply(tf.zeros([1, 3, 2]))
    with pytest.raises(
        LayersValueError, match=re.escape("RNN Layer has 2 state(s) but was passed 1")
    ):
        layer.apply(tf.zeros([1, 3, 2]), initial_state=[tf.zeros([1, 2])])


# ------------------------------------------------------------------ examples/rnn_training.py
def test_rnn_training_example_learns_and_explains_its_tensor_count() -> None:
    """examples/rnn_training.py (simple_rnn + sgd + compile + fit): the loss falls, the
    accuracy rises, and the tensor count it prints adds up and ends at 0."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "rnn_training.py")],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    epochs = re.findall(
        r"^epoch +\d+: loss ([\d.]+), accuracy ([\d.]+)$", result.stdout, flags=re.M
    )
    losses = [float(loss) for loss, _ in epochs]
    assert len(losses) == 15
    assert losses[-1] < losses[0] / 2
    assert sum(losses[-3:]) < sum(losses[:3]) / 2  # falls, not a lucky last epoch
    assert float(epochs[-1][1]) >= 0.8
    held_out = re.search(r"^accuracy on 32 new sequences: ([\d.]+)$", result.stdout, re.M)
    assert held_out and float(held_out.group(1)) >= 0.6  # chance is 0.25
    count = re.search(
        r"^tensors in memory: (\d+) = (\d+) weights of the model \+ 4 data tensors .*\+ (\d+) "
        r"held by the SGD optimizer",
        result.stdout,
        re.M,
    )
    assert count and int(count.group(1)) == int(count.group(2)) + 4 + int(count.group(3))
    assert "after disposing the data, the model and the optimizer: 0\n" in result.stdout
