"""Argument checks shared by ``compile``, ``fit``, ``evaluate`` and the dataset loops
(``dataset_loops``): unknown keyword arguments (with a did-you-mean), ``verbose`` and
``epochs``."""

from __future__ import annotations

import difflib
from typing import Any

from ..errors import LayersValueError


def _check_kwargs(fn_name: str, kwargs: dict[str, Any], known: list[str]) -> None:
    if not kwargs:
        return
    parts = []
    for key in kwargs:
        snake = "".join("_" + c.lower() if c.isupper() else c for c in key)
        guess = [snake] if snake in known else difflib.get_close_matches(key, known, 1)
        parts.append(f"{key!r}" + (f" (did you mean {guess[0]!r}?)" if guess else ""))
    raise LayersValueError(
        f"{fn_name}() got unexpected argument(s) {', '.join(parts)}; it takes {', '.join(known)}"
    )


def _check_verbose(verbose: Any) -> int:
    if verbose is None:
        return 1
    if isinstance(verbose, bool):
        return int(verbose)
    if not isinstance(verbose, int) or verbose < 0:
        raise LayersValueError(f"verbose must be 0, 1 or 2, but got {verbose!r}")
    return verbose


def _check_epochs(epochs: Any, name: str = "epochs") -> int:
    if (
        isinstance(epochs, bool)
        or not isinstance(epochs, (int, float))
        or epochs != int(epochs)
        or epochs < 0
    ):
        raise LayersValueError(f"{name} must be a non-negative integer, but got {epochs!r}")
    return int(epochs)
