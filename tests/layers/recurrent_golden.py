"""Replays tests/golden/results/layers_recurrent.json (written by
tests/golden/layers_recurrent.js from TF.js 4.22) with tidytensor. Shared by
tests/layers/test_recurrent.py, test_wrappers.py and test_convolutional_recurrent.py.

A scenario builds the same model as the JS script (a Sequential from layer specs, or a
functional model from the builder of the same name below), sets the same weights and must
give TF.js's layer and weight names, ``get_config()``, summary, ``count_params``, predict
outputs (1e-5) and memory deltas, the gradients of ``sum_outputs mean((y - target)^2)``
(weights and float inputs) and the weights after one SGD ``train_on_batch`` step.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

import tidytensor as tf
import tidytensor.layers as layers
from tensor_cleanup import release_rnn_tensors
from tidytensor.layers import convolutional_recurrent, models, recurrent, wrappers
from tidytensor.layers.engine.input_layer import input as tf_input
from tidytensor.naming import snake_case

RESULTS = json.loads(
    (
        Path(__file__).resolve().parents[1] / "golden" / "results" / "layers_recurrent.json"
    ).read_text()
)["scenarios"]
ATOL = RTOL = 1e-5
GRAD_ATOL, GRAD_RTOL = 2e-5, 1e-4

_MODULES = (layers, recurrent, wrappers, convolutional_recurrent)


def scenarios(prefixes: tuple[str, ...], kinds: tuple[str, ...] = ("seq", "fn")) -> list[str]:
    return sorted(k for k, v in RESULTS.items() if v["kind"] in kinds and k.startswith(prefixes))


# ------------------------------------------------------------------ building
def factory(name: str) -> Any:
    snake = snake_case(name)
    for module in _MODULES:
        fn = getattr(module, snake, None)
        if fn is not None:
            return fn
    raise AttributeError(f"no tf.layers.{snake}")


def resolve(v: Any) -> Any:
    if isinstance(v, list):
        return [resolve(x) for x in v]
    if isinstance(v, dict) and "$layer" in v:
        return make_layer(v["$layer"])
    return v


def make_layer(spec: dict[str, Any]) -> Any:
    args = {snake_case(k): resolve(v) for k, v in (spec.get("args") or {}).items()}
    return factory(spec["factory"])(**args)


def _fn(x: Any, outs: Any) -> Any:
    return models.model(inputs=x, outputs=outs)


def _lstm_return_state() -> Any:
    x = tf_input(shape=[4, 2])
    return _fn(x, recurrent.lstm(units=3, return_sequences=True, return_state=True).apply(x))


def _gru_return_state() -> Any:
    x = tf_input(shape=[4, 2])
    return _fn(x, recurrent.gru(units=3, return_state=True, go_backwards=True).apply(x))


def _srnn_return_state_masking() -> Any:
    x = tf_input(shape=[4, 2])
    m = layers.masking().apply(x)
    return _fn(x, recurrent.simple_rnn(units=2, return_state=True, return_sequences=True).apply(m))


def _lstm_initial_state() -> Any:
    x = tf_input(shape=[4, 2])
    h0 = tf_input(shape=[3])
    c0 = tf_input(shape=[3])
    y = recurrent.lstm(units=3, return_sequences=True).apply(x, initial_state=[h0, c0])
    return _fn([x, h0, c0], y)


def _gru_initial_state() -> Any:
    x = tf_input(shape=[3, 2])
    h0 = tf_input(shape=[2])
    y = recurrent.gru(units=2).apply(x, {"initialState": h0})
    return _fn([x, h0], y)


def _bidi_null_merge() -> Any:
    x = tf_input(shape=[4, 2])
    bi = wrappers.bidirectional(
        layer=recurrent.lstm(units=2, return_sequences=True), merge_mode=None
    )
    return _fn(x, bi.apply(x))


def _bidi_return_state() -> Any:
    x = tf_input(shape=[3, 2])
    return _fn(x, wrappers.bidirectional(layer=recurrent.lstm(units=2, return_state=True)).apply(x))


def _convlstm_return_state() -> Any:
    x = tf_input(shape=[2, 4, 4, 1])
    conv = convolutional_recurrent.conv_lstm2d(filters=2, kernel_size=2, return_state=True)
    return _fn(x, conv.apply(x))


BUILDERS = {
    "lstm_return_state": _lstm_return_state,
    "gru_return_state": _gru_return_state,
    "srnn_return_state_masking": _srnn_return_state_masking,
    "lstm_initial_state": _lstm_initial_state,
    "gru_initial_state": _gru_initial_state,
    "bidi_null_merge": _bidi_null_merge,
    "bidi_return_state": _bidi_return_state,
    "convlstm_return_state": _convlstm_return_state,
}


def build(name: str) -> tuple[Any, list[dict[str, Any]]]:
    case = RESULTS[name]
    if case["kind"] == "seq":
        spec = case["spec"]
        return models.sequential([make_layer(s) for s in spec["layers"]]), spec["xs"]
    return BUILDERS[name](), case["xsSpec"]


# ------------------------------------------------------------------ checking
def mem() -> tuple[int, int]:
    m = tf.memory()
    return m.num_tensors, m.num_data_buffers


def delta(before: tuple[int, int]) -> list[int]:
    now = mem()
    return [now[0] - before[0], now[1] - before[1]]


def as_list(x: Any) -> list[Any]:
    return list(x) if isinstance(x, (list, tuple)) else [x]


def assert_values(actual: Any, expected: list[float], what: str, atol=ATOL, rtol=RTOL) -> None:
    np.testing.assert_allclose(
        np.asarray(actual.data_sync(), dtype=np.float64).reshape(-1),
        np.asarray(expected, dtype=np.float64),
        atol=atol,
        rtol=rtol,
        err_msg=what,
    )


def assert_tensor(actual: Any, expected: dict[str, Any], what: str) -> None:
    assert actual.shape == expected["shape"], f"{what}: shape {actual.shape} != {expected['shape']}"
    assert actual.dtype == expected["dtype"], what
    assert_values(actual, expected["values"], what)


def _js_round(x: float) -> float:
    """JavaScript's ``Math.round`` (halves go up)."""
    return float(np.floor(x + 0.5))


def js_values(n: int, seed: int) -> list[float]:
    """The JS script's ``values(n, seed)``."""
    return [_js_round(float(np.sin(0.7 * i + 1.3 * seed + 0.1)) * 6000) / 10000 for i in range(n)]


def js_input_values(shape: list[int], seed: int) -> list[float]:
    """The JS script's ``inputValues(shape, seed)``."""
    return [_js_round(v * 3.3 * 1000) / 1000 for v in js_values(int(np.prod(shape)), seed + 17)]


def set_js_weights(model: Any) -> None:
    """The JS script's ``setDeterministicWeights``: ``values(size, j)`` for the j-th weight
    (the given tensors are disposed, so the weights own their buffers)."""
    tensors = [
        tf.tensor(js_values(int(np.prod(w.shape)), j), w.shape) for j, w in enumerate(model.weights)
    ]
    model.set_weights(tensors)
    tf.dispose(tensors)


def set_given_weights(model: Any, given: list[list[float]]) -> None:
    tensors = [tf.tensor(v, w.shape) for v, w in zip(given, model.weights, strict=True)]
    model.set_weights(tensors)
    tf.dispose(tensors)


def inputs_of(case: dict[str, Any], specs: list[dict[str, Any]]) -> list[Any]:
    return [
        tf.tensor(vals, spec["shape"], spec.get("dtype", "float32"))
        for vals, spec in zip(case["xs"], specs, strict=True)
    ]


def json_config(layer: Any) -> dict[str, Any]:
    return json.loads(json.dumps(layer.get_config()))


def replay(name: str) -> None:
    """Checks one scenario end to end against TF.js."""
    case = RESULTS[name]
    model, specs = build(name)
    assert [layer.name for layer in model.layers] == case["layerNames"]
    assert [
        {
            "name": w.name,
            "originalName": w.original_name,
            "shape": w.shape,
            "trainable": w.trainable,
        }
        for w in model.weights
    ] == case["weights"]
    set_given_weights(model, case["givenWeights"])
    for layer, expected in zip(model.layers, case["layerConfigs"], strict=True):
        assert layer.get_class_name() == expected["className"], layer.name
        assert json_config(layer) == expected["config"], layer.name
    lines: list[str] = []
    model.summary(print_fn=lines.append)
    assert lines == case["summary"]
    assert model.count_params() == case["countParams"]

    xs = inputs_of(case, specs)
    feed = xs[0] if len(xs) == 1 else xs
    before = mem()
    y = model.predict(feed)
    assert delta(before) == case["predictDelta"], "predict delta"
    expected_y = case["y"] if isinstance(case["y"], list) else [case["y"]]
    for k, (got, exp) in enumerate(zip(as_list(y), expected_y, strict=True)):
        assert_tensor(got, exp, f"{name} output {k}")
    before = mem()
    y2 = model.predict(feed)
    assert delta(before) == case["predictDelta2"], "second predict delta"
    before = mem()
    tf.tidy(lambda: _discard(model.predict(feed)))
    assert delta(before) == case["tidyPredictDelta"], "tidy predict delta"
    tf.dispose([y, y2])

    targets = [
        tf.tensor(js_values(int(np.prod(e["shape"])), 50 + j), e["shape"])
        for j, e in enumerate(expected_y)
    ]

    def loss_of(ys: Any) -> Any:
        return tf.add_n(
            [tf.mean(tf.square(tf.sub(yy, targets[j]))) for j, yy in enumerate(as_list(ys))]
        )

    if "grads" in case:
        variables = [w.read() for w in model.trainable_weights]
        result = tf.variable_grads(lambda: loss_of(model.apply(feed, training=True)), variables)
        assert_values(result.value, [case["loss"]], f"{name} loss")
        for v, expected, w in zip(variables, case["grads"], model.trainable_weights, strict=True):
            assert_values(
                result.grads[v.name], expected, f"{name} grad {w.name}", GRAD_ATOL, GRAD_RTOL
            )
        tf.dispose([result.value, *result.grads.values()])
        float_idx = [j for j, x in enumerate(xs) if x.dtype == "float32"]

        def f(*args: Any) -> Any:
            all_xs = list(xs)
            for j, a in zip(float_idx, args, strict=True):
                all_xs[j] = a
            return loss_of(model.apply(all_xs[0] if len(all_xs) == 1 else all_xs, training=True))

        if "inputGrads" in case:
            dxs = tf.grads(f)([xs[j] for j in float_idx])
            for got, expected in zip(dxs, case["inputGrads"], strict=True):
                assert_values(got, expected["values"], f"{name} input grad", GRAD_ATOL, GRAD_RTOL)
            tf.dispose(dxs)
        elif "inputGradsError" in case:
            # The input reaches the loss through Masking's comparison too, which has no
            # gradient in TF.js (nor here).
            import pytest

            with pytest.raises(
                tf.errors.TidyTensorError, match="gradient function not found for Any"
            ):
                tf.grads(f)([xs[j] for j in float_idx])

    optimizer = None
    if "trainedWeights" in case:
        optimizer = tf.train.sgd(0.5)  # the model does not own (dispose) a given optimizer
        model.compile(optimizer=optimizer, loss="meanSquaredError")
        loss = model.train_on_batch(feed, targets[0] if len(targets) == 1 else targets)
        assert_values(
            tf.tensor(as_list(loss)[:1]), [as_list(case["trainLoss"])[0]], f"{name} train loss"
        )
        for w, expected in zip(model.get_weights(), case["trainedWeights"], strict=True):
            assert_values(w, expected, f"{name} weight after train_on_batch")
    tf.dispose(targets)
    tf.dispose(xs)
    release_rnn_tensors(model)
    model.dispose()
    if optimizer is not None:
        optimizer.dispose()


def _discard(_: Any) -> None:
    """Drops a value (so a tidy returns nothing)."""
