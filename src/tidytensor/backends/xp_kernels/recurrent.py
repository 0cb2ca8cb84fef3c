"""Fused recurrent kernels: a whole LSTM, GRU or SimpleRNN sequence forward in one kernel, and
its backward pass (backpropagation through time) in one more.

They compute exactly what TF.js's per-step ops compute (``layers/recurrent.ts``: LSTMCell,
GRUCell with ``resetAfter`` false, SimpleRNNCell; ``K.rnn`` with its masking and
``goBackwards``; the cells' recurrent-dropout masks), with these implementation choices:

- each step's pre-activations come from one matmul of the stacked weights
  ``[kernel; recurrentKernel; bias]^T`` with the stacked inputs ``[x_t; h; 1]``;
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
- every per-step operation writes into preallocated buffers (``out=``), and buffers come from
  a small pool that hands an array out again once nothing else references it (no page
  faults on every call for large scratch arrays);
- the forward pass keeps what the backward pass needs in one ``workspace`` output, which the
  gradient (``gradients/recurrent.py``) saves.

Masks ``[B, T]`` hold 0/1 (the layer casts them as TF.js does); a masked step keeps the
previous state: ``new * m + old * (1 - m)``.
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict

from ...engine import kernel_scratch
from ...kernel_names import recurrent as kr

__all__ = ["KERNELS", "clear_buffer_pool"]


# ------------------------------------------------------------------------- buffer pool
class _Pool:
    """Float32 arrays by shape, handed out again once only the pool references them."""

    def __init__(self, per_shape: int = 4, shapes: int = 64):
        self._buckets: OrderedDict = OrderedDict()
        self._per_shape = per_shape
        self._shapes = shapes
        self._lock = threading.Lock()

    def take(self, xp, shape: tuple[int, ...]):
        key = (id(xp), shape)
        with self._lock:
            bucket = self._buckets.get(key)
            if bucket is None:
                bucket = self._buckets[key] = []
                if len(self._buckets) > self._shapes:
                    self._buckets.popitem(last=False)
            else:
                self._buckets.move_to_end(key)
                for arr in bucket:
                    if sys.getrefcount(arr) <= _FREE_REFS:
                        return arr
            arr = xp.empty(shape, dtype=xp.float32)
            if len(bucket) < self._per_shape:
                bucket.append(arr)
            return arr

    def clear(self) -> None:
        with self._lock:
            self._buckets.clear()

    def idle_bytes(self) -> int:
        """Bytes of the pooled arrays only the pool holds (counted in the engine's live
        bytes, ``engine.kernel_scratch``; the others are tensors' buffers or in use)."""
        held = 0
        with self._lock:
            for bucket in self._buckets.values():
                for arr in bucket:
                    if sys.getrefcount(arr) <= _FREE_REFS:
                        held += arr.nbytes
        return held


def _free_refs() -> int:
    """References a pooled array has when nobody else holds it (list, loop name, argument)."""
    bucket = [object()]
    for item in bucket:
        return sys.getrefcount(item)
    return 3  # pragma: no cover


_FREE_REFS = _free_refs()
_POOL = _Pool()
kernel_scratch.register_source("recurrent", _POOL.idle_bytes)


def clear_buffer_pool() -> None:
    """Drops the recurrent kernels' cached scratch arrays."""
    _POOL.clear()


def _take(xp, *shape: int):
    return _POOL.take(xp, shape)


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


def _act(name: str, src, dst, xp) -> None:
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


def _dact(name: str, a, out, xp) -> None:
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


def _optional(rest, has_bias: bool, has_rec_mask: bool, has_mask: bool):
    rest = list(rest)
    bias = rest.pop(0) if has_bias else None
    rec_mask = rest.pop(0) if has_rec_mask else None
    mask = rest.pop(0) if has_mask else None
    return bias, rec_mask, mask


def _count(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _carve(ws, *shapes: tuple[int, ...]):
    """Views of the given shapes laid one after another in the flat workspace."""
    views, start = [], 0
    for shape in shapes:
        n = _count(shape)
        views.append(ws[start : start + n].reshape(shape))
        start += n
    return views


def _workspace(xp, shapes):
    return _take(xp, sum(_count(s) for s in shapes))


def _fill_stacked(XS, x, go_backwards: bool) -> None:
    """``XS[t] = [x_t^T; . ; 1]`` (``[K, B]``) for the ``T`` steps in processing order; the
    middle rows are written step by step."""
    T, D = x.shape[1], x.shape[2]
    view = x.transpose(1, 2, 0)
    XS[:T, :D] = view[::-1] if go_backwards else view
    XS[:, -1] = 1


def _init_state(XH, h0, rm, D: int, U: int, xp) -> None:
    """The first step's state rows: ``h0^T`` (times the recurrent-dropout mask)."""
    rows = XH[0, D : D + U]
    xp.copyto(rows, h0.T)
    if rm is not None:
        xp.multiply(rows, rm, out=rows)


def _states_view(XH, Hs, D: int, U: int):
    """The states ``H[t]`` (``[U, B]``): the state rows of ``XH[t + 1]``, or their own
    buffer ``Hs`` when a recurrent-dropout mask makes ``XH`` hold ``h * mask`` instead."""
    return XH[1:, D : D + U] if Hs is None else Hs


def _store_state(XH, Hs, t: int, rm, D: int, U: int, xp) -> None:
    """With a recurrent-dropout mask: the next step's input rows ``H[t] * mask``."""
    if Hs is not None:
        xp.multiply(Hs[t], rm, out=XH[t + 1, D : D + U])


def _transposed(a, xp):
    """A ``[B, n]`` array as a contiguous ``[n, B]``."""
    return None if a is None else xp.ascontiguousarray(a.T)


def _time_mask(mask, go_backwards: bool, xp):
    """A ``[B, T]`` mask as ``(m, 1 - m)``, each ``[T, 1, B]`` in processing order."""
    if mask is None:
        return None, None
    m = mask.T[::-1] if go_backwards else mask.T
    m = xp.ascontiguousarray(m)[:, None, :]
    return m, 1 - m


def _select(m, nm, new, old, out, tmp, xp) -> None:
    """``out = new * m + old * (1 - m)`` (TF.js's masked step)."""
    xp.multiply(new, m, out=out)
    xp.multiply(old, nm, out=tmp)
    xp.add(out, tmp, out=out)


def _sequence_output(H, return_sequences: bool, xp):
    T, U, B = H.shape
    if not return_sequences:
        return xp.empty((B, 0, U), dtype=xp.float32)
    seq = _take(xp, B, T, U)
    xp.copyto(seq, H.transpose(2, 0, 1))
    return seq


def _last(H, initial_t):
    return (H[-1] if H.shape[0] else initial_t).T.copy()


def _sequence_grad_t(dseq, T: int, xp):
    """``dL/dsequence [B, T, U]`` as ``[T, U, B]``, or None when it is empty or all zero."""
    if dseq.shape[1] != T or T == 0 or not bool(dseq.any()):
        return None
    out = _take(xp, T, dseq.shape[2], dseq.shape[0])
    xp.copyto(out, dseq.transpose(1, 2, 0))
    return out


def _input_grad(dXS_list, D: int, go_backwards: bool, xp):
    """``dx [B, T, D]`` from the ``[T, K, B]`` gradients of the stacked inputs (summed)."""
    first = dXS_list[0]
    T, B = first.shape[0], first.shape[2]
    view = first[:, :D]
    for more in dXS_list[1:]:
        view = view + more[:, :D]
    view = view[::-1] if go_backwards else view
    dx = _take(xp, B, T, D)
    xp.copyto(dx, view.transpose(2, 0, 1))
    return dx


def _mask_grad(dm_t, go_backwards: bool, xp):
    if dm_t is None:
        return None
    out = dm_t[::-1] if go_backwards else dm_t
    return xp.ascontiguousarray(out.T)


def _outputs(*arrays):
    return [a for a in arrays if a is not None]


def _grad_start(dh_last, U: int, B: int, xp):
    """A ``[U, B]`` running gradient starting at ``dh_last^T``."""
    out = _take(xp, U, B)
    xp.copyto(out, dh_last.T)
    return out


# ----------------------------------------------------------------- weights, as stacked
# The kernels keep ``[kernel; recurrentKernel; bias]`` transposed, ``wrk_t [G, K]``, in the
# workspace: the forward pass stacks it once, its gradient reads it back. ``blocks`` are the
# (kernel rows, TF.js columns) of each block of gates (the LSTM reorders its gates).
def _in_order(G: int):
    return ((slice(0, G), slice(0, G)),)


def _hard_sigmoid_rows(groups: tuple[str, ...], G: int) -> list[slice]:
    n = G // len(groups)
    return [slice(j * n, (j + 1) * n) for j, g in enumerate(groups) if g == "hardSigmoid"]


def _write_weights_t(wrk_t, w, rk, bias, groups, blocks, xp) -> None:
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


def _weight_grad_gk(pairs, xp):
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
        dz, xs = _take(xp, g, T, B), _take(xp, K, T, B)
        xp.copyto(dz, dZ.transpose(1, 0, 2))
        xp.copyto(xs, XS[:T].transpose(1, 0, 2))
        xp.dot(dz.reshape(g, T * B), xs.reshape(K, T * B).T, out=out[start : start + g])
        start += g
    return out


def _backward_weights(wrk_t, parts, xp) -> None:
    """Copies each ``(rows, dst)`` of ``parts``: ``wrk_t[rows]^T`` into the contiguous
    ``dst`` the gradient's per-step matmuls read (faster than the transposed view)."""
    for rows, dst in parts:
        xp.copyto(dst, wrk_t[rows].T)


def _split_weight_grads(dwrk_t, groups, blocks, D: int, has_bias: bool, xp):
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


# =============================================================================== LSTM
def _lstm_blocks(U: int):
    """(kernel rows, TF.js columns) of each block of gates: the kernel keeps them as i, f, o, c
    (TF.js: i, f, c, o), so the three gates with the recurrent activation are contiguous."""
    i_f, c, o = slice(0, 2 * U), slice(2 * U, 3 * U), slice(3 * U, 4 * U)
    return ((i_f, i_f), (c, o), (o, c))


def _lstm_layout(T, B, D, U, has_rec_mask, clip_mask):
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


def _lstm_parts(ws, T, B, D, U, has_rec_mask, clip, xp):
    """The workspace's parts: ``wrk_t``, ``wrk``, ``XH``, ``A``, ``C``, ``TC``, the states,
    the clip mask."""
    wrk_t, wrk, XH, A, C, TC, *rest = _carve(ws, *_lstm_layout(T, B, D, U, has_rec_mask, clip))
    Hs = rest[0] if has_rec_mask else None
    CM = rest[-1].view(xp.uint8)[: T * 3 * U * B].reshape(T, 3 * U, B) if clip else None
    return wrk_t, wrk, XH, A, C, TC, Hs, CM


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
    bias, rm, mask = _optional(arrays[5:], has_bias, has_rec_mask, has_mask)
    B, T, D = x.shape
    U = rk.shape[0]
    G = 4 * U
    ra, act = recurrent_activation, activation
    clip = ra == "hardSigmoid"
    ws = _workspace(xp, _lstm_layout(T, B, D, U, rm is not None, clip))
    wrk_t, wrk, XH, A, C, TC, Hs, CM = _lstm_parts(ws, T, B, D, U, rm is not None, clip, xp)
    _write_weights_t(wrk_t, w, rk, bias, (ra, ra, ra, act), _lstm_blocks(U), xp)
    _backward_weights(wrk_t, [(slice(None), wrk)], xp)
    H = _states_view(XH, Hs, D, U)
    rm = _transposed(rm, xp)
    _fill_stacked(XH, x, go_backwards)
    _init_state(XH, h0, rm, D, U, xp)
    M, NM = _time_mask(mask, go_backwards, xp)
    h, c = _transposed(h0, xp), _transposed(c0, xp)
    # The pre-activations of every step (the clip mask compares them once, after the loop).
    Z, tb = _take(xp, T, G, B), _take(xp, U, B)
    hn = _take(xp, U, B) if M is not None else None
    cn = _take(xp, U, B) if M is not None else None
    r3 = slice(0, 3 * U)
    for t in range(T):
        a, z = A[t], Z[t]
        xp.dot(wrk_t, XH[t], out=z)
        _act(ra, z[r3], a[r3], xp)
        gi, gf, go, gg = a[:U], a[U : 2 * U], a[2 * U : 3 * U], a[3 * U :]
        _act(act, z[3 * U :], gg, xp)
        ct = C[t] if M is None else cn
        xp.multiply(gf, c, out=ct)
        xp.multiply(gi, gg, out=tb)
        xp.add(ct, tb, out=ct)
        tc = TC[t]
        _act(act, ct, tc, xp)
        ht = H[t] if M is None else hn
        xp.multiply(go, tc, out=ht)
        if M is not None:
            _select(M[t], NM[t], cn, c, C[t], tb, xp)
            _select(M[t], NM[t], hn, h, H[t], tb, xp)
        _store_state(XH, Hs, t, rm, D, U, xp)
        h, c = H[t], C[t]
    if CM is not None:
        xp.equal(A[:, r3], Z[:, r3], out=CM)
    return [_sequence_output(H, return_sequences, xp), _last(H, h), _last(C, c), ws]


def _lstm_grad_factors(A, C, TC, CM, c0, ra: str, act: str, U: int, xp):
    """The backward pass's per-step factors, worked out for all steps at once (the same
    products, in the same order): ``R = act'(tc) * o``; ``DG = act'(g)``; ``IF = [g; c_prev]``
    (what dL/dc multiplies for i and f) and ``TCO = tc`` (what dL/dh multiplies for o), each
    times the clip mask when there is one (0 or 1: the product is the one the step made);
    else ``DV``, the recurrent activation's derivative."""
    T, _, B = A.shape
    R, DG = _take(xp, T, U, B), _take(xp, T, U, B)
    _dact(act, TC, R, xp)
    xp.multiply(R, A[:, 2 * U : 3 * U], out=R)
    _dact(act, A[:, 3 * U :], DG, xp)
    IF = _take(xp, T, 2, U, B)
    if T:
        xp.copyto(IF[:, 0], A[:, 3 * U :])
        xp.copyto(IF[0, 1], c0)
        xp.copyto(IF[1:, 1], C[: T - 1])
    if CM is None:
        DV = _take(xp, *A[:, : 3 * U].shape)
        _dact(ra, A[:, : 3 * U], DV, xp)
        return R, DG, IF, TC, DV
    TCO = _take(xp, *TC.shape)
    xp.multiply(TC, CM[:, 2 * U :], out=TCO)
    IF2 = IF.reshape(T, 2 * U, B)
    xp.multiply(IF2, CM[:, : 2 * U], out=IF2)
    return R, DG, IF, TCO, None


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
    bias, rm, mask = _optional(arrays[8:-1], has_bias, has_rec_mask, has_mask)
    ws = arrays[-1]
    B, T, D = x.shape
    U = rk.shape[0]
    G, K = 4 * U, D + U + 1
    ra, act = recurrent_activation, activation
    clip = ra == "hardSigmoid"
    # The forward pass's folded weights, as it stacked them.
    _, wrk, XH, A, C, TC, Hs, CM = _lstm_parts(ws, T, B, D, U, rm is not None, clip, xp)
    H = _states_view(XH, Hs, D, U)
    rm = _transposed(rm, xp)
    h0, c0 = _transposed(h0, xp), _transposed(c0, xp)
    M, NM = _time_mask(mask, go_backwards, xp)
    dS = _sequence_grad_t(dseq, T, xp)
    dZ = _take(xp, T, G, B)
    dXH = _take(xp, T, K, B)
    dh, dc = _grad_start(dh_last, U, B, xp), _grad_start(dc_last, U, B, xp)
    dcur, tb = _take(xp, U, B), _take(xp, U, B)
    if M is not None:
        dhn, dcn, carry_h, carry_c = (_take(xp, U, B) for _ in range(4))
        dm_t = _take(xp, T, B)
    else:
        dm_t = None
    drm = xp.zeros((U, B), dtype=xp.float32) if rm is not None else None
    r3 = slice(0, 3 * U)
    R, DG, IF, TCO, DV = _lstm_grad_factors(A, C, TC, CM, c0, ra, act, U, xp)
    for t in range(T - 1, -1, -1):
        if dS is not None:
            xp.add(dh, dS[t], out=dh)
        a = A[t]
        gi, gf = a[:U], a[U : 2 * U]
        cprev = C[t - 1] if t else c0
        hprev = H[t - 1] if t else h0
        if M is not None:
            # dL/dm = dh . (h_new - h_prev) + dc . (c_new - c_prev)
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
            xp.multiply(dh, M[t], out=dhn)
            xp.multiply(dh, NM[t], out=carry_h)
            xp.multiply(dc, M[t], out=dcn)
            xp.multiply(dc, NM[t], out=carry_c)
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
            xp.multiply(dz[r3], DV[t], out=dz[r3])
        xp.multiply(dzg, DG[t], out=dzg)
        dxh = dXH[t]
        xp.dot(wrk, dz, out=dxh)
        dh = dxh[D : D + U]
        if rm is not None:
            xp.multiply(dh, hprev, out=tb)
            xp.add(drm, tb, out=drm)
            xp.multiply(dh, rm, out=dh)
        if M is not None:
            xp.add(dh, carry_h, out=dh)
            xp.add(dc, carry_c, out=dc)
    dwrk_t = _weight_grad_gk([(dZ, XH)], xp)
    dw, drk, db = _split_weight_grads(dwrk_t, (ra, ra, ra, act), _lstm_blocks(U), D, has_bias, xp)
    return _outputs(
        _input_grad([dXH], D, go_backwards, xp),
        dw,
        drk,
        dh.T.copy(),
        dc.T.copy(),
        db,
        None if drm is None else drm.T.copy(),
        _mask_grad(dm_t, go_backwards, xp),
    )


# ================================================================================ GRU
def _gru_layout(T, B, D, U, has_rec_mask):
    """The workspace: the folded weights ``[G, K]``, its gates' and candidate's columns as
    ``[K, 2U]`` and ``[K, U]``, the stacked inputs ``[x; h; 1]`` and ``[x; r * h; 1]``, the
    gates, the candidates, [the states]."""
    K = D + U + 1
    shapes = [(3 * U, K), (K, 2 * U), (K, U), (T + 1, K, B), (T, K, B), (T, 2 * U, B), (T, U, B)]
    if has_rec_mask:
        shapes.append((T, U, B))
    return shapes


def _gru_parts(ws, T, B, D, U, has_rec_mask):
    """``wrk_t``, ``wzr``, ``wh``, ``XH``, ``XR``, ``AZR``, ``HH``, the states."""
    wrk_t, wzr, wh, XH, XR, AZR, HH, *rest = _carve(ws, *_gru_layout(T, B, D, U, has_rec_mask))
    return wrk_t, wzr, wh, XH, XR, AZR, HH, rest[0] if rest else None


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
    bias, rm, mask = _optional(arrays[4:], has_bias, has_rec_mask, has_mask)
    B, T, D = x.shape
    U = rk.shape[0]
    ra, act = recurrent_activation, activation
    ws = _workspace(xp, _gru_layout(T, B, D, U, rm is not None))
    wrk_t, wzr, wh, XH, XR, AZR, HH, Hs = _gru_parts(ws, T, B, D, U, rm is not None)
    _write_weights_t(wrk_t, w, rk, bias, (ra, ra, act), _in_order(3 * U), xp)
    _backward_weights(wrk_t, [(slice(0, 2 * U), wzr), (slice(2 * U, 3 * U), wh)], xp)
    wzr_t, wh_t = wrk_t[: 2 * U], wrk_t[2 * U :]
    H = _states_view(XH, Hs, D, U)
    rm = _transposed(rm, xp)
    _fill_stacked(XH, x, go_backwards)
    _fill_stacked(XR, x, go_backwards)
    _init_state(XH, h0, rm, D, U, xp)
    M, NM = _time_mask(mask, go_backwards, xp)
    h = _transposed(h0, xp)
    zr, zh, tb = _take(xp, 2 * U, B), _take(xp, U, B), _take(xp, U, B)
    hn = _take(xp, U, B) if M is not None else None
    for t in range(T):
        azr, hh = AZR[t], HH[t]
        hin = XH[t, D : D + U]
        xp.dot(wzr_t, XH[t], out=zr)
        _act(ra, zr, azr, xp)
        gate, reset = azr[:U], azr[U:]
        xr = XR[t]
        xp.multiply(reset, hin, out=xr[D : D + U])
        xp.dot(wh_t, xr, out=zh)
        _act(act, zh, hh, xp)
        ht = H[t] if M is None else hn
        xp.subtract(1, gate, out=tb)
        xp.multiply(tb, hh, out=tb)
        xp.multiply(gate, hin, out=ht)
        xp.add(ht, tb, out=ht)
        if M is not None:
            _select(M[t], NM[t], hn, h, H[t], tb, xp)
        _store_state(XH, Hs, t, rm, D, U, xp)
        h = H[t]
    return [_sequence_output(H, return_sequences, xp), _last(H, h), ws]


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
    bias, rm, mask = _optional(arrays[6:-1], has_bias, has_rec_mask, has_mask)
    ws = arrays[-1]
    B, T, D = x.shape
    U = rk.shape[0]
    K = D + U + 1
    ra, act = recurrent_activation, activation
    # The forward pass's folded weights, as it stacked them.
    _, wzr, wh, XH, XR, AZR, HH, Hs = _gru_parts(ws, T, B, D, U, rm is not None)
    H = _states_view(XH, Hs, D, U)
    rm = _transposed(rm, xp)
    h0 = _transposed(h0, xp)
    M, NM = _time_mask(mask, go_backwards, xp)
    dS = _sequence_grad_t(dseq, T, xp)
    dZR, dZH = _take(xp, T, 2 * U, B), _take(xp, T, U, B)
    dXH, dXR = _take(xp, T, K, B), _take(xp, T, K, B)
    dh = _grad_start(dh_last, U, B, xp)
    dhin, tb = _take(xp, U, B), _take(xp, U, B)
    if M is not None:
        dhn, carry = _take(xp, U, B), _take(xp, U, B)
        dm_t = _take(xp, T, B)
    else:
        dm_t = None
    drm = xp.zeros((U, B), dtype=xp.float32) if rm is not None else None
    # Per-step factors worked out for all steps at once (the same values): hin - hh, 1 - z,
    # the candidate's and the gates' activation derivatives.
    HIN_HH, Z1 = _take(xp, T, U, B), _take(xp, T, U, B)
    xp.subtract(XH[:T, D : D + U], HH, out=HIN_HH)
    xp.subtract(1, AZR[:, :U], out=Z1)
    DHH, DZR = _take(xp, T, U, B), _take(xp, T, 2 * U, B)
    _dact(act, HH, DHH, xp)
    _dact(ra, AZR, DZR, xp)
    for t in range(T - 1, -1, -1):
        if dS is not None:
            xp.add(dh, dS[t], out=dh)
        azr, hh = AZR[t], HH[t]
        gate, reset = azr[:U], azr[U:]
        hprev = H[t - 1] if t else h0
        hin = XH[t, D : D + U]
        if M is not None:
            # dL/dm = dh . (h_new - h_prev), h_new = z * hin + (1 - z) * hh
            xp.subtract(1, gate, out=tb)
            xp.multiply(tb, hh, out=tb)
            xp.multiply(gate, hin, out=dhin)
            xp.add(dhin, tb, out=dhin)
            xp.subtract(dhin, hprev, out=dhin)
            xp.multiply(dhin, dh, out=dhin)
            dhin.sum(axis=0, dtype=xp.float32, out=dm_t[t])
            xp.multiply(dh, M[t], out=dhn)
            xp.multiply(dh, NM[t], out=carry)
        else:
            dhn = dh
        dzr, dzh = dZR[t], dZH[t]
        xp.multiply(HIN_HH[t], dhn, out=dzr[:U])
        xp.multiply(Z1[t], dhn, out=dzh)
        xp.multiply(dhn, gate, out=dhin)
        xp.multiply(dzh, DHH[t], out=dzh)
        dxr = dXR[t]
        xp.dot(wh, dzh, out=dxr)
        drh = dxr[D : D + U]
        xp.multiply(drh, hin, out=dzr[U:])
        xp.multiply(drh, reset, out=tb)
        xp.add(dhin, tb, out=dhin)
        xp.multiply(dzr, DZR[t], out=dzr)
        dxh = dXH[t]
        xp.dot(wzr, dzr, out=dxh)
        dh = dxh[D : D + U]
        xp.add(dh, dhin, out=dh)
        if rm is not None:
            xp.multiply(dh, hprev, out=tb)
            xp.add(drm, tb, out=drm)
            xp.multiply(dh, rm, out=dh)
        if M is not None:
            xp.add(dh, carry, out=dh)
    dwrk_t = _weight_grad_gk([(dZR, XH), (dZH, XR)], xp)
    dw, drk, db = _split_weight_grads(dwrk_t, (ra, ra, act), _in_order(3 * U), D, has_bias, xp)
    return _outputs(
        _input_grad([dXH, dXR], D, go_backwards, xp),
        dw,
        drk,
        dh.T.copy(),
        db,
        None if drm is None else drm.T.copy(),
        _mask_grad(dm_t, go_backwards, xp),
    )


# ========================================================================== SimpleRNN
def _simple_layout(T, B, D, U, has_rec_mask):
    """The workspace: the folded weights ``[U, K]`` and as ``[K, U]``, the stacked inputs,
    the activations (with a mask), [the states]."""
    K = D + U + 1
    shapes = [(U, K), (K, U), (T + 1, K, B), (T, U, B)]
    if has_rec_mask:
        shapes.append((T, U, B))
    return shapes


def _simple_parts(ws, T, B, D, U, has_rec_mask):
    """``wrk_t``, ``wrk``, ``XH``, ``A``, the states."""
    wrk_t, wrk, XH, A, *rest = _carve(ws, *_simple_layout(T, B, D, U, has_rec_mask))
    return wrk_t, wrk, XH, A, rest[0] if rest else None


def simple_rnn_sequence(
    *arrays,
    xp,
    activation="tanh",
    go_backwards=False,
    return_sequences=True,
    has_bias=False,
    has_rec_mask=False,
    has_mask=False,
):
    x, w, rk, h0 = arrays[:4]
    bias, rm, mask = _optional(arrays[4:], has_bias, has_rec_mask, has_mask)
    B, T, D = x.shape
    U = rk.shape[0]
    ws = _workspace(xp, _simple_layout(T, B, D, U, rm is not None))
    wrk_t, wrk, XH, A, Hs = _simple_parts(ws, T, B, D, U, rm is not None)
    _write_weights_t(wrk_t, w, rk, bias, (activation,), _in_order(U), xp)
    _backward_weights(wrk_t, [(slice(None), wrk)], xp)
    H = _states_view(XH, Hs, D, U)
    rm = _transposed(rm, xp)
    _fill_stacked(XH, x, go_backwards)
    _init_state(XH, h0, rm, D, U, xp)
    M, NM = _time_mask(mask, go_backwards, xp)
    h = _transposed(h0, xp)
    z, tb = _take(xp, U, B), _take(xp, U, B)
    for t in range(T):
        xp.dot(wrk_t, XH[t], out=z)
        if M is not None:
            _act(activation, z, A[t], xp)
            _select(M[t], NM[t], A[t], h, H[t], tb, xp)
        else:
            _act(activation, z, H[t], xp)
        _store_state(XH, Hs, t, rm, D, U, xp)
        h = H[t]
    return [_sequence_output(H, return_sequences, xp), _last(H, h), ws]


def simple_rnn_sequence_grad(
    *arrays,
    xp,
    activation="tanh",
    go_backwards=False,
    return_sequences=True,
    has_bias=False,
    has_rec_mask=False,
    has_mask=False,
):
    dseq, dh_last = arrays[:2]
    x, w, rk, h0 = arrays[2:6]
    bias, rm, mask = _optional(arrays[6:-1], has_bias, has_rec_mask, has_mask)
    ws = arrays[-1]
    B, T, D = x.shape
    U = rk.shape[0]
    K = D + U + 1
    # The forward pass's folded weights, as it stacked them.
    _, wrk, XH, A, Hs = _simple_parts(ws, T, B, D, U, rm is not None)
    H = _states_view(XH, Hs, D, U)
    rm = _transposed(rm, xp)
    h0 = _transposed(h0, xp)
    M, NM = _time_mask(mask, go_backwards, xp)
    dS = _sequence_grad_t(dseq, T, xp)
    dZ, dXH = _take(xp, T, U, B), _take(xp, T, K, B)
    dh = _grad_start(dh_last, U, B, xp)
    dv, tb = _take(xp, U, B), _take(xp, U, B)
    if M is not None:
        dhn, carry = _take(xp, U, B), _take(xp, U, B)
        dm_t = _take(xp, T, B)
    else:
        dm_t = None
    drm = xp.zeros((U, B), dtype=xp.float32) if rm is not None else None
    for t in range(T - 1, -1, -1):
        if dS is not None:
            xp.add(dh, dS[t], out=dh)
        hprev = H[t - 1] if t else h0
        at = H[t] if M is None else A[t]
        if M is not None:
            xp.subtract(at, hprev, out=tb)
            xp.multiply(tb, dh, out=tb)
            tb.sum(axis=0, dtype=xp.float32, out=dm_t[t])
            xp.multiply(dh, M[t], out=dhn)
            xp.multiply(dh, NM[t], out=carry)
        else:
            dhn = dh
        _dact(activation, at, dv, xp)
        dz = dZ[t]
        xp.multiply(dhn, dv, out=dz)
        dxh = dXH[t]
        xp.dot(wrk, dz, out=dxh)
        dh = dxh[D : D + U]
        if rm is not None:
            xp.multiply(dh, hprev, out=tb)
            xp.add(drm, tb, out=drm)
            xp.multiply(dh, rm, out=dh)
        if M is not None:
            xp.add(dh, carry, out=dh)
    dwrk_t = _weight_grad_gk([(dZ, XH)], xp)
    dw, drk, db = _split_weight_grads(dwrk_t, (activation,), _in_order(U), D, has_bias, xp)
    return _outputs(
        _input_grad([dXH], D, go_backwards, xp),
        dw,
        drk,
        dh.T.copy(),
        db,
        None if drm is None else drm.T.copy(),
        _mask_grad(dm_t, go_backwards, xp),
    )


KERNELS = {
    kr.LSTM_SEQUENCE: lstm_sequence,
    kr.LSTM_SEQUENCE_GRAD: lstm_sequence_grad,
    kr.GRU_SEQUENCE: gru_sequence,
    kr.GRU_SEQUENCE_GRAD: gru_sequence_grad,
    kr.SIMPLE_RNN_SEQUENCE: simple_rnn_sequence,
    kr.SIMPLE_RNN_SEQUENCE_GRAD: simple_rnn_sequence_grad,
}
KERNELS = kernel_scratch.counted_kernels("recurrent", KERNELS)
