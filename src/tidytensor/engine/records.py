"""Plain records the engine hands out: ``tf.memory()``'s and ``tf.time()``'s results,
``tf.profile``'s result with its kernel calls and scope events, and what is left of a leaked
tensor, and a profile's ``timeline`` of events (which ``tidytensor.viz`` draws). No engine
logic lives here."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, NamedTuple

from ..dtypes import BYTES_PER_ELEMENT, COMPLEX64

__all__ = [
    "KernelProfile",
    "LeakedTensor",
    "MemoryInfo",
    "ProfileInfo",
    "ScopeEvent",
    "TimelineEvent",
    "TimingInfo",
    "timeline",
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

    # The fields every backend gives, declared for type checkers (no class attributes).
    num_tensors: int
    num_data_buffers: int
    num_bytes: int
    unreliable: bool
    reasons: list[str]

    if TYPE_CHECKING:

        def __getattr__(self, name: str) -> Any: ...  # a backend's own (num_bytes_in_gpu)

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
        each (``TimelineEvent``); ``tidytensor.viz.memory_timeline`` draws it."""
        return timeline(self)

    def __repr__(self) -> str:
        return (
            f"ProfileInfo(new_bytes={self.new_bytes}, new_tensors={self.new_tensors}, "
            f"peak_bytes={self.peak_bytes}, kernel_names={self.kernel_names})"
        )


class TimingInfo(MemoryInfo):
    """``tf.time(fn)``'s result: ``kernel_ms`` and ``wall_ms``."""


class TimelineEvent(NamedTuple):
    """One step of a profile's timeline.

    ``kind`` is ``'kernel'``, or ``'scope_start'`` / ``'scope_end'`` where the engine records
    scope boundaries. Times are milliseconds from the start of the profile; ``bytes`` and
    ``tensors`` are the live totals (``tf.memory()``'s ``num_bytes`` and ``num_tensors``)
    right after the event; ``scope`` is the innermost scope open during it.
    """

    index: int
    kind: str
    name: str
    start_ms: float
    end_ms: float
    bytes: int
    tensors: int
    scope: str | None
    scope_id: int | None = None


def timeline(profile: Any) -> list[TimelineEvent]:
    """The events of a ``tf.profile(...)`` result, in order.

    Kernel times come from the engine's clock where the profile recorded it (kernel
    ``start_time`` and the profile's ``start_time``); otherwise each kernel is taken to start
    when the previous one ended (cumulative kernel time). Scope boundaries are included
    where the profile recorded them (``scope_events``).
    """
    kernels = list(getattr(profile, "kernels", None) or [])
    t0 = getattr(profile, "start_time", None)
    timed = t0 is not None and all(getattr(k, "start_time", None) is not None for k in kernels)
    raw: list[tuple[float, int, TimelineEvent]] = []
    clock = 0.0
    for n, k in enumerate(kernels):
        if timed:
            start = (k.start_time - t0) * 1000.0
        else:
            start = clock
        end = start + float(k.kernel_time_ms)
        clock = end
        event = TimelineEvent(
            0,
            "kernel",
            k.name,
            start,
            end,
            int(k.total_bytes_snapshot),
            int(k.total_tensors_snapshot),
            _scope_name(k),
            getattr(k, "scope_id", None),
        )
        raw.append((end, n, event))
    if timed:
        for n, s in enumerate(getattr(profile, "scope_events", None) or []):
            at = (s.time - t0) * 1000.0
            event = TimelineEvent(
                0,
                "scope_" + s.kind,
                s.name,
                at,
                at,
                int(s.total_bytes_snapshot),
                int(s.total_tensors_snapshot),
                s.name,
                s.scope_id,
            )
            raw.append((at, len(kernels) + n, event))
        raw.sort(key=lambda item: (item[0], item[1]))
    return [event._replace(index=i) for i, (_, _, event) in enumerate(raw)]


def _scope_name(k: Any) -> str | None:
    """The scope a kernel ran in; None outside any scope (the engine collects a top-level
    op's temporaries in a private scope with a negative id)."""
    scope_id = getattr(k, "scope_id", None)
    if scope_id is not None and scope_id < 0:
        return None
    name = getattr(k, "scope", None)
    return None if name == "top-level op" else name
