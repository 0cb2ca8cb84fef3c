"""Saving (directory, file://, handlers, the local model store, quantization, sharding) and
loading back; atomic saves under injected failures."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from io_test_helpers import (  # noqa: F401 - autouse fixtures
    dense_model,
    files_in,
    fresh_layer_names,
    memory_counts,
    private_model_store,
)

import tidytensor as tf
from tidytensor import io, layers
from tidytensor.io import atomic
from tidytensor.js_strings import js_json
from tidytensor.layers.engine.serialization import register_class

X = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)


def predict(model, x=X):
    return tf.tidy(lambda: model.predict(tf.tensor(x)).numpy())


def weights_of(model):
    return [w.read().numpy() for w in model.weights]


# --------------------------------------------------------------------------- directories
def test_save_to_directory_writes_tfjs_node_layout(tmp_path):
    model = dense_model()
    result = tf.io.save_model(model, str(tmp_path / "m"))
    assert files_in(tmp_path / "m") == ["model.json", "weights.bin"]
    model_json = json.loads((tmp_path / "m" / "model.json").read_text())
    assert list(model_json) == [
        "modelTopology",
        "format",
        "generatedBy",
        "convertedBy",
        "weightsManifest",
    ]
    assert model_json["format"] == "layers-model"
    assert model_json["generatedBy"] == "TensorFlow.js tfjs-layers v4.22.0"
    assert model_json["convertedBy"] is None
    assert model_json["modelTopology"]["class_name"] == "Sequential"
    assert model_json["modelTopology"]["backend"] == "tensor_flow.js"
    assert model_json["weightsManifest"] == [
        {
            "paths": ["weights.bin"],
            "weights": [
                {"name": "m_d1/kernel", "shape": [4, 3], "dtype": "float32"},
                {"name": "m_d1/bias", "shape": [3], "dtype": "float32"},
                {"name": "m_d2/kernel", "shape": [3, 2], "dtype": "float32"},
                {"name": "m_d2/bias", "shape": [2], "dtype": "float32"},
            ],
        }
    ]
    raw = (tmp_path / "m" / "weights.bin").read_bytes()
    assert raw == b"".join(w.astype("<f4").tobytes() for w in weights_of(model))
    info = result.model_artifacts_info
    assert info.model_topology_type == "JSON"
    assert info.weight_data_bytes == len(raw) == (12 + 3 + 6 + 2) * 4
    assert info.weight_specs_bytes == len(
        json.dumps(model_json["weightsManifest"][0]["weights"], separators=(",", ":"))
    )
    assert result.paths == [str(tmp_path / "m" / "model.json"), str(tmp_path / "m" / "weights.bin")]
    loaded = tf.io.load_layers_model(str(tmp_path / "m"))
    np.testing.assert_array_equal(predict(loaded), predict(model))
    assert type(loaded).__name__ == "Sequential"
    loaded.dispose()
    model.dispose()


@pytest.mark.parametrize("form", ["file_url", "model_json_path", "pathlib"])
def test_save_url_forms(tmp_path, form):
    model = dense_model()
    target = {
        "file_url": "file://" + str(tmp_path / "m"),
        "model_json_path": str(tmp_path / "m" / "model.json"),
        "pathlib": tmp_path / "m",
    }[form]
    tf.io.save_model(model, target)
    assert files_in(tmp_path / "m") == ["model.json", "weights.bin"]
    loaded = tf.io.load_layers_model("file://" + str(tmp_path / "m" / "model.json"))
    np.testing.assert_array_equal(predict(loaded), predict(model))
    loaded.dispose()
    model.dispose()


def test_sharded_save_uses_converter_names_and_spans_weights(tmp_path):
    model = dense_model(units=7)
    tf.io.save_model(model, str(tmp_path / "m"), shard_size_bytes=40)
    total = (4 * 7 + 7 + 7 * 2 + 2) * 4
    n = -(-total // 40)
    names = [f"group1-shard{i}of{n}.bin" for i in range(1, n + 1)]
    assert files_in(tmp_path / "m") == sorted(["model.json", *names])
    sizes = [(tmp_path / "m" / name).stat().st_size for name in names]
    assert sizes[:-1] == [40] * (n - 1) and sum(sizes) == total
    manifest = json.loads((tmp_path / "m" / "model.json").read_text())["weightsManifest"]
    assert manifest[0]["paths"] == names
    loaded = tf.io.load_layers_model(str(tmp_path / "m"))
    for a, b in zip(weights_of(loaded), weights_of(model), strict=True):
        np.testing.assert_array_equal(a, b)
    loaded.dispose()
    model.dispose()


def test_resave_replaces_old_shards_and_keeps_other_files(tmp_path):
    model = dense_model(units=7)
    folder = tmp_path / "m"
    tf.io.save_model(model, str(folder), shard_size_bytes=40)
    (folder / "README.txt").write_text("mine")
    (folder / "extra").mkdir()
    tf.io.save_model(model, str(folder))
    assert files_in(folder) == ["README.txt", "extra", "model.json", "weights.bin"]
    assert (folder / "README.txt").read_text() == "mine"
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".")]
    model.dispose()


@pytest.mark.parametrize(
    "qdtype,tol", [("uint8", 1 / 255), ("uint16", 1 / 65535), ("float16", 1e-3)]
)
def test_quantized_save(tmp_path, qdtype, tol):
    model = dense_model(units=6, seed=3)
    tf.io.save_model(model, str(tmp_path / "q"), quantize=qdtype)
    specs = json.loads((tmp_path / "q" / "model.json").read_text())["weightsManifest"][0]["weights"]
    for spec in specs:
        assert spec["quantization"]["dtype"] == qdtype
        if qdtype != "float16":
            assert set(spec["quantization"]) == {"dtype", "min", "scale", "original_dtype"}
    nbytes = (tmp_path / "q" / "weights.bin").stat().st_size
    assert nbytes == sum(np.prod(s["shape"]) for s in specs) * (1 if qdtype == "uint8" else 2)
    loaded = tf.io.load_layers_model(str(tmp_path / "q"))
    for a, b in zip(weights_of(loaded), weights_of(model), strict=True):
        span = max(float(b.max() - b.min()), 1e-6)
        assert (
            np.max(np.abs(a - b)) <= span * tol * 0.5 + 1e-6
            if qdtype != "float16"
            else np.allclose(a, b, rtol=tol, atol=1e-4)
        )
    loaded.dispose()
    model.dispose()


def test_quantize_by_name_pattern(tmp_path):
    model = dense_model()
    tf.io.save_model(model, str(tmp_path / "q"), quantize={"uint8": ["*/kernel"]})
    specs = json.loads((tmp_path / "q" / "model.json").read_text())["weightsManifest"][0]["weights"]
    assert [("quantization" in s) for s in specs] == [True, False, True, False]
    model.dispose()


def test_quantization_keeps_zero_exact_and_constant_weights():
    codes, meta = io.weights.quantize_array(np.array([-0.3, 0.0, 0.7, 0.2], np.float32), "uint8")
    assert codes[1] * meta["scale"] + meta["min"] == 0.0
    codes, meta = io.weights.quantize_array(np.full(5, 0.25, np.float32), "uint16")
    assert codes.tolist() == [0] * 5 and meta["scale"] == 1.0 and meta["min"] == 0.25


def test_bad_quantize_argument(tmp_path):
    model = dense_model()
    with pytest.raises(tf.io.ModelFormatError, match="Unknown quantization dtype 'int4'"):
        tf.io.save_model(model, str(tmp_path / "q"), quantize="int4")
    assert not (tmp_path / "q").exists()
    model.dispose()


# ------------------------------------------------------------------------- handlers
def test_with_save_handler_and_from_memory_round_trip():
    model = dense_model()
    seen = []
    result = model_save = tf.io.save_model(model, tf.io.with_save_handler(lambda a: seen.append(a)))
    (artifacts,) = seen
    assert isinstance(artifacts, tf.io.ModelArtifacts)
    assert artifacts.format == "layers-model"
    assert [s["name"] for s in artifacts.weight_specs] == [w.original_name for w in model.weights]
    assert model_save.model_artifacts_info.weight_data_bytes == len(artifacts.weight_data)
    assert result.model_artifacts_info.model_topology_bytes == len(
        js_json(artifacts.model_topology)
    )
    loaded = tf.io.load_layers_model(tf.io.from_memory(artifacts))
    np.testing.assert_array_equal(predict(loaded), predict(model))
    loaded.dispose()
    model.dispose()


def test_user_defined_metadata_round_trip(tmp_path):
    model = dense_model()
    model.set_user_defined_metadata({"labels": ["cat", "dog"], "version": 3})
    tf.io.save_model(model, str(tmp_path / "m"))
    assert json.loads((tmp_path / "m" / "model.json").read_text())["userDefinedMetadata"] == {
        "labels": ["cat", "dog"],
        "version": 3,
    }
    loaded = tf.io.load_layers_model(str(tmp_path / "m"))
    assert loaded.get_user_defined_metadata() == {"labels": ["cat", "dog"], "version": 3}
    loaded.dispose()
    model.dispose()


def test_functional_multi_io_round_trip(tmp_path):
    a = layers.input(shape=[3], name="a")
    b = layers.input(shape=[2], name="b")
    out1 = layers.dense(units=2, name="o1").apply(a)
    out2 = layers.dense(units=1, activation="sigmoid", name="o2").apply(b)
    model = layers.models.model(inputs=[a, b], outputs=[out1, out2], name="two")
    tf.io.save_model(model, str(tmp_path / "f"), shard_size_bytes=16)
    loaded = tf.io.load_layers_model(str(tmp_path / "f"))
    xa, xb = np.ones((2, 3), np.float32), np.full((2, 2), 0.5, np.float32)

    def run(m):
        return tf.tidy(lambda: [y.numpy() for y in m.predict([tf.tensor(xa), tf.tensor(xb)])])

    for got, want in zip(run(loaded), run(model), strict=True):
        np.testing.assert_array_equal(got, want)
    loaded.dispose()
    model.dispose()


def test_trainable_only(tmp_path):
    model = dense_model()
    model.layers[0].trainable = False
    tf.io.save_model(model, str(tmp_path / "t"), trainable_only=True)
    specs = json.loads((tmp_path / "t" / "model.json").read_text())["weightsManifest"][0]["weights"]
    assert [s["name"] for s in specs] == ["m_d2/kernel", "m_d2/bias"]
    loaded = tf.io.load_layers_model(str(tmp_path / "t"), strict=False)
    for a, b in zip(loaded.get_layer("m_d2").weights, model.get_layer("m_d2").weights, strict=True):
        np.testing.assert_array_equal(a.read().numpy(), b.read().numpy())
    assert loaded.get_layer("m_d1").trainable is False
    loaded.dispose()
    model.dispose()


def test_loading_twice_gives_unique_variable_names(tmp_path):
    model = dense_model()
    tf.io.save_model(model, str(tmp_path / "m"))
    a = tf.io.load_layers_model(str(tmp_path / "m"))
    b = tf.io.load_layers_model(str(tmp_path / "m"))
    assert [w.original_name for w in a.weights] == [w.original_name for w in b.weights]
    assert {w.name for w in a.weights}.isdisjoint({w.name for w in b.weights})
    assert b.weights[0].name == "m_d1/kernel_2"
    a.dispose()
    b.dispose()
    model.dispose()


class Scale(layers.Layer):
    """A custom layer with a weight: y = x * alpha."""

    class_name = "ScaleForIOTest"

    def build(self, input_shape):
        self.alpha = self.add_weight("alpha", [input_shape[-1]], "float32", "ones")
        self.built = True

    def call(self, inputs, **kwargs):
        x = layers.utils.get_exactly_one_tensor(inputs)
        return tf.mul(x, self.alpha.read())


def test_custom_layer_round_trip(tmp_path):
    register_class(Scale)
    model = layers.models.sequential(
        [layers.dense(units=3, input_shape=[4], name="d"), Scale(name="s")]
    )
    values = [
        tf.tensor(np.arange(12, dtype=np.float32).reshape(4, 3) / 10),
        tf.tensor([0.5, -1, 2]),
        tf.tensor([2.0, 3.0, -1.0]),
    ]
    model.set_weights(values)
    tf.dispose(values)
    tf.io.save_model(model, str(tmp_path / "c"))
    loaded = tf.io.load_layers_model(str(tmp_path / "c"))
    assert type(loaded.layers[-1]) is Scale
    np.testing.assert_array_equal(predict(loaded), predict(model))
    loaded.dispose()
    model.dispose()


def test_custom_objects_argument(tmp_path):
    class Twice(layers.Layer):
        class_name = "TwiceForIOTest"

        def call(self, inputs, **kwargs):
            return tf.mul(layers.utils.get_exactly_one_tensor(inputs), 2)

    model = layers.models.sequential(
        [layers.dense(units=2, input_shape=[4], name="d"), Twice(name="t")]
    )
    tf.io.save_model(model, str(tmp_path / "c"))
    with pytest.raises(tf.io.ModelFormatError, match="Unknown layer: TwiceForIOTest"):
        tf.io.load_layers_model(str(tmp_path / "c"))
    loaded = tf.io.load_layers_model(str(tmp_path / "c"), custom_objects={"TwiceForIOTest": Twice})
    np.testing.assert_array_equal(predict(loaded), predict(model))
    loaded.dispose()
    model.dispose()


def test_include_optimizer_round_trip(tmp_path):
    model = dense_model()
    model.compile(optimizer=tf.train.adam(0.02), loss="meanSquaredError", metrics=["mae"])
    x = tf.tensor(X)
    y = tf.tensor(np.ones((3, 2), np.float32))
    model.fit(x, y, epochs=2, batch_size=3, verbose=0)
    tf.io.save_model(model, str(tmp_path / "o"), include_optimizer=True)
    model_json = json.loads((tmp_path / "o" / "model.json").read_text())
    assert model_json["trainingConfig"] == {
        "loss": "mean_squared_error",
        "metrics": ["mae"],
        "optimizer_config": {
            "class_name": "Adam",
            "config": {"learningRate": 0.02, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-07},
        },
    }
    groups = [s.get("group") for s in model_json["weightsManifest"][0]["weights"]]
    assert groups == [None] * 4 + ["optimizer"] * 9
    before = memory_counts()
    loaded = tf.io.load_layers_model(str(tmp_path / "o"))
    assert loaded.optimizer.iterations == model.optimizer.iterations == 2
    orig = model.optimizer.get_weights()
    got = loaded.optimizer.get_weights()
    for a, b in zip(orig, got, strict=True):
        assert a["name"] == b["name"]
        np.testing.assert_array_equal(a["tensor"].numpy(), b["tensor"].numpy())
    tf.dispose([orig[0]["tensor"], got[0]["tensor"]])
    loaded.fit(x, y, epochs=1, batch_size=3, verbose=0)
    model.fit(x, y, epochs=1, batch_size=3, verbose=0)
    for a, b in zip(weights_of(loaded), weights_of(model), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    loaded.dispose()
    assert memory_counts()[0] == before[0]
    tf.dispose([x, y])
    model.dispose()


def test_without_include_optimizer_no_training_config(tmp_path):
    model = dense_model()
    tf.io.save_model(model, str(tmp_path / "o"), include_optimizer=True)  # not compiled
    assert "trainingConfig" not in json.loads((tmp_path / "o" / "model.json").read_text())
    model.dispose()


# ----------------------------------------------------------------------- model store
def test_model_store_save_list_load_copy_move_remove(tmp_path):
    model = dense_model()
    r1 = tf.io.save_model(model, "localstorage://demo/one")
    r2 = tf.io.save_model(model, "indexeddb://other")
    root = Path(tf.io.model_store_root())
    assert root == tmp_path / "model-store"
    listing = tf.io.list_models()
    assert sorted(listing) == ["indexeddb://other", "localstorage://demo/one"]
    assert (
        listing["localstorage://demo/one"].weight_data_bytes
        == r1.model_artifacts_info.weight_data_bytes
    )
    assert listing["indexeddb://other"].date_saved == r2.model_artifacts_info.date_saved
    loaded = tf.io.load_layers_model("localstorage://demo/one")
    np.testing.assert_array_equal(predict(loaded), predict(model))
    loaded.dispose()

    info = tf.io.copy_model("localstorage://demo/one", "indexeddb://copied")
    assert info.weight_data_bytes == r1.model_artifacts_info.weight_data_bytes
    tf.io.move_model("indexeddb://other", "localstorage://moved")
    assert sorted(tf.io.list_models()) == [
        "indexeddb://copied",
        "localstorage://demo/one",
        "localstorage://moved",
    ]
    tf.io.copy_model("localstorage://moved", str(tmp_path / "exported"))
    assert files_in(tmp_path / "exported") == [
        "info.json",
        "model.json",
        "weights.bin",
    ] or files_in(tmp_path / "exported") == ["model.json", "weights.bin"]
    removed = tf.io.remove_model("localstorage://moved")
    assert removed.weight_data_bytes == r1.model_artifacts_info.weight_data_bytes
    assert "localstorage://moved" not in tf.io.list_models()
    with pytest.raises(tf.io.IOHandlerError, match="Cannot find model at path 'moved'"):
        tf.io.remove_model("localstorage://moved")
    with pytest.raises(tf.io.IOHandlerError, match="Cannot find model with path 'nope'"):
        tf.io.load_layers_model("indexeddb://nope")
    with pytest.raises(tf.io.IOHandlerError, match="Old path and new path are the same"):
        tf.io.copy_model("indexeddb://copied", "indexeddb://copied")
    with pytest.raises(tf.io.IOHandlerError, match="does not contain a scheme"):
        tf.io.remove_model("no-scheme")
    model.dispose()


@pytest.mark.parametrize(
    "name", ["../../escape", "..", ".", "a/../../b", "/abs", "x" * 400, "日本/モデル"]
)
def test_model_store_names_stay_inside_the_store(name):
    model = dense_model()
    tf.io.save_model(model, f"localstorage://{name}")
    root = os.path.realpath(tf.io.model_store_root())
    for dirpath, _, filenames in os.walk(os.path.dirname(root)):
        for f in filenames:
            assert os.path.realpath(os.path.join(dirpath, f)).startswith(root + os.sep)
    assert f"localstorage://{name}" in tf.io.list_models()
    loaded = tf.io.load_layers_model(f"localstorage://{name}")
    loaded.dispose()
    tf.io.remove_model(f"localstorage://{name}")
    model.dispose()


def test_unknown_url_scheme():
    model = dense_model()
    with pytest.raises(
        tf.io.IOHandlerError, match="Cannot find any save handlers for URL 'ftp://x'"
    ):
        tf.io.save_model(model, "ftp://x")
    with pytest.raises(tf.io.IOHandlerError, match="Cannot find any load handlers"):
        tf.io.load_layers_model("ftp://x/model.json")
    model.dispose()


def test_custom_router_and_duplicate_handlers():
    calls = []

    class Handler:
        def save(self, artifacts):
            calls.append(artifacts.format)
            return tf.io.SaveResult(tf.io.get_model_artifacts_info_for_json(artifacts))

    from tidytensor.io import router

    saved = list(router._SAVE_ROUTERS)
    try:
        tf.io.register_save_router(
            lambda url, options: Handler() if url.startswith("mem://") else None
        )
        model = dense_model()
        tf.io.save_model(model, "mem://x")
        assert calls == ["layers-model"]
        tf.io.register_save_router(
            lambda url, options: Handler() if url.startswith("mem://") else None
        )
        with pytest.raises(tf.io.IOHandlerError, match=r"Found more than one \(2\) save handlers"):
            tf.io.save_model(model, "mem://x")
        model.dispose()
    finally:
        router._SAVE_ROUTERS[:] = saved


# -------------------------------------------------------------------------- atomicity
def _save_twice_with_failure(tmp_path, monkeypatch, patch):
    old = dense_model(seed=1)
    new = dense_model(seed=2)
    folder = tmp_path / "m"
    tf.io.save_model(old, str(folder), shard_size_bytes=32)
    before = {p: (folder / p).read_bytes() for p in files_in(folder)}
    patch(monkeypatch)
    with pytest.raises(tf.io.IOHandlerError, match="Cannot save the model to"):
        tf.io.save_model(new, str(folder), shard_size_bytes=1_000_000)
    monkeypatch.undo()
    assert {p: (folder / p).read_bytes() for p in files_in(folder)} == before
    assert files_in(tmp_path) == ["m", "model-store"] or files_in(tmp_path) == ["m"]
    loaded = tf.io.load_layers_model(str(folder))
    np.testing.assert_array_equal(predict(loaded), predict(old))
    loaded.dispose()
    old.dispose()
    new.dispose()


def test_failure_while_writing_leaves_previous_model(tmp_path, monkeypatch):
    def patch(mp):
        real = atomic._write_file
        count = [0]

        def failing(path, chunks):
            count[0] += 1
            if count[0] == 2:
                raise OSError(28, "No space left on device")
            real(path, chunks)

        mp.setattr(atomic, "_write_file", failing)

    _save_twice_with_failure(tmp_path, monkeypatch, patch)


def test_failure_at_the_swap_leaves_previous_model(tmp_path, monkeypatch):
    def patch(mp):
        def failing(a, b):
            raise OSError(5, "Input/output error")

        mp.setattr(atomic, "_exchange", failing)

    _save_twice_with_failure(tmp_path, monkeypatch, patch)


def test_fallback_without_atomic_exchange(tmp_path, monkeypatch):
    monkeypatch.setattr(atomic, "_exchange", lambda a, b: False)
    old, new = dense_model(seed=1), dense_model(seed=2)
    tf.io.save_model(old, str(tmp_path / "m"), shard_size_bytes=32)
    tf.io.save_model(new, str(tmp_path / "m"))
    assert files_in(tmp_path / "m") == ["model.json", "weights.bin"]
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".")]
    loaded = tf.io.load_layers_model(str(tmp_path / "m"))
    np.testing.assert_array_equal(predict(loaded), predict(new))
    loaded.dispose()
    old.dispose()
    new.dispose()


def test_fallback_second_rename_failure_restores(tmp_path, monkeypatch):
    old, new = dense_model(seed=1), dense_model(seed=2)
    tf.io.save_model(old, str(tmp_path / "m"))
    monkeypatch.setattr(atomic, "_exchange", lambda a, b: False)
    real_rename = os.rename

    def rename(a, b):
        if ".tidytensor-tmp-" in str(a) and not str(a).endswith("-old"):
            raise OSError(18, "Invalid cross-device link")
        real_rename(a, b)

    monkeypatch.setattr(atomic.os, "rename", rename)
    with pytest.raises(tf.io.IOHandlerError):
        tf.io.save_model(new, str(tmp_path / "m"))
    monkeypatch.undo()
    loaded = tf.io.load_layers_model(str(tmp_path / "m"))
    np.testing.assert_array_equal(predict(loaded), predict(old))
    loaded.dispose()
    old.dispose()
    new.dispose()


def test_hard_crash_mid_save_leaves_previous_model(tmp_path):
    """A process killed in the middle of writing (os._exit) leaves the old model loadable."""
    old = dense_model(seed=1)
    folder = tmp_path / "m"
    tf.io.save_model(old, str(folder))
    expected = predict(old)
    script = textwrap.dedent(
        f"""
        import os, sys
        import numpy as np
        import tidytensor as tf
        from tidytensor import layers
        from tidytensor.io import atomic
        model = layers.models.sequential([layers.dense(units=3, input_shape=[4], name='m_d1'),
                                          layers.dense(units=2, name='m_d2')])
        real = atomic._write_file
        count = [0]
        def crash(path, chunks):
            count[0] += 1
            real(path, chunks)
            if count[0] == 2:
                os._exit(17)   # killed after writing some of the new files
        atomic._write_file = crash
        tf.io.save_model(model, {str(folder)!r}, shard_size_bytes=16)
        """
    )
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root / "src")}
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, timeout=120)
    assert proc.returncode == 17, proc.stderr.decode()
    loaded = tf.io.load_layers_model(str(folder))
    np.testing.assert_array_equal(predict(loaded), expected)
    assert files_in(folder) == ["model.json", "weights.bin"]
    loaded.dispose()
    old.dispose()


def test_paths_starting_with_a_tilde_are_in_the_home_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)  # where a literal "~" folder would appear
    model = tf.sequential([layers.dense(units=2, input_shape=[3], kernel_initializer="ones")])
    model.save("file://~/saved")
    assert (tmp_path / "home" / "saved" / "model.json").is_file()
    model.save("~/plain")
    assert (tmp_path / "home" / "plain" / "model.json").is_file()
    assert not (tmp_path / "~").exists()
    for url in ("~/saved/model.json", "file://~/plain", "~/plain"):
        loaded = tf.load_layers_model(url)
        assert loaded.predict(tf.ones([1, 3])).array_sync() == [[3.0, 3.0]]
