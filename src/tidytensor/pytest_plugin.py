"""pytest plugin (registered by the ``pytest11`` entry point): fail tests that leave tensors.

* ``--tidytensor-leaks`` (or ``tidytensor_leaks = true`` in the ini file) checks every test.
* The ``no_tensor_leaks`` fixture checks the tests that ask for it.
* ``@pytest.mark.tidytensor_allow_leaks`` exempts one test from the option; doctests are
  not checked by it either (examples often leave their results alive).

A checked test that ends with more tensors alive than when it started (``tf.memory()``'s
``num_tensors``) errors at teardown with the tensors it left, grouped by the line that made
them. The count is taken around the whole test, fixtures included: it starts before the
test's first function-scoped fixture is set up and ends after its last one is torn down, so
a fixture that opens a scope for the test (``engine.start_scope()`` ... ``end_scope()``) has
closed it, and freed what it owned, before the count is read. Tensors made by higher-scoped
(module, session) fixtures are made before the count starts. An ``engine.reset()`` during
the test starts the count again from zero.

tidytensor itself is imported only when a test is checked.
"""

from __future__ import annotations

from typing import Any

import pytest

_OPTION = "--tidytensor-leaks"
_INI = "tidytensor_leaks"
_MARK = "tidytensor_allow_leaks"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tidytensor", "tidytensor tensor-leak checks")
    group.addoption(
        _OPTION,
        action="store_true",
        default=False,
        help="fail (at teardown) every test that leaves tidytensor tensors alive, listing "
        "them by creation site",
    )
    parser.addini(
        _INI,
        type="bool",
        default=False,
        help="check every test for tidytensor tensor leaks (as --tidytensor-leaks)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{_MARK}: exempt this test from --tidytensor-leaks (it means to leave tensors alive)",
    )


def _check_all(config: pytest.Config) -> bool:
    return bool(config.getoption(_OPTION) or config.getini(_INI))


def _is_doctest(item: Any) -> bool:
    """Doctests are examples, which often leave their results alive: not checked."""
    return any(cls.__name__ == "DoctestItem" for cls in type(item).__mro__)


@pytest.fixture(autouse=True)
def _tidytensor_leak_guard(request: pytest.FixtureRequest) -> Any:
    """Autouse, and a plugin's, so it is set up before any conftest fixture of the test
    and torn down after all of them: the count spans the test's whole life."""
    wanted = "no_tensor_leaks" in request.fixturenames
    if not wanted and (
        not _check_all(request.config)
        or request.node.get_closest_marker(_MARK) is not None
        or _is_doctest(request.node)
    ):
        yield None
        return
    from tidytensor.testing import LeakCheck

    check = LeakCheck()
    yield check
    message = check.failure(request.node.nodeid)
    if message is not None:
        pytest.fail(message, pytrace=False)


@pytest.fixture
def no_tensor_leaks(_tidytensor_leak_guard: Any) -> Any:
    """Fails the test (at teardown) if it leaves tensors alive, listing them by creation
    site. Yields the :class:`tidytensor.testing.LeakCheck` (``new_tensors()`` gives the
    count so far)."""
    return _tidytensor_leak_guard
