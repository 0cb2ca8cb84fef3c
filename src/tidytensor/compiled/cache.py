"""A ``tf.function``'s traces by signature: an LRU cache with TF 2's retracing warning."""

from __future__ import annotations

import warnings
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any

__all__ = ["EAGER", "TraceCache"]

#: Traces one function keeps; the least recently used goes first.
MAX_TRACES = 32
#: TF 2 warns when this many of a function's last ``RETRACE_WINDOW`` calls traced.
RETRACE_WARN = 5
RETRACE_WINDOW = 10


class _Eager:
    """The cache entry of a signature that runs eagerly (its trace read a value back)."""

    def __repr__(self) -> str:
        return "EAGER"


EAGER = _Eager()


def _release(entry: Any) -> None:
    """A replay leaving the cache frees its scratch arrays (``replay.py``) now, not when the
    garbage collector gets to it."""
    release = getattr(entry, "release", None)
    if release is not None:
        release()


class TraceCache:
    """Signature -> replay (or ``EAGER``), least recently used dropped past ``max_traces``;
    warns once when calls keep tracing (a Python value or shape that changes every call)."""

    def __init__(
        self,
        name: str,
        max_traces: int = MAX_TRACES,
        before_change: Callable[[], None] | None = None,
        after_change: Callable[[], None] | None = None,
    ) -> None:
        self.name = name
        #: Called before and after entries are added or dropped (``Function``'s quick keys).
        self.before_change = before_change
        self.after_change = after_change
        self.max_traces = max_traces
        self._entries: OrderedDict[Any, Any] = OrderedDict()
        self._recent: deque[bool] = deque(maxlen=RETRACE_WINDOW)
        self.traces = 0
        self.warned = False

    def get(self, key: Any) -> Any:
        entry = self._entries.get(key)
        if entry is not None:
            self._entries.move_to_end(key)
            self._recent.append(False)
        return entry

    def touch(self, key: Any) -> None:
        """``key``'s entry was used (found by a quick key): it is the most recently used."""
        self._entries.move_to_end(key)

    def put(self, key: Any, entry: Any) -> None:
        self._changing()
        self._entries[key] = entry
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_traces:
            _release(self._entries.popitem(last=False)[1])
        self._changed()

    def drop(self, key: Any) -> None:
        self._changing()
        _release(self._entries.pop(key, None))
        self._changed()

    def clear(self) -> None:
        self._changing()
        for entry in self._entries.values():
            _release(entry)
        self._entries.clear()
        self._changed()

    def release_scratch(self) -> None:
        """Frees every replay's scratch arrays, keeping the traces (a replay allocates its
        arrays again on its next call)."""
        for entry in self._entries.values():
            _release(entry)

    def scratch_bytes(self) -> int:
        """Bytes of the scratch arrays the replays hold now."""
        return sum(getattr(entry, "scratch_bytes", 0) for entry in self._entries.values())

    def _changing(self) -> None:
        if self.before_change is not None:
            self.before_change()

    def _changed(self) -> None:
        if self.after_change is not None:
            self.after_change()

    def __len__(self) -> int:
        return len(self._entries)

    def traced(self) -> None:
        """Counts one trace; warns (once) when too many recent calls traced."""
        self.traces += 1
        self._recent.append(True)
        if not self.warned and self.traces > 1 and sum(self._recent) >= RETRACE_WARN:
            self.warned = True
            warnings.warn(
                f"{sum(self._recent)} out of the last {len(self._recent)} calls to tf.function "
                f"'{self.name}' triggered retracing. Tracing is expensive: a new input shape or "
                "dtype, or a new Python value among the arguments, traces the function again. "
                "Pass tensors of one shape, or Python values that do not change from call to "
                "call.",
                RuntimeWarning,
                stacklevel=4,
            )
