"""Gradients of the reduction kernels (TF.js's Sum_grad.ts, Mean_grad.ts, Max_grad.ts, ...).

The reduction ops hand their kernels the axes already normalized (non-negative ints, None
turned into every axis), so the ``axis`` / ``reduction_indices`` attrs are lists here.
"""

from __future__ import annotations

import math

from .. import kernel_names as k
from ..geometry.axes import keep_dims_shape, reduced_axes
from ..kernel_registry import GradConfig, register_gradient
from ..ops.arithmetic import div, mul
from ..ops.creation import ones, zeros_like
from ..ops.logical import equal
from ..ops.matrices import transpose
from ..ops.scan import cumprod
from ..ops.transformations import cast, reshape


# ---------------------------------------------------------------------------- axis helpers
def axes_are_inner_most(axes: list[int], rank: int) -> bool:
    """True when ``axes`` are the last ``len(axes)`` dims, in order."""
    n = len(axes)
    return all(axes[n - 1 - i] == rank - 1 - i for i in range(n))


def get_axes_permutation(axes: list[int], rank: int) -> list[int] | None:
    """The permutation moving ``axes`` to the end (kept dims first), or None when they
    already are the inner-most dims (TF.js's ``getAxesPermutation``)."""
    if axes_are_inner_most(axes, rank):
        return None
    return [i for i in range(rank) if i not in axes] + list(axes)


def get_undo_axes_permutation(perm: list[int]) -> list[int]:
    """The permutation that undoes ``perm`` (its argsort)."""
    return sorted(range(len(perm)), key=lambda i: perm[i])


# ---------------------------------------------------------------------------- gradients
def _sum_grad(dy, saved, attrs):

    (x,) = saved
    # As in TF.js, the gradient is computed eagerly, not inside the thunk.
    der_x = mul(
        reshape(dy, keep_dims_shape(x._shape, attrs["axis"])), ones(list(x._shape), "float32")
    )
    return (lambda: der_x,)


def _mean_grad(dy, saved, attrs):

    (x,) = saved
    axes = attrs["axis"]
    reduce_size = math.prod(x._shape[a] for a in axes)

    def der_x():
        expanded = reshape(dy, keep_dims_shape(x._shape, axes))
        return div(mul(expanded, ones(list(x._shape), "float32")), reduce_size)

    return (der_x,)


def _min_max_grad(dy, x, y, axes):
    """dy flows to every position of ``x`` equal to the extreme ``y`` (ties all get it)."""

    if y.rank < x.rank:
        y = reshape(y, keep_dims_shape(x._shape, axes))
    if dy.rank < x.rank:
        dy = reshape(dy, keep_dims_shape(x._shape, axes))
    return (lambda: mul(dy, cast(equal(x, y), dy.dtype)),)


def _max_grad(dy, saved, attrs):
    x, y = saved
    return _min_max_grad(dy, x, y, attrs["reduction_indices"])


def _min_grad(dy, saved, attrs):
    x, y = saved
    return _min_max_grad(dy, x, y, attrs["axis"])


def _arg_grad(dy, saved, attrs):

    (x,) = saved
    return (lambda: zeros_like(x),)


def _prod_grad_one_axis(x, dy, axis):
    """Product of every other value along ``axis``: exclusive cumprods from both ends."""

    expanded_shape = list(x._shape)
    expanded_shape[axis] = 1
    expanded_dy = reshape(dy, expanded_shape)
    before = cumprod(x, axis, True, False)
    after = cumprod(x, axis, True, True)
    return mul(expanded_dy, mul(before, after))


def _prod_grad_axes(x, dy, axes):
    """Moves the reduced axes to the end, folds them into one, and differentiates that."""

    rank = x.rank
    perm = get_axes_permutation(axes, rank)
    permuted = transpose(x, perm) if perm is not None else x
    kept = list(permuted._shape[: rank - len(axes)])
    folded = reshape(permuted, [*kept, math.prod(permuted._shape[rank - len(axes) :])])
    grad = reshape(_prod_grad_one_axis(folded, dy, rank - len(axes)), list(permuted._shape))
    if perm is not None:
        grad = transpose(grad, get_undo_axes_permutation(perm))
    return grad


def _prod_grad(dy, saved, attrs):
    (x,) = saved
    axes = list(reduced_axes(x._shape, attrs["axis"]))  # repeated axes as the kernel reduced
    return (lambda: _prod_grad_axes(x, dy, axes),)


for _config in (
    GradConfig(k.SUM, _sum_grad, inputs_to_save=(0,)),
    GradConfig(k.MEAN, _mean_grad, inputs_to_save=(0,)),
    GradConfig(k.MAX, _max_grad, inputs_to_save=(0,), outputs_to_save=(True,)),
    GradConfig(k.MIN, _min_grad, inputs_to_save=(0,), outputs_to_save=(True,)),
    GradConfig(k.ARG_MAX, _arg_grad, inputs_to_save=(0,)),
    GradConfig(k.ARG_MIN, _arg_grad, inputs_to_save=(0,)),
    GradConfig(k.PROD, _prod_grad, inputs_to_save=(0,)),
):
    register_gradient(_config)
