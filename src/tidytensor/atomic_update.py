"""All-or-nothing updates of variables: an optimizer step, a training step.

An update has two phases. Phase 1 computes every new value (weights, optimizer slots, the
iteration count) without touching a variable: ``AtomicUpdate.assign`` validates each write
and holds its new buffer with a handle of its own. Phase 2, ``commit``, points every
variable at its held buffer: nothing there allocates or checks the memory limit, so nothing
can fail. When phase 1 raises (``tf.ResourceExhaustedError``, a failed op, Ctrl-C), what it
made is freed and every variable, slot and counter is as it was, memory counts included.

Ctrl-C (``SIGINT``) arriving while a commit or a rollback runs is held until it ends and then
delivered (``critical_section``), so it cannot split a step either: a step it interrupts is
either not applied at all or applied completely.

>>> from tidytensor.atomic_update import atomic_update
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
import threading
from collections.abc import Callable
from typing import Any

try:  # the C module: a handler swap costs about a microsecond (signal.signal wraps enums)
    import _signal as _sig
except ImportError:  # pragma: no cover - other Python implementations
    import signal as _sig

from .engine import ENGINE
from .tensor import Tensor, Variable

__all__ = ["AtomicUpdate", "active_update", "atomic_update", "critical_section", "current_value"]

_SIGINT = int(_sig.SIGINT)
_MAIN_THREAD = threading.main_thread()

#: The update the current thread or task is collecting writes into (None: writes are direct).
_ACTIVE: contextvars.ContextVar[AtomicUpdate | None] = contextvars.ContextVar(
    "tidytensor_atomic_update", default=None
)


class _Deferral:
    """The main thread's state while SIGINT is held: nesting depth, the handler it replaced
    and the signals that arrived meanwhile."""

    depth = 0
    previous: Any = None
    pending: list[tuple[int, Any]] = []


def _hold(signum: int, frame: Any) -> None:
    _Deferral.pending.append((signum, frame))


class critical_section:  # noqa: N801 - used like a function: ``with critical_section():``
    """A block that SIGINT cannot interrupt: a SIGINT arriving meanwhile is passed to the
    program's handler (``KeyboardInterrupt`` by default) when the outermost block ends.
    Only the main thread receives signals; elsewhere this does nothing."""

    __slots__ = ("_held",)

    def __enter__(self) -> critical_section:
        self._held = False
        if threading.current_thread() is not _MAIN_THREAD:
            return self
        if _Deferral.depth == 0:
            previous = _sig.getsignal(_SIGINT)
            if not callable(previous) or previous is _hold:
                return self  # SIG_IGN / SIG_DFL raise nothing in Python
            _Deferral.previous = previous
            _Deferral.depth = 1
            _sig.signal(_SIGINT, _hold)
        else:
            _Deferral.depth += 1
        self._held = True
        return self

    def __exit__(self, *exc: Any) -> None:
        if not self._held:
            return
        _Deferral.depth -= 1
        if _Deferral.depth:
            return
        previous = _Deferral.previous
        _Deferral.previous = None
        _sig.signal(_SIGINT, previous)
        pending, _Deferral.pending = _Deferral.pending, []
        for signum, frame in pending:
            previous(signum, frame)  # default_int_handler raises KeyboardInterrupt here


class AtomicUpdate:
    """The writes of one update, applied together by ``commit`` (see the module's doc)."""

    __slots__ = ("_writes", "_on_commit", "_undo", "closed")

    def __init__(self) -> None:
        # id(variable) -> (variable, handle holding its new buffer), in first-write order.
        self._writes: dict[int, tuple[Variable, Tensor]] = {}
        self._on_commit: list[Callable[[], None]] = []
        self._undo: list[Callable[[], None]] = []
        self.closed = False

    def assign(self, variable: Variable, new_value: Tensor) -> None:
        """Records ``variable.assign(new_value)`` for the commit, after ``Variable.assign``'s
        checks (which raise now, in phase 1). ``new_value`` may be disposed afterwards."""
        variable._check_assign(new_value)
        held = ENGINE.hold_handle(new_value)
        replaced = self._writes.get(id(variable))
        self._writes[id(variable)] = (variable, held)
        if replaced is not None:
            ENGINE.dispose_tensor(replaced[1])

    def read(self, variable: Variable) -> Tensor:
        """``variable``'s value as this update has it: its pending new value if written."""
        write = self._writes.get(id(variable))
        return variable if write is None else write[1]

    def on_commit(self, action: Callable[[], None]) -> None:
        """Runs ``action`` (which must not fail) when the update is committed."""
        self._on_commit.append(action)

    def add_slot(
        self,
        slots: list[Any],
        make: Callable[[], Any],
    ) -> Any:
        """Appends ``make()`` (a new optimizer slot, holding a new variable) to ``slots``; a
        rollback disposes the variable and removes it again."""
        with critical_section():
            slot = make()
            slots.append(slot)
            self._undo.append(lambda: _remove_slot(slots, slot))
        return slot

    def commit(self) -> None:
        """Phase 2: every held buffer into its variable, then the ``on_commit`` actions.
        Nothing here allocates or checks a limit. Call inside ``critical_section()``."""
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
    exception. Inside another update's block it joins that one (which commits for both)."""

    __slots__ = ("_update",)

    def __enter__(self) -> AtomicUpdate:
        outer = _ACTIVE.get()
        if outer is not None:
            self._update = None
            return outer
        update = AtomicUpdate()
        self._update = update
        _ACTIVE.set(update)
        return update

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> bool:
        update = self._update
        if update is None:
            return False
        try:
            if exc_type is None:
                with critical_section():
                    _ACTIVE.set(None)
                    update.commit()
        finally:
            if not update.closed:
                with critical_section():
                    if _ACTIVE.get() is update:
                        _ACTIVE.set(None)
                    update.rollback()
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
