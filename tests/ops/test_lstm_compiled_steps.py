"""The LSTM sequence kernels' compiled steps (``_float32_c.lstm_forward_steps`` and
``lstm_backward_steps``, issue 16) against the kernels' NumPy reference: with hard-sigmoid
gates and no mask, every output of ``lstm_sequence`` and ``lstm_sequence_grad`` has the bits
the reference gives (zeros, infinities, NaNs and huge values among the inputs; a NaN's sign
and payload, and a zero's sign, aside: see ``_assert_same_bits``); the steppers refuse
(writing nothing) the arrays they do not take; the reference runs where the loops are
switched off. Runs on both engines (CI's second run sets ``TIDYTENSOR_PURE_PYTHON=1``: the
kernels then run the reference, and the steppers are tested by name)."""

from __future__ import annotations

import importlib
import importlib.util
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tidytensor.backends.xp_kernels import float32_loops
from tidytensor.backends.xp_kernels import recurrent as kernels

F32 = np.float32
NAME = "tidytensor.backends.xp_kernels._float32_c"
BUILT = importlib.util.find_spec(NAME) is not None
LOOPS = importlib.import_module(NAME) if BUILT else None
pytestmark = pytest.mark.skipif(not BUILT, reason="the compiled float32 loops are not built")

SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 5.0, -5.0, 1e30, -1e30, np.inf, -np.inf, np.nan]


def _lstm_inputs(data, B, T, D, U, special):
    def array(*shape, scale=1.0):
        values = data.draw(
            st.lists(
                st.sampled_from(SPECIAL) if special else st.floats(-3, 3, width=32),
                min_size=int(np.prod(shape)),
                max_size=int(np.prod(shape)),
            )
        )
        return (np.array(values, F32) * F32(scale)).reshape(shape)

    x, w, rk = array(B, T, D), array(D, 4 * U, scale=0.5), array(U, 4 * U, scale=0.5)
    h0, c0, bias = array(B, U, scale=0.3), array(B, U, scale=0.3), array(4 * U)
    dseq, dh, dc = array(B, T, U), array(B, U), array(B, U)
    return (x, w, rk, h0, c0, bias), (dseq, dh, dc)


def _run(inputs, grads, attrs, loops, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(float32_loops, "LOOPS", loops)
        outs = kernels.lstm_sequence(*inputs, xp=np, **attrs)
        outs = [np.array(a, copy=True) for a in outs]
        ws = outs[-1]
        dseq = grads[0] if attrs["return_sequences"] else np.zeros((grads[0].shape[0], 0, 1), F32)
        got = kernels.lstm_sequence_grad(dseq, *grads[1:], *inputs, ws, xp=np, **attrs)
        return outs, [np.array(a, copy=True) for a in got]


class _Spy:
    """The compiled loops' module, noting the name of each function the kernels take."""

    def __init__(self, calls: list):
        self.calls = calls

    def __getattr__(self, name):
        self.calls.append(name)
        return getattr(LOOPS, name)


def _assert_same_bits(got, want):
    """The same bits, a NaN wherever the reference has one: which of two NaN operands an
    operation passes on is the compiler's and the CPU's choice (as in NumPy's own loops), and
    ``clip(-0.0, 0, 1)`` is -0.0 or +0.0 by NumPy's SIMD path for the CPU; TF.js tells
    neither apart."""
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        nan = np.isnan(b)
        assert np.array_equal(np.isnan(a), nan)
        a, b = a[~nan], b[~nan]
        zero = b == 0
        assert np.array_equal(a[zero], b[zero])  # +0.0 == -0.0
        assert np.array_equal(a[~zero].view(np.uint32), b[~zero].view(np.uint32))


@settings(max_examples=40)
@given(
    data=st.data(),
    B=st.integers(1, 4),
    T=st.integers(1, 5),
    D=st.integers(1, 3),
    U=st.integers(1, 5),
    special=st.booleans(),
    return_sequences=st.booleans(),
    activation=st.sampled_from(["tanh", "relu", "linear"]),
    go_backwards=st.booleans(),
)
def test_compiled_steps_give_the_references_bits(
    data, B, T, D, U, special, return_sequences, activation, go_backwards
):
    monkeypatch = pytest.MonkeyPatch()
    inputs, grads = _lstm_inputs(data, B, T, D, U, special)
    attrs = {
        "has_bias": True,
        "return_sequences": return_sequences,
        "recurrent_activation": "hardSigmoid",
        "activation": activation,
        "go_backwards": go_backwards,
    }
    calls = []
    outs, dins = _run(inputs, grads, attrs, _Spy(calls), monkeypatch)
    ref_outs, ref_dins = _run(inputs, grads, attrs, None, monkeypatch)
    assert calls == ["lstm_forward_steps", "lstm_backward_steps"]
    _assert_same_bits(outs, ref_outs)
    _assert_same_bits(dins, ref_dins)


def _small_lstm(seed: int, B=2, T=3, D=2, U=3):
    """``x, kernel, recurrentKernel, h0, c0`` of a small LSTM (zero initial states)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((B, T, D)).astype(F32)
    w, rk = rng.standard_normal((D, 4 * U)).astype(F32), rng.standard_normal((U, 4 * U)).astype(F32)
    return x, w, rk, np.zeros((B, U), F32), np.zeros((B, U), F32)


def test_the_reference_runs_with_a_mask_or_sigmoid_gates(monkeypatch):
    inputs = _small_lstm(0)
    calls = []
    monkeypatch.setattr(float32_loops, "LOOPS", _Spy(calls))
    kernels.lstm_sequence(*inputs, xp=np, recurrent_activation="sigmoid")
    mask = np.ones(inputs[0].shape[:2], F32)
    kernels.lstm_sequence(*inputs, mask, xp=np, has_mask=True)
    assert calls == []


def test_a_build_without_the_steppers_runs_the_reference(monkeypatch):
    """A ``_float32_c`` built before the steppers existed (a checkout not rebuilt)."""
    inputs = _small_lstm(3)
    monkeypatch.setattr(float32_loops, "LOOPS", SimpleNamespace())
    old = [np.array(a, copy=True) for a in kernels.lstm_sequence(*inputs, xp=np)]
    monkeypatch.setattr(float32_loops, "LOOPS", None)
    _assert_same_bits(old, kernels.lstm_sequence(*inputs, xp=np))


def _forward_arrays(T=3, n=6):
    rng = np.random.default_rng(1)
    z = rng.standard_normal((T, 4 * n)).astype(F32)
    c0 = rng.standard_normal(n).astype(F32)
    return z, c0, np.zeros((T, 4 * n), F32), np.zeros((T, n), F32)


def test_forward_steps_refuse_what_they_do_not_take():
    z, c0, a, c = _forward_arrays()
    assert LOOPS.lstm_forward_steps(z, c0, a, c) is not None
    refused = [
        (z.astype(np.float64), c0, a, c),  # not float32
        (z, c0, a, c[:2]),  # T does not match
        (z, c0, a[:, ::2], c),  # not contiguous
        (z, c0, a, a[:, : c.shape[1]]),  # an output inside another
        (z, c0, z, c),  # an output that is an input
        (z, np.zeros(0, F32), a, c),  # no units
    ]
    read_only = a.copy()
    read_only.flags.writeable = False
    refused.append((z, c0, read_only, c))
    for args in refused:
        assert LOOPS.lstm_forward_steps(*args) is None
    steps = LOOPS.lstm_forward_steps(z, c0, a, c)
    with pytest.raises(IndexError):
        steps.gates(3)


def test_forward_steps_compute_the_gates_and_cells():
    z, c0, a, c = _forward_arrays()
    n = c0.size
    a[:, 3 * n :] = np.tanh(z[:, 3 * n :])
    steps = LOOPS.lstm_forward_steps(z, c0, a, c)
    prev = c0
    for t in range(z.shape[0]):
        steps.gates(t)
        clipped = np.clip(z[t, : 3 * n], 0, 1)
        np.testing.assert_array_equal(a[t, : 3 * n], clipped)
        cell = clipped[n : 2 * n] * prev + clipped[:n] * a[t, 3 * n :]
        np.testing.assert_array_equal(c[t], cell)
        prev = c[t]


def test_backward_step_refuses_a_bad_running_gradient_and_writes_nothing():
    T, n = 2, 4
    rng = np.random.default_rng(2)
    f = [rng.standard_normal((T, k * n)).astype(F32) for k in (1, 1, 2, 4, 1)]
    dc, dz = np.ones(n, F32), np.zeros((T, 4 * n), F32)
    steps = LOOPS.lstm_backward_steps(*f, dc, dz)
    assert steps is not None
    assert LOOPS.lstm_backward_steps(*f, dc, f[3]) is None  # an output that is an input
    assert LOOPS.lstm_backward_steps(*f, dz[0, :n], dz) is None  # outputs overlapping
    assert LOOPS.lstm_backward_steps(*f[:4], f[4][:1], dc, dz) is None  # T does not match
    for dh in (np.ones(n + 1, F32), np.ones(n, np.float64), dz[1, :n], np.ones(2 * n, F32)[::2]):
        assert steps.step(1, dh) is False
    assert not dz.any() and (dc == 1).all()
    assert steps.step(1, np.ones(n, F32)) is True
    assert dz[1].any() and not dz[0].any()
