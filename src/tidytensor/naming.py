"""API.md's naming rule: TF.js camelCase becomes snake_case; a run of capitals is one word."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

_EXCEPTIONS = {"isNaN": "is_nan"}
_RUN_THEN_WORD = re.compile(r"([A-Z]+)([A-Z][a-z])")
_LOWER_THEN_UPPER = re.compile(r"([a-z])([A-Z])")


def snake_case(name: str) -> str:
    """``'matMul'`` → ``'mat_mul'``, ``'gatherND'`` → ``'gather_nd'``, ``'as1D'`` → ``'as1d'``."""
    if name in _EXCEPTIONS:
        return _EXCEPTIONS[name]
    s = _RUN_THEN_WORD.sub(r"\1_\2", name)
    s = _LOWER_THEN_UPPER.sub(r"\1_\2", s)
    return s.lower()


def did_you_mean(name: object, candidates: Iterable[str]) -> str:
    """``" (did you mean 'x'?)"`` for the candidate closest to ``name`` (compared without
    case), or ``""`` when none is close: the hint every "unknown name" error ends with.

    >>> did_you_mean('mean_squared_eror', ['mean_squared_error', 'hinge'])
    " (did you mean 'mean_squared_error'?)"
    >>> did_you_mean('zzz', ['mean_squared_error'])
    ''
    """
    if not isinstance(name, str):
        return ""
    by_lower: dict[str, str] = {}
    for candidate in candidates:
        by_lower.setdefault(candidate.lower(), candidate)
    close = difflib.get_close_matches(name.lower(), list(by_lower), n=1)
    return f" (did you mean {by_lower[close[0]]!r}?)" if close else ""
