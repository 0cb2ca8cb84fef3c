"""The fused recurrent kernels (``backends/xp_kernels/recurrent.py``) themselves: the forward
pass stacks the weights once and its gradient reads them back from the workspace; the clip
mask lets the gradient pass at the hard sigmoid's bounds, as TF.js's ClipByValue gradient."""

from __future__ import annotations

import numpy as np
import pytest

from tidytensor.backends.xp_kernels import recurrent as kernels

B, T, D, U = 3, 4, 2, 5
GATES = {"lstm": 4, "gru": 3, "simple_rnn": 1}


def _inputs(kind: str, seed: int = 0):
    rng = np.random.default_rng(seed)
    g = GATES[kind] * U
    f32 = np.float32
    x = rng.standard_normal((B, T, D)).astype(f32)
    w = (rng.standard_normal((D, g)) * 0.5).astype(f32)
    rk = (rng.standard_normal((U, g)) * 0.5).astype(f32)
    bias = (rng.standard_normal(g) * 0.5).astype(f32)
    states = [(rng.standard_normal((B, U)) * 0.3).astype(f32)]
    if kind == "lstm":
        states.append((rng.standard_normal((B, U)) * 0.3).astype(f32))
    dys = [rng.standard_normal((B, T, U)).astype(f32) for _ in range(1)]
    dys += [rng.standard_normal((B, U)).astype(f32) for _ in states]
    return x, w, rk, states, bias, dys


def _attrs(kind: str) -> dict:
    attrs = {"has_bias": True, "return_sequences": True}
    if kind != "simple_rnn":
        attrs["recurrent_activation"] = "hardSigmoid"
    return attrs


@pytest.mark.parametrize("kind", sorted(GATES))
def test_gradient_reads_the_forward_passs_stacked_weights(kind):
    """The gradient kernel takes the weights as inputs (the tape saves them) but uses the
    stacked, folded copy the forward pass left in its workspace: weights that changed since
    (or garbage) give the same gradients, and nothing is re-stacked per call."""
    x, w, rk, states, bias, dys = _inputs(kind)
    forward = getattr(kernels, f"{kind}_sequence")
    backward = getattr(kernels, f"{kind}_sequence_grad")
    attrs = _attrs(kind)
    outs = forward(x, w, rk, *states, bias, xp=np, **attrs)
    workspace = outs[-1]
    expected = backward(*dys, x, w, rk, *states, bias, workspace, xp=np, **attrs)
    nan = [np.full_like(a, np.nan) for a in (w, rk, bias)]
    got = backward(*dys, x, nan[0], nan[1], *states, nan[2], workspace, xp=np, **attrs)
    assert len(got) == len(expected)
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_array_equal(a, b)
    assert all(np.isfinite(a).all() for a in got)


def test_lstm_clip_mask_passes_the_gradient_at_the_bounds():
    """A gate whose ``0.2 z + 0.5`` is exactly 0 or 1 did not clip (TF.js's ClipByValue
    gradient: ``min <= x <= max``): its gradient passes, where the derivative of the gate's
    output (``a (1 - a)`` is 0 there) would stop it."""
    f32 = np.float32
    x = np.ones((1, 1, 1), f32)
    # Gates i, f, o: 0.2 * 2.5 + 0.5 = 1 exactly, on the upper bound.
    w = np.full((1, 4), 2.5, f32)
    rk = np.zeros((1, 4), f32)
    bias = np.array([0, 0, 0.25, 0], f32)  # the cell input c: tanh
    h0 = np.zeros((1, 1), f32)
    c0 = np.ones((1, 1), f32)
    attrs = {"has_bias": True, "return_sequences": False}
    outs = kernels.lstm_sequence(x, w, rk, h0, c0, bias, xp=np, **attrs)
    workspace = outs[-1]
    dh = np.ones((1, 1), f32)
    grads = kernels.lstm_sequence_grad(
        np.zeros((1, 0, 1), f32), dh, np.zeros((1, 1), f32),
        x, w, rk, h0, c0, bias, workspace, xp=np, **attrs,
    )  # fmt: skip
    dw = grads[1]
    # dL/dz of every gate (TF.js's order i, f, c, o) passes through.
    assert (dw[0] != 0).all()
    assert np.isfinite(dw).all()


def test_scratch_lends_where_reference_counts_cannot_prove_an_array_free(monkeypatch):
    """On a free-threaded build (approximate reference counts) a kernel's own scratch arrays
    are lent, as outputs are, instead of handed out again by reference count."""
    import numpy as np

    from tidytensor.backends.xp_kernels import recurrent_sequence as rs

    pool = rs._Pool("probe")
    first = pool.scratch(np, (3, 2))
    assert pool.scratch(np, (3, 2)) is not first  # in use: another array
    del first
    assert pool.scratch(np, (3, 2)).base is None and not pool._buckets  # kept, not lent
    monkeypatch.setattr(rs, "_EXACT_REFCOUNTS", False)
    lent = pool.scratch(np, (4, 2))
    assert (4, 2) in pool._buckets and (4, 2) not in pool._scratch
    assert isinstance(lent.base, np.ndarray) and isinstance(lent.base.base, memoryview)
    pool.clear()
