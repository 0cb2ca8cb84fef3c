"""The engine: tensor accounting, scopes and kernel dispatch (the per-op path).

This reproduces TF.js's ``engine.ts`` semantics exactly (catalog §1): three counters
(``num_tensors``, ``num_data_buffers``, ``num_bytes``), a scope stack with tidy/keep,
one scope per op, and a kernel registry keyed by backend. The per-op path (the fast ops
``make_op`` returns, ``run_kernel``, ``_dispatch`` — the one route of every kernel call —,
``_make_tensor``, disposal) is the per-op core's (``_handles.py``: compiled, or its Python
reference); ``make_op``'s general wrapper is Python here. What watches kernel calls (tape,
profile, debug mode, leak detector) hooks into ``_dispatch`` through ``watch.py``.

The cold parts of ``Engine`` are mixed in from sibling modules: ``backend_registry``
(backend registry, kernel table), ``memory`` (memory limit, ``tf.memory()``, leaked
handles), ``variables``, ``profiling`` (``tf.profile``, ``tf.time``, debug mode),
``site_tracking`` (user sites for library calls and disposals) and ``kernel_errors`` (a
failing kernel). ``state`` holds the scope stacks and counters, ``records`` the records
handed out.
"""

from __future__ import annotations

import inspect
import sys
import threading
from collections.abc import Callable
from typing import Any

from .. import _handles, kernel_registry, sites
from .. import tensor as _tensor_module
from ..dtypes import COMPLEX64, FLOAT32, STRING, check_dtype
from ..errors import ArgumentTypeError, TidyTensorError
from ..tensor import Tensor, Variable, disposed_error
from . import kernel_scratch, memory_guard
from .backend_registry import BackendRegistry
from .devices import DeviceRegistry
from .kernel_errors import KernelErrors
from .memory import MemoryAccounting
from .profiling import Profiling
from .site_tracking import SiteTracking
from .state import (
    EngineState,
    Scope,
    ScopeContext,
    _get_context,
    _logical_bytes,
    _scope_context,
    current_context,
)
from .variables import VariableRegistry
from .watch import KernelWatch

__all__ = ["ENGINE", "Engine", "tensors_in"]

#: A plain function without these flags is neither a coroutine function nor an async generator
#: function: tidy checks them before asking ``inspect`` (which costs 2 us per call).
_ASYNC_FLAGS = inspect.CO_COROUTINE | inspect.CO_ITERABLE_COROUTINE | inspect.CO_ASYNC_GENERATOR


class Engine(
    _handles.EngineBase,
    BackendRegistry,
    MemoryAccounting,
    VariableRegistry,
    Profiling,
    SiteTracking,
    KernelErrors,
):
    """The single engine (``tf.engine()``). Its cold parts come from the mixins (see the
    module docstring); the per-op path is all here and in the per-op core (``_handles.py``),
    whose ``EngineBase`` holds the fields that path reads."""

    def __init__(self) -> None:
        self.state = EngineState()
        self._factories: dict[str, tuple[Callable[[], Any], int]] = {}
        self._registry: dict[str, Any] = {}
        self.backend_name: str | None = None
        self._backend: Any = None
        self._kernels: dict[str, Callable] = {}
        #: What ``_missing_kernel`` binds kernels from: (the table it fills, the backend, the
        #: backend's registered kernel configs by name, the kernel wrappers); see
        #: ``_rebuild_kernel_table``.
        self._kernel_source: tuple[dict, Any, dict, tuple] = ({}, None, {}, ())
        #: What wraps every kernel bound into the table, innermost first
        #: (``add_kernel_wrapper``; ``backend_registry.py``).
        self._kernel_wrappers: tuple[Callable[[str, Callable], Callable], ...] = ()
        #: The kernel wrapper ``set_memory_limit`` registers while a limit is set.
        self._memory_guard = memory_guard.kernel_guard(self)
        #: Two-input kernels' shortcuts for buffers already of their tensors' shape and dtype
        #: (``XpKernel.bind_same_shape``), used by the fast op path.
        self._same_shape_kernels: dict[str, Callable] = {}
        #: The kernels that ops made with ``fast_kernel`` run (the shortcuts above are bound
        #: for these only).
        self._fast_kernel_names: set[str] = set()
        #: True while something watches kernel calls (profiling, a tape, debug mode, the
        #: leak detector): ``_dispatch`` then runs each kernel under a ``KernelWatch``.
        self._slow = False
        #: True while a gradient tape is all that watches kernel calls and the compiled
        #: tape records them: its fast ops then run their kernel unwatched and record the
        #: call themselves (``_handles_c.pyx``'s ``FastOp``; see ``update_mode``).
        self._tape_only = False
        self.check_kernel_leaks = False
        self.memory_limit: int | None = None
        #: ``tf.config.set_memory_alert``: live buffer bytes at which the alert fires.
        self.alert_level: float = float("inf")
        self.alert_callback: Callable[[dict], Any] | None = None
        self.warn_leaks = True
        #: Leaks not reported yet, by creation site: ``[count, bytes]`` (``report_leaks``).
        self._pending_leaks: dict[Any, list[int]] = {}
        self._pending_since: float | None = None
        self.debug_mode = False
        #: Whether fused kernels may replace TF.js's op-by-op kernels (``may_fuse``).
        self.fuse_kernels = True
        self.track_sites = True
        #: The ``compiled`` package's tracer while a ``tf.function`` records its first call
        #: (``compiled/tracing.py``), else None. While set, every kernel call takes the
        #: watched route, whose ``KernelWatch.finish`` hands it to ``tracer.record_kernel``;
        #: reads back to Python, variable writes and new variables are reported too.
        self.tracer: Any = None
        #: ``tf.config.run_functions_eagerly(True)``: every ``tf.function`` runs op by op.
        self.run_functions_eagerly = False
        #: Held while the kernel leak detector counts the backend's buffers around a kernel,
        #: and by every other writer of buffers while the detector is on (other threads).
        self._leak_check_lock = threading.RLock()
        #: TF's device names over the backends, placement blocks and the GPU's settings.
        self.devices = DeviceRegistry(self)
        kernel_registry.on_change(self._on_kernels_changed)

    # ================================================================ tensors
    def make_tensor(
        self, values: Any, shape: tuple[int, ...], dtype: str, backend: Any = None
    ) -> Tensor:
        """A new tensor from host values already in storage dtype (NumPy)."""
        backend = backend or self.backend
        dtype = check_dtype(dtype, "make_tensor")  # one canonical string per dtype
        if self.check_kernel_leaks:  # not while a kernel counts the backend's buffers
            with self._leak_check_lock:
                data_id = backend.write(values, shape, dtype)
        else:
            data_id = backend.write(values, shape, dtype)
        if data_id.shape == shape:
            shape = data_id.shape  # one tuple object: kernels compare shapes by identity first
        t = self._make_tensor(data_id, shape, dtype, backend)
        if self.tracer is not None:  # a constant of a tf.function being traced
            self.tracer.on_host_tensor(t)
        return t

    #: Which per-op core runs: ``'compiled'`` (the extension built by ``pip install .``) or
    #: ``'python'`` (its reference: ``TIDYTENSOR_PURE_PYTHON=1``, or the extension missing).
    core: str = _handles.KIND

    #: Wraps a buffer in a new handle and counts it (TF.js's ``trackTensor``), called as
    #: ``self._make_tensor(data_id, shape, dtype, backend, ctx=None, site=None)``: the fast op
    #: path passes the calling thread's ``ctx`` and the user's ``site`` it already has. The
    #: per-op core's function (compiled, or its Python reference: ``_handles.py``).
    _make_tensor = _handles.make_tensor

    def read_sync(self, t: Tensor, op_name: str) -> Any:
        if self.tracer is not None:
            self.tracer.on_read(t, op_name)
        data_id = t.data_id
        if data_id.refs <= 0 or not data_id.backend.alive:
            raise disposed_error(t, op_name)
        return data_id.backend.read_sync(data_id, t._shape, t.dtype)

    #: Drops one handle: counters down, buffer refcount down, buffer freed at zero; called
    #: as ``self.dispose_tensor(t, site=None)``. The per-op core's function (``_handles.py``).
    dispose_tensor = _handles.dispose_tensor

    def dispose(self, container: Any) -> None:
        """Disposes a tensor, a variable, or every tensor in a nested container
        (``tf.dispose``)."""
        site = None
        for t in tensors_in(container):
            if t._disposed:
                continue
            if site is None:  # the pinned site, else one walk to the user's frame
                site = self.dispose_site()
            if isinstance(t, Variable):
                self.dispose_variable(t, site)
            else:
                self.dispose_tensor(t, site)

    def keep(self, result: Any) -> Any:
        for t in tensors_in(result):
            t.kept = True
        return result

    # ================================================================ scopes
    def start_scope(self, name: str | None = None) -> Scope:
        state = self.state
        ctx = current_context()
        scope = Scope(name or "unnamed scope", state.next_scope_id, ctx.active)
        state.next_scope_id += 1
        ctx.stack.append(scope)
        ctx.active = scope
        if state.profiling:
            self._record_scope_event("start", scope)
        return scope

    def end_scope(self, result: Any = None) -> None:
        """Disposes what the innermost scope tracked, except ``result`` and kept tensors,
        and re-homes ``result``'s tensors into the parent scope (TF.js's ``endScope``)."""
        ctx = current_context()
        scope = ctx.active
        if scope is None or not ctx.stack or ctx.stack[-1] is not scope:
            raise TidyTensorError("end_scope() called with no matching start_scope()")
        returned = tensors_in(result)
        _handles.dispose_scope(self, scope, returned)
        ctx.stack.pop()
        parent = scope.parent
        ctx.active = parent
        for t in returned:
            if not t.kept and t.scope_id == scope.id and type(t) is not Variable:
                if parent is not None:
                    parent.track.append(t)
                    t.scope_id = parent.id
                else:
                    t.scope_id = None
        if self.state.profiling:
            self._record_scope_event("end", scope)

    def may_fuse(self, gradient_depth: int = 0) -> bool:
        """Whether library code may run one fused kernel (``Tidy...`` kernel names) in place of
        TF.js's op-by-op kernels: not when ``tf.set_kernel_fusion(False)`` turned them off, nor
        while ``tf.profile`` lists kernels one by one, nor inside more than ``gradient_depth``
        nested gradient calls (0: no tape is recording; 1: a first-order tape may record the
        fused kernel, whose own gradient is not taped)."""
        return (
            self.fuse_kernels
            and not self.state.profiling
            and current_context().gradient_depth <= gradient_depth
        )

    def tidy(self, name_or_fn: Any, fn: Any = None) -> Any:
        if fn is None:
            if not callable(name_or_fn):
                raise ArgumentTypeError("Please provide a function to tidy()")
            fn, name = name_or_fn, None
        else:
            if not isinstance(name_or_fn, str):
                raise ArgumentTypeError(
                    "When calling with two arguments, the first argument to tidy() must be a string"
                )
            if not callable(fn):
                raise ArgumentTypeError(
                    "When calling with two arguments, the 2nd argument to tidy() must be a function"
                )
            name = name_or_fn
        code = getattr(fn, "__code__", None)
        if (code is None or code.co_flags & _ASYNC_FLAGS) and (
            inspect.iscoroutinefunction(fn) or inspect.isasyncgenfunction(fn)
        ):
            raise ArgumentTypeError(
                f"tidy() was given the coroutine function {getattr(fn, '__name__', fn)!r}: tidy is "
                "synchronous and cannot track tensors across 'await'. Call tidy() on the "
                "synchronous parts inside the coroutine, or dispose tensors by hand (tf.dispose)."
            )
        self.start_scope(name)
        try:
            result = fn()
        except BaseException:
            self.end_scope(None)
            raise
        self._finish_tidy(result)
        return result

    def _finish_tidy(self, result: Any) -> None:
        """The end of ``tidy`` once its function returned ``result``: an awaitable is
        refused, anything else ends the scope (the compiled tape's thunk scopes end here
        too, unless they return one tensor)."""
        if type(result) is not Tensor and result is not None and inspect.isawaitable(result):
            self.end_scope(None)
            if inspect.iscoroutine(result):
                result.close()
            raise ArgumentTypeError(
                "The function passed to tidy() returned an awaitable: tidy is synchronous and "
                "cannot track tensors across 'await'. Dispose tensors by hand in async code."
            )
        self.end_scope(result)

    def make_op(
        self,
        name: str,
        fn: Callable,
        fast_kernel: str | None = None,
        on_error: Callable[[BaseException, tuple, dict], BaseException | None] | None = None,
    ) -> Callable:
        """Wraps a public op so that its temporaries never leak (the ``@op`` decorator).

        Equivalent to TF.js's ``<name>__op`` scope without allocating one: the op marks the
        active scope's track list on entry and, on exit, disposes what it added except its
        result. This closure is the per-op hot path, so it is written out flat.

        With ``fast_kernel`` (a binary kernel), calls with two float32 tensors of one shape go
        straight to that kernel: the op body would only pass them through (no conversion,
        cast or broadcast check), and one kernel makes no temporaries to clean up.

        ``on_error(exc, args, kwargs)``, when given, may return the error to raise in place of
        ``exc`` once the op's temporaries are gone (None: ``exc`` propagates). It runs only on
        the error path, so it costs nothing on a successful call.
        """
        engine = self
        caller_site = sites.caller_site
        getframe = sys._getframe
        get_context = _get_context

        def op_wrapper(*args: Any, **kwargs: Any) -> Any:
            ctx = get_context(None) or current_context()
            scope = ctx.active
            top = scope is None
            if top:
                scope = ctx.active = ctx.top
            track = scope.track
            mark = len(track)
            outer = ctx.site is None and engine.track_sites
            if outer:
                ctx.site = caller_site(getframe(1))
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:
                engine._unwind_op(scope, mark, None, name)
                if outer:
                    ctx.site = None
                if top:
                    track.clear()
                    ctx.active = None
                if on_error is not None:
                    replacement = on_error(exc, args, kwargs)
                    if replacement is not None:
                        raise replacement from None
                raise
            if len(track) != mark + 1 or track[mark] is not result:
                engine._unwind_op(scope, mark, result, name)
            if outer:
                ctx.site = None
            if top:
                for t in track:
                    t.scope_id = None
                track.clear()
                ctx.active = None
            return result

        if fast_kernel is None:
            self._op_wrapper_code = op_wrapper.__code__
            return op_wrapper
        if fast_kernel not in self._fast_kernel_names:
            self._fast_kernel_names.add(fast_kernel)
            if self._backend is not None:  # an op made after the backend started
                self._rebuild_kernel_table(setup=False)
        # Calls with two float32 tensors of one shape go straight to the kernel; any other
        # call runs op_wrapper. The per-op core's function (compiled, or its Python
        # reference: ``_handles.py``).
        return _handles.fast_op(self, fast_kernel, op_wrapper)

    def _unwind_op(self, scope: Scope, mark: int, result: Any, name: str) -> None:
        """Disposes the tensors an op added to ``scope`` except those in its result."""
        track = scope.track
        added = track[mark:]
        del track[mark:]
        if isinstance(result, Tensor):
            keep_ids: Any = (id(result),)  # the common case: no container walk, no set
        else:
            keep_ids = {id(t) for t in tensors_in(result)}
        note = None
        for t in added:
            if id(t) in keep_ids:
                track.append(t)
            elif not t.kept and not t._disposed:
                if note is None:
                    note = f"disposed as a temporary of op '{name[:-4]}'"
                self.dispose_tensor(t, note)

    # ================================================================ kernels
    #: Runs one kernel on the active backend; returns a Tensor or a list of them. Called as
    #: ``self.run_kernel(kernel_name, inputs, attrs=None)``: inputs are checked live on the
    #: active backend, then the call takes ``_dispatch``. The per-op core's function.
    run_kernel = _handles.run_kernel

    #: The one route of every kernel call: eager ops, gradients, the tape's own kernels,
    #: profiled and debugged calls alike; called as ``self._dispatch(kernel_name, inputs,
    #: attrs)``. The active backend's kernel runs (rerun quietly or wrapped in a
    #: ``KernelError`` when it fails: ``_kernel_retry``), its output records become new
    #: handles (a Tensor, or a list for a list), and while something watches kernels
    #: (``_slow``: a gradient tape, ``tf.profile``, debug mode, the leak detector) a
    #: ``KernelWatch`` runs the kernel and then hands the call to the watchers. Inputs must
    #: be live on the active backend (``run_kernel`` checks them). A kernel returns a fresh
    #: buffer record, a ``(data_id, shape, dtype)`` view of an existing buffer, or a list of
    #: those. The per-op core's function (``_handles.py``).
    _dispatch = _handles.dispatch

    def update_mode(self) -> None:
        """Recomputes whether something watches kernel calls (``_dispatch``'s watch)."""
        state = self.state
        watched = bool(state.profiling or self.check_kernel_leaks or self.debug_mode)
        self._slow = watched or state.taping > 0 or self.tracer is not None
        self._tape_only = (
            self._slow
            and not watched
            and self.tracer is None
            and _handles.TAPE_CORE is not None
            and self.record_tape is _handles.TAPE_CORE.record
        )

    #: Set by ``engine.recording``: records a kernel call on the active tape.
    record_tape: Callable | None = None

    # ================================================================ lifecycle
    def reset(self) -> None:
        """Disposes everything, zeroes every counter and frees every variable name."""
        for v in list(self.state.registered_variables.values()):
            v.dispose()
        self.state = EngineState()
        self._pending_leaks = {}
        self._pending_since = None
        self.set_memory_limit(self.memory_limit)
        for name, instance in self._registry.items():
            self._dispose_backend(name, instance)
        self._registry.clear()
        self._backend = None
        self.backend_name = None
        self._kernels = {}
        self._kernel_source = ({}, None, {}, ())
        _scope_context.set(ScopeContext())
        self.update_mode()
        kernel_scratch.sync_all(self.state)  # the arrays kernels keep, in the new counters


def tensors_in(container: Any) -> list[Tensor]:
    """Every tensor in a nested list/tuple/dict/set (TF.js's getTensorsInContainer)."""
    if isinstance(container, Tensor):
        return [container]
    found: list[Tensor] = []
    if container is None or isinstance(container, (str, bytes, int, float, bool)):
        return found
    _walk(container, found, set())
    return found


def _walk(container: Any, found: list[Tensor], seen: set[int]) -> None:
    if isinstance(container, dict):
        items = dict.values(container)  # dict subclasses may shadow .values with a field
    elif isinstance(container, (list, tuple, set, frozenset)):
        items = container
    else:
        return
    for item in items:
        if isinstance(item, Tensor):
            if id(item) not in seen:
                seen.add(id(item))
                found.append(item)
        elif isinstance(item, (dict, list, tuple, set, frozenset)) and id(item) not in seen:
            seen.add(id(item))
            _walk(item, found, seen)


_handles.bind(
    tensor_cls=Tensor,
    ids=_tensor_module._tensor_ids,
    scope_var=_scope_context,
    current_context=current_context,
    caller_site=sites.caller_site,
    logical_bytes=_logical_bytes,
    complex64=COMPLEX64,
    string=STRING,
    float32=FLOAT32,
    watch_cls=KernelWatch,
    tidy_error=TidyTensorError,
    leak_hook=lambda t: ENGINE.record_leak(t),
    finalizing=sys.is_finalizing,
)
ENGINE = Engine()
_tensor_module._engine = ENGINE
kernel_scratch.bind(lambda: ENGINE.state)
