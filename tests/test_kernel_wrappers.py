"""The engine's kernel wrappers (``Engine.add_kernel_wrapper``, ``kernels_wrapped``;
``engine/backend_registry.py``): one ordered list of what wraps every kernel, applied when a
kernel is bound into the table. The memory limit's guard is one of them; the tests' kernel
recorder and output-bound checker are others."""

from __future__ import annotations

import pytest

import tidytensor as tf
from kernel_recorder import recorded_kernels
from tidytensor import config
from tidytensor.engine import ENGINE


@pytest.fixture
def unwatched():
    """Kernel leak detector off (the suite's conftest turns it on, which sends every op down
    the watched path): the fast op path's same-shape shortcuts run."""
    ENGINE.backend  # noqa: B018 - the backend and its kernel table exist
    ENGINE.check_kernel_leaks = False
    ENGINE.update_mode()
    yield
    ENGINE.check_kernel_leaks = True
    ENGINE.update_mode()
    config.set_memory_limit(None)


def _naming(log: list, tag: str):
    def wrapper(name, kernel):
        def wrapped(inputs, attrs):
            log.append((tag, name))
            return kernel(inputs, attrs)

        wrapped.__wrapped__ = kernel
        return wrapped

    return wrapper


def test_a_wrapper_sees_the_fast_op_path_and_leaves_it_when_removed(unwatched):
    a, b = tf.scalar(1.5), tf.scalar(2.25)
    tf.add(a, b).dispose()  # the fast op caches the same-shape shortcut of this table
    assert ENGINE._same_shape_kernels
    log: list = []
    wrapper = _naming(log, "w")
    with ENGINE.kernels_wrapped(wrapper):
        assert ENGINE._same_shape_kernels == {}  # the shortcuts are not wrapped: off
        c = tf.add(a, b)
        assert c.numpy() == 3.75
        c.dispose()
    assert log == [("w", "Add")]
    assert ENGINE._same_shape_kernels  # back, and the fast op's cache follows
    tf.add(a, b).dispose()
    assert log == [("w", "Add")]
    with ENGINE.kernels_wrapped(wrapper):  # again: the cache is keyed on the table object
        tf.add(a, b).dispose()
    assert log == [("w", "Add"), ("w", "Add")]
    tf.dispose([a, b])


def test_the_recorder_sees_fast_path_calls(unwatched):
    a, b = tf.ones([3]), tf.ones([3])
    with recorded_kernels() as seen:
        tf.add(a, b).dispose()
        tf.mul(a, b).dispose()
    assert seen == ["Add", "Multiply"]
    tf.dispose([a, b])


def test_wrappers_apply_in_order_of_registration_the_first_nearest_the_kernel():
    log: list = []
    inner, outer = _naming(log, "inner"), _naming(log, "outer")
    x = tf.ones([2])
    ENGINE.add_kernel_wrapper(inner)
    ENGINE.add_kernel_wrapper(outer)
    try:
        kernel = ENGINE._missing_kernel("Neg")
        tf.neg(x).dispose()
    finally:
        ENGINE.remove_kernel_wrapper(outer)
        ENGINE.remove_kernel_wrapper(inner)
    assert log == [("outer", "Neg"), ("inner", "Neg")]
    assert kernel.__wrapped__.__wrapped__ is not None
    assert not hasattr(ENGINE._missing_kernel("Neg"), "__wrapped__")  # bare again
    x.dispose()


def test_the_memory_limit_guard_is_a_kernel_wrapper(unwatched):
    assert ENGINE._kernel_wrappers == ()
    config.set_memory_limit(10**9)
    assert ENGINE._kernel_wrappers == (ENGINE._memory_guard,)
    config.set_memory_limit(10**8)  # another limit: registered once
    assert ENGINE._kernel_wrappers == (ENGINE._memory_guard,)
    log: list = []
    with ENGINE.kernels_wrapped(_naming(log, "w")):
        assert len(ENGINE._kernel_wrappers) == 2
        x = tf.ones([10])
        with pytest.raises(tf.ResourceExhaustedError, match="'tile'"):
            config.set_memory_limit(100)
            tf.tile(x, [10])  # the guard refuses inside the recording wrapper
        assert ("w", "Tile") in log
        config.set_memory_limit(None)  # the guard goes, the other wrapper stays
        assert len(ENGINE._kernel_wrappers) == 1
        tf.tile(x, [10]).dispose()
        x.dispose()
    assert ENGINE._kernel_wrappers == ()


def test_a_wrapper_outlives_engine_reset_and_binds_on_the_next_backend():
    log: list = []
    with ENGINE.kernels_wrapped(_naming(log, "w")):
        ENGINE.reset()  # no backend until the next op: the table is made then
        assert ENGINE._backend is None
        x = tf.ones([2])
        tf.neg(x).dispose()
        x.dispose()
    assert ("w", "Neg") in log


def test_a_wrapper_is_registered_once_and_removed_once():
    wrapper = _naming([], "w")
    ENGINE.add_kernel_wrapper(wrapper)
    try:
        with pytest.raises(ValueError, match="add_kernel_wrapper: .* already registered"):
            ENGINE.add_kernel_wrapper(wrapper)
    finally:
        ENGINE.remove_kernel_wrapper(wrapper)
    with pytest.raises(ValueError, match="remove_kernel_wrapper: .* not registered"):
        ENGINE.remove_kernel_wrapper(wrapper)


def test_a_compiled_function_retraces_under_a_wrapper():
    f = tf.function(lambda x: tf.neg(x))
    x = tf.ones([2])
    f(x).dispose()
    log: list = []
    with ENGINE.kernels_wrapped(_naming(log, "w")):
        f(x).dispose()  # a new kernel table: a new signature, traced through the wrapper
    assert ("w", "Neg") in log
    x.dispose()
