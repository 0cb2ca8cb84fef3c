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


def pytest_collection_modifyitems(config, items):
    """Tests grouped for pytest-xdist (``@pytest.mark.xdist_group``: one worker runs a group,
    under README's ``--dist loadgroup``) run first: the gradient-coverage group is the
    suite's longest piece of work, and started last it would leave one worker finishing it
    alone while the other idles."""
    grouped = [item for item in items if item.get_closest_marker("xdist_group")]
    if grouped:
        rest = [item for item in items if not item.get_closest_marker("xdist_group")]
        items[:] = grouped + rest


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
