"""The ``'cupy'`` backend and TF 2's GPU memory settings on a real NVIDIA GPU (skipped where
CuPy or a device is missing; CI checks the same logic on a stand-in: test_gpu_backend.py).
``scripts/gpu_check.sh`` runs this file on the lent device.

Every test leaves the GPU settings as it found them (growth by default, no fraction, one
logical GPU) and the pools' cached blocks returned to the device.
"""

from __future__ import annotations

import numpy as np
import pytest

import tidytensor as tf
from gpu_programs import counting_program, counts
from tidytensor import config
from tidytensor import kernel_registry as kr
from tidytensor.backends import cupy_backend
from tidytensor.backends.cupy_kernels import convolution as gpu_conv
from tidytensor.backends.cupy_kernels import fused as gpu_fused
from tidytensor.backends.cupy_kernels import pooling as gpu_pool
from tidytensor.backends.xp_kernels import convolution as cpu_conv
from tidytensor.backends.xp_kernels import fused as cpu_fused
from tidytensor.backends.xp_kernels import pooling as cpu_pool
from tidytensor.errors import ResourceExhaustedError

pytestmark = pytest.mark.skipif(
    "cupy" not in tf.engine().registered_backends(),
    reason="needs CuPy and a visible NVIDIA device (the 'cupy' backend is not registered)",
)

MB = 1024 * 1024


@pytest.fixture
def gpu():
    """The GPU backend active; afterwards the default settings and one logical GPU again."""
    engine = tf.engine()
    assert tf.set_backend("cupy")
    import cupy

    yield cupy
    while engine.state.scope_stack:
        engine.end_scope()
    settings = engine.devices.gpu
    settings.memory_growth = settings.memory_fraction = settings.logical_limits = None
    engine.devices.soft_placement = False
    if engine.backend_name != "cupy":
        engine.set_backend("cupy")
    for name in list(engine.registered_backends()):
        if name.startswith("cupy:"):
            engine.remove_backend(name)
            for c in kr.get_kernels_for_backend(name):
                kr.unregister_kernel(c.kernel_name, name)
    for index in [i for i in cupy_backend._GPUS if i > 0]:
        cupy_backend._GPUS.pop(index).release_cached()
    settings.changed()
    cupy_backend._GPUS[0].release_cached()


def test_cupy_is_the_default_backend_here():
    engine = tf.engine()
    engine.reset()
    assert tf.tidy(lambda: tf.add(tf.tensor([1.0]), 1).array_sync()) == [2.0]
    assert tf.get_backend() == "cupy"
    assert [d.device_type for d in config.list_physical_devices("GPU")][:1] == ["GPU"]


def test_buffers_live_on_the_device_and_reads_come_to_the_host(gpu):
    a = tf.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert isinstance(a.data_id.values, gpu.ndarray)
    values = a.data_sync()
    assert type(values) is np.ndarray and values.tolist() == [1.0, 2.0, 3.0, 4.0]
    s = tf.tensor(["ab", "c"])
    assert type(s.data_id.values) is np.ndarray  # strings stay on the host
    assert tf.concat([s, s]).array_sync() == ["ab", "c", "ab", "c"]


def test_tensors_move_between_cpu_and_gpu(gpu):
    with tf.device("/CPU:0"):
        a = tf.tensor([1.0, 2.0, 3.0])
        assert type(a.data_id.values) is np.ndarray
    b = tf.mul(a, 2)  # on the GPU: a moves here
    assert isinstance(a.data_id.values, gpu.ndarray) and isinstance(b.data_id.values, gpu.ndarray)
    with tf.device("/CPU:0"):
        c = tf.add(a, b)
        assert type(c.data_id.values) is np.ndarray
    assert c.array_sync() == [3.0, 6.0, 9.0]


def test_memory_counts_match_the_cpu(gpu):
    on_gpu = counting_program()
    with tf.device("/CPU:0"):
        assert counting_program() == on_gpu


def test_convolution_matches_the_cpu_kernel(gpu):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((4, 16, 16, 8)).astype(np.float32)
    w = rng.standard_normal((3, 3, 8, 16)).astype(np.float32)
    want = cpu_conv.conv2d(x, w, xp=np, strides=1, pad="same")
    got = tf.conv2d(tf.tensor(x), tf.tensor(w), 1, "same").data_sync().reshape(want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def _same(gpu_fn, cpu_fn, cp, arrays, exact=False, **kw):
    """``gpu_fn`` on CuPy against ``cpu_fn`` on NumPy (lists of outputs compared one by one)."""
    got = gpu_fn(*[cp.asarray(a) for a in arrays], xp=cp, **kw)
    want = cpu_fn(*arrays, xp=np, **kw)
    pairs = zip(got, want, strict=True) if isinstance(want, list) else [(got, want)]
    for g, w in pairs:
        assert isinstance(g, cp.ndarray) and g.dtype == w.dtype, (g.dtype, w.dtype)
        if exact:
            np.testing.assert_array_equal(cp.asnumpy(g), w)
        else:
            np.testing.assert_allclose(cp.asnumpy(g), w, rtol=1e-4, atol=1e-4)


def test_gpu_pooling_kernels_on_cupy_match_the_cpu(gpu):
    """Never run on a GPU before: as_strided window views, max over several axes, argmax of
    the moved boolean hits (cupy_kernels/pooling.py)."""
    rng = np.random.default_rng(8)
    x = rng.integers(-3, 3, size=(2, 9, 8, 4)).astype(np.float32)
    x.reshape(-1)[::11] = np.nan
    x.reshape(-1)[::13] = -np.inf
    kw = {"filter_size": 3, "strides": 2, "pad": "same"}
    y = cpu_pool._max_pool(x, cpu_pool.pool2d_grad_info(x.shape, 3, 2, "same"), np)
    dy = rng.standard_normal(y.shape).astype(np.float32)
    _same(gpu_pool.max_pool_grad, cpu_pool.max_pool_grad, gpu, [dy, x, y], exact=True, **kw)
    _same(gpu_pool.max_pool_with_argmax, cpu_pool.max_pool_with_argmax, gpu, [x], True, **kw)
    x3 = x[..., None, :].repeat(3, axis=-2)
    _same(gpu_pool.max_pool3d, cpu_pool.max_pool3d, gpu, [x3], exact=True, **kw)
    _same(gpu_pool.avg_pool3d, cpu_pool.avg_pool3d, gpu, [x3], **kw)
    y3 = cpu_pool.max_pool3d(x3, xp=np, **kw)
    dy3 = rng.standard_normal(y3.shape).astype(np.float32)
    _same(gpu_pool.max_pool3d_grad, cpu_pool.max_pool3d_grad, gpu, [dy3, x3, y3], True, **kw)
    got = tf.tidy(lambda: tf.max_pool(tf.tensor(x), 3, 2, "same").array_sync())
    info = cpu_pool.pool2d_grad_info(x.shape, 3, 2, "same")
    np.testing.assert_array_equal(np.asarray(got), cpu_pool._max_pool(x, info, np))


def test_gpu_depthwise_and_fused_kernels_on_cupy_match_the_cpu(gpu):
    """Never run on a GPU before: batched matmuls of transposed window views, and the bias +
    activation epilogue as one cupy.fuse kernel (cupy_kernels/convolution.py, fused.py)."""
    rng = np.random.default_rng(9)
    x = rng.standard_normal((2, 12, 10, 6)).astype(np.float32)
    w = rng.standard_normal((3, 3, 6, 2)).astype(np.float32)
    kw = {"strides": 1, "pad": "same", "dilations": (2, 2)}
    _same(gpu_conv.depthwise_conv2d_native, cpu_conv.depthwise_conv2d_native, gpu, [x, w], **kw)
    dy = rng.standard_normal((2, 12, 10, 12)).astype(np.float32)
    _same(
        gpu_conv.depthwise_backprop_input,
        cpu_conv.depthwise_backprop_input,
        gpu,
        [dy, w],
        input_shape=x.shape,
        **kw,
    )
    _same(
        gpu_conv.depthwise_backprop_filter,
        cpu_conv.depthwise_backprop_filter,
        gpu,
        [x, dy],
        filter_shape=w.shape,
        **kw,
    )
    for activation in ("linear", "relu", "relu6", "elu"):
        bias = (rng.standard_normal(12) * 3).astype(np.float32)
        attrs = {"strides": 1, "pad": "same", "activation": activation, "has_bias": True}
        name = "FusedDepthwiseConv2D"
        _same(gpu_fused.KERNELS[name], cpu_fused.KERNELS[name], gpu, [x, w, bias], **attrs)
    v = (rng.standard_normal((64, 33)) * 8).astype(np.float32)
    b = rng.standard_normal(33).astype(np.float32)
    for activation in gpu_fused.FUSABLE:  # the fused epilogue alone is exact
        got = gpu_fused.fused_epilogue(gpu, activation)(gpu.asarray(v), gpu.asarray(b))
        want = cpu_fused.bias_activation(v, b, None, activation, None, np)
        assert got.dtype == np.float32
        np.testing.assert_array_equal(gpu.asnumpy(got), want)


def test_gpu_recurrent_kernels_on_cupy_match_the_cpu(gpu):
    """Never run on a GPU before: the LSTM/GRU sequence kernels' cupy.fuse step functions
    (``*args`` functions, float32 scalar constants, ``cupy.where`` over a broadcast gate axis,
    several outputs) and their matmuls, forward and gradients, against the CPU kernels; every
    result float32 (cupy_kernels/recurrent.py)."""
    from test_gpu_recurrent import ACTIVATIONS, _run_both

    for kind in ("lstm", "gru"):
        for flags in [(True, True, True, True, True), (False, False, False, False, False)]:
            _run_both(kind, (4, 7, 5, 6), flags, ACTIVATIONS[0], 11, gpu, gpu.asnumpy)


def test_compiled_replay_fuses_elementwise_chains_on_cupy(gpu):
    """Never run on a GPU before: a replay's run of float32 elementwise kernels as one
    cupy.fuse kernel (compiled/fusion.py), against the eager (traced) call; a multiply-add
    may be contracted into one FMA, so the last bit may differ."""
    rng = np.random.default_rng(4)
    x = tf.tensor(rng.standard_normal((64, 33)).astype(np.float32))
    b = tf.tensor(rng.standard_normal(33).astype(np.float32))

    @tf.function
    def chain(x, b):
        y = tf.add(tf.mul(x, 2.0), b)
        return tf.tanh(tf.sub(tf.sigmoid(tf.relu(y)), 0.5)), tf.sum(y)

    traced = chain(x, b)
    eager = [t.array_sync() for t in traced]
    replayed = chain(x, b)
    assert "Multiply+Add+Relu+Sigmoid" in chain.replay_source(x, b)
    for got, want in zip(replayed, eager, strict=True):
        assert got.dtype == "float32"
        np.testing.assert_allclose(got.array_sync(), want, rtol=1e-6, atol=1e-6)
    tf.dispose([x, b, traced, replayed])


def test_memory_info_peak_reset_and_release(gpu):
    config.reset_memory_stats("GPU:0")
    base = config.get_memory_info("GPU:0")["current"]
    a = tf.zeros([4 * MB])  # 16 MiB
    info = config.experimental.get_memory_info("GPU:0")
    assert info["current"] >= base + 16 * MB and info["peak"] >= info["current"]
    m = tf.memory()
    assert m.num_bytes_in_gpu >= 16 * MB and m.num_bytes_in_gpu_reserved >= m.num_bytes_in_gpu
    a.dispose()
    info = config.get_memory_info("GPU:0")
    assert info["current"] < base + 16 * MB <= info["peak"]
    config.reset_memory_stats("GPU:0")
    assert config.get_memory_info("GPU:0")["peak"] < base + 16 * MB
    assert config.experimental.release_cached_memory("GPU:0") >= 16 * MB


def test_out_of_memory_is_resource_exhausted_and_the_program_goes_on(gpu):
    gpu_device = config.list_physical_devices("GPU")[0]
    config.set_logical_device_configuration(
        gpu_device, [config.LogicalDeviceConfiguration(memory_limit=64)]
    )
    a = tf.ones([10 * MB // 4 * 4])  # 40 MiB of the 64
    before = counts()
    with pytest.raises(ResourceExhaustedError) as info:
        tf.add(a, a)
    message = str(info.value)
    assert "Out of memory on GPU:0" in message and "limit of 67108864 bytes" in message
    assert "Largest live tensors:" in message and "test_gpu_device.py" in message
    assert counts() == before
    with pytest.raises(ResourceExhaustedError, match="a new tensor float32"):
        tf.tensor(np.zeros(10 * MB, dtype=np.float32))
    assert counts() == before
    del info
    a.dispose()
    b = tf.ones([10 * MB // 4 * 4])
    assert float(tf.sum(b).array_sync()) == 10 * MB // 4 * 4
    b.dispose()


def test_logical_devices_each_have_a_pool_and_a_limit(gpu):
    gpu_device = config.list_physical_devices("GPU")[0]
    config.set_logical_device_configuration(
        gpu_device,
        [config.LogicalDeviceConfiguration(256), config.LogicalDeviceConfiguration(128)],
    )
    assert len(config.list_logical_devices("GPU")) == 2
    with tf.device("/GPU:0"):
        a = tf.ones([MB])
    with tf.device("/GPU:1"):
        b = tf.add(a, 1)  # a moves to GPU:1
        assert tf.get_backend() == "cupy:1"
        with pytest.raises(ResourceExhaustedError, match="GPU:1"):
            tf.zeros([64 * MB])  # 256 MiB > 128
    pools = cupy_backend._GPUS
    assert pools[0].limit() == 256 * MB and pools[1].limit() == 128 * MB
    assert config.get_memory_info("GPU:1")["current"] >= 8 * MB
    assert b.array_sync()[:1] == [2.0]


def test_growth_off_reserves_the_budget_and_fraction_limits_the_pool(gpu, monkeypatch):
    monkeypatch.delenv("TF_FORCE_GPU_ALLOW_GROWTH", raising=False)
    gpu_device = config.list_physical_devices("GPU")[0]
    config.set_logical_device_configuration(
        gpu_device, [config.LogicalDeviceConfiguration(memory_limit=512)]
    )
    config.experimental.set_memory_growth(gpu_device, False)
    pool = cupy_backend._GPUS[0].pool
    assert pool.total_bytes() >= 512 * MB - 512  # reserved up front
    config.experimental.set_memory_growth(gpu_device, True)
    config.set_logical_device_configuration(
        gpu_device, [config.LogicalDeviceConfiguration(memory_limit=None)]
    )
    config.experimental.set_per_process_memory_fraction(0.05)
    _free, total = gpu.cuda.Device().mem_info
    assert abs(pool.get_limit() - int(total * 0.05)) <= 1 << 20
    monkeypatch.setenv("TF_FORCE_GPU_ALLOW_GROWTH", "false")
    assert config.get_memory_growth(gpu_device) is False
