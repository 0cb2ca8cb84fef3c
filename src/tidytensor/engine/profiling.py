"""The engine's profiling: ``tf.profile`` (kernel calls and scope events with their memory
snapshots), ``tf.time``, and debug mode's check for NaN/Infinity in kernel results.

``Profiling`` is mixed into ``Engine`` (``engine.py``). While ``state.profiling`` is on,
kernels run under the dispatch route's ``KernelWatch`` (``watch.py``), which appends the
``KernelProfile`` entries; the scope functions call ``_record_scope_event``.
"""

from __future__ import annotations

import time as _time
import warnings
from collections.abc import Callable
from typing import Any

from .. import sites
from ..tensor import Tensor
from .records import ProfileInfo, ScopeEvent, TimingInfo
from .state import Scope


class Profiling:
    """``profile``, ``time`` and scope events (mixed into ``Engine``)."""

    def profile(self, query: Callable[[], Any]) -> ProfileInfo:
        state = self.state
        was_profiling, saved = state.profiling, state.profile_kernels
        saved_scopes = state.profile_scopes
        state.profiling = True
        state.profile_kernels = []
        state.profile_scopes = []
        self.update_mode()
        start_bytes, start_tensors = state.num_bytes, state.num_tensors
        start_time = _time.perf_counter()
        try:
            result = query()
        finally:
            kernels, scopes = state.profile_kernels, state.profile_scopes
            state.profiling = was_profiling
            state.profile_kernels = saved
            state.profile_scopes = saved_scopes
            if was_profiling:
                saved.extend(kernels)
                saved_scopes.extend(scopes)
            self.update_mode()
        peak = max((k.total_bytes_snapshot for k in kernels), default=float("-inf"))
        return ProfileInfo(
            new_bytes=state.num_bytes - start_bytes,
            new_tensors=state.num_tensors - start_tensors,
            peak_bytes=peak,
            kernels=kernels,
            result=result,
            scope_events=scopes,
            start_time=start_time,
            start_bytes=start_bytes,
            start_tensors=start_tensors,
        )

    def time(self, query: Callable[[], Any]) -> dict[str, float]:
        start = _time.perf_counter()
        query()
        wall = (_time.perf_counter() - start) * 1000.0
        return TimingInfo(kernel_ms=wall, wall_ms=wall)

    def _record_scope_event(self, kind: str, scope: Scope) -> None:
        state = self.state
        state.profile_scopes.append(
            ScopeEvent(
                kind=kind,
                name=scope.name,
                scope_id=scope.id,
                time=_time.perf_counter(),
                total_bytes_snapshot=state.num_bytes,
                total_tensors_snapshot=state.num_tensors,
            )
        )


def _check_finite(kernel_name: str, outputs: list[Tensor], inputs: tuple, backend: Any) -> None:
    """Debug mode: warns, at the user's line, about NaN or Infinity in a float32 result."""
    for t in outputs:
        if t.dtype != "float32":
            continue
        bad = backend.count_non_finite(t.data_id)
        if bad:
            shapes = ", ".join(str(list(i._shape)) for i in inputs)
            message = f"Found {bad} in the result of '{kernel_name}' (input shapes: {shapes})"
            site = t._site or sites.user_site(2)
            if site is None:
                warnings.warn(message, RuntimeWarning, stacklevel=2)
            else:  # attributed to the user's line that ran the op, not to the engine
                warnings.warn_explicit(
                    message, RuntimeWarning, site[0].co_filename, sites.line_of(site)
                )
