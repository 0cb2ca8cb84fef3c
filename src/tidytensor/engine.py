"""The engine: tensor accounting, scopes, kernel dispatch, backends and profiling.

This reproduces TF.js's ``engine.ts`` semantics exactly (catalog §1): three counters
(``num_tensors``, ``num_data_buffers``, ``num_bytes``), a scope stack with tidy/keep,
one scope per op, and a kernel registry keyed by backend. The per-op path
(``run_kernel`` and ``_make_tensor``) is plain Python kept as short as possible.
"""

from __future__ import annotations

import inspect
import itertools
import math
import sys
import threading
import time as _time
import warnings
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from . import kernel_registry, sites
from . import tensor as _tensor_module
from .dtypes import BYTES_PER_ELEMENT, COMPLEX64, FLOAT32, STRING, check_dtype
from .engine_records import (
    KernelProfile,
    LeakedTensor,
    MemoryInfo,
    ProfileInfo,
    ScopeEvent,
    TimingInfo,
)
from .errors import (
    ArgumentTypeError,
    BackendNotFoundError,
    KernelError,
    KernelLeakError,
    KernelNotRegisteredError,
    ResourceExhaustedError,
    TidyTensorError,
    VariableExistsError,
)
from .tensor import Tensor, Variable, disposed_error

_tensor_ids = itertools.count()
#: A plain function without these flags is neither a coroutine function nor an async generator
#: function: tidy checks them before asking ``inspect`` (which costs 2 us per call).
_ASYNC_FLAGS = inspect.CO_COROUTINE | inspect.CO_ITERABLE_COROUTINE | inspect.CO_ASYNC_GENERATOR
_new_tensor = object.__new__
#: The code object shared by every op wrapper (to find the running op when reporting errors).
_OP_WRAPPER_CODE: Any = None
_variable_ids = itertools.count()


class Scope:
    """One tidy scope: the tensors created while it was active.

    Ops do not get Scope objects: an op marks the active scope's ``track`` length on entry
    and, on exit, disposes whatever it added except its result (see ``Engine.make_op``).
    """

    __slots__ = ("track", "name", "id", "parent")

    def __init__(self, name: str, scope_id: int, parent: Scope | None):
        self.track: list[Tensor] = []
        self.name = name
        self.id = scope_id
        self.parent = parent


class ScopeContext:
    """The scope stack of one thread, or of one asyncio task inside ``async with
    tf.tidy_scope()``: threads and tasks never dispose each other's tensors."""

    __slots__ = ("active", "stack", "site", "top", "gradient_depth", "kernel_depth", "tape")

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


class EngineState:
    """Everything ``engine.reset()`` throws away."""

    __slots__ = (
        "registered_variables",
        "num_tensors",
        "num_string_tensors",
        "num_data_buffers",
        "num_bytes",
        "buffer_bytes",
        "peak_bytes",
        "byte_limit",
        "leaked",
        "next_scope_id",
        "taping",
        "profiling",
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
        #: Handles garbage-collected undisposed (TF.js would leak them silently).
        self.leaked: list[LeakedTensor] = []
        self.next_scope_id = 0
        #: Gradient calls running in any thread: while > 0, kernels take the instrumented path
        #: (which records them only for the calling thread's own tape).
        self.taping = 0
        self.profiling = False
        self.profile_kernels: list[KernelProfile] = []
        self.profile_scopes: list[ScopeEvent] = []

    @property
    def active_scope(self) -> Scope | None:
        """The calling thread's (or task's) innermost scope."""
        return current_context().active

    @property
    def scope_stack(self) -> list[Scope]:
        """The calling thread's (or task's) open scopes, outermost first."""
        return current_context().stack

    @property
    def gradient_depth(self) -> int:
        """How many gradient calls the calling thread is inside."""
        return current_context().gradient_depth

    @property
    def kernel_depth(self) -> int:
        return current_context().kernel_depth

    @property
    def active_tape(self) -> list | None:
        """The calling thread's tape (None when it records no gradient)."""
        return current_context().tape


class Engine:
    """The single engine (``tf.engine()``)."""

    def __init__(self) -> None:
        self.state = EngineState()
        self._factories: dict[str, tuple[Callable[[], Any], int]] = {}
        self._registry: dict[str, Any] = {}
        self.backend_name: str | None = None
        self._backend: Any = None
        self._kernels: dict[str, Callable] = {}
        #: Two-input kernels' shortcuts for buffers already of their tensors' shape and dtype
        #: (``XpKernel.bind_same_shape``), used by the fast op path.
        self._same_shape_kernels: dict[str, Callable] = {}
        #: The kernels that ops made with ``fast_kernel`` run (the shortcuts above are bound
        #: for these only).
        self._fast_kernel_names: set[str] = set()
        #: True when kernels must go through the instrumented path (profiling, tape, checks).
        self._slow = False
        #: True when a gradient tape is the only reason for the instrumented path.
        self._only_taping = False
        self.check_kernel_leaks = False
        self.memory_limit: int | None = None
        self.warn_leaks = True
        self.debug_mode = False
        #: Whether fused kernels may replace TF.js's op-by-op kernels (``may_fuse``).
        self.fuse_kernels = True
        self.track_sites = True
        #: Held while the kernel leak detector counts the backend's buffers around a kernel,
        #: and by every other writer of buffers while the detector is on (other threads).
        self._leak_check_lock = threading.RLock()
        kernel_registry.on_change(self._on_kernels_changed)

    # ================================================================ backends
    def register_backend(self, name: str, factory: Callable[[], Any], priority: int = 1) -> bool:
        if name in self._factories:
            warnings.warn(
                f"{name} backend was already registered. Reusing existing backend factory.",
                stacklevel=2,
            )
            return False
        self._factories[name] = (factory, priority)
        return True

    def remove_backend(self, name: str) -> None:
        if name not in self._factories:
            raise BackendNotFoundError(f"{name} backend not found in registry")
        if self.backend_name == name:
            self._backend = None
            self.backend_name = None
            self._kernels = {}
        instance = self._registry.pop(name, None)
        if instance is not None:
            self._dispose_backend(name, instance)
        del self._factories[name]

    def find_backend(self, name: str) -> Any:
        if name not in self._registry and name in self._factories:
            self._initialize_backend(name)
        return self._registry.get(name)

    def find_backend_factory(self, name: str) -> Callable[[], Any] | None:
        entry = self._factories.get(name)
        return entry[0] if entry else None

    def registered_backends(self) -> list[str]:
        return list(self._factories)

    def _initialize_backend(self, name: str) -> bool:
        factory, _ = self._factories[name]
        try:
            instance = factory()
        except Exception as exc:  # a failing backend is skipped, as in TF.js
            warnings.warn(f"Initialization of backend {name} failed: {exc}", stacklevel=3)
            return False
        self._registry[name] = instance
        return True

    def set_backend(self, name: str) -> bool:
        if name not in self._factories:
            raise BackendNotFoundError(f"Backend name '{name}' not found in registry")
        if name not in self._registry and not self._initialize_backend(name):
            return False
        self.backend_name = name
        self._backend = self._registry[name]
        self._rebuild_kernel_table()
        return True

    def get_backend(self) -> str | None:
        return self.backend_name

    @property
    def backend(self) -> Any:
        if self._backend is None:
            self._initialize_best_backend()
        return self._backend

    def ready(self) -> bool:
        self.backend  # noqa: B018 - initializes lazily
        return True

    def _initialize_best_backend(self) -> None:
        if not self._factories:
            raise BackendNotFoundError("No backend found in registry.")
        for name in sorted(self._factories, key=lambda n: -self._factories[n][1]):
            if name in self._registry or self._initialize_backend(name):
                self.set_backend(name)
                return
        raise BackendNotFoundError(
            "Could not initialize any backends, all backend initializations failed."
        )

    def _rebuild_kernel_table(self, setup: bool = True) -> None:
        """Binds the active backend's kernels; runs their ``setup_func`` only when the backend
        is set (TF.js's ``setupRegisteredKernels``), not when a kernel is (un)registered."""
        name = self.backend_name
        backend = self._backend
        table = {}
        same_shape = {}
        for config in kernel_registry.get_kernels_for_backend(name):
            if setup and config.setup_func is not None:
                config.setup_func(backend)
            table[config.kernel_name] = _bind(config.kernel_func, backend)
            bind_same_shape = getattr(config.kernel_func, "bind_same_shape", None)
            if bind_same_shape is not None and config.kernel_name in self._fast_kernel_names:
                fast = bind_same_shape(backend)
                if fast is not None:
                    same_shape[config.kernel_name] = fast
        self._kernels = table
        self._same_shape_kernels = same_shape

    def _on_kernels_changed(self, backend_name: str) -> None:
        if backend_name == self.backend_name and self._backend is not None:
            self._rebuild_kernel_table(setup=False)

    def _dispose_backend(self, name: str, instance: Any) -> None:
        """Runs the kernels' ``dispose_func`` then disposes the backend (TF.js's
        ``disposeRegisteredKernels`` + ``backend.dispose()``)."""
        for config in kernel_registry.get_kernels_for_backend(name):
            if config.dispose_func is not None:
                config.dispose_func(instance)
        instance.dispose()

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
        return self._make_tensor(data_id, shape, dtype, backend)

    def _make_tensor(
        self,
        data_id: Any,
        shape: tuple[int, ...],
        dtype: str,
        backend: Any,
        ctx: ScopeContext | None = None,
        site: Any = None,
    ) -> Tensor:
        """Wraps a buffer in a new handle and counts it (TF.js's ``trackTensor``). The fast
        op path passes the calling thread's ``ctx`` and the user's ``site`` it already has."""
        state = self.state
        if data_id.refs == 1:  # a fresh buffer: shared ones were inc_ref'd by their kernel
            # One in-place add: with the GIL, another thread cannot interleave inside it.
            state.buffer_bytes += data_id.nbytes
            if state.buffer_bytes > state.byte_limit:
                self._over_budget(data_id, shape, dtype)
            state.num_data_buffers += 1
        t = _new_tensor(Tensor)  # Tensor.__init__ written out: this is the per-op hot path
        t.id = next(_tensor_ids)
        t.data_id = data_id
        t._shape = shape
        t.dtype = dtype
        t.kept = False
        t._disposed = False
        state.num_tensors += 1
        if dtype != COMPLEX64:
            # A view may relabel its buffer's dtype (lossless casts), so count its own bytes.
            state.num_bytes += (
                data_id.nbytes
                if dtype is data_id.dtype or dtype == data_id.dtype
                else _logical_bytes(shape, dtype)
            )
            if dtype == STRING:
                state.num_string_tensors += 1
        if ctx is None:
            ctx = _get_context(None) or current_context()
        scope = ctx.active
        if scope is not None:
            scope.track.append(t)
            t.scope_id = scope.id
        else:
            t.scope_id = None
        if site is None and self.track_sites:
            site = ctx.site or sites.user_site(2)
        t._site = site
        return t

    def read_sync(self, t: Tensor, op_name: str) -> Any:
        data_id = t.data_id
        if data_id.refs <= 0 or not data_id.backend.alive:
            raise disposed_error(t, op_name)
        return data_id.backend.read_sync(data_id, t._shape, t.dtype)

    def dispose_tensor(self, t: Tensor, site: Any = None) -> None:
        """Drops one handle: counters down, buffer refcount down, buffer freed at zero."""
        t._disposed = True
        t._dispose_site = site
        data_id = t.data_id
        if data_id.refs <= 0 or not data_id.backend.alive:  # buffer already gone (engine reset)
            return
        state = self.state
        state.num_tensors -= 1
        dtype = t.dtype
        if dtype != COMPLEX64:
            state.num_bytes -= (
                data_id.nbytes
                if dtype is data_id.dtype or dtype == data_id.dtype
                else _logical_bytes(t._shape, dtype)
            )
            if dtype == STRING:
                state.num_string_tensors -= 1
        if data_id.backend.dispose_data(data_id):
            state.num_data_buffers -= 1
            live = state.buffer_bytes
            if live > state.peak_bytes:
                state.peak_bytes = live
            state.buffer_bytes = live - data_id.nbytes

    def _over_budget(self, data_id: Any, shape: tuple, dtype: str) -> None:
        """A fresh buffer took live buffer bytes past the memory limit: free it, take its
        bytes back and raise (nothing else was counted yet)."""
        state = self.state
        live = state.buffer_bytes
        state.buffer_bytes -= data_id.nbytes
        data_id.backend.dispose_data(data_id, True)
        raise ResourceExhaustedError(
            _budget_message(data_id.nbytes, shape, dtype, self.memory_limit, live - data_id.nbytes)
        )

    def set_memory_limit(self, limit: int | None) -> None:
        """Caps the bytes of live tensor buffers (None: no cap)."""
        self.memory_limit = None if limit is None else int(limit)
        self.state.byte_limit = math.inf if limit is None else self.memory_limit

    @property
    def peak_bytes(self) -> int:
        """The most bytes of live tensor buffers since the last ``reset_memory_stats``."""
        state = self.state
        return max(state.peak_bytes, state.buffer_bytes)

    def reset_memory_stats(self) -> None:
        self.state.peak_bytes = self.state.buffer_bytes

    # ================================================================ leaks
    def record_leak(self, t: Tensor) -> None:
        """A handle was garbage-collected undisposed while its buffer lives: keep it counted
        (as TF.js would), remember where it came from, and warn (``ResourceWarning``)."""
        data_id = t.data_id
        if data_id.refs <= 0 or not data_id.backend.alive:
            return
        record = LeakedTensor(t.id, data_id, t._shape, t.dtype, t._site)
        self.state.leaked.append(record)
        if self.warn_leaks:
            warnings.warn(
                f"Tensor {t.id} (shape={list(t._shape)}, dtype='{t.dtype}') created at "
                f"{sites.format_site(t._site)} was garbage-collected without being disposed; its "
                "buffer stays allocated. Dispose it, create it inside tf.tidy(), or call "
                "tf.dispose_leaked().",
                ResourceWarning,
                stacklevel=3,
            )

    def dispose_leaked(self) -> int:
        """Frees every buffer held by leaked handles; returns how many handles it released."""
        leaked, self.state.leaked = self.state.leaked, []
        for record in leaked:
            self.dispose_tensor(record)
        return len(leaked)

    def keep(self, result: Any) -> Any:
        for t in tensors_in(result):
            t.kept = True
        return result

    # ================================================================ variables
    def make_variable(
        self,
        initial_value: Tensor,
        trainable: bool = True,
        name: str | None = None,
        dtype: str | None = None,
    ) -> Variable:
        if name is None:
            name = str(next(_variable_ids))
        elif not isinstance(name, str):
            raise ArgumentTypeError(f"Variable name must be a string, got {type(name).__name__}")
        registered = self.state.registered_variables
        if name in registered:
            raise VariableExistsError(f"Variable with name {name} was already registered")
        if dtype is not None and dtype != initial_value.dtype:
            from .ops.transformations import cast

            initial_value = cast(initial_value, dtype)
        v = Variable.__new__(Variable)
        Tensor.__init__(
            v, initial_value._shape, initial_value.dtype, initial_value.data_id, next(_tensor_ids)
        )
        v.name = name
        v.trainable = trainable
        registered[name] = v
        self._inc_ref(v)
        return v

    def _inc_ref(self, v: Variable) -> None:
        """Counts a variable as a new handle on its (existing) buffer. Variables are never tracked."""
        data_id = v.data_id
        if data_id.refs <= 0 or not data_id.backend.alive:
            raise disposed_error(v, "variable")
        state = self.state
        state.num_tensors += 1
        if v.dtype != COMPLEX64:
            state.num_bytes += (
                data_id.nbytes if v.dtype == data_id.dtype else _logical_bytes(v._shape, v.dtype)
            )
            if v.dtype == STRING:
                state.num_string_tensors += 1
        data_id.backend.inc_ref(data_id)
        if self.track_sites and v._site is None:
            v._site = sites.user_site(2)

    def assign_variable(self, v: Variable, new_value: Tensor) -> None:
        # Validated by Variable.assign; from here nothing can fail.
        if new_value.data_id is v.data_id:
            return  # already aliased: dropping the old handle first would free the buffer
        self.dispose_tensor(v)
        v._disposed = False
        v._dispose_site = None
        v.data_id = new_value.data_id
        self._inc_ref(v)

    def dispose_variable(self, v: Variable, site: Any = None) -> None:
        self.dispose_tensor(v, site)
        if self.state.registered_variables.get(v.name) is v:
            del self.state.registered_variables[v.name]

    def dispose_variables(self) -> None:
        for v in list(self.state.registered_variables.values()):
            v.dispose()

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
        keep_ids = {id(t) for t in returned}
        note = None
        for t in scope.track:
            if not t.kept and not t._disposed and id(t) not in keep_ids:
                if note is None:
                    note = self._scope_end_note(scope)
                self.dispose_tensor(t, note)
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

    def _record_scope_event(self, kind: str, scope: Scope) -> None:
        state = self.state
        state.profile_scopes.append(
            ScopeEvent(
                kind=kind,
                name=scope.name,
                scope_id=scope.id,
                time=_time.perf_counter(),
                total_bytes_snapshot=state.num_bytes,
                total_tensors_snapshot=state.num_tensors,
            )
        )

    def may_fuse(self, gradient_depth: int = 0) -> bool:
        """Whether library code may run one fused kernel (``Tidy...`` kernel names) in place of
        TF.js's op-by-op kernels: not when ``tf.set_kernel_fusion(False)`` turned them off, nor
        while ``tf.profile`` lists kernels one by one, nor inside
        more than ``gradient_depth`` nested gradient calls (0: no tape is recording; 1: a
        first-order tape may record the fused kernel, whose own gradient is not taped)."""
        return (
            self.fuse_kernels
            and not self.state.profiling
            and current_context().gradient_depth <= gradient_depth
        )

    def pin_site(self) -> _PinnedSite:
        """``with ENGINE.pin_site():`` — library code that runs many ops for one user call
        (an optimizer step, a training batch) finds the user's line once, instead of every
        op walking the stack past the library's frames."""
        return _PinnedSite(self)

    def _scope_end_note(self, scope: Scope) -> tuple[str, Any]:
        """How a scope's end disposed a tensor: ``(scope name, site)``, formatted only if an
        error ever needs it (``tensor.disposed_error``)."""
        ctx = _get_context(None)
        site = ctx.site if ctx is not None else None
        return (scope.name, site if site is not None else sites.user_site(3))

    def dispose_site(self) -> Any:
        """Where the user disposed a tensor: the pinned site (``pin_site``) when library code
        runs for one user call, else the innermost user frame (for ``Tensor.dispose``)."""
        ctx = _get_context(None)
        site = ctx.site if ctx is not None else None
        return site if site is not None else sites.user_site(3)

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
        if type(result) is not Tensor and result is not None and inspect.isawaitable(result):
            self.end_scope(None)
            if inspect.iscoroutine(result):
                result.close()
            raise ArgumentTypeError(
                "The function passed to tidy() returned an awaitable: tidy is synchronous and "
                "cannot track tensors across 'await'. Dispose tensors by hand in async code."
            )
        self.end_scope(result)
        return result

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

        With ``fast_kernel``, calls whose arguments are all float32 tensors of one shape go
        straight to that kernel: the op body would only pass them through (no conversion,
        cast or broadcast check), and one kernel makes no temporaries to clean up.

        ``on_error(exc, args, kwargs)``, when given, may return the error to raise in place of
        ``exc`` once the op's temporaries are gone (None: ``exc`` propagates). It runs only on
        the error path, so it costs nothing on a successful call.
        """
        engine = self
        internal = sites.internal_codes
        site_table = sites._sites
        user_site = sites.user_site
        getframe = sys._getframe
        get_context = _get_context

        def capture(frame: Any) -> Any:
            code = frame.f_code
            by_offset = site_table.get(code)  # only user code has sites
            if by_offset is not None:
                site = by_offset.get(frame.f_lasti)
                if site is not None:
                    return site
            if internal.get(code) is False:
                return sites.site_of(code, frame.f_lasti)
            return user_site(3)

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
                ctx.site = capture(getframe(1))
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
            global _OP_WRAPPER_CODE
            _OP_WRAPPER_CODE = op_wrapper.__code__
            return op_wrapper
        if fast_kernel not in self._fast_kernel_names:
            self._fast_kernel_names.add(fast_kernel)
            if self._backend is not None:  # an op made after the backend started
                self._rebuild_kernel_table(setup=False)

        run_checked = self._run_checked
        make_tensor = self._make_tensor

        def fast_op_wrapper(*args: Any, **kwargs: Any) -> Any:
            if len(args) == 2 and not kwargs:
                a, b = args
                backend = engine._backend
                ok = (
                    type(a) is Tensor
                    and type(b) is Tensor
                    and a.dtype is FLOAT32
                    and b.dtype is FLOAT32
                    and not a._disposed
                    and not b._disposed
                    and a.data_id.backend is backend
                    and b.data_id.backend is backend
                    and a._shape == b._shape
                )
            elif len(args) == 1 and not kwargs:
                x = args[0]
                ok = (
                    type(x) is Tensor
                    and x.dtype is FLOAT32
                    and not x._disposed
                    and x.data_id.backend is engine._backend
                )
            else:
                ok = False
            ctx = get_context(None) or current_context()
            site = ctx.site
            if site is None and engine.track_sites:
                frame = getframe(1)  # capture() written out: the per-op hot path
                by_offset = site_table.get(frame.f_code)
                site = by_offset.get(frame.f_lasti) if by_offset is not None else None
                if site is None:
                    site = capture(frame)
            if not ok:
                # The general path, on the caller's site (its own lookup would find this frame).
                if ctx.site is not None or site is None:
                    return op_wrapper(*args, **kwargs)
                ctx.site = site
                try:
                    return op_wrapper(*args, **kwargs)
                finally:
                    ctx.site = None
            if len(args) == 2 and not engine._slow:
                # Both buffers hold float32 arrays of the tensors' shape: the kernel's math and
                # one new handle, nothing else.
                fast = engine._same_shape_kernels.get(fast_kernel)
                ra, rb = a.data_id, b.data_id
                if (
                    fast is not None
                    and ra.shape is a._shape
                    and rb.shape is b._shape
                    and ra.dtype is FLOAT32
                    and rb.dtype is FLOAT32
                ):
                    rec = fast(ra, rb)
                    if rec is not None:
                        return make_tensor(rec, rec.shape, rec.dtype, backend, ctx, site)
            if ctx.site is not None or site is None:
                return run_checked(fast_kernel, args, None)
            ctx.site = site
            try:
                return run_checked(fast_kernel, args, None)
            finally:
                ctx.site = None

        return fast_op_wrapper

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
    def run_kernel(self, kernel_name: str, inputs: tuple, attrs: dict | None = None) -> Any:
        """Runs one kernel on the active backend; returns a Tensor or a list of them."""
        backend = self._backend
        for t in inputs:
            if t._disposed or t.data_id.backend is not backend:
                self._check_input(t, kernel_name, backend)
        return self._run_checked(kernel_name, inputs, attrs)

    def _run_checked(self, kernel_name: str, inputs: tuple, attrs: dict | None) -> Any:
        """``run_kernel`` once its inputs are known to be live on the active backend."""
        kernel = self._kernels.get(kernel_name)
        if kernel is None:
            kernel = self._missing_kernel(kernel_name)
        backend = self._backend
        if self._slow:
            return self._run_kernel_instrumented(kernel_name, kernel, inputs, attrs)
        try:
            out = kernel(inputs, attrs)
        except TidyTensorError:
            raise
        except Exception as exc:
            out = self._kernel_retry(kernel_name, kernel, inputs, attrs, exc)
        tout = type(out)  # _adopt written out: the per-op hot path
        if tout is tuple:
            return self._make_tensor(out[0], out[1], out[2], backend)
        if tout is not list:
            return self._make_tensor(out, out.shape, out.dtype, backend)
        return [self._make_tensor(*_info(o), backend) for o in out]

    def _adopt(self, out: Any, backend: Any) -> Any:
        """A kernel's output record(s) as new handle(s): a Tensor, or a list for a list."""
        tout = type(out)
        if tout is tuple:  # a view of an existing buffer
            return self._make_tensor(out[0], out[1], out[2], backend)
        if tout is not list:  # a fresh buffer record
            return self._make_tensor(out, out.shape, out.dtype, backend)
        return [self._make_tensor(*_info(o), backend) for o in out]

    def _check_input(self, t: Tensor, kernel_name: str, backend: Any) -> None:
        """A disposed input raises; a live one on another backend moves here (TF.js's moveData)."""
        data_id = t.data_id
        if t._disposed or data_id.refs <= 0 or not data_id.backend.alive:
            raise disposed_error(t, self._op_name(kernel_name))
        source = data_id.backend
        values = source.read_sync(data_id, data_id.shape)
        refs = data_id.refs
        source.dispose_data(data_id, True)
        if self.check_kernel_leaks:  # not while a kernel counts the backend's buffers
            with self._leak_check_lock:
                moved = backend.write(values, data_id.shape, t.dtype)
        else:
            moved = backend.write(values, data_id.shape, t.dtype)
        data_id.values, data_id.backend, data_id.refs = moved.values, backend, refs

    def _kernel_retry(
        self, kernel_name: str, kernel: Callable, inputs: tuple, attrs: Any, exc: Exception
    ) -> Any:
        """Kernels follow IEEE semantics silently, as TF.js does (1/0 is Infinity). They run
        without an errstate guard (it costs more than a scalar op), so a user who turned
        floating-point warnings into errors sees one here: run the kernel again quietly."""
        if not isinstance(exc, (Warning, FloatingPointError)):
            raise self._kernel_failure(kernel_name, inputs, exc) from exc
        try:
            with self._backend.quiet():
                return kernel(inputs, attrs)
        except TidyTensorError:
            raise
        except Exception as again:
            raise self._kernel_failure(kernel_name, inputs, again) from again

    def _kernel_failure(self, kernel_name: str, inputs: tuple, exc: Exception) -> Exception:
        shapes = ", ".join(f"{t.dtype}{list(t._shape)}" for t in inputs)
        return KernelError(
            f"Kernel '{kernel_name}' (op '{self._op_name(kernel_name)}') failed on inputs "
            f"({shapes}): {type(exc).__name__}: {exc}"
        )

    def _missing_kernel(self, kernel_name: str) -> Callable:
        self.backend  # noqa: B018 - lazy backend initialization
        kernel = self._kernels.get(kernel_name)
        if kernel is None:
            raise KernelNotRegisteredError(
                f"Kernel '{kernel_name}' not registered for backend '{self.backend_name}'"
            )
        return kernel

    def _op_name(self, kernel_name: str) -> str:
        """The op the user called: the outermost running op wrapper (read from the call
        stack, on the error path only)."""
        name = None
        frame = sys._getframe(1)
        while frame is not None:
            if frame.f_code is _OP_WRAPPER_CODE:
                name = frame.f_locals["name"][:-4]
            frame = frame.f_back
        return name or kernel_name

    def update_mode(self) -> None:
        """Recomputes whether kernels take the instrumented path."""
        state = self.state
        watched = bool(state.profiling or self.check_kernel_leaks or self.debug_mode)
        self._slow = watched or state.taping > 0
        self._only_taping = self._slow and not watched

    def _call_kernel(self, kernel_name: str, kernel: Callable, inputs: tuple, attrs: Any) -> Any:
        ctx = current_context()
        ctx.kernel_depth += 1
        try:
            return kernel(inputs, attrs)
        except TidyTensorError:
            raise
        except Exception as exc:
            return self._kernel_retry(kernel_name, kernel, inputs, attrs, exc)
        finally:
            ctx.kernel_depth -= 1

    def _run_kernel_instrumented(
        self, kernel_name: str, kernel: Callable, inputs: tuple, attrs: Any
    ) -> Any:
        if self._only_taping:
            return self._run_kernel_taped(kernel_name, kernel, inputs, attrs)
        state = self.state
        backend = self._backend
        bytes_before, tensors_before = state.num_bytes, state.num_tensors
        start = _time.perf_counter()
        if self.check_kernel_leaks:
            # The detector compares the backend's global buffer count around the kernel:
            # no other thread may make buffers meanwhile (they take the lock to write).
            with self._leak_check_lock:
                before_ids = backend.num_data_ids()
                out = self._call_kernel(kernel_name, kernel, inputs, attrs)
                infos = [_info(o) for o in out] if type(out) is list else [_info(out)]
                new_ids = sum(1 for o in infos if o[0].refs == 1)
                leaked = backend.num_data_ids() - before_ids - new_ids
            if leaked > 0:
                raise KernelLeakError(
                    f"Backend '{self.backend_name}' has an internal memory leak ({leaked} data ids) "
                    f"after running '{kernel_name}'"
                )
        else:
            out = self._call_kernel(kernel_name, kernel, inputs, attrs)
            infos = [_info(o) for o in out] if type(out) is list else [_info(out)]
        elapsed_ms = (_time.perf_counter() - start) * 1000.0
        ctx = current_context()
        outputs = [self._make_tensor(o[0], o[1], o[2], backend) for o in infos]
        if self.debug_mode:
            _check_finite(kernel_name, outputs, inputs, backend)
        if ctx.gradient_depth > 0 and ctx.kernel_depth == 0 and self.record_tape is not None:
            # Before the profile entry: as in TF.js, the kernel's entry comes after those of
            # the Identity clones its gradient saves, and counts them.
            self.record_tape(kernel_name, inputs, outputs, attrs)
        if state.profiling:
            scope = current_context().active
            state.profile_kernels.append(
                KernelProfile(
                    name=kernel_name,
                    bytes_added=state.num_bytes - bytes_before,
                    total_bytes_snapshot=state.num_bytes,
                    tensors_added=state.num_tensors - tensors_before,
                    total_tensors_snapshot=state.num_tensors,
                    input_shapes=[list(t._shape) for t in inputs],
                    output_shapes=[list(t._shape) for t in outputs],
                    kernel_time_ms=elapsed_ms,
                    extra_info="",
                    scope=scope.name if scope is not None else None,
                    scope_id=scope.id if scope is not None else None,
                    start_time=start,
                )
            )
        return outputs if type(out) is list else outputs[0]

    def _run_kernel_taped(
        self, kernel_name: str, kernel: Callable, inputs: tuple, attrs: Any
    ) -> Any:
        """``_run_kernel_instrumented`` when a gradient tape is all that watches kernels."""
        result = self._adopt(self._call_kernel(kernel_name, kernel, inputs, attrs), self._backend)
        ctx = current_context()
        if ctx.gradient_depth > 0 and ctx.kernel_depth == 0:
            outputs = result if type(result) is list else [result]
            self.record_tape(kernel_name, inputs, outputs, attrs)
        return result

    #: Set by the autodiff module: records a kernel call on the active tape.
    record_tape: Callable | None = None

    # ================================================================ memory and profiling
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

    def profile(self, query: Callable[[], Any]) -> ProfileInfo:
        state = self.state
        was_profiling, saved = state.profiling, state.profile_kernels
        saved_scopes = state.profile_scopes
        state.profiling = True
        state.profile_kernels = []
        state.profile_scopes = []
        self.update_mode()
        start_bytes, start_tensors = state.num_bytes, state.num_tensors
        start_time = _time.perf_counter()
        try:
            result = query()
        finally:
            kernels, scopes = state.profile_kernels, state.profile_scopes
            state.profiling = was_profiling
            state.profile_kernels = saved
            state.profile_scopes = saved_scopes
            if was_profiling:
                saved.extend(kernels)
                saved_scopes.extend(scopes)
            self.update_mode()
        peak = max((k.total_bytes_snapshot for k in kernels), default=float("-inf"))
        return ProfileInfo(
            new_bytes=state.num_bytes - start_bytes,
            new_tensors=state.num_tensors - start_tensors,
            peak_bytes=peak,
            kernels=kernels,
            result=result,
            scope_events=scopes,
            start_time=start_time,
            start_bytes=start_bytes,
            start_tensors=start_tensors,
        )

    def time(self, query: Callable[[], Any]) -> dict[str, float]:
        start = _time.perf_counter()
        query()
        wall = (_time.perf_counter() - start) * 1000.0
        return TimingInfo(kernel_ms=wall, wall_ms=wall)

    def reset(self) -> None:
        """Disposes everything, zeroes every counter and frees every variable name."""
        for v in list(self.state.registered_variables.values()):
            v.dispose()
        self.state = EngineState()
        self.set_memory_limit(self.memory_limit)
        for name, instance in self._registry.items():
            self._dispose_backend(name, instance)
        self._registry.clear()
        self._backend = None
        self.backend_name = None
        self._kernels = {}
        _scope_context.set(ScopeContext())
        self.update_mode()


class _PinnedSite:
    """See ``Engine.pin_site``."""

    __slots__ = ("engine", "ctx", "pinned")

    def __init__(self, engine: Engine):
        self.engine = engine

    def __enter__(self) -> None:
        ctx = self.ctx = current_context()
        self.pinned = ctx.site is None and self.engine.track_sites
        if self.pinned:
            ctx.site = sites.user_site(2)

    def __exit__(self, *exc: Any) -> None:
        if self.pinned:
            self.ctx.site = None


def _budget_message(request: int, shape: tuple, dtype: str, limit: int, live: int) -> str:
    lines = [
        f"Allocating {request} bytes for a {dtype} tensor of shape {list(shape)} would take live "
        f"tensor memory to {live + request} bytes, past the limit of {limit} bytes "
        f"({live} bytes are live). Nothing was allocated; free tensors and try again.",
    ]
    largest = _largest_live_tensors(5)
    if largest:
        lines.append("Largest live tensors:")
        for t, nbytes in largest:
            leaked = " (garbage-collected undisposed)" if isinstance(t, LeakedTensor) else ""
            lines.append(
                f"  Tensor {t.id} shape={list(t._shape)} dtype={t.dtype}: {nbytes} bytes, "
                f"created at {sites.format_site(t._site)}{leaked}"
            )
    return "\n".join(lines)


def _largest_live_tensors(n: int) -> list[tuple[Tensor, int]]:
    """The n largest live handles (found through the garbage collector: error path only)."""
    import gc

    found: list[tuple[Any, int]] = []
    for obj in gc.get_objects():
        if (
            isinstance(obj, Tensor)
            and not obj._disposed
            and obj.data_id.refs > 0
            and obj.data_id.backend.alive  # not a handle from before a reset
        ):
            found.append((obj, obj.data_id.nbytes))
    for record in ENGINE.state.leaked:  # garbage-collected handles hold live buffers too
        if not record._disposed and record.data_id.refs > 0 and record.data_id.backend.alive:
            found.append((record, record.data_id.nbytes))
    found.sort(key=lambda pair: -pair[1])
    return found[:n]


def _logical_bytes(shape: tuple[int, ...], dtype: str) -> int:
    return math.prod(shape) * BYTES_PER_ELEMENT[dtype]


def _info(out: Any) -> tuple:
    """A kernel output as ``(data_id, shape, dtype)``."""
    return out if type(out) is tuple else (out, out.shape, out.dtype)


def _bind(kernel_func: Callable, backend: Any) -> Callable:
    def kernel(inputs: tuple, attrs: Any) -> Any:
        return kernel_func(inputs, attrs, backend)

    fast = getattr(kernel_func, "bind", None)
    return fast(backend) if fast is not None else kernel


def _check_finite(kernel_name: str, outputs: list[Tensor], inputs: tuple, backend: Any) -> None:
    for t in outputs:
        if t.dtype != "float32":
            continue
        bad = backend.count_non_finite(t.data_id)
        if bad:
            shapes = ", ".join(str(list(i._shape)) for i in inputs)
            message = f"Found {bad} in the result of '{kernel_name}' (input shapes: {shapes})"
            site = t._site or sites.user_site(2)
            if site is None:
                warnings.warn(message, RuntimeWarning, stacklevel=2)
            else:  # attributed to the user's line that ran the op, not to the engine
                warnings.warn_explicit(
                    message, RuntimeWarning, site[0].co_filename, sites.line_of(site)
                )


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


ENGINE = Engine()
_tensor_module._engine = ENGINE
