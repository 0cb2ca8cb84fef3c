"""Test harness: each test starts from a reset engine (every counter at 0), runs inside its
own scope with the kernel leak detector on, and leaves no variables behind (as TF.js's
describeWithFlags does)."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

import tidytensor as tf

# Property tests draw the same examples every run (a CI run is reproducible) and have no
# deadline (timings on a shared 2-core machine are noise, not failures).
settings.register_profile("tidytensor", derandomize=True, deadline=None)
settings.load_profile("tidytensor")


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the xdist_group marks
def pytest_collection_modifyitems(config, items):
    """For README's ``pytest -n auto --dist loadgroup`` (pytest-xdist):

    - the tests of a module that share one of its module- or class-scoped fixtures (a
      subprocess run, an executed notebook, a module built once) are one ``xdist_group``, so
      one worker computes the fixture once rather than every worker that gets one of them;
    - grouped tests run first, modules that group themselves (``pytestmark``, as the
      gradient-coverage check, the suite's longest piece of work) before the rest: started
      last, a long group leaves one worker finishing it while the other idles.
    """
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        for name in getattr(info, "names_closure", ()):
            defs = info.name2fixturedefs.get(name)
            if defs and defs[-1].scope in ("module", "class") and defs[-1].baseid:
                item.add_marker(pytest.mark.xdist_group(f"{defs[-1].baseid}::{name}"))
    def order(item: pytest.Item) -> int:
        if not item.get_closest_marker("xdist_group"):
            return 2
        module_marks = item.parent.own_markers if item.parent is not None else []
        # a module that groups itself (pytestmark) says it is long: first of all
        return 0 if any(m.name == "xdist_group" for m in module_marks) else 1

    items.sort(key=order)  # stable: collection order within each rank


@pytest.fixture(autouse=True)
def _tidytensor_test_scope():
    engine = tf.engine()
    engine.reset()
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


@pytest.fixture(autouse=True)
def _output_bounds_checked():
    """With TIDYTENSOR_CHECK_OUTPUT_BOUNDS=1, every kernel's fresh buffers are checked
    against its memory-limit bound (see output_bound_checker.py)."""
    if os.environ.get("TIDYTENSOR_CHECK_OUTPUT_BOUNDS") != "1":
        yield
        return
    from output_bound_checker import checked_output_bounds

    with checked_output_bounds() as record:
        yield
    log = os.environ.get("TIDYTENSOR_OUTPUT_BOUNDS_LOG")
    if log:
        with open(log, "a") as f:
            f.writelines(f"{n} {b} {a}\n" for n, b, a in record.calls)
    assert not record.violations, "\n".join(record.violations[:20])
