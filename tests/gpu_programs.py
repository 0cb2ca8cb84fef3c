"""A small program whose ``tf.memory()`` counts must be the same on every backend (used by
the fake-CuPy tests and the real-GPU tests)."""

from __future__ import annotations

import tidytensor as tf


def counts() -> tuple[int, int, int]:
    m = tf.memory()
    return (m.num_tensors, m.num_data_buffers, m.num_bytes)


def counting_program() -> list[tuple[int, int, int]]:
    """Counts after each step: numeric ops inside tidy, a view, string tensors, disposal."""
    seen = [counts()]
    x = tf.tensor([[1.0, 2.0], [3.0, 4.0]])
    y = tf.tidy(lambda: tf.mat_mul(x, x).relu().reshape([4]))
    seen.append(counts())
    z = y.reshape([2, 2])  # a view: no new buffer
    seen.append(counts())
    s = tf.tensor(["a", "bc"])
    w = tf.concat([s, s])
    seen.append(counts())
    tf.dispose([x, y, z, s, w])
    seen.append(counts())
    return seen
