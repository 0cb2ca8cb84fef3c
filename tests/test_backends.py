"""Backends and the kernel registry (catalog §1.9-§1.12): registration with priorities, lazy
selection, set/get/find/remove, moving data between backends, kernel registration and its
TF.js warnings and errors, and the test-mode kernel leak detector.

A second NumPy backend ('cpu2') is made by subclassing NumpyBackend and copying the cpu
kernels; every test leaves the registries as it found them and the 'cpu' backend active.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import tidytensor as tf
from tidytensor import kernel_registry as kr
from tidytensor.backends.numpy_backend import NumpyBackend
from tidytensor.errors import (
    BackendNotFoundError,
    KernelLeakError,
    KernelNotRegisteredError,
    TidyTensorError,
)
from tidytensor.ops._op import convert_to_tensor


def counts() -> tuple[int, int, int]:
    m = tf.memory()
    return (m.num_tensors, m.num_data_buffers, m.num_bytes)


class Cpu2Backend(NumpyBackend):
    name = "cpu2"


class FailingBackend(NumpyBackend):
    name = "bad"

    def __init__(self) -> None:
        raise RuntimeError("no device here")


def _drop_backend(name: str) -> None:
    engine = tf.engine()
    if name in engine.registered_backends():
        tf.remove_backend(name)
    for config in kr.get_kernels_for_backend(name):
        kr.unregister_kernel(config.kernel_name, name)


@pytest.fixture
def restore_backends():
    """Whatever a test registers or removes, 'cpu' is registered and active afterwards and
    no other backend (or its kernels) is left behind."""
    engine = tf.engine()
    before = list(engine.registered_backends())
    assert before == ["cpu"]
    yield
    while engine.state.scope_stack:
        engine.end_scope()
    for name in list(engine.registered_backends()):
        if name != "cpu":
            _drop_backend(name)
    for name in ("cpu2", "bad", "cpu3"):
        for config in kr.get_kernels_for_backend(name):
            kr.unregister_kernel(config.kernel_name, name)
    if "cpu" not in engine.registered_backends():
        tf.register_backend("cpu", NumpyBackend, 1)
    tf.set_backend("cpu")
    assert engine.registered_backends() == ["cpu"]


def add_cpu2(priority: int = 2) -> None:
    kr.copy_registered_kernels("cpu", "cpu2")
    assert tf.register_backend("cpu2", Cpu2Backend, priority) is True


@pytest.fixture
def kernels():
    """Registers kernels for the test and unregisters them afterwards."""
    registered: list[tuple[str, str]] = []

    def register(name, fn, backend="cpu", **extra):
        kr.register_kernel(kr.KernelConfig(name, backend, fn, **extra))
        registered.append((name, backend))

    yield register
    for name, backend in registered:
        if kr.get_kernel(name, backend) is not None:
            kr.unregister_kernel(name, backend)


# ================================================================== selection


def test_get_backend_is_none_before_first_initialization():
    assert tf.get_backend() is None
    t = tf.scalar(1)
    assert tf.get_backend() == "cpu"
    assert t.array_sync() == 1.0


def test_ready_and_backend_initialize_lazily():
    assert tf.get_backend() is None
    assert tf.ready() is True
    assert tf.get_backend() == "cpu"
    assert isinstance(tf.backend(), NumpyBackend)
    assert tf.engine().backend is tf.backend()


def test_memory_initializes_the_backend():
    assert tf.get_backend() is None
    tf.memory()
    assert tf.get_backend() == "cpu"


def test_highest_priority_backend_wins(restore_backends):
    add_cpu2(priority=2)
    assert tf.get_backend() is None
    t = tf.scalar(1)
    assert tf.get_backend() == "cpu2"
    assert isinstance(tf.backend(), Cpu2Backend)
    assert t.data_id.backend is tf.backend()
    assert tf.add(t, 1).array_sync() == 2.0


def test_lower_priority_backend_is_not_chosen(restore_backends):
    add_cpu2(priority=0)
    tf.scalar(1)
    assert tf.get_backend() == "cpu"


def test_failing_backend_is_skipped_with_a_warning(restore_backends):
    tf.register_backend("bad", FailingBackend, 5)
    with pytest.warns(UserWarning, match="Initialization of backend bad failed"):
        t = tf.scalar(1)
    assert tf.get_backend() == "cpu"
    assert t.array_sync() == 1.0


def test_register_backend_twice_warns_and_returns_false(restore_backends):
    add_cpu2()
    with pytest.warns(
        UserWarning,
        match=re.escape("cpu2 backend was already registered. Reusing existing backend factory."),
    ):
        assert tf.register_backend("cpu2", Cpu2Backend, 3) is False
    with pytest.warns(UserWarning, match="cpu backend was already registered"):
        assert tf.register_backend("cpu", NumpyBackend) is False


def test_set_backend_switches_and_get_backend_reports_it(restore_backends):
    add_cpu2(priority=0)
    assert tf.set_backend("cpu2") is True
    assert tf.get_backend() == "cpu2"
    a = tf.tensor([1, 2])
    assert isinstance(a.data_id.backend, Cpu2Backend)
    assert tf.set_backend("cpu") is True
    b = tf.tensor([1, 2])
    assert type(b.data_id.backend) is NumpyBackend
    assert tf.find_backend("cpu2") is a.data_id.backend  # old backends are kept


def test_set_backend_unknown_name(restore_backends):
    with pytest.raises(
        BackendNotFoundError, match=re.escape("Backend name 'nope' not found in registry")
    ):
        tf.set_backend("nope")


def test_set_backend_failing_returns_false(restore_backends):
    tf.ready()
    tf.register_backend("bad", FailingBackend, 0)
    with pytest.warns(UserWarning, match="Initialization of backend bad failed"):
        assert tf.set_backend("bad") is False
    assert tf.scalar(1).array_sync() == 1.0
    assert isinstance(tf.backend(), NumpyBackend)


def test_find_backend(restore_backends):
    add_cpu2(priority=0)
    assert tf.find_backend("nope") is None
    found = tf.find_backend("cpu2")  # initializes it without making it active
    assert isinstance(found, Cpu2Backend)
    assert tf.find_backend("cpu2") is found
    tf.scalar(1)
    assert tf.get_backend() == "cpu"
    tf.register_backend("bad", FailingBackend, 0)
    with pytest.warns(UserWarning, match="Initialization of backend bad failed"):
        assert tf.find_backend("bad") is None


def test_remove_backend(restore_backends):
    add_cpu2(priority=0)
    tf.set_backend("cpu2")
    tf.remove_backend("cpu2")
    assert tf.get_backend() is None
    assert "cpu2" not in tf.engine().registered_backends()
    assert tf.find_backend("cpu2") is None
    tf.scalar(1)
    assert tf.get_backend() == "cpu"
    with pytest.raises(BackendNotFoundError, match=re.escape("cpu2 backend not found in registry")):
        tf.remove_backend("cpu2")


def test_no_backend_registered(restore_backends):
    tf.remove_backend("cpu")
    with pytest.raises(BackendNotFoundError, match=re.escape("No backend found in registry.")):
        tf.scalar(1)
    with pytest.raises(BackendNotFoundError, match=re.escape("No backend found in registry.")):
        tf.ready()


def test_all_backends_fail(restore_backends):
    tf.remove_backend("cpu")
    tf.register_backend("bad", FailingBackend, 1)
    with (
        pytest.warns(UserWarning, match="Initialization of backend bad failed"),
        pytest.raises(
            BackendNotFoundError,
            match=re.escape(
                "Could not initialize any backends, all backend initializations failed."
            ),
        ),
    ):
        tf.ready()


def test_reset_keeps_factories_and_drops_instances(restore_backends):
    add_cpu2(priority=0)
    old = tf.find_backend("cpu2")
    tf.engine().reset()
    assert tf.engine().registered_backends() == ["cpu", "cpu2"]
    assert tf.get_backend() is None
    assert tf.find_backend("cpu2") is not old


# ================================================================== data on several backends


def test_op_with_data_from_mixed_backends(restore_backends):
    """engine_test.ts "can execute op with data from mixed backends": 5 + 3 = 8 on either."""
    add_cpu2(priority=0)
    tf.set_backend("cpu")
    a = tf.scalar(5)
    tf.set_backend("cpu2")
    b = tf.scalar(3)
    assert counts() == (2, 2, 8)
    assert tf.add(a, b).array_sync() == 8.0
    tf.set_backend("cpu")
    assert tf.add(a, b).array_sync() == 8.0
    tf.set_backend("cpu2")
    assert tf.add(a, b).array_sync() == 8.0


def test_move_data_keeps_counts_and_refcount(restore_backends):
    """engine_test.ts "Move data from cpu1 to cpu2 backend": counts unchanged by moves; a
    buffer shared by two handles moves once and keeps both handles."""
    add_cpu2(priority=0)
    tf.set_backend("cpu")
    a = tf.tensor([1, 2, 3, 4])
    view = a.reshape([2, 2])
    assert counts() == (2, 1, 32)
    tf.set_backend("cpu2")
    out = tf.mul(a, 2)
    cpu2 = tf.find_backend("cpu2")
    assert a.data_id.backend is cpu2 and view.data_id.backend is cpu2
    assert cpu2.ref_count(a.data_id) == 2
    assert tf.find_backend("cpu").num_data_ids() == 0
    assert counts() == (3, 2, 48)
    assert view.array_sync() == [[1.0, 2.0], [3.0, 4.0]]
    assert out.array_sync() == [2.0, 4.0, 6.0, 8.0]
    tf.dispose([a, view, out])
    assert counts() == (0, 0, 0)
    assert cpu2.num_data_ids() == 0


def test_read_tensor_made_on_another_backend(restore_backends):
    add_cpu2(priority=0)
    a = tf.tensor([1, 2])
    tf.set_backend("cpu2")
    assert a.array_sync() == [1.0, 2.0]
    a.dispose()
    assert counts() == (0, 0, 0)


# A tensor on a removed backend stays counted by design, so this test leaves one behind.
@pytest.mark.tidytensor_allow_leaks
def test_tensor_on_removed_backend_reads_as_disposed(restore_backends):
    add_cpu2(priority=0)
    tf.set_backend("cpu2")
    a = tf.tensor([1, 2])
    tf.set_backend("cpu")
    tf.remove_backend("cpu2")
    with pytest.raises(tf.TensorDisposedError, match="passed to 'add'"):
        tf.add(a, 1)


# ================================================================== kernel registry


def _double(inputs, attrs, backend):
    return backend.write_array(np.asarray(backend.array(inputs[0]) * 2))


def test_register_get_and_unregister_kernel(kernels):
    assert kr.get_kernel("DoubleTest", "cpu") is None
    kernels("DoubleTest", _double)
    config = kr.get_kernel("DoubleTest", "cpu")
    assert (config.kernel_name, config.backend_name, config.kernel_func) == (
        "DoubleTest",
        "cpu",
        _double,
    )
    assert config in kr.get_kernels_for_backend("cpu")
    out = tf.engine().run_kernel("DoubleTest", (tf.tensor([1, 2]),))
    assert out.array_sync() == [2.0, 4.0]
    kr.unregister_kernel("DoubleTest", "cpu")
    assert kr.get_kernel("DoubleTest", "cpu") is None
    with pytest.raises(
        KernelNotRegisteredError, match="Kernel 'DoubleTest' not registered for backend 'cpu'"
    ):
        tf.engine().run_kernel("DoubleTest", (tf.tensor([1, 2]),))


def test_register_kernel_twice_warns_and_overwrites(kernels):
    kernels("DoubleTest", _double)

    def triple(inputs, attrs, backend):
        return backend.write_array(np.asarray(backend.array(inputs[0]) * 3))

    with pytest.warns(
        UserWarning,
        match=re.escape("The kernel 'DoubleTest' for backend 'cpu' is already registered"),
    ):
        kr.register_kernel(kr.KernelConfig("DoubleTest", "cpu", triple))
    assert tf.engine().run_kernel("DoubleTest", (tf.scalar(2),)).array_sync() == 6.0


def test_unregister_missing_kernel_raises():
    with pytest.raises(
        KernelNotRegisteredError,
        match=re.escape("The kernel 'Foo' for backend 'cpu' is not registered"),
    ):
        kr.unregister_kernel("Foo", "cpu")


def test_kernel_not_registered_for_backend():
    with pytest.raises(
        KernelNotRegisteredError, match=re.escape("Kernel 'Foo' not registered for backend 'cpu'")
    ):
        tf.engine().run_kernel("Foo", (tf.scalar(1),))


def test_public_op_on_backend_missing_its_kernel(restore_backends):
    add_cpu2(priority=0)
    kr.unregister_kernel("Add", "cpu2")
    tf.set_backend("cpu2")
    a = tf.tensor([1, 2])
    with pytest.raises(
        KernelNotRegisteredError, match=re.escape("Kernel 'Add' not registered for backend 'cpu2'")
    ):
        tf.add(a, 1)
    assert counts() == (1, 1, 8)  # the op's converted scalar was freed
    assert tf.sub(a, 1).array_sync() == [0.0, 1.0]


def test_copy_registered_kernels(restore_backends):
    kr.copy_registered_kernels("cpu", "cpu3")
    cpu = {c.kernel_name: c.kernel_func for c in kr.get_kernels_for_backend("cpu")}
    cpu3 = {c.kernel_name: c.kernel_func for c in kr.get_kernels_for_backend("cpu3")}
    assert cpu3 == cpu
    assert "Add" in cpu3


def test_kernel_registered_for_the_active_backend_is_usable_at_once(kernels):
    tf.ready()
    kernels("DoubleTest", _double)
    assert tf.engine().run_kernel("DoubleTest", (tf.scalar(4),)).array_sync() == 8.0


def test_setup_and_dispose_funcs(kernels):
    """setupFunc runs when the backend is set (not again when other kernels are registered);
    disposeFunc runs when the backend is disposed by reset (engine.ts)."""
    calls = {"setup": 0, "dispose": 0}

    def setup(backend):
        assert isinstance(backend, NumpyBackend)
        calls["setup"] += 1

    def dispose(backend):
        assert isinstance(backend, NumpyBackend)
        calls["dispose"] += 1

    kernels("SetupProbe", _double, setup_func=setup, dispose_func=dispose)
    assert calls == {"setup": 0, "dispose": 0}
    tf.ready()
    assert calls["setup"] == 1
    kernels("OtherProbe", _double)
    kernels("ThirdProbe", _double)
    assert calls["setup"] == 1
    tf.engine().reset()
    assert calls["dispose"] == 1


def test_gradient_registry():
    def grad(dy, saved, attrs):
        return [lambda: dy]

    kr.register_gradient(kr.GradConfig("GradProbe", grad, inputs_to_save=(0,)))
    try:
        assert kr.get_gradient("GradProbe").grad_func is grad
        assert "GradProbe" in kr.registered_gradients()
    finally:
        kr.unregister_gradient("GradProbe")
    assert kr.get_gradient("GradProbe") is None
    with pytest.raises(
        KernelNotRegisteredError,
        match=re.escape("The gradient 'GradProbe' for backend is not registered"),
    ):
        kr.unregister_gradient("GradProbe")


def test_failing_kernel_raises_a_tidytensor_error_and_cleans_up(kernels):
    def broken(inputs, attrs, backend):
        raise ZeroDivisionError("inside the kernel")

    kernels("BrokenTest", broken)
    a = tf.tensor([1, 2])
    depth = len(tf.engine().state.scope_stack)
    with pytest.raises(TidyTensorError, match="BrokenTest.*ZeroDivisionError: inside the kernel"):
        tf.tidy(lambda: tf.engine().run_kernel("BrokenTest", (a.add(1),)))
    assert len(tf.engine().state.scope_stack) == depth
    assert counts() == (1, 1, 8)


# ================================================================== kernel leak detector


def _leaky(n):
    def kernel(inputs, attrs, backend):
        for _ in range(n):
            backend.write_array(np.zeros(3, np.float32))  # written and forgotten: a leak
        return backend.write_array(np.asarray(backend.array(inputs[0]) + 1))

    return kernel


@pytest.mark.parametrize("n", [1, 2])
def test_leak_detector_catches_a_leaky_kernel(kernels, n):
    kernels("LeakyTest", _leaky(n))
    assert tf.engine().check_kernel_leaks  # on in every test (tests/conftest.py)
    x = tf.tensor([1, 2])
    with pytest.raises(
        KernelLeakError,
        match=re.escape(
            f"Backend 'cpu' has an internal memory leak ({n} data ids) after running 'LeakyTest'"
        ),
    ):
        tf.engine().run_kernel("LeakyTest", (x,))


def test_leak_detector_through_a_public_op(kernels):
    """A custom op (``tf.op``) over the leaky kernel: the error names the kernel."""
    kernels("LeakyTest", _leaky(1))

    @tf.op
    def leaky_plus_one(x):
        x = convert_to_tensor(x, "x", "leaky_plus_one")
        return tf.engine().run_kernel("LeakyTest", (x,))

    with pytest.raises(KernelLeakError, match=re.escape("after running 'LeakyTest'")):
        leaky_plus_one([1, 2])
    assert counts() == (0, 0, 0)  # the converted input was freed by the op


def test_leak_detector_off_lets_the_leak_through(kernels):
    engine = tf.engine()
    kernels("LeakyTest", _leaky(1))
    engine.check_kernel_leaks = False
    engine.update_mode()
    backend = tf.backend()
    x = tf.tensor([1, 2])
    before = backend.num_data_ids()
    out = engine.run_kernel("LeakyTest", (x,))
    assert out.array_sync() == [2.0, 3.0]
    assert backend.num_data_ids() == before + 2  # the output and the leaked buffer
    assert counts() == (2, 2, 16)  # the engine never saw the leaked one


def test_sharing_and_well_behaved_kernels_are_not_leaks(kernels):
    def share(inputs, attrs, backend):
        return backend.share(inputs[0], (inputs[0].size,))

    def two_outputs(inputs, attrs, backend):
        v = backend.array(inputs[0])
        return [backend.write_array(v + 1), backend.write_array(v - 1)]

    kernels("ShareTest", share)
    kernels("TwoOutTest", two_outputs)
    x = tf.tensor([[1, 2]])
    flat = tf.engine().run_kernel("ShareTest", (x,))
    assert flat.shape == [2]
    assert counts() == (2, 1, 16)
    plus, minus = tf.engine().run_kernel("TwoOutTest", (x,))
    assert (plus.array_sync(), minus.array_sync()) == ([[2.0, 3.0]], [[0.0, 1.0]])
    assert counts() == (4, 3, 32)


def test_leak_detector_ignores_data_moves(restore_backends):
    """Moving an input onto the active backend adds a data id there: not a leak."""
    add_cpu2(priority=0)
    a = tf.tensor([1, 2])
    tf.set_backend("cpu2")
    assert tf.engine().check_kernel_leaks
    assert tf.add(a, 1).array_sync() == [2.0, 3.0]


def test_backend_dispose_drops_the_kernels_scratch_buffers():
    """Kernel scratch caches (conv workspaces, the recurrent pool) are not tensors; they go
    with the backend, so engine.reset() leaves no cached arrays behind."""
    from tidytensor.backends.xp_kernels import conv_gemm, recurrent_sequence

    x, w = tf.ones([2, 40, 40, 16]), tf.ones([3, 3, 16, 32])
    tf.conv2d(x, w, 1, "same").dispose()
    recurrent_sequence.take(np, 3, 4)
    assert conv_gemm._SCRATCH.__dict__ and recurrent_sequence._POOL._buckets
    tf.dispose([x, w])
    tf.engine().reset()
    assert not conv_gemm._SCRATCH.__dict__ and not recurrent_sequence._POOL._buckets
