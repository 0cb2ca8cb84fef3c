"""Which per-op core runs: the compiled one (``_handles_c``, built from ``_handles_c.pyx`` by
``pip install .``) or its Python reference (``_handles_py``).

``TIDYTENSOR_PURE_PYTHON=1`` forces the reference. Where the compiled core is missing (no C
compiler at install time, or a source checkout run without building it), the reference runs
and one notice is logged (logger ``tidytensor``): a warning for an installed package, a
debug message for a source checkout (``PYTHONPATH=src``), where that is expected.
``tf.engine_core()`` says which one runs.
"""

from __future__ import annotations

import importlib
import logging
import os
from pathlib import Path

__all__ = [
    "KIND",
    "BackendBase",
    "ContextBase",
    "QuickReplay",
    "CoreState",
    "EngineBase",
    "HandleBase",
    "RecordBase",
    "ReshapeKernel",
    "SameShapeKernel",
    "ScopeBase",
    "TAPE_CORE",
    "TapeNodeBase",
    "bind",
    "call_site",
    "dispatch",
    "dispose_record",
    "dispose_scope",
    "dispose_tensor",
    "fast_op",
    "live_handles",
    "make_tensor",
    "new_handle",
    "new_record",
    "run_kernel",
    "share_record",
]

#: Why the compiled core is not running (None while it runs).
FALLBACK_REASON: str | None = None

if os.environ.get("TIDYTENSOR_PURE_PYTHON", "").strip() not in ("", "0"):
    from . import _handles_py as _core

    FALLBACK_REASON = "TIDYTENSOR_PURE_PYTHON is set"
else:
    try:
        # Loaded by name: a compiled module has no .py file, and the import graphs
        # (lint-imports, tests/test_architecture.py) would read the import as one of the package.
        _core = importlib.import_module(f"{__package__}._handles_c")
    except ImportError as exc:
        from . import _handles_py as _core

        FALLBACK_REASON = f"the compiled core is not built ({exc})"
        _package = Path(__file__).resolve().parent
        _checkout = (
            _package.parent.name == "src" and (_package.parents[1] / "pyproject.toml").exists()
        )
        logging.getLogger("tidytensor").log(
            logging.DEBUG if _checkout else logging.WARNING,
            "tidytensor: %s; the pure-Python engine runs (correct, but each op costs more). "
            "Reinstall with a C compiler available (pip install .) to build it.",
            FALLBACK_REASON,
        )

KIND: str = _core.KIND
BackendBase = _core.BackendBase
ContextBase = _core.ContextBase
CoreState = _core.CoreState
QuickReplay = _core.QuickReplay
EngineBase = _core.EngineBase
HandleBase = _core.HandleBase
RecordBase = _core.RecordBase
ReshapeKernel = _core.ReshapeKernel
SameShapeKernel = _core.SameShapeKernel
ScopeBase = _core.ScopeBase
TapeNodeBase = _core.TapeNodeBase
bind = _core.bind
call_site = _core.call_site
dispatch = _core.dispatch
dispose_record = _core.dispose_record
dispose_scope = _core.dispose_scope
dispose_tensor = _core.dispose_tensor
fast_op = _core.fast_op
live_handles = _core.live_handles
make_tensor = _core.make_tensor
new_handle = _core.new_handle
new_record = _core.new_record
run_kernel = _core.run_kernel
share_record = _core.share_record

#: The compiled tape (``record``, ``save_tensors``, ``filter_tape``, ``backprop``,
#: ``free_saved``, bound by ``bind_tape``), or None where the pure-Python engine runs:
#: ``engine/tape.py`` and ``engine/recording.py`` are its reference and then run themselves.
TAPE_CORE = _core if KIND == "compiled" else None
