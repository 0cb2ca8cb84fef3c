"""Gradients of broadcasting binary ops: for random broadcast-compatible shape pairs, each
input's gradient has that input's shape and equals the NumPy-computed partial derivative
times dy, summed over the broadcast axes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tidytensor as tf


def _da_db(name, a, b, y):
    """Element-wise partial derivatives (float64) at the broadcast shape."""
    if name == "add":
        return np.ones_like(y), np.ones_like(y)
    if name == "sub":
        return np.ones_like(y), -np.ones_like(y)
    if name == "mul":
        return b + 0 * a, a + 0 * b
    if name == "div":
        return 1 / b + 0 * a, -a / b**2
    if name == "maximum":
        return (a >= b).astype(np.float64), (a < b).astype(np.float64)
    if name == "minimum":
        return (a <= b).astype(np.float64), (a > b).astype(np.float64)
    if name == "pow":
        return b * a ** (b - 1), y * np.where(a > 0, np.log(np.where(a > 0, a, 1)), 0)
    if name == "squared_difference":
        return 2 * (a - b), 2 * (b - a)
    if name == "mod":
        # The quotient as the kernel computes it: in float32.
        return np.ones_like(y), -np.floor(a.astype(np.float32) / b.astype(np.float32))
    if name == "atan2":
        d = a**2 + b**2
        return b / d, -a / d
    raise AssertionError(name)


def _forward(name, a, b):
    return {
        "add": lambda: a + b,
        "sub": lambda: a - b,
        "mul": lambda: a * b,
        "div": lambda: a / b,
        "maximum": lambda: np.maximum(a, b),
        "minimum": lambda: np.minimum(a, b),
        "pow": lambda: a**b,
        "squared_difference": lambda: (a - b) ** 2,
        "mod": lambda: np.mod(a, b),
        "atan2": lambda: np.arctan2(a, b),
    }[name]()


def _sum_to(g, shape):
    """Sums ``g`` over the axes along which an input of ``shape`` was broadcast."""
    lead = g.ndim - len(shape)
    g = g.sum(axis=tuple(range(lead))) if lead else g
    axes = tuple(i for i, d in enumerate(shape) if d == 1 and g.shape[i] != 1)
    return g.sum(axis=axes, keepdims=True) if axes else g


@st.composite
def broadcast_shapes(draw):
    """Two shapes that broadcast: a common shape, each side dropping leading dimensions or
    putting 1 in some dimensions."""
    out = draw(st.lists(st.integers(1, 3), min_size=0, max_size=4))
    shapes = []
    for _ in range(2):
        drop = draw(st.integers(0, len(out)))
        shape = [d if not draw(st.booleans()) else 1 for d in out[drop:]]
        shapes.append(tuple(shape))
    return shapes


# (op name, range of a, range of b): b stays away from 0 for div/mod, a > 0 for pow.
OPS = [
    ("add", (-3, 3), (-3, 3)),
    ("sub", (-3, 3), (-3, 3)),
    ("mul", (-3, 3), (-3, 3)),
    ("div", (-3, 3), (0.5, 3)),
    ("maximum", (-3, 3), (-3, 3)),
    ("minimum", (-3, 3), (-3, 3)),
    ("pow", (0.2, 3), (-2, 2)),
    ("squared_difference", (-3, 3), (-3, 3)),
    ("mod", (-3, 3), (0.5, 3)),
    ("atan2", (-3, 3), (0.5, 3)),
]


@pytest.mark.parametrize(("name", "a_range", "b_range"), OPS, ids=[o[0] for o in OPS])
@settings(max_examples=40, deadline=None)
@given(shapes=broadcast_shapes(), seed=st.integers(0, 2**32 - 1))
def test_broadcast_grads_reduce_to_input_shapes(name, a_range, b_range, shapes, seed):
    a_shape, b_shape = shapes
    rng = np.random.default_rng(seed)
    a = rng.uniform(*a_range, a_shape).astype(np.float32)
    b = rng.uniform(*b_range, b_shape).astype(np.float32)
    out_shape = np.broadcast_shapes(a_shape, b_shape)
    dy = rng.uniform(-2, 2, out_shape).astype(np.float32)

    ta, tb = tf.tensor(a, list(a_shape)), tf.tensor(b, list(b_shape))
    tdy = tf.tensor(dy, list(out_shape))
    before = tf.memory().num_tensors
    ga, gb = tf.grads(getattr(tf, name))([ta, tb], tdy)
    assert tf.memory().num_tensors == before + 2  # only the two gradients survive

    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    y = _forward(name, a64, b64)
    da, db = _da_db(name, np.broadcast_to(a64, out_shape), np.broadcast_to(b64, out_shape), y)
    want_a = _sum_to(np.broadcast_to(da, out_shape) * dy, a_shape)
    want_b = _sum_to(np.broadcast_to(db, out_shape) * dy, b_shape)
    for got, want, shape in ((ga, want_a, a_shape), (gb, want_b, b_shape)):
        assert got.dtype == "float32"
        assert got.shape == list(shape)
        np.testing.assert_allclose(got.numpy(), want.reshape(shape), rtol=2e-4, atol=2e-4)


@pytest.mark.parametrize("name", [o[0] for o in OPS])
def test_same_shape_grads_keep_the_shape(name):
    a = tf.tensor([[0.5, 1.5], [2.5, 1.0]])
    b = tf.tensor([[1.0, 2.0], [0.75, 1.25]])
    ga, gb = tf.grads(getattr(tf, name))([a, b])
    assert ga.shape == [2, 2] and gb.shape == [2, 2]


def test_scalar_against_matrix():
    a, b = tf.scalar(2.0), tf.tensor([[1.0, 2.0], [3.0, 4.0]])
    ga, gb = tf.grads(tf.mul)([a, b])
    assert ga.shape == [] and ga.array_sync() == 10.0
    assert gb.array_sync() == [[2.0, 2.0], [2.0, 2.0]]
