"""Layers training against real TF.js (tests/golden/layers_training.js →
results/layers_training.json): one SGD step per loss, fit histories, evaluate, tf.metrics,
metric names, string optimizers, memory counts, fit_dataset, error messages."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import tidytensor as tf
import tidytensor.layers as L
from python_spelling import python_spelling
from tidytensor.layers import metrics as M
from tidytensor.layers.errors import (
    LayersNotImplementedError,
    LayersRuntimeError,
    LayersValueError,
)
from tidytensor.layers.training.callbacks import EarlyStopping

RESULTS = json.loads(
    (
        Path(__file__).resolve().parents[1] / "golden" / "results" / "layers_training.json"
    ).read_text()
)["results"]
TOL = 1e-5


def snake(key: str) -> str:
    return re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), key)


def t(d):
    return tf.tensor(d["values"], d["shape"], d.get("dtype"))


def build(input_dim, layers):
    model = L.models.sequential()
    for i, spec in enumerate(layers):
        kw = dict(
            units=spec["units"],
            activation=spec.get("activation", "linear"),
            use_bias=spec.get("useBias", True),
        )
        if i == 0:
            kw["input_shape"] = [input_dim]
        if spec.get("regularizer"):
            kw["kernel_regularizer"] = L.regularizers.l1l2(**spec["regularizer"])
        model.add(L.dense(**kw))
    return model


def set_weights(model, weights):
    ws = [t(w) for w in weights]
    model.set_weights(ws)
    tf.dispose(ws)


def optimizer(o):
    return o if isinstance(o, str) else getattr(tf.train, o["name"])(*o["args"])


def cleanup_optimizer(cleanup, o):
    """``optimizer(o)``, registered with the ``cleanup`` fixture when it is an instance (a
    string one is the model's own, disposed by ``model.dispose()``)."""
    made = optimizer(o)
    return made if isinstance(made, str) else cleanup(made)


def close(got, expected, tol=TOL):
    got = np.asarray(got, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)


def check_weights(model, expected):
    got = model.get_weights()
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=False):
        close(g.numpy().ravel(), e)


def counts():
    m = tf.memory()
    return m.num_tensors, m.num_data_buffers


def delta(base):
    now = counts()
    return [now[0] - base[0], now[1] - base[1]]


# ------------------------------------------------------------------- train_on_batch
@pytest.mark.parametrize("case", RESULTS["train_on_batch"], ids=lambda c: c["loss"])
def test_train_on_batch_one_sgd_step(case, cleanup):
    model = build(3, case["layers"])
    set_weights(model, case["weights"])
    model.compile(optimizer=cleanup(tf.train.sgd(0.1)), loss=case["loss"], metrics=case["metrics"])
    assert model.metrics_names == case["metrics_names"]
    x, y = t(case["x"]), t(case["y"])
    base = counts()
    result = model.train_on_batch(x, y)
    assert delta(base) == case["mem"] == [0, 0]
    if isinstance(case["result"], list):
        assert isinstance(result, list) and all(isinstance(v, float) for v in result)
    else:
        assert isinstance(result, float)
    close(result, case["result"])
    check_weights(model, case["weights_after"])
    model.dispose()


@pytest.mark.parametrize(
    "case",
    [c for c in RESULTS["train_on_batch"] if c["loss"] != "logcosh"],
    ids=lambda c: c["loss"],
)
def test_keras_loss_spellings_give_the_same_step(case, cleanup):
    keras = {
        "meanSquaredError": "mse",
        "meanAbsoluteError": "mean_absolute_error",
        "meanAbsolutePercentageError": "mape",
        "meanSquaredLogarithmicError": "msle",
        "squaredHinge": "squared_hinge",
        "hinge": "hinge",
        "categoricalHinge": "categorical_hinge",
        "categoricalCrossentropy": "categorical_crossentropy",
        "sparseCategoricalCrossentropy": "sparse_categorical_crossentropy",
        "binaryCrossentropy": "binary_crossentropy",
        "kullbackLeiblerDivergence": "kl_divergence",
        "poisson": "poisson",
        "cosineProximity": "cosine_similarity",
    }[case["loss"]]
    model = cleanup(build(3, case["layers"]))
    set_weights(model, case["weights"])
    model.compile(optimizer=cleanup(tf.train.sgd(0.1)), loss=keras, metrics=case["metrics"])
    assert model.metrics_names == case["metrics_names"]
    model.train_on_batch(t(case["x"]), t(case["y"]))
    check_weights(model, case["weights_after"])


# ------------------------------------------------------------------------------ fit
FITS = [c for c in RESULTS["fit"] if c["name"] != "two_outputs"]


def fit_kwargs(case):
    kw = {snake(k): v for k, v in case["fit"].items()}
    if "class_weight" in kw:
        kw["class_weight"] = {int(k): v for k, v in kw["class_weight"].items()}
    if case.get("validation"):
        kw["validation_data"] = (t(case["validation"]["x"]), t(case["validation"]["y"]))
    return kw


def _fit_param(case):
    # TF.js's MomentumOptimizer.dispose() keeps its momentum scalar; tidytensor does the same.
    marks = [pytest.mark.tidytensor_allow_leaks] if "momentum" in case["name"] else []
    return pytest.param(case, id=case["name"], marks=marks)


@pytest.mark.parametrize("case", [_fit_param(c) for c in FITS])
def test_fit_history_matches_tfjs(case, cleanup):
    model = build(3, case["layers"])
    set_weights(model, case["weights"])
    model.compile(
        optimizer=cleanup_optimizer(cleanup, case["optimizer"]),
        loss=case["loss"],
        metrics=case["metrics"],
    )
    x, y = t(case["x"]), t(case["y"])
    kw = fit_kwargs(case)
    base = counts()
    history = model.fit(x, y, verbose=0, **kw)
    assert delta(base) == case["mem_first"]
    base = counts()
    model.fit(x, y, verbose=0, **kw)
    assert delta(base) == case["mem_second"] == [0, 0]
    assert set(history.history) == set(case["history"])
    for key, values in case["history"].items():
        close(history.history[key], values)
        assert all(isinstance(v, float) for v in history.history[key])
    assert history.epoch == case["epoch"]
    params = case["params"]
    assert history.params == {
        "epochs": params["epochs"],
        "initial_epoch": params["initialEpoch"],
        "samples": params["samples"],
        "steps": params.get("steps"),
        "batch_size": params["batchSize"],
        "verbose": 0,
        "do_validation": params["doValidation"],
        "metrics": params["metrics"],
    }
    assert list(history.history) == list(case["history"])  # TF.js's order: val_ keys first
    check_weights(model, case["weights_after"])
    if isinstance(case["optimizer"], str):
        before = counts()[0]
        result = model.dispose()
        assert before - counts()[0] == result.num_disposed_variables


def test_fit_accepts_numpy_and_lists_the_same(cleanup):
    case = FITS[0]
    model = cleanup(build(3, case["layers"]))
    set_weights(model, case["weights"])
    model.compile(
        optimizer=cleanup_optimizer(cleanup, case["optimizer"]),
        loss=case["loss"],
        metrics=case["metrics"],
    )
    x = np.array(case["x"]["values"], np.float32).reshape(case["x"]["shape"])
    y = np.array(case["y"]["values"], np.float32).reshape(case["y"]["shape"]).tolist()
    base = counts()
    history = model.fit(x, y, verbose=0, **fit_kwargs(case))
    assert delta(base) == [0, 0]
    close(history.history["loss"], case["history"]["loss"])


def test_two_outputs_loss_dict_metrics_dict(cleanup):
    case = next(c for c in RESULTS["fit"] if c["name"] == "two_outputs")
    spec = case["two_heads"]
    inp = L.input(shape=[spec["inputDim"]])
    trunk = L.dense(units=spec["trunk"]["units"], activation=spec["trunk"]["activation"]).apply(inp)
    outs = [
        L.dense(units=h["units"], activation=h["activation"], name=h["name"]).apply(trunk)
        for h in spec["heads"]
    ]
    model = cleanup(L.models.model(inputs=inp, outputs=outs))
    set_weights(model, case["weights"])
    model.compile(
        optimizer=cleanup_optimizer(cleanup, case["optimizer"]),
        loss=case["loss"],
        metrics=case["metrics"],
    )
    assert model.metrics_names == case["metrics_names"]
    x = t(case["x"])
    ys = [t(v) for v in case["ys"]]
    history = model.fit(x, ys, verbose=0, **{snake(k): v for k, v in case["fit"].items()})
    # Training keys match TF.js exactly.
    for key in case["metrics_names"]:
        close(history.history[key], case["history"][key])
    check_weights(model, case["weights_after"])
    # TF.js's test function pushes a running total per output before the metrics (one value
    # too many, so its evaluate() list and val_ keys are shifted). Ours returns
    # [total, reg_loss, cls_loss, reg_mae, cls_acc], matching metrics_names.
    tfjs = case["evaluate"]
    result = model.evaluate(x, ys, batch_size=4)
    assert len(result) == len(model.metrics_names) == len(tfjs) - 1
    close([r.array_sync() for r in result], [tfjs[1], tfjs[0], tfjs[3], tfjs[4], tfjs[5]])
    close(
        history.history["val_reg_loss"][-1] + history.history["val_cls_loss"][-1],
        history.history["val_loss"][-1],
    )
    tf.dispose(result)


# ------------------------------------------------------------------------- evaluate
@pytest.mark.parametrize("case", RESULTS["evaluate"], ids=["metrics", "single"])
def test_evaluate_matches_tfjs(case, cleanup):
    model = cleanup(build(3, case["layers"]))
    set_weights(model, case["weights"])
    model.compile(optimizer="sgd", loss=case["loss"], metrics=case["metrics"])
    x, y = t(case["x"]), t(case["y"])
    base = counts()
    result = model.evaluate(x, y, batch_size=case["batchSize"])
    if case.get("scalar"):
        assert isinstance(result, tf.Tensor) and result.rank == 0
        result = [result]
    else:
        assert delta(base) == case["mem"]
    close([r.array_sync() for r in result], case["values"])
    tf.dispose(result)


# -------------------------------------------------------------------------- metrics
@pytest.mark.parametrize("case", RESULTS["metrics"], ids=lambda c: c["name"])
def test_tf_metrics_functions(case):
    fn = getattr(
        M, case["name"] if case["name"] in ("MAPE", "MSE", "mape", "mse") else snake(case["name"])
    )
    y_true, y_pred = t(case["y_true"]), t(case["y_pred"])
    base = counts()
    result = fn(y_true, y_pred)
    assert delta(base) == [1, 1]
    assert result.shape == case["shape"]
    close(result.data_sync(), case["values"])


@pytest.mark.parametrize("case", RESULTS["names"], ids=lambda c: f"{c['loss']}-{c['metrics']}")
def test_metrics_names(case, cleanup):
    model = cleanup(build(3, [{"units": case["units"]}]))
    model.compile(optimizer="sgd", loss=case["loss"], metrics=case["metrics"])
    assert model.metrics_names == case["metrics_names"]


def test_deduped_names_in_history(cleanup):
    model = cleanup(build(3, [{"units": 2}]))
    model.compile(optimizer="sgd", loss="mse", metrics=["mse", "mse"])
    h = model.fit(tf.ones([4, 3]), tf.ones([4, 2]), verbose=0)
    assert list(h.history) == ["loss", "mse_0", "mse_1"]


@pytest.mark.parametrize("case", RESULTS["optimizers"], ids=lambda c: c["name"])
def test_optimizer_strings(case, cleanup):
    model = cleanup(build(3, [{"units": 1}]))
    base = counts()
    model.compile(optimizer=case["name"], loss="meanSquaredError")
    assert delta(base) == case["compile_mem"]
    assert model.optimizer.get_class_name() == case["class_name"]
    assert model.is_optimizer_owned
    config = model.optimizer.get_config()
    assert config.keys() == case["config"].keys()
    close(list(config.values()), list(case["config"].values()))


# --------------------------------------------------------------------------- memory
@pytest.mark.parametrize("owned", [True, False], ids=["adam_string", "adam_instance"])
def test_m15_dispose_owned_optimizer(owned):
    expected = RESULTS["memory"]["adam_string" if owned else "adam_instance"]
    model = L.models.sequential([L.dense(units=1, input_shape=[2])])
    opt = "adam" if owned else tf.train.adam()
    model.compile(loss="meanSquaredError", optimizer=opt)
    xs, ys = tf.zeros([4, 2]), tf.zeros([4, 1])
    base = counts()
    model.fit(xs, ys, epochs=1, verbose=0)
    assert delta(base) == expected["first_fit"] == [4, 4]
    base = counts()
    model.fit(xs, ys, epochs=2, verbose=0)
    assert delta(base) == expected["second_fit"] == [0, 0]
    base = counts()
    result = model.dispose()
    assert result.ref_count_after_dispose == expected["dispose"]["refCountAfterDispose"] == 0
    assert result.num_disposed_variables == expected["dispose"]["numDisposedVariables"]
    assert delta(base) == expected["dispose_mem"]
    if not owned:
        opt.dispose()


def test_memory_fit_20_epochs_repeat_fit_predict_evaluate_dispose():
    expected = RESULTS["memory"]
    layers = expected["fit20"]["layers"]
    model = build(3, layers)
    fit_case = RESULTS["fit"][0]
    set_weights(model, fit_case["weights"])
    model.compile(optimizer="adam", loss="categoricalCrossentropy", metrics=["acc"])
    xs, ys = t(fit_case["x"]), t(fit_case["y"])
    epoch_counts, batch_counts = [], []
    base = counts()
    model.fit(
        xs,
        ys,
        epochs=20,
        batch_size=4,
        verbose=0,
        validation_split=0.2,
        callbacks={
            "on_epoch_end": lambda e, logs: epoch_counts.append(delta(base)),
            "on_batch_end": lambda b, logs: batch_counts.append(delta(base)),
        },
    )
    # Constant from the first epoch on (Adam's state appears in the first step), as in TF.js.
    assert epoch_counts == expected["fit20"]["epoch_counts"]
    assert delta(base) == expected["fit20"]["after"]
    # Inside on_batch_end TF.js also holds BaseLogger's running totals and the last batch's
    # validation scalars as tensors (2 and 2 more here); our logs are numbers, so the count
    # there is the epoch count plus the epoch's index tensor.
    assert batch_counts[:3] == [[13, 13]] * 3
    assert [b[0] for b in expected["fit20"]["batch_counts_first"]] == [15, 17, 15]
    base = counts()
    for _ in range(3):
        model.fit(
            xs,
            ys,
            epochs=2,
            batch_size=4,
            verbose=0,
            validation_data=(xs, ys),
            callbacks={"on_epoch_end": lambda e, logs: None, "on_batch_end": lambda b, logs: None},
        )
    assert delta(base) == expected["repeat_fit"] == [0, 0]
    base = counts()
    p = model.predict(xs)
    assert delta(base) == expected["predict"] == [1, 1]
    p.dispose()
    base = counts()
    model.train_on_batch(xs, ys)
    assert delta(base) == expected["train_on_batch"] == [0, 0]
    base = counts()
    e = model.evaluate(xs, ys)
    assert delta(base) == expected["evaluate"]
    tf.dispose(e)
    base = counts()
    result = model.dispose()
    assert result.num_disposed_variables == expected["dispose"]["numDisposedVariables"]
    assert delta(base) == expected["dispose"]["mem"]


def test_num_data_buffers_constant_over_20_epochs_with_progress(capsys):
    model = build(3, [{"units": 4, "activation": "relu"}, {"units": 3, "activation": "softmax"}])
    model.compile(optimizer="adam", loss="categoricalCrossentropy", metrics=["accuracy"])
    xs, ys = t(RESULTS["fit"][0]["x"]), t(RESULTS["fit"][0]["y"])
    seen = []
    model.fit(
        xs,
        ys,
        epochs=20,
        batch_size=3,
        validation_split=0.3,
        verbose=1,
        callbacks={"on_epoch_end": lambda e, logs: seen.append(counts())},
    )
    assert len(set(seen[1:])) == 1
    assert capsys.readouterr().out.count("Epoch ") == 20


# ---------------------------------------------------------------------- fit_dataset
class TinyDataset:
    """A duck-typed dataset: ``iterator()`` gives a Python iterator of ``{xs, ys}`` batches,
    made fresh (new tensors) each time, like tf.data's."""

    def __init__(self, x, y, batch, pairs=False):
        self.x = np.asarray(x, np.float32)
        self.y = np.asarray(y, np.float32)
        self.batch = batch
        self.pairs = pairs
        self.size = -(-len(self.x) // batch)
        self.made = []

    def iterator(self):
        for i in range(0, len(self.x), self.batch):
            xs = tf.tensor(self.x[i : i + self.batch])
            ys = tf.tensor(self.y[i : i + self.batch])
            self.made += [xs, ys]
            yield (xs, ys) if self.pairs else {"xs": xs, "ys": ys}


@pytest.mark.parametrize("pairs", [False, True], ids=["dicts", "pairs"])
def test_fit_dataset_and_evaluate_dataset_match_tfjs(pairs, cleanup):
    case = RESULTS["fit_dataset"]
    model = cleanup(build(3, case["layers"]))
    set_weights(model, case["weights"])
    model.compile(
        optimizer=cleanup(tf.train.sgd(0.3)), loss="categoricalCrossentropy", metrics=["acc"]
    )
    x = np.array(case["x"]["values"]).reshape(case["x"]["shape"])
    y = np.array(case["y"]["values"]).reshape(case["y"]["shape"])
    ds = TinyDataset(x, y, case["batch"], pairs)
    vx, vy = t(case["validation"]["x"]), t(case["validation"]["y"])
    base = counts()
    history = model.fit_dataset(ds, epochs=3, verbose=0, validation_data=(vx, vy))
    assert delta(base) == case["mem"] == [0, 0]
    assert all(m.is_disposed for m in ds.made)  # every batch was disposed after use
    for key, values in case["history"].items():
        close(history.history[key], values)
    assert history.epoch == case["epoch"]
    check_weights(model, case["weights_after"])
    base = counts()
    result = model.evaluate_dataset(ds)
    assert delta(base) == case["evaluate_mem"] == [2, 2]
    close([r.array_sync() for r in result], case["evaluate"])


def test_fit_dataset_with_tidytensor_data(cleanup):
    import tidytensor.data as data

    case = RESULTS["fit_dataset"]
    model = cleanup(build(3, case["layers"]))
    set_weights(model, case["weights"])
    model.compile(
        optimizer=cleanup(tf.train.sgd(0.3)), loss="categoricalCrossentropy", metrics=["acc"]
    )
    x = np.array(case["x"]["values"]).reshape(case["x"]["shape"]).tolist()
    y = np.array(case["y"]["values"]).reshape(case["y"]["shape"]).tolist()
    ds = data.zip({"xs": data.array(x), "ys": data.array(y)}).batch(case["batch"])
    vx, vy = t(case["validation"]["x"]), t(case["validation"]["y"])
    base = counts()
    history = model.fit_dataset(ds, epochs=3, verbose=0, validation_data=(vx, vy))
    assert delta(base) == [0, 0]
    for key, values in case["history"].items():
        close(history.history[key], values)


# --------------------------------------------------------------------------- errors
ERRORS = RESULTS["errors"]


def test_error_messages_match_tfjs(cleanup):
    model = cleanup(build(3, [{"units": 2}]))
    xs, ys = t(RESULTS["fit"][-2]["x"]), tf.zeros([10, 2])
    with pytest.raises(
        LayersRuntimeError, match=re.escape(python_spelling(ERRORS["uncompiled_fit"]))
    ):
        model.fit(xs, ys, verbose=0)
    with pytest.raises(
        LayersRuntimeError, match=re.escape(python_spelling(ERRORS["uncompiled_evaluate"]))
    ):
        model.evaluate(xs, ys)
    for key, kwargs in [
        ("unknown_loss", dict(optimizer="sgd", loss="noSuchLoss")),
        ("softmax_loss_hint", dict(optimizer="sgd", loss="softmaxCrossEntropy")),
        ("unknown_optimizer", dict(optimizer="nadam", loss="meanSquaredError")),
        ("bad_optimizer", dict(optimizer={}, loss="meanSquaredError")),
        ("unknown_metric", dict(optimizer="sgd", loss="meanSquaredError", metrics=["f1"])),
        ("loss_array_length", dict(optimizer="sgd", loss=["meanSquaredError"] * 2)),
    ]:
        # TF.js's text with the names in Python spelling (the user's own name stays).
        expected = (
            ERRORS[key]
            .replace("Unknown Optimizer", "Unknown optimizer")
            .replace('"categoricalCrossentropy"', '"categorical_crossentropy"')
            .replace("tf.losses.softmaxCrossEntropy", "tf.losses.softmax_cross_entropy")
        )
        with pytest.raises(LayersValueError, match=re.escape(expected)):
            model.compile(**kwargs)
    with pytest.raises(
        LayersValueError, match=re.escape(ERRORS["loss_dict_key"].split("keys:")[0])
    ):
        model.compile(optimizer="sgd", loss={"nope": "meanSquaredError"})
    model.compile(optimizer="sgd", loss="meanSquaredError")
    weights_before = [w.numpy() for w in model.get_weights()]
    cases = [
        ("xy_length", LayersValueError, lambda: model.fit(xs, tf.zeros([9, 2]), verbose=0)),
        ("target_shape", LayersValueError, lambda: model.fit(xs, tf.zeros([10, 3]), verbose=0)),
        ("input_shape", LayersValueError, lambda: model.fit(tf.zeros([10, 4]), ys, verbose=0)),
        (
            "validation_data_3",
            LayersNotImplementedError,
            lambda: model.fit(xs, ys, verbose=0, validation_data=(xs, ys, ys)),
        ),
        ("batch_size", LayersValueError, lambda: model.fit(xs, ys, verbose=0, batch_size=0)),
    ]
    for key, error, call in cases:
        base = counts()
        with pytest.raises(error, match=re.escape(python_spelling(ERRORS[key]))):
            call()
        assert counts()[0] - base[0] in (0, 1)  # only the zeros() made in the lambda
    with pytest.raises(LayersValueError, match="When passing validation data, it must contain 2"):
        model.fit(xs, ys, verbose=0, validation_data=(xs,))
    with pytest.raises(LayersNotImplementedError, match="batch shuffling is not implemented yet"):
        model.fit(xs, ys, verbose=0, shuffle="batch")
    with pytest.raises(
        LayersValueError,
        match=re.escape(python_spelling(ERRORS["two_inputs"]).split(" but instead got")[0]),
    ):
        model.fit([xs, xs], ys, verbose=0)
    for before, after in zip(weights_before, model.get_weights(), strict=False):
        np.testing.assert_array_equal(before, after.numpy())  # the model is unchanged
    inner = []

    def refit(epoch, logs):
        with pytest.raises(
            LayersRuntimeError, match=re.escape(python_spelling(ERRORS["fit_ongoing"]))
        ):
            model.fit(xs, ys, verbose=0)
        inner.append(epoch)

    model.fit(xs, ys, verbose=0, callbacks={"on_epoch_end": refit})
    assert inner == [0]
    model.fit(xs, ys, verbose=0)  # the flag is cleared afterwards
    c = cleanup(build(3, [{"units": 1, "activation": "softmax"}]))
    c.compile(optimizer="sgd", loss="categoricalCrossentropy")
    with pytest.raises(
        LayersValueError, match=re.escape(python_spelling(ERRORS["categorical_last_dim_1"]))
    ):
        c.fit(xs, tf.zeros([10, 1]), verbose=0)
    with pytest.raises(
        LayersValueError,
        match=re.escape(python_spelling(ERRORS["fit_dataset_epochs"]).split(", but")[0]),
    ):
        model.fit_dataset(TinyDataset([[1, 2, 3]], [[1, 2]], 1))
    # TF.js refuses restoreBestWeights; ours implements it (Keras's option).
    assert "restoreBestWeights" in ERRORS["early_stopping_restore"]
    assert EarlyStopping(restore_best_weights=True).restore_best_weights
