"""Gradient of the Cumsum kernel (TF.js's Cumsum_grad.ts). Cumprod has none, as in TF.js."""

from __future__ import annotations

from .. import kernel_names as k
from ..kernel_registry import GradConfig, register_gradient
from ..ops.scan import cumsum


def _cumsum_grad(dy, saved, attrs):

    (x,) = saved
    axis, exclusive, reverse = attrs["axis"], attrs["exclusive"], attrs["reverse"]

    def der_x():
        # The reverse cumulative sum of dy. TF.js 4.22.0 then transposes the result when the
        # axis is not the last one, which gives a transposed (square inputs) or wrongly shaped
        # gradient; that bug is not reproduced here.
        return cumsum(dy, axis, exclusive, not reverse)

    return (der_x,)


register_gradient(GradConfig(k.CUMSUM, _cumsum_grad, inputs_to_save=(0,)))
