"""LSTM and GRU sequence kernels for the GPU: TidyLSTMSequence, TidyGRUSequence and their
gradients, with the CPU kernels' inputs, attrs, outputs and gradients
(``xp_kernels/recurrent.py``, whose argument handling they share).

On a GPU a sequence costs kernel launches (15-30 µs each), not arithmetic, so the CPU
kernels' many small in-place ufunc calls per time step are wrong for it. Here:

- the input projection of every time step is one matmul before the loop (``x @ kernel +
  bias``, time-major, in processing order);
- an LSTM step is one matmul (``h @ recurrentKernel``) and one fused kernel (``xp.fuse``) for
  all the gate activations, the cell and hidden update, the mask's select and the
  recurrent-dropout product; a GRU step is two of each (its reset gate multiplies the state
  before the candidate's matmul);
- the backward pass is the same per step: one fused kernel for the gate derivatives (and the
  running state gradients), one matmul back through the recurrent kernel (two of each for a
  GRU); the weight, bias and input gradients are one matmul over all steps after the loop,
  and so are the recurrent-dropout and mask gradients;
- the gates' gradients come out of the fused kernel as one ``[B, gates, U]`` array (its
  other inputs broadcast over the gate axis and a gate index picks each gate's formula), so
  the matmul back reads them without a concatenation;
- the forward pass keeps the input projection, the recurrent matmuls' results and the
  states in its ``workspace`` (one concatenation after the loop); the backward pass
  recomputes the activations from them inside its fused kernels.

Without ``xp.fuse`` (NumPy: the CPU tests run these kernels with ``xp=numpy``) the fused
functions run as plain ufunc calls, with the same results.

A hard sigmoid is ``clip(0.2 z + 0.5, 0, 1)`` here (the CPU kernels fold ``0.2`` and ``0.5``
into their stacked weights: the same values up to float32 rounding). Its gradient passes
where the CPU kernels' does: the LSTM's gates bounds included (TF.js's ClipByValue), the GRU's
strictly inside.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from ...kernel_names import recurrent as kr
from ..xp_kernels import recurrent as cpu

__all__ = ["KERNELS", "fused_step"]

_CACHE: dict[tuple, Callable[..., Any]] = {}


def fused_step(xp: Any, build: Callable[..., Callable[..., Any]], *flags: Any) -> Any:
    """``build(xp, *flags)``'s function as one ``xp.fuse`` kernel (made once per module and
    flags), or as plain ufunc calls where ``xp`` has no ``fuse``."""
    key = (xp, build, flags)
    fn = _CACHE.get(key)
    if fn is None:
        py = build(xp, *flags)
        fuse = getattr(xp, "fuse", None)
        fn = _CACHE[key] = fuse(py) if fuse is not None else py
    return fn


# ------------------------------------------------------------------- elementwise math
# The fused functions' constants are float32 scalars: no Python float in a fused kernel can
# promote its float32 arithmetic to float64, whatever the array module's scalar rules.
_ZERO, _FIFTH, _HALF, _ONE = (numpy.float32(v) for v in (0, 0.2, 0.5, 1))


def _activate(name: str, v: Any, xp: Any) -> Any:
    if name == "tanh":
        return xp.tanh(v)
    if name == "sigmoid":
        return _ONE / (_ONE + xp.exp(-v))
    if name == "hardSigmoid":
        return xp.minimum(xp.maximum(_FIFTH * v + _HALF, _ZERO), _ONE)
    if name == "relu":
        return xp.maximum(v, _ZERO)
    return v + _ZERO  # linear (a new value, never the input itself)


def _times_derivative(name: str, grad: Any, a: Any) -> Any:
    """``grad * activation'(z)`` from the activation's output ``a`` (the CPU kernels'
    ``_dact``: a hard sigmoid passes strictly inside its bounds)."""
    if name == "tanh":
        return grad * (_ONE - a * a)
    if name == "sigmoid":
        return grad * ((_ONE - a) * a)
    if name == "hardSigmoid":
        return grad * ((a > _ZERO) & (a < _ONE)) * _FIFTH
    if name == "relu":
        return grad * (a > _ZERO)
    return grad + _ZERO


def _times_gate_derivative(name: str, grad: Any, a: Any, z: Any) -> Any:
    """The LSTM gates' ``grad * activation'(z)``: a hard sigmoid passes where it did not
    clip, bounds included, as the CPU kernel's clip mask."""
    if name == "hardSigmoid":
        v = _FIFTH * z + _HALF
        return grad * ((v >= _ZERO) & (v <= _ONE)) * _FIFTH
    return _times_derivative(name, grad, a)


# --------------------------------------------------------------------- shared helpers
def _split(a: Any, n: int, units: int) -> list[Any]:
    """The ``n`` gate column blocks of ``a [B, n * units]`` as ``[B, units]`` views."""
    return [a[:, k * units : (k + 1) * units] for k in range(n)]


def _time_major(x: Any, go_backwards: bool, xp: Any) -> Any:
    """``x [B, T, D]`` as a contiguous ``[T, B, D]`` in processing order."""
    xt = x.transpose(1, 0, 2)
    return xp.ascontiguousarray(xt[::-1] if go_backwards else xt)


def _projection(x: Any, w: Any, bias: Any, go_backwards: bool, xp: Any) -> Any:
    """Every step's input projection ``x_t @ kernel + bias`` as ``[T, B, G]``."""
    B, T, D = x.shape
    xz = xp.dot(_time_major(x, go_backwards, xp).reshape(T * B, D), w)
    if bias is not None:
        xz += bias
    return xz.reshape(T, B, w.shape[1])


def _step_masks(mask: Any, go_backwards: bool, xp: Any) -> tuple[Any, Any]:
    """A ``[B, T]`` mask as ``(m, 1 - m)``, each ``[T, B, 1]`` in processing order."""
    if mask is None:
        return None, None
    m = mask.T[::-1] if go_backwards else mask.T
    m = xp.ascontiguousarray(m)[:, :, None]
    return m, 1 - m


def _stack(arrays: list[Any], shape: tuple[int, ...], xp: Any) -> Any:
    return xp.stack(arrays) if arrays else xp.empty((0, *shape), dtype=xp.float32)


def _pack(parts: list[list[Any]], cpu_layout: list[tuple[int, ...]], xp: Any) -> Any:
    """The workspace: the arrays of ``parts`` (lists of arrays) flattened one after another
    (one concatenation) into a float32 array as long as the CPU kernel's workspace
    (``cpu_layout``) when they fit in it, so that ``tf.memory()`` counts the same bytes on
    both backends. The padding is zeros (debug mode's NaN check reads the whole array)."""
    flat = [a.reshape(-1) for part in parts for a in part]
    n = sum(a.size for a in flat)
    ws = xp.empty(max(n, sum(cpu._count(s) for s in cpu_layout)), dtype=xp.float32)
    if flat:
        xp.concatenate(flat, out=ws[:n])
    ws[n:].fill(0)
    return ws


def _sequence(H: list[Any], B: int, U: int, return_sequences: bool, xp: Any) -> Any:
    if not return_sequences:
        return xp.empty((B, 0, U), dtype=xp.float32)
    return xp.ascontiguousarray(_stack(H, (B, U), xp).transpose(1, 0, 2))


def _sequence_grad(dseq: Any, T: int, xp: Any) -> Any:
    """``dL/dsequence`` as ``[T, B, U]`` (processing order = the sequence's order), or None
    when the layer returned no sequence."""
    if T == 0 or dseq.shape[1] != T:
        return None
    return xp.ascontiguousarray(dseq.transpose(1, 0, 2))


def _previous(states: Any, first: Any, xp: Any) -> Any:
    """``[first, states[0], ..., states[T - 2]]`` (``states [T, B, U]``) as ``[T, B, U]``."""
    return xp.concatenate([first[None], states[:-1]]) if len(states) else states


def _input_grad(dx_t: Any, go_backwards: bool, xp: Any) -> Any:
    """``[T, B, D]`` in processing order as ``dx [B, T, D]``."""
    out = dx_t[::-1] if go_backwards else dx_t
    return xp.ascontiguousarray(out.transpose(1, 0, 2))


def _mask_grad(terms: list[Any], has_mask: bool, go_backwards: bool, B: int, xp: Any) -> Any:
    """``dL/dmask [B, T]`` from each step's ``[B, U]`` terms (in reverse processing
    order), summed over the units."""
    if not has_mask:
        return None
    if not terms:
        return xp.zeros((B, 0), dtype=xp.float32)
    dm = xp.stack(terms[::-1]).sum(axis=2, dtype=xp.float32)  # [T, B]
    return xp.ascontiguousarray((dm[::-1] if go_backwards else dm).T)


def _gate_index(n: int, xp: Any) -> Any:
    return xp.arange(n, dtype=xp.int32).reshape(1, n, 1)


def _first_slice(a: Any) -> Any:
    """A fused kernel's ``[B, 1 or gates, U]`` output as ``[B, 1, U]``."""
    return a[:, :1]


def _incoming(
    args: Any, first: bool, dropped: bool, masked: bool, has_ds: bool, partial: bool = False
) -> Any:
    """A backward step's gradient of its output state, read from the iterator ``args``
    (:func:`_incoming_args`' order): ``dh_last`` at the first step, else the gradient of the
    step after it through the recurrent matmul ``raw`` (plus, for a GRU, its ``partial``
    gradient outside the matmul) times the dropout mask, plus what a masked step after it
    carried (``dh_next * (1 - m_next)``); plus the sequence's gradient."""
    dh = next(args)
    if first and not has_ds:
        return dh * _ONE  # a new value: a fused kernel may return it, never its own input
    if not first:
        if partial:
            dh = dh + next(args)
        if dropped:
            dh = dh * next(args)
        if masked:
            dh = dh + next(args) * next(args)
    if has_ds:
        dh = dh + next(args)
    return dh


def _incoming_args(first, dh_last, raw, rm, dh_next, nm_next, ds, partial=None) -> list:
    """The inputs :func:`_incoming` reads, in its order."""
    if first:
        args = [dh_last]
    else:
        args = [raw] + ([] if partial is None else [partial]) + ([] if rm is None else [rm])
        if nm_next is not None:
            args += [dh_next, nm_next]
    return args if ds is None else [*args, ds]


# =============================================================================== LSTM
def _lstm_step(xp: Any, act: str, ra: str, masked: bool, dropped: bool) -> Any:
    def lstm_step(*args):
        xi, xf, xc, xo, ri, rf, rc, ro, c = args[:9]
        zi, zf, zg, zo = xi + ri, xf + rf, xc + rc, xo + ro
        i, f = _activate(ra, zi, xp), _activate(ra, zf, xp)
        g, o = _activate(act, zg, xp), _activate(ra, zo, xp)
        cn = f * c + i * g
        hn = o * _activate(act, cn, xp)
        if masked:
            h, m, nm = args[9:12]
            cn = cn * m + c * nm
            hn = hn * m + h * nm
        if dropped:
            return zi, zf, zg, zo, cn, hn, hn * args[-1]
        return zi, zf, zg, zo, cn, hn

    return lstm_step


def _lstm_layout(T: int, B: int, U: int, dropped: bool) -> list[tuple[int, ...]]:
    """The workspace: the four gates' pre-activations, the cells and the states, [the states
    times the dropout mask], each ``[T, B, U]``."""
    return [(T, B, U)] * (6 + dropped)


def lstm_sequence(
    *arrays,
    xp,
    activation="tanh",
    recurrent_activation="hardSigmoid",
    go_backwards=False,
    return_sequences=True,
    has_bias=False,
    has_rec_mask=False,
    has_mask=False,
):
    x, w, rk, h0, c0 = arrays[:5]
    bias, rm, mask = cpu._optional(arrays[5:], has_bias, has_rec_mask, has_mask)
    B, T, D = x.shape
    U = rk.shape[0]
    XZ = _projection(x, w, bias, go_backwards, xp)
    M, NM = _step_masks(mask, go_backwards, xp)
    step = fused_step(
        xp, _lstm_step, activation, recurrent_activation, M is not None, rm is not None
    )
    h, c = h0, c0
    hin = h0 if rm is None else h0 * rm
    Z: list[list[Any]] = [[], [], [], []]
    C, H, HIN = [], [], []
    for t in range(T):
        hr = xp.dot(hin, rk)
        args = [*_split(XZ[t], 4, U), *_split(hr, 4, U), c]
        if M is not None:
            args += [h, M[t], NM[t]]
        if rm is not None:
            args.append(rm)
        out = step(*args)
        for zs, z in zip(Z, out[:4], strict=True):
            zs.append(z)
        c, h = out[4], out[5]
        hin = out[6] if rm is not None else h
        C.append(c)
        H.append(h)
        if rm is not None:
            HIN.append(hin)
    cpu_layout = cpu._lstm_layout(T, B, D, U, rm is not None, recurrent_activation == "hardSigmoid")
    ws = _pack([*Z, C, H, HIN], cpu_layout, xp)
    last_h, last_c = (h, c) if T else (h0.copy(), c0.copy())
    return [_sequence(H, B, U, return_sequences, xp), last_h, last_c, ws]


def _lstm_grad_step(
    xp: Any, act: str, ra: str, masked: bool, dropped: bool, has_ds: bool, first: bool
) -> Any:
    def lstm_step_grad(*args):
        zi, zf, zg, zo, cprev, k, dc = args[:7]
        rest = iter(args[7:])
        if masked:
            m, nm, hprev = next(rest), next(rest), next(rest)
        dh = _incoming(rest, first, dropped, masked, has_ds)
        i, f = _activate(ra, zi, xp), _activate(ra, zf, xp)
        g, o = _activate(act, zg, xp), _activate(ra, zo, xp)
        cn = f * cprev + i * g
        tc = _activate(act, cn, xp)
        dhn, dcn = (dh * m, dc * m) if masked else (dh, dc)
        dct = _times_derivative(act, dhn * o, tc) + dcn
        dz = xp.where(
            k == 0,
            _times_gate_derivative(ra, dct * g, i, zi),
            xp.where(
                k == 1,
                _times_gate_derivative(ra, dct * cprev, f, zf),
                xp.where(
                    k == 2,
                    _times_derivative(act, dct * i, g),
                    _times_gate_derivative(ra, dhn * tc, o, zo),
                ),
            ),
        )
        dc_prev = dct * f
        if not masked:
            return dz, dc_prev
        # dL/dm: dh . (h_new - h_prev) + dc . (c_new - c_prev), summed after the loop.
        term = dh * (o * tc - hprev) + dc * (cn - cprev)
        return dz, dc_prev + dc * nm, dh, term

    return lstm_step_grad


def lstm_sequence_grad(
    *arrays,
    xp,
    activation="tanh",
    recurrent_activation="hardSigmoid",
    go_backwards=False,
    return_sequences=True,
    has_bias=False,
    has_rec_mask=False,
    has_mask=False,
):
    dseq, dh_last, dc_last = arrays[:3]
    x, w, rk, h0, c0 = arrays[3:8]
    bias, rm, mask = cpu._optional(arrays[8:-1], has_bias, has_rec_mask, has_mask)
    B, T, D = x.shape
    U = rk.shape[0]
    G = 4 * U
    dropped = rm is not None
    Zi, Zf, Zg, Zo, C, H, *rest = cpu._carve(arrays[-1], *_lstm_layout(T, B, U, dropped))
    hin0 = h0 if rm is None else h0 * rm
    M, NM = _step_masks(mask, go_backwards, xp)
    masked = M is not None
    dS = _sequence_grad(dseq, T, xp)
    rkt = xp.ascontiguousarray(rk.T)
    k = _gate_index(4, xp)
    rm3 = None if rm is None else rm[:, None, :]
    DZ, RAW, TERMS = [], [], []
    dc, raw, dh_in = dc_last[:, None, :], None, None
    for t in range(T - 1, -1, -1):
        first = t == T - 1
        cprev = C[t - 1] if t else c0
        args = [Zi[t][:, None], Zf[t][:, None], Zg[t][:, None], Zo[t][:, None]]
        args += [cprev[:, None, :], k, dc]
        if masked:
            hprev = H[t - 1] if t else h0
            args += [M[t][:, None], NM[t][:, None], hprev[:, None, :]]
        nm_next = None if first or not masked else NM[t + 1][:, None]
        args += _incoming_args(
            first,
            dh_last[:, None, :],
            raw,
            rm3,
            dh_in,
            nm_next,
            None if dS is None else dS[t][:, None, :],
        )
        step = fused_step(
            xp,
            _lstm_grad_step,
            activation,
            recurrent_activation,
            masked,
            dropped,
            dS is not None,
            first,
        )
        out = step(*args)
        dz = out[0].reshape(B, G)
        dc = _first_slice(out[1])
        if masked:
            dh_in = _first_slice(out[2])
            TERMS.append(out[3][:, 0])
        raw = xp.dot(dz, rkt)[:, None, :]
        DZ.append(dz)
        RAW.append(raw)
    # After the loop: the first step's state gradients, then everything summed over steps.
    if T:
        dh0 = raw if rm is None else raw * rm3
        if masked:
            dh0 = dh0 + dh_in * NM[0][:, None]
        dh0 = dh0[:, 0]
    else:
        dh0 = dh_last.copy()
    dZ = _stack(DZ[::-1], (B, G), xp).reshape(T * B, G)
    xt = _time_major(x, go_backwards, xp).reshape(T * B, D)
    hins = _previous(rest[0] if dropped else H, hin0, xp).reshape(T * B, U)
    dw, drk = xp.dot(xt.T, dZ), xp.dot(hins.T, dZ)
    db = dZ.sum(axis=0, dtype=xp.float32) if has_bias else None
    drm = None
    if dropped:
        raws = _stack([r[:, 0] for r in RAW[::-1]], (B, U), xp)
        drm = (raws * _previous(H, h0, xp)).sum(axis=0, dtype=xp.float32)
    return cpu._outputs(
        _input_grad(xp.dot(dZ, w.T).reshape(T, B, D), go_backwards, xp),
        dw,
        drk,
        dh0,
        dc[:, 0].copy(),
        db,
        drm,
        _mask_grad(TERMS, masked, go_backwards, B, xp),
    )


# ================================================================================ GRU
def _gru_reset(xp: Any, ra: str) -> Any:
    def gru_reset(xz, rz, xr, rr, hin):
        zr = xr + rr
        return xz + rz, zr, _activate(ra, zr, xp) * hin

    return gru_reset


def _gru_step(xp: Any, act: str, ra: str, masked: bool, dropped: bool) -> Any:
    def gru_step(*args):
        zz, xh, hhr, hin = args[:4]
        z = _activate(ra, zz, xp)
        zh = xh + hhr
        hn = z * hin + (_ONE - z) * _activate(act, zh, xp)
        if masked:
            h, m, nm = args[4:7]
            hn = hn * m + h * nm
        if dropped:
            return zh, hn, hn * args[-1]
        return zh, hn

    return gru_step


def _gru_layout(T: int, B: int, U: int, dropped: bool) -> list[tuple[int, ...]]:
    """The workspace: the update gate's, the reset gate's and the candidate's
    pre-activations, ``r * h``, the states, [the states times the dropout mask], each
    ``[T, B, U]``."""
    return [(T, B, U)] * (5 + dropped)


def _gru_weights(rk: Any, U: int, xp: Any) -> tuple[Any, Any]:
    """The recurrent kernel's gate and candidate columns, each contiguous."""
    return xp.ascontiguousarray(rk[:, : 2 * U]), xp.ascontiguousarray(rk[:, 2 * U :])


def gru_sequence(
    *arrays,
    xp,
    activation="tanh",
    recurrent_activation="hardSigmoid",
    go_backwards=False,
    return_sequences=True,
    has_bias=False,
    has_rec_mask=False,
    has_mask=False,
):
    x, w, rk, h0 = arrays[:4]
    bias, rm, mask = cpu._optional(arrays[4:], has_bias, has_rec_mask, has_mask)
    B, T, D = x.shape
    U = rk.shape[0]
    rk_zr, rk_h = _gru_weights(rk, U, xp)
    XZ = _projection(x, w, bias, go_backwards, xp)
    M, NM = _step_masks(mask, go_backwards, xp)
    reset = fused_step(xp, _gru_reset, recurrent_activation)
    step = fused_step(
        xp, _gru_step, activation, recurrent_activation, M is not None, rm is not None
    )
    h = h0
    hin = h0 if rm is None else h0 * rm
    ZZ, ZR, ZH, RH, H, HIN = [], [], [], [], [], []
    for t in range(T):
        xz, xr, xh = _split(XZ[t], 3, U)
        hr = xp.dot(hin, rk_zr)
        zz, zr, rh = reset(xz, hr[:, :U], xr, hr[:, U:], hin)
        args = [zz, xh, xp.dot(rh, rk_h), hin]
        if M is not None:
            args += [h, M[t], NM[t]]
        if rm is not None:
            args.append(rm)
        out = step(*args)
        h = out[1]
        hin = out[2] if rm is not None else h
        for part, value in ((ZZ, zz), (ZR, zr), (ZH, out[0]), (RH, rh), (H, h)):
            part.append(value)
        if rm is not None:
            HIN.append(hin)
    ws = _pack([ZZ, ZR, ZH, RH, H, HIN], cpu._gru_layout(T, B, D, U, rm is not None), xp)
    return [_sequence(H, B, U, return_sequences, xp), h if T else h0.copy(), ws]


def _gru_grad_step(
    xp: Any, act: str, ra: str, masked: bool, dropped: bool, has_ds: bool, first: bool
) -> Any:
    def gru_step_grad(*args):
        zz, zh, hin = args[:3]
        rest = iter(args[3:])
        if masked:
            m, hprev = next(rest), next(rest)
        dh = _incoming(rest, first, dropped, masked, has_ds, partial=True)
        z = _activate(ra, zz, xp)
        hh = _activate(act, zh, xp)
        dhn = dh * m if masked else dh
        dzh = _times_derivative(act, (_ONE - z) * dhn, hh)
        dz = _times_derivative(ra, (hin - hh) * dhn, z)
        if not masked:
            return dzh, dz, dhn * z
        # dL/dm: dh . (h_new - h_prev), summed after the loop.
        term = dh * (z * hin + (_ONE - z) * hh - hprev)
        return dzh, dz, dhn * z, dh, term

    return gru_step_grad


def _gru_reset_grad(xp: Any, ra: str) -> Any:
    def gru_reset_grad(zr, hin, drh, partial, dz, k):
        r = _activate(ra, zr, xp)
        dzr = xp.where(k == 0, dz, _times_derivative(ra, drh * hin, r))
        return dzr, partial + drh * r

    return gru_reset_grad


def gru_sequence_grad(
    *arrays,
    xp,
    activation="tanh",
    recurrent_activation="hardSigmoid",
    go_backwards=False,
    return_sequences=True,
    has_bias=False,
    has_rec_mask=False,
    has_mask=False,
):
    dseq, dh_last = arrays[:2]
    x, w, rk, h0 = arrays[2:6]
    bias, rm, mask = cpu._optional(arrays[6:-1], has_bias, has_rec_mask, has_mask)
    B, T, D = x.shape
    U = rk.shape[0]
    dropped = rm is not None
    ZZ, ZR, ZH, RH, H, *rest = cpu._carve(arrays[-1], *_gru_layout(T, B, U, dropped))
    hin0 = h0 if rm is None else h0 * rm
    HIN = rest[0] if dropped else H
    rk_zr, rk_h = _gru_weights(rk, U, xp)
    rk_zr_t, rk_h_t = xp.ascontiguousarray(rk_zr.T), xp.ascontiguousarray(rk_h.T)
    M, NM = _step_masks(mask, go_backwards, xp)
    masked = M is not None
    dS = _sequence_grad(dseq, T, xp)
    k = _gate_index(2, xp)
    reset_grad = fused_step(xp, _gru_reset_grad, recurrent_activation)
    DZR, DZH, RAW, PART, TERMS = [], [], [], [], []
    raw = partial = dh_in = None
    for t in range(T - 1, -1, -1):
        first = t == T - 1
        hin = HIN[t - 1] if t else hin0
        args = [ZZ[t], ZH[t], hin]
        if masked:
            args += [M[t], H[t - 1] if t else h0]
        nm_next = None if first or not masked else NM[t + 1]
        ds = None if dS is None else dS[t]
        args += _incoming_args(first, dh_last, raw, rm, dh_in, nm_next, ds, partial)
        step = fused_step(
            xp,
            _gru_grad_step,
            activation,
            recurrent_activation,
            masked,
            dropped,
            dS is not None,
            first,
        )
        dzh, dz, partial, *more = step(*args)
        if masked:
            dh_in = more[0]
            TERMS.append(more[1])
        drh = xp.dot(dzh, rk_h_t)
        dzr, partial = reset_grad(
            ZR[t][:, None], hin[:, None], drh[:, None], partial[:, None], dz[:, None], k
        )
        dzr = dzr.reshape(B, 2 * U)
        partial = _first_slice(partial)[:, 0]
        raw = xp.dot(dzr, rk_zr_t)
        DZR.append(dzr)
        DZH.append(dzh)
        RAW.append(raw)
        PART.append(partial)
    # After the loop: the first step's state gradient, then everything summed over steps.
    if T:
        dh0 = raw + partial
        if rm is not None:
            dh0 = dh0 * rm
        if masked:
            dh0 = dh0 + dh_in * NM[0]
    else:
        dh0 = dh_last.copy()
    dzr = _stack(DZR[::-1], (B, 2 * U), xp).reshape(T * B, 2 * U)
    dzh = _stack(DZH[::-1], (B, U), xp).reshape(T * B, U)
    dZ = xp.concatenate([dzr, dzh], axis=1)
    xt = _time_major(x, go_backwards, xp).reshape(T * B, D)
    hins = _previous(HIN, hin0, xp).reshape(T * B, U)
    drk = xp.concatenate([xp.dot(hins.T, dzr), xp.dot(RH.reshape(T * B, U).T, dzh)], axis=1)
    db = dZ.sum(axis=0, dtype=xp.float32) if has_bias else None
    drm = None
    if dropped:
        dhs = _stack(RAW[::-1], (B, U), xp) + _stack(PART[::-1], (B, U), xp)
        drm = (dhs * _previous(H, h0, xp)).sum(axis=0, dtype=xp.float32)
    return cpu._outputs(
        _input_grad(xp.dot(dZ, w.T).reshape(T, B, D), go_backwards, xp),
        xp.dot(xt.T, dZ),
        drk,
        dh0,
        db,
        drm,
        _mask_grad(TERMS, masked, go_backwards, B, xp),
    )


KERNELS = {
    kr.LSTM_SEQUENCE: lstm_sequence,
    kr.LSTM_SEQUENCE_GRAD: lstm_sequence_grad,
    kr.GRU_SEQUENCE: gru_sequence,
    kr.GRU_SEQUENCE_GRAD: gru_sequence_grad,
}
