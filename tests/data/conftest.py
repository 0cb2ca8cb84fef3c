"""tf.data tests run producer threads (prefetch) next to the consumer. The engine's
kernel-leak detector (on for every test, see tests/conftest.py) counts the backend's
buffers globally, so a buffer made on the prefetch thread while the consumer runs a
kernel reads as a leak of that kernel. tidytensor.data has no kernels of its own, so the
detector is switched off here; memory is checked by the tests themselves."""

from __future__ import annotations

import pytest

import tidytensor as tf


@pytest.fixture(autouse=True)
def _no_kernel_leak_check_across_threads(_tidytensor_test_scope):
    engine = tf.engine()
    engine.check_kernel_leaks = False
    engine.update_mode()
    yield
