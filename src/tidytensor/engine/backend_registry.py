"""The engine's backend registry: registering, initializing, choosing and disposing backends,
and binding the active backend's kernels into the engine's kernel table.

``BackendRegistry`` is mixed into ``Engine`` (``engine.py``); it uses the engine's
``_factories``, ``_registry``, ``backend_name``, ``_backend``, ``_kernels``,
``_same_shape_kernels`` and ``_fast_kernel_names``. Nothing here runs per op, except the
rare input that lives on another backend (``_check_input``).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from .. import kernel_registry
from ..errors import BackendNotFoundError, KernelNotRegisteredError
from ..tensor import Tensor, disposed_error
from .memory_guard import guard_kernels


class BackendRegistry:
    """Backend registration and lifecycle, as TF.js's engine does it (mixed into ``Engine``)."""

    def register_backend(self, name: str, factory: Callable[[], Any], priority: int = 1) -> bool:
        if name in self._factories:
            warnings.warn(
                f"{name} backend was already registered. Reusing existing backend factory.",
                stacklevel=2,
            )
            return False
        self._factories[name] = (factory, priority)
        return True

    def remove_backend(self, name: str) -> None:
        if name not in self._factories:
            raise BackendNotFoundError(f"{name} backend not found in registry")
        if self.backend_name == name:
            self._backend = None
            self.backend_name = None
            self._kernels = {}
        instance = self._registry.pop(name, None)
        if instance is not None:
            self._dispose_backend(name, instance)
        del self._factories[name]

    def find_backend(self, name: str) -> Any:
        if name not in self._registry and name in self._factories:
            self._initialize_backend(name)
        return self._registry.get(name)

    def find_backend_factory(self, name: str) -> Callable[[], Any] | None:
        entry = self._factories.get(name)
        return entry[0] if entry else None

    def registered_backends(self) -> list[str]:
        return list(self._factories)

    def _initialize_backend(self, name: str) -> bool:
        factory, _ = self._factories[name]
        try:
            instance = factory()
        except Exception as exc:  # a failing backend is skipped, as in TF.js
            warnings.warn(f"Initialization of backend {name} failed: {exc}", stacklevel=3)
            return False
        self._registry[name] = instance
        return True

    def set_backend(self, name: str) -> bool:
        if name not in self._factories:
            raise BackendNotFoundError(f"Backend name '{name}' not found in registry")
        if name not in self._registry and not self._initialize_backend(name):
            return False
        instance = self._registry[name]
        activate = getattr(instance, "activate", None)
        if activate is not None:  # a GPU backend makes its device and memory pool current
            activate()
        # The kernel tables first: another thread that sees the new backend finds its kernels.
        self._rebuild_kernel_table(backend=instance, name=name)
        self.backend_name = name
        self._backend = instance
        return True

    def get_backend(self) -> str | None:
        return self.backend_name

    @property
    def backend(self) -> Any:
        if self._backend is None:
            self._initialize_best_backend()
        return self._backend

    def ready(self) -> bool:
        self.backend  # noqa: B018 - initializes lazily
        return True

    def _initialize_best_backend(self) -> None:
        if not self._factories:
            raise BackendNotFoundError("No backend found in registry.")
        for name in sorted(self._factories, key=lambda n: -self._factories[n][1]):
            if name in self._registry or self._initialize_backend(name):
                self.set_backend(name)
                return
        raise BackendNotFoundError(
            "Could not initialize any backends, all backend initializations failed."
        )

    def _rebuild_kernel_table(
        self, setup: bool = True, backend: Any = None, name: str | None = None
    ) -> None:
        """Binds the active backend's kernels (or ``backend``'s, named ``name``, about to
        become active); runs their ``setup_func`` only when the backend is set (TF.js's
        ``setupRegisteredKernels``), not when a kernel is (un)registered."""
        if backend is None:
            name, backend = self.backend_name, self._backend
        table = {}
        same_shape = {}
        for config in kernel_registry.get_kernels_for_backend(name):
            if setup and config.setup_func is not None:
                config.setup_func(backend)
            table[config.kernel_name] = _bind(config.kernel_func, backend)
            bind_same_shape = getattr(config.kernel_func, "bind_same_shape", None)
            if bind_same_shape is not None and config.kernel_name in self._fast_kernel_names:
                fast = bind_same_shape(backend)
                if fast is not None:
                    same_shape[config.kernel_name] = fast
        if self.memory_limit is not None:
            # Each kernel checks its outputs' size first; the unchecked shortcuts go.
            table, same_shape = guard_kernels(self, table), {}
        self._kernels = table
        self._same_shape_kernels = same_shape

    def _on_kernels_changed(self, backend_name: str) -> None:
        if backend_name == self.backend_name and self._backend is not None:
            self._rebuild_kernel_table(setup=False)

    def _dispose_backend(self, name: str, instance: Any) -> None:
        """Runs the kernels' ``dispose_func`` then disposes the backend (TF.js's
        ``disposeRegisteredKernels`` + ``backend.dispose()``)."""
        for config in kernel_registry.get_kernels_for_backend(name):
            if config.dispose_func is not None:
                config.dispose_func(instance)
        instance.dispose()

    def _missing_kernel(self, kernel_name: str) -> Callable:
        """The kernel table had no entry: start the backend if none is, or raise."""
        self.backend  # noqa: B018 - lazy backend initialization
        kernel = self._kernels.get(kernel_name)
        if kernel is None:
            raise KernelNotRegisteredError(
                f"Kernel '{kernel_name}' not registered for backend '{self.backend_name}'"
            )
        return kernel

    def _check_input(self, t: Tensor, kernel_name: str, backend: Any) -> None:
        """A disposed input raises; a live one on another backend moves here (TF.js's moveData)."""
        data_id = t.data_id
        if t._disposed or data_id.refs <= 0 or not data_id.backend.alive:
            raise disposed_error(t, self._op_name(kernel_name))
        source = data_id.backend
        values = source.read_sync(data_id, data_id.shape)
        refs = data_id.refs
        source.dispose_data(data_id, True)
        if self.check_kernel_leaks:  # not while a kernel counts the backend's buffers
            with self._leak_check_lock:
                moved = backend.write(values, data_id.shape, t.dtype)
        else:
            moved = backend.write(values, data_id.shape, t.dtype)
        data_id.values, data_id.backend, data_id.refs = moved.values, backend, refs


def _bind(kernel_func: Callable, backend: Any) -> Callable:
    def kernel(inputs: tuple, attrs: Any) -> Any:
        return kernel_func(inputs, attrs, backend)

    fast = getattr(kernel_func, "bind", None)
    return fast(backend) if fast is not None else kernel
