"""The unique-name map of the Layers API does not grow with repeated loads: names of disposed
models (and of failed loads) are given back, while live models keep TF.js's naming."""

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
from tidytensor.layers.engine import state


def held_names() -> int:
    return len(state._name_map)


@pytest.fixture
def saved(tmp_path):
    model = dense_model()
    folder = tmp_path / "m"
    tf.io.save_model(model, str(folder))
    model.dispose()
    return folder


def test_load_dispose_cycles_do_not_grow_the_name_map(saved):
    tf.io.load_layers_model(str(saved)).dispose()
    after_one = held_names()
    for _ in range(300):
        tf.io.load_layers_model(str(saved)).dispose()
    assert held_names() == after_one


def test_failed_loads_do_not_grow_the_name_map(saved):
    obj = json.loads((saved / "model.json").read_text())
    obj["weightsManifest"][0]["weights"][0]["shape"] = [2, 6]  # 8 values, as [4, 3]: bytes fit
    (saved / "model.json").write_text(json.dumps(obj))
    before, names = memory_counts(), held_names()
    for _ in range(50):
        with pytest.raises(ModelFormatError, match=r"has shape \(2, 6\) in the manifest"):
            tf.io.load_layers_model(str(saved))
    assert held_names() == names
    assert memory_counts() == before


def test_live_models_keep_tfjs_names_and_disposed_names_come_back(saved):
    first = tf.io.load_layers_model(str(saved))
    second = tf.io.load_layers_model(str(saved))
    assert [w.name for w in first.weights] == [
        "m_d1/kernel",
        "m_d1/bias",
        "m_d2/kernel",
        "m_d2/bias",
    ]
    assert [w.name for w in second.weights] == [
        "m_d1/kernel_1",
        "m_d1/bias_1",
        "m_d2/kernel_1",
        "m_d2/bias_1",
    ]
    first.dispose()
    third = tf.io.load_layers_model(str(saved))  # m_d1/kernel_1 is still live
    assert [w.name for w in third.weights] == [
        "m_d1/kernel_2",
        "m_d1/bias_2",
        "m_d2/kernel_2",
        "m_d2/bias_2",
    ]
    second.dispose()
    third.dispose()
    fourth = tf.io.load_layers_model(str(saved))
    assert [w.name for w in fourth.weights] == [
        "m_d1/kernel",
        "m_d1/bias",
        "m_d2/kernel",
        "m_d2/bias",
    ]
    fourth.dispose()
