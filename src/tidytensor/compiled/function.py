"""``tf.function``: trace on the first call per signature, replay after.

A call's *signature* is its tensors' shapes and dtypes, the values of its other arguments,
which of its tensors share a buffer, and the engine's kernel table (a new backend, a memory
limit or a registered kernel traces again). The first call with a signature runs eagerly
while a ``Tracer`` records it (``tracing.py``); later calls replay the recording
(``replay.py``), so Python side effects run only while tracing, as in TF 2.

Every call runs eagerly (as ``tidy(fn)``, the reference the replays equal bit for bit) when
``tf.config.run_functions_eagerly(True)`` is set, inside ``tf.profile``, under a gradient
tape, in debug mode or with the kernel leak detector on, inside an ``atomic_update`` block,
and inside another function being traced (whose trace then holds this one's kernels). A
signature whose trace read a value back to Python keeps running eagerly, with a warning
naming the line. A first trace that creates variables is not kept: the next call traces
again, and a trace after the first that creates variables raises.
"""

from __future__ import annotations

import functools
import warnings
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from ..engine import ENGINE
from ..engine.atomic_update import active_update
from ..errors import ArgumentTypeError
from ..tensor import Tensor, Variable
from .cache import EAGER, MAX_TRACES, TraceCache
from .plan import make_plan
from .replay import Replay, ReplayRefused
from .tracing import Tracer

__all__ = ["Function", "function", "quick_key"]

_SCALARS = (type(None), bool, int, float, str, bytes, complex)


class Function:
    """A traced-and-replayed function (``tf.function(fn)``); call it like ``fn``."""

    def __init__(
        self,
        fn: Callable,
        name: str | None = None,
        reduce_retracing: bool = False,
        jit_compile: bool | None = None,
        max_traces: int = MAX_TRACES,
    ) -> None:
        if not callable(fn):
            raise ArgumentTypeError(f"tf.function() needs a callable, but got {fn!r}")
        self.python_function = fn
        self.name = name or getattr(fn, "__name__", type(fn).__name__)
        #: Accepted as in TF 2 and Keras 3: a replay is specialized to one signature either
        #: way, and the kernels it replays are NumPy's (no XLA).
        self.reduce_retracing = bool(reduce_retracing)
        self.jit_compile = jit_compile
        self._cache = TraceCache(
            self.name, max_traces, before_change=self._sync_quick, after_change=self._prune_quick
        )
        self._traced_once = False
        self._busy = False
        self._warned: set[str] = set()
        self._bound: weakref.WeakKeyDictionary[Any, Function] = weakref.WeakKeyDictionary()
        #: ``quick_key`` -> (signature, its replay): calls whose arguments are plain tensors
        #: (or one list of them) find their replay without working out the whole signature.
        #: Each entry is ``[signature, replay, used, quick key]``: ``used`` marks a quick call since the
        #: cache last changed, which then counts as that signature's use (``_sync_quick``).
        self._quick: dict[tuple, list] = {}
        functools.update_wrapper(self, fn)

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        """On a method: one function (with its own traces) per instance, as in TF 2."""
        if instance is None:
            return self
        try:
            bound = self._bound.get(instance)
        except TypeError:  # not weakly referenceable: traces kept on the instance itself
            functions = instance.__dict__.setdefault("_tf_functions", {})
            bound = functions.get(id(self))
            if bound is None:
                bound = functions[id(self)] = self._bind(instance, owner)
            return bound
        if bound is None:
            bound = self._bound[instance] = self._bind(instance, owner)
        return bound

    def _bind(self, instance: Any, owner: Any) -> Function:
        return Function(
            self.python_function.__get__(instance, owner),
            self.name,
            self.reduce_retracing,
            self.jit_compile,
            self._cache.max_traces,
        )

    @property
    def tracing_count(self) -> int:
        """How many times this function traced (TF 2's ``experimental_get_tracing_count``)."""
        return self._cache.traces

    def experimental_get_tracing_count(self) -> int:
        return self._cache.traces

    @property
    def scratch_bytes(self) -> int:
        """Bytes of the scratch arrays this function's replays hold now: arrays kept from
        call to call for the values no caller sees (``compiled/scratch.py``), counted in the
        engine's live bytes (``tf.config.get_memory_info()['current']``)."""
        return self._cache.scratch_bytes()

    def release_scratch(self) -> None:
        """Frees the replays' scratch arrays now (their next calls allocate them again)."""
        self._cache.release_scratch()

    def replay_source(self, *args: Any, **kwargs: Any) -> str | None:
        """The straight-line replay of the trace for these arguments, as Python source (None
        if that signature has no trace, or runs eagerly)."""
        leaves: list[Any] = []
        entry = self._cache._entries.get(_signature(args, kwargs, leaves))
        return entry.source if isinstance(entry, Replay) else None

    def _must_run_eagerly(self) -> bool:
        """Whether calls run op by op now (see the module's doc)."""
        engine = ENGINE
        return bool(
            (engine._slow and _watched(engine))
            or engine.run_functions_eagerly
            or self._busy
            or active_update()
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._must_run_eagerly():
            return self._eager(args, kwargs)
        quick = None if kwargs else quick_key(args)
        if quick is not None:
            known = self._quick.get(quick)
            if known is not None:
                result = self.replayed_by(known, args)
                if result is not None:
                    return result
        leaves: list[Any] = []
        key = _signature(args, kwargs, leaves)
        entry = self._cache.get(key)
        if entry is EAGER:
            return self._eager(args, kwargs)
        if entry is not None:
            self._busy = True
            try:
                handles = entry(leaves)
            except ReplayRefused as refused:
                if refused.stale:
                    self._cache.drop(key)
                    return self._trace(key, leaves, args, kwargs)
                return self._eager(args, kwargs)
            except Exception:
                # A kernel failed (nothing was committed): the eager call raises the error
                # the op raises, with its name, or succeeds where a warning was an error.
                return self._eager(args, kwargs)
            finally:
                self._busy = False
            if quick is not None:
                if len(self._quick) >= self._cache.max_traces:
                    self._quick.clear()
                self._quick[quick] = [key, entry, False, quick]
            return entry.rebuild(handles, leaves)
        return self._trace(key, leaves, args, kwargs)

    def replayed(self, args: tuple) -> Any:
        """``self(*args)`` when a replay remembered for the arguments' ``quick_key`` runs
        it, else None (nothing ran): the cheap route of a caller that checked its
        arguments itself (``model.predict``), whose long way is a plain call."""
        return self.replayed_by(self.quick_entry(args), args)

    def quick_entry(self, args: tuple) -> list | None:
        """What this function remembers for the arguments' ``quick_key`` (its replay is
        ``[1]``), for a caller that keeps it and calls ``replayed_by``; None if nothing."""
        quick = quick_key(args)
        return None if quick is None else self._quick.get(quick)

    def replayed_by(self, known: list | None, args: tuple, site: Any = None) -> Any:
        """``replayed`` with the ``quick_entry`` of arguments like ``args`` (or None where
        it was forgotten since: its trace left the cache, or its replay refused): the call's
        result through that replay, or None where the whole signature must be worked out
        (the replay refused or raised: the long way retraces, runs eagerly or raises as it
        should). ``known`` is current: ``_prune_quick`` forgets what the cache drops.
        ``site``: the outputs' creation site where the caller has it (``Replay.__call__``)."""
        leaves = args[0] if len(args) == 1 and type(args[0]) is list else args
        entry = None if known is None else known[1]
        handles = self._replayed(known, entry, leaves, site, one=False)
        return None if handles is None else entry.rebuild(handles, leaves)

    def replayed_one(self, known: list | None, leaves: list, site: Any = None) -> Any:
        """``replayed_by`` for a ``quick_entry`` whose replay makes one fresh output and
        returns it alone (``PredictShortcut``): that handle, through the replay's
        ``quick`` route where it runs (``QuickReplay``: no list, no rebuild), or None where
        the whole signature must be worked out, as ``replayed_by``."""
        entry = None if known is None else known[1]
        return self._replayed(known, entry, leaves, site, one=True)

    def _replayed(self, known: Any, entry: Any, leaves: Any, site: Any, one: bool) -> Any:
        """The handles of ``entry``'s replay on ``leaves`` (``one``: its one output's handle,
        by its quick route where that runs), or None where the long way must run: nothing
        remembered, calls running op by op now, or the replay refused or raised (its quick
        entry is forgotten then)."""
        if entry is None or self._must_run_eagerly():
            return None
        self._busy = True
        try:
            if one:
                quick = entry.quick
                out = None if quick is None else quick(leaves, site)
                if out is None:
                    out = entry(leaves, site)[0]
            else:
                out = entry(leaves, site)
        except Exception:
            self._forget(known)
            return None
        finally:
            self._busy = False
        known[2] = True
        self._cache._recent.append(False)
        return out

    def _sync_quick(self) -> None:
        """Before the trace cache changes: the signatures quick calls used since the last
        change become its most recently used; after it (``_prune_quick``) the quick keys of
        dropped traces go."""
        cache = self._cache
        for known in self._quick.values():
            if known[2]:
                known[2] = False
                if known[0] in cache._entries:
                    cache.touch(known[0])

    def _prune_quick(self) -> None:
        entries = self._cache._entries
        for known in [known for known in self._quick.values() if known[0] not in entries]:
            self._forget(known)

    def _forget(self, known: list) -> None:
        """Drops a quick entry; a caller holding it (``replayed_by``) sees it forgotten."""
        known[1] = None
        self._quick.pop(known[3], None)

    def _eager(self, args: tuple, kwargs: dict) -> Any:
        fn = self.python_function
        return ENGINE.tidy(lambda: fn(*args, **kwargs))

    def _trace(self, key: Any, leaves: list, args: tuple, kwargs: dict) -> Any:
        engine = ENGINE
        self._cache.traced()
        tracer = Tracer(engine, self.name, may_create_variables=not self._traced_once)
        tracer.bind_args(leaves)
        fn = self.python_function
        engine.tracer = tracer
        engine.update_mode()
        self._busy = True
        state = engine.state
        start, peak_before = state.buffer_bytes, state.peak_bytes
        state.peak_bytes = start  # the traced (eager) call's own peak, measured from here
        try:
            result = engine.tidy(lambda: fn(*args, **kwargs))
        finally:
            self._busy = False
            engine.tracer = None
            engine.update_mode()
            eager_peak = max(state.peak_bytes, state.buffer_bytes) - start
            state.peak_bytes = max(state.peak_bytes, peak_before)
        self._traced_once = True
        tracer.check_escapes(result)
        if tracer.broken is not None:
            self._cache.put(key, EAGER)
            if tracer.broken not in self._warned:
                self._warned.add(tracer.broken)
                warnings.warn(
                    f"tf.function '{self.name}' runs eagerly for this input signature: "
                    f"{tracer.broken}. A replay would repeat what the trace saw there instead "
                    "of running it again, so every call with this signature runs op by op.",
                    RuntimeWarning,
                    stacklevel=3,
                )
        elif tracer.created_variables:
            pass  # made its variables: the next call traces the function as it now runs
        else:
            replay = _build(engine, tracer, result, leaves, self.name, eager_peak)
            self._cache.put(key, replay)
        return result


def _watched(engine: Any) -> bool:
    """Whether something watches kernels one by one (a trace around this call, a tape,
    ``tf.profile``, debug mode): then the call runs eagerly, where they see each kernel. The
    kernel leak detector alone does not count: it checks the kernels a trace runs."""
    state = engine.state
    return engine.tracer is not None or state.taping > 0 or state.profiling or engine.debug_mode


def _build(
    engine: Any, tracer: Tracer, result: Any, leaves: list, name: str, eager_peak: int = 0
) -> Replay:
    """The replay of a finished trace whose call returned ``result``; ``eager_peak``: the
    most bytes that call allocated at once (its scratch arrays may not hold more)."""
    outputs: list[int] = []
    leaf_ids = {id(t): i for i, t in enumerate(leaves)}

    def template(obj: Any) -> Any:
        if isinstance(obj, Tensor):
            if id(obj) in leaf_ids:
                return _Leaf(leaf_ids[id(obj)])
            if isinstance(obj, Variable):
                return _Fixed(obj)
            s = tracer.slot_of(obj)
            if s not in outputs:
                outputs.append(s)
            return _Out(outputs.index(s))
        if isinstance(obj, (list, tuple)):
            items = [template(x) for x in obj]
            return items if type(obj) is list else type(obj)(items)
        if isinstance(obj, dict):
            return {k: template(v) for k, v in obj.items()}
        return obj

    shape = template(result)
    assigns = list(tracer.assigns.values())
    survivors = outputs + [s for _, s in assigns]
    plan = make_plan(tracer.slots, tracer.steps, survivors)
    replay = Replay(
        engine, tracer.slots, plan, outputs, assigns, tracer.commit_actions, name, eager_peak
    )
    replay.rebuild = _rebuilder(shape)  # type: ignore[attr-defined]
    return replay


class _Out:
    __slots__ = ("i",)

    def __init__(self, i: int) -> None:
        self.i = i


class _Leaf(_Out):
    """An argument returned as it is (the eager call returns the same handle)."""


class _Fixed:
    """A variable returned (the eager call returns the variable itself)."""

    __slots__ = ("obj",)

    def __init__(self, obj: Any) -> None:
        self.obj = obj


def _rebuilder(shape: Any) -> Callable[[list, list], Any]:
    """``rebuild(handles, leaves)``: the call's result, shaped as the traced call's."""
    if type(shape) is _Out:
        i = shape.i
        return lambda handles, leaves: handles[i]
    if type(shape) is list and all(type(x) is _Out for x in shape):
        order = [x.i for x in shape]
        if order == list(range(len(order))):
            return lambda handles, leaves: list(handles)
        return lambda handles, leaves: [handles[i] for i in order]

    def fill(obj: Any, handles: list, leaves: list) -> Any:
        t = type(obj)
        if t is _Out:
            return handles[obj.i]
        if t is _Leaf:
            return leaves[obj.i]
        if t is _Fixed:
            return obj.obj
        if t is list:
            return [fill(x, handles, leaves) for x in obj]
        if isinstance(obj, tuple):
            return type(obj)(fill(x, handles, leaves) for x in obj)
        if t is dict:
            return {k: fill(v, handles, leaves) for k, v in obj.items()}
        return obj

    return lambda handles, leaves: fill(shape, handles, leaves)


def quick_key(args: tuple) -> tuple | None:
    """A call's signature when its arguments are plain tensors, or one list of them, all on
    buffers of their own: their shapes and dtypes, with the engine's kernel table and fusion
    switch. None for any other call (it takes ``_signature``)."""
    engine = ENGINE
    if len(args) == 1 and type(args[0]) is list:
        items = args[0]
        kind: Any = list
    else:
        items = args
        kind = tuple
    if len(items) == 1:
        t = items[0]
        if type(t) is not Tensor:
            return None
        return (kind, t._shape, t.dtype, id(engine._kernels), engine.fuse_kernels)
    specs = []
    buffers = set()
    for t in items:
        if type(t) is not Tensor:
            return None
        specs.append((t._shape, t.dtype))
        buffers.add(id(t.data_id))
    if len(buffers) < len(items):
        return None  # shared buffers: the signature notes which
    return (kind, tuple(specs), id(engine._kernels), engine.fuse_kernels)


def _signature(args: tuple, kwargs: dict, leaves: list) -> Any:
    """The cache key of a call (see the module's doc); fills ``leaves`` with its tensors."""
    key = (_spec(args, leaves), _spec(kwargs, leaves) if kwargs else None)
    if len(leaves) > 1:
        ids = [id(t.data_id) for t in leaves]
        if len(set(ids)) < len(ids):  # shared buffers: the trace reads them as one value
            key += (tuple(ids.index(i) for i in ids),)
    return (key, id(ENGINE._kernels), ENGINE.fuse_kernels)


def _spec(obj: Any, leaves: list) -> Any:
    t = type(obj)
    if t is Tensor or t is Variable or isinstance(obj, Tensor):
        leaves.append(obj)
        return (obj._shape, obj.dtype, t is Variable)
    if t is list or t is tuple:
        return (t, tuple(_spec(x, leaves) for x in obj))
    if t in _SCALARS:
        return (t, obj)
    if isinstance(obj, dict):
        return (dict, tuple((k, _spec(v, leaves)) for k, v in obj.items()))
    if isinstance(obj, (list, tuple)):
        return (t, tuple(_spec(x, leaves) for x in obj))
    if isinstance(obj, np.ndarray):
        return (np.ndarray, obj.shape, obj.dtype.str, obj.tobytes())
    try:
        hash(obj)
    except TypeError:
        return (t, id(obj))
    return (t, obj)


def function(
    fn: Callable | None = None,
    *,
    jit_compile: bool | None = None,
    reduce_retracing: bool = False,
    name: str | None = None,
) -> Any:
    """``tf.function``: ``fn`` traced on its first call per signature and replayed after
    (see the module's doc). As a call (``tf.function(fn)``) or a decorator, with or
    without arguments (``@tf.function(reduce_retracing=True)``). ``jit_compile`` and
    ``reduce_retracing`` are accepted as TF 2 takes them; a replay is specialized to one
    signature either way.
    """

    def wrap(f: Callable) -> Function:
        return Function(f, name=name, reduce_retracing=reduce_retracing, jit_compile=jit_compile)

    return wrap(fn) if fn is not None else wrap
