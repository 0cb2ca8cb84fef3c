"""A stand-in ``cupy`` (and ``cupyx``) built on NumPy, for testing the ``'cupy'`` backend on
machines without a GPU (CI): registration, transfers between backends, memory pools and their
settings, out-of-memory handling, logical devices and ``tf.device`` placement.

* Device arrays are :class:`DeviceArray`, a NumPy subclass, so a test can tell where a buffer
  lives (``type(values) is DeviceArray``); ``.get()`` gives a plain host array.
* Arrays made by the module's constructors (``asarray``, ``array``, ``zeros``, ``ones``,
  ``full``, ``empty``, ``zeros_like``, ``ones_like``; other results are plain NumPy arrays,
  which the backend uploads) take their bytes from the current allocator (``cuda.set_allocator``),
  a :class:`MemoryPool` with CuPy's ``malloc``/``used_bytes``/``total_bytes``/
  ``free_all_blocks``/``set_limit``/``get_limit``; freed arrays' blocks stay cached in the pool.
  An allocation past the limit raises ``cuda.memory.OutOfMemoryError`` with CuPy's message and
  (unlike CuPy's own pool) does not free cached blocks itself, so the backend's own retry is
  what frees them.
* Like CuPy, the module has no ``errstate`` (``cupyx.errstate`` has it).

Only for tests: never imported by ``src``. :func:`install` puts it into ``sys.modules``.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

DEVICE_TOTAL = 16 << 30
BLOCK = 512


class OutOfMemoryError(MemoryError):
    def __init__(self, size: int, total: int, limit: int = 0) -> None:
        msg = f"Out of memory allocating {size:,} bytes (allocated so far: {total:,} bytes"
        msg += f", limit set to: {limit:,} bytes)." if limit else ")."
        super().__init__(msg)


class Memory:
    """An allocation: its bytes go back to the pool's cache when it is garbage-collected."""

    def __init__(self, pool: MemoryPool, size: int) -> None:
        self.pool = pool
        self.size = size

    def __del__(self) -> None:
        self.pool._used -= self.size
        self.pool._cached += self.size


class MemoryPool:
    def __init__(self) -> None:
        self._used = 0
        self._cached = 0
        self._limit = 0
        self.mallocs = 0
        self.frees = 0
        #: Set by a test: the next ``fail_next`` allocations raise OutOfMemoryError.
        self.fail_next = 0

    def malloc(self, size: int) -> Memory:
        size = -(-max(size, 1) // BLOCK) * BLOCK
        if self.fail_next > 0:
            self.fail_next -= 1
            raise OutOfMemoryError(size, self.total_bytes(), self._limit)
        if self._cached >= size:
            self._cached -= size
        elif self._limit and self.total_bytes() + size > self._limit:
            raise OutOfMemoryError(size, self.total_bytes(), self._limit)
        self._used += size
        self.mallocs += 1
        return Memory(self, size)

    def used_bytes(self) -> int:
        return self._used

    def total_bytes(self) -> int:
        return self._used + self._cached

    def free_bytes(self) -> int:
        return self._cached

    def free_all_blocks(self) -> None:
        self.frees += 1
        self._cached = 0

    def set_limit(self, size: int | None = None, fraction: float | None = None) -> None:
        if fraction is not None:
            size = int(DEVICE_TOTAL * fraction)
        self._limit = int(size or 0)

    def get_limit(self) -> int:
        return self._limit


class DeviceArray(np.ndarray):
    """A "device" array: NumPy underneath, a type of its own."""

    def get(self) -> np.ndarray:
        return self.view(np.ndarray).copy()


_DEFAULT_POOL = MemoryPool()
_state: dict[str, Any] = {"allocator": _DEFAULT_POOL.malloc}


def _on_device(host: np.ndarray) -> DeviceArray:
    arr = np.array(host, copy=True).view(DeviceArray)
    arr._mem = _state["allocator"](arr.nbytes)
    return arr


def asarray(values: Any, dtype: Any = None, **_: Any) -> DeviceArray:
    if type(values) is DeviceArray and (dtype is None or values.dtype == np.dtype(dtype)):
        return values
    host = np.asarray(values.view(np.ndarray) if isinstance(values, DeviceArray) else values)
    if host.dtype.kind in "OUS":
        raise TypeError(f"Unsupported dtype {host.dtype}")  # CuPy holds no strings
    return _on_device(host.astype(dtype) if dtype is not None else host)


def array(values: Any, dtype: Any = None, copy: bool = True, **_: Any) -> DeviceArray:
    return _on_device(np.array(np.asarray(values), dtype=dtype))


def _made_by(fn: Any) -> Any:
    def make(*args: Any, **kwargs: Any) -> DeviceArray:
        return _on_device(fn(*args, **kwargs))

    return make


class _Device:
    def __init__(self, index: int = 0) -> None:
        self.id = index

    @property
    def mem_info(self) -> tuple[int, int]:
        return (DEVICE_TOTAL - _DEFAULT_POOL.total_bytes(), DEVICE_TOTAL)

    def synchronize(self) -> None:
        pass


def _set_allocator(allocator: Any = None) -> None:
    _state["allocator"] = allocator or _DEFAULT_POOL.malloc


#: Names of the functions the stand-in ``fuse`` ran, in order (tests check the fused path).
FUSED_CALLS: list[str] = []


def fuse(*args: Any, **_: Any) -> Any:
    """``cupy.fuse``: ``fuse(fn)`` or ``fuse()(fn)``. CuPy compiles ``fn``'s elementwise
    calls into one kernel with the same results as running them one by one, which is what
    the stand-in does (on the stand-in's ufuncs, NumPy's), noting each call."""

    def wrap(fn: Any) -> Any:
        def fused(*arrays: Any) -> Any:
            FUSED_CALLS.append(fn.__name__)
            return fn(*arrays)

        return fused

    return wrap(args[0]) if args and callable(args[0]) else wrap


def build() -> tuple[types.ModuleType, types.ModuleType]:
    """A fresh ``cupy`` and ``cupyx`` pair."""
    cupy = types.ModuleType("cupy")
    cupy.__dict__.update(
        ndarray=DeviceArray,
        asarray=asarray,
        array=array,
        zeros=_made_by(np.zeros),
        ones=_made_by(np.ones),
        full=_made_by(np.full),
        empty=_made_by(np.empty),
        zeros_like=_made_by(lambda a, **kw: np.zeros_like(np.asarray(a).view(np.ndarray), **kw)),
        ones_like=_made_by(lambda a, **kw: np.ones_like(np.asarray(a).view(np.ndarray), **kw)),
        get_default_memory_pool=lambda: _DEFAULT_POOL,
        fuse=fuse,
        asnumpy=lambda a: np.array(a, copy=True).view(np.ndarray),
    )
    cuda = types.SimpleNamespace(
        MemoryPool=MemoryPool,
        memory=types.SimpleNamespace(OutOfMemoryError=OutOfMemoryError),
        runtime=types.SimpleNamespace(getDeviceCount=lambda: 1),
        Device=_Device,
        set_allocator=_set_allocator,
    )
    cupy.cuda = cuda

    def forward(name: str) -> Any:
        if name == "errstate":  # CuPy has none
            raise AttributeError(name)
        return getattr(np, name)

    cupy.__getattr__ = forward
    cupyx = types.ModuleType("cupyx")
    cupyx.errstate = np.errstate
    return cupy, cupyx


def install(monkeypatch: Any) -> types.ModuleType:
    """Puts a fresh stand-in into ``sys.modules`` (undone by ``monkeypatch``)."""
    cupy, cupyx = build()
    monkeypatch.setitem(__import__("sys").modules, "cupy", cupy)
    monkeypatch.setitem(__import__("sys").modules, "cupyx", cupyx)
    _set_allocator(None)
    return cupy
