"""Real TF.js artifacts (tests/golden/io/<name>/, written by tests/golden/io_fixtures.js) load
in tidytensor and predict what TF.js predicted after loading the same files, within 1e-5.

Every fixture's layer classes must exist here: a missing one fails its test by name.
"""

from __future__ import annotations

import base64
import json
import warnings

import numpy as np
import pytest
from io_test_helpers import (  # noqa: F401 - autouse fixtures
    GOLDEN_IO,
    assert_outputs_match,
    fixture_dirs,
    fresh_layer_names,
    memory_counts,
    missing_layer_classes,
    private_model_store,
    read_record,
    record_inputs,
)

import tidytensor as tf

FIXTURES = fixture_dirs()


def _skip_if_missing(name: str) -> None:
    missing = missing_layer_classes(GOLDEN_IO / name)
    assert not missing, f"layer class(es) missing from tidytensor: {', '.join(missing)}"


def _shared_layer_weights(model) -> int:
    """Weights TF.js's dispose leaves alive: a layer applied more than once keeps a reference
    count above 0 after one model.dispose() (TF.js 4.22 behaves the same)."""
    return sum(
        len(layer.weights)
        for layer in model.layers
        if len(layer.inbound_nodes) > 1 and not hasattr(layer, "layers")
    )


def test_every_fixture_has_a_prediction():
    assert len(FIXTURES) >= 25
    for name in FIXTURES:
        record = read_record(GOLDEN_IO / name)
        assert record["outputs"], name


@pytest.mark.parametrize("name", FIXTURES)
def test_fixture_loads_and_predicts_like_tfjs(name):
    _skip_if_missing(name)
    before = memory_counts()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # compile exists: no "loaded uncompiled" warning
        model = tf.io.load_layers_model(str(GOLDEN_IO / name))
    record = read_record(GOLDEN_IO / name)
    assert [w.original_name for w in model.weights] == record["weights"]
    xs = record_inputs(record)
    ys = model.predict(xs[0] if len(xs) == 1 else xs)
    assert_outputs_match(ys, record)
    tf.dispose([xs, ys])
    leftover = _shared_layer_weights(model)
    model.dispose()
    assert memory_counts()[0] == before[0] + leftover


@pytest.mark.parametrize(
    "form", ["dir", "model_json", "file_url", "file_url_dir", "pathlib", "from_memory"]
)
def test_every_path_form_loads(form):
    folder = GOLDEN_IO / "sharded_groups"
    record = read_record(folder)
    if form == "dir":
        target = str(folder)
    elif form == "model_json":
        target = str(folder / "model.json")
    elif form == "file_url":
        target = "file://" + str(folder / "model.json")
    elif form == "file_url_dir":
        target = "file://" + str(folder)
    elif form == "pathlib":
        target = folder
    else:
        model_json = json.loads((folder / "model.json").read_text())
        data = b"".join(
            (folder / p).read_bytes() for g in model_json["weightsManifest"] for p in g["paths"]
        )
        target = tf.io.from_memory(
            {
                "modelTopology": model_json["modelTopology"],
                "weightSpecs": tf.io.get_weight_specs(model_json["weightsManifest"]),
                "weightData": data,
            }
        )
    model = tf.io.load_layers_model(target)
    xs = record_inputs(record)
    ys = model.predict(xs[0])
    assert_outputs_match(ys, record)
    tf.dispose([xs, ys])
    model.dispose()


def test_from_memory_with_shard_list_spanning_weights():
    folder = GOLDEN_IO / "sharded"
    model_json = json.loads((folder / "model.json").read_text())
    shards = [(folder / p).read_bytes() for p in model_json["weightsManifest"][0]["paths"]]
    assert len(shards) > 2
    artifacts = tf.io.ModelArtifacts(
        model_topology=model_json["modelTopology"],
        weight_specs=tf.io.get_weight_specs(model_json["weightsManifest"]),
        weight_data=shards,
    )
    model = tf.io.load_layers_model(tf.io.from_memory(artifacts))
    record = read_record(folder)
    xs = record_inputs(record)
    ys = model.predict(xs[0])
    assert_outputs_match(ys, record)
    tf.dispose([xs, ys])
    model.dispose()


def test_user_defined_metadata_is_restored():
    model = tf.io.load_layers_model(str(GOLDEN_IO / "dense"))
    assert model.get_user_defined_metadata() == {"purpose": "io fixture", "labels": ["a", "b", "c"]}
    model.dispose()


def test_converter_form_topology_and_groups():
    folder = GOLDEN_IO / "keras_converted"
    model_json = json.loads((folder / "model.json").read_text())
    assert "model_config" in model_json["modelTopology"]
    assert len(model_json["weightsManifest"]) == 2
    model = tf.io.load_layers_model(str(folder))
    assert [layer.name for layer in model.layers][-2:] == ["dense", "dense_1"]
    model.dispose()


def test_sequential_as_bare_list_loads():
    model_json = json.loads((GOLDEN_IO / "dense" / "model.json").read_text())
    topology = model_json["modelTopology"]
    topology["config"] = topology["config"]["layers"]  # the old format: a bare list of layers
    data = (GOLDEN_IO / "dense" / "weights.bin").read_bytes()
    handler = tf.io.from_memory(
        {
            "modelTopology": topology,
            "weightSpecs": tf.io.get_weight_specs(model_json["weightsManifest"]),
            "weightData": data,
        }
    )
    model = tf.io.load_layers_model(handler)
    record = read_record(GOLDEN_IO / "dense")
    xs = record_inputs(record)
    ys = model.predict(xs[0])
    assert_outputs_match(ys, record)
    tf.dispose([xs, ys])
    model.dispose()


def test_functional_class_name_loads():
    model_json = json.loads((GOLDEN_IO / "nested" / "model.json").read_text())
    assert model_json["modelTopology"]["class_name"] == "Model"
    model_json["modelTopology"]["class_name"] = "Functional"
    handler = tf.io.from_memory(
        {
            "modelTopology": model_json["modelTopology"],
            "weightSpecs": tf.io.get_weight_specs(model_json["weightsManifest"]),
            "weightData": (GOLDEN_IO / "nested" / "weights.bin").read_bytes(),
        }
    )
    model = tf.io.load_layers_model(handler)
    assert type(model).__name__ == "Functional"
    model.dispose()


def test_compiled_model_comes_back_compiled_with_optimizer_state():
    folder = GOLDEN_IO / "compiled_adam"
    record = read_record(folder)
    before = memory_counts()
    model = tf.io.load_layers_model(str(folder))
    assert model.optimizer.get_class_name() == record["optimizer"]["className"]
    assert model.optimizer.get_config() == pytest.approx(record["optimizer"]["config"])
    assert model.loss == "binaryCrossentropy"
    got = model.optimizer.get_weights()
    assert [w["name"] for w in got] == [w["name"] for w in record["optimizer"]["weights"]]
    for w, expected in zip(got, record["optimizer"]["weights"], strict=True):
        np.testing.assert_allclose(w["tensor"].numpy().reshape(-1), expected["values"], rtol=1e-6)
    tf.dispose(got[0]["tensor"])  # get_weights() makes a new 'iter' scalar
    # It trains from where TF.js stopped.
    x = tf.tensor(np.ones((2, 3), np.float32))
    y = tf.tensor([[1.0], [0.0]])
    model.fit(x, y, epochs=1, batch_size=2, verbose=0)
    tf.dispose([x, y])
    assert model.optimizer.iterations == 7
    model.dispose()  # the loader's optimizer is disposed with the model
    assert memory_counts()[0] == before[0]


def test_strict_false_skips_unmatched_and_unset_weights():
    folder = GOLDEN_IO / "dense"
    model_json = json.loads((folder / "model.json").read_text())
    specs = tf.io.get_weight_specs(model_json["weightsManifest"])
    data = (folder / "weights.bin").read_bytes()
    # Rename the output bias: in strict mode it has no target and out/bias is unset.
    specs = [dict(s, name="out/extra") if s["name"] == "out/bias" else s for s in specs]
    art = {"modelTopology": model_json["modelTopology"], "weightSpecs": specs, "weightData": data}
    with pytest.raises(tf.io.ModelFormatError, match="no target variable: out/extra"):
        tf.io.load_layers_model(tf.io.from_memory(art))
    model = tf.io.load_layers_model(tf.io.from_memory(art), strict=False)
    kernel = model.get_layer("out").weights[0].read().numpy()
    expected = np.frombuffer(data, np.float32)[4 * 5 + 5 : 4 * 5 + 5 + 15].reshape(5, 3)
    np.testing.assert_array_equal(kernel, expected)
    model.dispose()


def test_codec_encode_matches_tfjs_bytes():
    codec = json.loads((GOLDEN_IO / "codec.json").read_text())
    tensors = {
        "f": tf.tensor([1.5, -2.25, 3e-8, 1e30], [2, 2]),
        "i": tf.tensor([1, -2, 2147483647, -2147483648], [4], "int32"),
        "b": tf.tensor([True, False, True], [3], "bool"),
        "s": tf.tensor(["a", "", "héllo", "日本"], [2, 2], "string"),
        "c": tf.complex(tf.tensor([1, -2]), tf.tensor([0.5, 3])),
        "e": tf.zeros([0, 3]),
    }
    data, specs = tf.io.encode_weights(tensors)
    assert specs == codec["encode"]["specs"]
    assert data == base64.b64decode(codec["encode"]["data"])
    decoded = tf.io.decode_weights(data, specs)
    for name, t in tensors.items():
        assert decoded[name].dtype == t.dtype
        assert decoded[name].shape == t.shape
        assert decoded[name].array_sync() == t.array_sync()


def test_codec_quantized_decode_matches_tfjs():
    codec = json.loads((GOLDEN_IO / "codec.json").read_text())["quantized"]
    decoded = tf.io.decode_weights(base64.b64decode(codec["data"]), codec["specs"])
    for name, expected in codec["decoded"].items():
        assert decoded[name].dtype == expected["dtype"]
        np.testing.assert_array_equal(
            decoded[name].numpy().reshape(-1), np.asarray(expected["values"], np.float32)
        )
