"""Test harness: each test starts from a reset engine (every counter at 0), runs inside its
own scope with the kernel leak detector on, and leaves no variables behind (as TF.js's
describeWithFlags does).

``TIDYTENSOR_BACKEND=cupy`` (or any registered backend's name) runs every test on that
backend: it is made the active backend after each reset. Tests that are specific to another
backend are skipped, each with its reason, as listed in ``tests/backend_skips/<name>.txt``
(one ``node id prefix  # reason`` per line)."""

from __future__ import annotations

import gc
import os
from pathlib import Path

import pytest
from hypothesis import settings

import tidytensor as tf

# BLAS on one thread per test process. The suite's matrices are small, and on a machine whose
# cores the pytest-xdist workers already fill, OpenBLAS's extra threads spin against each other:
# a 32x784 @ 784x128 matmul took 4-35 ms with two threads per worker and 0.3 ms with one. The
# variables are read when NumPy loads (already done here: the plugin imports tidytensor), so
# they reach the xdist workers and the subprocesses tests start, which this process spawns
# later; threadpoolctl (the ``test`` extra) sets this process's pool. A value the user
# exported is kept.
_BLAS_THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
if not any(os.environ.get(var) for var in _BLAS_THREAD_VARS):
    for var in _BLAS_THREAD_VARS:
        os.environ[var] = "1"
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # without the extra, only this process keeps its default pool
        pass
    else:
        threadpool_limits(1, user_api="blas")

# Property tests draw the same examples every run (a CI run is reproducible) and have no
# deadline (timings on a shared 2-core machine are noise, not failures).
settings.register_profile("tidytensor", derandomize=True, deadline=None)
settings.load_profile("tidytensor")


#: The backend every test runs on (None: the engine's default choice). ``fake-cupy`` runs the
#: ``'cupy'`` backend on the NumPy stand-in of ``fake_cupy.py`` (to try the GPU backend's
#: plumbing, host strings and transfers, on a machine without a GPU).
BACKEND = os.environ.get("TIDYTENSOR_BACKEND") or None
if BACKEND == "fake-cupy":
    import sys

    import fake_cupy
    from tidytensor.backends import cupy_backend

    sys.modules["cupy"], sys.modules["cupyx"] = fake_cupy.build()
    cupy_backend.register(tf.engine(), force=True)
    BACKEND = "cupy"
SKIPS_DIR = Path(__file__).parent / "backend_skips"


def backend_skips(name: str) -> list[tuple[str, str]]:
    """(node id prefix, reason) pairs from ``backend_skips/<name>.txt``."""
    path = SKIPS_DIR / f"{name}.txt"
    if not path.exists():
        return []
    found = []
    for line in path.read_text().splitlines():
        entry, _, reason = line.partition("#")
        if entry.strip():
            found.append((entry.strip(), reason.strip() or "listed in " + path.name))
    return found


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the xdist_group marks
def pytest_collection_modifyitems(config, items):
    """Skips for ``TIDYTENSOR_BACKEND`` (``backend_skips/<name>.txt``); and, for README's
    ``pytest -n auto --dist loadgroup`` (pytest-xdist), the tests of a module that share one of
    its module- or class-scoped fixtures (a subprocess run, an executed notebook, a module
    built once) become one ``xdist_group``: one worker computes the fixture once, rather than
    every worker that gets one of those tests. (xdist hands out the largest groups first,
    then single tests in collection order.)"""
    for item in items:
        if item.get_closest_marker("xdist_group") is not None:
            continue  # a group given by the test (package_sources.GROUP) holds its fixtures too
        info = getattr(item, "_fixtureinfo", None)
        module = item.nodeid.split("::")[0]
        for name in getattr(info, "names_closure", ()):
            defs = info.name2fixturedefs.get(name)
            # fixtures of the test's own module only (a conftest's would group a folder)
            if defs and defs[-1].scope in ("module", "class") and defs[-1].baseid.startswith(module):
                item.add_marker(pytest.mark.xdist_group(f"{defs[-1].baseid}::{name}"))
                break  # one group per test: xdist reads the first
    _skip_for_backend(config, items)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist (absent under -p no:xdist)
def pytest_xdist_make_scheduler(config, log):
    """README's ``--dist loadgroup``, scheduled with linear bookkeeping and up to 32 tests per
    message (``xdist_scheduling``: the stock scheduler's bookkeeping is quadratic in the
    number of tests, and it sends a worker one message per ungrouped test)."""
    if config.getvalue("dist") == "loadgroup":
        from xdist_scheduling import LinearLoadGroup

        return LinearLoadGroup(config, log)
    return None


def pytest_configure(config):
    """A pytest-xdist worker sends each test's events to the controller in one message
    (``xdist_events``: six messages per test made the controller a third busy process)."""
    if hasattr(config, "workerinput"):
        from xdist_events import batch_worker_events

        batch_worker_events(config)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist, on its controller
def pytest_configure_node(node):
    """The controller's side of ``xdist_events``: a worker's test events, handed on one by
    one."""
    from xdist_events import unbatch_node_events

    unbatch_node_events(node)


def pytest_collection(session):
    """On a fresh checkout, a pytest-xdist worker first imports (so rewrites and caches) its
    share of the test modules, rather than every worker rewriting all of them
    (``rewrite_warmup``); then pytest collects as usual."""
    if hasattr(session.config, "workerinput"):  # an xdist worker (not a pytest it started)
        from rewrite_warmup import import_share

        import_share(session.config)


def pytest_collection_finish(session):
    """What collection made (the ~16,000 items, their parameters, the golden tables, the
    modules: ~500,000 objects) lives until the session ends: ``gc.freeze()`` takes it out of
    the cyclic collector's walk. A full ``gc.collect()`` (tests that check what a collection
    frees call it; pytest calls it at the end) then costs what the tests made, not ~0.4 s."""
    gc.freeze()


#: Every this many tests, a worker collects and freezes what is still alive (the modules the
#: tests imported since collection, module fixtures, caches) as ``pytest_collection_finish``
#: does after collection: the full collections of the tests that follow (the leak tests call
#: ``gc.collect()``) walk only what those tests made.
FREEZE_EVERY = 1000
_tests_since_freeze = [0]


@pytest.hookimpl(hookwrapper=True)  # in the process that runs the test, not xdist's controller
def pytest_runtest_protocol(item, nextitem):
    yield
    _tests_since_freeze[0] += 1
    if _tests_since_freeze[0] >= FREEZE_EVERY:
        _tests_since_freeze[0] = 0
        gc.collect()
        gc.freeze()


def _skip_for_backend(config, items):
    """Marks the tests that ``backend_skips/<TIDYTENSOR_BACKEND>.txt`` lists as skipped."""
    if BACKEND is None:
        return
    skips = backend_skips(BACKEND)
    root = Path(str(config.rootpath))
    for item in items:
        nodeid = item.nodeid
        if not nodeid.startswith("tests/"):
            # Node ids are relative to the rootdir; the list is written from the repository root.
            nodeid = str(Path(item.path).relative_to(root)) + nodeid[nodeid.find("::") :]
        for prefix, reason in skips:
            if nodeid.startswith(prefix):
                item.add_marker(pytest.mark.skip(reason=f"{BACKEND}: {reason}"))
                break


#: With TIDYTENSOR_OUTCOME_LOG=<file>, every test's outcome is appended to that file as it
#: finishes ("passed|failed|skipped|error <node id>"), so that a run cut short by a time limit
#: (the device check) still tells what passed and what failed.
OUTCOME_LOG = os.environ.get("TIDYTENSOR_OUTCOME_LOG") or None


def pytest_runtest_logreport(report):
    if OUTCOME_LOG is None or os.environ.get("PYTEST_XDIST_WORKER"):  # xdist: the controller
        return
    outcome = None
    if report.when == "call" or (report.when == "setup" and not report.passed):
        outcome = report.outcome
        if report.when == "setup" and report.failed:
            outcome = "error"
    elif report.when == "teardown" and report.failed:
        outcome = "error"
    if outcome is not None:
        first = str(report.longrepr).strip().splitlines()[-1:] if report.failed else []
        with open(OUTCOME_LOG, "a") as f:
            f.write(
                f"{outcome} {report.nodeid}" + (f" :: {first[0][:200]}" if first else "") + "\n"
            )


def _use_backend(engine) -> None:
    if BACKEND is not None and engine.backend_name != BACKEND:
        if not engine.set_backend(BACKEND):
            pytest.fail(f"TIDYTENSOR_BACKEND={BACKEND}: the backend failed to start")


#: TIDYTENSOR_RUN_EAGERLY=1 runs every test with tf.config.run_functions_eagerly(True): the
#: Layers training calls (compiled steps by default) then run op by op, the reference.
RUN_EAGERLY = os.environ.get("TIDYTENSOR_RUN_EAGERLY") == "1"


@pytest.fixture(autouse=True)
def _tidytensor_test_scope():
    engine = tf.engine()
    engine.reset()
    _use_backend(engine)
    engine.run_functions_eagerly = RUN_EAGERLY
    engine.check_kernel_leaks = True
    engine.update_mode()
    engine.start_scope("test")
    try:
        yield
    finally:
        while engine.state.scope_stack:
            engine.end_scope()
        tf.dispose_variables()
        engine.check_kernel_leaks = False
        engine.update_mode()


#: With TIDYTENSOR_CHECK_OUTPUT_BOUNDS=1, every kernel's fresh buffers are checked against its
#: memory-limit bound (see output_bound_checker.py). The fixture exists only then: an autouse
#: fixture costs every one of the ~16,000 tests its set-up and teardown.
CHECK_OUTPUT_BOUNDS = os.environ.get("TIDYTENSOR_CHECK_OUTPUT_BOUNDS") == "1"

if CHECK_OUTPUT_BOUNDS:

    @pytest.fixture(autouse=True)
    def _output_bounds_checked():
        from output_bound_checker import checked_output_bounds

        with checked_output_bounds() as record:
            yield
        log = os.environ.get("TIDYTENSOR_OUTPUT_BOUNDS_LOG")
        if log:
            with open(log, "a") as f:
                f.writelines(f"{n} {b} {a}\n" for n, b, a in record.calls)
        assert not record.violations, "\n".join(record.violations[:20])
