"""Gradient of the Cumsum kernel (TF.js's Cumsum_grad.ts). Cumprod has none, as in TF.js."""

from __future__ import annotations

from .. import kernel_names as k
from ..kernel_registry import GradConfig, register_gradient
from .reduction import get_axes_permutation


def _cumsum_grad(dy, saved, attrs):
    from ..ops.matrices import transpose
    from ..ops.scan import cumsum

    (x,) = saved
    axis, exclusive, reverse = attrs["axis"], attrs["exclusive"], attrs["reverse"]

    def der_x():
        out = cumsum(dy, axis, exclusive, not reverse)
        # TF.js then transposes by the axis-to-end permutation when the axis is not the
        # last one: the result is transposed (square inputs) or has the wrong shape, which
        # the tape rejects. Kept as TF.js 4.22.0 has it.
        perm = get_axes_permutation([axis], x.rank)
        if perm is not None:
            out = transpose(out, perm)
        return out

    return (der_x,)


register_gradient(GradConfig(k.CUMSUM, _cumsum_grad, inputs_to_save=(0,)))
