"""LSTM and GRU sequence kernels for the GPU: TidyLSTMSequence, TidyGRUSequence and their
gradients, with the CPU kernels' inputs, attrs, outputs and gradients
(``xp_kernels/recurrent.py``; their arguments, ``SequenceCall``, and workspace carving come
from ``xp_kernels/recurrent_sequence.py``).

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
from ..xp_kernels.recurrent import gru_layout, lstm_layout
from ..xp_kernels.recurrent_sequence import SequenceCall, carve, count, outputs, sequence_kernel

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
    ws = xp.empty(max(n, sum(count(s) for s in cpu_layout)), dtype=xp.float32)
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


# ------------------------------------------------------------- the time loops' skeleton
def _start_forward(call: SequenceCall, xp: Any, build: Any) -> tuple[Any, Any, Any, Any, Any]:
    """Every step's input projection ``[T, B, G]``, the mask ``(m, 1 - m)``, the fused step
    ``build`` makes for the call, and the first step's state input ``h0`` (times the
    recurrent-dropout mask)."""
    XZ = _projection(call.x, call.w, call.bias, call.go_backwards, xp)
    M, NM = _step_masks(call.mask, call.go_backwards, xp)
    rm = call.rm
    acts = (call.activation, call.recurrent_activation)
    step = fused_step(xp, build, *acts, M is not None, rm is not None)
    return XZ, M, NM, step, call.h0 if rm is None else call.h0 * rm


def _state_args(args: list[Any], h: Any, M: Any, NM: Any, t: int, rm: Any) -> list[Any]:
    """A forward step's last inputs: the state before it and the mask (masked), the dropout
    mask (dropped)."""
    if M is not None:
        args += [h, M[t], NM[t]]
    if rm is not None:
        args.append(rm)
    return args


def _start_backward(call: SequenceCall, xp: Any) -> tuple[Any, Any, Any, Any]:
    """The first step's state input ``h0`` (times the dropout mask), the mask ``(m, 1 - m)``
    and the sequence's gradient ``[T, B, U]`` (or None)."""
    hin0 = call.h0 if call.rm is None else call.h0 * call.rm
    M, NM = _step_masks(call.mask, call.go_backwards, xp)
    return hin0, M, NM, _sequence_grad(call.dseq, call.T, xp)


def _grad_step(call: SequenceCall, xp: Any, build: Any, M: Any, dS: Any, first: bool) -> Any:
    """The fused backward step ``build`` makes for the call (and for its first step)."""
    flags = (M is not None, call.rm is not None, dS is not None, first)
    return fused_step(xp, build, call.activation, call.recurrent_activation, *flags)


def _first_state_grad(call: SequenceCall, raw: Any, dh_in: Any, NM: Any) -> Any:
    """``dL/dh0``: the first step's gradient of its state input (``raw``, ``[B, U]``) times
    the dropout mask, plus what a masked first step carried past itself (``dh_in * (1 -
    m)``); ``dh_last`` itself for an empty sequence."""
    if not call.T:
        return call.dh_last.copy()
    dh0 = raw if call.rm is None else raw * call.rm
    if NM is not None:
        dh0 = dh0 + dh_in * NM[0]
    return dh0


def _finish_backward(
    call: SequenceCall, xp: Any, dZ: Any, drk: Any, states: tuple, dhs: Any, H: Any, terms: list
) -> list[Any]:
    """The gradient kernel's outputs from the gates' gradients ``dZ [T * B, G]`` (processing
    order): ``dx``, ``d[kernel]``, ``d[recurrentKernel]`` (``drk``), the initial
    ``states``' gradients, ``d[bias]``, the dropout mask's (from ``dhs``, the steps' state
    gradients before the mask, ``[T, B, U]``, and the states ``H``) and the mask's (from the
    steps' ``terms``)."""
    B, T, D = call.B, call.T, call.D
    gb = call.go_backwards
    xt = _time_major(call.x, gb, xp).reshape(T * B, D)
    db = dZ.sum(axis=0, dtype=xp.float32) if call.has_bias else None
    drm = None
    if dhs is not None:
        drm = (dhs * _previous(H, call.h0, xp)).sum(axis=0, dtype=xp.float32)
    return outputs(
        _input_grad(xp.dot(dZ, call.w.T).reshape(T, B, D), gb, xp),
        xp.dot(xt.T, dZ),
        drk,
        *states,
        db,
        drm,
        _mask_grad(terms, call.mask is not None, gb, B, xp),
    )


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


def _lstm_gpu_layout(T: int, B: int, U: int, dropped: bool) -> list[tuple[int, ...]]:
    """The workspace: the four gates' pre-activations, the cells and the states, [the states
    times the dropout mask], each ``[T, B, U]``."""
    return [(T, B, U)] * (6 + dropped)


@sequence_kernel(states=2, grad=False)
def lstm_sequence(call: SequenceCall, xp: Any) -> list[Any]:
    B, T, D, U = call.B, call.T, call.D, call.U
    rm = call.rm
    XZ, M, NM, step, hin = _start_forward(call, xp, _lstm_step)
    h, c = call.h0, call.c0
    Z: list[list[Any]] = [[], [], [], []]
    C, H, HIN = [], [], []
    for t in range(T):
        hr = xp.dot(hin, call.rk)
        args = [*_split(XZ[t], 4, U), *_split(hr, 4, U), c]
        out = step(*_state_args(args, h, M, NM, t, rm))
        for zs, z in zip(Z, out[:4], strict=True):
            zs.append(z)
        c, h = out[4], out[5]
        hin = out[6] if rm is not None else h
        C.append(c)
        H.append(h)
        if rm is not None:
            HIN.append(hin)
    clip = call.recurrent_activation == "hardSigmoid"
    ws = _pack([*Z, C, H, HIN], lstm_layout(T, B, D, U, rm is not None, clip), xp)
    last_h, last_c = (h, c) if T else (call.h0.copy(), call.c0.copy())
    return [_sequence(H, B, U, call.return_sequences, xp), last_h, last_c, ws]


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


@sequence_kernel(states=2, grad=True)
def lstm_sequence_grad(call: SequenceCall, xp: Any) -> list[Any]:
    B, T, U = call.B, call.T, call.U
    G = 4 * U
    rm = call.rm
    dropped = rm is not None
    Zi, Zf, Zg, Zo, C, H, *rest = carve(call.ws, *_lstm_gpu_layout(T, B, U, dropped))
    hin0, M, NM, dS = _start_backward(call, xp)
    masked = M is not None
    rkt = xp.ascontiguousarray(call.rk.T)
    k = _gate_index(4, xp)
    rm3 = None if rm is None else rm[:, None, :]
    DZ, RAW, TERMS = [], [], []
    dc, raw, dh_in = call.dc_last[:, None, :], None, None
    for t in range(T - 1, -1, -1):
        first = t == T - 1
        cprev = C[t - 1] if t else call.c0
        args = [Zi[t][:, None], Zf[t][:, None], Zg[t][:, None], Zo[t][:, None]]
        args += [cprev[:, None, :], k, dc]
        if masked:
            hprev = H[t - 1] if t else call.h0
            args += [M[t][:, None], NM[t][:, None], hprev[:, None, :]]
        nm_next = None if first or not masked else NM[t + 1][:, None]
        ds = None if dS is None else dS[t][:, None, :]
        args += _incoming_args(first, call.dh_last[:, None, :], raw, rm3, dh_in, nm_next, ds)
        out = _grad_step(call, xp, _lstm_grad_step, M, dS, first)(*args)
        dz = out[0].reshape(B, G)
        dc = _first_slice(out[1])
        if masked:
            dh_in = _first_slice(out[2])
            TERMS.append(out[3][:, 0])
        raw = xp.dot(dz, rkt)[:, None, :]
        DZ.append(dz)
        RAW.append(raw[:, 0])
    # After the loop: the first step's state gradients, then everything summed over steps.
    dh_in0 = None if dh_in is None else dh_in[:, 0]
    dh0 = _first_state_grad(call, RAW[-1] if T else None, dh_in0, NM)
    dZ = _stack(DZ[::-1], (B, G), xp).reshape(T * B, G)
    hins = _previous(rest[0] if dropped else H, hin0, xp).reshape(T * B, U)
    dhs = _stack(RAW[::-1], (B, U), xp) if dropped else None
    states = (dh0, dc[:, 0].copy())
    return _finish_backward(call, xp, dZ, xp.dot(hins.T, dZ), states, dhs, H, TERMS)


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


def _gru_gpu_layout(T: int, B: int, U: int, dropped: bool) -> list[tuple[int, ...]]:
    """The workspace: the update gate's, the reset gate's and the candidate's
    pre-activations, ``r * h``, the states, [the states times the dropout mask], each
    ``[T, B, U]``."""
    return [(T, B, U)] * (5 + dropped)


def _gru_weights(rk: Any, U: int, xp: Any) -> tuple[Any, Any]:
    """The recurrent kernel's gate and candidate columns, each contiguous."""
    return xp.ascontiguousarray(rk[:, : 2 * U]), xp.ascontiguousarray(rk[:, 2 * U :])


@sequence_kernel(states=1, grad=False)
def gru_sequence(call: SequenceCall, xp: Any) -> list[Any]:
    B, T, D, U = call.B, call.T, call.D, call.U
    rm = call.rm
    rk_zr, rk_h = _gru_weights(call.rk, U, xp)
    XZ, M, NM, step, hin = _start_forward(call, xp, _gru_step)
    reset = fused_step(xp, _gru_reset, call.recurrent_activation)
    h = call.h0
    ZZ, ZR, ZH, RH, H, HIN = [], [], [], [], [], []
    for t in range(T):
        xz, xr, xh = _split(XZ[t], 3, U)
        hr = xp.dot(hin, rk_zr)
        zz, zr, rh = reset(xz, hr[:, :U], xr, hr[:, U:], hin)
        out = step(*_state_args([zz, xh, xp.dot(rh, rk_h), hin], h, M, NM, t, rm))
        h = out[1]
        hin = out[2] if rm is not None else h
        for part, value in ((ZZ, zz), (ZR, zr), (ZH, out[0]), (RH, rh), (H, h)):
            part.append(value)
        if rm is not None:
            HIN.append(hin)
    ws = _pack([ZZ, ZR, ZH, RH, H, HIN], gru_layout(T, B, D, U, rm is not None), xp)
    return [_sequence(H, B, U, call.return_sequences, xp), h if T else call.h0.copy(), ws]


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


@sequence_kernel(states=1, grad=True)
def gru_sequence_grad(call: SequenceCall, xp: Any) -> list[Any]:
    B, T, U = call.B, call.T, call.U
    rm = call.rm
    dropped = rm is not None
    ZZ, ZR, ZH, RH, H, *rest = carve(call.ws, *_gru_gpu_layout(T, B, U, dropped))
    hin0, M, NM, dS = _start_backward(call, xp)
    masked = M is not None
    HIN = rest[0] if dropped else H
    rk_zr, rk_h = _gru_weights(call.rk, U, xp)
    rk_zr_t, rk_h_t = xp.ascontiguousarray(rk_zr.T), xp.ascontiguousarray(rk_h.T)
    k = _gate_index(2, xp)
    reset_grad = fused_step(xp, _gru_reset_grad, call.recurrent_activation)
    DZR, DZH, RAW, PART, TERMS = [], [], [], [], []
    raw = partial = dh_in = None
    for t in range(T - 1, -1, -1):
        first = t == T - 1
        hin = HIN[t - 1] if t else hin0
        args = [ZZ[t], ZH[t], hin]
        if masked:
            args += [M[t], H[t - 1] if t else call.h0]
        nm_next = None if first or not masked else NM[t + 1]
        ds = None if dS is None else dS[t]
        args += _incoming_args(first, call.dh_last, raw, rm, dh_in, nm_next, ds, partial)
        dzh, dz, partial, *more = _grad_step(call, xp, _gru_grad_step, M, dS, first)(*args)
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
    dh0 = _first_state_grad(call, raw + partial if T else None, dh_in, NM)
    dzr = _stack(DZR[::-1], (B, 2 * U), xp).reshape(T * B, 2 * U)
    dzh = _stack(DZH[::-1], (B, U), xp).reshape(T * B, U)
    dZ = xp.concatenate([dzr, dzh], axis=1)
    hins = _previous(HIN, hin0, xp).reshape(T * B, U)
    drk = xp.concatenate([xp.dot(hins.T, dzr), xp.dot(RH.reshape(T * B, U).T, dzh)], axis=1)
    dhs = None
    if dropped:
        dhs = _stack(RAW[::-1], (B, U), xp) + _stack(PART[::-1], (B, U), xp)
    return _finish_backward(call, xp, dZ, drk, (dh0,), dhs, H, TERMS)


KERNELS = {
    kr.LSTM_SEQUENCE: lstm_sequence,
    kr.LSTM_SEQUENCE_GRAD: lstm_sequence_grad,
    kr.GRU_SEQUENCE: gru_sequence,
    kr.GRU_SEQUENCE_GRAD: gru_sequence_grad,
}
