"""A backend over an array module ``xp`` (NumPy or CuPy): buffers are arrays with refcounts.

Kernels are written once against ``xp`` in ``xp_kernels/<family>.py``: each module has
``KERNELS`` (functions ``fn(*arrays, xp, **attrs) -> array | list[array]``) and may have
``RAW_KERNELS`` (functions ``fn(inputs, attrs, backend) -> TensorInfo``) for kernels that
share their input's buffer instead of computing (reshape, identity...).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from ..dtypes import DTYPE_OF_STORAGE, DTYPE_OF_USER_ARRAY, NUMPY_DTYPE, STRING
from ..kernel_registry import KernelConfig, register_kernel
from . import Backend

#: The kernel families, one module each under xp_kernels/ (an explicit list, not discovery).
FAMILIES = (
    "creation",
    "random",
    "arithmetic",
    "basic_math",
    "reduction",
    "matrices",
    "logical",
    "transformations",
    "slicing_joining",
)


class DataId:
    """An opaque buffer key, hashed by identity."""

    __slots__ = ()


class ArrayBackend(Backend):
    """Buffers are ``[array, refcount]`` records keyed by :class:`DataId`."""

    name = "array"
    xp: Any = None
    complex_counts_three = False

    def __init__(self) -> None:
        self._data: dict[DataId, list] = {}

    # ------------------------------------------------------------------ storage
    def write(self, values: Any, shape: tuple[int, ...], dtype: str) -> DataId:
        data_id = DataId()
        self._data[data_id] = [values, 1]
        return data_id

    def write_array(self, arr: Any) -> tuple[DataId, tuple[int, ...], str]:
        """Stores a kernel's output array; returns its TensorInfo."""
        dtype = DTYPE_OF_STORAGE.get(arr.dtype)
        if dtype is None:
            arr, dtype = self._normalize(arr)
        data_id = DataId()
        self._data[data_id] = [arr, 1]
        return (data_id, arr.shape, dtype)

    def _normalize(self, arr: Any) -> tuple[Any, str]:
        dtype = DTYPE_OF_USER_ARRAY.get(arr.dtype)
        if dtype is None:
            if arr.dtype.kind in "US":
                dtype = STRING
            else:
                raise TypeError(f"Backend '{self.name}' cannot store arrays of dtype {arr.dtype}")
        return self.xp.asarray(arr, dtype=NUMPY_DTYPE[dtype]), dtype

    def read_sync(self, data_id: DataId, shape: tuple[int, ...]) -> Any:
        values = self._data[data_id][0]
        return values if values.shape == shape else values.reshape(shape)

    def share(self, x: Any, shape: tuple[int, ...], dtype: str | None = None) -> tuple:
        """A TensorInfo viewing ``x``'s buffer with another shape: no copy, refcount + 1."""
        self._data[x.data_id][1] += 1
        return (x.data_id, shape, dtype or x.dtype)

    def array(self, t: Any) -> Any:
        """The array behind a tensor (or TensorInfo-like), viewed with its shape."""
        values = self._data[t.data_id][0]
        shape = t._shape
        return values if values.shape == shape else values.reshape(shape)

    def dispose_data(self, data_id: DataId, force: bool = False) -> bool:
        record = self._data.get(data_id)
        if record is None:
            return False
        record[1] -= 1
        if force or record[1] <= 0:
            del self._data[data_id]
            return True
        return False

    def inc_ref(self, data_id: DataId) -> None:
        self._data[data_id][1] += 1

    def ref_count(self, data_id: DataId) -> int:
        record = self._data.get(data_id)
        return record[1] if record is not None else 0

    def num_data_ids(self) -> int:
        return len(self._data)

    def string_bytes(self, data_id: DataId) -> int:
        return sum(len(s.encode("utf-8")) for s in self._data[data_id][0].reshape(-1))

    def count_non_finite(self, data_id: DataId) -> str | None:
        values = self._data[data_id][0]
        xp = self.xp
        if bool(xp.isnan(values).any()):
            return "NaN"
        if bool(xp.isinf(values).any()):
            return "Infinity"
        return None

    def memory(self) -> dict[str, Any]:
        return {
            "unreliable": True,
            "reasons": [
                "The reported memory is an upper bound. Due to automatic garbage collection, "
                "the true allocated memory may be less."
            ],
        }

    def dispose(self) -> None:
        self._data.clear()

    # ------------------------------------------------------------------ kernels
    @classmethod
    def register_kernels(cls, backend_name: str) -> None:
        """Registers every family's kernels for ``backend_name``."""
        for family in FAMILIES:
            module = importlib.import_module(f"{__package__}.xp_kernels.{family}")
            for kernel_name, fn in getattr(module, "KERNELS", {}).items():
                register_kernel(KernelConfig(kernel_name, backend_name, XpKernel(kernel_name, fn)))
            for kernel_name, fn in getattr(module, "RAW_KERNELS", {}).items():
                register_kernel(KernelConfig(kernel_name, backend_name, fn))


class XpKernel:
    """Adapts ``fn(*arrays, xp, **attrs)`` to the registry's kernel signature."""

    __slots__ = ("name", "fn")

    def __init__(self, name: str, fn: Callable[..., Any]):
        self.name = name
        self.fn = fn

    def __call__(self, inputs: tuple, attrs: Any, backend: ArrayBackend) -> Any:
        return self.bind(backend)(inputs, attrs)

    def bind(self, backend: ArrayBackend) -> Callable[[tuple, Any], Any]:
        fn, xp, data, write = self.fn, backend.xp, backend._data, backend.write_array

        def kernel(inputs: tuple, attrs: Any) -> Any:
            arrays = []
            for t in inputs:
                values = data[t.data_id][0]
                shape = t._shape
                arrays.append(values if values.shape == shape else values.reshape(shape))
            out = fn(*arrays, xp=xp, **attrs) if attrs else fn(*arrays, xp=xp)
            if isinstance(out, (list, tuple)):
                return [write(o) for o in out]
            return write(out)

        return kernel
