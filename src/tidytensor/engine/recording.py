"""The tape's recording: which kernel calls a gradient call records, the tensors their
gradients need (``save``), the tape's start and end, and ``custom_grad``'s nodes.

``tape`` holds the tape itself and the reverse walk; this module fills it. The engine calls
``record`` (installed as ``Engine.record_tape``) for every kernel that runs while a gradient
call records on the calling thread. Nothing here imports an op: the one kernel the recording
runs itself (a saved clone's ``Identity`` gradient, a ``Cast``) goes through the engine.
``autodiff`` (above the ops) drives whole gradient calls.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from .. import _handles, kernel_registry
from .. import kernel_names as k
from ..callables import positional_arity
from ..errors import ArgumentTypeError, GradientError
from ..interrupts import HELD, interruption_point
from ..tensor import Tensor
from .engine import ENGINE, tensors_in
from .state import Scope, current_context
from .tape import TapeNode, _check_gradient, _input_name

__all__ = ["custom_grad", "end_tape", "free_tape", "record", "save_tensors", "start_tape"]

_node_ids = itertools.count()


def save_tensors(tensors: list[Tensor]) -> list[Tensor]:
    """Kept clones of tensors a gradient needs (TF.js's saveTensorsForBackwardMode).

    Inside a nested gradient call each clone is taped as an Identity of its original, so the
    outer gradient can follow the path through saved tensors. An outermost call's gradient
    functions run after its tape stops recording, so there nothing would ever follow them.
    """
    if ENGINE.state.profiling:
        return _save_profiled(tensors)
    saved = []
    ctx = current_context()
    tape = ctx.tape if ctx.gradient_depth > 1 else None
    make_tensor = ENGINE._make_tensor
    for t in tensors:
        backend = t.data_id.backend
        info = backend.share(t, t._shape)
        clone = make_tensor(info[0], info[1], info[2], backend)
        clone.kept = True
        saved.append(clone)
        if tape is not None:
            tape.append(
                TapeNode(next(_node_ids), "Identity", (t,), [clone], [], _identity_grad, None)
            )
    return saved


def _save_profiled(tensors: list[Tensor]) -> list[Tensor]:
    """``save_tensors`` while profiling: TF.js clones through the Identity kernel, so
    profiles list it."""
    saved = []
    for t in tensors:
        clone = ENGINE.run_kernel(k.IDENTITY, (t,))
        clone.kept = True
        saved.append(clone)
    return saved


def _identity_grad(dy: Tensor, saved: list[Tensor], attrs: Any) -> list[Callable[[], Tensor]]:
    # tf.cast(dy, 'float32')'s kernel (the engine sits below the ops).
    return [lambda: ENGINE.run_kernel(k.CAST, (dy,), {"dtype": "float32"})]


def record(kernel_name: str, inputs: tuple, outputs: list[Tensor], attrs: Any) -> None:
    """Engine hook: adds one kernel call to the active tape."""
    tape = current_context().tape
    if tape is None:
        return
    config = kernel_registry.get_gradient(kernel_name)
    if config is None:
        tape.append(TapeNode(next(_node_ids), kernel_name, inputs, outputs, [], None, attrs))
        return
    if config.save_all_inputs:
        to_save = list(inputs)
    else:
        to_save = [inputs[i] for i in config.inputs_to_save]
    if config.outputs_to_save:
        to_save += [o for o, keep in zip(outputs, config.outputs_to_save, strict=False) if keep]
    saved = save_tensors(to_save) if to_save else []
    tape.append(
        TapeNode(next(_node_ids), kernel_name, inputs, outputs, saved, config.grad_func, attrs)
    )


def start_tape() -> None:
    ctx = current_context()
    ctx.gradient_depth += 1
    if ctx.gradient_depth == 1:
        ctx.tape = []
    ENGINE.state.taping += 1
    ENGINE.update_mode()


def end_tape() -> None:
    current_context().gradient_depth -= 1
    ENGINE.state.taping -= 1
    ENGINE.update_mode()


def free_tape() -> None:
    """At the end of the outermost gradient call: dispose every saved tensor."""
    ctx = current_context()
    if ctx.gradient_depth == 0 and ctx.tape is not None:
        free_saved(ENGINE, ctx.tape, _FREED_WITH_TAPE)
        ctx.tape = None


def free_saved(engine: Any, tape: list[TapeNode], note: str) -> None:
    """Disposes every node's saved tensors not disposed yet."""
    dispose = engine.dispose_tensor
    for node in tape:
        for t in node.saved:
            if not t._disposed:
                dispose(t, note)


#: How a saved tensor was disposed, for a use-after-dispose error.
_FREED_WITH_TAPE = "freed with the gradient tape when the gradient call ended"


def custom_grad(f: Callable[..., dict]) -> Callable[..., Tensor]:
    """A function whose gradient is given by you: ``f(*inputs, save)`` returns
    ``{'value': tensor, 'grad_func': fn}`` and ``grad_func(dy, saved)`` returns one gradient
    per input. ``save(tensors)`` keeps what ``grad_func`` needs (only while taping). As in
    JavaScript, an ``f`` without the ``save`` parameter, or a ``grad_func`` without ``saved``,
    is called without it.

    >>> @tf.custom_grad
    ... def twice(x, save):
    ...     return {'value': x.mul(2), 'grad_func': lambda dy, saved: [dy.mul(2)]}
    >>> tf.grad(lambda x: twice(x))(tf.tensor1d([1, 2])).array_sync()
    [2.0, 2.0]
    """
    if not callable(f):
        raise ArgumentTypeError("The f passed in custom_grad(f) must be a function")
    f_arity = positional_arity(f)  # as in JS, an f that declares no `save` is called without it

    def wrapped(*inputs: Any) -> Tensor:
        if not all(isinstance(t, Tensor) for t in inputs):
            raise ArgumentTypeError(
                "The args passed in custom_grad(f)(x1, x2,...) must all be tensors"
            )
        state = current_context()
        saved: list[Tensor] = []

        def save(tensors: Any) -> None:
            if state.tape is not None and state.gradient_depth > 0:
                saved.extend(save_tensors(tensors_in(tensors)))

        grad_funcs: list[Callable[..., Any]] = []

        def forward() -> Tensor:
            res = f(*inputs) if f_arity == len(inputs) else f(*inputs, save)
            if not isinstance(res, dict) or not isinstance(res.get("value"), Tensor):
                raise ArgumentTypeError(
                    "The function f passed in custom_grad(f) must return an object where `obj.value` is a tensor"
                )
            grad_func = res.get("grad_func", res.get("gradFunc"))
            if not callable(grad_func):
                raise ArgumentTypeError(
                    "The function f passed in custom_grad(f) must return an object where `obj.grad_func` is a function."
                )
            grad_funcs.append(grad_func)
            return res["value"]

        state.kernel_depth += 1  # kernels of the forward pass are not taped
        try:
            # As TF.js runs a kernel's forward function: in a tidy, so what f made besides
            # its value (and the kept saved clones) is freed.
            value = ENGINE.tidy(forward)
        finally:
            state.kernel_depth -= 1
        grad_func = grad_funcs[0]
        if state.tape is not None and state.gradient_depth > 0 and state.kernel_depth == 0:
            n = len(inputs)

            def gradient(dy: Tensor, _saved: Any, _attrs: Any) -> list[Callable[[], Tensor]]:
                takes_saved = positional_arity(grad_func) != 1
                out = grad_func(dy, saved) if takes_saved else grad_func(dy)
                out = list(out) if isinstance(out, (list, tuple)) else [out]
                if len(out) != n:
                    raise GradientError(
                        "The function f passed in custom_grad(f) must return an object where "
                        "`obj.gradFunc` is a function that returns the same number of tensors as "
                        f"inputs passed to f(...): {n} inputs, {len(out)} gradients."
                    )
                return [lambda g=g: g for g in out]

            name = "customGrad"
            state.tape.append(
                TapeNode(next(_node_ids), name, tuple(inputs), [value], saved, gradient, None)
            )
        return value

    return wrapped


#: The reference functions above by name: where the compiled core runs, ``record``,
#: ``save_tensors`` and ``free_saved`` are its versions (``_tape_core.pxi``, the same
#: behaviour), bound here to what they need.
REFERENCE = {"record": record, "save_tensors": save_tensors, "free_saved": free_saved}
if _handles.TAPE_CORE is not None:
    _handles.TAPE_CORE.bind_tape(
        engine=ENGINE,
        node_cls=TapeNode,
        node_ids=_node_ids,
        registry=kernel_registry,
        identity_grad=_identity_grad,
        save_profiled=_save_profiled,
        gradient_error=GradientError,
        check_gradient=_check_gradient,
        input_name=_input_name,
        interruption_point=interruption_point,
        held=HELD,
        scope_cls=Scope,
    )
    record = _handles.TAPE_CORE.record  # noqa: F811 - the compiled version
    save_tensors = _handles.TAPE_CORE.save_tensors  # noqa: F811
    free_saved = _handles.TAPE_CORE.free_saved  # noqa: F811
ENGINE.record_tape = record
