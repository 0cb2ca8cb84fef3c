"""Malformed and malicious models: each load fails with a clear error naming the file and the
problem, and leaves tf.memory() exactly where it was."""

from __future__ import annotations

import json
import os
import shutil
import struct

import numpy as np
import pytest
from io_test_helpers import (  # noqa: F401 - autouse fixtures
    GOLDEN_IO,
    dense_model,
    fresh_layer_names,
    memory_counts,
    private_model_store,
)

import tidytensor as tf
from tidytensor.io import (
    IOHandlerError,
    ModelFileNotFoundError,
    ModelFormatError,
    ModelTooLargeError,
)


@pytest.fixture
def model_dir(tmp_path):
    """A saved two-layer model in 3 shards: returns (folder, model.json dict)."""
    model = dense_model()
    folder = tmp_path / "m"
    tf.io.save_model(model, str(folder), shard_size_bytes=40)
    model.dispose()
    return folder


def read_json(folder):
    return json.loads((folder / "model.json").read_text())


def write_json(folder, obj):
    (folder / "model.json").write_text(json.dumps(obj))


def expect_failure(target, error, match, **kwargs):
    """The load raises ``error`` matching ``match`` and memory is back to where it was."""
    before = memory_counts()
    variables = len(tf.engine().state.registered_variables)
    with pytest.raises(error, match=match) as info:
        tf.io.load_layers_model(str(target) if not hasattr(target, "load") else target, **kwargs)
    assert memory_counts() == before
    assert len(tf.engine().state.registered_variables) == variables
    return info.value


# ------------------------------------------------------------------------- the JSON
@pytest.mark.parametrize(
    "text,match",
    [
        ("[1, 2]", "is not a model: expected a JSON object"),
        ("{}", "contains neither model topology or manifest for weights"),
        ('{"hello": 1}', r"keys found: hello"),
        ("{not json", "is not valid JSON"),
        (b"\xff\xfe\x00garbage", "is not valid JSON"),
        ("[" * 100000 + "]" * 100000, "is not valid JSON"),
        ('{"modelTopology": "Sequential"}', "'modelTopology' must be a JSON object"),
        ('{"modelTopology": {"config": {}}}', "has no 'class_name' string"),
        ('{"modelTopology": {"class_name": "Sequential"}}', r"\(Sequential\) has no 'config'"),
        ('{"modelTopology": {"node": []}, "format": "graph-model"}', "a graph model"),
        ('{"modelTopology": {"node": [], "versions": {}}}', "holds a graph model"),
        (
            '{"modelTopology": {"class_name": "Sequential", "config": {"layers": []}}, "weightsManifest": {}}',
            "must be a JSON array of groups",
        ),
        (
            '{"modelTopology": {"class_name": "Sequential", "config": {"layers": []}}, "weightsManifest": [{"paths": "a.bin", "weights": []}]}',
            r"paths must be an array of strings",
        ),
        (
            '{"modelTopology": {"class_name": "Sequential", "config": {"layers": []}}, "trainingConfig": 3}',
            "'trainingConfig' must be a JSON object",
        ),
    ],
)
def test_json_that_is_not_a_model(tmp_path, text, match):
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "model.json").write_bytes(text.encode() if isinstance(text, str) else text)
    err = expect_failure(folder, ModelFormatError, match)
    assert str(folder / "model.json") in str(err)


def test_missing_model_json(tmp_path):
    expect_failure(tmp_path, ModelFileNotFoundError, "has no model.json")
    expect_failure(tmp_path / "nope.json", ModelFileNotFoundError, "nope.json does not exist")
    err = expect_failure(tmp_path / "nope.json", FileNotFoundError, "does not exist")
    assert isinstance(err, tf.TidyTensorError)


def test_unknown_layer_class_lists_registered_and_how_to_register(model_dir):
    obj = read_json(model_dir)
    obj["modelTopology"]["config"]["layers"][1]["class_name"] = "MyFancyLayer"
    write_json(model_dir, obj)
    err = expect_failure(model_dir, ModelFormatError, "Unknown layer: MyFancyLayer")
    text = str(err)
    assert str(model_dir / "model.json") in text
    assert "tf.serialization.register_class(YourLayer)" in text
    assert "class_name = 'MyFancyLayer'" in text
    assert "Registered layer classes: " in text and "Dense" in text


def test_unknown_class_in_a_nested_model(tmp_path):
    obj = json.loads((GOLDEN_IO / "nested" / "model.json").read_text())
    inner = next(
        l for l in obj["modelTopology"]["config"]["layers"] if l["class_name"] == "Sequential"
    )
    inner["config"]["layers"][0]["class_name"] = "NotARealLayer"
    folder = tmp_path / "n"
    shutil.copytree(GOLDEN_IO / "nested", folder)
    write_json(folder, obj)
    expect_failure(folder, ModelFormatError, "Unknown layer: NotARealLayer")


def test_bad_layer_config_is_a_format_error_and_frees_everything(model_dir):
    obj = read_json(model_dir)
    obj["modelTopology"]["config"]["layers"][1]["config"]["activation"] = "no_such_activation"
    write_json(model_dir, obj)
    expect_failure(
        model_dir,
        ModelFormatError,
        r"modelTopology.config.layers\[1\].config.activation: unknown activation "
        "'no_such_activation'",
    )
    obj["modelTopology"]["config"]["layers"][1]["config"]["activation"] = "relu"
    obj["modelTopology"]["config"]["layers"][1]["config"]["units"] = -3
    write_json(model_dir, obj)
    expect_failure(model_dir, ModelFormatError, "cannot build the model from modelTopology")


def test_a_layer_is_not_a_model(tmp_path):
    folder = tmp_path / "l"
    folder.mkdir()
    write_json(
        folder,
        {
            "modelTopology": {
                "class_name": "Dense",
                "config": {"units": 2, "name": "d", "batch_input_shape": [None, 2]},
            }
        },
    )
    expect_failure(folder, ModelFormatError, "is a layer, not a model")


# ----------------------------------------------------------------------- weight paths
@pytest.mark.parametrize(
    "path,match",
    [
        ("/etc/passwd", "is absolute or a URL"),
        ("\\\\server\\share\\w.bin", "is absolute or a URL"),
        ("C:\\weights.bin", "is absolute or a URL"),
        ("http://evil.example/w.bin", "is absolute or a URL"),
        ("file:w.bin", "is absolute or a URL"),
        ("../outside.bin", "escapes the model directory"),
        ("sub/../../outside.bin", "escapes the model directory"),
        ("a\x00b", "contains a NUL byte"),
        ("", "is not a non-empty string"),
    ],
)
def test_weight_paths_outside_the_model_directory(model_dir, path, match):
    (model_dir.parent / "outside.bin").write_bytes(b"\0" * 1000)
    obj = read_json(model_dir)
    obj["weightsManifest"][0]["paths"][0] = path
    write_json(model_dir, obj)
    err = expect_failure(model_dir, ModelFormatError, match)
    assert str(model_dir / "model.json") in str(err)


def test_symlink_escaping_the_model_directory(model_dir):
    outside = model_dir.parent / "secret.bin"
    outside.write_bytes((model_dir / "group1-shard1of3.bin").read_bytes())
    (model_dir / "group1-shard1of3.bin").unlink()
    os.symlink(outside, model_dir / "group1-shard1of3.bin")
    expect_failure(model_dir, ModelFormatError, "outside the model directory")


def test_subdirectory_weight_paths_are_fine(model_dir):
    (model_dir / "w").mkdir()
    obj = read_json(model_dir)
    for p in obj["weightsManifest"][0]["paths"]:
        os.rename(model_dir / p, model_dir / "w" / p)
    obj["weightsManifest"][0]["paths"] = ["./w/" + p for p in obj["weightsManifest"][0]["paths"]]
    write_json(model_dir, obj)
    tf.io.load_layers_model(str(model_dir)).dispose()


# ----------------------------------------------------------------------- weight bytes
def test_missing_shard(model_dir):
    (model_dir / "group1-shard2of3.bin").unlink()
    err = expect_failure(
        model_dir,
        ModelFileNotFoundError,
        "group1-shard2of3.bin listed in the manifest does not exist",
    )
    assert isinstance(err, FileNotFoundError)


def test_short_shard(model_dir):
    data = (model_dir / "group1-shard3of3.bin").read_bytes()
    (model_dir / "group1-shard3of3.bin").write_bytes(data[:-3])
    expect_failure(
        model_dir,
        ModelFormatError,
        r"needs 92 bytes .* hold only 89 bytes \(group1-shard1of3.bin: 40 bytes, group1-shard2of3.bin: 40 bytes, group1-shard3of3.bin: 9 bytes\): a weight file is missing or truncated",
    )


def test_extra_bytes(model_dir):
    with open(model_dir / "group1-shard3of3.bin", "ab") as f:
        f.write(b"\0" * 4)
    expect_failure(model_dir, ModelFormatError, "describe 92 bytes, but its files hold 96 bytes")


def test_manifest_shape_larger_than_the_bytes(model_dir):
    obj = read_json(model_dir)
    obj["weightsManifest"][0]["weights"][0]["shape"] = [400000, 3000]
    write_json(model_dir, obj)
    expect_failure(
        model_dir,
        ModelFormatError,
        "needs 4800000044 bytes for its 4 weights, but its files hold only 92 bytes",
    )


def test_max_bytes_limit(model_dir):
    expect_failure(
        model_dir,
        ModelTooLargeError,
        "needs 92 bytes, more than the limit of 64 bytes",
        max_bytes=64,
    )
    tf.io.load_layers_model(str(model_dir), max_bytes=92).dispose()


def test_topology_much_bigger_than_its_weights(model_dir):
    """Units inflated in the topology: building would allocate far more than the manifest's
    92 bytes; the load stops at the budget instead."""
    obj = read_json(model_dir)
    obj["modelTopology"]["config"]["layers"][0]["config"]["units"] = 5_000_000
    write_json(model_dir, obj)
    err = expect_failure(
        model_dir, ModelTooLargeError, "building the model's layers needs more memory"
    )
    assert isinstance(err, MemoryError)


@pytest.mark.parametrize(
    "field,value,match",
    [
        (
            "shape",
            [3, 4],
            r"has shape \(3, 4\) in the manifest but the model's m_d1/kernel has shape \(4, 3\)",
        ),
        (
            "dtype",
            "int32",
            "has dtype int32 in the manifest but the model's m_d1/kernel has dtype float32",
        ),
        ("name", "m_d1/not_there", "Provided weight data has no target variable: m_d1/not_there"),
        ("dtype", "float64", "Unsupported dtype in weight 'm_d1/kernel'"),
        ("shape", [4, -3], "must be an array of non-negative integers"),
        ("shape", [4, 3.0], "must be an array of non-negative integers"),
        ("shape", "4x3", "must be an array of non-negative integers"),
        ("group", "extra", "'group' must be 'model' or 'optimizer'"),
    ],
)
def test_manifest_disagrees_with_the_layers(model_dir, field, value, match):
    obj = read_json(model_dir)
    obj["weightsManifest"][0]["weights"][0][field] = value
    write_json(model_dir, obj)
    expect_failure(model_dir, ModelFormatError, match)


def test_unset_weights_in_strict_mode(model_dir):
    obj = read_json(model_dir)
    obj["weightsManifest"][0]["weights"][3]["name"] = "m_d1/bias"
    write_json(model_dir, obj)
    expect_failure(model_dir, ModelFormatError, "duplicate weight name 'm_d1/bias'")
    obj["weightsManifest"][0]["weights"] = obj["weightsManifest"][0]["weights"][:3]
    obj["weightsManifest"][0]["weights"][2]["shape"] = [3, 2]
    write_json(model_dir, obj)
    (model_dir / "group1-shard3of3.bin").write_bytes(
        (model_dir / "group1-shard3of3.bin").read_bytes()[:-8]
    )
    expect_failure(model_dir, ModelFormatError, r"1 of 4 weights are not set: m_d2/bias")
    model = tf.io.load_layers_model(str(model_dir), strict=False)
    assert model.get_layer("m_d2").weights[1].read().numpy().tolist() == [0.0, 0.0]
    model.dispose()


@pytest.mark.parametrize(
    "quantization,match",
    [
        (
            {"dtype": "uint8"},
            "with quantization uint8 doesn't have corresponding metadata min and scale",
        ),
        ({"dtype": "uint16", "min": 0}, "doesn't have corresponding metadata min and scale"),
        ({"dtype": "uint8", "min": "a", "scale": 1}, "quantization min must be a finite number"),
        (
            {"dtype": "uint8", "min": 0, "scale": float("nan")},
            "quantization scale must be a finite number",
        ),
        ({"dtype": "int4"}, "has unknown quantization dtype int4"),
        ("uint8", "'quantization' must be an object"),
    ],
)
def test_quantization_metadata(tmp_path, quantization, match):
    model = dense_model()
    tf.io.save_model(model, str(tmp_path / "q"), quantize="uint8")
    model.dispose()
    obj = read_json(tmp_path / "q")
    obj["weightsManifest"][0]["weights"][0]["quantization"] = quantization
    write_json(tmp_path / "q", obj)
    expect_failure(tmp_path / "q", ModelFormatError, match)


def test_float16_on_int32_weight():
    specs = [{"name": "x", "shape": [2], "dtype": "int32", "quantization": {"dtype": "float16"}}]
    with pytest.raises(
        ModelFormatError,
        match="quantized with float16 which only supports weights of type float32 not int32",
    ):
        tf.io.decode_weights(b"\0" * 4, specs)


def test_string_weight_length_past_the_end():
    data = struct.pack("<I", 3) + b"abc" + struct.pack("<I", 1_000_000) + b"x"
    specs = [{"name": "s", "shape": [2], "dtype": "string"}]
    before = memory_counts()
    with pytest.raises(ModelFormatError, match="element 1 claims 1000000 bytes"):
        tf.io.decode_weights(data, specs)
    with pytest.raises(ModelFormatError, match="no room for its length"):
        tf.io.decode_weights(data[:9], specs)
    with pytest.raises(ModelFormatError, match="is not valid UTF-8"):
        tf.io.decode_weights(struct.pack("<I", 2) + b"\xff\xfe" + struct.pack("<I", 0), specs)
    assert memory_counts() == before
    out = tf.io.decode_weights(struct.pack("<I", 3) + b"abc" + struct.pack("<I", 0), specs)
    assert out["s"].array_sync() == ["abc", ""]
    tf.dispose(out)


def test_from_memory_size_mismatch_and_missing_specs():
    model = dense_model()
    seen = []
    tf.io.save_model(model, tf.io.with_save_handler(seen.append))
    model.dispose()
    art = seen[0]
    short = tf.io.ModelArtifacts(
        model_topology=art.model_topology,
        weight_specs=art.weight_specs,
        weight_data=art.weight_data[:-1],
    )
    expect_failure(
        tf.io.from_memory(short),
        ModelFormatError,
        "the weight data is too short: weight 'm_d2/bias'",
    )
    extra = tf.io.ModelArtifacts(
        model_topology=art.model_topology,
        weight_specs=art.weight_specs,
        weight_data=art.weight_data + b"\0",
    )
    expect_failure(tf.io.from_memory(extra), ModelFormatError, "1 bytes unaccounted for")
    nospecs = tf.io.ModelArtifacts(model_topology=art.model_topology, weight_data=art.weight_data)
    expect_failure(
        tf.io.from_memory(nospecs), ModelFormatError, "contains weight data, but not weight specs"
    )
    notopo = tf.io.ModelArtifacts(weight_specs=art.weight_specs, weight_data=art.weight_data)
    expect_failure(tf.io.from_memory(notopo), ModelFormatError, "have no model topology")
    expect_failure(
        tf.io.from_memory(art), ModelTooLargeError, "more than the limit of 10 bytes", max_bytes=10
    )
    with pytest.raises(ModelFormatError, match="unknown model artifacts field 'weightz'"):
        tf.io.from_memory({"modelTopology": {}, "weightz": 1})


def test_handler_without_load():
    with pytest.raises(ModelFormatError, match="does not have the `load` method"):
        tf.io.load_layers_model(42)


def test_weights_of_a_failed_load_do_not_change_a_live_model(model_dir):
    """A failing load never touches other models (each load builds its own variables)."""
    good = tf.io.load_layers_model(str(model_dir))
    values = [w.read().numpy() for w in good.weights]
    obj = read_json(model_dir)
    obj["weightsManifest"][0]["weights"][1]["dtype"] = "int32"
    write_json(model_dir, obj)
    expect_failure(model_dir, ModelFormatError, "has dtype int32")
    for w, v in zip(good.weights, values, strict=True):
        np.testing.assert_array_equal(w.read().numpy(), v)
    good.dispose()


def test_training_config_not_supported_fields(model_dir):
    obj = read_json(model_dir)
    obj["trainingConfig"] = {
        "loss": "mse",
        "loss_weights": [1.0],
        "optimizer_config": {"class_name": "SGD", "config": {"learning_rate": 0.1}},
    }
    write_json(model_dir, obj)
    expect_failure(model_dir, ModelFormatError, "Loading loss_weights is not supported yet")


def test_unknown_optimizer_in_training_config(model_dir):
    obj = read_json(model_dir)
    obj["trainingConfig"] = {
        "loss": "mean_squared_error",
        "metrics": [],
        "optimizer_config": {"class_name": "Lion", "config": {}},
    }
    write_json(model_dir, obj)
    expect_failure(model_dir, ModelFormatError, "Unknown optimizer 'Lion'")


def test_io_handler_error_is_an_oserror():
    assert issubclass(IOHandlerError, OSError) and issubclass(IOHandlerError, tf.TidyTensorError)
