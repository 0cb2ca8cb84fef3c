"""Fused recurrent kernels: a whole LSTM, GRU or SimpleRNN sequence forward in one kernel, and
its backward pass (backpropagation through time) in one more.

They compute exactly what TF.js's per-step ops compute (``layers/recurrent.ts``: LSTMCell,
GRUCell with ``resetAfter`` false, SimpleRNNCell; ``K.rnn`` with its masking and
``goBackwards``; the cells' recurrent-dropout masks), with these implementation choices:

- each step's pre-activations come from one matmul of the stacked weights
  ``[kernel; recurrentKernel; bias]^T`` with the stacked inputs ``[x_t; h; 1]``
  (``xp.matmul(..., out=)``: NumPy's ``dot`` zeroes its ``out`` before the same BLAS call
  and costs ~3 us more per step at these sizes; the bits are the same);
- the forward pass stacks the weights once per call, into its ``workspace``, and the
  gradient reads them back from there (no re-stacking, no re-ordering of the LSTM's gates);
- a hard sigmoid ``clip(0.2 z + 0.5, 0, 1)`` is folded into the weights: its rows of the
  stacked weights are scaled by 0.2 (plus 0.5 on the bias), so the step only clips;
  gradients are scaled back at the end; the clip mask (where the gradient passes, bounds
  included, as TF.js's ClipByValue gradient) is one comparison over all steps after the loop;
- the backward pass's per-step matmuls read a contiguous ``[K, G]`` copy of the stacked
  weights, made once by the forward pass (faster than the transposed view); the weight
  gradient is one matmul over all steps of gate-major / input-major copies of the gates'
  gradients and the stacked inputs (per-step work on strided views costs more than them);
- with hard-sigmoid gates and no mask (TF.js's default LSTM), each step's elementwise work
  runs as one compiled pass where the float32 loops are built (``_float32_c``'s
  ``lstm_forward_steps`` and ``lstm_backward_steps``: the same float32 operations as the
  NumPy lines beside them, which stay the reference);
- every per-step operation writes into preallocated buffers (``out=``), and buffers come from
  a small pool that hands an array out again once nothing else references it (no page
  faults on every call for large scratch arrays);
- the forward pass keeps what the backward pass needs in one ``workspace`` output, which the
  gradient (``gradients/recurrent.py``) saves.

This module holds each cell's own math; what the cells share lives in ``recurrent_steps.py``
(the in-place steps: activations, stacked weights, masks, the time loops' bookkeeping) and
``recurrent_sequence.py`` (the kernels' arguments, the buffer pool, the workspace; shared
with the GPU kernels, ``cupy_kernels/recurrent.py``).

Masks ``[B, T]`` hold 0/1 (the layer casts them as TF.js does); a masked step keeps the
previous state: ``new * m + old * (1 - m)``.
"""

from __future__ import annotations

from ...kernel_names import recurrent as kr
from .float32_loops import compiled_steps
from .recurrent_sequence import (
    SequenceCall,
    carve,
    clear_buffer_pool,
    scratch,
    sequence_kernel,
    workspace,
)
from .recurrent_steps import (
    activate,
    derivative,
    fill_stacked,
    finish_backward,
    finish_forward,
    grad_start,
    in_order,
    mask_buffers,
    mask_grad_at,
    select,
    split_masked,
    start_backward,
    start_forward,
    step_in,
    step_out,
    store_state,
    transposed,
)

__all__ = ["KERNELS", "clear_buffer_pool"]


# =============================================================================== LSTM
def _lstm_weights(call: SequenceCall):
    """The stacked weights' (activation of each group of rows, blocks): the kernel keeps the
    gates as i, f, o, c (TF.js: i, f, c, o), so the three gates with the recurrent activation
    are contiguous; blocks are the (kernel rows, TF.js columns) of each block of gates."""
    U, ra = call.U, call.recurrent_activation
    i_f, c, o = slice(0, 2 * U), slice(2 * U, 3 * U), slice(3 * U, 4 * U)
    return (ra, ra, ra, call.activation), ((i_f, i_f), (c, o), (o, c))


def lstm_layout(T, B, D, U, has_rec_mask, clip_mask):
    """The workspace: the folded weights ``[G, K]`` and as ``[K, G]``, the stacked inputs
    ``[T + 1, K, B]``, the gates' activations, the cells, ``act(cell)``, [the states], [the
    clip mask]."""
    K, G = D + U + 1, 4 * U
    shapes = [(G, K), (K, G), (T + 1, K, B), (T, G, B), (T, U, B), (T, U, B)]
    if has_rec_mask:
        shapes.append((T, U, B))
    if clip_mask:  # bytes: where each hard-sigmoid gate did not clip (4 per float32)
        shapes.append(((T * 3 * U * B + 3) // 4,))
    return shapes


def _lstm_parts(ws, call: SequenceCall, xp):
    """The workspace's parts: ``wrk_t``, ``wrk``, ``XH``, ``A``, ``C``, ``TC``, the states,
    the clip mask."""
    T, B, U, dropped = call.T, call.B, call.U, call.rm is not None
    clip = call.recurrent_activation == "hardSigmoid"
    wrk_t, wrk, XH, A, C, TC, *rest = carve(ws, *lstm_layout(T, B, call.D, U, dropped, clip))
    Hs = rest[0] if dropped else None
    CM = rest[-1].view(xp.uint8)[: T * 3 * U * B].reshape(T, 3 * U, B) if clip else None
    return wrk_t, wrk, XH, A, C, TC, Hs, CM


@sequence_kernel(states=2, grad=False)
def lstm_sequence(call: SequenceCall, xp):
    B, T, D, U = call.B, call.T, call.D, call.U
    G = 4 * U
    ra, act = call.recurrent_activation, call.activation
    clip = ra == "hardSigmoid"
    ws = workspace(xp, lstm_layout(T, B, D, U, call.rm is not None, clip))
    wrk_t, wrk, XH, A, C, TC, Hs, CM = _lstm_parts(ws, call, xp)
    weights, backward_parts = _lstm_weights(call), [(slice(None), wrk)]
    H, rm, M, NM, h = start_forward(call, xp, wrk_t, XH, Hs, weights, backward_parts)
    c = transposed(call.c0, xp)
    # The pre-activations of every step (the clip mask compares them once, after the loop).
    Z, tb = scratch(xp, T, G, B), scratch(xp, U, B)
    hn, cn = mask_buffers(M, 2, U, B, xp)
    r3 = slice(0, 3 * U)
    # Hard-sigmoid gates without a mask: each step's clip and cell update in one compiled
    # pass (the same float32 operations as the NumPy lines below), where the loops run.
    steps = compiled_steps("lstm_forward_steps", Z, c, A, C) if clip and M is None else None
    for t in range(T):
        a, z = A[t], Z[t]
        xp.matmul(wrk_t, XH[t], out=z)
        go, gg = a[2 * U : 3 * U], a[3 * U :]
        if steps is not None:
            activate(act, z[3 * U :], gg, xp)
            steps.gates(t)
            ct = C[t]
        else:
            activate(ra, z[r3], a[r3], xp)
            gi, gf = a[:U], a[U : 2 * U]
            activate(act, z[3 * U :], gg, xp)
            ct = C[t] if M is None else cn
            xp.multiply(gf, c, out=ct)
            xp.multiply(gi, gg, out=tb)
            xp.add(ct, tb, out=ct)
        tc = TC[t]
        activate(act, ct, tc, xp)
        ht = H[t] if M is None else hn
        xp.multiply(go, tc, out=ht)
        if M is not None:
            select(M[t], NM[t], cn, c, C[t], tb, xp)
            select(M[t], NM[t], hn, h, H[t], tb, xp)
        store_state(XH, Hs, t, rm, D, U, xp)
        h, c = H[t], C[t]
    if CM is not None:
        xp.equal(A[:, r3], Z[:, r3], out=CM)
    return finish_forward(call, xp, ws, (H, h), (C, c))


def _lstm_grad_factors(A, C, TC, CM, c0, ra: str, act: str, U: int, xp):
    """The backward pass's per-step factors, worked out for all steps at once (the same
    products, in the same order): ``R = act'(tc) * o``; ``DG = act'(g)``; ``IF = [g; c_prev]``
    (what dL/dc multiplies for i and f) and ``TCO = tc`` (what dL/dh multiplies for o), each
    times the clip mask when there is one (0 or 1: the product is the one the step made);
    else ``DV``, the recurrent activation's derivative."""
    T, _, B = A.shape
    R, DG = scratch(xp, T, U, B), scratch(xp, T, U, B)
    derivative(act, TC, R, xp)
    xp.multiply(R, A[:, 2 * U : 3 * U], out=R)
    derivative(act, A[:, 3 * U :], DG, xp)
    IF = scratch(xp, T, 2, U, B)
    if T:
        xp.copyto(IF[:, 0], A[:, 3 * U :])
        xp.copyto(IF[0, 1], c0)
        xp.copyto(IF[1:, 1], C[: T - 1])
    if CM is None:
        DV = scratch(xp, *A[:, : 3 * U].shape)
        derivative(ra, A[:, : 3 * U], DV, xp)
        return R, DG, IF, TC, DV
    TCO = scratch(xp, *TC.shape)
    xp.multiply(TC, CM[:, 2 * U :], out=TCO)
    IF2 = IF.reshape(T, 2 * U, B)
    xp.multiply(IF2, CM[:, : 2 * U], out=IF2)
    return R, DG, IF, TCO, None


def _lstm_grad_elementwise(t, dh, dc, hprev, c0, A, C, TC, M, NM, dm_t, factors, bufs, xp):
    """Step ``t``'s elementwise backward work in NumPy (the reference of
    ``_float32_c.lstm_backward_steps``, and the masked and non-hard-sigmoid cases): the
    mask's gradient ``dm_t[t]``, the gates' gradients ``dZ[t]``, and ``dc`` becomes the
    cell's gradient before the step (without what a masked step carries past itself)."""
    R, DG, IF, TCO, DV, dZ = factors
    dcur, tb, dhn, dcn, carry_h, carry_c = bufs
    U, B = dh.shape
    a = A[t]
    gi, gf = a[:U], a[U : 2 * U]
    if M is not None:
        # dL/dm = dh . (h_new - h_prev) + dc . (c_new - c_prev)
        cprev = C[t - 1] if t else c0
        xp.multiply(a[2 * U : 3 * U], TC[t], out=tb)
        xp.subtract(tb, hprev, out=tb)
        xp.multiply(tb, dh, out=tb)
        col = tb.sum(axis=0, dtype=xp.float32)
        xp.multiply(gf, cprev, out=dcur)
        xp.multiply(gi, a[3 * U :], out=tb)
        xp.add(dcur, tb, out=dcur)
        xp.subtract(dcur, cprev, out=dcur)
        xp.multiply(dcur, dc, out=dcur)
        xp.add(col, dcur.sum(axis=0, dtype=xp.float32), out=dm_t[t])
        split_masked(dh, M[t], NM[t], dhn, carry_h, xp)
        split_masked(dc, M[t], NM[t], dcn, carry_c, xp)
    else:
        dhn, dcn = dh, dc
    dz = dZ[t]
    xp.multiply(dhn, TCO[t], out=dz[2 * U : 3 * U])
    xp.multiply(R[t], dhn, out=dcur)
    xp.add(dcur, dcn, out=dcur)
    xp.multiply(IF[t], dcur, out=dz[: 2 * U].reshape(2, U, B))
    dzg = dz[3 * U :]
    xp.multiply(dcur, gi, out=dzg)
    xp.multiply(dcur, gf, out=dc)
    if DV is not None:
        r3 = slice(0, 3 * U)
        xp.multiply(dz[r3], DV[t], out=dz[r3])
    xp.multiply(dzg, DG[t], out=dzg)


@sequence_kernel(states=2, grad=True)
def lstm_sequence_grad(call: SequenceCall, xp):
    B, T, D, U = call.B, call.T, call.D, call.U
    G, K = 4 * U, D + U + 1
    ra, act = call.recurrent_activation, call.activation
    # The forward pass's folded weights, as it stacked them.
    _, wrk, XH, A, C, TC, Hs, CM = _lstm_parts(call.ws, call, xp)
    H, rm, h0, M, NM, dS, dh, dm_t, drm = start_backward(call, xp, XH, Hs)
    c0 = transposed(call.c0, xp)
    dc = grad_start(call.dc_last, U, B, xp)
    dZ, dXH = scratch(xp, T, G, B), scratch(xp, T, K, B)
    dcur, tb = scratch(xp, U, B), scratch(xp, U, B)
    dhn, dcn, carry_h, carry_c = mask_buffers(M, 4, U, B, xp)
    R, DG, IF, TCO, DV = _lstm_grad_factors(A, C, TC, CM, c0, ra, act, U, xp)
    # Without a mask, with hard-sigmoid gates: each step's elementwise work (from dh += dS[t]
    # to dc) in one compiled pass, the float32 operations of _lstm_grad_elementwise.
    steps = None
    if M is None and DV is None:
        steps = compiled_steps("lstm_backward_steps", TCO, R, IF, A, DG, dc, dZ, dS)
    factors = (R, DG, IF, TCO, DV, dZ)
    bufs = (dcur, tb, dhn, dcn, carry_h, carry_c)
    for t in range(T - 1, -1, -1):
        compiled = steps is not None and steps.step(t, dh)  # dh += dS[t], dZ[t], dc
        hprev = step_in(dh, None if compiled else dS, H, h0, t, xp)
        if not compiled:
            _lstm_grad_elementwise(t, dh, dc, hprev, c0, A, C, TC, M, NM, dm_t, factors, bufs, xp)
        dxh = dXH[t]
        xp.matmul(wrk, dZ[t], out=dxh)
        dh = dxh[D : D + U]
        step_out(dh, hprev, rm, drm, carry_h, tb, xp)
        if M is not None:
            xp.add(dc, carry_c, out=dc)
    pairs = [(dZ, XH)]
    return finish_backward(call, xp, _lstm_weights(call), pairs, [dXH], (dh, dc), drm, dm_t)


# ================================================================================ GRU
def _gru_weights(call: SequenceCall):
    """The stacked weights' (activation of each group of rows, blocks): TF.js's order."""
    ra = call.recurrent_activation
    return (ra, ra, call.activation), in_order(3 * call.U)


def gru_layout(T, B, D, U, has_rec_mask):
    """The workspace: the folded weights ``[G, K]``, its gates' and candidate's columns as
    ``[K, 2U]`` and ``[K, U]``, the stacked inputs ``[x; h; 1]`` and ``[x; r * h; 1]``, the
    gates, the candidates, [the states]."""
    K = D + U + 1
    shapes = [(3 * U, K), (K, 2 * U), (K, U), (T + 1, K, B), (T, K, B), (T, 2 * U, B), (T, U, B)]
    if has_rec_mask:
        shapes.append((T, U, B))
    return shapes


def _gru_parts(ws, call: SequenceCall):
    """``wrk_t``, ``wzr``, ``wh``, ``XH``, ``XR``, ``AZR``, ``HH``, the states."""
    layout = gru_layout(call.T, call.B, call.D, call.U, call.rm is not None)
    wrk_t, wzr, wh, XH, XR, AZR, HH, *rest = carve(ws, *layout)
    return wrk_t, wzr, wh, XH, XR, AZR, HH, rest[0] if rest else None


@sequence_kernel(states=1, grad=False)
def gru_sequence(call: SequenceCall, xp):
    B, T, D, U = call.B, call.T, call.D, call.U
    ra, act = call.recurrent_activation, call.activation
    ws = workspace(xp, gru_layout(T, B, D, U, call.rm is not None))
    wrk_t, wzr, wh, XH, XR, AZR, HH, Hs = _gru_parts(ws, call)
    backward_parts = [(slice(0, 2 * U), wzr), (slice(2 * U, 3 * U), wh)]
    H, rm, M, NM, h = start_forward(call, xp, wrk_t, XH, Hs, _gru_weights(call), backward_parts)
    fill_stacked(XR, call.x, call.go_backwards)  # [x; r * h; 1]: r * h step by step
    wzr_t, wh_t = wrk_t[: 2 * U], wrk_t[2 * U :]
    zr, zh, tb = scratch(xp, 2 * U, B), scratch(xp, U, B), scratch(xp, U, B)
    (hn,) = mask_buffers(M, 1, U, B, xp)
    for t in range(T):
        azr, hh = AZR[t], HH[t]
        hin = XH[t, D : D + U]
        xp.matmul(wzr_t, XH[t], out=zr)
        activate(ra, zr, azr, xp)
        gate, reset = azr[:U], azr[U:]
        xr = XR[t]
        xp.multiply(reset, hin, out=xr[D : D + U])
        xp.matmul(wh_t, xr, out=zh)
        activate(act, zh, hh, xp)
        ht = H[t] if M is None else hn
        xp.subtract(1, gate, out=tb)
        xp.multiply(tb, hh, out=tb)
        xp.multiply(gate, hin, out=ht)
        xp.add(ht, tb, out=ht)
        if M is not None:
            select(M[t], NM[t], hn, h, H[t], tb, xp)
        store_state(XH, Hs, t, rm, D, U, xp)
        h = H[t]
    return finish_forward(call, xp, ws, (H, h))


@sequence_kernel(states=1, grad=True)
def gru_sequence_grad(call: SequenceCall, xp):
    B, T, D, U = call.B, call.T, call.D, call.U
    K = D + U + 1
    ra, act = call.recurrent_activation, call.activation
    # The forward pass's folded weights, as it stacked them.
    _, wzr, wh, XH, XR, AZR, HH, Hs = _gru_parts(call.ws, call)
    H, rm, h0, M, NM, dS, dh, dm_t, drm = start_backward(call, xp, XH, Hs)
    dZR, dZH = scratch(xp, T, 2 * U, B), scratch(xp, T, U, B)
    dXH, dXR = scratch(xp, T, K, B), scratch(xp, T, K, B)
    dhin, tb = scratch(xp, U, B), scratch(xp, U, B)
    dhn, carry = mask_buffers(M, 2, U, B, xp)
    # Per-step factors worked out for all steps at once (the same values): hin - hh, 1 - z,
    # the candidate's and the gates' activation derivatives.
    HIN_HH, Z1 = scratch(xp, T, U, B), scratch(xp, T, U, B)
    xp.subtract(XH[:T, D : D + U], HH, out=HIN_HH)
    xp.subtract(1, AZR[:, :U], out=Z1)
    DHH, DZR = scratch(xp, T, U, B), scratch(xp, T, 2 * U, B)
    derivative(act, HH, DHH, xp)
    derivative(ra, AZR, DZR, xp)
    for t in range(T - 1, -1, -1):
        hprev = step_in(dh, dS, H, h0, t, xp)
        azr, hh = AZR[t], HH[t]
        gate, reset = azr[:U], azr[U:]
        hin = XH[t, D : D + U]
        if M is not None:
            # dL/dm = dh . (h_new - h_prev), h_new = z * hin + (1 - z) * hh
            xp.subtract(1, gate, out=tb)
            xp.multiply(tb, hh, out=tb)
            xp.multiply(gate, hin, out=dhin)
            xp.add(dhin, tb, out=dhin)
            mask_grad_at(dhin, hprev, dh, dhin, dm_t[t], xp)
            split_masked(dh, M[t], NM[t], dhn, carry, xp)
        else:
            dhn = dh
        dzr, dzh = dZR[t], dZH[t]
        xp.multiply(HIN_HH[t], dhn, out=dzr[:U])
        xp.multiply(Z1[t], dhn, out=dzh)
        xp.multiply(dhn, gate, out=dhin)
        xp.multiply(dzh, DHH[t], out=dzh)
        dxr = dXR[t]
        xp.matmul(wh, dzh, out=dxr)
        drh = dxr[D : D + U]
        xp.multiply(drh, hin, out=dzr[U:])
        xp.multiply(drh, reset, out=tb)
        xp.add(dhin, tb, out=dhin)
        xp.multiply(dzr, DZR[t], out=dzr)
        dxh = dXH[t]
        xp.matmul(wzr, dzr, out=dxh)
        dh = dxh[D : D + U]
        xp.add(dh, dhin, out=dh)
        step_out(dh, hprev, rm, drm, carry, tb, xp)
    pairs = [(dZR, XH), (dZH, XR)]
    return finish_backward(call, xp, _gru_weights(call), pairs, [dXH, dXR], (dh,), drm, dm_t)


# ========================================================================== SimpleRNN
def _simple_weights(call: SequenceCall):
    """The stacked weights' (activation of each group of rows, blocks)."""
    return (call.activation,), in_order(call.U)


def _simple_layout(T, B, D, U, has_rec_mask):
    """The workspace: the folded weights ``[U, K]`` and as ``[K, U]``, the stacked inputs,
    the activations (with a mask), [the states]."""
    K = D + U + 1
    shapes = [(U, K), (K, U), (T + 1, K, B), (T, U, B)]
    if has_rec_mask:
        shapes.append((T, U, B))
    return shapes


def _simple_parts(ws, call: SequenceCall):
    """``wrk_t``, ``wrk``, ``XH``, ``A``, the states."""
    layout = _simple_layout(call.T, call.B, call.D, call.U, call.rm is not None)
    wrk_t, wrk, XH, A, *rest = carve(ws, *layout)
    return wrk_t, wrk, XH, A, rest[0] if rest else None


@sequence_kernel(states=1, grad=False)
def simple_rnn_sequence(call: SequenceCall, xp):
    B, T, D, U = call.B, call.T, call.D, call.U
    activation = call.activation
    ws = workspace(xp, _simple_layout(T, B, D, U, call.rm is not None))
    wrk_t, wrk, XH, A, Hs = _simple_parts(ws, call)
    weights, backward_parts = _simple_weights(call), [(slice(None), wrk)]
    H, rm, M, NM, h = start_forward(call, xp, wrk_t, XH, Hs, weights, backward_parts)
    z, tb = scratch(xp, U, B), scratch(xp, U, B)
    for t in range(T):
        xp.matmul(wrk_t, XH[t], out=z)
        if M is not None:
            activate(activation, z, A[t], xp)
            select(M[t], NM[t], A[t], h, H[t], tb, xp)
        else:
            activate(activation, z, H[t], xp)
        store_state(XH, Hs, t, rm, D, U, xp)
        h = H[t]
    return finish_forward(call, xp, ws, (H, h))


@sequence_kernel(states=1, grad=True)
def simple_rnn_sequence_grad(call: SequenceCall, xp):
    # The forward pass's folded weights, as it stacked them.
    _, wrk, XH, A, Hs = _simple_parts(call.ws, call)
    B, T, D, U = call.B, call.T, call.D, call.U
    K = D + U + 1
    H, rm, h0, M, NM, dS, dh, dm_t, drm = start_backward(call, xp, XH, Hs)
    dZ, dXH = scratch(xp, T, U, B), scratch(xp, T, K, B)
    dv, tb = scratch(xp, U, B), scratch(xp, U, B)
    dhn, carry = mask_buffers(M, 2, U, B, xp)
    for t in range(T - 1, -1, -1):
        hprev = step_in(dh, dS, H, h0, t, xp)
        at = H[t] if M is None else A[t]
        if M is not None:
            mask_grad_at(at, hprev, dh, tb, dm_t[t], xp)
            split_masked(dh, M[t], NM[t], dhn, carry, xp)
        else:
            dhn = dh
        derivative(call.activation, at, dv, xp)
        dz = dZ[t]
        xp.multiply(dhn, dv, out=dz)
        dxh = dXH[t]
        xp.matmul(wrk, dz, out=dxh)
        dh = dxh[D : D + U]
        step_out(dh, hprev, rm, drm, carry, tb, xp)
    pairs = [(dZ, XH)]
    return finish_backward(call, xp, _simple_weights(call), pairs, [dXH], (dh,), drm, dm_t)


KERNELS = {
    kr.LSTM_SEQUENCE: lstm_sequence,
    kr.LSTM_SEQUENCE_GRAD: lstm_sequence_grad,
    kr.GRU_SEQUENCE: gru_sequence,
    kr.GRU_SEQUENCE_GRAD: gru_sequence_grad,
    kr.SIMPLE_RNN_SEQUENCE: simple_rnn_sequence,
    kr.SIMPLE_RNN_SEQUENCE_GRAD: simple_rnn_sequence_grad,
}
