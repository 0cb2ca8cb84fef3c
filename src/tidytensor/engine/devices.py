"""Devices as TensorFlow 2 names them, over the engine's backends: ``'/CPU:0'`` is the
``'cpu'`` backend, ``'/GPU:0'`` the ``'cupy'`` backend (logical GPU 0) and ``'/GPU:i'``
the backend ``'cupy:i'`` of logical GPU ``i`` (``tf.config.set_logical_device_configuration``
splits one physical GPU into several, each with its own memory pool and limit).

``with tf.device('/GPU:0'):`` makes that device's backend the active one for the block (and
restores the previous one after it). A tensor moves to the backend that uses it, as in
TF.js: the engine reads it from its owner and writes it into the user's backend on first
use (``BackendRegistry._check_input``).

Placement on a device that is not here (``'/GPU:0'`` on a machine without a GPU, or
``'/GPU:3'`` with two logical GPUs) raises ``InvalidArgumentError`` naming the device and
what is here. TF's soft placement (``tf.config.set_soft_device_placement(True)``) runs such
blocks on the CPU instead; it is off by default here, so that code meant for a GPU never runs
on the CPU unnoticed.

The GPU's memory settings (``GpuSettings``) live here, below the backends, so that
``tf.config`` can write them before the GPU backend starts; the backend reads them when it
starts and again whenever they change (``on_change``).
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..errors import InvalidArgumentError

__all__ = ["GpuSettings", "DeviceRegistry", "parse_device"]

_DEVICE = re.compile(
    r"^/?(?:job:[^/]+/)?(?:replica:\d+/)?(?:task:\d+/)?(?:device:|physical_device:)?"
    r"(?P<kind>[A-Za-z]+):(?P<index>\d+)$"
)


def parse_device(spec: Any) -> tuple[str, int]:
    """``('CPU' | 'GPU', index)`` from TF's device spellings (``'/GPU:0'``, ``'gpu:1'``,
    ``'/device:GPU:0'``, ``'/job:localhost/replica:0/task:0/device:CPU:0'``, a
    ``PhysicalDevice``)."""
    name = getattr(spec, "name", spec)
    if not isinstance(name, str):
        raise InvalidArgumentError(f"A device name must be a string such as '/GPU:0', got {spec!r}")
    match = _DEVICE.match(name.strip())
    if match is None or match["kind"].upper() not in ("CPU", "GPU"):
        raise InvalidArgumentError(
            f"Unknown device {name!r}: expected '/CPU:0' or '/GPU:<index>' (TF's device names)"
        )
    return match["kind"].upper(), int(match["index"])


@dataclass
class GpuSettings:
    """TF 2's GPU memory options, as set through ``tf.config`` (bytes, not megabytes)."""

    #: ``set_memory_growth``: None means the default, which is growth (CuPy's pool grows on
    #: demand); False reserves the device's whole budget when the backend starts, as TF does.
    memory_growth: bool | None = None
    #: TF 1's ``per_process_gpu_memory_fraction``: the pool's limit as a fraction of the
    #: device's memory.
    memory_fraction: float | None = None
    #: One entry per logical GPU: its ``memory_limit`` in bytes (None: no limit). None: one
    #: logical GPU per physical one.
    logical_limits: list[int | None] | None = None
    #: Called after a setting changes (a started GPU backend applies it to its pools).
    listeners: list[Callable[[], None]] = field(default_factory=list)

    def growth(self) -> bool:
        """Whether pools grow on demand: ``TF_FORCE_GPU_ALLOW_GROWTH`` (``true``/``false``)
        overrides ``set_memory_growth``, as in TF; the default is growth."""
        forced = os.environ.get("TF_FORCE_GPU_ALLOW_GROWTH", "").strip().lower()
        if forced in ("true", "1"):
            return True
        if forced in ("false", "0"):
            return False
        return True if self.memory_growth is None else self.memory_growth

    def num_logical(self) -> int:
        return 1 if not self.logical_limits else len(self.logical_limits)

    def limit_of(self, index: int) -> int | None:
        return self.logical_limits[index] if self.logical_limits else None

    def changed(self) -> None:
        for listener in list(self.listeners):
            listener()


class DeviceRegistry:
    """The devices an engine has: which backend runs each, and placement blocks."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.gpu = GpuSettings()
        self.soft_placement = False
        #: Set by a GPU backend's ``register``: ``provider(index)`` registers (if needed) and
        #: returns the backend name of logical GPU ``index``; ``provider(None)`` returns how
        #: many physical GPUs there are.
        self.gpu_provider: Callable[[int | None], Any] | None = None

    def gpu_backend_name(self, index: int) -> str:
        return "cupy" if index == 0 else f"cupy:{index}"

    def has_gpu(self) -> bool:
        return self.gpu_provider is not None

    def backend_for(self, spec: Any) -> str:
        """The backend name that runs ops placed on ``spec``."""
        kind, index = parse_device(spec)
        if kind == "CPU":
            if index != 0:
                raise InvalidArgumentError(
                    f"Unknown device '{kind}:{index}': tidytensor has one CPU device, '/CPU:0'"
                )
            return "cpu"
        if self.gpu_provider is None:
            if self.soft_placement:
                return "cpu"
            raise InvalidArgumentError(
                f"Cannot place ops on '/GPU:{index}': no GPU here (the 'cupy' backend is "
                "registered only when CuPy is installed, pip install 'tidytensor[cuda]', and an "
                "NVIDIA device is visible). Use '/CPU:0', or call "
                "tf.config.set_soft_device_placement(True) to run such blocks on the CPU."
            )
        count = self.gpu.num_logical()
        if index >= count:
            if self.soft_placement:
                return self.gpu_provider(0)
            raise InvalidArgumentError(
                f"Cannot place ops on '/GPU:{index}': there {'is' if count == 1 else 'are'} "
                f"{count} logical GPU{'' if count == 1 else 's'} ('/GPU:0'"
                f"{f' to /GPU:{count - 1}' if count > 1 else ''}); "
                "tf.config.set_logical_device_configuration makes more"
            )
        return self.gpu_provider(index)

    @contextlib.contextmanager
    def place(self, spec: Any) -> Iterator[None]:
        """``with tf.device(spec):`` ops in the block run on that device's backend."""
        name = self.backend_for(spec)
        engine = self.engine
        previous = engine.backend_name
        if previous != name:
            engine.set_backend(name)
        try:
            yield
        finally:
            if previous is not None and engine.backend_name != previous:
                engine.set_backend(previous)
