"""Axis parameters, which dims a reduction over given axes reduces, and the shape it keeps
(TF.js's ``axis_util``): shared by the ops, their kernels and their gradients."""

from __future__ import annotations

from ..errors import InvalidArgumentError


def _js(values) -> str:
    return ",".join(str(v) for v in values)


def reduced_axes(shape, axes) -> tuple[int, ...]:
    """The input dims a TF.js reduction over ``axes`` actually reduces.

    TF.js permutes the reduced axes to the end (``getAxesPermutation``) and then reduces the
    ``len(axes)`` innermost dims, so duplicated axes reduce extra dims. With unique axes this
    is simply ``axes``.
    """
    rank = len(shape)
    axes = list(axes)
    if len(set(axes)) == len(axes):
        return tuple(sorted(axes))
    if len(axes) >= rank:
        return tuple(range(rank))
    kept = [i for i in range(rank) if i not in axes]
    perm = (kept + axes)[:rank]
    if len(set(perm)) != rank:  # TF.js would read garbage here; reduce the named axes
        return tuple(sorted(set(axes)))
    return tuple(sorted(perm[rank - len(axes) :]))


def keep_dims_shape(x_shape: tuple[int, ...] | list[int], axes: list[int]) -> list[int]:
    """The shape of a keepDims reduction of ``x_shape`` over the parsed ``axes``: a 1 at each
    dim the kernels reduce (repeated axes reduce as in TF.js, see ``reduced_axes``)."""
    red = reduced_axes(x_shape, axes)
    return [1 if i in red else d for i, d in enumerate(x_shape)]


def parse_axis(axis, shape) -> list[int]:
    """TF.js's ``parseAxisParam`` with its message."""
    rank = len(shape)
    axes = (
        list(range(rank))
        if axis is None
        else list(axis)
        if isinstance(axis, (list, tuple))
        else [axis]
    )
    if not all(-rank <= a < rank for a in axes):
        raise InvalidArgumentError(
            f"All values in axis param must be in range [-{rank}, {rank}) but got axis {_js(axes)}"
        )
    if not all(float(a).is_integer() for a in axes):
        raise InvalidArgumentError(
            f"All values in axis param must be integers but got axis {_js(axes)}"
        )
    return [int(a) + rank if a < 0 else int(a) for a in axes]
