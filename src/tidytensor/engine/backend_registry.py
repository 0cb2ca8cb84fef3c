"""The engine's backend registry: registering, initializing, choosing and disposing backends,
and binding the active backend's kernels into the engine's kernel table.

``BackendRegistry`` is mixed into ``Engine`` (``engine.py``); it uses the engine's
``_factories``, ``_registry``, ``backend_name``, ``_backend``, ``_kernels``,
``_kernel_source``, ``_kernel_wrappers``, ``_same_shape_kernels`` and ``_fast_kernel_names``.
Nothing here runs per op, except the rare input that lives on another backend
(``_check_input``).

Kernel wrappers: whatever must wrap every kernel (the memory limit's guard,
``memory_guard.py``; tests' kernel recorders and checkers) registers a *wrapper*,
``wrapper(kernel_name, kernel) -> kernel``, with ``add_kernel_wrapper`` (or the
``kernels_wrapped`` context manager). The wrappers are applied, in the order they were
registered (the first one nearest the kernel), when a kernel is bound into the table; adding
or removing one makes a new table, bound again on demand. While any wrapper is registered the
fast op path's same-shape shortcuts are off (they would bypass the wrappers), so every kernel
call takes ``_dispatch`` and its wrapped kernel. With none registered nothing is wrapped and
nothing runs per op.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterator
from typing import Any

from .. import kernel_registry
from ..errors import BackendNotFoundError, KernelNotRegisteredError
from ..tensor import Tensor, disposed_error

#: A kernel wrapper: ``wrapper(kernel_name, kernel)`` returns the kernel to bind in its place
#: (``kernel`` itself to leave it bare); the kernels take and return what table kernels do.
KernelWrapper = Callable[[str, Callable], Callable]


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
            self._kernel_source = ({}, None, {}, ())
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

    # ================================================================ kernel wrappers
    def add_kernel_wrapper(self, wrapper: KernelWrapper) -> None:
        """Registers ``wrapper`` (see the module's doc): every kernel bound from now on is
        wrapped by it, around the wrappers registered before it. A wrapper is registered
        once; adding it again raises."""
        if wrapper in self._kernel_wrappers:
            raise ValueError(f"add_kernel_wrapper: {wrapper!r} is already registered")
        self._kernel_wrappers = (*self._kernel_wrappers, wrapper)
        self._on_wrappers_changed()

    def remove_kernel_wrapper(self, wrapper: KernelWrapper) -> None:
        """Unregisters ``wrapper``: the kernels are bound again without it."""
        if wrapper not in self._kernel_wrappers:
            raise ValueError(f"remove_kernel_wrapper: {wrapper!r} is not registered")
        self._kernel_wrappers = tuple(w for w in self._kernel_wrappers if w is not wrapper)
        self._on_wrappers_changed()

    @contextlib.contextmanager
    def kernels_wrapped(self, wrapper: KernelWrapper) -> Iterator[None]:
        """``wrapper`` is registered inside the ``with`` block (``add_kernel_wrapper``)."""
        self.add_kernel_wrapper(wrapper)
        try:
            yield
        finally:
            self.remove_kernel_wrapper(wrapper)

    def _on_wrappers_changed(self) -> None:
        if self._backend is not None:  # else the table is made when a backend is set
            self._rebuild_kernel_table(setup=False)

    # ================================================================ kernel table
    def _rebuild_kernel_table(
        self, setup: bool = True, backend: Any = None, name: str | None = None
    ) -> None:
        """Makes the active backend's kernels (or ``backend``'s, named ``name``, about to
        become active) the kernel table's source; runs their ``setup_func`` only when the
        backend is set (TF.js's ``setupRegisteredKernels``), not when a kernel is
        (un)registered.

        The table itself fills on demand: a kernel is bound to the backend the first time it
        is dispatched (``_missing_kernel``), so setting a backend (``engine.reset()`` and the
        first op after it, every test of the suite) costs the kernels used, not all ~190. The
        fast op path's two-input shortcuts are bound at once, when no kernel wrapper is
        registered (the shortcuts are not wrapped: with a wrapper, every call dispatches)."""
        if backend is None:
            name, backend = self.backend_name, self._backend
        configs = {}
        for config in kernel_registry.get_kernels_for_backend(name):
            if setup and config.setup_func is not None:
                config.setup_func(backend)
            configs[config.kernel_name] = config
        table: dict[str, Callable] = {}
        same_shape = {}
        wrappers = self._kernel_wrappers
        if not wrappers:
            for kernel_name in self._fast_kernel_names:
                config = configs.get(kernel_name)
                bind_same_shape = getattr(config and config.kernel_func, "bind_same_shape", None)
                fast = bind_same_shape(backend) if bind_same_shape is not None else None
                if fast is not None:
                    same_shape[kernel_name] = fast
        self._kernel_source = (table, backend, configs, wrappers)
        self._kernels = table
        self._same_shape_kernels = same_shape

    def _bind_kernel(self, kernel_name: str) -> Callable | None:
        """Binds one registered kernel of the table's backend into the table, wrapped by the
        table's kernel wrappers (None if the backend has no such kernel)."""
        table, backend, configs, wrappers = self._kernel_source
        config = configs.get(kernel_name)
        if config is None:
            return None
        kernel = _bind(config.kernel_func, backend)
        for wrapper in wrappers:
            kernel = wrapper(kernel_name, kernel)
        table[kernel_name] = kernel
        return kernel

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
        """The kernel table had no entry: start the backend if none is, bind the kernel, or
        raise (also the way to get one kernel of the active backend, bound)."""
        self.backend  # noqa: B018 - lazy backend initialization
        kernel = self._kernels.get(kernel_name) or self._bind_kernel(kernel_name)
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
