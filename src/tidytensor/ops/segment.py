"""Segment (TF.js doc subheading 'Operations / Segment')."""

from __future__ import annotations

import math
from typing import Any

from .. import kernel_names as k
from ..dtypes import COMPLEX64, INT32
from ..errors import DTypeError, InvalidArgumentError, ShapeError
from ..geometry.broadcast import assert_and_get_broadcast_shape
from ..tensor import Tensor
from ._op import MAX_DIM, _is_int, convert_to_tensor, op, run_kernel

__all__ = ["unsorted_segment_sum"]


@op
def unsorted_segment_sum(x: Any, segment_ids: Any, num_segments: int) -> Tensor:
    """Sums the slices of ``x`` that share a segment id: ``out[s] = sum(x[i] for i where
    segment_ids[i] == s)``, shape ``[num_segments, *x.shape[segment_ids.rank:]]``. Ids outside
    ``[0, num_segments)`` are dropped. The result is float32, as on TF.js's CPU backend.

    >>> ids = tf.tensor1d([0, 2, 0, 1], 'int32')
    >>> tf.unsorted_segment_sum(tf.tensor1d([1, 2, 3, 4]), ids, 3).array_sync()
    [4.0, 4.0, 2.0]
    """
    x = convert_to_tensor(x, "x", "unsortedSegmentSum")
    segment_ids = convert_to_tensor(segment_ids, "segmentIds", "unsortedSegmentSum", INT32)
    if not _is_int(num_segments):
        raise InvalidArgumentError("num_segments must be of dtype int")
    num_segments = int(num_segments)
    if num_segments <= 0:
        # TF.js fails inside its kernel here (it stacks an empty list).
        raise InvalidArgumentError(
            f"Error in unsorted_segment_sum: num_segments must be positive, but got {num_segments}"
        )
    if x.dtype == COMPLEX64:
        raise DTypeError(
            "unsorted_segment_sum does not support complex64 tensors in the CPU backend."
        )
    ids_shape = segment_ids._shape + (1,) * max(0, x.rank - segment_ids.rank)
    shape = assert_and_get_broadcast_shape(ids_shape, x._shape)
    slice_size = math.prod(shape[segment_ids.rank :]) if shape else 1
    if num_segments * slice_size > MAX_DIM:
        raise InvalidArgumentError(
            f"Error in unsorted_segment_sum: num_segments {num_segments} would make "
            f"{num_segments * slice_size} values, but at most {MAX_DIM} are supported"
        )
    if not shape:
        raise ShapeError(
            "Error in unsorted_segment_sum: x and segment_ids are scalars, but the segments are "
            "summed over axis 0 (All values in axis param must be in range [-0, 0) but got axis 0)"
        )
    return run_kernel(k.UNSORTED_SEGMENT_SUM, (x, segment_ids), {"num_segments": num_segments})
