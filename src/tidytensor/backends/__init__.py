"""Backends: where buffers live and kernels run. They know nothing about scopes or tensors'
lifetimes; the engine tells them when a handle is added (``inc_ref``) or dropped
(``dispose_data``).

Layer: above the engine (a backend registers itself with ``ENGINE``) and ``tensor_util``;
below the ops, which they never import (a contract in ``pyproject.toml``): kernels are
registered by kernel name in ``kernel_registry`` and found by the engine."""

from __future__ import annotations

import warnings
from typing import Any

# Kernels follow IEEE semantics silently, as TF.js does (1/0 is Infinity, int32 wraps):
# NumPy's floating-point warnings raised inside kernel code are not the user's concern.
# (Where a user turned warnings into errors, the engine reruns the kernel quietly.)
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"tidytensor\.backends\.")


class Backend:
    """The storage interface every backend implements (TF.js's ``KernelBackend``)."""

    name = "abstract"

    def _missing(self, method: str) -> NotImplementedError:
        return NotImplementedError(
            f"'{method}' not yet implemented or not found in the registry. This kernel may not be "
            f"supported by the backend '{self.name}' you have chosen"
        )

    def write(self, values: Any, shape: tuple[int, ...], dtype: str) -> Any:
        """Stores ``values`` and returns a new data id with refcount 1."""
        raise self._missing("write")

    def read_sync(self, data_id: Any, shape: tuple[int, ...]) -> Any:
        raise self._missing("read_sync")

    def dispose_data(self, data_id: Any, force: bool = False) -> bool:
        """Drops one reference; returns True when the buffer was freed."""
        raise self._missing("dispose_data")

    def inc_ref(self, data_id: Any) -> None:
        raise self._missing("inc_ref")

    def ref_count(self, data_id: Any) -> int:
        raise self._missing("ref_count")

    def num_data_ids(self) -> int:
        raise self._missing("num_data_ids")

    def memory(self) -> dict[str, Any]:
        raise self._missing("memory")

    def string_bytes(self, data_id: Any) -> int:
        raise self._missing("string_bytes")

    def float_precision(self) -> int:
        return 32

    def epsilon(self) -> float:
        return 1e-7

    def dispose(self) -> None:
        raise self._missing("dispose")
