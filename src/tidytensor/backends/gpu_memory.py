"""GPU memory for the ``'cupy'`` backend: one CuPy ``MemoryPool`` per logical GPU, with TF 2's
settings on top (``engine.devices.GpuSettings``):

* growth by default (CuPy's pool grows on demand); without growth (``set_memory_growth(gpu,
  False)`` or ``TF_FORCE_GPU_ALLOW_GROWTH=false``) the pool reserves its whole budget when it
  starts, as TF maps the device's memory up front;
* a per-process fraction (TF 1's ``per_process_gpu_memory_fraction``) as the pool's limit;
* a logical device's ``memory_limit`` as its own pool's limit;
* ``current`` (bytes the pool has handed out) and ``peak`` (CuPy's pool tracks none: every
  allocation through :meth:`LogicalGpu.malloc` updates it), ``reset_peak``;
* ``release_cached()``: the pool's cached, unused blocks go back to the device.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["LogicalGpu", "requested_bytes"]

#: Of the device's free memory, what a pool without growth and without a limit reserves (TF
#: leaves some for the CUDA context and libraries too).
RESERVE_SHARE = 0.9


class LogicalGpu:
    """One logical GPU: its pool, its limit and its peak."""

    def __init__(self, cp: Any, index: int, settings: Any) -> None:
        self.cp = cp
        self.index = index
        self.pool = cp.cuda.MemoryPool()
        self.peak = 0
        self.reserved_up_front = False
        self.apply(settings)

    @property
    def name(self) -> str:
        return f"GPU:{self.index}"

    def apply(self, settings: Any) -> None:
        """Applies the current settings: the pool's limit, and the up-front reservation when
        growth is off."""
        limit = settings.limit_of(self.index)
        if limit is not None:
            self.pool.set_limit(size=int(limit))
        elif settings.memory_fraction is not None:
            self.pool.set_limit(fraction=float(settings.memory_fraction))
        else:
            self.pool.set_limit(size=0)  # CuPy: 0 is no limit
        if not settings.growth() and not self.reserved_up_front:
            self.reserve()

    def limit(self) -> int | None:
        limit = int(self.pool.get_limit())
        return limit or None

    def reserve(self) -> None:
        """Takes the pool's whole budget from the device now and keeps it cached."""
        budget = self.limit()
        if budget is None:
            free, _total = self.cp.cuda.Device().mem_info
            budget = int(free * RESERVE_SHARE)
        budget -= budget % 512
        if budget > self.pool.total_bytes():
            block = self.pool.malloc(budget - self.pool.total_bytes())
            del block  # back to the pool's cache, still reserved from the device
        self.reserved_up_front = True

    def malloc(self, size: int) -> Any:
        """The allocator the backend installs: the pool's, tracking the peak."""
        pool = self.pool
        mem = pool.malloc(size)
        used = pool.used_bytes()
        if used > self.peak:
            self.peak = used
        return mem

    def current(self) -> int:
        return int(self.pool.used_bytes())

    def reserved(self) -> int:
        return int(self.pool.total_bytes())

    def peak_bytes(self) -> int:
        return max(self.peak, self.current())

    def reset_peak(self) -> None:
        self.peak = self.current()

    def release_cached(self) -> int:
        """Returns the pool's cached blocks to the device; returns how many bytes went."""
        before = self.reserved()
        self.pool.free_all_blocks()
        self.reserved_up_front = False
        return before - self.reserved()

    def info(self) -> dict[str, int | None]:
        return {"current": self.current(), "peak": self.peak_bytes(), "limit": self.limit()}


_REQUEST = re.compile(r"allocating ([\d,]+) bytes")


def requested_bytes(exc: BaseException) -> int | None:
    """The request size in CuPy's ``OutOfMemoryError`` message ("Out of memory allocating
    2,147,483,648 bytes (allocated so far: ...)")."""
    match = _REQUEST.search(str(exc))
    return int(match[1].replace(",", "")) if match else None
