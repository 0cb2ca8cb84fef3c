"""Linear algebra, TF.js's ``tf.linalg`` namespace: ``band_part``, ``gram_schmidt``, ``qr``.

All three are composites of other ops, built step by step as TF.js builds them, so their
kernels, memory counts and (partial) differentiability match.
"""

from __future__ import annotations

import math
from typing import Any

from ..dtypes import INT32
from ..engine import ENGINE
from ..errors import ArgumentTypeError, DTypeError, InvalidArgumentError, ShapeError
from ..tensor import Tensor
from ._op import bool_arg, convert_to_tensor, js_str, op
from .arithmetic import div, minimum, mul, sub
from .basic_math import neg
from .creation import clone, eye, tensor2d, zeros
from .creation import range as range_
from .logical import greater, greater_equal, less, less_equal, logical_and, where
from .matrices import mat_mul, norm, transpose
from .reduction import sum as sum_
from .slicing_joining import concat, split, stack, unstack
from .slicing_joining import slice as slice_
from .transformations import reshape, squeeze

__all__ = ["band_part", "gram_schmidt", "qr"]


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _band_limit(value: Any, dim: int, what: str, dim_name: str) -> Any:
    """A band limit as TF.js takes it: a number (negative: the whole ``dim``) or an int32
    tensor (clamped to ``dim``, negative: the whole ``dim``)."""

    if _is_number(value):
        if not math.isfinite(value) or value % 1 != 0:
            raise InvalidArgumentError(
                f"band_part(): {what} must be an integer, got {js_str(value)}."
            )
        if value > dim:
            raise InvalidArgumentError(
                f"band_part(): {what} ({js_str(value)}) must not be greater than the number of "
                f"{dim_name} ({dim})."
            )
        return convert_to_tensor(dim if value < 0 else value, what, "bandPart")
    if not isinstance(value, Tensor) or value.dtype != INT32:
        raise DTypeError(f"band_part(): {what}'s dtype must be an int32.")
    return where(less(value, 0), dim, minimum(value, dim))


@op
def band_part(a: Any, num_lower: Any, num_upper: Any) -> Tensor:
    """Keeps, in each inner matrix, the band of ``num_lower`` sub-diagonals and ``num_upper``
    super-diagonals (negative: all of them) and zeroes the rest. The limits are numbers or
    int32 scalars.

    >>> tf.linalg.band_part(tf.tensor2d([[1, 2, 3], [4, 5, 6], [7, 8, 9]]), 0, -1).array_sync()
    [[1.0, 2.0, 3.0], [0.0, 5.0, 6.0], [0.0, 0.0, 9.0]]
    """

    a = convert_to_tensor(a, "a", "bandPart")
    if a.rank < 2:
        raise ShapeError(f"band_part(): Rank must be at least 2, got {a.rank}.")
    shape = list(a._shape)
    m, n = shape[-2], shape[-1]
    lower = _band_limit(num_lower, m, "num_lower", "rows")
    upper = _band_limit(num_upper, n, "num_upper", "columns")
    i = reshape(range_(0, m, 1, "int32"), [-1, 1])
    j = range_(0, n, 1, "int32")
    ij = sub(i, j)
    in_band = logical_and(less_equal(ij, lower), greater_equal(ij, neg(upper)))
    zero = zeros([m, n], a.dtype)
    mats = unstack(reshape(a, [-1, m, n]))
    return reshape(stack([where(in_band, mat, zero) for mat in mats]), shape)


@op
def gram_schmidt(xs: Any) -> Any:
    """Orthonormalizes vectors by the Gram-Schmidt process: a list of 1-D tensors gives a
    list, a 2-D tensor (one vector per row) gives a 2-D tensor.

    >>> tf.linalg.gram_schmidt(tf.tensor2d([[1, 1], [0, 1]])).array_sync()
    [[0.7071067690849304, 0.7071067690849304], [-0.7071067690849304, 0.7071067690849304]]
    """

    if isinstance(xs, (list, tuple)):
        input_is_2d = False
        if not xs:
            raise InvalidArgumentError("Gram-Schmidt process: input must not be None or empty")
        vectors = [convert_to_tensor(x, f"xs[{i}]", "gramSchmidt") for i, x in enumerate(xs)]
        dim = vectors[0]._shape[0] if vectors[0].rank else None
        for v in vectors[1:]:
            got = v._shape[0] if v.rank else None
            if got != dim:
                raise ShapeError(
                    "Gram-Schmidt: Non-unique lengths found in the input vectors: "
                    f"({js_str(got)} vs. {js_str(dim)})"
                )
    elif isinstance(xs, Tensor):
        input_is_2d = True
        if xs.rank != 2:
            raise ShapeError(f"Gram-Schmidt: a tensor input must be 2-D, but got rank {xs.rank}")
        vectors = [squeeze(x, [0]) for x in split(xs, xs._shape[0], 0)]
    else:
        raise ArgumentTypeError(
            "Gram-Schmidt: xs must be a list of 1-D tensors or a 2-D tensor, but got "
            f"{type(xs).__name__}"
        )
    for i, v in enumerate(vectors):
        if v.rank != 1:
            raise ShapeError(
                f"Gram-Schmidt: the input vectors must be 1-D, but xs[{i}] has shape "
                f"[{js_str(v.shape)}]"
            )
    if len(vectors) > vectors[0]._shape[0]:
        raise ShapeError(
            f"Gram-Schmidt: Number of vectors ({len(vectors)}) exceeds number of dimensions "
            f"({vectors[0]._shape[0]})."
        )
    ys: list[Tensor] = []
    for i in range(len(vectors)):

        def orthonormalize(i: int = i) -> Tensor:
            x = vectors[i]
            for j in range(i):
                proj = mul(sum_(mul(ys[j], x)), ys[j])
                x = sub(x, proj)
            return div(x, norm(x, "euclidean"))

        ys.append(ENGINE.tidy(orthonormalize))
    return stack(ys, 0) if input_is_2d else ys


def _qr2d(x: Tensor, full_matrices: bool) -> list[Tensor]:
    """Householder QR of one matrix, step by step as TF.js's ``qr2d`` computes it."""

    def run() -> list[Tensor]:
        m, n = x._shape
        q = eye(m)  # the orthogonal transform so far
        r = clone(x)  # the transformed matrix so far
        one2d = tensor2d([[1]], [1, 1])
        w = clone(one2d)
        for j in range(n if m >= n else m):

            def step(j: int = j, q: Tensor = q, r: Tensor = r) -> list[Tensor]:
                # H = I - tau * w * w' puts zeros below r[j, j].
                rj_end1 = slice_(r, [j, j], [m - j, 1])
                norm_x = norm(rj_end1)
                rjj = slice_(r, [j, j], [1, 1])
                # sign() would give 0 for 0 and divide by zero below.
                s = where(greater(rjj, 0), tensor2d([[-1]]), tensor2d([[1]]))
                u1 = sub(rjj, mul(s, norm_x))
                w_pre = div(rj_end1, u1)
                if w_pre._shape[0] == 1:
                    w_new = clone(one2d)
                else:
                    rest = slice_(w_pre, [1, 0], [w_pre._shape[0] - 1, w_pre._shape[1]])
                    w_new = concat([one2d, rest], 0)
                tau = neg(div(mat_mul(s, u1), norm_x))
                # r := H r, q := q H
                rj_end_all = slice_(r, [j, 0], [m - j, n])
                tau_times_w = mul(tau, w_new)
                w_t = transpose(w_new)
                r_rows = sub(rj_end_all, mat_mul(tau_times_w, mat_mul(w_t, rj_end_all)))
                r_new = r_rows if j == 0 else concat([slice_(r, [0, 0], [j, n]), r_rows], 0)
                tau_times_w_t = transpose(tau_times_w)
                q_all_j_end = slice_(q, [0, j], [m, q._shape[1] - j])
                q_cols = sub(q_all_j_end, mat_mul(mat_mul(q_all_j_end, w_new), tau_times_w_t))
                q_new = q_cols if j == 0 else concat([slice_(q, [0, 0], [m, j]), q_cols], 1)
                return [w_new, r_new, q_new]

            old = [r, w, q]
            w, r, q = ENGINE.tidy(step)
            ENGINE.dispose(old)
        if not full_matrices and m > n:
            q = slice_(q, [0, 0], [m, n])
            r = slice_(r, [0, 0], [n, n])
        return [q, r]

    return ENGINE.tidy(run)


@op
def qr(x: Any, full_matrices: bool = False) -> list[Tensor]:
    """QR decomposition by Householder reflections: returns ``[q, r]`` with ``x = q @ r``,
    ``q`` orthogonal and ``r`` upper triangular, for each inner matrix. With
    ``full_matrices=False`` a tall ``[m, n]`` matrix gives ``q`` ``[m, n]`` and ``r``
    ``[n, n]``; otherwise ``q`` is ``[m, m]`` and ``r`` ``[m, n]``.

    >>> q, r = tf.linalg.qr(tf.tensor2d([[1, 2], [3, 4]]))
    >>> [round(v, 4) for v in r.data_sync().tolist()]
    [-3.1623, -4.4272, 0.0, 0.6325]
    """

    x = convert_to_tensor(x, "x", "qr")
    if x.rank < 2:
        raise ShapeError(f"qr() requires input tensor to have a rank >= 2, but got rank {x.rank}")
    full_matrices = bool_arg(full_matrices, "qr", "fullMatrices")
    if x.rank == 2:
        return _qr2d(x, bool(full_matrices))
    shape = list(x._shape)
    outer = math.prod(shape[:-2])
    q2ds, r2ds = [], []
    for x2d in unstack(reshape(x, [outer, shape[-2], shape[-1]]), 0):
        q2d, r2d = _qr2d(x2d, bool(full_matrices))
        q2ds.append(q2d)
        r2ds.append(r2d)
    return [reshape(stack(q2ds, 0), shape), reshape(stack(r2ds, 0), shape)]
