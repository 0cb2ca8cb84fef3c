"""Completeness, check (f) (see ``completeness_catalog.py``): every registered gradient,
and every differentiable op, is exercised by a ``tf.testing.check_grads`` call or a golden
``grad`` case somewhere in ``tests/``. The suite's gradient tests run in a subprocess (more
only where two test files share a basename) with :class:`GradCoverageRecorder`, which records the kernels whose gradient
functions the tape calls (for kernels the function under test ran, not check_grads' own
loss) and the public ops the function under test called under a tape.
Adding a gradient or a differentiable op without a gradient test fails here.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import tidytensor
from completeness_catalog import (
    ALL_OPS_SNAKE,
    CHAINED_METHODS,
    DIFFERENTIABLE_OPS,
    GRADIENTS_WITHOUT_CPU_KERNEL,
    ROOT,
    TESTS_DIR,
    chained_op,
    qualified_snake,
    split_qualified,
)
from tidytensor import Tensor
from tidytensor.kernel_registry import get_kernel, registered_gradients
from tidytensor.naming import snake_case
from tidytensor.ops._chained import CORE_OP_METHODS

# ---------------------------------------------------------------------------------------------
# (f) every gradient and every differentiable op exercised by a gradient test
# ---------------------------------------------------------------------------------------------


class GradCoverageRecorder:
    """A pytest plugin that runs only the suite's gradient tests and records what they cover.

    It keeps the tests whose function calls ``check_grads`` and the golden cases with a
    ``grad`` list, and records:

    - ``kernels``: kernels whose registered gradient function the tape called for a kernel
      that the function under test ran (inside the ``f`` given to ``check_grads``, or inside
      a golden grad case's op; check_grads' own loss, ``sum(f(x) * w)``, does not count);
    - ``ops``: the public ops (``tf.x``, ``tf.<ns>.x``, ``Tensor.x``) the function under test
      called directly while a tape was recording, and the op of each golden grad case that
      ran without raising.
    """

    def __init__(self, out_path: Path):
        self.out_path = out_path
        self.kernels: set[str] = set()
        self.ops: set[str] = set()
        self.active = 0  # > 0 inside a function under test
        self.depth = 0  # > 0 inside a recorded public op
        self.selected = 0

    # -- patches ---------------------------------------------------------------------------
    def _install(self) -> None:
        import golden_util
        import tidytensor.kernel_registry as registry
        import tidytensor.testing as testing
        from tidytensor.engine import ENGINE

        recorder = self
        original_get_gradient = registry.get_gradient

        def get_gradient(kernel: str):
            config = original_get_gradient(kernel)
            if config is None or not recorder.active:
                return config
            grad_func = config.grad_func

            def recording_grad_func(*args: Any, **kwargs: Any) -> Any:
                recorder.kernels.add(kernel)
                return grad_func(*args, **kwargs)

            return dataclasses.replace(config, grad_func=recording_grad_func)

        registry.get_gradient = get_gradient

        def under_test(f: Any) -> Any:
            @functools.wraps(f)
            def traced(*args: Any, **kwargs: Any) -> Any:
                recorder.active += 1
                try:
                    return f(*args, **kwargs)
                finally:
                    recorder.active -= 1

            return traced

        original_check_grads = testing.check_grads

        @functools.wraps(original_check_grads)
        def check_grads(f: Any, args: Any, *rest: Any, **kwargs: Any) -> Any:
            # The tape's gradient only: what it runs is what this run records. The finite
            # differences (four more calls of f per check) compare values, which the suite
            # itself does.
            kwargs["directions"] = 0
            return original_check_grads(under_test(f), args, *rest, **kwargs)

        testing.check_grads = check_grads

        original_call_case = golden_util.call_case

        @functools.wraps(original_call_case)
        def call_case(case: dict) -> Any:
            if not case.get("grad"):
                return original_call_case(case)
            result = under_test(original_call_case)(case)
            recorder.ops.add(qualified_snake(case["op"]))
            return result

        golden_util.call_case = call_case

        def recording_op(fn: Any, qualified: str) -> Any:
            @functools.wraps(fn)
            def recorded(*args: Any, **kwargs: Any) -> Any:
                if recorder.active and not recorder.depth and ENGINE.state.active_tape is not None:
                    recorder.ops.add(qualified)
                recorder.depth += 1
                try:
                    return fn(*args, **kwargs)
                finally:
                    recorder.depth -= 1

            return recorded

        for qualified in ALL_OPS_SNAKE:
            namespace, name = split_qualified(qualified)
            owner = getattr(tidytensor, namespace, None) if namespace else tidytensor
            fn = getattr(owner, name, None)
            if callable(fn):
                setattr(owner, name, recording_op(fn, qualified))
        for js in (*CHAINED_METHODS, *CORE_OP_METHODS):
            method = getattr(Tensor, snake_case(js), None)
            if callable(method):
                setattr(Tensor, snake_case(js), recording_op(method, chained_op(js)))

    # -- pytest hooks ----------------------------------------------------------------------
    def pytest_configure(self, config: Any) -> None:
        self._install()

    @staticmethod
    def _is_gradient_test(item: Any) -> bool:
        fn = getattr(item, "function", None)
        if fn is None:
            return False  # doctests
        callspec = getattr(item, "callspec", None)
        params = callspec.params.values() if callspec is not None else ()
        if any(isinstance(p, dict) and "op" in p and p.get("grad") for p in params):
            return True
        return _calls_check_grads(inspect.unwrap(fn))

    def pytest_collection_modifyitems(self, session: Any, config: Any, items: list) -> None:
        keep, dropped = [], []
        for item in items:
            (keep if self._is_gradient_test(item) else dropped).append(item)
        items[:] = keep
        self.selected = len(keep)
        config.hook.pytest_deselected(items=dropped)

    def pytest_sessionfinish(self, session: Any, exitstatus: Any) -> None:
        self.out_path.write_text(
            json.dumps(
                {
                    "kernels": sorted(self.kernels),
                    "ops": sorted(self.ops),
                    "selected": self.selected,
                    "exitstatus": int(exitstatus),
                }
            )
        )


@functools.cache
def _calls_check_grads(fn: Any) -> bool:
    """Whether a test function's source calls ``check_grads``: read once per function, not
    once per parametrized item (a table-driven test has hundreds)."""
    try:
        return "check_grads" in inspect.getsource(fn)
    except (OSError, TypeError):
        return False


def _record_gradient_coverage(out_path: Path, files: list[str]) -> int:
    """Runs the gradient tests of ``files`` with the recorder; writes its findings to
    ``out_path``."""
    for path in (str(ROOT / "src"), str(TESTS_DIR)):
        if path not in sys.path:
            sys.path.insert(0, path)
    args = [
        *files,
        f"--rootdir={ROOT}",
        "-q",
        "-p",
        "no:cacheprovider",
        "--continue-on-collection-errors",
        # No assertion rewriting: this run records what the gradient tests run (the suite
        # itself runs them, and reports their failures, with pytest's assert messages);
        # rewriting the asserts of ~35 test files was a third of its time.
        "--assert=plain",
        "-W",
        "ignore::pytest.PytestAssertRewriteWarning",  # tidytensor is imported before pytest
    ]
    return int(pytest.main(args, plugins=[GradCoverageRecorder(out_path)]))


#: A test file can hold a gradient test only if it names one of these: a gradient test's
#: function calls ``check_grads`` (its source says so), and golden ``grad`` cases come from
#: ``golden_util``'s case tables.
GRADIENT_TEST_MARKERS = ("check_grads", "golden_util")


def _test_file_groups() -> list[list[str]]:
    """Every test file under tests/ that can hold a gradient test (``GRADIENT_TEST_MARKERS``;
    the other files are not even collected, which saves most of this check's time) but the
    completeness checks' own (``test_completeness_*``: this file must not run itself), in as
    few pytest sessions as can hold them: one, unless two folders hold test files of one
    basename, which one session cannot import side by side."""
    groups: list[list[Path]] = []
    for path in sorted(TESTS_DIR.rglob("test_*.py")):
        if "node_modules" in path.parts or path.name.startswith("test_completeness"):
            continue
        text = path.read_text(encoding="utf-8")
        if not any(marker in text for marker in GRADIENT_TEST_MARKERS):
            continue
        for group in groups:
            if all(other.name != path.name for other in group):
                group.append(path)
                break
        else:
            groups.append([path])
    return [[str(path) for path in group] for group in groups]


# Under pytest-xdist (``--dist loadgroup``) the three tests that share this module-scoped
# fixture run on one worker (tests/conftest.py groups them), so the run happens once.
@pytest.fixture(scope="module")
def grad_coverage(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("grad_coverage")
    coverage: dict[str, Any] = {"kernels": set(), "ops": set(), "selected": 0}
    outputs = []
    for i, files in enumerate(_test_file_groups()):
        out = tmp / f"coverage{i}.json"
        proc = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), str(out), *files],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=1200,
        )
        session = f"session {i + 1} ({len(files)} files from {Path(files[0]).relative_to(ROOT)})"
        assert out.is_file(), (
            f"the gradient-coverage run of {session} wrote nothing (exit {proc.returncode}):\n"
            f"{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
        )
        found = json.loads(out.read_text())
        coverage["kernels"] |= set(found["kernels"])
        coverage["ops"] |= set(found["ops"])
        coverage["selected"] += found["selected"]
        if found["exitstatus"] not in (0, 5):  # 5: no gradient test in that session
            outputs.append(f"--- {session} (exit {found['exitstatus']}):\n{proc.stdout[-1500:]}")
    coverage["output"] = "\n".join(outputs)
    return coverage


def test_gradient_tests_were_found(grad_coverage):
    assert grad_coverage["selected"] >= 200, grad_coverage["output"]
    assert "Multiply" in grad_coverage["kernels"] and "exp" in grad_coverage["ops"]
    # check_grads' own loss (sum of f(x) * w) is not credited to the function under test.
    assert len(grad_coverage["kernels"]) >= 50, grad_coverage["output"]


def test_every_registered_gradient_is_exercised(grad_coverage):
    registered = set(registered_gradients())
    unrunnable = {name for name in registered if get_kernel(name, "cpu") is None}
    assert unrunnable <= GRADIENTS_WITHOUT_CPU_KERNEL, (
        f"gradients registered for kernels with no cpu kernel: {sorted(unrunnable)}"
    )
    missing = sorted(registered - unrunnable - set(grad_coverage["kernels"]))
    assert not missing, (
        f"{len(missing)} kernels have a registered gradient that no check_grads table entry or "
        f"golden grad case runs (add one to the family's GRAD_OPS table): {missing}\n"
        f"gradient-test runs that failed:\n{grad_coverage['output'] or 'none'}"
    )


def test_every_differentiable_op_is_exercised(grad_coverage):
    missing = sorted(set(DIFFERENTIABLE_OPS) - set(grad_coverage["ops"]))
    assert not missing, (
        f"{len(missing)}/{len(DIFFERENTIABLE_OPS)} differentiable ops are called by no "
        f"check_grads table entry or golden grad case: {missing}\n"
        f"gradient-test runs that failed:\n{grad_coverage['output'] or 'none'}"
    )


if __name__ == "__main__":
    sys.exit(_record_gradient_coverage(Path(sys.argv[1]), sys.argv[2:]))
