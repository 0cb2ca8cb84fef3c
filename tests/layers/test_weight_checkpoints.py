"""Seed 004's checkpoint workflow: ``ModelCheckpoint(save_weights_only=True)``,
``model.save_weights``/``load_weights`` with a path, ``tf.train.latest_checkpoint``."""

from __future__ import annotations

import os

import numpy as np
import pytest

import tidytensor as tf
from failure_injection import fail_at_file_write
from tidytensor import demo
from tidytensor.io.errors import IOHandlerError, ModelFileNotFoundError, ModelFormatError

layers = tf.layers


def mlp(units: int = 16, seed: int = 1) -> tf.Sequential:
    model = tf.sequential()
    model.add(
        layers.dense(
            units=units,
            activation="relu",
            input_shape=[10],
            kernel_initializer=layers.initializers.glorot_normal(seed=seed),
        )
    )
    model.add(layers.dropout(rate=0.5))
    model.add(
        layers.dense(
            units=1,
            activation="sigmoid",
            kernel_initializer=layers.initializers.glorot_normal(seed=seed + 1),
        )
    )
    return model


def cnn(seed: int = 3) -> tf.LayersModel:
    x = tf.input(shape=[6, 6, 2])
    y = layers.conv2d(
        filters=3, kernel_size=3, kernel_initializer=layers.initializers.glorot_normal(seed=seed)
    ).apply(x)
    y = layers.batch_normalization().apply(y)
    y = layers.flatten().apply(y)
    y = layers.dense(
        units=2, kernel_initializer=layers.initializers.glorot_normal(seed=seed)
    ).apply(y)
    return tf.model(inputs=x, outputs=y)


def weight_bits(model) -> list[bytes]:
    return [w.read().data_sync().tobytes() for w in model.weights]


def predict_bits(model, x) -> bytes:
    return tf.tidy(lambda: model.predict(x).data_sync().tobytes())


@pytest.fixture
def x():
    t = tf.random_normal([5, 10], seed=7)
    yield t
    t.dispose()


# ------------------------------------------------------------------------- the seed
def test_seed_004_program_restores_a_fresh_model_exactly(tmp_path, capsys):
    assert demo.checkpoints_demo(str(tmp_path), epochs=3) is True
    out = capsys.readouterr().out
    assert "Epoch 1: saving model to training/cp-0001.ckpt" in out
    assert "Epoch 3: saving model to training/cp-0003.ckpt" in out
    assert "latest checkpoint: training/cp-0003.ckpt" in out
    assert "fresh model before load_weights predicts the same: False" in out
    assert "fresh model restored from latest predicts the same: True" in out
    names = sorted(os.listdir(tmp_path / "training"))
    assert names == [
        "checkpoint",
        *[f"cp-000{e}.ckpt{s}" for e in (1, 2, 3) for s in (".data-00000-of-00001", ".index")],
    ]


def test_seed_program_is_in_the_demo_list():
    titles = [title for title, _ in demo.PROGRAMS]
    assert any(t.startswith("Checkpoints:") for t in titles)


def test_model_checkpoint_with_fit_then_latest_into_fresh_model(tmp_path, x):
    model = mlp()
    model.compile(optimizer=tf.train.adam(0.01), loss="binaryCrossentropy")
    xs = tf.random_normal([32, 10], seed=2)
    ys = tf.cast(tf.greater(tf.random_normal([32, 1], seed=3), 0), "float32")
    path = str(tmp_path / "training" / "cp-{epoch:04d}.ckpt")
    cb = tf.callbacks.model_checkpoint(filepath=path, save_weights_only=True)
    assert isinstance(cb, tf.callbacks.ModelCheckpoint)
    model.fit(xs, ys, epochs=4, batch_size=8, callbacks=[cb], verbose=0)
    latest = tf.train.latest_checkpoint(str(tmp_path / "training"))
    assert latest == str(tmp_path / "training" / "cp-0004.ckpt")
    assert cb.saved == [path.format(epoch=e) for e in (1, 2, 3, 4)]
    fresh = mlp(seed=11)
    assert predict_bits(fresh, x) != predict_bits(model, x)
    fresh.load_weights(latest)
    assert predict_bits(fresh, x) == predict_bits(model, x)
    assert weight_bits(fresh) == weight_bits(model)
    # An earlier epoch's checkpoint holds other values.
    fresh.load_weights(path.format(epoch=1))
    assert predict_bits(fresh, x) != predict_bits(model, x)
    tf.dispose([xs, ys])
    model.dispose()
    fresh.dispose()


def test_save_best_only_and_save_freq_with_weights(tmp_path):
    model = tf.sequential([layers.dense(units=1, input_shape=[10], activation="sigmoid")])
    model.compile(optimizer=tf.train.sgd(0.0), loss="binaryCrossentropy")
    xs = tf.random_normal([16, 10], seed=2)
    ys = tf.zeros([16, 1])
    best = tf.callbacks.model_checkpoint(
        filepath=str(tmp_path / "best" / "cp-{epoch:02d}.ckpt"),
        save_weights_only=True,
        monitor="loss",
        save_best_only=True,
    )
    batches = tf.callbacks.ModelCheckpoint(
        filepath=str(tmp_path / "batches" / "cp-{epoch}.ckpt"), save_weights_only=True, save_freq=3
    )
    model.fit(xs, ys, epochs=3, batch_size=4, shuffle=False, callbacks=[best, batches], verbose=0)
    # A learning rate of 0 never improves the loss after the first epoch.
    assert [os.path.basename(p) for p in best.saved] == ["cp-01.ckpt"]
    assert tf.train.latest_checkpoint(str(tmp_path / "best")).endswith("cp-01.ckpt")
    assert len(batches.saved) == 4  # 12 batches, one save every 3
    tf.dispose([xs, ys])
    model.optimizer.dispose()
    model.dispose()


# ----------------------------------------------------------- save_weights/load_weights
def test_save_load_round_trip_with_non_trainable_weights(tmp_path):
    model = cnn()
    model.compile(optimizer="sgd", loss="meanSquaredError")
    xs = tf.random_normal([4, 6, 6, 2], seed=5)
    ys = tf.random_normal([4, 2], seed=6)
    model.fit(xs, ys, epochs=2, verbose=0)  # moves batch norm's moving statistics
    returned = model.save_weights(str(tmp_path / "w.ckpt"))
    assert returned == str(tmp_path / "w.ckpt")
    other = cnn(seed=9)
    before = tf.memory().num_tensors
    other.load_weights(str(tmp_path / "w.ckpt"))
    assert tf.memory().num_tensors == before
    assert weight_bits(other) == weight_bits(model)
    assert predict_bits(other, xs) == predict_bits(model, xs)
    tf.dispose([xs, ys])
    model.dispose()
    other.dispose()


def test_load_weights_with_a_dict_keeps_working_as_tfjs():
    model = mlp()
    values = {w.original_name: tf.fill(w.shape, 0.5) for w in model.weights}
    model.load_weights(values)
    assert all(np.all(w.read().data_sync() == 0.5) for w in model.weights)
    tf.dispose(list(values.values()))
    model.dispose()


def test_latest_checkpoint_none_for_empty_and_missing(tmp_path):
    assert tf.train.latest_checkpoint(str(tmp_path)) is None
    assert tf.train.latest_checkpoint(str(tmp_path / "nope")) is None
    (tmp_path / "checkpoint").write_text('model_checkpoint_path: "gone.ckpt"\n')
    assert tf.train.latest_checkpoint(str(tmp_path)) is None  # names a file that is not there


def test_latest_checkpoint_follows_the_newest_save_and_absolute_paths(tmp_path):
    model = mlp()
    model.save_weights(str(tmp_path / "b.ckpt"))
    model.save_weights(str(tmp_path / "a.ckpt"))
    assert tf.train.latest_checkpoint(tmp_path) == str(tmp_path / "a.ckpt")
    text = (tmp_path / "checkpoint").read_text()
    assert text == 'model_checkpoint_path: "a.ckpt"\nall_model_checkpoint_paths: "a.ckpt"\n'
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "checkpoint").write_text(f'model_checkpoint_path: "{tmp_path / "b.ckpt"}"\n')
    assert tf.train.latest_checkpoint(elsewhere) == str(tmp_path / "b.ckpt")
    model.dispose()


def test_different_architecture_raises_and_changes_nothing(tmp_path):
    small = mlp(units=16)
    small.save_weights(str(tmp_path / "w.ckpt"))
    wide = mlp(units=8, seed=4)
    bits = weight_bits(wide)
    before = tf.memory()
    with pytest.raises(ModelFormatError) as info:
        wide.load_weights(str(tmp_path / "w.ckpt"))
    message = str(info.value)
    assert "w.ckpt" in message and "another architecture" in message
    assert "Dense" in message and "[10, 8]" in message and "[10, 16]" in message
    assert "no weight was changed" in message
    assert weight_bits(wide) == bits
    assert tf.memory().num_tensors == before.num_tensors
    other = cnn()
    with pytest.raises(ModelFormatError, match=r"holds weights for 2 layers .* has 3 layers"):
        other.load_weights(str(tmp_path / "w.ckpt"))
    unbuilt = tf.sequential()  # no layers yet
    with pytest.raises(ModelFormatError, match="has 0 layers with weights .*build it"):
        unbuilt.load_weights(str(tmp_path / "w.ckpt"))
    for m in (small, wide, other, unbuilt):
        m.dispose()


def test_missing_and_damaged_checkpoints_are_named(tmp_path):
    model = mlp()
    with pytest.raises(ModelFileNotFoundError, match="no checkpoint at .*nothing.ckpt"):
        model.load_weights(str(tmp_path / "nothing.ckpt"))
    model.save_weights(str(tmp_path / "w.ckpt"))
    data = tmp_path / "w.ckpt.data-00000-of-00001"
    raw = data.read_bytes()
    data.write_bytes(raw[:-10])
    with pytest.raises(ModelFormatError, match="damaged"):
        model.load_weights(str(tmp_path / "w.ckpt"))
    data.write_bytes(b"not a checkpoint")
    with pytest.raises(ModelFormatError, match="not a tidytensor weights checkpoint"):
        model.load_weights(str(tmp_path / "w.ckpt"))
    with pytest.raises(ModelFormatError, match="overwrite=False"):
        model.save_weights(str(tmp_path / "w.ckpt"), overwrite=False)
    model.dispose()


# ----------------------------------------------------------------------------- atomic
@pytest.mark.parametrize("exception", [OSError, KeyboardInterrupt])
@pytest.mark.parametrize("k", [0, 1, 2])
def test_interrupted_save_leaves_the_previous_checkpoint_readable(tmp_path, x, k, exception):
    """Each save writes three files (data, index, checkpoint state); the k-th fails half-way.
    The previous checkpoint, of the same path or another, stays whole and found."""
    model = mlp()
    first = predict_bits(model, x)
    model.save_weights(str(tmp_path / "cp-0001.ckpt"))
    doubled = [tf.mul(w.read(), 2) for w in model.weights]
    model.set_weights(doubled)
    tf.dispose(doubled)
    for target in ("cp-0002.ckpt", "cp-0001.ckpt"):
        with fail_at_file_write(k, exception), pytest.raises((IOHandlerError, KeyboardInterrupt)):
            model.save_weights(str(tmp_path / target))
        assert not [n for n in os.listdir(tmp_path) if "tidytensor-tmp" in n]  # cleaned up
        latest = tf.train.latest_checkpoint(tmp_path)
        assert latest == str(tmp_path / "cp-0001.ckpt")
        fresh = mlp(seed=20)
        fresh.load_weights(latest)
        restored = predict_bits(fresh, x)
        fresh.dispose()
        if target == "cp-0002.ckpt" or k == 0:
            assert restored == first
        else:  # the data file was replaced whole before the failure: the new weights
            assert restored == predict_bits(model, x)
    model.dispose()


def test_example_resumes_from_its_last_run(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root / "src")}
    command = [sys.executable, str(root / "examples" / "checkpoints.py"), "--dir", str(tmp_path)]
    runs = [
        subprocess.run([*command, "--epochs", "2"], capture_output=True, text=True, env=env)
        for _ in range(2)
    ]
    assert [r.returncode for r in runs] == [0, 0], runs[1].stderr
    assert "resuming from" not in runs[0].stdout
    assert f"resuming from {tmp_path / 'training' / 'cp-0002.ckpt'}" in runs[1].stdout
    assert "fresh model restored from latest predicts the same: True" in runs[1].stdout


def test_whole_model_checkpoint_named_like_a_keras_file_loads_back(tmp_path, x):
    """Keras 3 users write ModelCheckpoint('best.keras'): the whole-model save is TF.js's
    directory format under that name, and tf.load_layers_model reads it back as such."""
    model = mlp()
    model.compile(optimizer="sgd", loss="binaryCrossentropy")
    xs = tf.random_normal([8, 10], seed=2)
    ys = tf.zeros([8, 1])
    cb = tf.callbacks.model_checkpoint(filepath=str(tmp_path / "best.keras"))
    model.fit(xs, ys, epochs=1, callbacks=[cb], verbose=0)
    assert (tmp_path / "best.keras" / "model.json").is_file()
    loaded = tf.load_layers_model(str(tmp_path / "best.keras"))
    assert predict_bits(loaded, x) == predict_bits(model, x)
    tf.dispose([xs, ys])
    model.dispose()
    loaded.dispose()
