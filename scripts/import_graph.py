"""Measures the import graph of ``src/tidytensor``: what the package's layering looks like.

Usage::

    python scripts/import_graph.py            # summary
    python scripts/import_graph.py --verbose  # also every circle's modules and every upward import
    python scripts/import_graph.py --json out.json

It parses every module with ``ast`` (nothing is imported) and counts every import of a
tidytensor module, at module level or inside a function body; imports under
``if TYPE_CHECKING:`` never run and are left out. An import of ``pkg.mod`` (or ``from pkg
import mod``) is an edge to ``pkg.mod``; ``from pkg.mod import name`` is an edge to
``pkg.mod.name`` when that is a module, else to ``pkg.mod``. It reports:

- import circles: strongly connected components of more than one module (Tarjan);
- upward imports: a module importing a module of a higher layer (``LAYERS`` below, the same
  order as the import-linter contract in ``pyproject.toml``);
- function-level imports: all of them, and those of tidytensor modules;
- files per folder.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "src"
PACKAGE = "tidytensor"

#: The layering, bottom first (the import-linter contract in ``pyproject.toml``, top first):
#: a module belongs to the first layer one of whose prefixes it
#: starts with (``tidytensor.`` left out; a prefix ending in ``_`` matches flat modules such
#: as the old ``engine_state``). Modules of no layer (the package's own
#: ``__init__``) are never counted as importing upward.
LAYERS: list[tuple[str, ...]] = [
    ("errors", "callables", "naming", "named_result", "utf16", "axis_util", "sites", "interrupts"),
    ("dtypes", "geometry", "broadcast_util"),
    ("js_numbers", "js_strings", "random_engines", "printing"),
    ("kernel_names", "kernel_names_", "kernel_registry"),
    ("tensor",),
    ("engine", "engine_", "tape"),
    ("tensor_util", "config", "runtime"),
    ("backends",),
    ("ops",),
    ("gradients", "scopes"),
    ("autodiff",),
    ("optimizers",),
    ("train", "testing"),
    ("data", "datasets"),
    ("io",),
    ("layers",),
    ("model_commands",),
    ("viz", "cli", "demo", "pytest_plugin", "__main__"),
]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> int | None:
    rest = module[len(PACKAGE) + 1 :] if module != PACKAGE else ""
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if prefix.endswith("_"):
                if rest.startswith(prefix):
                    return index
            elif rest == prefix or rest.startswith(prefix + "."):
                return index
    return None


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


class _Imports(ast.NodeVisitor):
    """Every import statement of one module, with whether it sits in a function body."""

    def __init__(self) -> None:
        self.found: list[tuple[ast.Import | ast.ImportFrom, bool]] = []
        self.depth = 0

    def visit_FunctionDef(self, node: ast.AST) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_Lambda = visit_FunctionDef

    def visit_If(self, node: ast.If) -> None:
        if _is_type_checking(node.test):
            for child in node.orelse:
                self.visit(child)
            return
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        self.found.append((node, self.depth > 0))

    visit_ImportFrom = visit_Import


def _targets(
    node: ast.Import | ast.ImportFrom, module: str, is_package: bool, modules: set[str]
) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == PACKAGE]
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module or ""
    if source.split(".")[0] != PACKAGE:
        return []
    out = []
    for alias in node.names:
        sub = f"{source}.{alias.name}"
        out.append(sub if sub in modules else source)
    return out


def _parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def build_graph(
    parse: Callable[[Path], ast.Module] = _parse,
) -> tuple[dict[str, set[str]], dict[str, int], int, int, Counter]:
    """The import graph of the package's modules, and its function-level imports. ``parse``
    reads a file's tree (the tests pass a cache shared with other scans of the package)."""
    files = sorted((ROOT / PACKAGE).rglob("*.py"))
    modules = {module_name(f) for f in files}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    lazy_by_file: dict[str, int] = {}
    lazy_all = lazy_internal = 0
    folders: Counter = Counter()
    for f in files:
        folders[str(f.parent.relative_to(ROOT))] += 1
        module = module_name(f)
        visitor = _Imports()
        visitor.visit(parse(f))
        for node, in_function in visitor.found:
            targets = _targets(node, module, f.name == "__init__.py", modules)
            targets = [t for t in targets if t in modules and t != module]
            graph[module].update(targets)
            if in_function:
                lazy_all += 1
                if targets:
                    lazy_internal += 1
                    lazy_by_file[module] = lazy_by_file.get(module, 0) + 1
    return graph, lazy_by_file, lazy_all, lazy_internal, folders


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative; components of one module without a self-loop dropped."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found, key=len, reverse=True)


def upward_imports(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    out = []
    for module, targets in sorted(graph.items()):
        low = layer_of(module)
        if low is None:
            continue
        for target in sorted(targets):
            high = layer_of(target)
            if high is not None and high > low:
                out.append((module, target))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args(argv)
    graph, lazy_by_file, lazy_all, lazy_internal, folders = build_graph()
    circles = strongly_connected(graph)
    upward = upward_imports(graph)
    report = {
        "modules": len(graph),
        "edges": sum(len(t) for t in graph.values()),
        "circles": [len(c) for c in circles],
        "modules_in_circles": sum(len(c) for c in circles),
        "upward_imports": len(upward),
        "function_level_imports": lazy_all,
        "function_level_tidytensor_imports": lazy_internal,
        "files_with_function_level_tidytensor_imports": len(lazy_by_file),
        "files_per_folder": dict(sorted(folders.items())),
    }
    for key, value in report.items():
        if key != "files_per_folder":
            print(f"{key}: {value}")
    print("files per folder:")
    for folder, n in report["files_per_folder"].items():
        print(f"  {folder}: {n}")
    if args.verbose:
        for i, circle in enumerate(circles):
            print(f"circle {i} ({len(circle)} modules): {', '.join(circle)}")
        for module, target in upward:
            print(f"upward: {module} -> {target}")
        for module, n in sorted(lazy_by_file.items()):
            print(f"function-level: {module}: {n}")
    if args.json:
        report["circle_members"] = circles
        report["upward"] = upward
        Path(args.json).write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
