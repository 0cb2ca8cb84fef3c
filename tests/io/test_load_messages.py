"""Load errors say which file, which field, what was given and what was expected: no Python
internals ("list index out of range"), names as the file spells them, NaN as Python writes it (nan)."""

from __future__ import annotations

import json
import shutil

import pytest
from io_test_helpers import (  # noqa: F401 - autouse fixtures
    GOLDEN_IO,
    dense_model,
    fresh_layer_names,
    memory_counts,
    private_model_store,
)

import tidytensor as tf
from tidytensor.io import ModelFormatError

INTERNAL = (
    "IndexError",
    "ValueError",
    "KeyError",
    "TypeError",
    "not enough values",
    "out of range",
)


def load_error(folder, obj):
    (folder / "model.json").write_text(json.dumps(obj))
    before = memory_counts()
    with pytest.raises(ModelFormatError) as info:
        tf.io.load_layers_model(str(folder))
    assert memory_counts() == before
    message = str(info.value)
    assert message.startswith(str(folder / "model.json") + ": "), message
    for text in INTERNAL:
        assert text not in message, message
    return message


@pytest.fixture
def functional(tmp_path):
    folder = tmp_path / "f"
    shutil.copytree(GOLDEN_IO / "functional_multi_io", folder)
    return folder, json.loads((folder / "model.json").read_text())


def _layers(obj):
    return obj["modelTopology"]["config"]["layers"]


@pytest.mark.parametrize(
    "mutate,field,detail",
    [
        (
            lambda o: _layers(o)[3].update(inbound_nodes=[[[]]]),
            "layers[3].inbound_nodes[0][0]",
            "got []",
        ),
        (
            lambda o: _layers(o)[3].update(inbound_nodes=[[["shared"]]]),
            "layers[3].inbound_nodes[0][0]",
            "expected [layer_name, node_index, tensor_index, kwargs]",
        ),
        (
            lambda o: _layers(o)[3].update(inbound_nodes=[[["shared", 5, 0, {}]]]),
            "layers[3].inbound_nodes[0][0]",
            'asks for node 5 of layer "shared", which has 2 nodes',
        ),
        (
            lambda o: _layers(o)[3].update(inbound_nodes=[[["shared", 0, 4, {}]]]),
            "",
            "inbound_nodes of mid_b asks for output tensor 4 of layer shared, which has 1",
        ),
        (
            lambda o: _layers(o)[3].update(inbound_nodes=[[["nope", 0, 0, {}]]]),
            "layers[3].inbound_nodes[0][0]",
            'names layer "nope", which the model does not have',
        ),
        (
            lambda o: o["modelTopology"]["config"].update(input_layers=[["in_a"], ["in_b", 0, 0]]),
            "input_layers[0]",
            "expected [layer_name, node_index, tensor_index]",
        ),
        (
            lambda o: o["modelTopology"]["config"].update(
                output_layers=[["out_a", 2, 0], ["out_b", 0, 0]]
            ),
            "output_layers[0]",
            'asks for node 2 of layer "out_a", which has 1 node',
        ),
        (
            lambda o: o["modelTopology"]["config"].update(
                output_layers=[["out_a", 0, 3], ["out_b", 0, 0]]
            ),
            "",
            "output_layers asks for output tensor 3 of layer out_a",
        ),
        (
            lambda o: _layers(o)[3].pop("name"),
            "layers[3].name",
            "expected the layer's name, got null",
        ),
        (lambda o: _layers(o)[3].pop("config"), "layers[3].config", "missing"),
        (
            lambda o: _layers(o)[4].update(name="mid_b"),
            "layers[4].name",
            '"mid_b" names two layers',
        ),
        (
            lambda o: _layers(o)[2]["config"].update(
                kernel_initializer={"class_name": "__import__", "config": {}}
            ),
            "layers[2].config.kernel_initializer",
            "unknown initializer '__import__'",
        ),
        (
            lambda o: _layers(o)[2]["config"].update(kernel_initializer={"class_name": "__x__"}),
            "layers[2].config.kernel_initializer",
            "expected an initializer name or {class_name, config} object, got "
            '{"class_name": "__x__"}',
        ),
    ],
)
def test_functional_topology_errors_name_the_field(functional, mutate, field, detail):
    folder, obj = functional
    mutate(obj)
    message = load_error(folder, obj)
    if field:
        assert f"modelTopology.config.{field}: " in message, message
    assert detail in message, message


def test_names_and_nan_are_shown_as_written(tmp_path):
    model = dense_model()
    folder = tmp_path / "m"
    tf.io.save_model(model, str(folder))
    model.dispose()
    obj = json.loads((folder / "model.json").read_text())
    obj["modelTopology"]["config"]["layers"][0]["config"]["activation"] = "__import__"
    message = load_error(folder, obj)
    assert (
        "modelTopology.config.layers[0].config.activation: unknown activation '__import__'"
        in message
    )
    obj["modelTopology"]["config"]["layers"][0]["config"]["activation"] = "relu"
    obj["modelTopology"]["config"]["layers"][0]["config"]["units"] = float("nan")
    message = load_error(folder, obj)
    assert "got nan." in message and "null" not in message, message


def test_structure_errors_name_the_file(tmp_path):
    model = dense_model()
    folder = tmp_path / "m"
    tf.io.save_model(model, str(folder))
    model.dispose()
    obj = json.loads((folder / "model.json").read_text())
    obj["modelTopology"]["config"]["layers"][1] = {"class_name": 5, "config": {}}
    message = load_error(folder, obj)
    assert "modelTopology.config.layers[1].class_name: expected a string, got 5" in message
    obj["modelTopology"]["config"]["layers"][1] = "Dense"
    message = load_error(folder, obj)
    assert "modelTopology.config.layers[1]: expected a layer object" in message
    inner = {"class_name": "Dense", "config": {"units": 1}}
    for _ in range(250):
        inner = {"class_name": "TimeDistributed", "config": {"layer": inner}}
    obj["modelTopology"]["config"]["layers"][1] = inner
    message = load_error(folder, obj)
    assert "nested more than 200 levels deep" in message
