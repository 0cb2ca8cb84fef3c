"""All-or-nothing updates of variables: an optimizer step, a training step.

An update has two phases. Phase 1 computes every new value (weights, optimizer slots, the
iteration count) without touching a variable: ``AtomicUpdate.assign`` validates each write
and holds its new buffer (with a handle of its own, or by taking over the temporary an
optimizer just made). Phase 2, ``commit``, points every
variable at its held buffer: nothing there allocates or checks the memory limit, so nothing
can fail. When phase 1 raises (``tf.ResourceExhaustedError``, a failed op, Ctrl-C), what it
made is freed and every variable, slot and counter is as it was, memory counts included.

Ctrl-C (``SIGINT``) cannot split an update either: the whole block runs in a
``critical_section()``, which holds the signal and delivers it at an ``interruption_point()``
of phase 1 (the update then rolls back) or after the commit. A step it interrupts is either
not applied at all or applied completely, and the engine is never interrupted mid-way
through its own bookkeeping.

>>> from tidytensor.engine.atomic_update import atomic_update
>>> w = tf.variable(tf.tensor1d([1, 2]), name='atomic_doc_w')
>>> with atomic_update() as update:
...     update.assign(w, tf.tensor1d([5, 6]))
...     w.array_sync()            # not yet: writes are applied when the block ends
[1.0, 2.0]
>>> w.array_sync()
[5.0, 6.0]
>>> w.dispose()
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import Any

from ..interrupts import critical_section, interruption_point
from ..tensor import Tensor, Variable
from .engine import ENGINE
from .state import current_context

__all__ = ["AtomicUpdate", "active_update", "atomic_update", "current_value"]

#: The update the current thread or task is collecting writes into (None: writes are direct).
_ACTIVE: contextvars.ContextVar[AtomicUpdate | None] = contextvars.ContextVar(
    "tidytensor_atomic_update", default=None
)


class AtomicUpdate:
    """The writes of one update, applied together by ``commit`` (see the module's doc)."""

    __slots__ = ("_writes", "_on_commit", "_undo", "closed")

    def __init__(self) -> None:
        # id(variable) -> (variable, handle holding its new buffer), in first-write order.
        self._writes: dict[int, tuple[Variable, Tensor]] = {}
        self._on_commit: list[Callable[[], None]] = []
        self._undo: list[Callable[[], None]] = []
        self.closed = False

    def assign(self, variable: Variable, new_value: Tensor, temporary: bool = False) -> None:
        """Records ``variable.assign(new_value)`` for the commit, after ``Variable.assign``'s
        checks (which raise now, in phase 1). ``new_value`` may be disposed afterwards.

        ``temporary``: ``new_value`` was just made by an op in the current scope and the
        caller never disposes it (an optimizer's new weight): the update takes that handle
        over (``kept``, freed by the commit or rollback) instead of making one of its own."""
        variable._check_assign(new_value)
        if (
            temporary
            and not new_value.kept
            and type(new_value) is Tensor
            and new_value.scope_id is not None
            and new_value.scope_id == getattr(current_context().active, "id", None)
        ):
            new_value.kept = True  # its scope will not free it
            held = new_value
        else:
            held = ENGINE.hold_handle(new_value)
        replaced = self._writes.get(id(variable))
        self._writes[id(variable)] = (variable, held)
        if replaced is not None:
            ENGINE.dispose_tensor(replaced[1])

    def read(self, variable: Variable) -> Tensor:
        """``variable``'s value as this update has it: its pending new value if written."""
        write = self._writes.get(id(variable))
        return variable if write is None else write[1]

    def interruption_point(self) -> None:
        """Where phase 1 may stop for a held Ctrl-C (raising ``KeyboardInterrupt``, after
        which the update rolls back)."""
        interruption_point()

    def on_commit(self, action: Callable[[], None]) -> None:
        """Runs ``action`` (which must not fail) when the update is committed. Inside a
        ``tf.function`` being traced, its replays run ``action`` at their commit too."""
        self._on_commit.append(action)
        if ENGINE.tracer is not None:
            ENGINE.tracer.on_commit_action(action)

    def add_slot(
        self,
        slots: list[Any],
        make: Callable[[], Any],
    ) -> Any:
        """Appends ``make()`` (a new optimizer slot, holding a new variable) to ``slots``; a
        rollback disposes the variable and removes it again."""
        slot = make()
        slots.append(slot)
        self._undo.append(lambda: _remove_slot(slots, slot))
        return slot

    def commit(self) -> None:
        """Phase 2: every held buffer into its variable, then the ``on_commit`` actions.
        Nothing here allocates or checks a limit."""
        for variable, held in self._writes.values():
            if not variable._disposed:
                ENGINE.assign_variable(variable, held)
            ENGINE.dispose_tensor(held)
        self._writes.clear()
        for action in self._on_commit:
            action()
        self._undo.clear()
        self.closed = True

    def rollback(self) -> None:
        """Frees what phase 1 held and made; every variable stays as it was."""
        for _, held in self._writes.values():
            if not held._disposed:
                ENGINE.dispose_tensor(held)
        self._writes.clear()
        for undo in reversed(self._undo):
            undo()
        self._undo.clear()
        self._on_commit.clear()
        self.closed = True


def _remove_slot(slots: list[Any], slot: Any) -> None:
    for i in range(len(slots) - 1, -1, -1):
        if slots[i] is slot:
            del slots[i]
            break
    if not slot.variable._disposed:
        slot.variable.dispose()


class _UpdateBlock:
    """``with atomic_update() as update:``: commits on a normal exit, rolls back on an
    exception. Inside another update's block it joins that one (which commits for both).
    The whole block is a ``critical_section()``: Ctrl-C stops it only at an
    ``interruption_point()`` (then it rolls back) or after the commit."""

    __slots__ = ("_update", "_critical")

    def __enter__(self) -> AtomicUpdate:
        outer = _ACTIVE.get()
        if outer is not None:
            self._update = None
            return outer
        self._critical = critical_section()
        self._critical.__enter__()
        update = AtomicUpdate()
        self._update = update
        _ACTIVE.set(update)
        return update

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> bool:
        update = self._update
        if update is None:
            return False
        try:
            _ACTIVE.set(None)
            if exc_type is None:
                update.commit()
            else:
                update.rollback()
        finally:
            if not update.closed:  # the commit itself raised (a bug): undo what is left
                update.rollback()
            self._critical.__exit__(exc_type, exc, tb)  # a held Ctrl-C is raised here
        return False


def atomic_update() -> _UpdateBlock:
    """A block whose variable writes (through the ``AtomicUpdate`` it yields) are applied
    together when it ends, or not at all if it raises."""
    return _UpdateBlock()


def active_update() -> AtomicUpdate | None:
    """The update collecting writes in this thread or task, if any."""
    return _ACTIVE.get()


def current_value(variable: Variable) -> Tensor:
    """``variable``, or its pending new value inside an update that wrote it."""
    update = _ACTIVE.get()
    return variable if update is None else update.read(variable)
