"""Gradients: ``grad``, ``grads``, ``value_and_grad``, ``value_and_grads``,
``variable_grads`` and ``custom_grad`` (TF.js's ``gradients.ts`` over ``engine.gradients``).

The tape records kernels only while a gradient function runs. Saved tensors are kept
clones, freed when the outermost gradient call ends; the tape and every scope are closed
when the forward or backward pass raises.

Layer: above ``ops`` and ``gradients`` (importing this module registers every gradient);
the tape and its recording (``custom_grad`` included, which ops use) live below the ops in
``engine.tape`` and ``engine.recording``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from . import gradients as _register_gradients  # noqa: F401 - registers every GradConfig
from .engine import ENGINE, current_context, tensors_in
from .engine.recording import custom_grad, end_tape, free_tape, start_tape
from .engine.tape import backprop, filter_tape
from .errors import ArgumentTypeError, GradientError, InvalidArgumentError
from .named_result import getitem_by_name_or_index
from .ops.arithmetic import add
from .ops.creation import ones, zeros
from .tensor import Tensor, Variable
from .tensor_util import convert_to_tensor

__all__ = [
    "custom_grad",
    "grad",
    "grads",
    "value_and_grad",
    "value_and_grads",
    "variable_grads",
]


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


def gradients(
    f: Callable[[], Tensor],
    xs: list[Tensor],
    dy: Tensor | None = None,
    allow_no_gradients: bool = False,
) -> tuple[Tensor, list[Tensor | None]]:
    """Runs ``f`` on the tape and returns ``(y, [dy/dx for x in xs])`` (TF.js's
    ``engine.gradients``). ``y`` survives; gradients are new tensors."""

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

    start_tape()
    try:
        y = ENGINE.tidy("forward", forward)
    except BaseException:
        end_tape()
        free_tape()
        raise
    end_tape()
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
        free_tape()
        for t in made:  # the caller never receives y: leave nothing behind
            if not t._disposed:
                ENGINE.dispose_tensor(t, "disposed when the gradient call that made it failed")
        raise
    free_tape()
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
    _check_f(f, "value_and_grad")

    def fn(x: Any, dy: Any = None) -> ValueAndGrad:
        if not isinstance(x, Tensor):
            raise ArgumentTypeError("The x passed in value_and_grad(f)(x) must be a tensor")
        if dy is not None and not isinstance(dy, Tensor):
            raise ArgumentTypeError("The dy passed in value_and_grad(f)(x, dy) must be a tensor")
        value, (g,) = gradients(lambda: f(x), [x], dy)
        _check_grads_found([g])
        return ValueAndGrad(value, g)

    return fn


def value_and_grads(f: Callable[..., Tensor]) -> Callable[..., ValueAndGrads]:
    """``value_and_grads(f)([x1, ...], dy=None)``: ``.value`` and ``.grads``; all survive."""
    _check_f(f, "value_and_grads")

    def fn(args: Any, dy: Any = None) -> ValueAndGrads:
        if not isinstance(args, (list, tuple)) or not all(isinstance(a, Tensor) for a in args):
            raise ArgumentTypeError(
                "The args passed in value_and_grads(f)(args) must be array of tensors"
            )
        if dy is not None and not isinstance(dy, Tensor):
            raise ArgumentTypeError(
                "The dy passed in value_and_grads(f)(args, dy) must be a tensor"
            )
        value, gs = gradients(lambda: f(*args), list(args), dy)
        _check_grads_found(gs)
        return ValueAndGrads(value, gs)

    return fn


def variable_grads(
    f: Callable[[], Tensor], var_list: list[Variable] | None = None
) -> VariableGrads:
    """The value of ``f()`` (a scalar) and its gradient for each trainable variable, as a dict
    keyed by variable name. Variables listed but not trainable get ``None``."""
    _check_f(f, "variable_grads")
    if var_list is not None and (
        not isinstance(var_list, (list, tuple))
        or not all(isinstance(v, Variable) for v in var_list)
    ):
        raise ArgumentTypeError(
            "var_list for variable_grads(f, var_list) must be a list of Variables"
        )
    specified = var_list is not None
    if var_list is None:
        var_list = list(ENGINE.state.registered_variables.values())
    trainable = [v for v in var_list if v.trainable]
    if not trainable:
        raise InvalidArgumentError(
            "variable_grads() expects at least one of the input variables to be trainable, but "
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
            f"The f passed in variable_grads(f) must return a scalar, but it returned a rank-{rank} tensor"
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
