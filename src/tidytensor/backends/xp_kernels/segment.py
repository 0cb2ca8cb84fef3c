"""Segment kernels: UnsortedSegmentSum.

TF.js's CPU kernel builds, for each segment ``s``, the float32 product
``cast(segment_ids == s) * x`` (the ids get trailing 1-dims so they broadcast against ``x``)
and sums it over axis 0, then stacks the sums. So the result is float32 whatever ``x``'s
dtype, ids outside ``[0, num_segments)`` are dropped, and a NaN or infinite value of ``x``
spoils every segment (0 * NaN is NaN). The sums accumulate in doubles, as TF.js's Sum does.
"""

from __future__ import annotations

import math

from ... import kernel_names as k
from ...geometry.broadcast import assert_and_get_broadcast_shape

#: Above this many mask values, segments are summed one at a time to bound memory.
_VECTORIZED_LIMIT = 1 << 22


def unsorted_segment_sum(x, segment_ids, *, xp, num_segments):
    ids = segment_ids.reshape(segment_ids.shape + (1,) * max(0, x.ndim - segment_ids.ndim))
    shape = assert_and_get_broadcast_shape(ids.shape, x.shape)
    values = xp.broadcast_to(x.astype(xp.float32, copy=False), shape).astype(xp.float64)
    ids = xp.broadcast_to(ids, shape)
    size = math.prod(shape)
    if num_segments * size <= _VECTORIZED_LIMIT:
        segments = xp.arange(num_segments, dtype=xp.int32).reshape(
            (num_segments,) + (1,) * len(shape)
        )
        mask = (ids[None] == segments).astype(xp.float64)
        out = (mask * values[None]).sum(axis=1)
    else:
        out = xp.stack([((ids == s) * values).sum(axis=0) for s in range(num_segments)])
    return out.astype(xp.float32)


KERNELS = {k.UNSORTED_SEGMENT_SUM: unsorted_segment_sum}
