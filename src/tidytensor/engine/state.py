"""The engine's state: tensor ids, the scope stacks (``Scope``, one ``ScopeContext`` per thread or asyncio
task, kept in a context variable) and ``EngineState``, the counters and records that
``engine.reset()`` throws away.

Plain data: the engine (``engine.py``) does all the work on these objects, and
``engine.current_context()`` makes a thread's ``ScopeContext`` on first use.
"""

from __future__ import annotations

import math
from contextvars import ContextVar
from typing import Any

from .. import sites
from .._handles import ContextBase, CoreState, ScopeBase
from ..dtypes import BYTES_PER_ELEMENT
from ..tensor import Tensor, Variable
from .records import KernelProfile, LeakedTensor, ScopeEvent


def _logical_bytes(shape: tuple[int, ...], dtype: str) -> int:
    """The bytes of a ``dtype`` tensor of ``shape`` (a view relabelling its buffer's dtype)."""
    return math.prod(shape) * BYTES_PER_ELEMENT[dtype]


class Scope(ScopeBase):
    """One tidy scope: the tensors created while it was active.

    Ops do not get Scope objects: an op marks the active scope's ``track`` length on entry
    and, on exit, disposes whatever it added except its result (see ``Engine.make_op``).
    The fields are ScopeBase's (``_handles.py``): C fields in the compiled core.
    """

    __slots__ = ()

    def __init__(self, name: str, scope_id: int, parent: Scope | None):
        self.track: list[Tensor] = []
        self.name = name
        self.id = scope_id
        self.parent = parent


class ScopeContext(ContextBase):
    """The scope stack of one thread, or of one asyncio task inside ``async with
    tf.tidy_scope()``: threads and tasks never dispose each other's tensors. The fields are
    ContextBase's (``_handles.py``): C fields in the compiled core."""

    __slots__ = ()

    def __init__(self, active: Scope | None = None):
        self.active = active
        self.stack: list[Scope] = []
        #: Autodiff state, per thread too: a gradient call in one thread never sees (nor
        #: hides) another thread's kernels.
        self.gradient_depth = 0
        self.kernel_depth = 0
        self.tape: list | None = None
        #: The user's line running the current outermost op (its tensors' creation site).
        self.site: sites.Site | None = None
        #: Collects the tensors of ops run outside any scope, for the duration of the op.
        self.top = Scope("top-level op", -1, None)


_scope_context: ContextVar[ScopeContext] = ContextVar("tidytensor_scopes")
_get_context = _scope_context.get


def current_context() -> ScopeContext:
    """This thread's (or task's) scope stack, made on first use."""
    ctx = _get_context(None)
    if ctx is None:
        ctx = ScopeContext()
        _scope_context.set(ctx)
    return ctx


def new_context(active: Scope | None) -> Any:
    """Gives the current task a fresh scope stack above ``active``; returns the reset token."""
    return _scope_context.set(ScopeContext(active))


def restore_context(token: Any) -> None:
    _scope_context.reset(token)


def _context_or_fresh() -> ScopeContext:
    """The calling thread's (or task's) scope stack; a fresh, uninstalled one (nothing open)
    when it has none yet (``engine.current_context`` installs one)."""
    ctx = _get_context(None)
    return ctx if ctx is not None else ScopeContext()


class EngineState(CoreState):
    """Everything ``engine.reset()`` throws away. The per-op counters (``num_tensors``,
    ``num_string_tensors``, ``num_data_buffers``, ``num_bytes``, ``buffer_bytes``,
    ``peak_bytes``, ``check_bytes``, ``alert_fired``), ``profiling`` and ``next_scope_id`` are
    ``CoreState``'s fields (``_handles.py``)."""

    __slots__ = (
        "registered_variables",
        "byte_limit",
        "leaked",
        "taping",
        "profile_kernels",
        "profile_scopes",
    )

    def __init__(self) -> None:
        self.registered_variables: dict[str, Variable] = {}
        self.num_tensors = 0
        self.num_string_tensors = 0
        self.num_data_buffers = 0
        self.num_bytes = 0
        #: Bytes of live buffers, each counted once (num_bytes counts every handle's view).
        self.buffer_bytes = 0
        #: The peak of buffer_bytes up to its last decrease (``Engine.peak_bytes`` adds the
        #: present): kept on the free path, so making a buffer never pays for it.
        self.peak_bytes = 0
        #: buffer_bytes above which a new buffer is refused: the memory limit, or infinity.
        self.byte_limit = math.inf
        #: buffer_bytes above which a new buffer takes the slow path (``_over_budget``): the
        #: lower of the memory limit and an armed memory alert's level.
        self.check_bytes = math.inf
        #: Whether the memory alert fired and live bytes have not fallen below its level since.
        self.alert_fired = False
        #: Handles garbage-collected undisposed (TF.js would leak them silently).
        self.leaked: list[LeakedTensor] = []
        self.next_scope_id = 0
        #: Gradient calls running in any thread: while > 0, kernels run under a ``KernelWatch``
        #: (which records them only for the calling thread's own tape).
        self.taping = 0
        self.profiling = False
        self.profile_kernels: list[KernelProfile] = []
        self.profile_scopes: list[ScopeEvent] = []

    @property
    def active_scope(self) -> Scope | None:
        """The calling thread's (or task's) innermost scope."""
        return _context_or_fresh().active

    @property
    def scope_stack(self) -> list[Scope]:
        """The calling thread's (or task's) open scopes, outermost first."""
        return _context_or_fresh().stack

    @property
    def gradient_depth(self) -> int:
        """How many gradient calls the calling thread is inside."""
        return _context_or_fresh().gradient_depth

    @property
    def kernel_depth(self) -> int:
        return _context_or_fresh().kernel_depth

    @property
    def active_tape(self) -> list | None:
        """The calling thread's tape (None when it records no gradient)."""
        return _context_or_fresh().tape
