"""Helpers of the compiled-step tests (``test_predict_shortcut.py``,
``test_predict_one_row.py``, ``test_compiled_buffer_plan.py``, ``test_compiled_scratch.py``):
seeded weights, the 784-128-10 MLP, and a tensor's values taken."""

from __future__ import annotations

from typing import Any

import numpy as np

import tidytensor as tf


def set_seeded_weights(model: Any, scale: float = 1.0) -> None:
    """Normal weights: seed = the weight's index, times ``scale``."""
    weights = [
        tf.tensor(np.random.default_rng(i).normal(size=w.shape).astype("float32") * scale)
        for i, w in enumerate(model.weights)
    ]
    model.set_weights(weights)
    tf.dispose(weights)


def seeded(model: Any, run_eagerly: bool, scale: float = 1.0) -> Any:
    """``model`` with seeded weights (``set_seeded_weights``), compiled for SGD on the mean
    squared error, op by op or compiled."""
    set_seeded_weights(model, scale)
    model.compile(optimizer="sgd", loss="meanSquaredError", run_eagerly=run_eagerly)
    return model


def adam_mlp(run_eagerly: bool, output_activation: str | None, loss: Any) -> Any:
    """784 -> Dense(128, relu) -> Dense(10, ``output_activation``), weights seeded with
    standard deviation 0.05, compiled for Adam(0.001) on ``loss``."""
    model = tf.sequential()
    model.add(tf.layers.dense(units=128, input_shape=[784], activation="relu"))
    model.add(tf.layers.dense(units=10, activation=output_activation))
    set_seeded_weights(model, 0.05)
    model.compile(optimizer=tf.train.adam(0.001), loss=loss, run_eagerly=run_eagerly)
    return model


def weight_bits(model: Any) -> list[bytes]:
    """The bytes of each of ``model``'s weights."""
    return [w.read().data_sync().tobytes() for w in model.weights]


def values(t: Any) -> np.ndarray:
    """``t``'s values (a copy); ``t`` disposed."""
    out = t.data_sync().copy()
    t.dispose()
    return out
