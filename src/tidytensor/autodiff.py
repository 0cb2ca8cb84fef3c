"""Gradients: ``grad``, ``grads``, ``value_and_grad``, ``value_and_grads``,
``variable_grads`` and ``custom_grad`` (TF.js's ``gradients.ts`` over ``engine.gradients``).

The tape records kernels only while a gradient function runs. Saved tensors are kept
clones, freed when the outermost gradient call ends; the tape and every scope are closed
when the forward or backward pass raises.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any, NamedTuple

from . import gradients as _register_gradients  # noqa: F401 - registers every GradConfig
from . import kernel_names as k
from . import kernel_registry
from .callables import positional_arity
from .engine import ENGINE, current_context, tensors_in
from .engine.tape import TapeNode, backprop, filter_tape
from .errors import ArgumentTypeError, GradientError, InvalidArgumentError
from .named_result import getitem_by_name_or_index
from .tensor import Tensor, Variable

__all__ = [
    "custom_grad",
    "grad",
    "grads",
    "value_and_grad",
    "value_and_grads",
    "variable_grads",
]

_node_ids = itertools.count()


class ValueAndGrad(NamedTuple):
    """``value_and_grad(f)(x)``: ``.value`` and ``.grad``; unpacks as a pair, indexes as
    ``r['value']``, and ``tf.tidy``/``tf.dispose`` walk it like TF.js's ``{value, grad}``."""

    value: Tensor
    grad: Tensor

    __getitem__ = getitem_by_name_or_index  # type: ignore[assignment]


class ValueAndGrads(NamedTuple):
    """``value_and_grads(f)(xs)``: ``.value`` and ``.grads`` (a list); unpacks as a pair,
    indexes as ``r['grads']``, and ``tf.tidy``/``tf.dispose`` walk it."""

    value: Tensor
    grads: Any

    __getitem__ = getitem_by_name_or_index  # type: ignore[assignment]


class VariableGrads(ValueAndGrads):
    """``variable_grads(f)``: ``.value`` and ``.grads``, a dict keyed by variable name;
    unpacks as a pair, indexes as ``r['grads']``, and ``tf.tidy``/``tf.dispose`` walk it."""

    __slots__ = ()


# ---------------------------------------------------------------------- the tape
def _save(tensors: list[Tensor]) -> list[Tensor]:
    """Kept clones of tensors a gradient needs (TF.js's saveTensorsForBackwardMode).

    Inside a nested gradient call each clone is taped as an Identity of its original, so the
    outer gradient can follow the path through saved tensors. An outermost call's gradient
    functions run after its tape stops recording, so there nothing would ever follow them.
    """
    saved = []
    if ENGINE.state.profiling:  # TF.js clones through the Identity kernel: profiles list it
        for t in tensors:
            clone = ENGINE.run_kernel(k.IDENTITY, (t,))
            clone.kept = True
            saved.append(clone)
        return saved
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


def _identity_grad(dys: list[Tensor]) -> list[Callable[[], Tensor]]:
    from .ops.transformations import cast

    return [lambda: cast(dys[0], "float32")]


def _record(kernel_name: str, inputs: tuple, outputs: list[Tensor], attrs: Any) -> None:
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
    saved = _save(to_save) if to_save else []
    grad_func = config.grad_func

    def gradient(dys: list[Tensor], saved: list[Tensor] = saved, attrs: Any = attrs) -> Any:
        return grad_func(dys if len(dys) > 1 else dys[0], saved, attrs)

    tape.append(TapeNode(next(_node_ids), kernel_name, inputs, outputs, saved, gradient, attrs))


ENGINE.record_tape = _record


def _start_tape() -> None:
    ctx = current_context()
    ctx.gradient_depth += 1
    if ctx.gradient_depth == 1:
        ctx.tape = []
    ENGINE.state.taping += 1
    ENGINE.update_mode()


def _end_tape() -> None:
    current_context().gradient_depth -= 1
    ENGINE.state.taping -= 1
    ENGINE.update_mode()


def _free_tape() -> None:
    """At the end of the outermost gradient call: dispose every saved tensor."""
    ctx = current_context()
    if ctx.gradient_depth == 0 and ctx.tape is not None:
        dispose = ENGINE.dispose_tensor
        for node in ctx.tape:
            for t in node.saved:
                if not t._disposed:
                    dispose(t, _FREED_WITH_TAPE)
        ctx.tape = None


#: How a saved tensor was disposed, for a use-after-dispose error.
_FREED_WITH_TAPE = "freed with the gradient tape when the gradient call ended"


def gradients(
    f: Callable[[], Tensor],
    xs: list[Tensor],
    dy: Tensor | None = None,
    allow_no_gradients: bool = False,
) -> tuple[Tensor, list[Tensor | None]]:
    """Runs ``f`` on the tape and returns ``(y, [dy/dx for x in xs])`` (TF.js's
    ``engine.gradients``). ``y`` survives; gradients are new tensors."""
    from .ops.arithmetic import add
    from .ops.creation import ones, zeros

    if not xs:
        raise InvalidArgumentError("gradients() received an empty list of xs.")
    if dy is not None and dy.dtype != "float32":
        raise GradientError(f"dy must have 'float32' dtype, but has '{dy.dtype}'")
    made: list[Tensor] = []  # what f made and returns: freed if the gradient then fails

    def forward() -> Any:
        out = f()
        scope_id = current_context().active.id
        made.extend(t for t in tensors_in(out) if t.scope_id == scope_id and not t.kept)
        return out

    _start_tape()
    try:
        y = ENGINE.tidy("forward", forward)
    except BaseException:
        _end_tape()
        _free_tape()
        raise
    _end_tape()
    try:
        if not isinstance(y, Tensor):
            raise GradientError("The result y returned by f() must be a tensor.")
        tape = current_context().tape or []
        filtered = filter_tape(tape, xs, y)
        if not allow_no_gradients and not filtered and xs:
            raise GradientError(
                "Cannot compute gradient of y=f(x) with respect to x. Make sure that the f you "
                "passed encloses all operations that lead from x to y."
            )
        if dy is not None and dy._shape != y._shape:
            raise GradientError(
                f"dy has shape {list(dy._shape)} but the value y=f(x) has shape {list(y._shape)}; "
                "they must match"
            )

        def backward() -> list[Tensor | None]:
            acc: dict[int, Tensor] = {y.id: ones(list(y._shape)) if dy is None else dy}
            backprop(acc, filtered, ENGINE.tidy, add, zeros)
            return [acc.get(x.id) for x in xs]

        with ENGINE.pin_site():  # gradient tensors belong to the line that asked for them
            grads_out = ENGINE.tidy("backward", backward)
    except BaseException:
        _free_tape()
        for t in made:  # the caller never receives y: leave nothing behind
            if not t._disposed:
                ENGINE.dispose_tensor(t, "disposed when the gradient call that made it failed")
        raise
    _free_tape()
    return y, grads_out


# ---------------------------------------------------------------------- public API
def _check_f(f: Any, name: str) -> None:
    if not callable(f):
        raise ArgumentTypeError(f"The f passed in {name}(f) must be a function")


def _check_grads_found(grads_list: list[Tensor | None]) -> None:
    if any(g is None for g in grads_list):
        raise GradientError(
            "Cannot compute gradient of y=f(x) with respect to x. Make sure that the f you "
            "passed encloses all operations that lead from x to y."
        )


def _as_tensor(x: Any, what: str) -> Tensor:
    if isinstance(x, Tensor):
        return x
    from .tensor_util import convert_to_tensor

    return convert_to_tensor(x, what, "grad")


def grad(f: Callable[[Tensor], Tensor]) -> Callable[..., Tensor]:
    """``grad(f)(x, dy=None)``: the gradient of ``f`` at ``x``. Only the gradient survives.

    >>> g = tf.grad(lambda x: x.square())
    >>> g(tf.tensor1d([1, 2, 3])).array_sync()
    [2.0, 4.0, 6.0]
    """
    _check_f(f, "grad")

    def grad_fn(x: Any, dy: Any = None) -> Tensor:
        if isinstance(x, (list, tuple)):
            raise ArgumentTypeError("The x passed in grad(f)(x) must be a tensor")
        x_t = _as_tensor(x, "x")
        dy_t = None if dy is None else _as_tensor(dy, "dy")

        def run() -> Tensor:
            value, (g,) = gradients(lambda: f(x_t), [x_t], dy_t)
            if dy_t is not None and dy_t._shape != value._shape:
                raise GradientError(
                    "The shape of dy passed in grad(f)(x, dy) must match the shape returned by f(x)"
                )
            _check_grads_found([g])
            return g

        return ENGINE.tidy(run)

    return grad_fn


def grads(f: Callable[..., Tensor]) -> Callable[..., list[Tensor]]:
    """``grads(f)([x1, x2...], dy=None)``: the gradients of ``f`` with respect to each arg."""
    _check_f(f, "grads")

    def grads_fn(args: Any, dy: Any = None) -> list[Tensor]:
        if not isinstance(args, (list, tuple)):
            raise ArgumentTypeError(
                "The args passed in grads(f)(args) must be an array of `Tensor`s or `TensorLike`s"
            )
        xs = [_as_tensor(a, f"args[{i}]") for i, a in enumerate(args)]
        dy_t = None if dy is None else _as_tensor(dy, "dy")

        def run() -> list[Tensor]:
            _, gs = gradients(lambda: f(*xs), xs, dy_t)
            _check_grads_found(gs)
            return gs

        return ENGINE.tidy(run)

    return grads_fn


def value_and_grad(f: Callable[[Tensor], Tensor]) -> Callable[..., ValueAndGrad]:
    """``value_and_grad(f)(x, dy=None)``: ``.value`` (f(x)) and ``.grad``; both survive."""
    _check_f(f, "valueAndGrad")

    def fn(x: Any, dy: Any = None) -> ValueAndGrad:
        if not isinstance(x, Tensor):
            raise ArgumentTypeError("The x passed in valueAndGrad(f)(x) must be a tensor")
        if dy is not None and not isinstance(dy, Tensor):
            raise ArgumentTypeError("The dy passed in valueAndGrad(f)(x, dy) must be a tensor")
        value, (g,) = gradients(lambda: f(x), [x], dy)
        _check_grads_found([g])
        return ValueAndGrad(value, g)

    return fn


def value_and_grads(f: Callable[..., Tensor]) -> Callable[..., ValueAndGrads]:
    """``value_and_grads(f)([x1, ...], dy=None)``: ``.value`` and ``.grads``; all survive."""
    _check_f(f, "valueAndGrads")

    def fn(args: Any, dy: Any = None) -> ValueAndGrads:
        if not isinstance(args, (list, tuple)) or not all(isinstance(a, Tensor) for a in args):
            raise ArgumentTypeError(
                "The args passed in valueAndGrads(f)(args) must be array of tensors"
            )
        if dy is not None and not isinstance(dy, Tensor):
            raise ArgumentTypeError("The dy passed in valueAndGrads(f)(args, dy) must be a tensor")
        value, gs = gradients(lambda: f(*args), list(args), dy)
        _check_grads_found(gs)
        return ValueAndGrads(value, gs)

    return fn


def variable_grads(
    f: Callable[[], Tensor], var_list: list[Variable] | None = None
) -> VariableGrads:
    """The value of ``f()`` (a scalar) and its gradient for each trainable variable, as a dict
    keyed by variable name. Variables listed but not trainable get ``None``."""
    _check_f(f, "variableGrads")
    if var_list is not None and (
        not isinstance(var_list, (list, tuple))
        or not all(isinstance(v, Variable) for v in var_list)
    ):
        raise ArgumentTypeError(
            "var_list for variableGrads(f, var_list) must be a list of Variables"
        )
    specified = var_list is not None
    if var_list is None:
        var_list = list(ENGINE.state.registered_variables.values())
    trainable = [v for v in var_list if v.trainable]
    if not trainable:
        raise InvalidArgumentError(
            "variableGrads() expects at least one of the input variables to be trainable, but "
            f"none of the {len(var_list)} variables is trainable."
        )
    value, gs = gradients(f, trainable, None, allow_no_gradients=True)
    if not any(g is not None for g in gs):
        value.dispose()
        raise GradientError(
            "Cannot find a connection between any variable and the result of the loss function "
            "y=f(x). Please make sure the operations that use variables are inside the function "
            "f passed to minimize()."
        )
    if value.rank != 0:
        rank = value.rank
        value.dispose()
        for g in gs:
            if g is not None:
                g.dispose()
        raise InvalidArgumentError(
            f"The f passed in variableGrads(f) must return a scalar, but it returned a rank-{rank} tensor"
        )
    named: dict[str, Tensor | None] = {}
    for v, g in zip(trainable, gs, strict=True):
        if g is not None:
            named[v.name] = g
    if specified:
        for v in var_list:
            if not v.trainable:
                named[v.name] = None
    return VariableGrads(value, named)


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
    _check_f(f, "customGrad")
    f_arity = positional_arity(f)  # as in JS, an f that declares no `save` is called without it

    def wrapped(*inputs: Any) -> Tensor:
        if not all(isinstance(t, Tensor) for t in inputs):
            raise ArgumentTypeError(
                "The args passed in customGrad(f)(x1, x2,...) must all be tensors"
            )
        state = current_context()
        saved: list[Tensor] = []

        def save(tensors: Any) -> None:
            if state.tape is not None and state.gradient_depth > 0:
                saved.extend(_save(tensors_in(tensors)))

        grad_funcs: list[Callable[..., Any]] = []

        def forward() -> Tensor:
            res = f(*inputs) if f_arity == len(inputs) else f(*inputs, save)
            if not isinstance(res, dict) or not isinstance(res.get("value"), Tensor):
                raise ArgumentTypeError(
                    "The function f passed in customGrad(f) must return an object where `obj.value` is a tensor"
                )
            grad_func = res.get("grad_func", res.get("gradFunc"))
            if not callable(grad_func):
                raise ArgumentTypeError(
                    "The function f passed in customGrad(f) must return an object where `obj.grad_func` is a function."
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

            def gradient(dys: list[Tensor]) -> list[Callable[[], Tensor]]:
                takes_saved = positional_arity(grad_func) != 1
                out = grad_func(dys[0], saved) if takes_saved else grad_func(dys[0])
                out = list(out) if isinstance(out, (list, tuple)) else [out]
                if len(out) != n:
                    raise GradientError(
                        "The function f passed in customGrad(f) must return an object where "
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
