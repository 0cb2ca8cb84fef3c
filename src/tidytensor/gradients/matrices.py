"""Gradients of the matrix kernels (TF.js's BatchMatMul_grad.ts, Transpose_grad.ts)."""

from __future__ import annotations

from .. import kernel_names as k
from ..kernel_registry import GradConfig, register_gradient
from ..ops.matrices import mat_mul, transpose
from .reduction import get_undo_axes_permutation


def _batch_mat_mul_grad(dy, saved, attrs):

    a, b = saved
    ta, tb = attrs["transpose_a"], attrs["transpose_b"]
    if not ta and not tb:
        return (lambda: mat_mul(dy, b, False, True), lambda: mat_mul(a, dy, True, False))
    if not ta and tb:
        return (lambda: mat_mul(dy, b, False, False), lambda: mat_mul(dy, a, True, False))
    if ta and not tb:
        return (lambda: mat_mul(b, dy, False, True), lambda: mat_mul(a, dy, False, False))
    return (lambda: mat_mul(b, dy, True, True), lambda: mat_mul(dy, a, True, True))


def _transpose_grad(dy, saved, attrs):

    undo = get_undo_axes_permutation(list(attrs["perm"]))
    return (lambda: transpose(dy, undo),)


for _config in (
    GradConfig(k.BATCH_MAT_MUL, _batch_mat_mul_grad, inputs_to_save=(0, 1)),
    GradConfig(k.TRANSPOSE, _transpose_grad),
):
    register_gradient(_config)
