"""Tracing: one eager call of a ``tf.function`` whose kernel calls are recorded.

While a ``Tracer`` is the engine's ``tracer``, every kernel call takes the watched route and
``KernelWatch.finish`` hands the top-level ones (kernels that kernels run are part of their
caller) to ``record_kernel``. The function runs eagerly, as it would without tracing; the
tracer only notes which values flow where, as *slots*:

- ``arg``: a tensor leaf of the call's arguments (bound again on each replay);
- ``var``: a variable the function reads (its value when the replay starts);
- ``capt``: a tensor made before the call and captured by the function (a closure);
- ``const``: a tensor made during the call from Python values (``tf.scalar(2)``): its values
  are frozen into the trace, as TF 2 freezes Python values;
- ``step``: an output of a recorded kernel call, or of a host call (a random op, whose
  values are drawn again on each replay: ``ops._op.drawn_per_call``).

A read back to Python (``data_sync``, ``float(t)``, ``if t:``) marks the trace *broken*: the
call completes eagerly, and that signature keeps running eagerly (``function.py``), so no
stale value is ever replayed. Variable writes, optimizer commit actions and new variables
are reported by the engine and ``AtomicUpdate``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import kernel_registry, sites
from ..backends.array_backend import XpKernel
from ..dtypes import NUMPY_DTYPE, STRING
from ..engine.engine import tensors_in
from ..errors import TidyTensorError
from ..tensor import Tensor, Variable, id_mark

__all__ = ["Slot", "Step", "Tracer", "VariableCreationError"]


class VariableCreationError(TidyTensorError, ValueError):
    """A ``tf.function`` made a variable on a call after its first (TF 2's rule)."""


class Slot:
    """One value of the trace: its shape and dtype as the handle sees it, and where it comes
    from (``kind``: arg, var, capt, const, step)."""

    __slots__ = ("index", "kind", "shape", "dtype", "np_dtype", "nbytes", "root", "source")

    def __init__(self, index: int, kind: str, shape: tuple, dtype: str, source: Any = None):
        self.index = index
        self.kind = kind
        self.shape = shape
        self.dtype = dtype
        self.np_dtype = NUMPY_DTYPE[dtype]
        self.nbytes = 0  # bytes of a buffer this slot's step makes (0 for views)
        self.root = index  # the slot whose buffer this one views (itself if it owns one)
        self.source = source  # arg: leaf index; var/capt: the handle; const: the array


class Step:
    """One recorded call: ``kind`` is ``xp`` (an ``XpKernel``'s array function), ``raw``
    (any other kernel, called with handles), ``view`` (an output sharing its input's
    buffer: reshape, identity, lossless cast) or ``host`` (a random op called again)."""

    __slots__ = ("kind", "name", "fn", "attrs", "ins", "outs", "multi")

    def __init__(self, kind: str, name: str, fn: Any, attrs: Any, ins: tuple, outs: tuple):
        self.kind = kind
        self.name = name
        self.fn = fn
        self.attrs = attrs
        self.ins = ins
        self.outs = outs
        self.multi = False


class Tracer:
    """Records one call (see the module's doc). ``may_create_variables``: whether this trace
    may make variables (only a function's first trace may)."""

    def __init__(self, engine: Any, fn_name: str, may_create_variables: bool) -> None:
        self.engine = engine
        self.fn_name = fn_name
        self.may_create_variables = may_create_variables
        self.backend = engine.backend
        self.backend_name = engine.backend_name
        self.slots: list[Slot] = []
        self.steps: list[Step] = []
        self.by_key: dict[tuple, int] = {}  # (id(buffer), shape, dtype) -> slot
        self.by_record: dict[int, int] = {}  # id(buffer) -> the slot that owns it
        self.var_slot: dict[int, int] = {}  # id(variable) -> its value's slot now
        self.assigns: dict[int, tuple[Variable, int]] = {}
        self.commit_actions: list[Callable[[], None]] = []
        self.created_variables = 0
        #: Tensors made during the call and passed to ``tf.keep``, with the keep's site.
        self.kept: list[tuple[Tensor, Any]] = []
        self.broken: str | None = None  # why this call cannot be replayed
        #: Kernels running now (``KernelWatch``): one a kernel runs is not recorded apart.
        #: (Not ``kernel_depth``: ``custom_grad`` raises that around its forward function,
        #: whose kernels must be recorded.)
        self.kernels_running = 0
        self._alive: list[Any] = []  # keeps every id() above unique while tracing
        self._kernel_funcs: dict[str, Any] = {}
        self.first_tensor_id = id_mark()

    # ------------------------------------------------------------------ slots
    def _new_slot(self, kind: str, shape: tuple, dtype: str, source: Any = None) -> int:
        slot = Slot(len(self.slots), kind, tuple(shape), dtype, source)
        self.slots.append(slot)
        return slot.index

    def bind_args(self, leaves: list[Tensor]) -> list[int]:
        """Slots for the call's tensor leaves (a variable leaf is read like a ``var``)."""
        out = []
        for i, t in enumerate(leaves):
            s = self._new_slot("arg", t._shape, t.dtype, i)
            if isinstance(t, Variable):
                self.var_slot[id(t)] = s
            else:
                self._register(t, s, owner=True)
            out.append(s)
        return out

    def _register(self, t: Tensor, s: int, owner: bool) -> None:
        rec = t.data_id
        self._alive.append(rec)
        self._alive.append(t)
        self.by_key[(id(rec), t._shape, t.dtype)] = s
        if owner:
            self.by_record.setdefault(id(rec), s)

    def slot_of(self, t: Tensor) -> int:
        """The slot holding ``t``'s value now, making an external one the first time."""
        if isinstance(t, Variable):
            s = self.var_slot.get(id(t))
            if s is None:
                s = self._new_slot("var", t._shape, t.dtype, t)
                self.var_slot[id(t)] = s
                self._alive.append(t)
                self.by_record.setdefault(id(t.data_id), s)
                self._alive.append(t.data_id)
            return s
        rec = t.data_id
        s = self.by_key.get((id(rec), t._shape, t.dtype))
        if s is not None:
            return s
        owner = self.by_record.get(id(rec))
        if owner is not None:  # another handle on a traced buffer (hold_handle, a view)
            s = self._new_slot("step", t._shape, t.dtype)
            self.slots[s].root = self.slots[owner].root
            self.steps.append(Step("view", "view", None, None, (owner,), (s,)))
        elif t.id > self.first_tensor_id:  # made during the call, by no traced kernel
            self._break(f"a {t.dtype} tensor of shape {list(t._shape)} made outside any kernel")
            s = self._new_slot("capt", t._shape, t.dtype, t)
        else:
            s = self._new_slot("capt", t._shape, t.dtype, t)
        self._register(t, s, owner=True)
        return s

    # ------------------------------------------------------------------ hooks
    def on_host_tensor(self, t: Tensor) -> None:
        """A tensor made from Python values during the call (``tf.scalar(2)``): a constant
        of the trace, its values frozen as TF 2 freezes Python values."""
        if self.broken is not None or self.kernels_running:
            return
        if t.dtype == STRING:
            self._break("a string tensor")
            return
        s = self._new_slot("const", t._shape, t.dtype, self.backend.array(t))
        self._register(t, s, owner=True)

    def record_kernel(self, kernel_name: str, inputs: tuple, result: Any, attrs: Any) -> None:
        """A top-level kernel call has run (``KernelWatch.finish``)."""
        if self.broken is not None:
            return
        ins = tuple(self.slot_of(t) for t in inputs)
        outputs = result if type(result) is list else [result]
        outs = []
        viewed = []
        for o in outputs:
            if o.dtype == STRING:
                self._break(f"the string kernel '{kernel_name}'")
                return
            s = self._new_slot("step", o._shape, o.dtype)
            src = next((i for i, t in enumerate(inputs) if t.data_id is o.data_id), None)
            if src is not None:
                self.slots[s].root = self.slots[ins[src]].root
                viewed.append((ins[src], s))
            else:
                self.slots[s].nbytes = o.data_id.nbytes
            self._register(o, s, owner=src is None)
            outs.append(s)
        if viewed and len(viewed) == len(outputs) == 1:
            self.steps.append(Step("view", kernel_name, None, None, (viewed[0][0],), tuple(outs)))
            return
        func = self._kernel_func(kernel_name)
        if isinstance(func, XpKernel) and not viewed:
            step = Step("xp", kernel_name, func.fn, attrs, ins, tuple(outs))
        else:
            step = Step("raw", kernel_name, func, attrs, ins, tuple(outs))
            if viewed:  # a raw kernel returning views next to new buffers: values only
                for _, s in viewed:
                    self.slots[s].root = s
                    self.slots[s].nbytes = self.slots[s].np_dtype.itemsize * _size(
                        self.slots[s].shape
                    )
        step.multi = type(result) is list
        self.steps.append(step)

    def _kernel_func(self, kernel_name: str) -> Any:
        func = self._kernel_funcs.get(kernel_name)
        if func is None:
            config = kernel_registry.get_kernel(kernel_name, self.backend_name)
            func = self._kernel_funcs[kernel_name] = config.kernel_func
        return func

    def record_host_call(self, fn: Callable, args: tuple, kwargs: dict) -> Any:
        """A random op (``drawn_per_call``): run it untraced now, and again on each replay."""
        engine = self.engine
        engine.tracer = None
        engine.update_mode()
        try:
            t = fn(*args, **kwargs)
        finally:
            engine.tracer = self
            engine.update_mode()
        if self.broken is not None:
            return t
        if tensors_in((args, kwargs)) or not isinstance(t, Tensor):
            self._break(f"'{getattr(fn, '__name__', fn)}' given a tensor argument")
            return t
        s = self._new_slot("step", t._shape, t.dtype)
        self.slots[s].nbytes = t.data_id.nbytes
        self._register(t, s, owner=True)
        self.steps.append(
            Step("host", getattr(fn, "__name__", "host"), fn, (args, kwargs), (), (s,))
        )
        return t

    def on_read(self, t: Tensor, op_name: str) -> None:
        """A value read back to Python: this call cannot be replayed."""
        if self.broken is None:
            self._break(f"'{op_name}' read a tensor's value back to Python")

    def on_keep(self, tensors: list[Tensor]) -> None:
        """``tf.keep`` of tensors: one made during the call and still alive when it returns,
        but not returned, escapes the call (``check_escapes``)."""
        made = [t for t in tensors if t.id > self.first_tensor_id and not isinstance(t, Variable)]
        if made and self.broken is None:
            site = sites.user_site(3)
            self.kept.extend((t, site) for t in made)

    def check_escapes(self, result: Any) -> None:
        """After the traced call returned ``result``: a kept tensor that outlives the call
        without being returned reached the caller through a Python side effect (a list, an
        attribute), which a replay would not run again; that signature runs eagerly, where
        every call's ``tf.keep`` hands out its own tensor (TF 2's kept tensor escapes)."""
        if self.broken is not None or not self.kept:
            return
        returned = {id(t) for t in tensors_in(result)}
        for t, site in self.kept:
            if not t._disposed and t.data_id.refs > 0 and id(t) not in returned:
                where = sites.format_site(site) if site is not None else "the function"
                self.broken = (
                    f"tf.keep at {where} kept a {t.dtype} tensor of shape {list(t._shape)} "
                    f"that tf.function '{self.fn_name}' does not return (it leaves the call "
                    "through a Python side effect, which a replay would not run again)"
                )
                return

    def on_assign(self, v: Variable, new_value: Tensor) -> None:
        if self.broken is not None:
            return
        s = self.slot_of(new_value)
        self.assigns[id(v)] = (v, s)
        self.var_slot[id(v)] = s
        self._alive.append(v)

    def on_new_variable(self, name: str) -> None:
        if not self.may_create_variables:
            raise VariableCreationError(
                f"tf.function '{self.fn_name}' tried to create the variable '{name}' on a call "
                "after its first: a tf.function may create variables only on its first call "
                "(make them outside the function, or once, e.g. behind 'if v is None')"
            )
        self.created_variables += 1

    def on_commit_action(self, action: Callable[[], None]) -> None:
        self.commit_actions.append(action)

    def _break(self, what: str) -> None:
        site = sites.user_site(3)
        where = sites.format_site(site) if site is not None else "the function"
        self.broken = f"{what} at {where}"


def _size(shape: tuple) -> int:
    n = 1
    for d in shape:
        n *= d
    return n
