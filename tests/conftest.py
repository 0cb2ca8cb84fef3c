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


#: TIDYTENSOR_RUN_EAGERLY=1 runs every test with tf.config.run_functions_eagerly(True): the
#: Layers training calls (compiled steps by default) then run op by op, the reference.
RUN_EAGERLY = os.environ.get("TIDYTENSOR_RUN_EAGERLY") == "1"


@pytest.fixture(autouse=True)
def _tidytensor_test_scope():
    engine = tf.engine()
    engine.reset()
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
