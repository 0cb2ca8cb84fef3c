"""Test harness: each test starts from a reset engine (every counter at 0), runs inside its
own scope with the kernel leak detector on, and leaves no variables behind (as TF.js's
describeWithFlags does)."""

from __future__ import annotations

import pytest
from hypothesis import settings

import tidytensor as tf

# Property tests draw the same examples every run (a CI run is reproducible) and have no
# deadline (timings on a shared 2-core machine are noise, not failures).
settings.register_profile("tidytensor", derandomize=True, deadline=None)
settings.load_profile("tidytensor")


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
