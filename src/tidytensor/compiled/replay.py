"""Replays: a trace's kernels as one straight-line Python function, and the commit after it.

``Replay`` turns a ``Plan`` into the source of one function, compiled once::

    def replay(t0, t1, t2):          # the arrays of the bound slots (args, variables)
        t5 = F0(t0, t1, xp=_xp, transpose_a=K0_0)  # an XpKernel's array function, with
                                     # its attributes as keywords (no partial to merge)
        if t5.dtype is not D5: t5 = _norm(t5, D5)
        del t0
        t6 = t5.reshape(S6)          # a view (reshape, identity, lossless cast)
        ...
        return (t9, t12)             # the survivors' arrays

It runs on the arrays themselves: no handle, no buffer record and no engine bookkeeping per
kernel. Its arguments come from ``bind(leaves)``, generated alongside: straight-line code that
checks each bound handle (argument, variable, captured constant) and views its buffer. Kernels that are not ``XpKernel``s get records made for them (``_call_raw``); random
ops are called again (``_host``). Nothing in the engine changes until the function has
returned; then ``commit`` makes the output handles, points the variables written at their
new buffers (``assign_variable``, as ``AtomicUpdate.commit`` does) and runs the optimizer's
commit actions, under ``critical_section()``. A replay that raises before the commit leaves
every variable and counter as it was.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from keyword import iskeyword
from typing import Any

import numpy as np

from .._handles import BackendBase, QuickReplay
from ..backends.array_backend import ArrayBackend, DataId, _relabel, new_record
from ..dtypes import BOOL, FLOAT32, INT32, NUMPY_DTYPE
from ..engine.state import current_context
from ..interrupts import critical_section
from ..sites import user_site
from .codegen import compile_source
from .fusion import fuse_chains
from .plan import Plan
from .scratch import ScratchPlan, make_scratch_plan
from .tracing import Slot, Step

__all__ = ["Replay", "ReplayRefused"]

_NO_LIMIT = float("inf")
#: Dtypes whose handles count their buffer's bytes (not complex64's three, nor strings').
_PLAIN = (FLOAT32, INT32, BOOL)


class ReplayRefused(Exception):
    """A replay cannot run this call (a captured tensor or variable was disposed, or the
    memory budget is short): the function runs the call eagerly instead."""

    def __init__(self, stale: bool) -> None:
        super().__init__("stale trace" if stale else "over budget")
        self.stale = stale


class _Arg:
    """A replayed value as a non-``XpKernel`` kernel reads a tensor."""

    __slots__ = ("data_id", "_shape", "dtype", "_disposed", "kept")

    def __init__(self, rec: Any, shape: tuple, dtype: str) -> None:
        self.data_id = rec
        self._shape = shape
        self.dtype = dtype
        self._disposed = False
        self.kept = False

    @property
    def shape(self) -> list[int]:
        return list(self._shape)

    @property
    def rank(self) -> int:
        return len(self._shape)

    @property
    def size(self) -> int:
        n = 1
        for d in self._shape:
            n *= d
        return n


def _seen_as(values: Any, shape: tuple, dtype: str) -> Any:
    """A buffer's values as a handle of ``shape`` and ``dtype`` sees them."""
    if values.shape != shape:
        values = values.reshape(shape)
    want = NUMPY_DTYPE[dtype]
    return values if values.dtype == want else values.astype(want)


def _call_raw(func: Any, backend: Any, arrays: tuple, specs: tuple, attrs: Any, multi: bool) -> Any:
    """A kernel taking handles (``fn(inputs, attrs, backend)``), on replayed arrays: each
    input gets a buffer record for the call only; the outputs come back as arrays."""
    args = tuple(
        _Arg(new_record(a, backend, a.nbytes, dtype), shape, dtype)
        for a, (shape, dtype) in zip(arrays, specs, strict=True)
    )
    try:
        out = func(args, attrs, backend)
        outs = out if type(out) is list else [out]
        values = []
        for o in outs:
            if type(o) is tuple:  # a view of an input's buffer
                values.append(_seen_as(o[0].values, o[1], o[2]))
            else:
                values.append(o.values)
                backend.dispose_data(o, True)
    finally:
        for a in args:
            backend.dispose_data(a.data_id, True)
    return values if multi else values[0]


def _host_call(fn: Callable, args: tuple, kwargs: dict, engine: Any) -> Callable[[], Any]:
    """A random op called again: its values as an array, its handle gone."""

    def host() -> Any:
        t = fn(*args, **kwargs)
        values = engine.backend.array(t)
        engine.dispose_tensor(t)
        return values

    return host


class Replay:
    """One signature's replay: ``replay(leaves)`` returns the call's output handles."""

    def __init__(
        self,
        engine: Any,
        slots: list[Slot],
        plan: Plan,
        outputs: list[int],
        assigns: list[tuple[Any, int]],
        actions: list[Callable[[], None]],
        name: str,
        eager_peak: int = 0,
    ) -> None:
        self.engine = engine
        self.backend = engine.backend
        self.plan = plan
        self.peak = plan.peak
        self.actions = tuple(actions)
        scratch_plan = (
            make_scratch_plan(slots, plan, max(plan.peak, eager_peak))
            if backend_is_numpy(self.backend)
            else None
        )
        #: The replay function (``compute``) and its source: one writing the values no caller
        #: sees into the scratch arrays (``scratch.py``) where the plan has any; then
        #: ``plain_compute`` (every value a new array) runs while they are not allocated.
        self.source, self.compute = _compile(slots, plan, self.backend, engine, name, scratch_plan)
        self.plain_compute = self.compute
        self.scratch: ScratchSet | None = None
        if scratch_plan is not None:
            self.scratch = ScratchSet(slots, scratch_plan, self.compute.__globals__)
            self.plain_compute = _compile(slots, plan, self.backend, engine, name)[1]
            weakref.finalize(self, self.scratch.release)
        # Binding: (leaf index, None) for arguments, (None, handle) for variables/captures.
        self.binds = tuple(
            (slots[s].source, None) if slots[s].kind == "arg" else (None, slots[s].source)
            for s in plan.bound
        )
        #: ``bind(leaves)``: the bound slots' arrays, each handle checked (straight-line code).
        self.bind = _compile_bind(self.binds, self.backend, name)
        bound_pos = {s: i for i, s in enumerate(plan.bound)}
        returned_pos = {s: i for i, s in enumerate(plan.returned)}

        def entry(s: int) -> tuple:
            """(root key, where the root's buffer comes from, shape, dtype, root dtype)."""
            slot = slots[s]
            root = slots[slot.root]
            if root.kind == "const":
                source = ("const", root.source)
            elif root.index in bound_pos:
                source = ("bound", bound_pos[root.index])
            else:
                source = ("made", returned_pos[root.index])
            return (root.index, source, slot.shape, slot.dtype, root.dtype)

        self.outputs = tuple(entry(s) for s in outputs)
        self.assigns = tuple((v, entry(s)) for v, s in assigns)
        roots = [root for root, (where, _at), *_ in self.outputs if where == "made"]
        #: Outputs only, each a buffer of its own the replay made (no variable written, no
        #: output repeated or viewing an argument): ``fresh`` commits them with no lookups.
        self.fresh = (
            tuple(
                (at, shape, dtype, root_dtype)
                for _r, (_w, at), shape, dtype, root_dtype in self.outputs
            )
            if not self.assigns
            and not self.actions
            and len(roots) == len(self.outputs)
            and len(set(roots)) == len(roots)
            else None
        )
        self._fresh_one = self.fresh[0] if self.fresh is not None and len(self.fresh) == 1 else None
        #: The quick route of a call with one fresh output (the per-op core's
        #: ``QuickReplay``: ``bind``, ``compute`` and the output's record and handle with no
        #: Python frame between them), or None: it runs while the scratch arrays are
        #: allocated and no budget or alert is armed (it returns None otherwise).
        self.quick: Any = None
        if (
            self._fresh_one is not None
            and self.scratch is not None
            and _binds_inline(self.backend)
            and isinstance(self.backend, BackendBase)
        ):
            self.quick = QuickReplay(
                engine,
                self.backend,
                tuple(-1 if leaf is None else leaf for leaf, _handle in self.binds),
                tuple(handle for _leaf, handle in self.binds),
                ReplayRefused,
                _relabel,
                self.compute,
                self.plain_compute,
                self.scratch,
                self.peak,
                self._fresh_one,
                DataId,
            )

    def __call__(self, leaves: list[Any], site: Any = None) -> list[Any]:
        """The output handles of a replay on ``leaves`` (its arguments). ``site``, from a
        caller that worked it out where the stack is short (``predict_fast.creation_site``):
        the outputs' creation site, as the eager call would note it; None: found here."""
        quick = self.quick
        if quick is not None:
            handle = quick(leaves, site)
            if handle is not None:
                return [handle]
        state = self.engine.state
        scratch = self.scratch
        if state.byte_limit == _NO_LIMIT and scratch is not None and scratch.state is state:
            if scratch.lock.acquire(False):  # one replay at a time writes into the arrays
                try:
                    made = self.compute(*self.bind(leaves))
                finally:
                    scratch.lock.release()
                peak = scratch.fresh_peak
            else:
                made = self.plain_compute(*self.bind(leaves))
                peak = self.peak
        elif scratch is not None and scratch.lock.acquire(False):
            try:
                made, peak = self._with_scratch(scratch, leaves, state)
            finally:
                scratch.lock.release()
        else:
            if state.buffer_bytes + self.peak > state.byte_limit:
                raise ReplayRefused(stale=False)
            made = self.plain_compute(*self.bind(leaves))
            peak = self.peak
        # Kernels that keep arrays between calls synced their idle bytes as they ran: an
        # output written into an array the engine counted as idle is no new memory.
        peak += state.buffer_bytes
        if self.fresh is not None and state.check_bytes == _NO_LIMIT:
            if peak > state.peak_bytes:
                state.peak_bytes = peak
            one = self._fresh_one
            if one is not None:  # the core finds the context and the user's site itself
                at, shape, dtype, root_dtype = one
                values = made[at]
                rec = new_record(values, self.backend, values.nbytes, root_dtype)
                return [self.engine._make_tensor(rec, shape, dtype, self.backend, None, site)]
            return self._commit_fresh(made, site)
        records = [
            (leaves[leaf] if handle is None else handle).data_id for leaf, handle in self.binds
        ]
        if not self.assigns and not self.actions:  # outputs only: no update to keep whole
            handles = self._unchecked_commit(made, records)
        else:
            with critical_section():
                handles = self._unchecked_commit(made, records)
                for action in self.actions:
                    action()
            del made, records
        if peak > state.peak_bytes:
            state.peak_bytes = peak
        return handles

    def _with_scratch(self, scratch: ScratchSet, leaves: list, state: Any) -> tuple[tuple, int]:
        """The replay's arrays, written into its scratch arrays (allocated and counted on the
        first call the budget allows: the arrays and the buffers the replay still makes),
        and the peak of those buffers; else the plain replay's, or a refusal."""
        limit = state.byte_limit
        arrays = self.bind(leaves)
        if scratch.state is not state:  # never allocated, or counted by an engine reset since
            scratch.release()
            # Past the limit, or past an armed memory alert (which only a tensor's buffer
            # fires): the plain replay, whose outputs are checked as the eager call's.
            if state.buffer_bytes + scratch.nbytes + scratch.fresh_peak > state.check_bytes:
                if state.buffer_bytes + self.peak > limit:
                    raise ReplayRefused(stale=False)
                return self.plain_compute(*arrays), self.peak
            scratch.allocate(state)
        elif state.buffer_bytes + scratch.fresh_peak > limit:
            raise ReplayRefused(stale=False)
        return self.compute(*arrays), scratch.fresh_peak

    @property
    def scratch_bytes(self) -> int:
        """Bytes of the scratch arrays this replay holds now (0 before its first call)."""
        scratch = self.scratch
        return 0 if scratch is None or scratch.views is None else scratch.nbytes

    def release(self) -> None:
        """Frees the scratch arrays (a later replay allocates them again)."""
        if self.scratch is not None:
            self.scratch.release()

    def _commit_fresh(self, made: tuple, site: Any = None) -> list[Any]:
        """``_commit`` for a ``fresh`` replay with no budget or alert armed: one new buffer
        and handle per output, counted as ``_commit`` counts them."""
        engine = self.engine
        backend = self.backend
        ctx = current_context()
        if site is None:
            site = ctx.site
            if site is None and engine.track_sites:
                site = user_site(3)
        make = engine._make_tensor
        return [
            make(
                new_record(made[at], backend, made[at].nbytes, root_dtype),
                shape,
                dtype,
                backend,
                ctx,
                site,
            )
            for at, shape, dtype, root_dtype in self.fresh
        ]

    def _unchecked_commit(self, made: tuple, records: list[Any]) -> list[Any]:
        """``_commit`` without the budget check per handle: the budget was checked for the
        whole replay, survivors included, so the commit cannot stop half-way."""
        state = self.engine.state
        limit, state.byte_limit = state.byte_limit, _NO_LIMIT
        try:
            return self._commit(made, records)
        finally:
            state.byte_limit = limit

    def _commit(self, made: tuple, records: list[Any]) -> list[Any]:
        """Output handles and variable writes, counted as the eager call counts them."""
        engine = self.engine
        backend = self.backend
        state = engine.state
        buffers: dict[int, Any] = {}  # root -> its record, made once per call
        claimed: set[int] = set()
        ctx = current_context()
        site = ctx.site
        if site is None and engine.track_sites and (self.outputs or self.assigns):
            site = user_site(4)  # once for the call's handles, not once per handle
        make = engine._make_tensor
        handles = []
        for root, (where, at), shape, dtype, root_dtype in self.outputs:
            rec = buffers.get(root)
            if rec is None:
                rec = buffers[root] = _record(where, at, made, records, backend, root_dtype)
            if where == "bound" or root in claimed:
                rec.refs += 1  # one more handle on a counted buffer
            claimed.add(root)
            handles.append(make(rec, shape, dtype, backend, ctx, site))
        holder = _Arg(None, (), "float32")
        for v, (root, (where, at), _shape, _dtype, root_dtype) in self.assigns:
            rec = buffers.get(root)
            if rec is None:
                rec = buffers[root] = _record(where, at, made, records, backend, root_dtype)
            fresh = where != "bound" and root not in claimed
            if fresh:  # the buffer the eager call's new value counted
                state.buffer_bytes += rec.nbytes
                state.num_data_buffers += 1
                claimed.add(root)
            old = v.data_id
            if (
                old is not rec
                and old.nbytes == rec.nbytes
                and old.dtype is rec.dtype
                and v.dtype is rec.dtype
                and v.dtype in _PLAIN
            ):
                # assign_variable's net effect when the handle's bytes do not change: the
                # variable's handle moves to the new buffer, the old one loses a reference.
                v.data_id = rec
                if not fresh:
                    rec.refs += 1
                if backend.dispose_data(old):
                    state.num_data_buffers -= 1
                    state.buffer_bytes -= old.nbytes
                continue
            holder.data_id = rec
            engine.assign_variable(v, holder)
            if fresh:
                rec.refs -= 1  # the new value's own handle, which the eager call disposed
        return handles


def backend_is_numpy(backend: Any) -> bool:
    """Whether ``backend`` runs kernels on NumPy arrays (where the out forms apply)."""
    return getattr(backend, "xp", None) is np


class ScratchSet:
    """A replay's scratch arrays (``scratch.py``): allocated by ``allocate`` and counted in
    the engine's live bytes until ``release`` (when the trace leaves its function's cache,
    the model is disposed, or the replay is garbage-collected). The replay function reads
    each slot's array as the global ``O<slot>`` (None while released)."""

    __slots__ = ("plan", "names", "specs", "views", "state", "lock", "nbytes", "fresh_peak")

    def __init__(self, slots: list[Slot], plan: ScratchPlan, names: dict) -> None:
        self.plan = plan
        self.names = names
        self.specs = tuple(
            (s, j, slots[s].shape, slots[s].np_dtype) for s, j in plan.array_of.items()
        )
        self.views: list[Any] | None = None
        #: The engine state whose live bytes count the arrays (None while released).
        self.state: Any = None
        self.lock = threading.Lock()
        self.nbytes = plan.nbytes
        self.fresh_peak = plan.fresh_peak

    def allocate(self, state: Any) -> None:
        arrays = [np.empty(size, dtype=np.uint8) for size in self.plan.sizes]
        views = []
        for s, j, shape, dtype in self.specs:
            view = arrays[j].view(dtype).reshape(shape)
            self.names[f"O{s}"] = view
            views.append(view)
        self.views = views
        self.state = state
        state.buffer_bytes += self.nbytes

    def release(self) -> None:
        if self.views is None:
            return
        for s, _j, _shape, _dtype in self.specs:
            self.names[f"O{s}"] = None
        self.views = None
        state, self.state = self.state, None
        if state.buffer_bytes > state.peak_bytes:
            state.peak_bytes = state.buffer_bytes  # the peak is kept where live bytes go down
        state.buffer_bytes -= self.nbytes


def _compile_bind(binds: tuple, backend: Any, name: str) -> Callable[[list], tuple]:
    """``bind(leaves)``: the arrays of the bound slots (an argument ``leaves[i]``, or a
    captured handle: a variable or a constant), as straight-line code. A disposed handle or
    a buffer gone or on another backend refuses the replay (``stale`` for a captured one:
    the trace holds it) before any kernel runs. Each array is ``backend.array(handle)``,
    written out in place for NumPy's backend (its buffer viewed with the handle's shape and
    dtype)."""
    names: dict[str, Any] = {
        "_A": backend.array,
        "_B": backend,
        "_R": ReplayRefused,
        "_L": _relabel,
    }
    inline = _binds_inline(backend)
    lines = ["def bind(leaves):"]
    for i, (leaf, handle) in enumerate(binds):
        if handle is None:
            lines.append(f"    h{i} = leaves[{leaf}]")
        else:
            names[f"V{i}"] = handle
            lines.append(f"    h{i} = V{i}")
        lines.append(f"    r{i} = h{i}.data_id")
        lines.append(
            f"    if h{i}._disposed or r{i}.refs <= 0 or r{i}.backend is not _B: "
            f"raise _R({handle is not None})"
        )
        if inline:
            lines.append(f"    s = h{i}._shape")
            lines.append(
                f"    a{i} = r{i}.values if r{i}.shape is s or r{i}.shape == s "
                f"else r{i}.values.reshape(s)"
            )
            lines.append(f"    if r{i}.dtype is not h{i}.dtype: a{i} = _L(a{i}, h{i}.dtype)")
        else:
            lines.append(f"    a{i} = _A(h{i})")
    items = ", ".join(f"a{i}" for i in range(len(binds)))
    lines.append(f"    return ({items}{',' if len(binds) == 1 else ''})")
    code = compile_source("\n".join(lines) + "\n", f"<tf.function {name} bind>")
    exec(code, names)  # noqa: S102 - our own generated straight-line code
    return names["bind"]


def _binds_inline(backend: Any) -> bool:
    """Whether ``backend.array(handle)`` is ``ArrayBackend``'s (its buffer viewed with the
    handle's shape and dtype), which ``bind`` writes out in place."""
    return getattr(type(backend), "array", None) is ArrayBackend.array


def _record(where: str, at: Any, made: tuple, records: list, backend: Any, dtype: str) -> Any:
    if where == "bound":
        return records[at]
    values = made[at] if where == "made" else at
    return new_record(values, backend, values.nbytes, dtype)


def _compile(
    slots: list[Slot],
    plan: Plan,
    backend: Any,
    engine: Any,
    name: str,
    scratch: ScratchPlan | None = None,
) -> tuple[str, Callable]:
    """The replay function's source and the function (see the module's doc); with
    ``scratch``, its steps write into the scratch arrays ``O<slot>`` through out forms."""
    names: dict[str, Any] = {
        "_norm": backend.xp.asarray,
        "_raw": _call_raw,
        "_B": backend,
        "_xp": backend.xp,
    }
    lines = [f"def replay({', '.join(f't{s}' for s in plan.bound)}):"]

    def ref(s: int) -> str:
        slot = slots[s]
        if slot.kind == "const":
            names[f"C{s}"] = slot.source
            return f"C{s}"
        return f"t{s}"

    steps, frees = fuse_chains(slots, plan, backend)  # elementwise runs as one GPU kernel
    for k, (step, dead) in enumerate(zip(steps, frees, strict=True)):
        form = None if scratch is None else scratch.forms.get(k)
        if form is not None:
            _emit_out_form(k, step, form, names, ref, lines)
        else:
            _emit(k, step, slots, backend, engine, names, ref, lines)
        if dead:
            lines.append(f"    del {', '.join(f't{s}' for s in dead)}")
    ret = ", ".join(f"t{s}" for s in plan.returned)
    lines.append(f"    return ({ret}{',' if len(plan.returned) == 1 else ''})")
    source = "\n".join(lines) + "\n"
    code = compile_source(source, f"<tf.function {name} replay>")
    exec(code, names)  # noqa: S102 - our own generated straight-line code
    return source, names["replay"]


def _emit_out_form(
    k: int, step: Step, form: Callable, names: dict, ref: Callable[[int], str], lines: list[str]
) -> None:
    """``t<s> = F<k>(ins, out=O<s>, xp=_xp, attrs)``: the kernel's out form writing into the
    output's scratch array (already of the output's dtype)."""
    names[f"F{k}"] = form
    s = step.outs[0]
    names.setdefault(f"O{s}", None)
    args = "".join(f"{ref(i)}, " for i in step.ins)
    keywords = _keywords(k, step, names)
    lines.append(f"    t{s} = F{k}({args}out=O{s}, {', '.join(keywords)})  # {step.name}")


def _keywords(k: int, step: Step, names: dict) -> list[str]:
    """``xp=_xp`` and the step's attributes as keywords, each a global of its own (a
    ``functools.partial`` would merge a dict of them on every call)."""
    keywords = ["xp=_xp"]
    odd = {}  # attributes not spelled as a keyword (never seen; kept as a dict)
    for j, (key, value) in enumerate((step.attrs or {}).items()):
        if not key.isidentifier() or iskeyword(key) or key in ("xp", "out"):
            odd[key] = value
            continue
        names[f"K{k}_{j}"] = value
        keywords.append(f"{key}=K{k}_{j}")
    if odd:
        names[f"KW{k}"] = odd
        keywords.append(f"**KW{k}")
    return keywords


def _emit(
    k: int,
    step: Step,
    slots: list[Slot],
    backend: Any,
    engine: Any,
    names: dict,
    ref: Callable[[int], str],
    lines: list[str],
) -> None:
    args = ", ".join(ref(s) for s in step.ins)
    outs = step.outs
    if step.kind == "view":
        src, out = slots[step.ins[0]], slots[outs[0]]
        expr = ref(src.index)
        if src.shape != out.shape:
            names[f"S{out.index}"] = out.shape
            expr += f".reshape(S{out.index})"
        if src.dtype != out.dtype:
            names[f"D{out.index}"] = out.np_dtype
            expr += f".astype(D{out.index})"
        lines.append(f"    t{out.index} = {expr}  # {step.name}")
        return
    if step.kind == "host":
        fn_args, fn_kwargs = step.attrs
        names[f"H{k}"] = _host_call(step.fn, fn_args, fn_kwargs, engine)
        lines.append(f"    t{outs[0]} = H{k}()  # {step.name}")
        return
    if step.kind == "xp":
        # The kernel itself with its attributes as keywords.
        names[f"F{k}"] = step.fn
        keywords = _keywords(k, step, names)
        call = f"F{k}({args}{', ' if args else ''}{', '.join(keywords)})"
    else:
        names[f"R{k}"] = step.fn
        names[f"P{k}"] = tuple((slots[s].shape, slots[s].dtype) for s in step.ins)
        names[f"A{k}"] = step.attrs
        comma = "," if len(step.ins) == 1 else ""
        call = f"_raw(R{k}, _B, ({args}{comma}), P{k}, A{k}, {step.multi})"
    if step.multi:
        lines.append(f"    _o = {call}  # {step.name}")
        for j, s in enumerate(outs):
            lines.append(f"    t{s} = _o[{j}]")
        lines.append("    del _o")
    else:
        lines.append(f"    t{outs[0]} = {call}  # {step.name}")
    if step.kind == "xp":
        for s in outs:
            names[f"D{s}"] = slots[s].np_dtype
            lines.append(f"    if t{s}.dtype is not D{s}: t{s} = _norm(t{s}, D{s})")
