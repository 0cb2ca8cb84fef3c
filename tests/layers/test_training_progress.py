"""The progress display of fit(verbose=...): one line per epoch off a terminal and for
verbose=2, a live bar (built-in or tqdm) on a terminal, nothing for verbose=0."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest

import tidytensor as tf
import tidytensor.layers as L
from tidytensor.layers.training.progress import ProgbarLogger, format_metrics, format_value

NUM = r"-?\d+\.\d{4}(?:e[+-]\d+)?"
TIME = r"\d+s \d+(?:s|ms|us)/step"


def make_model():
    model = L.models.sequential(
        [
            L.dense(units=4, activation="relu", input_shape=[3]),
            L.dense(units=3, activation="softmax"),
        ]
    )
    model.compile(optimizer="adam", loss="categoricalCrossentropy", metrics=["acc"])
    return model


def data(n=20):
    rng = np.random.default_rng(1)
    x = tf.tensor2d(rng.normal(size=(n, 3)).astype(np.float32))
    y = tf.one_hot(tf.tensor1d([i % 3 for i in range(n)], "int32"), 3)
    return x, y


def test_one_line_per_epoch_when_not_a_terminal(capsys):
    model = make_model()
    x, y = data()
    model.fit(x, y, epochs=3, batch_size=8, validation_split=0.2)  # verbose defaults to 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    for i, line in enumerate(lines):
        assert re.fullmatch(
            rf"Epoch {i + 1}/3 - {TIME} - loss: {NUM} - acc: {NUM} - val_loss: {NUM} - "
            rf"val_acc: {NUM}",
            line,
        ), line


def test_verbose_0_prints_nothing_and_verbose_2_one_line_on_a_terminal(capsys):
    model = make_model()
    x, y = data()
    model.fit(x, y, epochs=2, verbose=0)
    assert capsys.readouterr().out == ""
    out = io.StringIO()
    model.fit(
        x, y, epochs=2, verbose=0, callbacks=ProgbarLogger(verbose=2, stream=out, interactive=True)
    )
    lines = out.getvalue().splitlines()
    assert len(lines) == 2 and "\r" not in out.getvalue()
    assert re.fullmatch(rf"Epoch 2/2 - {TIME} - loss: {NUM} - acc: {NUM}", lines[1])


def test_builtin_bar_on_a_terminal():
    model = make_model()
    x, y = data()
    out = io.StringIO()
    bar = ProgbarLogger(verbose=1, stream=out, interactive=True, use_tqdm=False)
    model.fit(x, y, epochs=2, batch_size=8, verbose=0, validation_split=0.2, callbacks=[bar])
    text = out.getvalue()
    epochs = text.split("Epoch ")[1:]
    assert [e.split("\n", 1)[0] for e in epochs] == ["1/2", "2/2"]
    first = epochs[0].split("\n", 1)[1]
    frames = first.rstrip("\n").split("\r")[1:]
    # 16 training samples, batches of 8: the first frame shows batch 1 of 2 with an ETA.
    assert re.fullmatch(
        rf"1/2 \[={{14}}>\.{{15}}\] - ETA: \d+s - loss: {NUM} - acc: {NUM}", frames[0]
    )
    assert re.fullmatch(
        rf"2/2 \[={{30}}\] - {TIME} - loss: {NUM} - acc: {NUM} - val_loss: {NUM} - val_acc: {NUM} *",
        frames[-1],
    )
    assert first.endswith("\n")


def test_tqdm_bar_on_a_terminal():
    pytest.importorskip("tqdm")
    model = make_model()
    x, y = data()
    out = io.StringIO()
    model.fit(
        x,
        y,
        epochs=2,
        batch_size=8,
        verbose=0,
        validation_split=0.2,
        callbacks=ProgbarLogger(verbose=1, stream=out, interactive=True, use_tqdm=True),
    )
    text = out.getvalue()
    assert text.startswith("Epoch 1/2\n") and "\nEpoch 2/2\n" in text
    finals = [frame for frame in text.replace("\n", "\r").split("\r") if frame.startswith("2/2 [")]
    assert finals and re.fullmatch(
        rf"2/2 \[={{30}}\] - {TIME} - loss: {NUM} - acc: {NUM} - val_loss: {NUM} - val_acc: {NUM}",
        finals[-1],
    )


def test_bar_kind_follows_whether_tqdm_is_installed(monkeypatch):
    import tidytensor.layers.training.progress as progress

    model = make_model()
    x, y = data()
    if progress._tqdm() is not None:
        out = io.StringIO()
        model.fit(
            x,
            y,
            epochs=1,
            batch_size=8,
            verbose=0,
            callbacks=ProgbarLogger(verbose=1, stream=out, interactive=True),
        )
        assert "3/3 [" + "=" * 30 + "]" in out.getvalue() and ">" not in out.getvalue()
    monkeypatch.setattr(progress, "_tqdm", lambda: None)
    out = io.StringIO()
    model.fit(
        x,
        y,
        epochs=1,
        batch_size=8,
        verbose=0,
        callbacks=ProgbarLogger(verbose=1, stream=out, interactive=True),
    )
    assert "\r1/3 [=========>" in out.getvalue() and "3/3 [" + "=" * 30 + "]" in out.getvalue()
    with pytest.raises(ImportError, match=r"tidytensor\[progress\]"):
        model.fit(
            x,
            y,
            epochs=1,
            verbose=0,
            callbacks=ProgbarLogger(
                verbose=1, stream=io.StringIO(), interactive=True, use_tqdm=True
            ),
        )


def test_unknown_number_of_steps_in_fit_dataset():
    model = make_model()
    rng = np.random.default_rng(2)

    def batches():
        for _ in range(3):
            yield {
                "xs": tf.tensor2d(rng.normal(size=(4, 3)).astype(np.float32)),
                "ys": tf.one_hot(tf.tensor1d([0, 1, 2, 0], "int32"), 3),
            }

    class Gen:
        def iterator(self):
            return batches()

    out = io.StringIO()
    model.fit_dataset(
        Gen(),
        epochs=1,
        verbose=0,
        callbacks=ProgbarLogger(verbose=1, stream=out, interactive=True, use_tqdm=False),
    )
    assert "3/Unknown - " in out.getvalue()


def test_format_helpers():
    assert format_value(0.25) == "0.2500"
    assert format_value(0.0001234) == "1.2340e-04"
    assert format_value(float("nan")) == "nan"
    assert format_metrics({"loss": 1.5, "acc": 0.5, "x": 2}, ["loss", "acc", "missing"]) == (
        "loss: 1.5000 - acc: 0.5000"
    )
