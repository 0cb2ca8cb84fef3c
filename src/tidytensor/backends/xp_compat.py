"""Every difference between NumPy and CuPy that the kernels meet, in one place.

Kernels are written once against an array module ``xp`` (``numpy`` or ``cupy``); where the
two differ, they call the helpers here with their ``xp`` instead of calling ``xp`` directly:

* ``errstate(xp, ...)``: NumPy's ``errstate``; CuPy has none (``cupyx.errstate`` exists and is
  used when present; GPU arithmetic raises no floating-point warnings, so else a no-op).
* ``ufunc_at(xp, ufunc_name, target, index, values)``: ``numpy.add.at``/``logical_or.at``;
  CuPy's ``add.at`` takes only int32/int64/uint32/uint64/float16/32/64, so bool and 8/16-bit
  integer targets go through an int32 copy (bool ``logical_or`` as a sum > 0).
* ``to_host(values)``: a device array as a host NumPy array (``.get()``), anything else as is.
* ``is_host(xp)``: whether ``xp`` is NumPy (the host).

CuPy itself is imported only through :func:`import_cupy` (the one import seam; tests put a
stand-in module into ``sys.modules`` to exercise the GPU backend on a machine without one)
and never by importing this module.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import re
import sys
from typing import Any

import numpy

__all__ = [
    "cupy_installed",
    "device_present",
    "errstate",
    "import_cupy",
    "is_host",
    "to_host",
    "ufunc_at",
]

#: The dtypes CuPy's ``add.at`` accepts (CuPy 14).
_AT_DTYPES = frozenset("int32 int64 uint32 uint64 float16 float32 float64".split())


def import_cupy() -> Any:
    """The ``cupy`` module (imported on first use; raises ``ImportError`` naming the extra)."""
    try:
        return importlib.import_module("cupy")
    except ImportError as exc:
        raise ImportError(
            "The 'cupy' backend needs CuPy: pip install 'tidytensor[cuda]' (CuPy's wheel for "
            "your CUDA major version: cupy-cuda12x or cupy-cuda13x)"
        ) from exc


def cupy_installed() -> bool:
    """Whether CuPy can be imported, found without importing it."""
    if sys.modules.get("cupy") is not None:
        return True
    try:
        return importlib.util.find_spec("cupy") is not None
    except (ImportError, ValueError):
        return False


def device_present() -> bool:
    """Whether an NVIDIA device is visible, found without importing CuPy (a ``/dev/nvidiaN``
    device node or ``/proc/driver/nvidia/gpus``). ``CUDA_VISIBLE_DEVICES`` set to ``""`` or
    ``-1`` hides every device, as CUDA itself does; otherwise ``TIDYTENSOR_GPU=1`` says there
    is one (where the driver's files are not visible, in some containers) and
    ``TIDYTENSOR_GPU=0`` that there is none."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and visible.strip() in ("", "-1"):
        return False
    forced = os.environ.get("TIDYTENSOR_GPU", "").strip()
    if forced in ("0", "1"):
        return forced == "1"
    try:
        if any(re.fullmatch(r"nvidia\d+", name) for name in os.listdir("/dev")):
            return True
    except OSError:
        pass
    try:
        return bool(os.listdir("/proc/driver/nvidia/gpus"))
    except OSError:
        return False


def is_host(xp: Any) -> bool:
    return xp is numpy


def errstate(xp: Any, **kwargs: str) -> Any:
    """``xp.errstate(**kwargs)``: NumPy's, ``cupyx.errstate`` on CuPy where it exists, else
    a context that does nothing (device kernels raise no floating-point warnings)."""
    if xp is numpy:
        return numpy.errstate(**kwargs)
    own = getattr(xp, "errstate", None)
    if own is not None:
        return own(**kwargs)
    try:
        cupyx = importlib.import_module("cupyx")
    except ImportError:
        return contextlib.nullcontext()
    shim = getattr(cupyx, "errstate", None)
    return shim(**kwargs) if shim is not None else contextlib.nullcontext()


def ufunc_at(xp: Any, ufunc: str, target: Any, index: Any, values: Any) -> Any:
    """``xp.<ufunc>.at(target, index, values)`` in place (``ufunc`` is ``"add"`` or
    ``"logical_or"``); returns ``target``."""
    if xp is numpy:
        getattr(numpy, ufunc).at(target, index, values)
        return target
    if ufunc == "logical_or":
        acc = xp.zeros(target.shape, dtype=xp.int32)
        xp.add.at(acc, index, xp.asarray(values).astype(xp.int32))
        target |= acc > 0
        return target
    if str(target.dtype) in _AT_DTYPES:
        xp.add.at(target, index, xp.asarray(values).astype(target.dtype, copy=False))
        return target
    # bool / int8 / uint8 / int16 targets: sum in int32, then wrap back as NumPy would.
    acc = target.astype(xp.int32)
    xp.add.at(acc, index, xp.asarray(values).astype(xp.int32))
    target[...] = acc.astype(target.dtype)
    return target


def to_host(values: Any) -> Any:
    """A device array as a host NumPy array; host values unchanged."""
    if type(values) is numpy.ndarray or isinstance(values, (numpy.generic, dict)):
        return values
    get = getattr(values, "get", None)
    return get() if get is not None else values
