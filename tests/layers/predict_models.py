"""Helpers of the compiled ``predict`` tests (``test_predict_shortcut.py``,
``test_predict_one_row.py``): seeded weights, and a tensor's values taken."""

from __future__ import annotations

from typing import Any

import numpy as np

import tidytensor as tf


def seeded(model: Any, run_eagerly: bool, scale: float = 1.0) -> Any:
    """``model`` with normal weights (seed = the weight's index, times ``scale``), compiled
    for SGD on the mean squared error, op by op or compiled."""
    weights = [
        tf.tensor(np.random.default_rng(i).normal(size=w.shape).astype("float32") * scale)
        for i, w in enumerate(model.weights)
    ]
    model.set_weights(weights)
    tf.dispose(weights)
    model.compile(optimizer="sgd", loss="meanSquaredError", run_eagerly=run_eagerly)
    return model


def values(t: Any) -> np.ndarray:
    """``t``'s values (a copy); ``t`` disposed."""
    out = t.data_sync().copy()
    t.dispose()
    return out
