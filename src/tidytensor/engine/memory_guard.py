"""The memory limit's checks before anything is allocated.

With ``tf.config.set_memory_limit`` set, the engine's ``kernel_guard`` is one of its kernel
wrappers (``Engine.add_kernel_wrapper``), so its kernel table holds guarded kernels
(``guard_kernel``): each computes what its kernel will allocate (``output_bounds``) and
raises ``ResourceExhaustedError`` before the kernel runs when that would take live tensor
memory past the limit. Ops that make values on the host (random, zeros, ones) call
``check_host_allocation`` before they allocate. Without a limit none of this runs.

``out_of_host_memory`` turns a ``MemoryError`` (the process's own address-space cap, or the
machine's memory, ran out) into a ``ResourceExhaustedError`` naming the op and the request.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..errors import ResourceExhaustedError
from ..naming import snake_case
from .memory import budget_message
from .output_bounds import Need, Out, bound_of


def kernel_guard(engine: Any) -> Callable[[str, Callable], Callable]:
    """The kernel wrapper that guards each kernel against ``engine``'s memory limit."""

    def guard(kernel_name: str, kernel: Callable) -> Callable:
        return guard_kernel(engine, kernel_name, kernel)

    return guard


def guard_kernel(engine: Any, kernel_name: str, kernel: Callable) -> Callable:
    """``kernel``, checking its allocation against the engine's limit first."""
    bound = bound_of(kernel_name)

    def guarded(inputs: tuple, attrs: Any) -> Any:
        state = engine.state
        need = bound(inputs, attrs)
        # The arrays kernels keep are in buffer_bytes already (kernel_scratch counts exactly).
        if state.buffer_bytes + need.nbytes > state.byte_limit:
            raise over_limit_error(engine, need, op_name(engine, kernel_name))
        return kernel(inputs, attrs)

    guarded.__wrapped__ = kernel  # type: ignore[attr-defined]
    return guarded


def op_name(engine: Any, kernel_name: str) -> str:
    """The op the user called (the running op wrapper's name), else the kernel's name in
    snake_case (ops such as ``fill`` run their kernel without a wrapper)."""
    name = engine._op_name(kernel_name)
    if name != kernel_name:
        return name
    return re.sub(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z0-9])(?=[A-Z][a-z])", "_", name).lower()


def check_host_allocation(
    engine: Any, shape: Any, dtype: str, op_name: str, scratch: int = 0
) -> None:
    """Raises before an op makes a ``dtype`` tensor of ``shape`` on the host (with
    ``scratch`` bytes of temporaries) that would take ``engine``'s live tensor memory past
    its limit."""
    state = engine.state
    if state.byte_limit == float("inf"):
        return
    need = Need((Out(tuple(int(d) for d in shape), dtype),), scratch)
    if state.buffer_bytes + need.nbytes > state.byte_limit:
        raise over_limit_error(engine, need, op_name)


def describe_need(need: Need) -> str:
    """``need`` in words: 'a float32 tensor of shape [2, 3]', with scratch when any."""
    parts = []
    for out in need.outputs:
        if out.exact:
            parts.append(f"{_article(out.dtype)} tensor of shape {list(out.shape)}")
        else:
            parts.append(f"{_article(out.dtype)} tensor of at most {out.shape[0]} values")
    text = " and ".join(parts) if parts else "no tensor"
    if need.scratch:
        text += f" (with {need.scratch} bytes of temporary values)"
    return text


def _article(dtype: str) -> str:
    return f"an {dtype}" if dtype == "int32" else f"a {dtype}"


def over_limit_error(engine: Any, need: Need, op_name: str) -> ResourceExhaustedError:
    state = engine.state
    return ResourceExhaustedError(
        budget_message(
            f"Allocating {need.nbytes} bytes for {describe_need(need)} in '{snake_case(op_name)}'",
            need.nbytes,
            engine.memory_limit,
            state.buffer_bytes,
            state.leaked,
        )
    )


def out_of_host_memory(op_name: str, what: str, exc: BaseException) -> ResourceExhaustedError:
    """The error for a ``MemoryError`` raised while ``op_name`` allocated ``what`` (a
    ``ResourceExhaustedError`` already raised, by a GPU backend out of device memory, stays
    as it is)."""
    if isinstance(exc, ResourceExhaustedError):
        return exc
    reason = str(exc) or "no details"
    return ResourceExhaustedError(
        f"'{snake_case(op_name)}' ran out of host memory making {what} (MemoryError: {reason}). The "
        "process could not allocate it (its address-space limit or the machine's memory was "
        "reached); nothing was added to live tensor memory. Free tensors, use smaller "
        "shapes, or set tf.config.set_memory_limit() so that requests are refused up front."
    )
