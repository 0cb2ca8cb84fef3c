"""API.md's naming rule: TF.js camelCase becomes snake_case; a run of capitals is one word."""

from __future__ import annotations

import re

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
