"""Engine-level calls: memory, profiling, timing, backends and flags."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .engine import ENGINE, Engine, MemoryInfo, ProfileInfo

__all__ = [
    "backend",
    "device",
    "disable_debug_mode",
    "enable_debug_mode",
    "engine",
    "find_backend",
    "get_backend",
    "memory",
    "profile",
    "ready",
    "register_backend",
    "remove_backend",
    "set_backend",
    "set_kernel_fusion",
    "set_site_tracking",
    "time",
]


def memory() -> MemoryInfo:
    """``num_tensors``, ``num_data_buffers``, ``num_bytes``, ``unreliable``, ``reasons``.

    >>> m = tf.memory()
    >>> sorted(k for k in vars(m) if k.startswith('num_'))
    ['num_bytes', 'num_data_buffers', 'num_tensors']
    """
    return ENGINE.memory()


def profile(fn: Callable[[], Any]) -> ProfileInfo:
    """Runs ``fn`` and reports ``new_bytes``, ``new_tensors``, ``peak_bytes`` and every kernel
    it ran. Tensors ``fn`` creates are not disposed (as in TF.js)."""
    return ENGINE.profile(fn)


def time(fn: Callable[[], Any]) -> Any:  # noqa: A001 - TF.js name
    """Runs ``fn`` and returns ``kernel_ms`` and ``wall_ms``. Its tensors are not disposed."""
    return ENGINE.time(fn)


def engine() -> Engine:
    """The engine (``tf.engine().reset()``, ``start_scope``...)."""
    return ENGINE


def set_backend(name: str) -> bool:
    """Makes ``name`` the active backend; False if it failed to initialize."""
    return ENGINE.set_backend(name)


def device(name: Any) -> Any:
    """``with tf.device('/GPU:0'):`` (or ``'/CPU:0'``, ``'/GPU:1'`` for a second logical GPU):
    the ops in the block run on that device's backend (``'cpu'``, ``'cupy'``, ``'cupy:1'``),
    and the previous backend is active again after it. A tensor made elsewhere moves to the
    backend that uses it, as in TF.js. A GPU that is not here raises ``InvalidArgumentError``
    unless ``tf.config.set_soft_device_placement(True)`` lets the block run on the CPU.

    >>> with tf.device('/CPU:0'):
    ...     tf.get_backend()
    'cpu'
    """
    return ENGINE.devices.place(name)


def get_backend() -> str | None:
    """The active backend's name, or None before the first op (as in TF.js)."""
    return ENGINE.get_backend()


def backend() -> Any:
    """The active backend instance (initializing the best one if needed)."""
    return ENGINE.backend


def ready() -> bool:
    """Initializes the best backend; always synchronous here."""
    return ENGINE.ready()


def register_backend(name: str, factory: Callable[[], Any], priority: int = 1) -> bool:
    return ENGINE.register_backend(name, factory, priority)


def remove_backend(name: str) -> None:
    ENGINE.remove_backend(name)


def find_backend(name: str) -> Any:
    return ENGINE.find_backend(name)


def enable_debug_mode() -> None:
    """Checks every float32 kernel output for NaN/Infinity and warns naming the kernel."""
    ENGINE.debug_mode = True
    ENGINE.update_mode()


def disable_debug_mode() -> None:
    ENGINE.debug_mode = False
    ENGINE.update_mode()


def set_site_tracking(enabled: bool) -> None:
    """Turns capture of creation/disposal sites on (default) or off (a little faster)."""
    ENGINE.track_sites = bool(enabled)


def set_kernel_fusion(enabled: bool) -> None:
    """Lets library code run one fused kernel (``Tidy...`` names: the Dense layer, the Layers
    losses, Adam's update) in place of TF.js's op-by-op kernels where nothing watches kernels
    one by one (on by default). Fused kernels give the same bits and leave the same counts;
    turned off, every op runs TF.js's kernels, as under ``tf.profile``."""
    ENGINE.fuse_kernels = bool(enabled)
