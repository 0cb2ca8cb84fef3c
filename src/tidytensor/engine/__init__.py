"""The engine: tensor accounting, scopes, kernel dispatch and the gradient tape.

Layer: above ``tensor``, ``kernel_registry``/``kernel_names`` and the plain bottom modules
(``errors``, ``dtypes``, ``sites``...); below ``backends``, ``ops``, ``gradients`` and
``autodiff`` (see ``docs/architecture.md``). Nothing here imports an op: a kernel the
engine needs itself (a variable's ``Cast``, a tape's ``Identity``) runs through
``Engine.run_kernel`` like any other.

Modules:

- ``engine``: ``Engine`` and ``ENGINE``; the per-op path (``make_op``, ``run_kernel``, the one
  dispatch route ``_dispatch``), tensor handles and scopes;
- ``state``: the scope stacks (one ``ScopeContext`` per thread or task) and the counters;
- ``records``: the plain records handed out (``tf.memory()``, ``tf.profile``, leaks);
- ``backend_registry``, ``memory``, ``variables``, ``profiling``, ``site_tracking``,
  ``kernel_errors``: the cold parts of ``Engine``, mixed in;
- ``tape``: the gradient tape's nodes and the reverse walk (``backprop``);
- ``recording``: what fills the tape: kernel calls (``record``), saved tensors, the tape's
  start and end, and ``custom_grad``.

The names below are re-exported for ``from tidytensor.engine import ENGINE``.
"""

from __future__ import annotations

from . import recording  # noqa: F401 - installs the tape's recording (Engine.record_tape)
from .engine import ENGINE, Engine, tensors_in
from .records import (
    KernelProfile,
    LeakedTensor,
    MemoryInfo,
    ProfileInfo,
    ScopeEvent,
    TimingInfo,
)
from .state import (
    EngineState,
    Scope,
    ScopeContext,
    current_context,
    new_context,
    restore_context,
)

__all__ = [
    "ENGINE",
    "Engine",
    "EngineState",
    "KernelProfile",
    "LeakedTensor",
    "MemoryInfo",
    "ProfileInfo",
    "Scope",
    "ScopeContext",
    "ScopeEvent",
    "TimingInfo",
    "current_context",
    "new_context",
    "restore_context",
    "tensors_in",
]
