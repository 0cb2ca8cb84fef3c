"""Gradients of the creation kernels (OneHot, OnesLike, ZerosLike: zeros, as TF.js; Identity:
dy) against TF.js goldens (tests/golden/specs/creation_grads.json), plus gradient checks."""

from __future__ import annotations

import numpy as np
import pytest

import tidytensor as tf
from golden_util import case_ids, check_case, load_cases

CASES = load_cases("creation_grads")


@pytest.mark.parametrize(("case", "expected"), CASES, ids=case_ids(CASES))
def test_golden(case, expected):
    check_case(case, expected)


GRAD_OPS = [
    ("ones_like", lambda x: tf.ones_like(x), [2, 3]),
    ("zeros_like", lambda x: tf.zeros_like(x), [4]),
    ("ones_like_plus_x", lambda x: tf.add(tf.ones_like(x), tf.mul(x, x)), [3]),
    ("zeros_like_plus_x", lambda x: tf.add(tf.zeros_like(x), tf.mul(x, 3)), [2, 2]),
    ("clone", lambda x: tf.mul(tf.clone(x), x), [3]),
]


@pytest.mark.parametrize(("name", "fn", "shape"), GRAD_OPS, ids=[g[0] for g in GRAD_OPS])
def test_check_grads(name, fn, shape):
    rng = np.random.default_rng(len(name))
    tf.testing.check_grads(fn, [tf.tensor(rng.uniform(-2, 2, shape).astype(np.float32), shape)])


def test_one_hot_gradient_is_float_zeros_of_the_indices_shape():
    indices = tf.tensor([[0, 2], [1, 1]], None, "int32")
    (g,) = tf.grads(lambda i: tf.one_hot(i, 3))([indices])
    assert (g.dtype, g.shape, g.array_sync()) == ("float32", [2, 2], [[0, 0], [0, 0]])


def test_zero_gradients_stop_the_chain():
    x = tf.tensor([1.0, 2.0])
    g = tf.grad(lambda a: tf.mul(tf.ones_like(tf.square(a)), a))(x)
    assert g.array_sync() == [1, 1]  # d(ones_like(a^2) * a)/da = ones_like(a^2)
    g = tf.grad(lambda a: tf.add(tf.zeros_like(tf.exp(a)), a))(x)
    assert g.array_sync() == [1, 1]
