"""The Layers API core against TF.js goldens (tests/golden/layers_core.js →
results/layers_core.json): each scenario is replayed step by step and must give the same
names, weights, summary lines, model JSON, predictions (1e-5), memory deltas, dispose results
and error messages."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tidytensor as tf
import tidytensor.layers as layers
from python_spelling import python_spelling
from tidytensor.layers import constraints, initializers, regularizers, serialization
from tidytensor.layers.engine.models import model as make_model
from tidytensor.layers.engine.models import sequential
from tidytensor.naming import snake_case

RESULTS = json.loads(
    (Path(__file__).parent.parent / "golden" / "results" / "layers_core.json").read_text()
)["scenarios"]
SEQ = sorted(k for k, v in RESULTS.items() if v["kind"] == "seq")


# ------------------------------------------------------------------ helpers
def resolve_arg(v: Any) -> Any:
    if isinstance(v, dict):
        for key, module in (("$init", initializers), ("$reg", regularizers), ("$con", constraints)):
            if key in v:
                factory, args = v[key][0], (v[key][1] if len(v[key]) > 1 else None) or {}
                return getattr(module, snake_case(factory))(**snake_args(args))
    return v


def snake_args(args: dict[str, Any]) -> dict[str, Any]:
    return {snake_case(k): resolve_arg(v) for k, v in args.items()}


def make_layer(spec: dict[str, Any]) -> layers.Layer:
    return getattr(layers, snake_case(spec["factory"]))(**snake_args(spec.get("args", {})))


def discard(_: Any) -> None:
    """Drops a value (so a tidy returns nothing)."""


def mem() -> tuple[int, int]:
    m = tf.memory()
    return m.num_tensors, m.num_data_buffers


def delta(before: tuple[int, int]) -> list[int]:
    now = mem()
    return [now[0] - before[0], now[1] - before[1]]


def lines_of(model: Any, *args: Any) -> list[str]:
    out: list[str] = []
    model.summary(*args, print_fn=out.append)
    return out


def weight_info(model: Any) -> list[dict[str, Any]]:
    return [
        {
            "name": w.name,
            "originalName": w.original_name,
            "shape": w.shape,
            "trainable": w.trainable,
        }
        for w in model.weights
    ]


def set_given_weights(model: Any, given: list[list[float]]) -> None:
    tensors = [tf.tensor(v, w.shape) for v, w in zip(given, model.weights, strict=False)]
    model.set_weights(tensors)
    tf.dispose(tensors)


def assert_close(got: Any, expected: Any, tol: float = 1e-5) -> None:
    if isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected)
        for g, e in zip(got, expected, strict=False):
            assert_close(g, e, tol)
        return
    assert got.shape == expected["shape"]
    assert got.dtype == expected["dtype"]
    np.testing.assert_allclose(
        np.asarray(got.data_sync(), dtype=np.float64),
        np.asarray(expected["values"], dtype=np.float64),
        rtol=tol,
        atol=tol,
    )


def check_error(fn: Any, tfjs_message: str, exact: bool = True) -> None:
    with pytest.raises(Exception) as info:
        fn()
    ours = str(info.value)
    tfjs_message = python_spelling(tfjs_message)
    if exact:
        assert ours == tfjs_message
    else:
        assert ours.startswith(tfjs_message), (ours, tfjs_message)


def py_names(message: str) -> str:
    """TF.js's message with its camelCase method names in Python spelling."""
    for js, py in (
        ("setWeights", "set_weights"),
        ("countParams", "count_params"),
        ("batchInputShape", "batch_input_shape"),
        ("inputShape", "input_shape"),
        ("batchShape", "batch_shape"),
    ):
        message = message.replace(js, py)
    return message


# ---------------------------------------------------------------- Sequential
@pytest.mark.parametrize("name", SEQ)
def test_sequential_scenario(name: str) -> None:
    g = RESULTS[name]
    spec = g["spec"]
    model = sequential([make_layer(s) for s in spec["layers"]])
    set_given_weights(model, g["givenWeights"])
    x = tf.tensor(g["x"], spec["x"])

    assert [layer.name for layer in model.layers] == g["layerNames"]
    assert model.name == g["modelName"]
    assert weight_info(model) == g["weights"]
    for got, want in zip(model.get_weights(), g["weightValues"], strict=False):
        np.testing.assert_allclose(got.data_sync(), want, rtol=1e-6, atol=1e-6)
    assert model.count_params() == g["countParams"]
    assert lines_of(model) == g["summary"]
    assert lines_of(model, 70, [0.4, 0.6, 0.85, 1]) == g["summaryNarrow"]
    assert model.to_json() == g["jsonString"]
    assert model.to_json(return_string=False) == json.loads(g["jsonString"])

    before = mem()
    y = model.predict(x)
    assert delta(before) == g["predictDelta"] == [1, 1]
    assert_close(y, g["y"])
    before = mem()
    y2 = model.predict(x, batch_size=spec.get("batchSize", 2))
    assert delta(before) == g["predictBatchedDelta"]
    assert_close(y2, g["yBatched"])
    before = mem()
    tf.tidy(lambda: discard(model.predict(x)))
    assert delta(before) == g["tidyPredictDelta"] == [0, 0]
    before = mem()
    y3 = model.predict_on_batch(x)
    assert delta(before) == g["predictOnBatchDelta"]
    assert_close(y3, g["y"])
    tf.dispose([y, y2, y3])

    before = mem()
    r = model.dispose()
    assert [r.ref_count_after_dispose, r.num_disposed_variables] == g["dispose"]
    assert delta(before) == g["disposeDelta"]
    check_error(model.dispose, g["disposeAgainError"])
    x.dispose()


@pytest.mark.parametrize("name", SEQ)
def test_sequential_config_round_trip(name: str) -> None:
    """from_config(get_config()) rebuilds the same architecture: same JSON (names aside:
    the weights of the copy get unique-name suffixes) and the same predictions."""
    g = RESULTS[name]
    spec = g["spec"]
    model = sequential([make_layer(s) for s in spec["layers"]])
    set_given_weights(model, g["givenWeights"])
    config = model.to_json(return_string=False)
    copy = serialization.deserialize(config)
    assert type(copy) is type(model)
    # A first layer given input_dim gains "dtype" once its batch_input_shape is explicit
    # (as in TF.js); everything else is identical.
    assert _without_dtype(copy.to_json(return_string=False)) == _without_dtype(config)
    assert [w.original_name for w in copy.weights] == [w.original_name for w in model.weights]
    assert all(w.name.endswith("_1") for w in copy.weights)
    copy.set_weights(model.get_weights())
    x = tf.tensor(g["x"], spec["x"])
    assert_close(copy.predict(x), g["y"])


def _without_dtype(config: Any) -> Any:
    if isinstance(config, dict):
        return {k: _without_dtype(v) for k, v in config.items() if k != "dtype"}
    if isinstance(config, list):
        return [_without_dtype(v) for v in config]
    return config


# ------------------------------------------------------------- functional
def _functional_two_in_two_out() -> tuple[Any, dict[str, Any]]:
    a = layers.input(shape=[3], name="in_a")
    b = layers.input(shape=[3])
    shared = layers.dense(units=4, activation="tanh", name="shared")
    ha = shared.apply(a)
    hb = shared.apply(b)
    out1 = layers.dense(units=2).apply(ha)
    out2 = layers.activation(activation="sigmoid").apply(hb)
    model = make_model(inputs=[a, b], outputs=[out1, out2])
    return model, {"a": a, "b": b, "ha": ha, "hb": hb, "out1": out1, "out2": out2, "shared": shared}


def test_functional_two_inputs_two_outputs() -> None:
    g = RESULTS["functional_two_in_two_out"]
    model, t = _functional_two_in_two_out()
    names = {k: t[k].name for k in ("a", "b", "ha", "hb", "out1", "out2")}
    names.update(
        model=model.name,
        layers=[layer.name for layer in model.layers],
        inputNames=model.input_names,
        outputNames=model.output_names,
    )
    assert names == g["names"]
    assert {k: t[k].shape for k in ("ha", "out1", "out2")} == g["shapes"]
    set_given_weights(model, g["givenWeights"])
    assert weight_info(model) == g["weights"]
    assert lines_of(model) == g["summary"]
    assert model.to_json() == g["jsonString"]
    xa = tf.tensor(g["xa"], [5, 3])
    xb = tf.tensor(g["xb"], [5, 3])
    before = mem()
    ys = model.predict([xa, xb], batch_size=2)
    assert delta(before) == g["predictDelta"] == [2, 2]
    assert_close(ys, g["ys"])
    # TF.js's execute() refuses shared layers (g["executeSharedError"]); ours computes them.
    assert g["executeSharedError"].startswith("Layer shared has multiple inbound nodes")
    ex = model.execute([xa, xb], [t["out2"].name, t["out1"].name, t["hb"].name])
    assert_close(ex[:2], g["ys"][::-1])
    kernel, bias = (np.asarray(w.data_sync()).reshape(w.shape) for w in t["shared"].get_weights())
    xb_np = np.asarray(g["xb"]).reshape(5, 3)
    np.testing.assert_allclose(ex[2].numpy(), np.tanh(xb_np @ kernel + bias), rtol=1e-5, atol=1e-5)
    assert model.get_layer(index=2).name == g["getLayerByIndex"]
    assert model.get_layer(3).name == g["getLayerByNumber"]
    errors = g["errors"]
    check_error(lambda: model.get_layer("nope"), errors["noSuchLayer"])
    check_error(lambda: model.get_layer(index=9), errors["layerIndex"])
    check_error(lambda: model.predict(xa), errors["predictOneTensor"])
    check_error(lambda: model.predict([xa, tf.zeros([5, 2])]), errors["predictWrongShape"])
    assert model.count_params() == g["countParams"]
    before = mem()
    r = model.dispose()
    assert [r.ref_count_after_dispose, r.num_disposed_variables] == g["dispose"]
    assert delta(before) == g["disposeDelta"]
    check_error(model.dispose, g["disposeAgainError"])
    # The shared layer was called twice (reference count 2): one model dispose leaves it alive.
    assert g["applyDisposedError"] is None
    assert t["shared"].apply(xa).shape == [5, 4]


def test_functional_config_round_trip() -> None:
    g = RESULTS["functional_two_in_two_out"]
    model, _ = _functional_two_in_two_out()
    set_given_weights(model, g["givenWeights"])
    copy = serialization.deserialize(model.to_json(return_string=False))
    assert copy.get_class_name() == "Model"
    assert copy.to_json() == model.to_json()
    copy.set_weights(model.get_weights())
    ys = copy.predict([tf.tensor(g["xa"], [5, 3]), tf.tensor(g["xb"], [5, 3])])
    assert_close(ys, g["ys"])


def test_functional_branches_execute() -> None:
    g = RESULTS["functional_branches"]
    a = layers.input(shape=[4])
    h = layers.dense(units=3, activation="relu").apply(a)
    o1 = layers.dense(units=2).apply(h)
    o2 = layers.dense(units=1, activation="sigmoid").apply(h)
    model = make_model(inputs=a, outputs=[o1, o2], name="branches")
    assert {
        "a": a.name,
        "h": h.name,
        "o1": o1.name,
        "o2": o2.name,
        "layers": [layer.name for layer in model.layers],
    } == g["names"]
    set_given_weights(model, g["givenWeights"])
    assert lines_of(model) == g["summary"]
    assert model.to_json() == g["jsonString"]
    x = tf.tensor(g["x"], [3, 4])
    before = mem()
    ys = model.predict(x)
    assert delta(before) == g["predictDelta"]
    assert_close(ys, g["ys"])
    before = mem()
    ex = model.execute(x, [h.name, o2.name])
    assert delta(before) == g["executeDelta"]
    assert_close(ex, g["execute"])
    before = mem()
    ex_dict = model.execute({a.name: x}, h.name)
    assert delta(before) == g["executeDictDelta"]
    assert_close(ex_dict, g["executeDict"])
    check_error(lambda: model.execute(x, "nope"), g["executeUnknown"])
    check_error(lambda: model.execute(x, []), g["executeEmpty"])
    check_error(lambda: model.execute([x, x], h.name), g["executeCount"])


def test_nested_model() -> None:
    g = RESULTS["nested_model"]
    inner = sequential(
        [layers.dense(units=3, activation="relu", input_shape=[2]), layers.dense(units=2)]
    )
    x = layers.input(shape=[2])
    y = inner.apply(x)
    z = layers.dense(units=1, activation="sigmoid").apply(y)
    model = make_model(inputs=x, outputs=z)
    assert {
        "inner": inner.name,
        "model": model.name,
        "layers": [layer.name for layer in model.layers],
        "y": y.name,
        "z": z.name,
    } == g["names"]
    set_given_weights(model, g["givenWeights"])
    assert weight_info(model) == g["weights"]
    assert lines_of(model) == g["summary"]
    assert lines_of(inner) == g["innerSummary"]
    assert model.to_json() == g["jsonString"]
    xv = tf.tensor(g["x"], [3, 2])
    before = mem()
    yv = model.predict(xv)
    assert delta(before) == g["predictDelta"]
    assert_close(yv, g["y"])
    assert_close(inner.predict(xv), g["innerY"])
    before = mem()
    r = model.dispose()
    assert [r.ref_count_after_dispose, r.num_disposed_variables] == g["dispose"]
    assert delta(before) == g["disposeDelta"]
    copy = serialization.deserialize(json.loads(g["jsonString"]))
    assert copy.to_json() == g["jsonString"].replace("", "")


def test_sequential_of_sequential() -> None:
    g = RESULTS["sequential_of_sequential"]
    inner = sequential([layers.dense(units=3, input_shape=[2])])
    outer = sequential()
    outer.add(inner)
    outer.add(layers.dense(units=1))
    assert {
        "inner": inner.name,
        "outer": outer.name,
        "layers": [layer.name for layer in outer.layers],
    } == g["names"]
    set_given_weights(outer, g["givenWeights"])
    assert weight_info(outer) == g["weights"]
    assert lines_of(outer) == g["summary"]
    assert outer.to_json() == g["jsonString"]
    assert_close(outer.predict(tf.tensor(g["x"], [2, 2])), g["y"])
    before = mem()
    r = outer.dispose()
    assert [r.ref_count_after_dispose, r.num_disposed_variables] == g["dispose"]
    assert delta(before) == g["disposeDelta"]


# ----------------------------------------------------------------- dispose
def test_dense_apply_dispose_m14() -> None:
    g = RESULTS["dense_apply_dispose"]
    d = layers.dense(units=1, input_shape=[4])
    check_error(d.dispose, g["notBuiltError"])
    x = tf.zeros([2, 4])
    before = mem()
    y = d.apply(x)
    assert delta(before) == g["applyDelta"]
    assert d.name == g["name"]
    assert [w.name for w in d.weights] == g["weightNames"]
    before = mem()
    r = d.dispose()
    assert [r.ref_count_after_dispose, r.num_disposed_variables] == g["dispose"] == [0, 2]
    assert delta(before) == g["disposeDelta"] == [-2, -2]
    check_error(d.dispose, g["disposeAgainError"])
    check_error(lambda: d.apply(x), g["applyAfterError"])
    tf.dispose([x, y])
    built = layers.dense(units=1)
    built.build([None, 2])
    check_error(built.dispose, g["notUsedError"])
    assert [w.name for w in built.weights] == g["builtWeightNames"]


def test_shared_layer_two_models() -> None:
    g = RESULTS["shared_layer_two_models"]
    d = layers.dense(units=2, input_shape=[3])
    m1 = sequential([d])
    x = layers.input(shape=[3])
    m2 = make_model(inputs=x, outputs=d.apply(x))
    assert [m1.name, m2.name, d.name] == g["names"]
    before = mem()
    r = m1.dispose()
    assert [r.ref_count_after_dispose, r.num_disposed_variables] == g["dispose1"]
    assert delta(before) == g["delta1"]
    before = mem()
    r = m2.dispose()
    assert [r.ref_count_after_dispose, r.num_disposed_variables] == g["dispose2"]
    assert delta(before) == g["delta2"]


# ------------------------------------------------------------ eager memory
EAGER = RESULTS["eager_layer_memory"]


def _eager_case(name: str) -> tuple[layers.Layer, Any]:
    x = tf.tensor2d([[1, 0, 2], [0, 0, 0]])
    x3 = tf.tensor3d([[[1, 0], [0, 0]], [[0, 0], [2, 3]]])
    factories = {
        "dense_first": lambda: (layers.dense(units=2, kernel_initializer="ones"), x),
        "activation_linear": lambda: (layers.activation(activation="linear"), x),
        "activation_elu": lambda: (layers.activation(activation="elu"), x),
        "activation_gelu_new": lambda: (layers.activation(activation="gelu_new"), x),
        "dropout_infer": lambda: (layers.dropout(rate=0.5), x),
        "dropout_rate0": lambda: (layers.dropout(rate=0), x),
        "spatial_dropout": lambda: (layers.spatial_dropout1d(rate=0.5), x3),
        "flatten": lambda: (layers.flatten(), x3),
        "repeat_vector": lambda: (layers.repeat_vector(n=2), x),
        "reshape": lambda: (layers.reshape(target_shape=[3, 1]), x),
        "permute": lambda: (layers.permute(dims=[2, 1]), x3),
        "masking": lambda: (layers.masking(), x3),
    }
    return factories[name]()


@pytest.mark.parametrize("name", sorted(k for k in EAGER if k != "kind"))
def test_eager_apply_memory(name: str) -> None:
    """First and later eager calls add what TF.js adds; inside tidy they add nothing."""
    g = EAGER[name]
    layer, x = _eager_case(name)
    before = mem()
    y = layer.apply(x)
    assert delta(before) == g["first"]
    assert_close(y, g["y"])
    before = mem()
    layer.apply(x)
    assert delta(before) == g["second"]
    before = mem()
    tf.tidy(lambda: discard(layer.apply(x)))
    assert delta(before) == g["tidied"] == [0, 0]
    if "trainingDelta" in g:
        before = mem()
        yt = layer.apply(x, training=True)
        assert delta(before) == g["trainingDelta"]
        assert yt.shape == g["trainingShape"]


# ------------------------------------------------------------------ errors
def test_error_messages() -> None:
    g = RESULTS["errors"]
    d = layers.dense(units=2, input_shape=[4])
    check_error(lambda: d.apply(tf.zeros([4])), g["rank1"], exact=False)
    d.apply(tf.zeros([1, 4]))
    check_error(lambda: d.apply(tf.zeros([2, 3])), g["wrongLastDim"])
    # The first sentence is TF.js's; the reasons that follow speak of Python, not JavaScript.
    check_error(
        lambda: layers.dense(units=2, activation="foo"),
        g["unknownActivation"].split(" This may")[0],
        exact=False,
    )
    check_error(
        lambda: layers.dense(units=2, kernel_initializer="foo"),
        g["unknownInitializer"].split(" This may")[0],
        exact=False,
    )
    check_error(lambda: layers.dense(units=0), g["badUnits"])
    check_error(lambda: layers.dense(units=1.5), g["badUnitsFloat"])
    check_error(
        lambda: d.set_weights([tf.zeros([4, 2])]),
        py_names(g["setWeightsCount"]).split("Provided")[0],
        exact=False,
    )
    check_error(
        lambda: d.set_weights([tf.zeros([4, 3]), tf.zeros([2])]), g["setWeightsShape"], exact=False
    )
    check_error(lambda: layers.permute(dims=[1, 3]), g["permuteDims"])
    check_error(
        lambda: layers.reshape(target_shape=[4]).apply(tf.zeros([2, 3])),
        g["reshapeSize"],
        exact=False,
    )
    check_error(
        lambda: layers.reshape(target_shape=[-1, -1]).apply(tf.zeros([2, 4])),
        g["reshapeTwoUnknown"],
        exact=False,
    )
    check_error(
        lambda: layers.repeat_vector(n=2).apply(tf.zeros([2, 3, 4])),
        g["repeatVectorNdim"],
        exact=False,
    )
    check_error(
        lambda: layers.spatial_dropout1d(rate=0.1).apply(tf.zeros([2, 3])),
        g["spatialNdim"],
        exact=False,
    )
    check_error(
        lambda: layers.flatten().apply(layers.input(shape=[None, 3])),
        g["flattenUndefined"].replace("(got ,3)", "(got [null,3])"),
    )
    check_error(lambda: layers.flatten().apply(tf.zeros([2, 3])), g["flattenRank2"], exact=False)
    check_error(
        lambda: sequential([layers.dense(units=1)]),
        py_names(g["seqNoInputShape"])[:-1],
        exact=False,
    )
    check_error(lambda: layers.input(), py_names(g["inputNoShape"]))
    check_error(lambda: layers.input(shape=[2], batch_shape=[None, 2]), py_names(g["inputBoth"]))
    check_error(
        lambda: layers.dense(units=1).apply([layers.input(shape=[2]), tf.zeros([1, 2])]),
        g["mixedSymbolic"],
    )
    m = sequential([layers.dense(units=2, input_shape=[3])])
    check_error(lambda: m.predict(tf.zeros([2, 4])), g["predictWrongShape"])
    check_error(lambda: m.predict(tf.zeros([2, 3, 1])), g["predictWrongRank"])
    check_error(lambda: m.predict(tf.scalar(1)), g["predictScalar"])
    check_error(lambda: m.predict(tf.zeros([2, 3]), batch_size=0), g["predictBatchSize"])
    check_error(lambda: m.predict_on_batch(tf.zeros([2, 4])), g["predictOnBatchWrongShape"])
    check_error(
        lambda: layers.input_layer(input_shape=[2], name="il").apply(tf.zeros([1, 2])),
        g["inputLayerApply"],
    )
    check_error(lambda: layers.dense(units=1).count_params(), py_names(g["countParamsNotBuilt"]))

    def duplicate() -> Any:
        i = layers.input(shape=[2])
        a = layers.dense(units=2, name="same").apply(i)
        return make_model(inputs=i, outputs=layers.dense(units=2, name="same").apply(a))

    check_error(duplicate, g["duplicateNames"])

    def disconnected() -> Any:
        i1 = layers.input(shape=[2])
        i2 = layers.input(shape=[2])
        return make_model(inputs=i1, outputs=layers.dense(units=1).apply(i2))

    prefix = re.sub(
        r"cannot obtain value for tensor .*", "cannot obtain value for tensor", g["disconnected"]
    )
    check_error(disconnected, prefix, exact=False)


# ------------------------------------------------------------------- naming
def test_naming() -> None:
    g = RESULTS["naming"]
    d1 = layers.dense(units=1)
    d2 = layers.dense(units=1)
    act = layers.activation(activation="relu")
    sd = layers.spatial_dropout1d(rate=0.1)
    rv = layers.repeat_vector(n=2)
    i1 = layers.input(shape=[2])
    i2 = layers.input(shape=[2], name="custom")
    s1 = sequential()
    s2 = sequential()
    m1 = make_model(inputs=i1, outputs=d1.apply(i1))
    m2 = make_model(inputs=i2, outputs=d2.apply(i2))
    assert [d1.name, d2.name, act.name, sd.name, rv.name, i1.name, i2.name] == g["layers"]
    assert [s1.name, s2.name, m1.name, m2.name] == g["models"]
    assert [[w.name, w.original_name] for w in m1.weights + m2.weights] == g["weights"]
    base = sequential([layers.dense(units=2, input_shape=[3], name="reused")])
    config = base.to_json(return_string=False)
    loaded = []
    for _ in range(3):
        m = serialization.deserialize(config)
        loaded.append([[w.name, w.original_name] for w in m.weights])
    assert loaded == g["loaded"]


# ------------------------------------- initializers, constraints, regularizers
def _init_from_name(name: str) -> initializers.Initializer:
    args = {
        "zeros": {},
        "ones": {},
        "constant": {"value": 3},
        "randomUniform": {"minval": -1, "maxval": 2, "seed": 3},
        "randomNormal": {"mean": 1, "stddev": 2, "seed": 3},
        "truncatedNormal": {"stddev": 0.5, "seed": 9},
        "identity": {"gain": 3},
        "varianceScaling": {"scale": 3, "mode": "fanAvg", "distribution": "uniform", "seed": 11},
        "glorotUniform": {"seed": 1},
        "glorotNormal": {"seed": 1},
        "heNormal": {"seed": 2},
        "heUniform": {"seed": 2},
        "leCunNormal": {"seed": 3},
        "leCunUniform": {"seed": 3},
        "orthogonal": {"gain": 2, "seed": 5},
    }[name]
    return getattr(initializers, snake_case(name))(**args)


INITS = sorted(k for k in RESULTS["initializers"] if k not in ("kind", "convKernel"))


@pytest.mark.parametrize("name", INITS)
def test_initializer_values(name: str) -> None:
    """Seeded initializers draw TF.js's exact values; configs and class names match."""
    g = RESULTS["initializers"][name]
    init = _init_from_name(name)
    shape = [3, 3] if name == "identity" else [3, 4]
    before = mem()
    t = init.apply(shape)
    assert delta(before) == g["delta"]
    assert_close(t, g["y"], 1e-5)
    assert init.get_class_name() == g["className"]
    from tidytensor.layers.utils import convert_ts_to_pythonic

    assert init.get_config() == convert_ts_to_pythonic(g["config"])


def test_initializer_conv_kernel_fans() -> None:
    t = initializers.glorot_uniform(seed=4).apply([3, 3, 2, 4])
    assert_close(t, RESULTS["initializers"]["convKernel"])


CR = RESULTS["constraints_regularizers"]


@pytest.mark.parametrize("name", sorted(CR["constraints"]))
def test_constraint_values(name: str) -> None:
    g = CR["constraints"][name]
    factory = {
        "maxNorm": lambda: constraints.max_norm(max_value=4, axis=0),
        "maxNormAxis1": lambda: constraints.max_norm(max_value=4, axis=1),
        "unitNorm": lambda: constraints.unit_norm(axis=1),
        "nonNeg": constraints.non_neg,
        "minMaxNorm": lambda: constraints.min_max_norm(min_value=2, max_value=5, rate=0.7, axis=0),
    }[name]
    c = factory()
    w = tf.tensor(CR["w"], [2, 3])
    np.testing.assert_allclose(c.apply(w).data_sync(), g["y"], rtol=1e-5, atol=1e-6)
    assert c.get_class_name() == g["className"]
    from tidytensor.layers.utils import convert_ts_to_pythonic

    assert c.get_config() == convert_ts_to_pythonic(g["config"])


@pytest.mark.parametrize("name", sorted(CR["regularizers"]))
def test_regularizer_values(name: str) -> None:
    g = CR["regularizers"][name]
    r = {
        "l1": lambda: regularizers.l1(l1=0.1),
        "l2": regularizers.l2,
        "l1l2": lambda: regularizers.l1l2(l1=0.01, l2=0.5),
        "l1Default": regularizers.l1,
    }[name]()
    w = tf.tensor(CR["w"], [2, 3])
    value = r.apply(w)
    assert value.shape == []
    assert math.isclose(value.array_sync(), g["y"], rel_tol=1e-6)
    assert r.get_config() == g["config"]
