"""The ``'cupy'`` backend on a NumPy stand-in for CuPy (``fake_cupy``), so that CI (no GPU)
checks everything that does not need the device: registration and priority, transfers between
backends, strings kept on the host, ``tf.memory()`` counting the same on both backends,
memory pools and their settings, the out-of-memory retry and error, logical devices,
``tf.device`` placement, the memory alert and the compatibility layer. The same things on a
real GPU: ``tests/test_gpu_device.py``.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import fake_cupy
import tidytensor as tf
from gpu_programs import counting_program, counts
from tidytensor import config
from tidytensor import kernel_registry as kr
from tidytensor.backends import cupy_backend, xp_compat
from tidytensor.backends.cupy_kernels import convolution as gpu_conv
from tidytensor.backends.xp_kernels import convolution as cpu_conv
from tidytensor.engine.devices import GpuSettings, parse_device
from tidytensor.errors import InvalidArgumentError, ResourceExhaustedError

pytestmark = pytest.mark.skipif(
    "cupy" in tf.engine().registered_backends(),
    reason="a real CuPy backend is registered here (tests/test_gpu_device.py checks it)",
)


def _remove_gpu_backends(engine) -> None:
    if engine.backend_name and engine.backend_name.startswith("cupy"):
        engine.set_backend("cpu")
    for name in list(engine.registered_backends()):
        if name.startswith("cupy"):
            engine.remove_backend(name)
    for name in {c.backend_name for c in kr._kernels.values()}:
        if name.startswith("cupy"):
            for config_ in kr.get_kernels_for_backend(name):
                kr.unregister_kernel(config_.kernel_name, name)
    cupy_backend.CupyBackend._kernels_registered = None
    cupy_backend._GPUS.clear()
    engine.devices.gpu = GpuSettings()
    engine.devices.gpu_provider = None
    engine.devices.soft_placement = False


@pytest.fixture
def fake_gpu(monkeypatch):
    """The stand-in CuPy installed and the 'cupy' backend registered (not yet started,
    'cpu' active);
    afterwards only 'cpu' is left, active."""
    engine = tf.engine()
    monkeypatch.delenv("TF_FORCE_GPU_ALLOW_GROWTH", raising=False)
    cupy = fake_cupy.install(monkeypatch)
    assert cupy_backend.register(engine, force=True)
    tf.set_backend("cpu")  # each test starts on the CPU and picks the GPU itself
    yield cupy
    while engine.state.scope_stack:  # the test's tensors go before their backends
        engine.end_scope()
    _remove_gpu_backends(engine)
    tf.set_backend("cpu")
    assert engine.registered_backends() == ["cpu"]


def on_device(t) -> bool:
    return type(t.data_id.values) is fake_cupy.DeviceArray


# ------------------------------------------------------------------ registration


def test_cupy_is_registered_above_cpu_and_becomes_the_default(fake_gpu):
    engine = tf.engine()
    assert engine._factories["cupy"][1] > engine._factories["cpu"][1]
    engine.reset()
    assert tf.tidy(lambda: tf.add(tf.tensor([1.0]), 1).array_sync()) == [2.0]
    assert tf.get_backend() == "cupy"


def test_not_registered_without_a_visible_device(monkeypatch):
    fake_cupy.install(monkeypatch)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    assert xp_compat.device_present() is False
    assert cupy_backend.register(tf.engine()) is False
    assert tf.engine().registered_backends() == ["cpu"]


def test_tidytensor_gpu_overrides_the_device_probe(monkeypatch):
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    monkeypatch.setenv("TIDYTENSOR_GPU", "1")
    assert xp_compat.device_present() is True
    monkeypatch.setenv("TIDYTENSOR_GPU", "0")
    assert xp_compat.device_present() is False
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "-1")
    monkeypatch.setenv("TIDYTENSOR_GPU", "1")
    assert xp_compat.device_present() is False  # hidden wins


def test_kernels_are_registered_with_the_gpu_convolutions(fake_gpu):
    tf.set_backend("cupy")
    # (the kernel under the wrapper that counts its workspace: engine/kernel_scratch.py)
    def unwrapped(backend: str):
        fn = kr.get_kernel("Conv2D", backend).kernel_func.fn
        return getattr(fn, "__wrapped__", fn)

    assert unwrapped("cupy") is gpu_conv.conv2d
    assert unwrapped("cpu") is cpu_conv.conv2d
    assert kr.get_kernel("StringSplit", "cupy").kernel_func.host_only


# ------------------------------------------------------------------ transfers and counts


def test_a_tensor_moves_to_the_backend_that_uses_it(fake_gpu):
    a = tf.tensor([1.0, 2.0, 3.0])  # on 'cpu'
    assert tf.get_backend() == "cpu" and not on_device(a)
    before = counts()
    tf.set_backend("cupy")
    b = tf.mul(a, 2)
    assert on_device(a) and on_device(b)
    assert a.data_id.backend is tf.engine().backend
    assert counts() == (before[0] + 1, before[1] + 1, before[2] + 12)
    tf.set_backend("cpu")
    c = tf.add(a, b)
    assert not on_device(a) and on_device(b) is False and not on_device(c)
    assert c.array_sync() == [3.0, 6.0, 9.0]


def test_reads_come_back_as_host_arrays(fake_gpu):
    tf.set_backend("cupy")
    a = tf.tensor([[1, 2], [3, 4]], dtype="int32")
    values = a.data_sync()
    assert type(values) is np.ndarray and values.tolist() == [1, 2, 3, 4]
    assert a.array_sync() == [[1, 2], [3, 4]]


def test_memory_counts_are_the_same_on_both_backends(fake_gpu):
    on_cpu = counting_program()
    tf.set_backend("cupy")
    assert counting_program() == on_cpu


def test_strings_stay_on_the_host(fake_gpu):
    tf.set_backend("cupy")
    s = tf.tensor(["ab", "c", "ab"])
    assert type(s.data_id.values) is np.ndarray
    joined = tf.concat([s, tf.tensor(["d"])])
    assert joined.array_sync() == ["ab", "c", "ab", "d"]
    eq = tf.equal(s, tf.tensor(["ab", "x", "ab"]))
    assert on_device(eq) and eq.array_sync() == [True, False, True]
    assert tf.string.string_split(tf.tensor(["a b"]), " ").values.array_sync() == ["a", "b"]


def test_gpu_convolution_through_the_backend_matches_the_cpu(fake_gpu):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 7, 6, 3)).astype(np.float32)
    w = rng.standard_normal((3, 3, 3, 5)).astype(np.float32)

    def run():
        xt, wt = tf.tensor(x), tf.tensor(w)
        y = tf.conv2d(xt, wt, [2, 1], "same")
        g = tf.grads(lambda a, b: tf.conv2d(a, b, [2, 1], "same").square().sum())([xt, wt])
        return [v.data_sync() for v in (y, *g)]

    on_cpu = run()
    tf.set_backend("cupy")
    on_gpu = run()
    for a, b in zip(on_cpu, on_gpu, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


# ------------------------------------------------------------------ memory


def test_get_memory_info_reset_and_release(fake_gpu):
    tf.set_backend("cupy")
    pool = cupy_backend._GPUS[0].pool
    a = tf.zeros([1000])  # 4,000 bytes: one 4,096-byte block
    info = config.get_memory_info("GPU:0")
    assert info["current"] == pool.used_bytes() >= 4000
    a.dispose()
    info = config.experimental.get_memory_info("GPU:0")
    assert info["current"] < 4000 and info["peak"] >= 4000
    m = tf.memory()
    assert m.num_bytes_in_gpu == pool.used_bytes()
    assert m.num_bytes_in_gpu_reserved == pool.total_bytes() >= 4096
    config.reset_memory_stats("GPU:0")
    assert config.get_memory_info("GPU:0")["peak"] == pool.used_bytes()
    assert config.experimental.release_cached_memory("GPU:0") >= 4096
    assert pool.total_bytes() == pool.used_bytes()


def test_per_process_fraction_and_growth(fake_gpu, monkeypatch):
    gpu = config.list_physical_devices("GPU")[0]
    assert gpu.name == "/physical_device:GPU:0"
    assert config.get_memory_growth(gpu) is True  # growth by default
    config.experimental.set_per_process_memory_fraction(0.25)
    config.experimental.set_memory_growth(gpu, False)
    tf.set_backend("cupy")
    pool = cupy_backend._GPUS[0].pool
    assert pool.get_limit() == fake_cupy.DEVICE_TOTAL // 4
    assert pool.total_bytes() == pool.get_limit()  # reserved up front, as TF without growth
    assert pool.used_bytes() < 1024
    monkeypatch.setenv("TF_FORCE_GPU_ALLOW_GROWTH", "true")
    assert config.get_memory_growth(gpu) is True
    with pytest.raises(InvalidArgumentError, match=r"fraction in \(0, 1\]"):
        config.experimental.set_per_process_memory_fraction(1.5)


def test_out_of_memory_frees_cached_blocks_and_retries_once(fake_gpu):
    tf.set_backend("cupy")
    pool = cupy_backend._GPUS[0].pool
    a = tf.ones([256])
    pool.fail_next = 1
    frees = pool.frees
    b = tf.zeros_like(a)  # the first allocation fails, the retry succeeds
    assert pool.frees == frees + 1
    assert b.array_sync() == [0.0] * 256


def test_out_of_memory_raises_resource_exhausted_and_changes_nothing(fake_gpu):
    gpu = config.list_physical_devices("GPU")[0]
    config.set_logical_device_configuration(
        gpu, [config.LogicalDeviceConfiguration(memory_limit=1)]
    )
    tf.set_backend("cupy")
    big = tf.ones([200_000])  # 800,000 of the 1,048,576 bytes
    before = counts()
    with pytest.raises(ResourceExhaustedError) as info:
        tf.zeros_like(big)
    message = str(info.value)
    assert "Out of memory on GPU:0 in op 'zeros_like'" in message
    assert "could not allocate 800256 bytes" in message
    assert "limit of 1048576 bytes" in message
    assert re.search(
        r"shape=\[200000\] dtype=float32: 800000 bytes, created at .*test_gpu_backend", message
    )
    assert counts() == before
    del info  # its traceback holds the kernel's arrays
    big.dispose()
    assert tf.zeros_like(tf.ones([100_000])).shape == [100_000]  # the program goes on


def test_out_of_memory_when_making_a_tensor(fake_gpu):
    config.set_logical_device_configuration(
        "GPU:0", [config.LogicalDeviceConfiguration(memory_limit=0.5)]
    )
    tf.set_backend("cupy")
    before = counts()
    with pytest.raises(ResourceExhaustedError, match=r"a new tensor float32\[300000\]"):
        tf.tensor(np.zeros(300_000, dtype=np.float32))
    assert counts() == before


# ------------------------------------------------------------------ devices


def test_logical_devices_have_their_own_pools_and_tensors_move(fake_gpu):
    gpu = config.list_physical_devices("GPU")[0]
    config.set_logical_device_configuration(
        gpu,
        [config.LogicalDeviceConfiguration(memory_limit=2), config.LogicalDeviceConfiguration(4)],
    )
    assert [d.name for d in config.list_logical_devices("GPU")] == [
        "/device:GPU:0",
        "/device:GPU:1",
    ]
    with tf.device("/GPU:0"):
        a = tf.ones([1000])
        assert tf.get_backend() == "cupy"
    with tf.device("/GPU:1"):
        assert tf.get_backend() == "cupy:1"
        b = tf.add(a, 1)  # a moves to GPU:1
        assert a.data_id.backend.name == "cupy:1"
    assert tf.get_backend() == "cpu"  # restored
    pools = cupy_backend._GPUS
    assert pools[0].pool is not pools[1].pool
    assert pools[0].pool.get_limit() == 2 << 20 and pools[1].pool.get_limit() == 4 << 20
    assert config.get_memory_info("GPU:1")["current"] >= 4000
    assert config.get_memory_info("GPU:0")["current"] < 4000
    assert b.array_sync()[:2] == [2.0, 2.0]
    with pytest.raises(InvalidArgumentError, match=r"'/GPU:2': there are 2 logical GPUs"):
        with tf.device("/GPU:2"):
            pass


def test_device_blocks_on_the_cpu_and_nesting(fake_gpu):
    tf.set_backend("cupy")
    params = tf.ones([3])
    with tf.device("/CPU:0"):
        kept = tf.mul(params, 2)  # parameters kept on one device, computed on another
        assert tf.get_backend() == "cpu" and not on_device(kept)
        with tf.device("/device:GPU:0"):
            assert tf.get_backend() == "cupy"
        assert tf.get_backend() == "cpu"
    assert tf.get_backend() == "cupy"


def test_gpu_placement_without_a_gpu_is_a_clear_error():
    with pytest.raises(InvalidArgumentError, match=r"Cannot place ops on '/GPU:0': no GPU here"):
        with tf.device("/GPU:0"):
            pass
    config.set_soft_device_placement(True)
    try:
        with tf.device("/GPU:0"):
            assert tf.get_backend() == "cpu"
    finally:
        config.set_soft_device_placement(False)
    assert config.list_physical_devices("GPU") == []
    with pytest.raises(InvalidArgumentError, match="Unknown device"):
        tf.device("/TPU:0").__enter__()


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("/GPU:0", ("GPU", 0)),
        ("gpu:1", ("GPU", 1)),
        ("/device:CPU:0", ("CPU", 0)),
        ("/job:localhost/replica:0/task:0/device:GPU:2", ("GPU", 2)),
        ("/physical_device:GPU:0", ("GPU", 0)),
    ],
)
def test_parse_device(spec, expected):
    assert parse_device(spec) == expected


# ------------------------------------------------------------------ memory alert (every backend)


def test_memory_alert_fires_once_per_crossing():
    seen = []
    config.set_memory_alert(1000, seen.append)
    try:
        a = tf.zeros([200])  # 800 bytes: below
        assert seen == []
        b = tf.add(a, a)  # 1,600 bytes: crosses
        assert len(seen) == 1
        assert seen[0]["level"] == 1000 and seen[0]["live_bytes"] == 1600
        assert seen[0]["shape"] == [200] and seen[0]["backend"] == "cpu"
        assert "test_gpu_backend.py" in seen[0]["site"]
        c = tf.zeros([100])  # still above: no second alert
        assert len(seen) == 1
        tf.dispose([b, c])  # back below the level: armed again
        d = tf.add(a, a)
        assert len(seen) == 2
        tf.dispose([a, d])
    finally:
        config.set_memory_alert(None)


def test_memory_alert_warns_without_a_callback():
    config.set_memory_alert(100)
    try:
        with pytest.warns(tf.MemoryAlertWarning, match=r"crossed the alert level of 100 bytes"):
            a = tf.ones([50])
        with warnings.catch_warnings():
            warnings.simplefilter("error", tf.MemoryAlertWarning)
            b = tf.ones([50])  # no second warning while above
        tf.dispose([a, b])
    finally:
        config.set_memory_alert(None)
    with pytest.raises(InvalidArgumentError):
        config.set_memory_alert(-5)


def test_memory_alert_under_a_memory_limit_still_refuses_past_the_limit():
    seen = []
    config.set_memory_limit(2000)
    config.set_memory_alert(1000, seen.append)
    try:
        a = tf.zeros([300])
        assert len(seen) == 1
        with pytest.raises(ResourceExhaustedError):
            tf.zeros([300])
        a.dispose()
    finally:
        config.set_memory_alert(None)
        config.set_memory_limit(None)


# ------------------------------------------------------------------ the compatibility layer


def test_errstate_uses_cupyx_where_cupy_has_none(monkeypatch):
    cupy = fake_cupy.install(monkeypatch)
    assert not hasattr(cupy, "errstate")
    with xp_compat.errstate(cupy, divide="raise"):
        with pytest.raises(FloatingPointError):
            np.float32(1) / np.float32(0)


class _AddAtWithoutBool:
    """``xp.add.at`` as CuPy's: no bool (nor 8/16-bit) targets."""

    def __init__(self) -> None:
        self.dtypes = []

    def at(self, target, index, values):
        self.dtypes.append(str(target.dtype))
        if str(target.dtype) not in xp_compat._AT_DTYPES:
            raise TypeError(f"add.at does not support {target.dtype}")
        np.add.at(target, index, values)


def test_ufunc_at_goes_through_int32_for_dtypes_cupy_lacks():
    xp = type("xp", (), {})()
    xp.add = _AddAtWithoutBool()
    xp.zeros, xp.asarray, xp.int32 = np.zeros, np.asarray, np.int32
    target = np.zeros(3, dtype=np.bool_)
    xp_compat.ufunc_at(xp, "logical_or", target, np.array([0, 2, 2]), np.array([True, False, True]))
    assert target.tolist() == [True, False, True]
    small = np.zeros(2, dtype=np.uint8)
    xp_compat.ufunc_at(xp, "add", small, np.array([0, 0, 1]), np.array([200, 100, 7], np.uint8))
    assert small.tolist() == [44, 7]  # wraps at 256, as NumPy's uint8 add.at
    assert xp.add.dtypes == ["int32", "int32"]


# ------------------------------------------------------------------ GPU kernels on NumPy


def test_gpu_conv_kernels_nchw_int_and_3d():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 6, 5)).astype(np.float32)
    w = rng.standard_normal((3, 3, 3, 2)).astype(np.float32)
    kw = {"xp": np, "strides": 1, "pad": "same", "data_format": "NCHW"}
    np.testing.assert_allclose(gpu_conv.conv2d(x, w, **kw), cpu_conv.conv2d(x, w, **kw), atol=1e-5)
    xi = rng.integers(-5, 5, (1, 4, 4, 2)).astype(np.int32)
    wi = rng.integers(-3, 3, (2, 2, 2, 1)).astype(np.int32)
    got = gpu_conv.conv2d(xi, wi, xp=np, strides=1, pad="valid")
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, cpu_conv.conv2d(xi, wi, xp=np, strides=1, pad="valid"))
    x3 = rng.standard_normal((1, 4, 5, 4, 2)).astype(np.float32)
    w3 = rng.standard_normal((2, 3, 2, 2, 3)).astype(np.float32)
    kw3 = {"xp": np, "strides": [1, 2, 1], "pad": "same"}
    y3 = cpu_conv.conv3d(x3, w3, **kw3)
    np.testing.assert_allclose(gpu_conv.conv3d(x3, w3, **kw3), y3, atol=1e-5)
    dy3 = rng.standard_normal(y3.shape).astype(np.float32)
    np.testing.assert_allclose(
        gpu_conv.conv3d_backprop_input(dy3, w3, input_shape=x3.shape, **kw3),
        cpu_conv.conv3d_backprop_input(dy3, w3, input_shape=x3.shape, **kw3),
        atol=1e-5,
    )
    np.testing.assert_allclose(
        gpu_conv.conv3d_backprop_filter(x3, dy3, filter_shape=w3.shape, **kw3),
        cpu_conv.conv3d_backprop_filter(x3, dy3, filter_shape=w3.shape, **kw3),
        atol=1e-4,
    )
