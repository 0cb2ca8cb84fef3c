"""``trainingConfig`` on load: problems reported with their field and the names as written,
Keras-style optimizer configs read with Keras's defaults, and nothing kept by failed loads."""

from __future__ import annotations

import json

import pytest
from io_test_helpers import (  # noqa: F401 - autouse fixtures
    dense_model,
    fresh_layer_names,
    memory_counts,
    private_model_store,
)

import tidytensor as tf
from tidytensor.io import ModelFormatError


@pytest.fixture
def model_dir(tmp_path):
    model = dense_model()
    folder = tmp_path / "m"
    tf.io.save_model(model, str(folder))
    model.dispose()
    return folder


def with_training_config(folder, loss="mean_squared_error", metrics=None, optimizer=None):
    obj = json.loads((folder / "model.json").read_text())
    obj["trainingConfig"] = {"loss": loss, "metrics": metrics, "optimizer_config": optimizer}
    (folder / "model.json").write_text(json.dumps(obj))


@pytest.mark.parametrize(
    "optimizer,loss,metrics,match",
    [
        (
            {"class_name": "SGD", "config": {"learning_rate": 0.1}},
            "no_such_loss",
            None,
            r"trainingConfig.loss: unknown loss 'no_such_loss'",
        ),
        (
            {"class_name": "Momentum", "config": {"learning_rate": 0.1, "momentum": 0.9}},
            "mse",
            ["accuracy", "no_such_metric"],
            r"trainingConfig.metrics\[1\]: unknown metric 'no_such_metric'",
        ),
        (
            {"class_name": "SGD", "config": {"learning_rate": 0.1}},
            {"no_such_output": "mse"},
            None,
            r"cannot compile the model with its trainingConfig",
        ),
    ],
)
def test_failed_loads_keep_no_tensor(model_dir, optimizer, loss, metrics, match):
    with_training_config(model_dir, loss, metrics, optimizer)
    before = memory_counts()
    for _ in range(50):
        with pytest.raises(ModelFormatError, match=match):
            tf.io.load_layers_model(str(model_dir))
    assert memory_counts() == before


def test_names_are_shown_as_written(model_dir):
    with_training_config(
        model_dir, "__import__", None, {"class_name": "SGD", "config": {"learning_rate": 0.1}}
    )
    with pytest.raises(ModelFormatError) as info:
        tf.io.load_layers_model(str(model_dir))
    message = str(info.value)
    assert "'__import__'" in message and "Import " not in message
    assert str(model_dir / "model.json") in message
    assert "cannot build the model from its topology" not in message


def test_bad_optimizer_argument_names_the_field(model_dir):
    with_training_config(
        model_dir, optimizer={"class_name": "Adam", "config": {"learning_rate": "fast"}}
    )
    with pytest.raises(
        ModelFormatError, match=r"trainingConfig.optimizer_config: cannot make Adam"
    ):
        tf.io.load_layers_model(str(model_dir))
    with_training_config(model_dir, optimizer={"class_name": "Adam", "config": [0.1]})
    with pytest.raises(ModelFormatError, match=r"trainingConfig.optimizer_config.config: must be"):
        tf.io.load_layers_model(str(model_dir))


@pytest.mark.parametrize(
    "optimizer,cls,expected",
    [
        (
            {"class_name": "Adam", "config": {"learning_rate": 0.001}},
            "Adam",
            {"learningRate": 0.001, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-7},
        ),
        (
            {"class_name": "Adam", "config": {"lr": 0.01, "beta_1": 0.8}},
            "Adam",
            {"learningRate": 0.01, "beta1": 0.8, "beta2": 0.999, "epsilon": 1e-7},
        ),
        (
            {"class_name": "Adam", "config": {"learningRate": 0.002, "beta1": 0.5, "beta2": 0.6}},
            "Adam",
            {"learningRate": 0.002, "beta1": 0.5, "beta2": 0.6, "epsilon": 1e-7},
        ),
        (
            {"class_name": "RMSprop", "config": {"learning_rate": 0.01, "rho": 0.8}},
            "RMSProp",
            {"learningRate": 0.01, "decay": 0.8, "momentum": 0.0, "centered": False},
        ),
        (
            {"class_name": "SGD", "config": {"learning_rate": 0.1, "momentum": 0.9}},
            "Momentum",
            {"learningRate": 0.1, "momentum": 0.9, "useNesterov": False},
        ),
        ({"class_name": "SGD", "config": {}}, "SGD", {"learningRate": 0.01}),
        (
            {"class_name": "Adadelta", "config": {"learning_rate": 1.0}},
            "Adadelta",
            {"learningRate": 1.0, "rho": 0.95, "epsilon": 1e-7},
        ),
        (
            {"class_name": "Adagrad", "config": {}},
            "Adagrad",
            {"learningRate": 0.001, "initialAccumulatorValue": 0.1},
        ),
    ],
)
def test_keras_style_optimizer_configs_use_keras_defaults(model_dir, optimizer, cls, expected):
    with_training_config(model_dir, optimizer=optimizer)
    model = tf.io.load_layers_model(str(model_dir))
    assert model.optimizer.get_class_name() == cls
    config = model.optimizer.get_config()
    for key, value in expected.items():
        assert config[key] == pytest.approx(value), key
    optimizer = model.optimizer
    model.dispose()
    kept = getattr(optimizer, "c", None)  # TF.js's Momentum.dispose() leaves its -lr scalar
    if kept is not None and not kept.is_disposed:
        kept.dispose()
