"""Out= forms of hot kernels, for compiled replays' scratch buffers (issue 15).

A replay (``compiled/replay.py``) that owns a scratch array for a value no caller ever sees
(an activation, a gradient the optimizer reads) calls the kernel's *out form* instead of the
kernel: ``form(*arrays, out=array, xp=xp, **attrs)`` writes the kernel's result into ``out``
(an array of the output's shape and dtype) and returns it. Each form makes the very NumPy
calls of its kernel, in the same order, with ``out=`` on the last one (or on the only one
whose size matters), so its values are the kernel's bits.

``OUT_FORMS`` maps a kernel's array function to ``(form, accepts)``. ``accepts(ins, out,
attrs)`` looks at the traced shapes and dtypes (``ins``: ``(shape, numpy dtype)`` per input,
``out``: the output's) and says whether the form applies: ``None`` (no: the kernel runs as
traced), ``OUT`` (write into a buffer no input uses) or ``IN_PLACE`` (elementwise: ``out``
may also be one of the inputs of the output's shape, which dies at this step).
``FRESH_OUTPUTS``: the kernels known to return arrays of their own (see its comment).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .arithmetic import add, multiply, real_div, sub
from .basic_math import relu, step
from .layers_dense import dense, dense_grad
from .losses import _log_result, softmax_cross_entropy, softmax_cross_entropy_grad
from .optimizers import KERNELS as _OPTIMIZER_KERNELS
from .reduction import mean, sum_

__all__ = ["FRESH_OUTPUTS", "IN_PLACE", "OUT", "OUT_FORMS"]

OUT = "out"
IN_PLACE = "in_place"

_F32 = np.dtype(np.float32)
_F64 = np.float64
_ZERO32 = np.float32(0)


def _all_f32(ins: tuple, out: tuple) -> bool:
    return out[1] == _F32 and all(dtype == _F32 for _shape, dtype in ins)


# ---------------------------------------------------------------------- Dense
def _dense(x, kernel, *bias, out, xp, activation, has_bias):
    xp.dot(x, kernel, out=out)
    if has_bias:
        xp.add(out, bias[0], out=out)
    if activation == "relu":
        xp.maximum(out, _ZERO32, out=out)
    return out


def _accepts_dense(ins: tuple, out: tuple, attrs: dict) -> str | None:
    return OUT if len(ins[0][0]) == 2 and len(ins[1][0]) == 2 and _all_f32(ins, out) else None


def _dense_grad(dy, x, kernel, y, *, out, xp, activation, wrt):
    if activation == "relu":
        if wrt == "dy":
            return xp.multiply(dy, step(y, xp=xp, alpha=0), out=out)
        dy = multiply(dy, step(y, xp=xp, alpha=0), xp=xp)
    if wrt == "dy":
        xp.copyto(out, dy)
        return out
    if wrt == "x":
        return xp.matmul(dy, xp.swapaxes(kernel, -1, -2), out=out)
    if wrt == "kernel":
        return xp.matmul(xp.swapaxes(x, -1, -2), dy, out=out)
    out[...] = xp.add.reduce(dy, axis=(0,), dtype=_F64)  # Sum's float64 total, rounded once
    return out


def _accepts_dense_grad(ins: tuple, out: tuple, attrs: dict) -> str | None:
    if not _all_f32(ins, out) or any(len(shape) != 2 for shape, _ in ins):
        return None
    return IN_PLACE if attrs.get("wrt") == "dy" else OUT


# ---------------------------------------------------------------------- elementwise
def _binary(name: str) -> Any:
    """The float32 branch of an arithmetic kernel (``a + b`` is ``xp.add(a, b)``)."""

    def form(a, b, *, out, xp):
        return getattr(xp, name)(a, b, out=out)

    form.__name__ = name
    return form


def _accepts_f32_elementwise(ins: tuple, out: tuple, attrs: dict) -> str | None:
    return IN_PLACE if _all_f32(ins, out) and not attrs else None


def _relu(x, *, out, xp):
    return xp.maximum(x, _ZERO32, out=out)


# ---------------------------------------------------------------------- reductions
def _sum(x, *, out, xp, axis, keep_dims=False):
    out[...] = sum_(x, xp=xp, axis=axis, keep_dims=keep_dims)
    return out


def _mean(x, *, out, xp, axis, keep_dims=False):
    out[...] = mean(x, xp=xp, axis=axis, keep_dims=keep_dims)
    return out


# ---------------------------------------------------------------------- losses
def _softmax_cross_entropy(labels, logits, *, out, xp):
    out[...] = softmax_cross_entropy(labels, logits, xp=xp)
    return out


def _softmax_cross_entropy_grad(dy, labels, logits, *, out, xp, wrt):
    softmax = xp.exp(_log_result(logits, xp))
    if wrt == "labels":
        xp.subtract(labels, softmax, out=out)
    else:
        xp.subtract(softmax, labels, out=out)
    return xp.multiply(dy.reshape((*dy.shape, 1)), out, out=out)


def _accepts_f32(ins: tuple, out: tuple, attrs: dict) -> str | None:
    return OUT if _all_f32(ins, out) else None


OUT_FORMS: dict[Any, tuple[Any, Any]] = {
    dense: (_dense, _accepts_dense),
    dense_grad: (_dense_grad, _accepts_dense_grad),
    add: (_binary("add"), _accepts_f32_elementwise),
    sub: (_binary("subtract"), _accepts_f32_elementwise),
    multiply: (_binary("multiply"), _accepts_f32_elementwise),
    real_div: (_binary("true_divide"), _accepts_f32_elementwise),
    relu: (_relu, _accepts_f32_elementwise),
    sum_: (_sum, _accepts_f32),
    mean: (_mean, _accepts_f32),
    softmax_cross_entropy: (_softmax_cross_entropy, _accepts_f32),
    softmax_cross_entropy_grad: (_softmax_cross_entropy_grad, _accepts_f32),
}

#: Kernels whose outputs are always arrays of their own, never views of an input's memory
#: (a view would let a caller's tensor see a scratch array the next replay overwrites):
#: the kernels above, and Adam's flat update (its outputs are its pool's flat arrays).
FRESH_OUTPUTS = frozenset(OUT_FORMS) | frozenset(_OPTIMIZER_KERNELS.values())
