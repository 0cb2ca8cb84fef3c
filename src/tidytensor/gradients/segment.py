"""Gradient of the UnsortedSegmentSum kernel (TF.js's UnsortedSegmentSum_grad.ts)."""

from __future__ import annotations

from .. import kernel_names as k
from ..kernel_registry import GradConfig, register_gradient
from ..ops.arithmetic import maximum
from ..ops.creation import ones, scalar, zeros_like
from ..ops.logical import greater_equal, logical_and, where
from ..ops.slicing_joining import gather
from ..ops.transformations import expand_dims


def _gather_drop_negatives(x, indices):
    """``x[indices]`` along axis 0, with zeros where an index is negative."""

    zero_clipped = maximum(indices, zeros_like(indices))
    gathered = gather(x, zero_clipped)
    is_positive = greater_equal(indices, scalar(0, "int32"))
    for i in range(gathered.rank - is_positive.rank):
        is_positive = expand_dims(is_positive, i + 1)
    is_positive = logical_and(is_positive, ones(list(gathered._shape), "bool"))
    return where(is_positive, gathered, zeros_like(gathered))


def _unsorted_segment_sum_grad(dy, saved, attrs):
    (segment_ids,) = saved
    return (lambda: _gather_drop_negatives(dy, segment_ids), None)


register_gradient(
    GradConfig(k.UNSORTED_SEGMENT_SUM, _unsorted_segment_sum_grad, inputs_to_save=(1,))
)
