"""User functions called the way JavaScript calls them: with trailing arguments they do not
declare left off (``customGrad``'s ``save`` and ``saved``, callback hooks' ``logs``)."""

from __future__ import annotations

import inspect
from collections.abc import Callable


def positional_arity(fn: Callable) -> int | None:
    """How many positional arguments ``fn`` accepts (None: any number, or unknown)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    count = 0
    for p in sig.parameters.values():
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            return None
        if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            count += 1
    return count
