"""The NumPy (``xp``) recurrent kernels' shared steps (``xp_kernels/recurrent.py``): the
activations and their derivatives as in-place ufuncs, the stacked weights ``[kernel;
recurrentKernel; bias]^T`` (with a hard sigmoid's ``0.2 z + 0.5`` folded in) and their
gradient, the stacked inputs ``[x_t; h; 1]``, the masks, and the bookkeeping every cell's
forward and backward time loop shares (:func:`start_forward`, :func:`finish_forward`,
:func:`start_backward`, :func:`step_in`, :func:`split_masked`, :func:`mask_grad_at`,
:func:`step_out`, :func:`finish_backward`). Every operation writes into a preallocated
buffer (``out=``)."""

from __future__ import annotations

from .recurrent_sequence import SequenceCall, outputs, scratch, take

# -------------------------------------------------------------------------- activations
_clip_ufuncs: dict = {}
_ZERO, _ONE = 0.0, 1.0


def _clip_ufunc(xp):
    """NumPy's ``clip`` ufunc (``np.clip`` without its Python wrapper layers, which cost more
    than the clip of a step's gates), or None where the array module has none."""
    key = id(xp)
    if key not in _clip_ufuncs:
        umath = getattr(getattr(xp, "_core", None), "umath", None)
        clip = getattr(umath, "clip", None)
        _clip_ufuncs[key] = clip if isinstance(clip, getattr(xp, "ufunc", ())) else None
    return _clip_ufuncs[key]


def activate(name: str, src, dst, xp) -> None:
    """``dst = activation(src)`` (a hard sigmoid's input is already ``0.2 z + 0.5``)."""
    if name == "tanh":
        xp.tanh(src, out=dst)
    elif name == "hardSigmoid":
        clip = _clip_ufunc(xp)
        if clip is None:
            xp.maximum(src, 0, out=dst)
            xp.minimum(dst, 1, out=dst)
        else:  # min(max(src, 0), 1) in one call
            clip(src, _ZERO, _ONE, out=dst)
    elif name == "sigmoid":
        xp.negative(src, out=dst)
        xp.exp(dst, out=dst)
        xp.add(dst, 1, out=dst)
        xp.reciprocal(dst, out=dst)
    elif name == "relu":
        xp.maximum(src, 0, out=dst)
    elif dst is not src:  # linear
        xp.copyto(dst, src)


def derivative(name: str, a, out, xp) -> None:
    """``out = d activation / d z`` from the activation's output ``a`` (TF.js's gradients:
    tanh ``1 - a^2``, sigmoid ``a (1 - a)``, relu ``a > 0``; a hard sigmoid passes where it
    did not clip, ``0 < a < 1``)."""
    if name == "tanh":
        xp.multiply(a, a, out=out)
        xp.subtract(1, out, out=out)
    elif name == "sigmoid":
        xp.subtract(1, a, out=out)
        xp.multiply(out, a, out=out)
    elif name == "hardSigmoid":
        # 0 < a < 1 exactly where a (1 - a) > 0; sign() of that product is then 1, else 0.
        xp.subtract(1, a, out=out)
        xp.multiply(out, a, out=out)
        xp.sign(out, out=out)
    elif name == "relu":
        xp.greater(a, 0, out=out)
    else:
        out.fill(1)


def fill_stacked(XS, x, go_backwards: bool) -> None:
    """``XS[t] = [x_t^T; . ; 1]`` (``[K, B]``) for the ``T`` steps in processing order; the
    middle rows are written step by step."""
    T, D = x.shape[1], x.shape[2]
    view = x.transpose(1, 2, 0)
    XS[:T, :D] = view[::-1] if go_backwards else view
    XS[:, -1] = 1


def init_state(XH, h0, rm, D: int, U: int, xp) -> None:
    """The first step's state rows: ``h0^T`` (times the recurrent-dropout mask)."""
    rows = XH[0, D : D + U]
    xp.copyto(rows, h0.T)
    if rm is not None:
        xp.multiply(rows, rm, out=rows)


def states_view(XH, Hs, D: int, U: int):
    """The states ``H[t]`` (``[U, B]``): the state rows of ``XH[t + 1]``, or their own
    buffer ``Hs`` when a recurrent-dropout mask makes ``XH`` hold ``h * mask`` instead."""
    return XH[1:, D : D + U] if Hs is None else Hs


def store_state(XH, Hs, t: int, rm, D: int, U: int, xp) -> None:
    """With a recurrent-dropout mask: the next step's input rows ``H[t] * mask``."""
    if Hs is not None:
        xp.multiply(Hs[t], rm, out=XH[t + 1, D : D + U])


def transposed(a, xp):
    """A ``[B, n]`` array as a contiguous ``[n, B]``."""
    return None if a is None else xp.ascontiguousarray(a.T)


def time_mask(mask, go_backwards: bool, xp):
    """A ``[B, T]`` mask as ``(m, 1 - m)``, each ``[T, 1, B]`` in processing order."""
    if mask is None:
        return None, None
    m = mask.T[::-1] if go_backwards else mask.T
    m = xp.ascontiguousarray(m)[:, None, :]
    return m, 1 - m


def select(m, nm, new, old, out, tmp, xp) -> None:
    """``out = new * m + old * (1 - m)`` (TF.js's masked step)."""
    xp.multiply(new, m, out=out)
    xp.multiply(old, nm, out=tmp)
    xp.add(out, tmp, out=out)


def sequence_output(H, return_sequences: bool, xp):
    T, U, B = H.shape
    if not return_sequences:
        return xp.empty((B, 0, U), dtype=xp.float32)
    seq = take(xp, B, T, U)
    xp.copyto(seq, H.transpose(2, 0, 1))
    return seq


def last_state(H, initial_t):
    return (H[-1] if H.shape[0] else initial_t).T.copy()


def sequence_grad_t(dseq, T: int, xp):
    """``dL/dsequence [B, T, U]`` as ``[T, U, B]``, or None when it is empty or all zero."""
    if dseq.shape[1] != T or T == 0 or not bool(dseq.any()):
        return None
    out = scratch(xp, T, dseq.shape[2], dseq.shape[0])
    xp.copyto(out, dseq.transpose(1, 2, 0))
    return out


def input_grad(dXS_list, D: int, go_backwards: bool, xp):
    """``dx [B, T, D]`` from the ``[T, K, B]`` gradients of the stacked inputs (summed)."""
    first = dXS_list[0]
    T, B = first.shape[0], first.shape[2]
    view = first[:, :D]
    for more in dXS_list[1:]:
        view = view + more[:, :D]
    view = view[::-1] if go_backwards else view
    dx = take(xp, B, T, D)
    xp.copyto(dx, view.transpose(2, 0, 1))
    return dx


def mask_grad(dm_t, go_backwards: bool, xp):
    if dm_t is None:
        return None
    out = dm_t[::-1] if go_backwards else dm_t
    return xp.ascontiguousarray(out.T)


def grad_start(dh_last, U: int, B: int, xp):
    """A ``[U, B]`` running gradient starting at ``dh_last^T``."""
    out = scratch(xp, U, B)
    xp.copyto(out, dh_last.T)
    return out


# ----------------------------------------------------------------- weights, as stacked
# The kernels keep ``[kernel; recurrentKernel; bias]`` transposed, ``wrk_t [G, K]``, in the
# workspace: the forward pass stacks it once, its gradient reads it back. ``blocks`` are the
# (kernel rows, TF.js columns) of each block of gates (the LSTM reorders its gates).
def in_order(G: int):
    return ((slice(0, G), slice(0, G)),)


def _hard_sigmoid_rows(groups: tuple[str, ...], G: int) -> list[slice]:
    n = G // len(groups)
    return [slice(j * n, (j + 1) * n) for j, g in enumerate(groups) if g == "hardSigmoid"]


def write_weights_t(wrk_t, w, rk, bias, groups, blocks, xp) -> None:
    """Writes the stacked weights into ``wrk_t`` with each hard sigmoid's ``0.2 z + 0.5``
    folded in: its rows times 0.2, then 0.5 added to their bias column (the same float32
    products and sums as scaling every column, by 1 where no hard sigmoid is)."""
    D, U = w.shape[0], rk.shape[0]
    for rows, cols in blocks:
        wrk_t[rows, :D] = w[:, cols].T
        wrk_t[rows, D : D + U] = rk[:, cols].T
        wrk_t[rows, D + U] = 0 if bias is None else bias[cols]
    f32 = xp.float32
    for rows in _hard_sigmoid_rows(groups, wrk_t.shape[0]):
        xp.multiply(wrk_t[rows], f32(0.2), out=wrk_t[rows])
        xp.add(wrk_t[rows, D + U], f32(0.5), out=wrk_t[rows, D + U])


def weight_grad_gk(pairs, xp):
    """``d wrk_t [G, K]``: for each (gates' gradients ``[T, g, B]``, their stacked inputs
    ``[>=T, K, B]``) pair, one matmul over all steps giving the next ``g`` rows. Both are
    copied gate- and input-major first: per-step work on strided views, or a matmul that
    reads them in place, costs more than the copies."""
    G = sum(dZ.shape[1] for dZ, _ in pairs)
    K = pairs[0][1].shape[1]
    out = xp.empty((G, K), dtype=xp.float32)
    start = 0
    for dZ, XS in pairs:
        T, g, B = dZ.shape
        dz, xs = scratch(xp, g, T, B), scratch(xp, K, T, B)
        xp.copyto(dz, dZ.transpose(1, 0, 2))
        xp.copyto(xs, XS[:T].transpose(1, 0, 2))
        xp.dot(dz.reshape(g, T * B), xs.reshape(K, T * B).T, out=out[start : start + g])
        start += g
    return out


def backward_weights(wrk_t, parts, xp) -> None:
    """Copies each ``(rows, dst)`` of ``parts``: ``wrk_t[rows]^T`` into the contiguous
    ``dst`` the gradient's per-step matmuls read (faster than the transposed view)."""
    for rows, dst in parts:
        xp.copyto(dst, wrk_t[rows].T)


def split_weight_grads(dwrk_t, groups, blocks, D: int, has_bias: bool, xp):
    """``d[kernel]``, ``d[recurrentKernel]``, ``d[bias]`` in TF.js's gate order, the hard
    sigmoids' fold scaled back."""
    G, K = dwrk_t.shape
    f32 = xp.float32
    for rows in _hard_sigmoid_rows(groups, G):
        xp.multiply(dwrk_t[rows], f32(0.2), out=dwrk_t[rows])
    U = K - D - 1
    dw, drk = xp.empty((D, G), dtype=f32), xp.empty((U, G), dtype=f32)
    db = xp.empty(G, dtype=f32) if has_bias else None
    for rows, cols in blocks:
        dw[:, cols] = dwrk_t[rows, :D].T
        drk[:, cols] = dwrk_t[rows, D : D + U].T
        if db is not None:
            db[cols] = dwrk_t[rows, D + U]
    return dw, drk, db


# ------------------------------------------------------------ the time loops' bookkeeping
# ``weights`` below: the (activation of each group of rows, blocks) of a cell's stacked
# weights (``write_weights_t``).
def start_forward(call: SequenceCall, xp, wrk_t, XH, Hs, weights, backward_parts):
    """Stacks the folded weights into ``wrk_t`` and copies the ``backward_parts`` the
    gradient's matmuls read; fills the stacked inputs ``XH`` and the first state rows.
    Returns the states ``H``, the recurrent-dropout mask ``[U, B]``, the mask ``(m, 1 - m)``
    and the initial state ``h0^T``."""
    D, U = call.D, call.U
    write_weights_t(wrk_t, call.w, call.rk, call.bias, *weights, xp)
    backward_weights(wrk_t, backward_parts, xp)
    H = states_view(XH, Hs, D, U)
    rm = transposed(call.rm, xp)
    fill_stacked(XH, call.x, call.go_backwards)
    init_state(XH, call.h0, rm, D, U, xp)
    M, NM = time_mask(call.mask, call.go_backwards, xp)
    return H, rm, M, NM, transposed(call.h0, xp)


def finish_forward(call: SequenceCall, xp, ws, *states):
    """The forward kernel's outputs: the sequence (of the first ``(all steps, last)`` pair of
    ``states``), each pair's last state ``[B, U]``, the workspace."""
    seq = sequence_output(states[0][0], call.return_sequences, xp)
    return [seq, *(last_state(S, s) for S, s in states), ws]


def mask_buffers(M, n: int, U: int, B: int, xp) -> list:
    """``n`` ``[U, B]`` buffers for a masked loop (Nones without a mask)."""
    return [scratch(xp, U, B) if M is not None else None for _ in range(n)]


def start_backward(call: SequenceCall, xp, XH, Hs):
    """The backward loop's shared inputs: the states ``H`` (as the forward pass kept them in
    its stacked inputs ``XH`` or ``Hs``), the recurrent-dropout mask ``[U, B]``, ``h0^T``,
    the mask ``(m, 1 - m)``, the sequence's gradient ``[T, U, B]`` (or None), the running
    ``dL/dh`` (from ``dh_last``), the mask's gradient ``[T, B]`` and the dropout mask's
    (zeros), each None where the call has no such input."""
    T, U, B = call.T, call.U, call.B
    H = states_view(XH, Hs, call.D, U)
    rm = transposed(call.rm, xp)
    h0 = transposed(call.h0, xp)
    M, NM = time_mask(call.mask, call.go_backwards, xp)
    dS = sequence_grad_t(call.dseq, T, xp)
    dh = grad_start(call.dh_last, U, B, xp)
    dm_t = take(xp, T, B) if M is not None else None
    drm = xp.zeros((U, B), dtype=xp.float32) if rm is not None else None
    return H, rm, h0, M, NM, dS, dh, dm_t, drm


def step_in(dh, dS, H, h0, t: int, xp):
    """Adds the sequence's gradient at step ``t`` to ``dh``; returns the state before it."""
    if dS is not None:
        xp.add(dh, dS[t], out=dh)
    return H[t - 1] if t else h0


def split_masked(d, m, nm, dn, carry, xp) -> None:
    """A masked step's gradient: ``dn = d * m`` reaches the step, ``carry = d * (1 - m)``
    passes to the state before it."""
    xp.multiply(d, m, out=dn)
    xp.multiply(d, nm, out=carry)


def mask_grad_at(h_new, hprev, dh, tb, dm, xp) -> None:
    """A masked step's ``dL/dm = sum over the units of (h_new - h_prev) * dh`` into ``dm``
    (``[B]``); ``tb`` (``[U, B]``, may be ``h_new`` itself) holds the product."""
    xp.subtract(h_new, hprev, out=tb)
    xp.multiply(tb, dh, out=tb)
    tb.sum(axis=0, dtype=xp.float32, out=dm)


def step_out(dh, hprev, rm, drm, carry, tb, xp) -> None:
    """``dh``, the gradient of the step's input rows ``h * mask``, as the state's: through
    the recurrent-dropout mask (whose gradient ``drm`` gains ``dh * h``), plus what a
    masked step carried past itself (``carry``, None without a mask)."""
    if rm is not None:
        xp.multiply(dh, hprev, out=tb)
        xp.add(drm, tb, out=drm)
        xp.multiply(dh, rm, out=dh)
    if carry is not None:
        xp.add(dh, carry, out=dh)


def finish_backward(call: SequenceCall, xp, weights, pairs, dXS_list, states, drm, dm_t):
    """The gradient kernel's outputs: ``dx``, ``d[kernel]``, ``d[recurrentKernel]``, the
    initial ``states``' gradients (``[U, B]`` each), ``d[bias]``, the dropout mask's and
    the mask's gradients (those the call has). ``pairs``: :func:`weight_grad_gk`'s."""
    dwrk_t = weight_grad_gk(pairs, xp)
    dw, drk, db = split_weight_grads(dwrk_t, *weights, call.D, call.has_bias, xp)
    return outputs(
        input_grad(dXS_list, call.D, call.go_backwards, xp),
        dw,
        drk,
        *[s.T.copy() for s in states],
        db,
        None if drm is None else drm.T.copy(),
        mask_grad(dm_t, call.go_backwards, xp),
    )
