"""Compiled Layers steps (``model.compile(run_eagerly=False)``, the default) against the
op-by-op reference (``run_eagerly=True``): the same bits, the same memory counts, fresh
dropout draws, retracing when a callback changes the learning rate."""

from __future__ import annotations

import random

import numpy as np
import pytest

import tidytensor as tf
import tidytensor.layers as L
from tidytensor.layers.errors import LayersValueError

RNG = np.random.default_rng(11)
X = RNG.normal(size=(24, 5)).astype("float32")
LABELS = RNG.integers(0, 3, 24)
Y = np.eye(3, dtype="float32")[LABELS]


@pytest.fixture(autouse=True)
def _compiled_mode():
    """These tests compare compiled steps with the op-by-op ones, even under
    TIDYTENSOR_RUN_EAGERLY=1 (which turns compiled steps off for the other tests)."""
    tf.config.run_functions_eagerly(False)
    yield


def make_model(run_eagerly, dropout=0.0, optimizer=None):
    model = L.models.sequential()
    model.add(L.dense(units=8, input_shape=[5], activation="relu"))
    if dropout:
        model.add(L.dropout(rate=dropout))
    model.add(L.dense(units=3, activation="softmax"))
    weights = [
        tf.tensor(np.random.default_rng(i).normal(size=w.shape).astype("float32"))
        for i, w in enumerate(model.weights)
    ]
    model.set_weights(weights)
    tf.dispose(weights)
    model.compile(
        optimizer=optimizer or tf.train.adam(0.05),
        loss="categoricalCrossentropy",
        metrics=["accuracy"],
        run_eagerly=run_eagerly,
    )
    return model


def bits(model):
    return [w.read().data_sync().tobytes() for w in model.weights]


def test_fit_history_weights_and_callbacks_match_the_op_by_op_reference(cleanup):
    x, y = tf.tensor(X), tf.tensor(Y)
    runs = {}
    for eager in (True, False):
        model = cleanup(make_model(eager))
        seen = []
        random.seed(3)
        history = model.fit(
            x,
            y,
            epochs=3,
            batch_size=5,
            validation_split=0.25,
            verbose=0,
            callbacks={"on_batch_end": lambda batch, logs, seen=seen: seen.append(dict(logs))},
        )
        evaluated = model.evaluate(x, y, batch_size=7)
        predicted = model.predict(x, batch_size=10)
        runs[eager] = (
            history.history,
            seen,
            bits(model),
            [e.data_sync().tobytes() for e in evaluated],
            predicted.data_sync().tobytes(),
        )
        tf.dispose([evaluated, predicted])
        steps = model.model.compiled_steps
        if eager:
            assert steps == {}
        else:
            assert steps["train"].tracing_count == 3  # slots made, traced again, last batch
            assert steps["predict"].tracing_count == 2  # batches of 10, then of 4
    assert runs[True] == runs[False]
    tf.dispose([x, y])


def test_train_on_batch_and_predict_leave_the_memory_counts_of_the_reference(cleanup):
    x, y = tf.tensor(X), tf.tensor(Y)
    counts = {}
    for eager in (True, False):
        model = cleanup(make_model(eager))
        for _ in range(3):
            model.train_on_batch(x, y)
        before = tf.memory()
        for _ in range(20):
            model.train_on_batch(x, y)
            tf.dispose(model.predict_on_batch(x))
            model.test_on_batch(x, y)
        after = tf.memory()
        counts[eager] = (after.num_tensors - before.num_tensors, after.num_bytes - before.num_bytes)
        out = model.predict(x)
        assert out.shape == [24, 3] and out is not x
        out.dispose()
    assert counts[True] == counts[False] == (0, 0)
    tf.dispose([x, y])


def test_dropout_in_a_compiled_fit_draws_fresh_masks_every_step(cleanup):
    optimizer = cleanup(tf.train.sgd(0.0))
    model = cleanup(make_model(False, dropout=0.5, optimizer=optimizer))
    x, y = tf.tensor(X), tf.tensor(Y)
    losses = [model.train_on_batch(x, y)[0] for _ in range(6)]
    assert model.model.compiled_steps["train"].tracing_count == 1
    assert len(set(losses[1:])) > 1  # replays: the loss moves with the dropout masks only
    tf.dispose([x, y])


def test_a_learning_rate_changed_between_steps_retraces_the_step(cleanup):
    x, y = tf.tensor(X), tf.tensor(Y)
    results = []
    for eager in (True, False):
        optimizer = tf.train.adam(0.1)  # its fused kernel takes the rate as an attribute
        model = cleanup(make_model(eager, optimizer=optimizer))
        for step in range(6):
            if step == 3:
                optimizer.learning_rate = 0.01
            model.train_on_batch(x, y)
        results.append(bits(model))
        optimizer.dispose()
    assert results[0] == results[1]
    tf.dispose([x, y])


def test_compile_takes_run_eagerly_and_jit_compile(cleanup):
    model = cleanup(make_model(False))
    model.compile(optimizer="sgd", loss="meanSquaredError", run_eagerly=True, jit_compile=True)
    assert model.model.run_eagerly is True and model.model.jit_compile is True
    with pytest.raises(LayersValueError, match="run_eagerly=True or False"):
        model.compile(optimizer="sgd", loss="meanSquaredError", run_eagerly="yes")
