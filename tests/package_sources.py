"""The package's source files, each read and parsed once per test process.

Several tests scan every module of ``src/tidytensor`` (message wording, kernel places, the
import graph); parsing the ~280 files costs about a second each time. These tests share the
trees from here and the ``package_sources`` pytest-xdist group (``GROUP``), so under
``--dist loadgroup`` one worker parses the package once. Trees are shared: read them, never
change them.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "tidytensor"

#: The xdist group of the tests that scan the package's sources.
GROUP = pytest.mark.xdist_group("package_sources")


@cache
def source_files() -> tuple[Path, ...]:
    """Every ``.py`` file of the package, sorted."""
    return tuple(sorted(SRC.rglob("*.py")))


@cache
def source_text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@cache
def source_tree(path: Path) -> ast.Module:
    return ast.parse(source_text(path), filename=str(path))


@cache
def source_nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of the file's tree, in ``ast.walk`` order (one walk, shared)."""
    return tuple(ast.walk(source_tree(path)))
