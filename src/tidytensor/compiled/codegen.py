"""Compiling the replays' generated source (``replay.py``), once per distinct source.

A model traced again (a new ``fit``, a retrace after ``compile``, the same layers in another
model) generates the same straight-line source under another function's name. Python's
``compile`` is a pure function of the source, so its code object is kept, keyed by the
source alone (an LRU of ``CODE_CACHE_SIZE``), and each use gets a copy renamed for its
function (``<tf.function NAME replay>`` in tracebacks). Code objects are immutable: the copies
share nothing that can change.
"""

from __future__ import annotations

import functools
from types import CodeType

__all__ = ["CODE_CACHE_SIZE", "compile_source"]

#: How many distinct generated sources keep their code object.
CODE_CACHE_SIZE = 512


def compile_source(source: str, filename: str) -> CodeType:
    """``compile(source, filename, "exec")``, compiled once per distinct ``source``."""
    return _renamed(_compiled(source), filename)


@functools.lru_cache(maxsize=CODE_CACHE_SIZE)
def _compiled(source: str) -> CodeType:
    return compile(source, "<tf.function>", "exec")


def _renamed(code: CodeType, filename: str) -> CodeType:
    consts = tuple(_renamed(c, filename) if isinstance(c, CodeType) else c for c in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)
