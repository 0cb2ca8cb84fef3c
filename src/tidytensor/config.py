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
from .engine.devices import parse_device
from .errors import InvalidArgumentError

__all__ = [
    "LogicalDeviceConfiguration",
    "experimental",
    "get_logical_device_configuration",
    "get_memory_growth",
    "get_soft_device_placement",
    "release_cached_memory",
    "set_memory_alert",
    "set_memory_growth",
    "set_per_process_memory_fraction",
    "set_soft_device_placement",
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


def _gpu_count() -> int:
    """Physical GPUs (0 without the GPU backend; asking imports CuPy)."""
    devices = ENGINE.devices
    return int(devices.gpu_provider(None)) if devices.has_gpu() else 0


def list_physical_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    """``PhysicalDevice('/physical_device:CPU:0', 'CPU')`` and one per visible GPU (with the
    ``'cupy'`` backend registered)."""
    kinds = ("CPU", "GPU") if device_type is None else (str(device_type).upper(),)
    found = []
    if "CPU" in kinds:
        found.append(PhysicalDevice("/physical_device:CPU:0", "CPU"))
    if "GPU" in kinds:
        found += [PhysicalDevice(f"/physical_device:GPU:{i}", "GPU") for i in range(_gpu_count())]
    return found


def list_logical_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    """``/device:CPU:0`` and ``/device:GPU:i`` for each logical GPU."""
    found = []
    for d in list_physical_devices(device_type):
        if d.device_type == "GPU":
            if d.name.endswith(":0"):
                found += [
                    PhysicalDevice(f"/device:GPU:{i}", "GPU")
                    for i in range(ENGINE.devices.gpu.num_logical())
                ]
        else:
            found.append(PhysicalDevice("/device:CPU:0", "CPU"))
    return found


def _check_device(device: Any, physical: bool = False) -> tuple[str, int]:
    """``('CPU' | 'GPU', index)`` of a device that is here, else ``InvalidArgumentError``."""
    name = device.name if isinstance(device, PhysicalDevice) else str(device)
    try:
        kind, index = parse_device(name)
    except InvalidArgumentError:
        kind, index = "", -1
    count = 1 if kind == "CPU" else 0
    if kind == "GPU" and ENGINE.devices.has_gpu():
        count = 1 if physical else ENGINE.devices.gpu.num_logical()
    if not 0 <= index < count:
        here = "'CPU:0'" + (f" and GPU:0 to GPU:{_gpu_last()}" if ENGINE.devices.has_gpu() else "")
        raise InvalidArgumentError(f"Unknown device {name!r}; the devices here are {here}")
    return kind, index


def _gpu_last() -> int:
    return ENGINE.devices.gpu.num_logical() - 1


def _gpu(index: int) -> Any:
    """The started logical GPU ``index`` (its memory pool), starting its backend if needed."""
    name = ENGINE.devices.backend_for(f"/GPU:{index}")
    backend = ENGINE.find_backend(name)
    if backend is None:
        raise InvalidArgumentError(f"The GPU backend {name!r} failed to start (see the warning)")
    return backend.gpu


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
    """TF's device configuration. On the CPU, one ``LogicalDeviceConfiguration(memory_limit=MB)``
    caps live tensor memory (``set_memory_limit``). On a GPU, one entry per logical GPU
    (``'/GPU:0'``, ``'/GPU:1'``...), each with its own memory pool and ``memory_limit``."""
    kind, _ = _check_device(device, physical=True)
    if not isinstance(logical_devices, (list, tuple)) or not logical_devices:
        raise InvalidArgumentError(
            "set_logical_device_configuration() takes a non-empty list of "
            f"LogicalDeviceConfiguration, got {logical_devices!r}"
        )
    limits = [_megabytes(c.memory_limit) for c in logical_devices]
    if kind == "GPU":
        ENGINE.devices.gpu.logical_limits = limits
        ENGINE.devices.gpu.changed()
        return
    if len(logical_devices) != 1:
        raise InvalidArgumentError(
            "tidytensor supports exactly one logical device configuration per device"
        )
    set_memory_limit(limits[0])


def get_logical_device_configuration(device: Any) -> list[LogicalDeviceConfiguration] | None:
    kind, _ = _check_device(device, physical=True)
    if kind == "GPU":
        limits = ENGINE.devices.gpu.logical_limits
        if limits is None:
            return None
        return [
            LogicalDeviceConfiguration(None if b is None else b / (1024 * 1024)) for b in limits
        ]
    limit = ENGINE.memory_limit
    return None if limit is None else [LogicalDeviceConfiguration(limit / (1024 * 1024))]


def _megabytes(mb: Any) -> int | None:
    if mb is None:
        return None
    if not isinstance(mb, (int, float)) or mb < 0:
        raise InvalidArgumentError(f"memory_limit is a number of megabytes >= 0, got {mb!r}")
    return int(mb * 1024 * 1024)


def get_memory_info(device: Any = "CPU:0") -> dict[str, int | None]:
    """``{'current', 'peak'}`` bytes (as TF), plus ``'limit'``. On the CPU: live tensor
    buffers and the arrays kernels keep between calls (Adam's flat update, the recurrent
    and convolution kernels' pools and workspaces: ``engine.kernel_scratch``). On a GPU: the logical GPU's memory pool's bytes in use (tensors and kernels'
    temporaries) and their peak, which CuPy's pool does not track."""
    kind, index = _check_device(device)
    if kind == "GPU":
        return _gpu(index).info()
    peak = ENGINE.peak_bytes  # brings the kernels' kept arrays up to date first
    return {"current": ENGINE.state.buffer_bytes, "peak": peak, "limit": ENGINE.memory_limit}


def reset_memory_stats(device: Any = "CPU:0") -> None:
    """Resets ``peak`` to the current bytes."""
    kind, index = _check_device(device)
    if kind == "GPU":
        _gpu(index).reset_peak()
        return
    ENGINE.reset_memory_stats()


def set_memory_growth(device: Any, enable: bool) -> None:
    """TF 2's ``allow_growth`` (the default here): the GPU's pools grow on demand. ``False``
    makes each pool take its whole budget (its limit, else 90% of the free device memory)
    from the device when it starts, as TF does. ``TF_FORCE_GPU_ALLOW_GROWTH=true|false``
    overrides it."""
    kind, _ = _check_device(device, physical=True)
    if kind != "GPU":
        raise InvalidArgumentError(f"set_memory_growth() takes a GPU device, got {device!r}")
    ENGINE.devices.gpu.memory_growth = bool(enable)
    ENGINE.devices.gpu.changed()


def get_memory_growth(device: Any) -> bool:
    kind, _ = _check_device(device, physical=True)
    return ENGINE.devices.gpu.growth() if kind == "GPU" else False


def set_per_process_memory_fraction(fraction: float | None, device: Any = "GPU:0") -> None:
    """TF 1's ``per_process_gpu_memory_fraction``: the GPU memory pool's limit, as a fraction
    (0 < fraction <= 1) of the device's memory; ``None`` removes it. A logical GPU's own
    ``memory_limit`` takes precedence."""
    _check_device(device, physical=True)
    if fraction is not None and (not isinstance(fraction, (int, float)) or not 0 < fraction <= 1):
        raise InvalidArgumentError(
            f"set_per_process_memory_fraction() takes a fraction in (0, 1] or None, got "
            f"{fraction!r}"
        )
    ENGINE.devices.gpu.memory_fraction = None if fraction is None else float(fraction)
    ENGINE.devices.gpu.changed()


def release_cached_memory(device: Any = "GPU:0") -> int:
    """Returns the memory pool's cached, unused blocks to the device; returns how many bytes
    went back (0 on the CPU, which caches nothing)."""
    kind, index = _check_device(device)
    return _gpu(index).release_cached() if kind == "GPU" else 0


def set_soft_device_placement(enabled: bool) -> None:
    """TF's soft placement: with it, ``tf.device('/GPU:i')`` for a GPU that is not here runs
    the block on the CPU (or on GPU:0) instead of raising. Off by default here."""
    ENGINE.devices.soft_placement = bool(enabled)


def get_soft_device_placement() -> bool:
    return ENGINE.devices.soft_placement


def set_memory_alert(level_bytes: int | None, callback: Any = None) -> None:
    """A soft threshold on every backend: when live tensor buffer bytes cross
    ``level_bytes``, ``callback(info)`` runs (or a ``tf.MemoryAlertWarning`` is issued), once
    per crossing. ``None`` turns it off. Nothing is refused (``set_memory_limit`` refuses)."""
    if level_bytes is not None and (not isinstance(level_bytes, (int, float)) or level_bytes < 0):
        raise InvalidArgumentError(
            f"set_memory_alert() takes a number of bytes >= 0 or None, got {level_bytes!r}"
        )
    if callback is not None and not callable(callback):
        raise InvalidArgumentError(
            f"set_memory_alert()'s callback must be callable, got {callback!r}"
        )
    ENGINE.set_memory_alert(level_bytes, callback)


class _Experimental:
    """``tf.config.experimental``: TF 2's spellings of the memory settings."""

    set_memory_growth = staticmethod(set_memory_growth)
    get_memory_growth = staticmethod(get_memory_growth)
    get_memory_info = staticmethod(get_memory_info)
    reset_memory_stats = staticmethod(reset_memory_stats)
    set_per_process_memory_fraction = staticmethod(set_per_process_memory_fraction)
    release_cached_memory = staticmethod(release_cached_memory)
    set_virtual_device_configuration = staticmethod(set_logical_device_configuration)
    list_physical_devices = staticmethod(list_physical_devices)
    list_logical_devices = staticmethod(list_logical_devices)
    set_memory_alert = staticmethod(set_memory_alert)


experimental = _Experimental()
