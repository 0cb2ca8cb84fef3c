"""Kernel and gradient registries: two dicts with loud edges.

A kernel is keyed by ``(kernel_name, backend_name)``; a gradient by ``kernel_name``
alone, since gradients are written with public ops and so run on any backend.

A kernel function has the signature ``kernel_func(inputs, attrs, backend)`` where
``inputs`` is the tuple of input tensors in the order listed in ``kernel_names/tfjs.py``
and ``attrs`` a dict (or None). It returns one output or a list of them; an output is
either a fresh buffer record (with ``shape`` and ``dtype`` attributes, as the array
backends' ``write_array`` returns) or a ``TensorInfo`` tuple ``(data_id, shape, dtype)``
viewing an existing buffer (as ``share`` returns).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from .errors import KernelNotRegisteredError


class TensorInfo(NamedTuple):
    """What a kernel returns: a backend buffer and how to view it."""

    data_id: Any
    shape: tuple[int, ...]
    dtype: str


@dataclass(frozen=True, slots=True)
class KernelConfig:
    kernel_name: str
    backend_name: str
    kernel_func: Callable[..., Any]
    setup_func: Callable[[Any], None] | None = None
    dispose_func: Callable[[Any], None] | None = None


@dataclass(frozen=True, slots=True)
class GradConfig:
    """How to differentiate one kernel.

    ``grad_func(dy, saved, attrs)`` returns one callable per input (or None where the
    input gets no gradient), each returning that input's gradient. ``dy`` is a tensor
    or, for kernels with several outputs, a list. ``saved`` holds the inputs named by
    ``inputs_to_save`` (positions), then the outputs flagged in ``outputs_to_save``.
    """

    kernel_name: str
    grad_func: Callable[..., Any]
    inputs_to_save: tuple[int, ...] = ()
    save_all_inputs: bool = False
    outputs_to_save: tuple[bool, ...] = ()


_kernels: dict[tuple[str, str], KernelConfig] = {}
#: ``get_kernels_for_backend``'s lists (every ``engine.reset()`` reads the active backend's).
_by_backend: dict[str, list[KernelConfig]] = {}
_grads: dict[str, GradConfig] = {}
_listeners: list[Callable[[str], None]] = []


def register_kernel(config: KernelConfig) -> None:
    key = (config.kernel_name, config.backend_name)
    if key in _kernels:
        warnings.warn(
            f"The kernel '{config.kernel_name}' for backend '{config.backend_name}' "
            "is already registered",
            stacklevel=2,
        )
    _kernels[key] = config
    _notify(config.backend_name)


def unregister_kernel(kernel_name: str, backend_name: str) -> None:
    if _kernels.pop((kernel_name, backend_name), None) is None:
        raise KernelNotRegisteredError(
            f"The kernel '{kernel_name}' for backend '{backend_name}' is not registered"
        )
    _notify(backend_name)


def get_kernel(kernel_name: str, backend_name: str) -> KernelConfig | None:
    return _kernels.get((kernel_name, backend_name))


def get_kernels_for_backend(backend_name: str) -> list[KernelConfig]:
    found = _by_backend.get(backend_name)
    if found is None:  # kept until a kernel of that backend is (un)registered
        found = _by_backend[backend_name] = [
            c for (_, b), c in _kernels.items() if b == backend_name
        ]
    return list(found)


def copy_registered_kernels(from_backend: str, to_backend: str) -> None:
    for config in get_kernels_for_backend(from_backend):
        register_kernel(
            KernelConfig(
                config.kernel_name,
                to_backend,
                config.kernel_func,
                config.setup_func,
                config.dispose_func,
            )
        )


def register_gradient(config: GradConfig) -> None:
    _grads[config.kernel_name] = config


def unregister_gradient(kernel_name: str) -> None:
    if _grads.pop(kernel_name, None) is None:
        raise KernelNotRegisteredError(
            f"The gradient '{kernel_name}' for backend is not registered"
        )


def get_gradient(kernel_name: str) -> GradConfig | None:
    return _grads.get(kernel_name)


def gradient_table() -> dict[str, GradConfig]:
    """The live table ``get_gradient`` reads (kernel name -> GradConfig): the compiled tape
    reads it directly while ``get_gradient`` is not wrapped. Never modify it."""
    return _grads


def registered_gradients() -> dict[str, GradConfig]:
    return dict(_grads)


def on_change(listener: Callable[[str], None]) -> None:
    """Calls ``listener(backend_name)`` whenever that backend's kernels change."""
    _listeners.append(listener)


def _notify(backend_name: str) -> None:
    _by_backend.pop(backend_name, None)
    for listener in _listeners:
        listener(backend_name)
