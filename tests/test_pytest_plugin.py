"""The pytest plugin (``tidytensor.pytest_plugin``, entry point ``pytest11``): the
``--tidytensor-leaks`` option, the ``tidytensor_leaks`` ini setting, the ``no_tensor_leaks``
fixture and the ``tidytensor_allow_leaks`` marker.

Each scenario runs in a pytest subprocess (its own engine), loading the plugin the way users
get it: through the installed entry point.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]
PROJECT_CONFTEST = (ROOT / "tests" / "conftest.py").read_text()

LEAKY_TESTS = """
import gc
import pytest
import tidytensor as tf

HELD = []


def test_clean():
    tf.tidy(lambda: tf.ones([2]).add(1)).dispose()
    t = tf.ones([3])
    t.dispose()


def test_keeps_a_reference():
    HELD.append(tf.ones([2, 3]))  # REFERENCED


def test_drops_a_handle():
    tf.zeros([4])  # DROPPED
    gc.collect()


@pytest.mark.tidytensor_allow_leaks
def test_allowed():
    HELD.append(tf.ones([1]))
"""


def line(source: str, marker: str) -> int:
    [n] = [i + 1 for i, text in enumerate(source.splitlines()) if text.endswith(f"# {marker}")]
    return n


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-W", "ignore::tidytensor.LeakWarning", *args
    )


def test_plugin_is_registered_by_entry_point():
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '[project.entry-points.pytest11]\ntidytensor = "tidytensor.pytest_plugin"\n' in pyproject
    installed = {ep.name: ep.value for ep in entry_points(group="pytest11")}
    assert installed.get("tidytensor") == "tidytensor.pytest_plugin", (
        "the installed metadata has no pytest11 entry point: reinstall (pip install -e .)"
    )


def test_help_lists_the_option_and_ini_setting(pytester):
    result = pytester.runpytest_subprocess("--help")
    result.stdout.fnmatch_lines(["*--tidytensor-leaks*", "*tidytensor_leaks (bool)*"])


def test_without_the_option_nothing_is_checked(pytester):
    pytester.makepyfile(test_leaky=LEAKY_TESTS)
    run(pytester).assert_outcomes(passed=4)


def test_option_fails_tests_that_leave_tensors_naming_their_lines(pytester):
    pytester.makepyfile(test_leaky=LEAKY_TESTS)
    result = run(pytester, "--tidytensor-leaks")
    result.assert_outcomes(passed=4, errors=2)
    out = result.stdout.str()
    source = (pytester.path / "test_leaky.py").read_text()
    referenced, dropped = line(source, "REFERENCED"), line(source, "DROPPED")
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_keeps_a_reference*",
            "test_leaky.py::test_keeps_a_reference left 1 new tensor behind (expected 0; 1 new data buffer):",
            f"  test_leaky.py:{referenced} in test_keeps_a_reference: 1 tensor, 24 bytes",
            "      Tensor * float32[[]2, 3[]], still referenced",
            "Dispose them, return them from tf.tidy(), or make them inside 'with tf.tidy_scope():'.",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_drops_a_handle*",
            f"  test_leaky.py:{dropped} in test_drops_a_handle: 1 tensor, 16 bytes",
            "      Tensor * float32[[]4[]], garbage-collected without dispose",
        ]
    )
    assert "test_clean" not in out.split("short test summary")[0].split("ERRORS")[-1]
    assert "test_allowed" not in out


def test_ini_setting_turns_the_check_on(pytester):
    pytester.makepyfile(test_leaky=LEAKY_TESTS)
    pytester.makeini("[pytest]\ntidytensor_leaks = true\n")
    run(pytester).assert_outcomes(passed=4, errors=2)


def test_fixture_checks_only_the_tests_that_ask(pytester):
    pytester.makepyfile(
        test_fixture="""
        import tidytensor as tf

        HELD = []

        def test_asks_and_leaks(no_tensor_leaks):
            HELD.append(tf.ones([2]))
            assert no_tensor_leaks.new_tensors() == 1

        def test_asks_and_is_clean(no_tensor_leaks):
            x = tf.ones([2])
            assert no_tensor_leaks.new_tensors() == 1
            x.dispose()

        def test_does_not_ask():
            HELD.append(tf.ones([2]))
        """
    )
    result = run(pytester)
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(["*ERROR at teardown of test_asks_and_leaks*"])


def test_with_the_projects_conftest_the_test_scope_is_closed_before_the_count(pytester):
    """tests/conftest.py resets the engine and opens a scope per test: what that scope owns
    is freed before the count, what escapes it (kept tensors, tensors made after a reset)
    is reported."""
    pytester.makeconftest(PROJECT_CONFTEST)
    pytester.makepyfile(
        test_suite="""
        import pytest
        import tidytensor as tf

        HELD = []

        def test_tensors_owned_by_the_test_scope(no_tensor_leaks):
            HELD.append(tf.ones([2]).add(1))
            assert no_tensor_leaks.new_tensors() == 2

        def test_variables_disposed_by_the_conftest():
            tf.variable(tf.zeros([3]), name="w")

        def test_keeps_a_tensor():
            HELD.append(tf.keep(tf.ones([5])))  # KEPT

        def test_keeps_and_drops_a_tensor():
            tf.keep(tf.ones([6]))

        def test_resets_then_leaks():
            tf.ones([100])
            tf.engine().reset()
            HELD.append(tf.ones([7]))  # AFTER_RESET
        """
    )
    source = (pytester.path / "test_suite.py").read_text()
    result = run(pytester, "--tidytensor-leaks")
    result.assert_outcomes(passed=5, errors=3)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_keeps_a_tensor*",
            "test_suite.py::test_keeps_a_tensor left 1 new tensor behind*",
            f"  test_suite.py:{line(source, 'KEPT')} in test_keeps_a_tensor: 1 tensor, 20 bytes",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_keeps_and_drops_a_tensor*",
            "test_suite.py::test_keeps_and_drops_a_tensor left 1 new tensor behind*",
            "  1 of them cannot be named*kept tensor (tf.keep)*",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_resets_then_leaks*",
            "test_suite.py::test_resets_then_leaks left 1 new tensor behind*",
            f"  test_suite.py:{line(source, 'AFTER_RESET')} in test_resets_then_leaks: 1 tensor, 28 bytes",
        ]
    )


def test_higher_scoped_fixtures_are_not_counted_against_a_test(pytester):
    pytester.makepyfile(
        test_scoped="""
        import pytest
        import tidytensor as tf

        @pytest.fixture(scope="module")
        def weights():
            w = tf.ones([4, 4])
            yield w
            w.dispose()

        def test_first(weights):
            tf.tidy(lambda: weights.square().sum().data_sync())

        def test_second(weights):
            tf.tidy(lambda: weights.square().sum().data_sync())
        """
    )
    run(pytester, "--tidytensor-leaks").assert_outcomes(passed=2)


def test_function_fixture_tensors_count_when_the_fixture_does_not_free_them(pytester):
    pytester.makepyfile(
        test_fixture_leak="""
        import pytest
        import tidytensor as tf

        @pytest.fixture
        def good():
            t = tf.ones([2])
            yield t
            t.dispose()

        @pytest.fixture
        def bad():
            return tf.ones([3])

        def test_good(good):
            pass

        def test_bad(bad):
            pass
        """
    )
    result = run(pytester, "--tidytensor-leaks")
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["*ERROR at teardown of test_bad*", "*in bad: 1 tensor, 12 bytes"])


def test_doctests_are_not_checked(pytester):
    pytester.makepyfile(
        example='''
        def double(x):
            """
            >>> import tidytensor as tf
            >>> double(tf.ones([2])).array_sync()
            [2.0, 2.0]
            """
            return x.mul(2)
        '''
    )
    run(pytester, "--doctest-modules", "--tidytensor-leaks").assert_outcomes(passed=1)
