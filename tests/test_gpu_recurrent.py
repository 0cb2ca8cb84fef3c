"""The GPU LSTM and GRU sequence kernels (``cupy_kernels/recurrent.py``) run on NumPy (their
fused functions as plain ufunc calls) and compared with the CPU kernels
(``xp_kernels/recurrent.py``), forward and gradients, over biases, recurrent-dropout masks,
sequence masks, ``go_backwards``, ``return_sequences``, the activations and empty sequences;
then on the stand-in CuPy (``fake_cupy``), which records each fused kernel that ran, and
through the Layers API (an LSTM and a GRU ``train_on_batch`` on ``'cupy'`` against ``'cpu'``).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import fake_cupy
import tidytensor as tf
from test_gpu_backend import fake_gpu, on_device  # noqa: F401  (the fixture)
from test_gpu_kernels import needs_stand_in
from tidytensor import kernel_registry as kr
from tidytensor.backends.cupy_kernels import recurrent as gpu
from tidytensor.backends.xp_kernels import recurrent as cpu
from tidytensor.kernel_names import recurrent as names

KINDS = {"lstm": (names.LSTM_SEQUENCE, 4, 2), "gru": (names.GRU_SEQUENCE, 3, 1)}
ACTIVATIONS = [("tanh", "hardSigmoid"), ("relu", "sigmoid"), ("linear", "tanh")]
FLAGS = list(itertools.product([False, True], repeat=5))  # bias, dropout, mask, backwards, seq


def _inputs(kind, shape, bias, dropout, mask, rng):
    """The forward kernel's inputs in the CPU kernel's order."""
    B, T, D, U = shape
    _, gates, states = KINDS[kind]
    f = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    arrays = [f(B, T, D), f(D, gates * U) * 0.5, f(U, gates * U) * 0.3]
    arrays += [f(B, U) for _ in range(states)]
    if bias:
        arrays.append(f(gates * U))
    if dropout:
        arrays.append((rng.random((B, U)) > 0.3).astype(np.float32) / np.float32(0.7))
    if mask:
        arrays.append((rng.random((B, T)) > 0.3).astype(np.float32))
    return arrays


def _close(got, want, what):
    """float32 agreement, relative to the largest value (a relu recurrence grows large and
    its sums cancel)."""
    assert got.shape == want.shape, what
    assert got.dtype == np.float32, what
    scale = max(1.0, float(np.abs(want).max(initial=0)))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=2e-5 * scale, err_msg=what)


def _run_both(kind, shape, flags, acts, seed, xp=np, convert=np.asarray):
    """Forward and gradient on the CPU kernels and the GPU kernels (on ``xp``); asserts they
    agree."""
    bias, dropout, mask, backwards, seq = flags
    name, _, states = KINDS[kind]
    rng = np.random.default_rng(seed)
    arrays = _inputs(kind, shape, bias, dropout, mask, rng)
    attrs = {
        "activation": acts[0],
        "recurrent_activation": acts[1],
        "go_backwards": backwards,
        "return_sequences": seq,
        "has_bias": bias,
        "has_rec_mask": dropout,
        "has_mask": mask,
    }
    want = cpu.KERNELS[name](*arrays, xp=np, **attrs)
    dev = [xp.asarray(a) for a in arrays]
    got = gpu.KERNELS[name](*dev, xp=xp, **attrs)
    assert len(got) == len(want) == 2 + states
    # The workspaces are as long: tf.memory() counts the same bytes on both backends.
    assert got[-1].shape == want[-1].shape and got[-1].dtype == np.float32
    assert np.isfinite(np.asarray(got[-1])).all()  # no uninitialized padding (debug mode)
    for i, (g, w) in enumerate(zip(got[:-1], want[:-1], strict=True)):
        _close(convert(g), w, f"{name} output {i} {acts} {flags}")
    douts = [rng.standard_normal(o.shape).astype(np.float32) for o in want[: 1 + states]]
    grads_want = cpu.KERNELS[name + "Grad"](*douts, *arrays, want[-1], xp=np, **attrs)
    grads = gpu.KERNELS[name + "Grad"](
        *[xp.asarray(d) for d in douts], *dev, got[-1], xp=xp, **attrs
    )
    assert len(grads) == len(grads_want) == len(arrays)
    for i, (g, w) in enumerate(zip(grads, grads_want, strict=True)):
        _close(convert(g), w, f"{name} gradient {i} {acts} {flags}")


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: "".join("1" if x else "0" for x in f))
def test_gpu_sequence_kernels_match_the_cpu(kind, flags):
    for n, acts in enumerate(ACTIVATIONS):
        _run_both(kind, (3, 5, 4, 6), flags, acts, seed=n + 7 * FLAGS.index(flags))


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("shape", [(2, 0, 3, 4), (1, 1, 1, 1), (4, 9, 2, 3), (0, 3, 2, 2)])
def test_gpu_sequence_kernels_match_the_cpu_on_edge_shapes(kind, shape):
    for flags in [(True, True, True, False, True), (False, False, False, True, False)]:
        _run_both(kind, shape, flags, ACTIVATIONS[0], seed=sum(shape))


def test_lstm_hard_sigmoid_gradient_passes_at_its_bounds_as_the_cpu():
    """Pre-activations exactly at the hard sigmoid's bounds (0.2 z + 0.5 = 0 or 1: z = -2.5
    or 2.5): the LSTM's gates pass the gradient there, as TF.js's ClipByValue gradient and the
    CPU kernel's clip mask; strictly outside they do not."""
    x = np.array([[[1.0]], [[1.0]], [[1.0]]], dtype=np.float32)  # [B=3, T=1, D=1]
    z = np.float32(2.5)
    w = np.full((1, 4), z, dtype=np.float32)
    rk = np.zeros((1, 4), dtype=np.float32)
    h0, c0 = np.zeros((3, 1), np.float32), np.ones((3, 1), np.float32)
    scale = np.array([[1.0], [-1.0], [1.5]], dtype=np.float32)  # z, -z, past the bound
    x = x * scale[:, :, None]
    attrs = {"activation": "tanh", "recurrent_activation": "hardSigmoid", "return_sequences": False}
    outs = gpu.lstm_sequence(x, w, rk, h0, c0, xp=np, **attrs)
    want = cpu.lstm_sequence(x, w, rk, h0, c0, xp=np, **attrs)
    d = [np.zeros((3, 0, 1), np.float32), np.ones((3, 1), np.float32), np.ones((3, 1), np.float32)]
    got_dw = gpu.lstm_sequence_grad(*d, x, w, rk, h0, c0, outs[-1], xp=np, **attrs)[1]
    want_dw = cpu.lstm_sequence_grad(*d, x, w, rk, h0, c0, want[-1], xp=np, **attrs)[1]
    np.testing.assert_allclose(got_dw, want_dw, rtol=1e-6, atol=1e-7)
    assert np.all(got_dw[0, [0, 1, 3]] != 0)  # rows 0 and 1 sit on the bounds: they pass


# ------------------------------------------------------------------ on the stand-in CuPy
#: The fused functions each kernel's time loop runs, one call per step (GRU: two).
FORWARD_FUSED = {"lstm": ["lstm_step"], "gru": ["gru_reset", "gru_step"]}
BACKWARD_FUSED = {"lstm": ["lstm_step_grad"], "gru": ["gru_step_grad", "gru_reset_grad"]}


@needs_stand_in
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_gpu_sequence_kernels_run_their_fused_kernels_on_the_stand_in(fake_gpu, kind):  # noqa: F811
    """On the stand-in (which has ``fuse``) every step is the fused functions, one call each
    per step, forward and backward; the results are the CPU kernels'."""
    steps = 5
    fake_cupy.FUSED_CALLS.clear()
    _run_both(
        kind,
        (3, steps, 4, 6),
        (True, True, True, True, True),
        ACTIVATIONS[0],
        seed=3,
        xp=fake_gpu,
    )
    assert fake_cupy.FUSED_CALLS == FORWARD_FUSED[kind] * steps + BACKWARD_FUSED[kind] * steps


def _train(kind, seed=4):
    """Two ``train_on_batch`` steps of a small model with an LSTM or GRU layer (the same
    weights on both backends, no dropout), then its losses, weights and a prediction."""
    rng = np.random.default_rng(seed)
    layer = tf.layers.lstm if kind == "lstm" else tf.layers.gru
    model = tf.sequential(
        layers=[
            layer(units=8, input_shape=[6, 3], return_sequences=True, go_backwards=True),
            tf.layers.flatten(),
            tf.layers.dense(units=2),
        ]
    )
    model.set_weights(
        [tf.tensor(rng.uniform(-0.5, 0.5, w.shape).astype(np.float32)) for w in model.get_weights()]
    )
    model.compile(optimizer=tf.train.sgd(0.1), loss="meanSquaredError")
    x = tf.tensor(rng.standard_normal((4, 6, 3)).astype(np.float32))
    y = tf.tensor(rng.standard_normal((4, 2)).astype(np.float32))
    losses = [float(model.train_on_batch(x, y)) for _ in range(2)]
    on_gpu = all(on_device(w.read()) for w in model.trainable_weights)
    assert on_gpu == (tf.get_backend() == "cupy")
    weights = [w.read().array_sync() for w in model.trainable_weights]
    prediction = tf.tidy(lambda: model.predict(x).array_sync())
    model.dispose()
    model.optimizer.dispose()
    tf.dispose([x, y])
    return losses, weights, prediction


@needs_stand_in
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_recurrent_layer_trains_on_the_gpu_backend_as_on_the_cpu(fake_gpu, kind):  # noqa: F811
    tf.set_backend("cupy")
    name = KINDS[kind][0]
    assert kr.get_kernel(name, "cupy").kernel_func.fn is gpu.KERNELS[name]
    assert kr.get_kernel(name + "Grad", "cupy").kernel_func.fn is gpu.KERNELS[name + "Grad"]
    fake_cupy.FUSED_CALLS.clear()
    got = _train(kind)
    # (train_on_batch replays a compiled step: its elementwise runs are fused too.)
    assert set(FORWARD_FUSED[kind] + BACKWARD_FUSED[kind]) <= set(fake_cupy.FUSED_CALLS)
    tf.set_backend("cpu")
    want = _train(kind)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5)
    for g, w in zip(got[1], want[1], strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[2], want[2], rtol=1e-4, atol=1e-5)
