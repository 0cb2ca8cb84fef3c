"""Doctests in src/ run with ``tf`` and ``np`` in scope."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tidytensor as tf
from tidytensor.pytest_plugin import _is_doctest  # the leak plugin's own test of an item


def pytest_addoption(parser: pytest.Parser) -> None:
    # The per-op core is chosen when tidytensor is imported (before any option is read):
    # TIDYTENSOR_PURE_PYTHON=1 picks the Python reference. This option states which core the
    # run expects; tests/test_engine_core.py fails when another one is active.
    parser.addoption(
        "--engine-core",
        choices=("compiled", "python"),
        default=None,
        help="the per-op core this run must use (TIDYTENSOR_PURE_PYTHON=1 selects 'python')",
    )


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """conftest.py files are plugins, never collected: with ``--doctest-modules`` (pyproject's
    addopts) pytest would import each one a second time as a doctest module named
    ``conftest``. tests/data and tests/layers both hold a conftest.py outside any package, so
    ``pytest tests/data tests/layers`` (both loaded up front) failed with "import file
    mismatch". pytest still loads them as conftests; they hold no doctests."""
    if collection_path.name == "conftest.py":
        return True
    # tests/golden's scripts generate the committed goldens in other environments (Node,
    # TensorFlow, Keras); they are not test modules and may import what this one lacks.
    if collection_path.parent.name == "golden" and collection_path.suffix == ".py":
        return not collection_path.name.startswith("test_")
    return None


@pytest.hookimpl(hookwrapper=True)
def pytest_collect_file(file_path: Path, parent: pytest.Collector):
    """With ``--doctest-modules`` every ``.py`` file under the test paths, each test module
    too, is also collected as a doctest module: imported, then searched object by object
    for examples (doctest's ``find`` took 1.0 s of a profiled collection of the suite, and
    0.35 s with this filter). A file
    whose text has no ``>>>`` prompt holds no example, so its doctest module is dropped
    unsearched; the doctests collected are the same."""
    outcome = yield
    collectors = outcome.get_result()
    doctests = [c for c in collectors if type(c).__name__ == "DoctestModule"]
    if doctests and ">>>" not in file_path.read_text(encoding="utf-8", errors="replace"):
        outcome.force_result([c for c in collectors if c not in doctests])


@pytest.hookimpl(trylast=True)  # after the item's fixtures are torn down
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """After each doctest of src/, the engine is reset, as tests/conftest.py resets it before
    each test: the tensors an example leaves alive (examples are not leak-checked) go with
    the backend, unreported. Without it, the leaks of the doctests each worker runs last
    (src/ is collected after tests/) waited for interpreter exit, and the README's test
    command ended with ~600 ``LeakWarning`` lines on its workers' stderr."""
    if _is_doctest(item):
        tf.engine().reset()


@pytest.fixture(autouse=True, scope="session")  # once: doctest_namespace is session-scoped
def _doctest_namespace(doctest_namespace):
    doctest_namespace["tf"] = tf
    doctest_namespace["np"] = np
