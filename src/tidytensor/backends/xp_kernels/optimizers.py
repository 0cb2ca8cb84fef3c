"""Fused optimizer updates (``kernel_names/optimizers.py``): one kernel for all variables
doing exactly the elementwise float32 arithmetic of the optimizer's TF.js ops, in their
order.

Each TF.js op rounds its result to float32, and so does each step here (NumPy float32
ufuncs with float32 scalar operands), so the results are bit-identical to the unfused ops;
the steps write into the outputs and one scratch array instead of a new array per op.

That NumPy code is the readable reference. Where the compiled float32 loops are built
(``float32_loops.py``), Adam runs as one compiled pass over the elements doing the same
float32 operations in the same order (``_float32_c.pyx``), into the same output arrays.

The arrays the update keeps between calls (its two scratch arrays, and the pooled flat
outputs no tensor holds) are counted in the engine's live bytes (``engine.kernel_scratch``).
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

from ...engine import kernel_scratch
from ...kernel_names import optimizers as ko
from . import float32_loops

__all__ = ["KERNELS", "clear_buffer_pool"]


def adam_update(*arrays, xp, beta1, beta2, epsilon, learning_rate, count=1):
    """Adam's step of ``count`` variables: ``arrays`` are their values, then their gradients,
    first and second moments (``count`` of each, variable ``i``'s at ``i`` in each group),
    then ``accBeta1``, ``accBeta2``; returns the new first moments, second moments, values.

    Several variables run as one flat update: their values and moments laid end to end
    (read in place when they are the parts the last update handed out), the gradients' two
    products written straight into flat arrays, the other nine elementwise steps once over
    all of them (the same float32 operations on every element as variable by variable, so
    the same bits), each result handed out as its variable's part of the flat output."""
    *tensors, acc_beta1, acc_beta2 = arrays
    consts = {"beta1": beta1, "beta2": beta2, "epsilon": epsilon, "learning_rate": learning_rate}
    if count == 1:
        return _adam_one(*tensors, acc_beta1, acc_beta2, xp=xp, **consts)
    values, gradients, ms, vs = (tensors[i * count : (i + 1) * count] for i in range(4))
    shapes = [a.shape for a in values]
    c = _constants(acc_beta1, acc_beta2, xp=xp, **consts)
    flats = (_flat(values, xp), _flat(ms, xp), _flat(vs, xp))
    outs = _free_outputs(xp, sum(g.size for g in gradients))
    if not _compiled_adam(gradients, flats, outs, c, xp):
        # The reference: the gradients' two products go straight into flat arrays, one
        # variable at a time (no copy of the gradients); all the rest runs once over the
        # flat arrays.
        g_scaled, g_squared = _gradient_terms(gradients, c, xp)
        _adam_rest(*flats, g_scaled, g_squared, c, xp, outs)
    return [part for out in outs for part in _split(out, shapes)]


def _compiled_adam(gradients, flats, outs, c, xp) -> bool:
    """Adam's whole update in one compiled pass over the elements (``_float32_c.adam``: the
    operations of ``_gradient_terms`` and ``_adam_rest`` on each element, in their order, so
    the same bits) into ``outs``; False, having written nothing, where the loops are not
    built or switched off, or an array is not a contiguous float32 NumPy array: the NumPy
    reference runs then."""
    loops = float32_loops.LOOPS
    if loops is None or xp is not np:
        return False
    return loops.adam(gradients, *flats, *outs, *c)


def _gradient_terms(gradients, c, xp):
    """``g (1 - b1)`` and ``g^2`` of every gradient, laid end to end."""
    n = sum(g.size for g in gradients)
    g_scaled, g_squared = _scratch(xp, n)
    start = 0
    for g in gradients:
        flat = xp.reshape(g, (g.size,))
        end = start + g.size
        xp.multiply(flat, c[2], out=g_scaled[start:end])
        xp.square(flat, out=g_squared[start:end])
        start = end
    return g_scaled, g_squared


_SCRATCH = threading.local()  # .kept: this thread's ``_Kept``


class _Kept:
    """The arrays one thread's updates keep between calls, their idle bytes counted exactly
    in the engine's live bytes (a ``kernel_scratch.Holding``): the two scratch arrays (never
    leave the update: always idle between calls) and the pooled flat outputs, lent
    (``kernel_scratch.lend``) while a part of them is a tensor's buffer and given back,
    idle, when the last part is freed. All of it is dropped and uncounted by
    ``clear_buffer_pool`` or when the thread ends."""

    def __init__(self):
        self.holding = kernel_scratch.Holding("adam")
        self.lock = threading.RLock()  # an array may come back while the lock is held
        self.scratch: tuple | None = None  # (key, array, array)
        self.outputs_key: tuple | None = None
        self.outputs: list = []  # kernel_scratch.Pooled
        weakref.finalize(self, _forget, self.outputs, self.holding, self.lock).atexit = False


def _forget(outputs: list, holding: kernel_scratch.Holding, lock) -> None:
    with lock:
        kernel_scratch.drop(outputs)
        outputs.clear()
        holding.clear()  # the scratch arrays' bytes


def _kept() -> _Kept:
    kept = getattr(_SCRATCH, "kept", None)
    if kept is None:
        kept = _SCRATCH.kept = _Kept()
    return kept


def clear_buffer_pool() -> None:
    """Drops this thread's scratch and output arrays (the backend's ``dispose`` and the
    optimizer's call it)."""
    kept = _SCRATCH.__dict__.pop("kept", None)
    if kept is not None:
        _forget(kept.outputs, kept.holding, kept.lock)


#: Flat output arrays a thread keeps for later updates: two updates' worth (the one the
#: variables hold now, and the one being written), and a spare update's.
_POOL_SIZE = 9


def _free_outputs(xp, n: int) -> list:
    """Three float32 arrays of ``n`` elements for a flat update's new moments and values:
    arrays an earlier update handed out once nothing holds them any more (their parts'
    buffers were freed: no record, view or handle refers to them, so no one sees them
    change), else new ones, kept for later updates. The engine counts the buffers handed
    out as before (each part's record has its bytes); this reuses the memory behind them,
    which a fresh 400 kB array would page-fault in again on every step. Only NumPy arrays
    are pooled."""
    if xp is not np:
        return [xp.empty(n, dtype=xp.float32) for _ in range(3)]
    kept = _kept()
    holding, lock = kept.holding, kept.lock
    out = []
    with lock:
        pool = kept.outputs
        if kept.outputs_key != n:  # another size: the old arrays go
            kernel_scratch.drop(pool)
            pool.clear()
            kept.outputs_key = n
        for entry in pool:
            if not entry.lent:
                holding.add(-entry.nbytes)
                out.append(kernel_scratch.lend(entry))
                if len(out) == 3:
                    return out
        while len(out) < 3:
            a = np.empty(n, dtype=np.float32)
            if len(pool) < _POOL_SIZE:
                entry = kernel_scratch.Pooled(a, holding, lock)
                pool.append(entry)
                a = kernel_scratch.lend(entry)
            out.append(a)
    return out


kernel_scratch.register_release("adam", clear_buffer_pool)


def _scratch(xp, n: int):
    """Two float32 arrays of ``n`` elements, this thread's, reused from update to update
    (they never leave the kernel: fresh ones would page-fault on every step)."""
    kept = _kept()
    key = (id(xp), n)
    found = kept.scratch
    if found is None or found[0] != key:
        old = 0 if found is None else found[1].nbytes + found[2].nbytes
        found = kept.scratch = (
            key,
            xp.empty(n, dtype=xp.float32),
            xp.empty(n, dtype=xp.float32),
        )
        kept.holding.add(found[1].nbytes + found[2].nbytes - old)
    return found[1], found[2]


#: id(flat output) -> (a weak reference to it, weak references to the parts handed out).
_PARTS: dict[int, tuple] = {}


def _flat(group, xp):
    """The arrays of ``group`` laid end to end: when they are exactly the parts an earlier
    update handed out of one flat output, in order (the variables and moments it wrote,
    read back on the next step), that output itself, read where it is; else a
    concatenation."""
    base = getattr(group[0], "base", None)
    entry = None if base is None else _PARTS.get(id(base))
    if entry is not None and entry[0]() is base and len(entry[1]) == len(group):
        if all(ref() is a for ref, a in zip(entry[1], group, strict=True)):
            return base
    return xp.concatenate([xp.ravel(a) for a in group])


def _split(flat, shapes):
    """``flat``'s consecutive parts with the given shapes (views), remembered for ``_flat``."""
    parts, start = [], 0
    for shape in shapes:
        n = 1
        for d in shape:
            n *= d
        parts.append(flat[start : start + n].reshape(shape))
        start += n
    if all(getattr(p, "base", None) is flat for p in parts):
        key = id(flat)
        try:
            _PARTS[key] = (
                weakref.ref(flat, lambda _ref, key=key: _PARTS.pop(key, None)),
                tuple(weakref.ref(p) for p in parts),
            )
        except TypeError:  # an array module whose arrays take no weak references
            pass
    return parts


def _adam_one(
    value, gradient, m, v, acc_beta1, acc_beta2, *, xp, beta1, beta2, epsilon, learning_rate
):
    """``m' = m b1 + g (1 - b1)``; ``v' = v b2 + g^2 (1 - b2)``;
    ``w' = (m' / (1 - accB1)) / (sqrt(v' / (1 - accB2)) + eps) * -lr + w``.

    Each constant is the float32 scalar TF.js's ops would make of it (``1 - b1`` worked out
    in double precision first, as in JavaScript), and ``1 - accB`` is Sub's float32 result."""
    if not value.shape:  # a scalar variable: one-element arrays (NumPy scalars take no out=)
        arrays = (xp.reshape(a, (1,)) for a in (value, gradient, m, v))
        outs = _adam_one(
            *arrays,
            acc_beta1,
            acc_beta2,
            xp=xp,
            beta1=beta1,
            beta2=beta2,
            epsilon=epsilon,
            learning_rate=learning_rate,
        )
        return [o.reshape(()) for o in outs]
    c = _constants(
        acc_beta1,
        acc_beta2,
        xp=xp,
        beta1=beta1,
        beta2=beta2,
        epsilon=epsilon,
        learning_rate=learning_rate,
    )
    if float32_loops.LOOPS is not None and xp is np:
        outs = [np.empty(value.shape, dtype=np.float32) for _ in range(3)]
        if _compiled_adam([gradient], (value, m, v), outs, c, xp):
            return outs
    return _adam_rest(value, m, v, xp.multiply(gradient, c[2]), xp.square(gradient), c, xp)


def _constants(acc_beta1, acc_beta2, *, xp, beta1, beta2, epsilon, learning_rate):
    """``(1 - accB1, 1 - accB2, 1 - b1, 1 - b2, b1, b2, eps, -lr)`` as float32 scalars."""
    f32 = xp.float32
    one = f32(1)
    return (
        one - acc_beta1,
        one - acc_beta2,
        f32(1 - beta1),
        f32(1 - beta2),
        f32(beta1),
        f32(beta2),
        f32(epsilon),
        f32(-learning_rate),
    )


def _adam_rest(value, m, v, g_scaled, g_squared, c, xp, outs=(None, None, None)):
    """The update from ``g (1 - b1)`` and ``g^2`` on (``g_squared`` is used as scratch),
    into ``outs`` (new moments and values; arrays none of the inputs share) or new arrays."""
    one_minus_acc_beta1, one_minus_acc_beta2, _, one_minus_beta2, beta1, beta2, epsilon, neg_lr = c
    new_m = xp.multiply(m, beta1, out=outs[0])
    xp.add(new_m, g_scaled, out=new_m)
    new_v = xp.multiply(v, beta2, out=outs[1])
    scratch = g_squared
    xp.multiply(scratch, one_minus_beta2, out=scratch)
    xp.add(new_v, scratch, out=new_v)
    new_value = xp.divide(new_m, one_minus_acc_beta1, out=outs[2])  # bias-corrected 1st moment
    xp.divide(new_v, one_minus_acc_beta2, out=scratch)  # bias-corrected second moment
    xp.sqrt(scratch, out=scratch)
    xp.add(scratch, epsilon, out=scratch)
    xp.divide(new_value, scratch, out=new_value)
    xp.multiply(new_value, neg_lr, out=new_value)
    xp.add(new_value, value, out=new_value)
    return [new_m, new_v, new_value]


KERNELS = {ko.ADAM_UPDATE: adam_update}
