"""The fused Dense layer (``kernel_names/layers_dense.py``).

Each kernel calls the very kernels TF.js's ops would run, in the same order on arrays of
the same values, so its results are the unfused ops' bits:

- forward: ``relu(matMul(x, kernel) + bias)`` (BatchMatMul, Add, Relu; ``linear`` skips the
  activation), written in place into the product's buffer;
- gradient: Relu's ``dy * step(y)`` (``step`` of the output equals ``step`` of the
  activation's input, NaN included), then BatchMatMul's ``dy @ kernel^T`` or
  ``x^T @ dy``, or Add's sum of ``dy`` over the batch for the bias (``wrt='dy'``: Relu's
  gradient alone, which ``gradients/layers_dense.py`` works out once for all three).
"""

from __future__ import annotations

import numpy as np

from ...kernel_names import layers_dense as kd
from .arithmetic import multiply
from .basic_math import step
from .matrices import batch_mat_mul
from .reduction import sum_

__all__ = ["KERNELS"]

_FLOAT32 = np.dtype(np.float32)
_ZERO32 = np.float32(0)


def dense(x, kernel, *bias, xp, activation, has_bias):
    if x.ndim == 2 and x.dtype.kind == "f" and kernel.dtype is x.dtype:
        # BatchMatMul's float32 product of two matrices is ``matmul``'s; ``dot`` makes the
        # same BLAS call (the same bits) without the ufunc machinery, which costs as much as
        # the product of one row by a small kernel (a one-row ``predict``).
        out = xp.dot(x, kernel)
    else:
        out = batch_mat_mul(x, kernel, xp=xp)
    if has_bias:
        xp.add(out, bias[0], out=out)
    if activation == "relu":
        # A float32 zero is what ``maximum`` makes of the int 0 for a float32 ``out``
        # (the same bits); given as one, it skips NumPy's conversion of a Python scalar.
        xp.maximum(out, _ZERO32 if out.dtype is _FLOAT32 else 0, out=out)
    return out


def dense_grad(dy, x, kernel, y, *, xp, activation, wrt):
    if activation == "relu":
        dy = multiply(dy, step(y, xp=xp, alpha=0), xp=xp)
    if wrt == "dy":  # the activation's gradient alone (shared by the inputs' gradients)
        return dy if activation == "relu" else dy.copy()
    if wrt == "x":
        return batch_mat_mul(dy, kernel, xp=xp, transpose_b=True)
    if wrt == "kernel":
        return batch_mat_mul(x, dy, xp=xp, transpose_a=True)
    return sum_(dy, xp=xp, axis=[0])


KERNELS = {kd.DENSE: dense, kd.DENSE_GRAD: dense_grad}
