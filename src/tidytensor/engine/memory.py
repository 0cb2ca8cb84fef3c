"""The engine's memory reporting: ``tf.memory()``, the memory limit and its over-budget
error (with the largest live tensors), the peak of live bytes, and leaked handles (tensors
garbage-collected undisposed).

``MemoryAccounting`` is mixed into ``Engine`` (``engine.py``), which does the counting itself
on the per-op path (``_make_tensor``, ``dispose_tensor``); this module only reads, limits and
reports those counters, off that path.
"""

from __future__ import annotations

import atexit
import math
import time
import warnings
from collections.abc import Callable
from typing import Any

from .. import sites
from .._handles import live_handles
from ..errors import LeakWarning, MemoryAlertWarning, ResourceExhaustedError
from ..tensor import Tensor
from . import kernel_scratch
from .records import LeakedTensor, MemoryInfo
from .state import current_context


class MemoryAccounting:
    """Memory limit, memory report and leak records (mixed into ``Engine``)."""

    def memory(self) -> MemoryInfo:
        state = self.state
        fields = dict(self.backend.memory())
        fields["num_tensors"] = state.num_tensors
        fields["num_data_buffers"] = state.num_data_buffers
        fields["num_bytes"] = state.num_bytes
        if state.num_string_tensors > 0:
            fields["unreliable"] = True
            reasons = list(fields.get("reasons", []))
            reasons.append("Memory usage by string tensors is approximate (2 bytes per character)")
            fields["reasons"] = reasons
        return MemoryInfo(**fields)

    def _over_budget(self, data_id: Any, shape: tuple, dtype: str) -> None:
        """A fresh buffer took live buffer bytes past the memory limit (a kernel whose size
        ``output_bounds`` could not foresee, such as strings): free it, take its bytes back
        and raise (nothing else was counted yet)."""
        state = self.state
        live = state.buffer_bytes
        if live > self.alert_level and not state.alert_fired:
            self._fire_alert(data_id, shape, dtype)  # the memory alert's level was crossed
            if self.memory_limit is None or live <= self.memory_limit:
                return
        state.buffer_bytes -= data_id.nbytes
        data_id.backend.dispose_data(data_id, True)
        request = data_id.nbytes
        raise ResourceExhaustedError(
            budget_message(
                f"Allocating {request} bytes for a {dtype} tensor of shape {list(shape)}",
                request,
                self.memory_limit,
                live - request,
                state.leaked,
                "The buffer was made, then freed again",
            )
        )

    def set_memory_limit(self, limit: int | None) -> None:
        """Caps the bytes of live tensor buffers (None: no cap). With a cap, every kernel
        checks its outputs' size before it allocates: the engine's memory guard
        (``memory_guard.kernel_guard``) is a registered kernel wrapper while a cap is set."""
        guarded = self.memory_limit is not None
        self.memory_limit = None if limit is None else int(limit)
        self.state.byte_limit = math.inf if limit is None else self.memory_limit
        self._update_check_bytes()
        if guarded and limit is None:
            self.remove_kernel_wrapper(self._memory_guard)
        elif not guarded and limit is not None:
            self.add_kernel_wrapper(self._memory_guard)

    # ================================================================ memory alert
    def set_memory_alert(
        self, level: int | None, callback: Callable[[dict], Any] | None = None
    ) -> None:
        """A soft threshold: when live tensor buffer bytes cross ``level`` (from at or below it
        to above it), ``callback(info)`` runs, or a ``MemoryAlertWarning`` is issued without
        one; once per crossing (it fires again only after live bytes fell below ``level``).
        ``info`` holds ``level``, ``live_bytes``, ``op`` (the op making the buffer, where
        known), ``site`` (the user's line), ``shape`` and ``dtype`` of that buffer, and
        ``backend``. ``None`` turns the alert off. Nothing
        is refused: this is a warning, not a limit (``set_memory_limit`` is the limit)."""
        self.alert_level = math.inf if level is None else int(level)
        self.alert_callback = callback
        state = self.state
        state.alert_fired = state.buffer_bytes > self.alert_level
        self._update_check_bytes()

    def _update_check_bytes(self) -> None:
        state = self.state
        armed = self.alert_level if not state.alert_fired else math.inf
        state.check_bytes = min(state.byte_limit, armed)

    def _fire_alert(self, data_id: Any, shape: tuple, dtype: str) -> None:
        state = self.state
        state.alert_fired = True
        self._update_check_bytes()
        info = {
            "level": self.alert_level,
            "live_bytes": state.buffer_bytes,
            "op": self._op_name("") or None,
            "site": sites.format_site(current_context().site or sites.user_site(2)),
            "shape": list(shape),
            "dtype": dtype,
            "backend": getattr(data_id.backend, "name", None),
        }
        if self.alert_callback is not None:
            self.alert_callback(info)
            return
        warnings.warn(
            f"Live tensor memory crossed the alert level of {self.alert_level} bytes: "
            f"{state.buffer_bytes} bytes when a {dtype} tensor of shape "
            f"{list(shape)} was made on backend {info['backend']!r} at {info['site']} "
            "(tf.config.set_memory_alert).",
            MemoryAlertWarning,
            stacklevel=4,
        )

    def _rearm_alert(self) -> None:
        self.state.alert_fired = False
        self._update_check_bytes()

    @property
    def peak_bytes(self) -> int:
        """The most bytes of live tensor buffers (and of the arrays kernels keep between
        calls, ``kernel_scratch``) since the last ``reset_memory_stats``."""
        state = self.state
        kernel_scratch.sync_all(state)
        return max(state.peak_bytes, state.buffer_bytes)

    def reset_memory_stats(self) -> None:
        kernel_scratch.sync_all(self.state)
        self.state.peak_bytes = self.state.buffer_bytes

    # ================================================================ leaks
    #: Seconds a batch of unreported leaks may wait for a later leak to report it (besides
    #: ``report_leaks()`` and interpreter exit).
    leak_report_interval = 5.0

    def record_leak(self, t: Tensor) -> None:
        """A handle was garbage-collected undisposed while its buffer lives: keep it counted
        (as TF.js would), remember where it came from, and queue a ``LeakWarning`` for its
        creation site (``report_leaks``: one line per site, with a count)."""
        data_id = t.data_id
        if data_id.refs <= 0 or not data_id.backend.alive:
            return
        record = LeakedTensor(t.id, data_id, t._shape, t.dtype, t._site)
        self.state.leaked.append(record)
        if self.warn_leaks:
            pending = self._pending_leaks.get(t._site)
            if pending is None:
                pending = self._pending_leaks[t._site] = [0, 0]
            pending[0] += 1
            pending[1] += record.nbytes
            now = time.monotonic()
            if self._pending_since is None:
                self._pending_since = now
                _report_at_exit(self)
            elif now - self._pending_since >= self.leak_report_interval:
                self.report_leaks()

    def report_leaks(self) -> int:
        """Issues one ``LeakWarning`` per creation site for the leaks recorded since the last
        report (also done at interpreter exit); returns how many sites it reported."""
        pending, self._pending_leaks = self._pending_leaks, {}
        self._pending_since = None
        for site, (count, nbytes) in pending.items():
            what = "1 tensor" if count == 1 else f"{count} tensors"
            verb = "was" if count == 1 else "were"
            its, them = ("its buffer stays", "it") if count == 1 else ("their buffers stay", "them")
            message = (
                f"{what} created at {sites.format_site(site)} {verb} garbage-collected without "
                f"dispose(); {its} allocated ({nbytes} bytes). Dispose {them}, create {them} "
                f"inside tf.tidy(), or call tf.dispose_leaked(); tf.leaks() lists {them}."
            )
            if site is None:
                warnings.warn(message, LeakWarning, stacklevel=2)
            else:
                code = site[0]
                warnings.warn_explicit(
                    message,
                    LeakWarning,
                    code.co_filename,
                    sites.line_of(site) or 0,
                    module=code.co_filename,
                )
        return len(pending)

    def dispose_leaked(self) -> int:
        """Frees every buffer held by leaked handles; returns how many handles it released."""
        leaked, self.state.leaked = self.state.leaked, []
        for record in leaked:
            self.dispose_tensor(record)
        return len(leaked)


def budget_message(
    what: str,
    request: int,
    limit: int,
    live: int,
    leaked: list[LeakedTensor],
    outcome: str = "Nothing was allocated",
) -> str:
    """The over-budget error: ``what`` (the request, in words) ``request`` bytes would take
    live tensor memory past ``limit``; ``outcome`` says what became of the allocation."""
    lines = [
        f"{what} would take live tensor memory to {live + request} bytes, past the limit of "
        f"{limit} bytes ({live} bytes are live). {outcome}; free tensors and try again.",
    ]
    lines.extend(largest_live_lines(leaked))
    return "\n".join(lines)


def largest_live_lines(leaked: list[LeakedTensor], n: int = 5) -> list[str]:
    """``Largest live tensors:`` and one line per tensor (id, shape, dtype, bytes, creation
    site), for out-of-memory errors; no lines when nothing is live."""
    largest = _largest_live_tensors(n, leaked)
    if not largest:
        return []
    lines = ["Largest live tensors:"]
    for t, nbytes in largest:
        note = " (garbage-collected undisposed)" if isinstance(t, LeakedTensor) else ""
        lines.append(
            f"  Tensor {t.id} shape={list(t._shape)} dtype={t.dtype}: {nbytes} bytes, "
            f"created at {sites.format_site(t._site)}{note}"
        )
    return lines


def _largest_live_tensors(n: int, leaked: list[LeakedTensor]) -> list[tuple[Any, int]]:
    """The n largest live handles (``live_handles``: error path only), with the ``leaked``
    records' buffers (garbage-collected handles hold live buffers too)."""
    found: list[tuple[Any, int]] = []
    for obj in live_handles():
        if (
            isinstance(obj, Tensor)
            and not obj._disposed
            and obj.data_id.refs > 0
            and obj.data_id.backend.alive  # not a handle from before a reset
        ):
            found.append((obj, obj.data_id.nbytes))
    for record in leaked:
        if not record._disposed and record.data_id.refs > 0 and record.data_id.backend.alive:
            found.append((record, record.data_id.nbytes))
    found.sort(key=lambda pair: -pair[1])
    return found[:n]


_exit_hooked: set[int] = set()


def _report_at_exit(engine: Any) -> None:
    """Reports an engine's unreported leaks at interpreter exit (hooked once per engine)."""
    if id(engine) not in _exit_hooked:
        _exit_hooked.add(id(engine))
        atexit.register(engine.report_leaks)
