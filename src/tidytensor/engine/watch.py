"""What watches kernel calls: a gradient tape, ``tf.profile``, debug mode and the kernel leak
detector.

Every kernel call takes one route, ``Engine._dispatch`` (``engine.py``). While something
watches kernels (``Engine._slow``), the route wraps the kernel in a ``KernelWatch``: the
watch runs the kernel (counting its depth, timing it for a profile, counting the backend's
buffers around it for the leak detector) and, once the route has made the output handles,
``finish`` hands the call to each watcher: debug mode's finite check, the tape's recording
(``Engine.record_tape``) and the profile's kernel record. Unwatched, the route makes no
watch at all.
"""

from __future__ import annotations

import time as _time
from collections.abc import Callable
from typing import Any

from ..errors import KernelLeakError
from .profiling import _check_finite
from .records import KernelProfile
from .state import current_context

__all__ = ["KernelWatch"]


class KernelWatch:
    """One watched kernel call: called in place of the kernel, then ``finish``ed."""

    __slots__ = ("engine", "kernel_name", "kernel", "start", "elapsed_ms", "bytes", "tensors")

    def __init__(self, engine: Any, kernel_name: str, kernel: Callable) -> None:
        self.engine = engine
        self.kernel_name = kernel_name
        self.kernel = kernel
        self.elapsed_ms = 0.0

    def __call__(self, inputs: tuple, attrs: Any) -> Any:
        """Runs the kernel one level deeper (kernels that kernels run are never taped)."""
        engine = self.engine
        state = engine.state
        profiling = state.profiling
        if profiling:
            self.bytes, self.tensors = state.num_bytes, state.num_tensors
        ctx = current_context()
        ctx.kernel_depth += 1
        tracer = engine.tracer
        if tracer is not None:  # kernels this kernel runs are part of it, not traced apart
            tracer.kernels_running += 1
        start = self.start = _time.perf_counter()
        try:
            if engine.check_kernel_leaks:
                out = self._run_counting_buffers(inputs, attrs)
            else:
                out = self.kernel(inputs, attrs)
        finally:
            ctx.kernel_depth -= 1
            if tracer is not None:
                tracer.kernels_running -= 1
        if profiling:
            self.elapsed_ms = (_time.perf_counter() - start) * 1000.0
        return out

    def _run_counting_buffers(self, inputs: tuple, attrs: Any) -> Any:
        """The leak detector compares the backend's global buffer count around the kernel: no
        other thread may make buffers meanwhile (they take the lock to write)."""
        engine = self.engine
        backend = engine._backend
        with engine._leak_check_lock:
            before_ids = backend.num_data_ids()
            out = self.kernel(inputs, attrs)
            records = out if type(out) is list else [out]
            new_ids = sum(1 for o in records if (o[0] if type(o) is tuple else o).refs == 1)
            leaked = backend.num_data_ids() - before_ids - new_ids
        if leaked > 0:
            raise KernelLeakError(
                f"Backend '{engine.backend_name}' has an internal memory leak ({leaked} data ids) "
                f"after running '{self.kernel_name}'"
            )
        return out

    def finish(self, inputs: tuple, result: Any, attrs: Any) -> None:
        """Hands the call, its output handles made, to every watcher."""
        engine = self.engine
        kernel_name = self.kernel_name
        outputs = result if type(result) is list else [result]
        ctx = current_context()
        if engine.tracer is not None and engine.tracer.kernels_running == 0:
            # First: the tape's record below may run kernels (saved clones) that use these.
            engine.tracer.record_kernel(kernel_name, inputs, result, attrs)
        if engine.debug_mode:
            _check_finite(kernel_name, outputs, inputs, engine._backend)
        if ctx.gradient_depth > 0 and ctx.kernel_depth == 0 and engine.record_tape is not None:
            # Before the profile entry: as in TF.js, the kernel's entry comes after those of
            # the Identity clones its gradient saves, and counts them.
            engine.record_tape(kernel_name, inputs, outputs, attrs)
        state = engine.state
        if state.profiling:
            scope = ctx.active
            state.profile_kernels.append(
                KernelProfile(
                    name=kernel_name,
                    bytes_added=state.num_bytes - self.bytes,
                    total_bytes_snapshot=state.num_bytes,
                    tensors_added=state.num_tensors - self.tensors,
                    total_tensors_snapshot=state.num_tensors,
                    input_shapes=[list(t._shape) for t in inputs],
                    output_shapes=[list(t._shape) for t in outputs],
                    kernel_time_ms=self.elapsed_ms,
                    extra_info="",
                    scope=scope.name if scope is not None else None,
                    scope_id=scope.id if scope is not None else None,
                    start_time=self.start,
                )
            )
