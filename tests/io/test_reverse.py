"""The reverse direction: models saved by tidytensor load in TF.js and predict the same.

tests/golden/io/reverse/<name>/ holds what tests/io/make_reverse.py saved and what TF.js
(tests/golden/io_reverse.js) predicted after loading it. Here: tidytensor still writes exactly
those files (so the committed TF.js results speak for the current writer), and both tidytensor's
in-memory model and the model loaded back from the files predict what TF.js did, within 1e-5.

After a deliberate change of the format written, refresh with
``python tests/io/make_reverse.py && (cd tests/golden && node io_reverse.js)``.
"""

from __future__ import annotations

import json

import make_reverse
import numpy as np
import pytest
from io_test_helpers import GOLDEN_IO, fresh_layer_names, private_model_store  # noqa: F401 - autouse fixtures

import tidytensor as tf

REVERSE = GOLDEN_IO / "reverse"
REFRESH = "re-run: python tests/io/make_reverse.py && (cd tests/golden && node io_reverse.js)"


def _outputs(model, xs):
    def run():
        ts = [tf.tensor(np.asarray(x, np.float32)) for x in xs]
        ys = model.predict(ts[0] if len(ts) == 1 else ts)
        ys = ys if isinstance(ys, list) else [ys]
        return [y.numpy() for y in ys]

    return tf.tidy(run)


def _record_inputs(record):
    return [np.asarray(i["values"], np.float32).reshape(i["shape"]) for i in record["inputs"]]


# Models make_reverse.py TRAINS before saving (the others get fixed weights): their float32
# values carry the summation order of the BLAS kernel that trained them (compiled_adam's six
# Adam steps: 58 of 154 values 40 float32 ulps, 4e-6 relative, apart between
# OPENBLAS_CORETYPE=Haswell and Sandybridge), so their weight files are checked in two
# parts: the bytes written are exactly the model's and optimizer's own values (the writer),
# and those values are the committed ones within float32 training rounding (the fixture).
TRAINED = {"compiled_adam"}
TRAINED_RTOL = 1e-5


def _weight_values(folder, manifest):
    """{name: array} of the weights in ``folder``'s weight files, read by the manifest."""
    data = b"".join((folder / path).read_bytes() for g in manifest for path in g["paths"])
    values, offset = {}, 0
    for spec in (w for g in manifest for w in g["weights"]):
        dtype = np.dtype(spec["dtype"]).newbyteorder("<")
        n = int(np.prod(spec["shape"], dtype=np.int64)) * dtype.itemsize
        values[spec["name"]] = np.frombuffer(data[offset : offset + n], dtype).reshape(
            spec["shape"]
        )
        offset += n
    assert offset == len(data), f"{folder.name}: {len(data) - offset} bytes beyond the manifest"
    return values


def _model_state(model):
    """{name: array} of what a save with the optimizer must write: weights and optimizer state."""
    state = {w.original_name: w.read().numpy() for w in model.weights}
    opt = model.optimizer.get_weights()
    state.update({w["name"]: w["tensor"].numpy() for w in opt})
    tf.dispose(opt[0]["tensor"])  # the iteration count, made for the call
    return state


@pytest.mark.parametrize("name", make_reverse.NAMES)
def test_tidytensor_still_writes_the_committed_files(name, tmp_path):
    committed = REVERSE / name
    model, _, _ = make_reverse.save(name, tmp_path / name)
    state = _model_state(model) if name in TRAINED else None
    model.dispose()
    written = sorted(p.name for p in (tmp_path / name).iterdir())
    expected = sorted(
        p.name for p in committed.iterdir() if p.name not in ("inputs.json", "tfjs_predict.json")
    )
    assert written == expected, REFRESH
    manifest = json.loads((committed / "model.json").read_text())["weightsManifest"]
    for file in written:
        new, old = (tmp_path / name / file).read_bytes(), (committed / file).read_bytes()
        if file == "model.json":
            assert json.loads(new) == json.loads(old), f"{name}/model.json changed; {REFRESH}"
        elif name not in TRAINED:
            assert new == old, f"{name}/{file} changed; {REFRESH}"
    if state is None:
        return
    got = _weight_values(tmp_path / name, manifest)
    want = _weight_values(committed, manifest)
    assert list(got) == list(want) == list(state), (list(got), list(state))
    for key, value in got.items():
        assert value.dtype == state[key].dtype and value.tobytes() == state[key].tobytes(), key
        if value.dtype.kind == "f":
            np.testing.assert_allclose(
                value, want[key], rtol=TRAINED_RTOL, atol=0, err_msg=f"{name}: {key}; {REFRESH}"
            )
        else:
            assert np.array_equal(value, want[key]), f"{name}: {key}; {REFRESH}"


@pytest.mark.parametrize("name", make_reverse.NAMES)
def test_tfjs_predicts_what_tidytensor_predicts(name):
    folder = REVERSE / name
    record = json.loads((folder / "inputs.json").read_text())
    tfjs = json.loads((folder / "tfjs_predict.json").read_text())
    xs = _record_inputs(record)
    # tidytensor's model at save time (recorded) vs TF.js after loading the files (a
    # quantized save is only as close as its quantization).
    tol = 2e-3 if name.startswith("quantized") else 1e-5
    for ours, theirs in zip(record["tidytensor_outputs"], tfjs["outputs"], strict=True):
        assert ours["shape"] == theirs["shape"]
        np.testing.assert_allclose(ours["values"], theirs["values"], rtol=tol, atol=tol)
    # tidytensor loading the same files vs TF.js.
    loaded = tf.io.load_layers_model(str(folder))
    assert [w.original_name for w in loaded.weights] == [w["name"] for w in tfjs["weights"]]
    assert loaded.get_user_defined_metadata() == tfjs["userDefinedMetadata"]
    for got, theirs in zip(_outputs(loaded, xs), tfjs["outputs"], strict=True):
        np.testing.assert_allclose(got.reshape(-1), theirs["values"], rtol=1e-5, atol=1e-5)
    if "optimizer" in tfjs:
        mine = loaded.optimizer.get_weights()
        assert loaded.optimizer.get_class_name() == tfjs["optimizer"]["className"]
        assert [w["name"] for w in mine] == [w["name"] for w in tfjs["optimizer"]["weights"]]
        for w, theirs in zip(mine, tfjs["optimizer"]["weights"], strict=True):
            np.testing.assert_allclose(w["tensor"].numpy().reshape(-1), theirs["values"], rtol=1e-6)
        tf.dispose(mine[0]["tensor"])
    loaded.dispose()


def test_every_reverse_model_was_loaded_by_tfjs():
    for name in make_reverse.NAMES:
        assert (REVERSE / name / "tfjs_predict.json").is_file(), f"{name}: {REFRESH}"
