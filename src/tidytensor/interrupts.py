"""Ctrl-C (``SIGINT``) held while state must not be split, and taken at safe points.

Python raises ``KeyboardInterrupt`` between any two bytecodes of the main thread: inside the
engine's own bookkeeping it could leave a scope open or a counter off by one. Inside
``critical_section()`` a SIGINT is only recorded; ``interruption_point()`` (called where
stopping is safe: between the variables of an optimizer step, between the nodes of a
backward pass) hands it to the program's handler, and so does the end of the outermost
section. The program's handler is called as Python would have called it
(``signal.default_int_handler`` raises ``KeyboardInterrupt``). Other threads never receive
signals, so there both do nothing.
"""

from __future__ import annotations

import threading
from typing import Any

try:  # the C module: a handler swap costs about a microsecond (signal.signal wraps enums)
    import _signal as _sig
except ImportError:  # pragma: no cover - other Python implementations
    import signal as _sig

__all__ = ["HELD", "critical_section", "interruption_point"]

_SIGINT = int(_sig.SIGINT)
_MAIN_THREAD = threading.main_thread()


class _Held:
    """The main thread's state while SIGINT is held: nesting depth, the handler it replaced
    and the signals that arrived meanwhile."""

    depth = 0
    previous: Any = None
    pending: list[tuple[int, Any]] = []


#: The held state ``interruption_point`` reads: it does nothing while ``HELD.pending`` is
#: empty (the compiled tape checks that before calling it).
HELD = _Held


def _record(signum: int, frame: Any) -> None:
    _Held.pending.append((signum, frame))


def _deliver(handler: Any) -> None:
    pending, _Held.pending = _Held.pending, []
    for signum, frame in pending:
        handler(signum, frame)  # default_int_handler raises KeyboardInterrupt here


def interruption_point() -> None:
    """Delivers a SIGINT held by the enclosing ``critical_section()`` now: the caller is at a
    point where raising leaves everything consistent (its cleanup still runs held)."""
    if _Held.pending and _Held.depth and threading.current_thread() is _MAIN_THREAD:
        _deliver(_Held.previous)


class critical_section:  # noqa: N801 - used like a function: ``with critical_section():``
    """A block SIGINT cannot interrupt except at ``interruption_point()``: one arriving
    meanwhile is passed to the program's handler when the outermost block ends."""

    __slots__ = ("_held",)

    def __enter__(self) -> critical_section:
        self._held = False
        if threading.current_thread() is not _MAIN_THREAD:
            return self
        if _Held.depth == 0:
            previous = _sig.getsignal(_SIGINT)
            if not callable(previous) or previous is _record:
                return self  # SIG_IGN / SIG_DFL raise nothing in Python
            # No bytecode between these stores checks for signals; once _record is installed
            # every SIGINT is recorded.
            _Held.previous = previous
            _Held.pending = []
            _Held.depth = 1
            try:
                _sig.signal(_SIGINT, _record)
            except BaseException:
                # signal.signal() runs pending handlers (with the old ones) before it swaps:
                # one raised, so nothing is installed and nothing is held.
                _Held.depth = 0
                _Held.previous = None
                raise
        else:
            _Held.depth += 1
        self._held = True
        return self

    def __exit__(self, *exc: Any) -> None:
        if not self._held:
            return
        if _Held.depth > 1:
            _Held.depth -= 1
            return
        # The state is reset before the handler goes back: a SIGINT after the swap raises
        # at once, and must find nothing half-done.
        previous = _Held.previous
        _Held.depth = 0
        _Held.previous = None
        _sig.signal(_SIGINT, previous)
        _deliver(previous)
