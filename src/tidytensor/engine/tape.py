"""The gradient tape: which kernel calls lead from x to y, and the reverse walk over them.

TF.js's ``tape.ts``: nodes are recorded only while a gradient function runs; the filter
keeps the nodes on a path from some x to y (so ops off the path need no gradient), and
backprop sums each input's gradients in a dict keyed by tensor id, disposing every partial
sum once it has been added in.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from .. import _handles
from ..errors import GradientError
from ..interrupts import interruption_point
from ..kernel_names import tfjs as kernel_names_tfjs
from ..tensor import Tensor
from .engine import ENGINE


class TapeNode(_handles.TapeNodeBase):
    """One recorded kernel call. ``gradient(dy, saved, attrs)`` (a ``GradConfig``'s
    ``grad_func``; ``dy`` is the list of output gradients for a kernel of several outputs)
    gives one thunk per input; None: the kernel has no gradient. The fields are
    ``TapeNodeBase``'s (``_handles.py``): C fields in the compiled core, which makes its
    nodes without this ``__init__``."""

    __slots__ = ()

    def __init__(
        self,
        node_id: int,
        kernel_name: str,
        inputs: tuple[Tensor, ...],
        outputs: list[Tensor],
        saved: list[Tensor],
        gradient: Callable[[Any, list[Tensor], Any], Any] | None,
        attrs: Any,
    ):
        self.id = node_id
        self.kernel_name = kernel_name
        self.inputs = inputs
        self.outputs = outputs
        self.saved = saved
        self.gradient = gradient
        self.attrs = attrs
        #: Which inputs depend on some x (set by ``filter_tape``); only those get gradients.
        self.live: tuple[bool, ...] = ()


class KernelThunk:
    """A gradient thunk that runs one kernel: ``KernelThunk(kernel_name, inputs, attrs)()``
    is ``ENGINE.run_kernel(kernel_name, inputs, attrs)``. The compiled tape's own (which
    ``backprop`` runs without a Python frame) replaces this one where it runs."""

    __slots__ = ("kernel_name", "inputs", "attrs")

    def __init__(self, kernel_name: str, inputs: tuple, attrs: Any = None) -> None:
        self.kernel_name = kernel_name
        self.inputs = inputs
        self.attrs = attrs

    def __call__(self) -> Any:
        return ENGINE.run_kernel(self.kernel_name, self.inputs, self.attrs)


def filter_tape(tape: list[TapeNode], xs: list[Tensor], y: Tensor) -> list[TapeNode]:
    """The nodes on a path from any of ``xs`` to ``y``, with inputs pruned to those that
    depend on ``xs`` (TF.js's ``getFilteredNodesXToY``)."""
    from_x = {x.id for x in xs}
    nodes_from_x = set()
    for node in tape:
        if any(t.id in from_x for t in node.inputs):
            from_x.update(o.id for o in node.outputs)
            nodes_from_x.add(node.id)
    to_y = {y.id}
    nodes_to_y = set()
    for node in reversed(tape):
        if any(o.id in to_y for o in node.outputs):
            to_y.update(t.id for t in node.inputs)
            nodes_to_y.add(node.id)
    filtered = []
    for node in tape:
        if node.id in nodes_from_x and node.id in nodes_to_y:
            node.live = tuple(t.id in from_x for t in node.inputs)
            filtered.append(node)
    return filtered


def backprop(
    grads: dict[int, Tensor],
    tape: list[TapeNode],
    tidy: Callable[[Callable[[], Tensor]], Tensor],
    add: Callable[[Tensor, Tensor], Tensor],
    zeros: Callable[[list[int], str], Tensor],
) -> None:
    """Walks ``tape`` backwards, accumulating into ``grads`` (tensor id -> gradient)."""
    for node in reversed(tape):
        interruption_point()  # a Ctrl-C held by an optimizer step stops it here
        dys: list[Tensor | None] = [grads.get(o.id) for o in node.outputs]
        if all(dy is None for dy in dys):
            continue  # the node's outputs do not reach y through any recorded gradient
        if node.gradient is None:
            raise GradientError(
                f"Cannot compute gradient: gradient function not found for {node.kernel_name}."
            )
        dys = [
            dy if dy is not None else zeros(list(o._shape), o.dtype)
            for dy, o in zip(dys, node.outputs, strict=True)
        ]
        thunks = node.gradient(dys if len(dys) > 1 else dys[0], node.saved, node.attrs)
        for i, x in enumerate(node.inputs):
            if not node.live[i]:
                continue
            thunk = thunks[i] if i < len(thunks) else None
            if thunk is None:
                raise GradientError(
                    f"Cannot backprop through input {_input_name(node.kernel_name, i)} of "
                    f"'{node.kernel_name}': its gradient function gives none."
                )
            dx = tidy(thunk)
            _check_gradient(node.kernel_name, i, x, dx)
            current = grads.get(x.id)
            if current is None:
                grads[x.id] = dx
            else:
                grads[x.id] = add(current, dx)
                current.dispose()
                dx.dispose()


def _check_gradient(kernel_name: str, i: int, x: Tensor, dx: Any) -> None:
    if not isinstance(dx, Tensor):
        raise GradientError(
            f"Error in gradient for op {kernel_name}. The gradient of input '{_input_name(kernel_name, i)}' must be a "
            f"Tensor, but the gradient function returned {type(dx).__name__}"
        )
    if dx.dtype != "float32":
        raise GradientError(
            f"Error in gradient for op {kernel_name}. The gradient of input '{_input_name(kernel_name, i)}' must have "
            f"'float32' dtype, but has '{dx.dtype}'"
        )
    if dx._shape != x._shape:
        raise GradientError(
            f"Error in gradient for op {kernel_name}. The gradient of input '{_input_name(kernel_name, i)}' has shape "
            f"'{list(dx._shape)}', which does not match the shape of the input '{list(x._shape)}'"
        )


_INPUT_NAMES: dict[str, list[str]] | None = None


def _input_name(kernel_name: str, i: int) -> str:
    """The kernel's i-th input name, read from ``kernel_names/tfjs.py``'s comments (error path
    only)."""
    global _INPUT_NAMES
    if _INPUT_NAMES is None:
        _INPUT_NAMES = {}
        with open(kernel_names_tfjs.__file__, encoding="utf-8") as f:
            source = f.read()
        for name, inputs in re.findall(r'= "(\w+)"  # inputs: ([^;\n]+)', source):
            _INPUT_NAMES[name] = [s.strip() for s in inputs.split(",")]
    names = _INPUT_NAMES.get(kernel_name, [])
    if len(names) == 1 and names[0].startswith("*"):
        return f"{names[0][1:]}[{i}]"
    return names[i] if i < len(names) else str(i)


#: The reference functions above by name: where the compiled core runs, ``filter_tape``,
#: ``backprop`` and ``KernelThunk`` are its versions (``_tape_core.pxi``, the same behaviour).
REFERENCE = {"filter_tape": filter_tape, "backprop": backprop, "KernelThunk": KernelThunk}
if _handles.TAPE_CORE is not None:
    KernelThunk = _handles.TAPE_CORE.KernelThunk  # type: ignore[misc]  # noqa: F811
    filter_tape = _handles.TAPE_CORE.filter_tape  # noqa: F811 - the compiled version
    backprop = _handles.TAPE_CORE.backprop  # noqa: F811
