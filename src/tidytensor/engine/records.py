"""Plain records the engine hands out: ``tf.memory()``'s and ``tf.time()``'s results,
``tf.profile``'s result with its kernel calls and scope events, and what is left of a leaked
tensor. No engine logic lives here."""

from __future__ import annotations

import math
from typing import Any

from ..dtypes import BYTES_PER_ELEMENT, COMPLEX64

__all__ = [
    "KernelProfile",
    "LeakedTensor",
    "MemoryInfo",
    "ProfileInfo",
    "ScopeEvent",
    "TimingInfo",
]


class LeakedTensor:
    """What is left of a handle that was garbage-collected undisposed: enough to report it
    and to free its buffer (``tf.leaks()``, ``tf.dispose_leaked()``)."""

    __slots__ = ("id", "data_id", "_shape", "dtype", "_site", "_disposed", "_dispose_site")

    def __init__(self, tensor_id: int, data_id: Any, shape: tuple, dtype: str, site: Any):
        self.id = tensor_id
        self.data_id = data_id
        self._shape = shape
        self.dtype = dtype
        self._site = site
        self._disposed = False

    @property
    def nbytes(self) -> int:
        return (
            0
            if self.dtype == COMPLEX64
            else math.prod(self._shape) * BYTES_PER_ELEMENT.get(self.dtype, 0)
        )


class MemoryInfo:
    """``tf.memory()``: read by attribute (``num_tensors``...), as TF.js's fields."""

    def __init__(self, **fields: Any):
        self.__dict__.update(fields)

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items())
        return f"MemoryInfo({inner})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MemoryInfo) and self.__dict__ == other.__dict__


class KernelProfile:
    """One kernel call seen by ``tf.profile``."""

    __slots__ = (
        "name",
        "bytes_added",
        "total_bytes_snapshot",
        "tensors_added",
        "total_tensors_snapshot",
        "input_shapes",
        "output_shapes",
        "kernel_time_ms",
        "extra_info",
        "scope",
        "scope_id",
        "start_time",
    )

    def __init__(self, **fields: Any):
        for k, v in fields.items():
            setattr(self, k, v)

    def __repr__(self) -> str:
        return (
            f"KernelProfile(name={self.name!r}, bytes_added={self.bytes_added}, "
            f"total_bytes_snapshot={self.total_bytes_snapshot}, tensors_added={self.tensors_added}, "
            f"input_shapes={self.input_shapes}, output_shapes={self.output_shapes}, "
            f"kernel_time_ms={self.kernel_time_ms:.4f})"
        )


class ScopeEvent:
    """A scope opened (``kind='start'``) or closed (``'end'``, after it freed its tensors)
    while ``tf.profile`` ran: the scope boundaries of the profile's timeline."""

    __slots__ = (
        "kind",
        "name",
        "scope_id",
        "time",
        "total_bytes_snapshot",
        "total_tensors_snapshot",
    )

    def __init__(self, **fields: Any):
        for k, v in fields.items():
            setattr(self, k, v)

    def __repr__(self) -> str:
        return (
            f"ScopeEvent(kind={self.kind!r}, name={self.name!r}, "
            f"total_bytes_snapshot={self.total_bytes_snapshot})"
        )


class ProfileInfo:
    """``tf.profile(fn)``'s result."""

    def __init__(
        self,
        new_bytes: int,
        new_tensors: int,
        peak_bytes: float,
        kernels: list,
        result: Any,
        scope_events: list | None = None,
        start_time: float | None = None,
        start_bytes: int | None = None,
        start_tensors: int | None = None,
    ):
        self.new_bytes = new_bytes
        self.new_tensors = new_tensors
        self.peak_bytes = peak_bytes
        self.kernels = kernels
        self.result = result
        self.scope_events = scope_events if scope_events is not None else []
        #: ``time.perf_counter()`` when the profile started (as kernels' ``start_time``).
        self.start_time = start_time
        #: Live totals (``num_bytes``, ``num_tensors``) when the profile started.
        self.start_bytes = start_bytes
        self.start_tensors = start_tensors

    @property
    def kernel_names(self) -> list[str]:
        return list(dict.fromkeys(k.name for k in self.kernels))

    @property
    def timeline(self) -> list:
        """Kernel calls and scope boundaries in order, with times and the live totals after
        each (``tidytensor.viz.TimelineEvent``); ``tidytensor.viz.memory_timeline`` draws it."""
        from ..viz import timeline

        return timeline(self)

    def __repr__(self) -> str:
        return (
            f"ProfileInfo(new_bytes={self.new_bytes}, new_tensors={self.new_tensors}, "
            f"peak_bytes={self.peak_bytes}, kernel_names={self.kernel_names})"
        )


class TimingInfo(MemoryInfo):
    """``tf.time(fn)``'s result: ``kernel_ms`` and ``wall_ms``."""
