"""Logical kernels: comparisons (bool results), logical and/or/not, BitwiseAnd, Select.

Inputs of comparisons already share one dtype (the ops upcast them); string tensors compare
as Python strings, as JS compares them.
"""

from __future__ import annotations

import math

from ... import kernel_names as k


def equal(a, b, *, xp):
    return xp.equal(a, b)


def not_equal(a, b, *, xp):
    return xp.not_equal(a, b)


def greater(a, b, *, xp):
    return xp.greater(a, b)


def greater_equal(a, b, *, xp):
    return xp.greater_equal(a, b)


def less(a, b, *, xp):
    return xp.less(a, b)


def less_equal(a, b, *, xp):
    return xp.less_equal(a, b)


def logical_and(a, b, *, xp):
    return xp.logical_and(a, b)


def logical_or(a, b, *, xp):
    return xp.logical_or(a, b)


def logical_not(x, *, xp):
    return xp.logical_not(x)


def bitwise_and(a, b, *, xp):
    return xp.bitwise_and(a, b)


_ORDER = ("b", "i", "f", "c")


def select(condition, t, e, *, xp):
    """``t`` where ``condition`` else ``e``; the result has the upcast dtype of ``t`` and ``e``."""
    dtype = t.dtype if _ORDER.index(t.dtype.kind) >= _ORDER.index(e.dtype.kind) else e.dtype
    if condition.shape == t.shape == e.shape:
        return xp.where(condition, t.astype(dtype, copy=False), e.astype(dtype, copy=False))
    return _select_mismatched(condition, t, e, dtype, xp)


def _select_mismatched(condition, t, e, dtype, xp):
    """TF.js's Select loop when the shapes differ (``where`` reaches it when broadcastTo keeps a
    1 against a 0-sized dim): the output has ``t``'s shape; condition value ``i`` picks
    ``t[i]``/``e[i]`` (missing values read as NaN or 0), written ``offset`` times in a row;
    positions never written stay 0."""
    c = condition.reshape(-1)
    offset = (
        1 if condition.ndim == 0 or condition.ndim > 1 or t.ndim == 1 else math.prod(t.shape[1:])
    )
    missing = xp.nan if dtype.kind in "fc" else 0

    def padded(values):
        flat = values.reshape(-1).astype(dtype, copy=False)[: c.size]
        if flat.size < c.size:
            flat = xp.concatenate([flat, xp.full(c.size - flat.size, missing, dtype=dtype)])
        return flat

    picked = xp.repeat(xp.where(c, padded(t), padded(e)), offset)[: t.size]
    out = xp.zeros(t.size, dtype=dtype)
    out[: picked.size] = picked
    return out.reshape(t.shape)


KERNELS = {
    k.EQUAL: equal,
    k.NOT_EQUAL: not_equal,
    k.GREATER: greater,
    k.GREATER_EQUAL: greater_equal,
    k.LESS: less,
    k.LESS_EQUAL: less_equal,
    k.LOGICAL_AND: logical_and,
    k.LOGICAL_OR: logical_or,
    k.LOGICAL_NOT: logical_not,
    k.BITWISE_AND: bitwise_and,
    k.SELECT: select,
}
