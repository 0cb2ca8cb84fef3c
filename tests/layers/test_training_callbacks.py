"""Callbacks: TF.js-style hook dicts, Keras-style classes (EarlyStopping with
restore_best_weights, ModelCheckpoint, ReduceLROnPlateau, CSVLogger, LambdaCallback), the
History (``plot``) and the constructor registry."""

from __future__ import annotations

import asyncio
import builtins
import csv
import math

import numpy as np
import pytest

import tidytensor as tf
import tidytensor.layers as L
from tidytensor.layers.engine.models import LayersModel
from tidytensor.layers.errors import LayersRuntimeError, LayersValueError
from tidytensor.layers.training import callbacks as C


def make_model(optimizer=None, metrics=("acc",), units=3):
    model = L.models.sequential(
        [
            L.dense(units=4, activation="tanh", input_shape=[3], kernel_initializer="ones"),
            L.dense(units=units, activation="softmax", kernel_initializer="glorotUniform"),
        ]
    )
    model.compile(
        optimizer=optimizer or tf.train.sgd(0.1),
        loss="categoricalCrossentropy",
        metrics=list(metrics),
    )
    return model


def data(n=10):
    rng = np.random.default_rng(0)
    x = tf.tensor2d(rng.normal(size=(n, 3)).astype(np.float32))
    y = tf.one_hot(tf.tensor1d([i % 3 for i in range(n)], "int32"), 3)
    return x, y


def weights_of(model):
    return [w.numpy() for w in model.get_weights()]


# ----------------------------------------------------------------------- hook dicts
def test_hook_dict_call_order_and_numeric_logs(cleanup):
    model = cleanup(make_model())
    cleanup(model.optimizer)  # make_model's own tf.train.sgd(0.1)
    x, y = data()
    events = []
    hooks = {
        "on_train_begin": lambda logs: events.append(("train_begin", dict(logs))),
        "on_epoch_begin": lambda epoch, logs: events.append(("epoch_begin", epoch)),
        "on_batch_begin": lambda batch, logs: events.append(("batch_begin", batch, dict(logs))),
        "on_batch_end": lambda batch, logs: events.append(("batch_end", batch, dict(logs))),
        "on_epoch_end": lambda epoch, logs: events.append(("epoch_end", epoch, dict(logs))),
        "on_train_end": lambda logs: events.append(("train_end",)),
    }
    model.fit(x, y, epochs=2, batch_size=4, verbose=0, validation_split=0.2, callbacks=hooks)
    kinds = [e[0] for e in events]
    assert kinds == (
        ["train_begin"]
        + (["epoch_begin"] + ["batch_begin", "batch_end"] * 2 + ["epoch_end"]) * 2
        + ["train_end"]
    )
    batch_end = events[3]
    assert batch_end[2]["batch"] == 0 and batch_end[2]["size"] == 4
    assert set(batch_end[2]) == {"batch", "size", "loss", "acc"}
    assert all(isinstance(batch_end[2][k], float) for k in ("loss", "acc"))
    epoch_end = next(e for e in events if e[0] == "epoch_end")
    assert list(epoch_end[2]) == ["val_loss", "val_acc", "loss", "acc"]  # TF.js's order
    assert all(isinstance(v, float) for v in epoch_end[2].values())


def test_camel_case_keys_fewer_args_and_coroutines(cleanup):
    model = cleanup(make_model())
    cleanup(model.optimizer)  # make_model's own tf.train.sgd(0.1)
    x, y = data()
    seen = []

    async def async_end(epoch, logs):
        await asyncio.sleep(0)
        seen.append(("async", epoch))

    model.fit(
        x,
        y,
        epochs=2,
        verbose=0,
        callbacks=[
            C.CustomCallback({"onEpochEnd": async_end, "onTrainEnd": lambda: seen.append("end")}),
            {"on_epoch_begin": lambda e: seen.append(e)},
        ],
    )
    assert seen == [0, ("async", 0), 1, ("async", 1), "end"]


def test_coroutine_hooks_inside_a_running_event_loop(cleanup):
    model = cleanup(make_model())
    cleanup(model.optimizer)  # make_model's own tf.train.sgd(0.1)
    x, y = data()
    seen = []

    async def on_epoch_end(epoch, logs):
        await asyncio.sleep(0)
        seen.append(epoch)

    async def main():
        model.fit(x, y, epochs=2, verbose=0, callbacks={"on_epoch_end": on_epoch_end})

    asyncio.run(main())
    assert seen == [0, 1]


def test_unknown_hook_and_bad_callbacks(cleanup):
    with pytest.raises(LayersValueError, match="Unknown callback hook 'on_epoc_end'"):
        C.CustomCallback(on_epoc_end=lambda e, logs: None)
    with pytest.raises(LayersValueError, match="must be a function"):
        C.CustomCallback(on_epoch_end=3)
    model = cleanup(make_model())
    cleanup(model.optimizer)  # make_model's own tf.train.sgd(0.1)
    x, y = data()
    with pytest.raises(LayersValueError, match="callbacks must be Callback objects or dicts"):
        model.fit(x, y, verbose=0, callbacks=[lambda e: None])


def test_on_yield_every_batch_and_never(cleanup):
    model = cleanup(make_model())
    cleanup(model.optimizer)  # make_model's own tf.train.sgd(0.1)
    x, y = data()
    yields = []
    model.fit(
        x,
        y,
        epochs=2,
        batch_size=5,
        verbose=0,
        yield_every=0,
        callbacks={"on_yield": lambda epoch, batch, logs: yields.append((epoch, batch))},
    )
    assert yields == [(0, 0), (0, 1), (1, 0), (1, 1)]
    with pytest.raises(
        LayersValueError, match="yield_every is `never` but you provided an `on_yield`"
    ):
        model.fit(x, y, verbose=0, yield_every="never", callbacks={"on_yield": lambda *a: None})


def test_keras_style_subclass_and_stop_training(cleanup):
    class Recorder(C.Callback):
        def __init__(self):
            super().__init__()
            self.batches = []

        def on_train_batch_end(self, batch, logs=None):
            self.batches.append(batch)

        def on_epoch_end(self, epoch, logs=None):
            if epoch == 1:
                self.model.stop_training = True

    model = cleanup(make_model())
    cleanup(model.optimizer)  # make_model's own tf.train.sgd(0.1)
    x, y = data()
    rec = Recorder()
    history = model.fit(x, y, epochs=10, batch_size=5, verbose=0, callbacks=rec)
    assert history.epoch == [0, 1]
    assert rec.batches == [0, 1, 0, 1]
    # Keras gives callbacks the Sequential itself; until Sequential marks its inner model
    # (``_outer_model``), TF.js's inner LayersModel is what they get.
    assert rec.model is model or rec.model is model.model
    assert rec.params["epochs"] == 10 and rec.params["metrics"] == ["loss", "acc"]


def test_stop_training_from_a_batch_hook(cleanup):
    model = cleanup(make_model())
    cleanup(model.optimizer)  # make_model's own tf.train.sgd(0.1)
    x, y = data()

    def stop(batch, logs):
        model.stop_training = True

    history = model.fit(x, y, epochs=5, batch_size=2, verbose=0, callbacks={"on_batch_end": stop})
    assert history.epoch == [0]


def test_callback_set_model_checks_type():
    with pytest.raises(LayersRuntimeError, match="model must be a LayersModel"):
        C.Callback().set_model(object())


# -------------------------------------------------------------------- EarlyStopping
def test_early_stopping_modes_and_patience(cleanup):
    model = cleanup(make_model())
    cleanup(model.optimizer)  # make_model's own tf.train.sgd(0.1)
    es = C.early_stopping(monitor="val_loss", patience=2, min_delta=0.1)
    assert es.mode == "min" and es.min_delta == -0.1
    es.set_model(model)
    es.on_train_begin()
    for epoch, value in enumerate([1.0, 0.95, 0.85, 0.84]):
        es.on_epoch_end(epoch, {"val_loss": value})
    # 0.95 is not 0.1 better than 1.0 (wait 1), 0.85 is (reset), 0.84 is not (wait 1).
    assert not model.stop_training and es.wait == 1 and es.best == 0.85
    es.on_epoch_end(4, {"val_loss": 0.9})
    assert model.stop_training and es.stopped_epoch == 4
    acc = C.EarlyStopping(monitor="val_acc")
    assert acc.mode == "max"
    with pytest.warns(UserWarning, match="mode 'sideways' is invalid"):
        assert C.EarlyStopping(mode="sideways").mode == "min"
    base = C.EarlyStopping(monitor="loss", baseline=0.5, patience=1)
    base.set_model(model)
    model.stop_training = False
    base.on_train_begin()
    base.on_epoch_end(0, {"loss": 0.6})
    assert model.stop_training
    with pytest.warns(UserWarning, match="Metric for EarlyStopping val_loss is not available"):
        C.EarlyStopping().on_epoch_end(0, {"loss": 1.0})


def test_early_stopping_in_fit_stops_and_restores_best_weights(cleanup):
    model = cleanup(make_model())
    cleanup(model.optimizer)  # make_model's own tf.train.sgd(0.1)
    x, y = data()
    snapshots = {}
    record = C.LambdaCallback(
        on_epoch_end=lambda epoch, logs: snapshots.setdefault(epoch, weights_of(model))
    )
    # mode='max' on a decreasing loss: the first epoch stays the best, so training stops
    # after `patience` epochs and the weights of epoch 0 come back.
    es = C.EarlyStopping(monitor="loss", mode="max", patience=2, restore_best_weights=True)
    before = tf.memory().num_tensors
    history = model.fit(x, y, epochs=10, verbose=0, callbacks=[record, es])
    assert history.epoch == [0, 1, 2]
    assert es.best_epoch == 0 and es.stopped_epoch == 2
    for got, want in zip(weights_of(model), snapshots[0], strict=False):
        np.testing.assert_array_equal(got, want)
    assert not np.array_equal(snapshots[2][0], snapshots[0][0])
    assert tf.memory().num_tensors == before


def test_early_stopping_without_restore_keeps_last_weights(capsys, cleanup):
    model = cleanup(make_model())
    cleanup(model.optimizer)  # make_model's own tf.train.sgd(0.1)
    x, y = data()
    es = C.EarlyStopping(monitor="loss", mode="max", patience=1, verbose=1)
    history = model.fit(x, y, epochs=10, verbose=0, callbacks=es)
    assert history.epoch == [0, 1]
    assert "Epoch 1: early stopping." in capsys.readouterr().out


# ------------------------------------------------------------------- ModelCheckpoint
@pytest.mark.skipif(
    not hasattr(LayersModel, "save"),
    reason="model.save() (the model-format work) has not landed yet; ModelCheckpoint saves "
    "through it",
)
def test_model_checkpoint_saves_best_only(tmp_path, cleanup):
    model = cleanup(make_model())
    cleanup(model.optimizer)  # make_model's own tf.train.sgd(0.1)
    x, y = data()
    cb = C.ModelCheckpoint(str(tmp_path / "ckpt-{epoch:02d}"), monitor="loss", save_best_only=True)
    model.fit(x, y, epochs=3, verbose=0, callbacks=cb)
    assert cb.saved == [str(tmp_path / f"ckpt-{e:02d}") for e in (1, 2, 3)]
    for path in cb.saved:
        assert any(p.name.startswith("ckpt-") for p in tmp_path.iterdir()), path
    worse = C.ModelCheckpoint(
        str(tmp_path / "worse"), monitor="loss", mode="max", save_best_only=True
    )
    model.fit(x, y, epochs=3, verbose=0, callbacks=worse)
    assert worse.saved == [str(tmp_path / "worse")]  # only the first (best) epoch


def test_model_checkpoint_arguments(cleanup):
    with pytest.raises(LayersValueError, match="save_freq must be 'epoch' or a positive number"):
        C.ModelCheckpoint("x", save_freq="often")
    cb = C.ModelCheckpoint("ckpt/{epoch:02d}-{nope}")
    model = cleanup(make_model())
    cleanup(model.optimizer)  # make_model's own tf.train.sgd(0.1)
    cb.set_model(model)
    with pytest.raises(LayersValueError, match="cannot format filepath"):
        cb.on_epoch_end(0, {"loss": 1.0})
    assert C.ModelCheckpoint("x", monitor="val_acc").mode == "max"


# ----------------------------------------------------------------- ReduceLROnPlateau
def test_reduce_lr_on_plateau_with_sgd():
    opt = tf.train.sgd(0.1)
    model = make_model(optimizer=opt)
    x, y = data()
    # mode='max' on a decreasing loss: no improvement after the first epoch.
    cb = C.ReduceLROnPlateau(monitor="loss", mode="max", factor=0.5, patience=1, min_lr=0.02)
    counts = []
    history = model.fit(
        x,
        y,
        epochs=5,
        verbose=0,
        callbacks=[cb, {"on_epoch_end": lambda e, logs: counts.append(tf.memory().num_tensors)}],
    )
    assert history.history["learning_rate"] == pytest.approx([0.1, 0.1, 0.05, 0.025, 0.02])
    assert opt.learning_rate == pytest.approx(0.02)
    assert len(set(counts)) == 1  # SGD's kept -lr scalar is replaced, not added
    opt.dispose()


def test_reduce_lr_on_plateau_cooldown_and_adam():
    model = make_model(optimizer="adam")
    cb = C.ReduceLROnPlateau(monitor="val_loss", factor=0.1, patience=1, cooldown=2, verbose=1)
    cb.set_model(model)
    cb.on_train_begin()
    lrs = []
    for epoch in range(6):
        logs = {"val_loss": 1.0}
        cb.on_epoch_end(epoch, logs)
        lrs.append(logs["learning_rate"])
    # epoch 0 sets best; 1 reduces; 2 is in cooldown; the cooldown ends at 3, which counts
    # (patience 1) and reduces; likewise 5 (Keras's rule).
    assert lrs == pytest.approx([1e-3, 1e-3, 1e-4, 1e-4, 1e-5, 1e-5])
    with pytest.raises(LayersValueError, match="factor >= 1.0"):
        C.ReduceLROnPlateau(factor=1.5)


# ------------------------------------------------------------------------ CSVLogger
def test_csv_logger_writes_and_appends(tmp_path, cleanup):
    path = tmp_path / "log.csv"
    model = cleanup(make_model())
    cleanup(model.optimizer)  # make_model's own tf.train.sgd(0.1)
    x, y = data()
    model.fit(x, y, epochs=2, verbose=0, validation_split=0.2, callbacks=C.CSVLogger(path))
    rows = list(csv.reader(path.read_text().splitlines()))
    assert rows[0] == ["epoch", "acc", "loss", "val_acc", "val_loss"]
    assert [r[0] for r in rows[1:]] == ["0", "1"]
    assert all(math.isfinite(float(v)) for v in rows[1][1:])
    model.fit(
        x, y, epochs=1, verbose=0, validation_split=0.2, callbacks=C.CSVLogger(path, append=True)
    )
    rows = list(csv.reader(path.read_text().splitlines()))
    assert len(rows) == 4 and rows[0][0] == "epoch" and rows[3][0] == "0"
    model.fit(x, y, epochs=1, verbose=0, callbacks=C.CSVLogger(path, separator=";"))
    assert path.read_text().splitlines()[0] == "epoch;acc;loss"


def test_lambda_callback(cleanup):
    model = cleanup(make_model())
    cleanup(model.optimizer)  # make_model's own tf.train.sgd(0.1)
    x, y = data()
    seen = []
    cb = C.LambdaCallback(
        on_train_begin=lambda logs: seen.append("begin"),
        on_epoch_end=lambda epoch, logs: seen.append(epoch),
        on_batch_end=lambda batch: seen.append(f"b{batch}"),
        on_train_end=lambda logs: seen.append("end"),
    )
    model.fit(x, y, epochs=2, batch_size=5, verbose=0, callbacks=cb)
    assert seen == ["begin", "b0", "b1", 0, "b0", "b1", 1, "end"]


# ------------------------------------------------------------------------- History
def test_history_fields(cleanup):
    model = cleanup(make_model())
    cleanup(model.optimizer)  # make_model's own tf.train.sgd(0.1)
    x, y = data()
    h = model.fit(x, y, epochs=3, initial_epoch=1, verbose=0)
    assert isinstance(h, C.History)
    assert h.epoch == [1, 2]
    assert list(h.history) == ["loss", "acc"] and len(h.history["loss"]) == 2
    assert h.params["initial_epoch"] == 1 and h.params["samples"] == 10
    assert model.history is h or model.model.history is h
    assert "History(epoch=[1, 2]" in repr(h)


def test_history_sync_data_disposes_tensors():
    h = C.History()
    h.on_train_begin()
    s = tf.scalar(0.5)
    h.on_epoch_end(0, {"loss": s})
    h.sync_data()
    assert h.history == {"loss": [0.5]} and s.is_disposed


def test_history_plot(tmp_path, cleanup):
    pytest.importorskip("matplotlib")
    model = cleanup(make_model())
    cleanup(model.optimizer)  # make_model's own tf.train.sgd(0.1)
    x, y = data()
    h = model.fit(x, y, epochs=3, verbose=0, validation_split=0.2)
    path = tmp_path / "history.png"
    fig = h.plot(path, title="training")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [ax.get_title() for ax in fig.axes] == ["loss", "acc"]
    assert [line.get_label() for line in fig.axes[0].get_lines()] == ["training", "validation"]
    fig = h.plot(metrics=["acc"])
    assert len(fig.axes) == 1
    with pytest.raises(LayersValueError, match="no metric 'f1'"):
        h.plot(metrics=["f1"])
    with pytest.raises(LayersValueError, match="nothing to plot"):
        C.History().plot()


def test_history_plot_without_matplotlib(monkeypatch):
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError("No module named 'matplotlib'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    h = C.History()
    h.on_train_begin()
    h.on_epoch_end(0, {"loss": 1.0})
    with pytest.raises(ImportError, match=r"pip install tidytensor\[viz\]"):
        h.plot()


# ------------------------------------------------------------------------ registry
def test_register_callback_constructor(cleanup):
    saved = dict(C.CallbackConstructorRegistry.constructors)
    try:
        made = []

        class Counter(C.BaseCallback):
            def __init__(self):
                super().__init__()
                made.append(self)

        C.register_callback_constructor(2, Counter)
        with pytest.raises(LayersValueError, match="Duplicate callback constructor."):
            C.register_callback_constructor(3, Counter)
        with pytest.raises(LayersValueError, match="integer >= 0"):
            C.register_callback_constructor(-1, C.History)
        model = cleanup(make_model())
        cleanup(model.optimizer)  # make_model's own tf.train.sgd(0.1)
        x, y = data()
        model.fit(x, y, verbose=0)
        model.fit(x, y, verbose=1)
        assert made == []
        model.fit(x, y, verbose=2)
        assert len(made) == 1
    finally:
        C.CallbackConstructorRegistry.constructors = saved
