"""The ``'cupy'`` backend: every xp kernel bound to ``xp=cupy`` on an NVIDIA GPU.

Registered (priority 2, above ``'cpu'``) by :func:`register` only when CuPy can be found
(``importlib.util.find_spec``: CuPy itself is imported when the backend starts, never by
importing tidytensor) and an NVIDIA device is visible (``xp_compat.device_present``).

* Buffers are CuPy arrays, allocated from the logical GPU's own memory pool
  (``gpu_memory.LogicalGpu``); ``'cupy:1'``, ``'cupy:2'``... are the further logical GPUs
  that ``tf.config.set_logical_device_configuration`` makes (``'/GPU:1'``...).
* String tensors stay on the host as NumPy arrays: a kernel with a string input (and every
  ``string`` family kernel) runs with ``xp=numpy`` on host copies of its inputs.
* Kernels whose CPU version is wrong for a GPU are replaced by the ``cupy_kernels`` families'
  (found by the same family name).
* A device out-of-memory error frees the pool's cached blocks and runs the kernel once more;
  if it fails again, ``ResourceExhaustedError`` names the op, the inputs' shapes, the request
  and the largest live tensors with their creation sites. Kernels make fresh outputs, so
  nothing was changed and the program can free memory and go on.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import numpy

from .. import kernel_registry
from ..dtypes import DTYPE_OF_STORAGE, NUMPY_DTYPE, STRING
from ..engine import ENGINE
from ..engine.memory import largest_live_lines
from ..errors import ResourceExhaustedError
from ..kernel_registry import KernelConfig
from .array_backend import FAMILIES, ArrayBackend, XpKernel, new_record
from .gpu_memory import LogicalGpu, requested_bytes
from .xp_compat import cupy_installed, device_present, import_cupy, to_host

__all__ = ["CupyBackend", "CupyKernel", "register"]

#: Families whose kernels always run on the host (their buffers are strings).
HOST_FAMILIES = ("string",)
#: GPU kernels replacing the xp ones, one module each under cupy_kernels/.
CUPY_FAMILIES = ("convolution", "fused", "pooling", "recurrent")

#: Started logical GPUs by index: their pools outlive backend instances (``engine.reset``).
_GPUS: dict[int, LogicalGpu] = {}


def logical_gpu(cp: Any, index: int) -> LogicalGpu:
    gpu = _GPUS.get(index)
    if gpu is None or gpu.cp is not cp:
        gpu = _GPUS[index] = LogicalGpu(cp, index, ENGINE.devices.gpu)
    return gpu


def _apply_settings() -> None:
    for gpu in _GPUS.values():
        gpu.apply(ENGINE.devices.gpu)


class _HostView:
    """The backend as a raw kernel with string inputs sees it: host arrays, ``xp=numpy``;
    what it writes goes into the real backend."""

    xp = numpy

    def __init__(self, backend: CupyBackend) -> None:
        self._backend = backend

    def __getattr__(self, name: str) -> Any:
        return getattr(self._backend, name)

    def array(self, t: Any) -> Any:
        return to_host(self._backend.array(t))


class CupyBackend(ArrayBackend):
    """Buffers are CuPy arrays on one logical GPU (strings: NumPy arrays on the host)."""

    name = "cupy"
    _kernels_registered: Any = None  # the cupy module the kernels were registered for

    def __init__(self, index: int = 0) -> None:
        cp = import_cupy()
        count = cp.cuda.runtime.getDeviceCount()
        if count < 1:
            raise RuntimeError("CuPy found no CUDA device")
        super().__init__()
        self.xp = cp
        self.index = index
        self.name = ENGINE.devices.gpu_backend_name(index)
        self.device_array = cp.ndarray
        self.oom_error = cp.cuda.memory.OutOfMemoryError
        self.gpu = logical_gpu(cp, index)
        self.host = _HostView(self)
        if CupyBackend._kernels_registered is not cp or not kernel_registry.get_kernel(
            "Add", "cupy"
        ):
            register_cupy_kernels()
            CupyBackend._kernels_registered = cp
        if self.name != "cupy" and not kernel_registry.get_kernel("Add", self.name):
            kernel_registry.copy_registered_kernels("cupy", self.name)
        self.activate()

    def activate(self) -> None:
        """Makes this logical GPU's pool the allocator of new CuPy arrays."""
        self.xp.cuda.set_allocator(self.gpu.malloc)

    # ------------------------------------------------------------------ storage
    def write(self, values: Any, shape: tuple[int, ...], dtype: str) -> Any:
        """Host values into a new device buffer; out of memory is retried once after
        returning cached blocks, then raised as ``ResourceExhaustedError``."""
        try:
            return super().write(values, shape, dtype)
        except self.oom_error as exc:
            what = _Pending(shape, dtype)
            return self.retry_after_oom(
                "", lambda: super(CupyBackend, self).write(values, shape, dtype), (what,), exc
            )

    def upload(self, values: Any) -> Any:
        """Host values into device arrays; strings stay on the host."""
        if isinstance(values, numpy.ndarray) and values.dtype.kind in "OUS":
            return values
        return self.xp.asarray(values)

    def write_array(self, arr: Any) -> Any:
        if type(arr) is not self.device_array:
            arr = numpy.asarray(arr) if not isinstance(arr, numpy.ndarray) else arr
            if arr.dtype.kind not in "OUS":
                arr = self.xp.asarray(arr)
        return super().write_array(arr)

    def _normalize(self, arr: Any) -> tuple[Any, str]:
        if isinstance(arr, numpy.ndarray):  # host strings
            dtype = STRING if arr.dtype.kind in "OUS" else None
            if dtype is not None:
                return arr.astype(object), dtype
        return super()._normalize(arr)

    def read_sync(self, data_id: Any, shape: tuple[int, ...], dtype: str | None = None) -> Any:
        """The values as a host NumPy array (a device-to-host copy)."""
        values = to_host(data_id.values)
        if dtype is not None and dtype is not data_id.dtype:
            values = values.astype(NUMPY_DTYPE[dtype])
        return values if data_id.shape == shape else values.reshape(shape)

    def count_non_finite(self, data_id: Any) -> str | None:
        if data_id.dtype == STRING:
            return None
        return super().count_non_finite(data_id)

    def memory(self) -> dict[str, Any]:
        fields = super().memory()
        fields["num_bytes_in_gpu"] = self.gpu.current()
        fields["num_bytes_in_gpu_reserved"] = self.gpu.reserved()
        return fields

    # ------------------------------------------------------------------ out of memory
    def retry_after_oom(
        self, kernel_name: str, run: Callable[[], Any], inputs: tuple, exc: BaseException
    ) -> Any:
        """Frees the pool's cached blocks and runs the kernel once more; raises
        ``ResourceExhaustedError`` if the device still cannot satisfy it."""
        self.gpu.release_cached()
        try:
            return run()
        except self.oom_error as again:
            raise self.out_of_memory(kernel_name, inputs, again) from again

    def out_of_memory(self, kernel_name: str, inputs: tuple, exc: BaseException) -> Exception:
        shapes = ", ".join(f"{t.dtype}{list(t._shape)}" for t in inputs)
        request = requested_bytes(exc)
        what = f"{request} bytes" if request is not None else "memory"
        limit = self.gpu.limit()
        op = ENGINE._op_name(kernel_name) or "tensor creation"
        where = (
            f"kernel '{kernel_name}' on inputs ({shapes})"
            if kernel_name
            else f"a new tensor {shapes}"
        )
        lines = [
            f"Out of memory on {self.gpu.name} in op '{op}' ({where}): could not allocate "
            f"{what}, with "
            f"{self.gpu.current()} bytes in use"
            + (f" and a limit of {limit} bytes" if limit else "")
            + " after returning cached blocks to the device. Nothing was changed; free "
            "tensors (or lower the batch size) and try again.",
        ]
        lines.extend(largest_live_lines(ENGINE.state.leaked))
        return ResourceExhaustedError("\n".join(lines))


class _Pending:
    """A tensor not made yet, as the out-of-memory message names it."""

    def __init__(self, shape: tuple[int, ...], dtype: str) -> None:
        self._shape = shape
        self.dtype = dtype


class CupyKernel(XpKernel):
    """An xp kernel on the GPU: host execution for strings, a retry after out-of-memory."""

    __slots__ = ("host_only",)

    def __init__(self, name: str, fn: Callable[..., Any], host_only: bool = False) -> None:
        super().__init__(name, fn)
        self.host_only = host_only

    @staticmethod
    def _writer(backend: CupyBackend) -> Callable[[Any], Any]:
        write = backend.write_array
        device_array = backend.device_array
        storage_dtype = DTYPE_OF_STORAGE.get

        def write_one(out: Any) -> Any:
            if type(out) is device_array:
                dtype = storage_dtype(out.dtype)
                if dtype is not None:
                    return new_record(out, backend, out.nbytes, dtype)
                return write(out)
            if isinstance(out, (list, tuple)):
                return [write_one(o) for o in out]
            return write(out)  # host values: strings stay, numbers go to the device

        return write_one

    def _host(self, backend: CupyBackend) -> Callable[[tuple, Any], Any]:
        fn, write_one = self.fn, self._writer(backend)

        def host(inputs: tuple, attrs: Any) -> Any:
            arrays = [to_host(backend.array(t)) for t in inputs]
            out = fn(*arrays, xp=numpy, **attrs) if attrs else fn(*arrays, xp=numpy)
            return write_one(out)

        return host

    def bind(self, backend: CupyBackend) -> Callable[[tuple, Any], Any]:
        host = self._host(backend)
        run = host if self.host_only else super().bind(backend)
        oom, name = backend.oom_error, self.name

        def kernel(inputs: tuple, attrs: Any) -> Any:
            for t in inputs:
                if t.dtype == STRING:
                    return host(inputs, attrs)
            if type(attrs) is dict and attrs.get("dtype") == STRING:
                return host(inputs, attrs)
            try:
                return run(inputs, attrs)
            except oom as exc:
                return backend.retry_after_oom(name, lambda: run(inputs, attrs), inputs, exc)

        return kernel


def _raw_kernel(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    """A raw kernel (``fn(inputs, attrs, backend)``) on the GPU: string inputs see the host
    view of the backend; out-of-memory is retried once."""

    def kernel(inputs: tuple, attrs: Any, backend: CupyBackend) -> Any:
        for t in inputs:
            if t.dtype == STRING:
                return fn(inputs, attrs, backend.host)
        try:
            return fn(inputs, attrs, backend)
        except backend.oom_error as exc:
            return backend.retry_after_oom(name, lambda: fn(inputs, attrs, backend), inputs, exc)

    kernel.__name__ = getattr(fn, "__name__", name)
    return kernel


def _family_tables(package: str, family: str) -> tuple[dict, dict]:
    module = importlib.import_module(f"{package}.{family}")
    return getattr(module, "KERNELS", {}), getattr(module, "RAW_KERNELS", {})


def register_cupy_kernels() -> None:
    """Registers every family's kernels for ``'cupy'``: the xp kernels, with the
    ``cupy_kernels`` families' GPU kernels in place of theirs."""
    table: dict[str, Any] = {}
    for family in FAMILIES:
        kernels, raw = _family_tables(f"{__package__}.xp_kernels", family)
        host_only = family in HOST_FAMILIES
        for kernel_name, fn in kernels.items():
            table[kernel_name] = CupyKernel(kernel_name, fn, host_only)
        for kernel_name, fn in raw.items():
            table[kernel_name] = _raw_kernel(fn, kernel_name)
    for family in CUPY_FAMILIES:
        kernels, raw = _family_tables(f"{__package__}.cupy_kernels", family)
        for kernel_name, fn in kernels.items():
            table[kernel_name] = CupyKernel(kernel_name, fn)
        for kernel_name, fn in raw.items():
            table[kernel_name] = _raw_kernel(fn, kernel_name)
    for kernel_name, func in table.items():
        if kernel_registry.get_kernel(kernel_name, "cupy") is not None:
            kernel_registry.unregister_kernel(kernel_name, "cupy")
        kernel_registry.register_kernel(KernelConfig(kernel_name, "cupy", func))


def _provider(engine: Any) -> Callable[[int | None], Any]:
    """The engine's GPU provider: the backend name of logical GPU ``index`` (registered on
    first use)."""

    def provide(index: int | None) -> Any:
        if index is None:
            return import_cupy().cuda.runtime.getDeviceCount()
        name = engine.devices.gpu_backend_name(index)
        if name not in engine.registered_backends():
            engine.register_backend(name, lambda: CupyBackend(index), 0)
        return name

    return provide


def register(engine: Any, force: bool = False) -> bool:
    """Registers ``'cupy'`` (priority 2) when CuPy is installed and a device is visible (or
    ``force``); returns whether it did. Imports nothing from CuPy."""
    if not force and not (cupy_installed() and device_present()):
        return False
    engine.devices.gpu_provider = _provider(engine)
    if _apply_settings not in engine.devices.gpu.listeners:
        engine.devices.gpu.listeners.append(_apply_settings)
    if "cupy" not in engine.registered_backends():
        engine.register_backend("cupy", CupyBackend, 2)
    return True
