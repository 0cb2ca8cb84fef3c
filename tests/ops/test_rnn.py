"""RNN ops (basic_lstm_cell, multi_rnn_cell) against TF.js goldens and TF.js-computed values,
plus gradient checks and errors."""

from __future__ import annotations

import zlib
from typing import Any, NamedTuple

import numpy as np
import pytest

import tidytensor as tf
from golden_util import case_ids, check_case, load_cases

CASES = load_cases("rnn")


@pytest.mark.parametrize(("case", "expected"), CASES, ids=case_ids(CASES))
def test_golden(case, expected):
    check_case(case, expected)


K1 = [
    0.1,
    0.2,
    -0.3,
    0.4,
    0.5,
    -0.6,
    0.7,
    0.8,
    0.2,
    0.1,
    0.1,
    -0.3,
    0.2,
    0.2,
    -0.1,
    0.3,
    -0.1,
    0.3,
    0.2,
    -0.4,
    0.6,
    0.1,
    -0.2,
    0.5,
    0.3,
    -0.2,
    0.1,
    0.2,
    -0.5,
    0.4,
    0.3,
    -0.1,
]
B1 = [0.1, -0.1, 0.2, 0, 0.05, 0.3, -0.2, 0.1]
K2 = [
    0.2,
    -0.1,
    0.3,
    0.1,
    -0.4,
    0.2,
    0.5,
    -0.3,
    0.1,
    0.4,
    -0.2,
    0.3,
    0.2,
    -0.1,
    0.1,
    0.2,
    0.3,
    0.1,
    0.2,
    -0.2,
    0.1,
    0.3,
    -0.1,
    0.4,
    -0.2,
    0.2,
    0.1,
    0.1,
    0.3,
    -0.3,
    0.2,
    0.1,
]
B2 = [0, 0.1, -0.1, 0.2, 0.1, 0, 0.05, -0.05]


def _two_cells(fb, k1, b1):
    k2, b2 = tf.tensor(K2, [4, 8]), tf.tensor(B2)
    cell1 = lambda d, c, h: tf.basic_lstm_cell(fb, k1, b1, d, c, h)  # noqa: E731
    cell2 = lambda d, c, h: tf.basic_lstm_cell(fb, k2, b2, d, c, h)  # noqa: E731
    return [cell1, cell2]


def _states():
    cs = [tf.tensor([[0.1, -0.2]]), tf.tensor([[0.3, 0.1]])]
    hs = [tf.tensor([[0.2, 0.4]]), tf.tensor([[-0.1, 0.2]])]
    return cs, hs


def test_multi_rnn_cell_matches_tfjs():
    cells = _two_cells(tf.scalar(1.0), tf.tensor(K1, [4, 8]), tf.tensor(B1))
    cs, hs = _states()
    data = tf.tensor([[0.5, -1.0]])
    before = tf.memory().num_tensors
    new_c, new_h = tf.multi_rnn_cell(cells, data, cs, hs)
    assert tf.memory().num_tensors == before + 4  # the four new states
    np.testing.assert_allclose(
        new_c[0].numpy(), [[0.08886757493019104, 0.07179002463817596]], rtol=1e-5
    )
    np.testing.assert_allclose(
        new_c[1].numpy(), [[0.18226870894432068, 0.206172376871109]], rtol=1e-5
    )
    np.testing.assert_allclose(
        new_h[0].numpy(), [[0.05156387761235237, 0.040465760976076126]], rtol=1e-5
    )
    np.testing.assert_allclose(
        new_h[1].numpy(), [[0.09598143398761749, 0.09771929681301117]], rtol=1e-5
    )


def test_multi_rnn_cell_gradients_match_tfjs():
    data = tf.tensor([[0.5, -1.0]])
    cs, hs = _states()

    def f(k1, b1, c0, fb):
        new_c, new_h = tf.multi_rnn_cell(_two_cells(fb, k1, b1), data, [c0, cs[1]], hs)
        return tf.add(tf.sum(new_h[1]), tf.sum(new_c[0]))

    gk, gb, gc, gf = tf.grads(f)([tf.tensor(K1, [4, 8]), tf.tensor(B1), cs[0], tf.scalar(1.0)])
    np.testing.assert_allclose(
        gb.numpy(),
        [
            0.007882501929998398,
            0.11830748617649078,
            0.5386483669281006,
            0.37991243600845337,
            0.02049115300178528,
            -0.04078515246510506,
            0.001941911643370986,
            0.0008699399186298251,
        ],
        rtol=1e-4,
        atol=1e-7,
    )
    np.testing.assert_allclose(
        gk.numpy()[0, :3],
        [0.003941250964999199, 0.05915374308824539, 0.2693241834640503],
        rtol=1e-4,
        atol=1e-7,
    )
    np.testing.assert_allclose(gc.numpy(), [[0.7731711268424988, 0.7472770810127258]], rtol=1e-5)
    np.testing.assert_allclose(gf.numpy(), 0.017519544810056686, rtol=1e-4)
    g = tf.grad(
        lambda d: tf.multi_rnn_cell(
            _two_cells(tf.scalar(1.0), tf.tensor(K1, [4, 8]), tf.tensor(B1)), d, cs, hs
        )[1][1]
    )(data)
    np.testing.assert_allclose(
        g.numpy(), [[1.7419035430066288e-05, 3.1374074751511216e-05]], rtol=1e-3, atol=1e-8
    )


# ---------------------------------------------------------------------------- gradient checks
class GradSpec(NamedTuple):
    name: str
    fn: Any
    shapes: list
    low: float = -1.0
    high: float = 1.0


def _lstm_h(fb, kernel, bias, data, c, h):
    return tf.basic_lstm_cell(fb, kernel, bias, data, c, h)[1]


def _lstm_c(fb, kernel, bias, data, c, h):
    return tf.basic_lstm_cell(fb, kernel, bias, data, c, h)[0]


def _stack_h(data, c0, h0, c1, h1):
    cell = lambda d, c, h: tf.basic_lstm_cell(1.0, tf.tensor(K1, [4, 8]), tf.tensor(B1), d, c, h)  # noqa: E731
    new_c, new_h = tf.multi_rnn_cell([cell, cell], data, [c0, c1], [h0, h1])
    return tf.add(new_h[1], new_c[0])


LSTM_SHAPES = [[], [5, 12], [12], [2, 2], [2, 3], [2, 3]]
GRAD_OPS = [
    GradSpec("basic_lstm_cell_h", _lstm_h, LSTM_SHAPES),
    GradSpec("basic_lstm_cell_c", _lstm_c, LSTM_SHAPES),
    GradSpec("multi_rnn_cell", _stack_h, [[3, 2], [3, 2], [3, 2], [3, 2], [3, 2]]),
]


@pytest.mark.parametrize("spec", GRAD_OPS, ids=[s.name for s in GRAD_OPS])
def test_check_grads(spec):
    rng = np.random.default_rng(zlib.crc32(spec.name.encode()))  # stable across runs
    args = [
        tf.tensor(rng.uniform(spec.low, spec.high, s).astype(np.float32), s) for s in spec.shapes
    ]
    tf.testing.check_grads(spec.fn, args)


# ---------------------------------------------------------------------------- API and errors
def test_basic_lstm_cell_keywords_and_memory():
    args = dict(
        forget_bias=1.0,
        lstm_kernel=tf.ones([2, 4]),
        lstm_bias=tf.zeros([4]),
        data=tf.ones([1, 1]),
        c=tf.zeros([1, 1]),
        h=tf.zeros([1, 1]),
    )
    before = tf.memory().num_tensors
    c, h = tf.basic_lstm_cell(**args)
    assert tf.memory().num_tensors == before + 2
    assert round(float(c.data_sync()[0]), 4) == 0.5568


def test_basic_lstm_cell_errors():
    ones = tf.ones([1, 1])
    with pytest.raises(tf.errors.ShapeError, match=r"inner shapes \(2\) and \(3\)"):
        tf.basic_lstm_cell(1.0, tf.ones([3, 4]), tf.zeros([4]), ones, ones, ones)
    with pytest.raises(tf.errors.ShapeError, match="must be a multiple of 4"):
        tf.basic_lstm_cell(1.0, tf.ones([2, 6]), tf.zeros([6]), ones, ones, ones)
    with pytest.raises(
        tf.errors.DTypeError,
        match="Argument 'lstm_kernel' passed to 'basic_lstm_cell' must be numeric",
    ):
        tf.basic_lstm_cell(1.0, tf.tensor(["a"]), tf.zeros([4]), ones, ones, ones)


def test_multi_rnn_cell_errors():
    cell = lambda d, c, h: tf.basic_lstm_cell(1.0, tf.ones([2, 4]), tf.zeros([4]), d, c, h)  # noqa: E731
    x = tf.ones([1, 1])
    with pytest.raises(tf.errors.ShapeError, match="got 2 cells but 1 c and 1 h states"):
        tf.multi_rnn_cell([cell, cell], x, [x], [x])
    with pytest.raises(tf.errors.ArgumentTypeError, match="lstm_cells must be a list of functions"):
        tf.multi_rnn_cell([1], x, [x], [x])
    with pytest.raises(
        tf.errors.ArgumentTypeError,
        match="Argument .c. passed to multi_rnn_cell must be a `Tensor\\[\\]`",
    ):
        tf.multi_rnn_cell([cell], x, x, [x])
