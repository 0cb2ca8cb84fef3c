"""The package's source files, each read and parsed once per test process.

Several tests scan every module of ``src/tidytensor`` (message wording, kernel places, the
import graph); parsing the ~280 files costs about a second each time. These tests share the
trees from here and the ``package_sources`` pytest-xdist group (``GROUP``), so under
``--dist loadgroup`` one worker parses the package once. Trees are shared: read them, never
change them.

The trees (600,000 objects for the package) live until the process ends, so each is
``gc.freeze()``d once parsed (a constant-time move of what is alive to the collector's
permanent generation): otherwise every later full collection in that worker (the leak tests
call ``gc.collect()``) walked them again, up to 0.6 s each, about 15 s of a suite run.
"""

from __future__ import annotations

import ast
import gc
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


def source_tree(path: Path) -> ast.Module:
    return _tree_and_nodes(path)[0]


def source_nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of the file's tree, in ``ast.walk`` order (one walk, shared)."""
    return _tree_and_nodes(path)[1]


@cache
def _tree_and_nodes(path: Path) -> tuple[ast.Module, tuple[ast.AST, ...]]:
    tree = ast.parse(source_text(path), filename=str(path))
    nodes = tuple(ast.walk(tree))
    gc.freeze()  # kept until the process ends: out of the cyclic collector's walk
    return tree, nodes
