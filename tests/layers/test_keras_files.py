"""Keras's own files (tests/golden/keras/, written by tests/golden/make_keras_fixtures.py with
Keras 3.15.1 and tf-keras 2.21.0): ``.keras``, ``.h5``, ``to_json()``, ``.weights.h5`` (a nested
model, Bidirectional and TimeDistributed included), and one SGD step, all matching Keras's
predictions within 1e-4."""

from __future__ import annotations

import json
import shutil
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

import tidytensor as tf
from tidytensor.io.errors import ModelFormatError

h5py = pytest.importorskip("h5py")  # the extra 'keras' (also in the 'test' extra)
# two_inputs was saved compiled with Nadam (no TF.js counterpart): it loads uncompiled, with a
# warning test_a_compiled_keras_model_loads_compiled_as_tfjs_does checks.
pytestmark = pytest.mark.filterwarnings("ignore:.*loaded uncompiled:UserWarning")

KERAS = Path(__file__).resolve().parents[1] / "golden" / "keras"
PREDICTIONS = json.loads((KERAS / "predictions.json").read_text())
NAMES = ["mlp", "cnn", "gru", "lstm", "two_inputs", "embedding", "nested"]
TOLERANCE = 1e-4
layers = tf.layers


def inputs(name: str) -> list[tf.Tensor]:
    dtype = "int32" if name == "embedding" else "float32"
    return [tf.tensor(np.array(x), None, dtype) for x in PREDICTIONS[name]["inputs"]]


def predict(model, name: str) -> np.ndarray:
    xs = inputs(name)
    y = model.predict(xs if len(xs) > 1 else xs[0])
    out = np.array(y.array_sync())
    tf.dispose([*xs, y])
    return out


def assert_close(got, expected) -> None:
    np.testing.assert_allclose(got, np.array(expected), rtol=0, atol=TOLERANCE)


# --------------------------------------------------------------------- whole files
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("suffix, keras", [(".keras", "k3"), (".h5", "k2")])
def test_load_layers_model_reads_keras_files(name, suffix, keras):
    model = tf.load_layers_model(str(KERAS / f"{name}{suffix}"))
    assert_close(predict(model, name), PREDICTIONS[name][keras])
    model.dispose()


def test_file_url_and_pathlike_work_too():
    for path in (KERAS / "mlp.keras", f"file://{KERAS / 'mlp.h5'}"):
        model = tf.load_layers_model(path)
        assert_close(predict(model, "mlp"), PREDICTIONS["mlp"]["k3"])
        model.dispose()


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("keras, weights", [("k3", "k3.weights.h5"), ("k2", "k2_weights.h5")])
def test_model_from_json_then_load_weights(name, keras, weights):
    model = tf.models.model_from_json((KERAS / f"{name}.{keras}.json").read_text())
    model.load_weights(str(KERAS / f"{name}.{weights}"))
    assert_close(predict(model, name), PREDICTIONS[name][keras])
    model.dispose()


def test_model_from_json_takes_dicts_and_tfjs_model_and_weights_config():
    config = json.loads((KERAS / "two_inputs.k3.json").read_text())
    for given in (config, {"modelTopology": config}):
        model = tf.models.model_from_json(given)
        assert [layer.name for layer in model.input_layers] == ["in_a", "in_b"]
        assert [layer.get_class_name() for layer in model.layers].count("Dense") == 4
        shared = model.get_layer("shared")
        assert len(shared.inbound_nodes) == 2  # one layer applied to both inputs
        model.dispose()


def test_weights_load_into_a_model_built_here():
    """Keras 3 keys layers by class and position, Keras 2 by order: names do not matter."""
    for weights, keras in (("mlp.k3.weights.h5", "k3"), ("mlp.k2_weights.h5", "k2")):
        model = tf.sequential(
            [
                layers.dense(units=8, activation="relu", input_shape=[4], name="first"),
                layers.dense(units=3, activation="softmax", name="second"),
            ]
        )
        model.load_weights(str(KERAS / weights))
        assert_close(predict(model, "mlp"), PREDICTIONS["mlp"][keras])
        model.dispose()


# -------------------------------------------------------------------- training step
@pytest.mark.parametrize("name", ["gru", "lstm", "cnn", "two_inputs"])
@pytest.mark.parametrize("suffix, keras", [(".keras", "k3"), (".h5", "k2")])
def test_one_sgd_step_matches_keras(name, suffix, keras):
    """Gradients of GRU(reset_after=True), LSTM, batch norm in training mode, Concatenate and
    a shared layer, through one eager SGD step: the loss and every weight after it."""
    step = PREDICTIONS[name][f"{keras}_train"]
    model = tf.load_layers_model(str(KERAS / f"{name}{suffix}"))
    model.compile(optimizer=tf.train.sgd(0.1), loss="meanSquaredError")
    xs = inputs(name)
    target = tf.tensor(np.array(step["target"], dtype=np.float32))
    before = {
        layer.name: np.array(layer.moving_variance.read().array_sync())
        for layer in model.layers
        if layer.get_class_name() == "BatchNormalization"
    }
    loss = model.train_on_batch(xs if len(xs) > 1 else xs[0], target)
    assert abs(float(loss) - step["loss"]) < TOLERANCE
    for layer_name, expected in step["layers"]:
        layer = model.get_layer(layer_name)
        got = [w.read().array_sync() for w in layer.weights]
        assert len(got) == len(expected), layer_name
        for weight, g, e in zip(layer.weights, got, expected, strict=True):
            if keras == "k2" and weight is getattr(layer, "moving_variance", None):
                # tf-keras's fused batch norm moves the variance towards the unbiased batch
                # variance (times n / (n - 1)); Keras 3 and TF.js use the biased one, as here.
                g = unbiased_moving_variance(layer, np.array(g), before[layer_name], xs)
            assert_close(g, e)
    tf.dispose([*xs, target])
    model.optimizer.dispose()
    model.dispose()


def unbiased_moving_variance(layer, moved, old, xs) -> np.ndarray:
    """The moving variance after one step had the batch variance been unbiased: the batch's
    biased variance is recovered from ``moved = m * old + (1 - m) * var``."""
    m = layer.momentum
    n = xs[0].shape[0] * int(np.prod(layer.input.shape[1:-1]))
    variance = (moved - m * old) / (1 - m)
    return m * old + (1 - m) * variance * n / (n - 1)


# ---------------------------------------------------- Keras-converted TF.js models
def test_tfjs_model_json_with_keras2_batch_norm_axis_list(tmp_path):
    """A TF.js model.json whose topology is Keras 2's (``"axis": [3]``), as the converter
    writes for every Keras CNN with batch norm."""
    model = tf.load_layers_model(str(KERAS / "cnn.h5"))
    model.save(str(tmp_path))
    model.dispose()
    model_json = json.loads((tmp_path / "model.json").read_text())
    model_json["modelTopology"] = json.loads((KERAS / "cnn.k2.json").read_text())
    assert '"axis": [3]' in json.dumps(model_json)
    (tmp_path / "model.json").write_text(json.dumps(model_json))
    reloaded = tf.load_layers_model(str(tmp_path))
    assert_close(predict(reloaded, "cnn"), PREDICTIONS["cnn"]["k2"])
    reloaded.dispose()


# --------------------------------------------------------------------------- errors
def _rewrite_keras_zip(source: Path, target: Path, edit) -> None:
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(target, "w") as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename == "config.json":
                data = edit(data.decode()).encode()
            dst.writestr(info, data)


def test_unsupported_layer_names_the_layer_and_the_file(tmp_path):
    target = tmp_path / "einsum.keras"
    _rewrite_keras_zip(
        KERAS / "mlp.keras", target, lambda text: text.replace('"Dense"', '"EinsumDense"', 1)
    )
    before = tf.memory().num_tensors
    with pytest.raises(ModelFormatError) as info:
        tf.load_layers_model(str(target))
    assert "Unknown layer: EinsumDense" in str(info.value)
    assert str(target) in str(info.value)
    assert tf.memory().num_tensors == before

    h5 = tmp_path / "einsum.h5"
    shutil.copy(KERAS / "mlp.h5", h5)
    with h5py.File(h5, "r+") as f:
        config = f.attrs["model_config"]
        config = config.decode() if isinstance(config, bytes) else config
        f.attrs["model_config"] = config.replace('"Dense"', '"EinsumDense"', 1)
    with pytest.raises(ModelFormatError, match=f"{h5}: Unknown layer: EinsumDense"):
        tf.load_layers_model(str(h5))


def test_mismatched_weights_file_raises_and_changes_nothing():
    model = tf.sequential([layers.dense(units=5, input_shape=[4]), layers.dense(units=3)])
    bits = [w.read().data_sync().tobytes() for w in model.weights]
    for weights in ("mlp.k3.weights.h5", "mlp.k2_weights.h5"):
        with pytest.raises(
            ModelFormatError, match=rf"{weights}.*\[\(4, 5\), \(5,\)\].*\[\(4, 8\), \(8,\)\]"
        ):
            model.load_weights(str(KERAS / weights))
    assert [w.read().data_sync().tobytes() for w in model.weights] == bits
    gru = tf.sequential([layers.dense(units=2, input_shape=[3])])
    with pytest.raises(ModelFormatError, match="weights for 3 layers .* has 1 layers"):
        gru.load_weights(str(KERAS / "gru.k2_weights.h5"))
    with pytest.raises(ModelFormatError, match=r"Dense\) has weights \[\(3, 2\), \(2,\)\] but the"):
        gru.load_weights(str(KERAS / "gru.k3.weights.h5"))
    lstm = tf.sequential([layers.lstm(units=4, input_shape=[6, 3])])
    with pytest.raises(ModelFormatError, match="no weights for layer .*no group layers/lstm"):
        lstm.load_weights(str(KERAS / "gru.k3.weights.h5"))
    for m in (model, gru, lstm):
        m.dispose()


def test_weights_only_h5_is_not_a_model_and_damaged_files_are_named(tmp_path):
    with pytest.raises(ModelFormatError, match="weights only .*model.load_weights"):
        tf.load_layers_model(str(KERAS / "mlp.k2_weights.h5"))
    broken = tmp_path / "broken.keras"
    broken.write_bytes(b"not a zip")
    with pytest.raises(ModelFormatError, match="broken.keras: not a Keras 3 .keras file"):
        tf.load_layers_model(str(broken))
    missing = tmp_path / "missing.keras"
    with zipfile.ZipFile(missing, "w") as z:
        z.writestr("config.json", "{}")
    with pytest.raises(ModelFormatError, match="model.weights.h5 is missing"):
        tf.load_layers_model(str(missing))
    with pytest.raises(FileNotFoundError):
        tf.load_layers_model(str(tmp_path / "nothing.h5"))


def test_without_h5py_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "h5py", None)
    with pytest.raises(ImportError, match=r"optional extra 'keras' .*tidytensor\[keras\]"):
        tf.load_layers_model(str(KERAS / "mlp.h5"))


# --------------------------------------------------------------------------- saving
def h5_items(path) -> dict[str, tuple]:
    """Every group and dataset (with its shape) but a compiled model's optimizer state, which
    Keras saves with the weights and tidytensor does not."""
    items: dict[str, tuple] = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, obj: items.__setitem__(name, getattr(obj, "shape", None)))
    return {k: v for k, v in items.items() if not k.startswith("optimizer")}


@pytest.mark.parametrize("name", NAMES)
def test_save_weights_h5_is_laid_out_as_keras_3_writes_it(tmp_path, name):
    """The same groups, datasets and values as Keras 3's own file for the model (Keras 3 and
    tf-keras load these files: tests/golden/keras_reads_tidytensor.py)."""
    model = tf.load_layers_model(str(KERAS / f"{name}.keras"))
    path = tmp_path / f"{name}.weights.h5"
    assert model.save_weights(str(path)) == str(path)
    keras_file = KERAS / f"{name}.k3.weights.h5"
    assert h5_items(path) == h5_items(keras_file)
    with h5py.File(path, "r") as ours, h5py.File(keras_file, "r") as theirs:
        for key, shape in h5_items(path).items():
            if shape is not None:
                assert np.array_equal(ours[key][()], theirs[key][()]), key
    fresh = tf.models.model_from_json((KERAS / f"{name}.k3.json").read_text())
    fresh.load_weights(str(path))
    assert_close(predict(fresh, name), PREDICTIONS[name]["k3"])
    fresh.dispose()
    model.dispose()


def test_load_weights_from_a_keras_file_and_save_errors(tmp_path):
    model = tf.models.model_from_json((KERAS / "gru.k3.json").read_text())
    model.load_weights(str(KERAS / "gru.keras"))  # Keras 3 reads a .keras file's weights too
    assert_close(predict(model, "gru"), PREDICTIONS["gru"]["k3"])
    with pytest.raises(tf.layers.errors.LayersValueError, match="whole-model .keras file"):
        model.save_weights(str(tmp_path / "gru.keras"))
    model.save_weights(str(tmp_path / "gru.weights.h5"))
    with pytest.raises(tf.layers.errors.LayersValueError, match="overwrite=False"):
        model.save_weights(str(tmp_path / "gru.weights.h5"), overwrite=False)
    model.dispose()


@pytest.mark.parametrize("exception", [OSError, KeyboardInterrupt])
def test_interrupted_h5_save_leaves_the_previous_file(tmp_path, exception):
    from failure_injection import fail_at_file_write
    from tidytensor.io.errors import IOHandlerError

    model = tf.load_layers_model(str(KERAS / "mlp.keras"))
    path = tmp_path / "mlp.weights.h5"
    model.save_weights(str(path))
    before = path.read_bytes()
    doubled = [tf.mul(w.read(), 2) for w in model.weights]
    model.set_weights(doubled)
    tf.dispose(doubled)
    with fail_at_file_write(0, exception), pytest.raises((IOHandlerError, KeyboardInterrupt)):
        model.save_weights(str(path))
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["mlp.weights.h5"]
    model.load_weights(str(path))
    assert_close(predict(model, "mlp"), PREDICTIONS["mlp"]["k3"])
    model.dispose()


def test_cli_summary_and_predict_take_keras_files(capsys, tmp_path):
    from tidytensor import cli

    assert cli.main(["summary", str(KERAS / "two_inputs.h5")]) == 0
    out = capsys.readouterr().out
    assert "Format: keras" in out and "Generated by: Keras 2.21.0 (.h5)" in out
    assert (
        "Inputs: in_a (None, 3), in_b (None, 5)" in out and "Weights: 8 tensors, 312 bytes" in out
    )
    assert cli.main(["summary", str(KERAS / "mlp.keras")]) == 0
    assert "Generated by: Keras 3.15.1 (.keras)" in capsys.readouterr().out
    given = tmp_path / "x.json"
    given.write_text(json.dumps(PREDICTIONS["mlp"]["inputs"][0]))
    assert cli.main(["predict", str(KERAS / "mlp.keras"), "--input", str(given)]) == 0
    assert_close(json.loads(capsys.readouterr().out), PREDICTIONS["mlp"]["k3"])


def test_a_compiled_keras_model_loads_compiled_as_tfjs_does():
    for suffix in (".keras", ".h5"):
        model = tf.load_layers_model(str(KERAS / f"mlp{suffix}"))
        assert model.optimizer.get_class_name() == "Adam"
        assert model.optimizer.get_config()["learningRate"] == pytest.approx(0.01)
        assert model.loss == "mse" and model.metrics == ["accuracy"]
        model.dispose()
    # Nadam has no TF.js counterpart: the model loads, uncompiled, and the warning says why.
    with pytest.warns(UserWarning, match="two_inputs.h5: Unknown optimizer 'Nadam'.* loaded unc"):
        model = tf.load_layers_model(str(KERAS / "two_inputs.h5"))
    assert model.optimizer is None
    assert_close(predict(model, "two_inputs"), PREDICTIONS["two_inputs"]["k2"])
    model.dispose()


def test_keras_file_whose_weights_do_not_fit_frees_everything(tmp_path):
    target = tmp_path / "mixed.keras"
    with zipfile.ZipFile(KERAS / "mlp.keras") as mlp, zipfile.ZipFile(KERAS / "cnn.keras") as cnn:
        with zipfile.ZipFile(target, "w") as out:
            out.writestr("config.json", mlp.read("config.json"))
            out.writestr("metadata.json", mlp.read("metadata.json"))
            out.writestr("model.weights.h5", cnn.read("model.weights.h5"))
    before = tf.memory()
    with pytest.raises(ModelFormatError, match=r"mixed.keras: layer 'dense' \(Dense\) has weights"):
        tf.load_layers_model(str(target))
    after = tf.memory()
    assert (after.num_tensors, after.num_bytes) == (before.num_tensors, before.num_bytes)
