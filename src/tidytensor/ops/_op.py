"""The ``@op`` decorator and the argument helpers every op uses.

``@op`` runs the op in its own ``<name>__op`` scope, so every temporary it makes (converted
arguments, casts) is freed when it returns: TF.js's ``op()`` from ``ops/operation.ts``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from ..dtypes import upcast_type
from ..engine import ENGINE
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from ..tensor_util import convert_to_tensor, convert_to_tensor_array

__all__ = [
    "OP_SCOPE_SUFFIX",
    "op",
    "convert_to_tensor",
    "convert_to_tensor_array",
    "make_types_match",
    "parse_axis_param",
    "run_kernel",
]

OP_SCOPE_SUFFIX = "__op"
F = TypeVar("F", bound=Callable[..., Any])

run_kernel = ENGINE.run_kernel


def op(fn: F | None = None, *, name: str | None = None, fast_kernel: str | None = None) -> Any:
    """Wraps ``fn`` so that it runs in a scope named ``<name>__op``.

    ``fast_kernel`` names the kernel ``fn`` runs, unchanged, when every argument is a float32
    tensor of one shape; such calls then skip the op body (see ``Engine.make_op``).
    """

    def decorate(fn: F) -> F:
        scope_name = (name or fn.__name__.rstrip("_")) + OP_SCOPE_SUFFIX
        wrapper = functools.wraps(fn)(ENGINE.make_op(scope_name, fn, fast_kernel))
        wrapper.op_name = scope_name[: -len(OP_SCOPE_SUFFIX)]  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate(fn) if fn is not None else decorate


def make_types_match(a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """Casts both tensors to their upcast dtype (TF.js's ``makeTypesMatch``)."""
    if a.dtype == b.dtype:
        return a, b
    from .transformations import cast

    dtype = upcast_type(a.dtype, b.dtype)
    return cast(a, dtype), cast(b, dtype)


def parse_axis_param(
    axis: Any, shape: tuple[int, ...] | list[int], op_name: str = "op"
) -> list[int]:
    """Normalizes ``axis`` (None, an int or a list; negatives allowed) to sorted-as-given
    non-negative ints, with TF.js's error for out-of-range axes."""
    rank = len(shape)
    if axis is None:
        return list(range(rank))
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    out = []
    for ax in axes:
        ax = int(ax)
        if not -rank <= ax < rank:
            raise InvalidArgumentError(
                f"All values in axis param must be in range [-{rank}, {rank}) but got axis "
                f"{list(axis) if isinstance(axis, (list, tuple)) else axis} (op '{op_name}')"
            )
        out.append(ax + rank if ax < 0 else ax)
    return out
