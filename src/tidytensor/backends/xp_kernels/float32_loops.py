"""The compiled float32 loops (``_float32_c``, built from ``_float32_c.pyx`` by
``pip install .`` beside the per-op core), or None where they do not run.

A kernel with a compiled loop keeps its NumPy code as the readable reference: the loop does
the same float32 operations in the same order (the same bits), and the reference runs
wherever the loop is missing (no C compiler at install, a source checkout not built), where
``TIDYTENSOR_PURE_PYTHON=1`` is set (the switch that also forces the pure-Python per-op core,
so CI's second run exercises every reference), or where the loop refuses its arrays (not
C-contiguous native float32 NumPy buffers: CuPy arrays, other dtypes, strided views).
"""

from __future__ import annotations

import importlib
import logging
import os
from types import ModuleType

__all__ = ["LOOPS", "FALLBACK_REASON", "compiled_steps", "load"]


def load() -> tuple[ModuleType | None, str | None]:
    """The compiled loops' module and None, or None and why it does not run."""
    if os.environ.get("TIDYTENSOR_PURE_PYTHON", "").strip() not in ("", "0"):
        return None, "TIDYTENSOR_PURE_PYTHON is set"
    try:
        # Loaded by name: a compiled module has no .py file for the import graphs to read.
        return importlib.import_module(f"{__package__}._float32_c"), None
    except ImportError as exc:
        return None, f"the compiled float32 loops are not built ({exc})"


#: ``_float32_c``, or None (the kernels run their NumPy reference).
LOOPS, FALLBACK_REASON = load()
if FALLBACK_REASON is not None:  # the per-op core's notice already says why, when it is missing
    logging.getLogger("tidytensor").debug("tidytensor: %s; NumPy kernels run", FALLBACK_REASON)


def compiled_steps(name: str, *arrays):
    """``LOOPS.<name>(*arrays)``: a compiled stepper over a kernel's arrays (the LSTM
    sequence kernels' ``lstm_forward_steps`` and ``lstm_backward_steps``), or None where the
    loops do not run or refuse the arrays; the kernel then runs its NumPy reference."""
    make = getattr(LOOPS, name, None)  # None too from a build older than the stepper
    return None if make is None else make(*arrays)
