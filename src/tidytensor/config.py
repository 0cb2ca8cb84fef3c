"""``tf.config``: memory budgets and memory statistics, as TensorFlow 2.x spells them.

>>> tf.config.set_memory_limit(1 << 30)
>>> sorted(tf.config.get_memory_info('CPU:0'))
['current', 'limit', 'peak']
>>> tf.config.set_memory_limit(None)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .engine import ENGINE
from .errors import InvalidArgumentError

__all__ = [
    "LogicalDeviceConfiguration",
    "functions_run_eagerly",
    "run_functions_eagerly",
    "PhysicalDevice",
    "get_memory_info",
    "get_memory_limit",
    "list_logical_devices",
    "list_physical_devices",
    "reset_memory_stats",
    "set_logical_device_configuration",
    "set_memory_limit",
]


@dataclass(frozen=True)
class PhysicalDevice:
    name: str
    device_type: str


@dataclass(frozen=True)
class LogicalDeviceConfiguration:
    """TF's device configuration; ``memory_limit`` is in megabytes (MiB), as in TF."""

    memory_limit: float | None = None
    experimental_priority: int | None = None


def _device_type() -> str:
    return "GPU" if ENGINE.get_backend() == "cupy" else "CPU"


def list_physical_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    kind = _device_type()
    if device_type is not None and device_type.upper() != kind:
        return []
    return [PhysicalDevice(f"/physical_device:{kind}:0", kind)]


def list_logical_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    return [
        PhysicalDevice(f"/device:{d.device_type}:0", d.device_type)
        for d in list_physical_devices(device_type)
    ]


def _check_device(device: Any) -> None:
    name = device.name if isinstance(device, PhysicalDevice) else str(device)
    if not any(name.endswith(f"{kind}:0") for kind in ("CPU", "GPU")):
        raise InvalidArgumentError(
            f"Unknown device {name!r}; tidytensor has one device, {_device_type()}:0"
        )


def set_memory_limit(limit_bytes: int | None) -> None:
    """Caps the bytes of live tensor buffers on every backend. An allocation past the cap
    raises ``ResourceExhaustedError`` naming the request, the op, the cap, the live total and
    the largest live tensors with their creation sites. Kernels and host-drawn ops check the
    size of what they will make before allocating it (``output_bounds``), so nothing is
    allocated or changed and the program can free memory and go on. ``None`` removes the
    cap (and the checks)."""
    if limit_bytes is not None and (not isinstance(limit_bytes, (int, float)) or limit_bytes < 0):
        raise InvalidArgumentError(
            f"set_memory_limit() takes a number of bytes >= 0 or None, got {limit_bytes!r}"
        )
    ENGINE.set_memory_limit(limit_bytes)


def run_functions_eagerly(run_eagerly: bool) -> None:
    """TF 2's ``tf.config.run_functions_eagerly``: True runs every ``tf.function`` (and every
    compiled training step) op by op, with no trace and no replay; False replays them again."""
    if not isinstance(run_eagerly, bool):
        raise InvalidArgumentError(
            f"run_functions_eagerly() takes True or False, but got {run_eagerly!r}"
        )
    ENGINE.run_functions_eagerly = run_eagerly


def functions_run_eagerly() -> bool:
    """Whether ``run_functions_eagerly(True)`` is in effect."""
    return ENGINE.run_functions_eagerly


def get_memory_limit() -> int | None:
    return ENGINE.memory_limit


def set_logical_device_configuration(
    device: Any, logical_devices: list[LogicalDeviceConfiguration]
) -> None:
    """TF's spelling of a memory cap: ``[LogicalDeviceConfiguration(memory_limit=MB)]``."""
    _check_device(device)
    if not isinstance(logical_devices, (list, tuple)) or len(logical_devices) != 1:
        raise InvalidArgumentError(
            "tidytensor supports exactly one logical device configuration per device"
        )
    mb = logical_devices[0].memory_limit
    set_memory_limit(None if mb is None else int(mb * 1024 * 1024))


def get_memory_info(device: Any = "CPU:0") -> dict[str, int | None]:
    """``{'current', 'peak'}`` bytes of live tensor buffers (as TF), plus ``'limit'``."""
    _check_device(device)
    state = ENGINE.state
    return {"current": state.buffer_bytes, "peak": ENGINE.peak_bytes, "limit": ENGINE.memory_limit}


def reset_memory_stats(device: Any = "CPU:0") -> None:
    """Resets ``peak`` to the current live bytes."""
    _check_device(device)
    ENGINE.reset_memory_stats()
