"""A griffe extension (``mkdocs.yml``) that reads tidytensor's docstrings as the package
writes them: doctest blocks (``>>>`` lines and their output) become Python code blocks, so
their output (``[[1.0, 2.0], [3.0, 4.0]]``) is not read as Markdown links; Sphinx roles
(``:class:`Record```) become plain code."""

from __future__ import annotations

import re
from typing import Any

try:
    import griffe
except ImportError:  # the tests import fence_doctests without the docs extra
    griffe = None

_ROLE = re.compile(r":(?:class|func|meth|attr|mod|exc|data|obj|ref):`~?([^`]+)`")
_FENCE = re.compile(r"^\s*(```|~~~)")


def fence_doctests(text: str) -> str:
    """Wraps each run of doctest lines (a ``>>>`` line, its ``...`` continuations and its
    output, up to a blank line) in a ```` ```pycon ```` fence; drops Sphinx roles."""
    out: list[str] = []
    in_fence = False
    in_doctest = False
    indent = ""
    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
        stripped = line.lstrip()
        if not in_fence and not in_doctest and stripped.startswith(">>>"):
            indent = line[: len(line) - len(stripped)]
            out.append(f"{indent}```pycon")
            in_doctest = True
        elif in_doctest and not stripped:
            out.append(f"{indent}```")
            in_doctest = False
        out.append(line if in_doctest or in_fence else _ROLE.sub(r"``\1``", line))
    if in_doctest:
        out.append(f"{indent}```")
    return "\n".join(out)


if griffe is not None:

    class DoctestFences(griffe.Extension):
        def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
            if obj.docstring is not None:
                obj.docstring.value = fence_doctests(obj.docstring.value)
