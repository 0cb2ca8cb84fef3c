"""The training and inference methods of a model show their real arguments (TF.js's args
objects in snake_case, same order, TF.js's defaults) and documentation, on both
``tf.model`` and ``tf.sequential`` models; plus ``test_on_batch``."""

from __future__ import annotations

import inspect

import pytest

import tidytensor as tf

PARAMETERS = {
    "compile": ["optimizer", "loss", "metrics"],
    "fit": [
        "x",
        "y",
        "batch_size",
        "epochs",
        "verbose",
        "callbacks",
        "validation_split",
        "validation_data",
        "shuffle",
        "class_weight",
        "sample_weight",
        "initial_epoch",
        "steps_per_epoch",
        "validation_steps",
        "yield_every",
    ],
    "evaluate": ["x", "y", "batch_size", "verbose", "sample_weight", "steps"],
    "predict": ["x", "batch_size", "verbose"],
    "train_on_batch": ["x", "y", "sample_weight", "class_weight"],
    "test_on_batch": ["x", "y"],
    "predict_on_batch": ["x"],
    "evaluate_dataset": ["dataset", "batches", "verbose"],
    "fit_dataset": [
        "dataset",
        "epochs",
        "batches_per_epoch",
        "verbose",
        "callbacks",
        "validation_data",
        "validation_batch_size",
        "validation_batches",
        "yield_every",
        "initial_epoch",
        "class_weight",
    ],
}

DEFAULTS = {
    "fit": {
        "batch_size": 32,
        "epochs": 1,
        "verbose": 1,
        "validation_split": 0,
        "shuffle": True,
        "initial_epoch": 0,
        "yield_every": "auto",
    },
    "evaluate": {"batch_size": 32},
    "predict": {"batch_size": 32, "verbose": False},
    "fit_dataset": {"verbose": 1, "validation_batch_size": 32, "initial_epoch": 0},
}


def _models() -> list[tf.LayersModel]:
    x = tf.input(shape=[2])
    functional = tf.model(inputs=x, outputs=tf.layers.dense(units=1).apply(x))
    return [functional, tf.sequential([tf.layers.dense(units=1, input_shape=[2])])]


@pytest.mark.parametrize("method", sorted(PARAMETERS))
def test_methods_show_their_real_parameters_and_docs(method: str) -> None:
    for model in _models():
        bound = getattr(model, method)
        signature = inspect.signature(bound)
        named = [
            p.name
            for p in signature.parameters.values()
            if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)
        ]
        assert named == PARAMETERS[method], (type(model).__name__, method)
        for name, default in DEFAULTS.get(method, {}).items():
            assert signature.parameters[name].default == default, (method, name)
        doc = inspect.getdoc(bound)
        assert doc is not None and len(doc) > 80, (type(model).__name__, method)
        for name in PARAMETERS[method][2:]:  # every optional argument is documented
            assert name in doc, (method, name)


def test_a_misspelled_keyword_names_the_argument(cleanup) -> None:
    model = cleanup(_models()[1])
    model.compile(optimizer="sgd", loss="meanSquaredError")
    x, y = tf.ones([2, 2]), tf.ones([2, 1])
    with pytest.raises(tf.errors.TidyTensorError, match="did you mean 'batch_size'"):
        model.fit(x, y, batchSize=2)
    tf.dispose([x, y])


@pytest.mark.parametrize("make", [0, 1])
def test_test_on_batch_is_evaluate_on_one_batch_as_numbers(make: int, cleanup) -> None:
    model = cleanup(_models()[make])
    model.compile(optimizer="sgd", loss="meanSquaredError", metrics=["mae"])
    x = tf.tensor2d([[1, 2], [3, -4], [0.5, 1]])
    y = tf.tensor2d([[1], [0], [2]])
    weights = [w.data_sync().tolist() for w in model.get_weights()]
    before = tf.memory().num_tensors
    result = model.test_on_batch(x, y)
    assert tf.memory().num_tensors == before
    assert [w.data_sync().tolist() for w in model.get_weights()] == weights
    expected = model.evaluate(x, y, batch_size=3)
    assert result == pytest.approx([float(t.data_sync()[0]) for t in expected])
    assert all(isinstance(v, float) for v in result)
    tf.dispose([*expected, x, y])
