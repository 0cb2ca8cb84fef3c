"""The package's layering (docs/architecture.md): no import circle among the core packages,
the engine below the ops, and one dispatch route that every kernel call takes."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import package_sources
import tidytensor as tf
from tidytensor.engine import ENGINE

ROOT = Path(__file__).resolve().parent.parent


def _import_graph():
    spec = importlib.util.spec_from_file_location(
        "import_graph", ROOT / "scripts" / "import_graph.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: These tests read every module of the package, as other scans do: one worker, one parse.
pytestmark = package_sources.GROUP


@pytest.fixture(scope="module")
def built_graph():
    """``build_graph()``'s findings, made once."""
    return _import_graph().build_graph(package_sources.source_tree)


@pytest.fixture(scope="module")
def graph(built_graph):
    return built_graph[0]


#: The core: each name is a module or a package (its modules together).
CORE = (
    "engine",
    "tensor",
    "autodiff",
    "ops",
    "gradients",
    "backends",
    "kernel_registry",
    "kernel_names",
    "scopes",
    "tensor_util",
)


def _part(module: str) -> str | None:
    rest = module.split(".")[1:]
    return rest[0] if rest and rest[0] in CORE else None


def test_no_import_circle_between_core_parts(graph):
    """Function-level imports included: the core parts form no circle."""
    parts: dict[str, set[str]] = {p: set() for p in CORE}
    for module, targets in graph.items():
        source = _part(module)
        if source is None:
            continue
        for target in targets:
            dest = _part(target)
            if dest is not None and dest != source:
                parts[source].add(dest)
    circles = _import_graph().strongly_connected(parts)
    assert circles == [], f"import circles between core parts: {circles}"


def test_no_import_circle_in_the_package(graph):
    """Module by module, function-level imports included (they run as soon as the function
    does): the package's modules form no circle, the op families included."""
    circles = _import_graph().strongly_connected(graph)
    assert circles == [], "import circles: " + "; ".join(", ".join(c) for c in circles)


#: The bottom of the op families' stack (docs/architecture.md), bottom first.
OPS_STACK = (
    "_op",
    "sparse",
    "creation",
    "transformations",
    "logical",
    "arithmetic",
    "basic_math",
    "reduction",
    "matrices",
    "slicing_joining",
)


@pytest.mark.parametrize("index", range(len(OPS_STACK)))
def test_op_family_imports_only_families_below_it(graph, index):
    family = OPS_STACK[index]
    imported = {
        t.removeprefix("tidytensor.ops.")
        for t in graph[f"tidytensor.ops.{family}"]
        if t.startswith("tidytensor.ops.")
    }
    assert imported <= set(OPS_STACK[:index]), f"ops.{family} imports {sorted(imported)}"


#: The only function-level imports of tidytensor modules, each sparing an import's cost: the
#: pytest plugin (loaded by every pytest session through its entry point) imports tidytensor
#: only when a test is checked for leaks.
FUNCTION_LEVEL_IMPORTS = {"tidytensor.pytest_plugin": 1}


def test_function_level_imports_only_where_they_spare_an_import(built_graph):
    lazy_by_module = built_graph[1]
    assert lazy_by_module == FUNCTION_LEVEL_IMPORTS


@pytest.mark.parametrize(
    "below, above",
    [
        ("tidytensor.engine", ("tidytensor.ops", "tidytensor.gradients", "tidytensor.autodiff")),
        ("tidytensor.engine", ("tidytensor.viz", "tidytensor.scopes")),
        ("tidytensor.ops", ("tidytensor.autodiff", "tidytensor.gradients", "tidytensor.scopes")),
        ("tidytensor.tensor", ("tidytensor.engine", "tidytensor.scopes", "tidytensor.tensor_util")),
        ("tidytensor.backends", ("tidytensor.ops", "tidytensor.gradients")),
    ],
)
def test_lower_parts_never_import_higher_ones(graph, below, above):
    found = [
        (module, target)
        for module, targets in graph.items()
        if module == below or module.startswith(below + ".")
        for target in targets
        if any(target == a or target.startswith(a + ".") for a in above)
    ]
    assert found == []


def test_kernel_names_package_keeps_its_imports():
    from tidytensor import kernel_names as k
    from tidytensor.kernel_names import ADD, losses, recurrent

    assert ADD == k.ADD == "Add"
    assert losses.__name__ == "tidytensor.kernel_names.losses"
    names = [v for n, v in vars(recurrent).items() if n.isupper() and isinstance(v, str)]
    assert names and all(v.startswith("Tidy") for v in names)


def _dispatched(fn):
    """The kernel names ``fn`` sends through ``Engine._dispatch``."""
    seen: list[str] = []
    original = ENGINE._dispatch

    def spy(name, inputs, attrs):
        seen.append(name)
        return original(name, inputs, attrs)

    ENGINE._dispatch = spy
    try:
        tf.dispose(fn())
    finally:
        del ENGINE._dispatch
    return seen


def test_eager_taped_and_profiled_kernels_take_one_route():
    x = tf.tensor1d([1, 2, 3])
    try:
        assert _dispatched(lambda: x.square().sum()) == ["Square", "Sum"]
        taped = _dispatched(lambda: tf.grad(lambda v: v.square().sum())(x))
        assert taped[:2] == ["Square", "Sum"] and len(taped) > 2  # then the gradient's kernels
        info: list = []
        profiled = _dispatched(
            lambda: info.append(tf.profile(lambda: x.square())) or info[0].result
        )
        assert profiled == ["Square"] and info[0].kernel_names == ["Square"]
    finally:
        x.dispose()
