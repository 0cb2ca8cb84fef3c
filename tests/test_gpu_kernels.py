"""The ``cupy_kernels`` pooling and depthwise kernels run on NumPy and compared with the CPU
kernels (``xp_kernels``), forward and gradients, including NaN, -Infinity, padding, integer
inputs and empty shapes; then once through the ``'cupy'`` backend on the stand-in CuPy. The same
kernels on a real GPU: ``tests/test_gpu_device.py``."""

from __future__ import annotations

import numpy as np
import pytest

import fake_cupy
import tidytensor as tf
from test_gpu_backend import fake_gpu, on_device  # noqa: F401  (the fixture)
from tidytensor import kernel_registry as kr
from tidytensor.backends.cupy_kernels import convolution as gpu_conv
from tidytensor.backends.cupy_kernels import fused as gpu_fused
from tidytensor.backends.cupy_kernels import pooling as gpu_pool
from tidytensor.backends.xp_kernels import convolution as cpu_conv
from tidytensor.backends.xp_kernels import fused as cpu_fused
from tidytensor.backends.xp_kernels import pooling as cpu_pool
from tidytensor.geometry.conv import compute_pool2d_info, compute_pool3d_info

#: The tests that install the stand-in CuPy cannot run where the real one is registered.
needs_stand_in = pytest.mark.skipif(
    "cupy" in tf.engine().registered_backends(),
    reason="a real CuPy backend is registered here (tests/test_gpu_device.py checks it)",
)

POOL2D_CASES = [
    ((2, 6, 7, 3), (3, 3), (2, 2), "same"),
    ((1, 5, 5, 2), (2, 3), (1, 2), "valid"),
    ((2, 4, 4, 1), (3, 3), (1, 1), 1),
    ((1, 3, 3, 2), (4, 4), (1, 1), [[0, 0], [3, 3], [3, 3], [0, 0]]),  # windows all padding
    ((0, 4, 4, 2), (2, 2), (2, 2), "valid"),
]


def _awkward(shape, rng, dtype=np.float32):
    """Random values with ties, NaN and -Infinity in them."""
    x = rng.integers(-3, 3, size=shape).astype(dtype)
    if x.size and dtype != np.int32:
        flat = x.reshape(-1)
        flat[rng.choice(flat.size, size=max(1, flat.size // 7), replace=False)] = np.nan
        flat[rng.choice(flat.size, size=max(1, flat.size // 9), replace=False)] = -np.inf
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("shape, size, strides, pad", POOL2D_CASES)
def test_gpu_pool2d_matches_the_cpu(shape, size, strides, pad, dtype):
    x = _awkward(shape, np.random.default_rng(5), dtype)
    info = compute_pool2d_info(shape, size, strides, 1, pad, None)
    np.testing.assert_array_equal(
        gpu_pool.gpu_max_pool(x, info, np), cpu_pool._max_pool(x, info, np)
    )
    np.testing.assert_allclose(
        gpu_pool.gpu_avg_pool(x, info, np, False), cpu_pool._avg_pool(x, info, np, False), atol=1e-6
    )
    np.testing.assert_array_equal(
        gpu_pool.gpu_max_positions(x, info, np, False), cpu_pool._max_positions(x, info, np, False)
    )
    kw = {"xp": np, "filter_size": size, "strides": strides, "pad": pad}
    y = cpu_pool._max_pool(x, info, np)
    dy = np.random.default_rng(1).standard_normal(y.shape).astype(np.float32)
    np.testing.assert_array_equal(
        gpu_pool.max_pool_grad(dy, x, y, **kw), cpu_pool.max_pool_grad(dy, x, y, **kw)
    )
    for batch in (False, True):
        got = gpu_pool.max_pool_with_argmax(x, include_batch_in_index=batch, **kw)
        want = cpu_pool.max_pool_with_argmax(x, include_batch_in_index=batch, **kw)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])


@pytest.mark.parametrize(
    "shape, size, strides, pad",
    [((2, 4, 5, 6, 2), (2, 2, 3), (1, 2, 2), "same"), ((1, 3, 3, 3, 1), (2, 2, 2), 1, "valid")],
)
def test_gpu_pool3d_matches_the_cpu(shape, size, strides, pad):
    x = _awkward(shape, np.random.default_rng(9))
    kw = {"xp": np, "filter_size": size, "strides": strides, "pad": pad}
    info = compute_pool3d_info(shape, size, strides, 1, pad, None)
    np.testing.assert_array_equal(
        gpu_pool.gpu_max_positions(x, info, np, True), cpu_pool._max_positions(x, info, np, True)
    )
    y = cpu_pool.max_pool3d(x, **kw)
    np.testing.assert_array_equal(gpu_pool.max_pool3d(x, **kw), y)
    np.testing.assert_allclose(
        gpu_pool.avg_pool3d(x, **kw), cpu_pool.avg_pool3d(x, **kw), atol=1e-6
    )
    dy = np.random.default_rng(2).standard_normal(y.shape).astype(np.float32)
    np.testing.assert_array_equal(
        gpu_pool.max_pool3d_grad(dy, x, y, **kw), cpu_pool.max_pool3d_grad(dy, x, y, **kw)
    )


@needs_stand_in
def test_gpu_pooling_is_registered_and_matches_the_cpu_through_the_backend(fake_gpu):  # noqa: F811
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 6, 6, 3)).astype(np.float32)

    def run():
        xt = tf.tensor(x)
        ys = [tf.max_pool(xt, 3, 2, "same"), tf.avg_pool(xt, [2, 3], 1, "valid")]
        g = tf.grad(lambda a: (tf.max_pool(a, 3, 2, "same") + tf.avg_pool(a, 3, 2, "same")).sum())(
            xt
        )
        return ys, g

    tf.set_backend("cupy")
    assert kr.get_kernel("MaxPool3D", "cupy").kernel_func.fn is gpu_pool.max_pool3d
    (gy, gg) = run()
    assert all(on_device(t) for t in (*gy, gg))
    gpu_values = [t.array_sync() for t in (*gy, gg)]
    tf.set_backend("cpu")
    (cy, cg) = run()
    for got, want in zip(gpu_values, [t.array_sync() for t in (*cy, cg)], strict=True):
        np.testing.assert_allclose(got, want, atol=1e-6)


#: (kernels, x shape, filter shape, strides, pad, dilations); conv2d's gradients have no
#: dilations (TF.js), depthwise's take them.
CONV_CASES = [
    ("conv2d", (2, 9, 8, 3), (3, 3, 3, 4), (1, 1), "same", (1, 1)),
    ("conv2d", (2, 9, 8, 3), (3, 3, 3, 4), (2, 2), "valid", (1, 1)),
    ("conv2d", (1, 9, 8, 2), (3, 2, 2, 3), (1, 1), "same", (2, 2)),
    ("conv2d", (2, 7, 7, 3), (2, 3, 3, 2), (2, 1), [[0, 0], [1, 2], [0, 1], [0, 0]], (1, 1)),
    ("conv2d", (2, 5, 5, 3), (1, 1, 3, 6), (1, 1), "valid", (1, 1)),
    ("depthwise", (2, 7, 6, 3), (3, 3, 3, 2), (2, 1), "same", (1, 1)),
    ("depthwise", (1, 6, 6, 4), (3, 2, 4, 1), (1, 1), "valid", (2, 2)),
    ("depthwise", (2, 5, 5, 2), (2, 2, 2, 3), (1, 1), [[0, 0], [1, 2], [0, 1], [0, 0]], (1, 1)),
    ("depthwise", (0, 4, 4, 2), (2, 2, 2, 1), (1, 1), "same", (1, 1)),
]
KERNEL_NAMES = {
    "conv2d": ("conv2d", "conv2d_backprop_input", "conv2d_backprop_filter"),
    "depthwise": (
        "depthwise_conv2d_native",
        "depthwise_backprop_input",
        "depthwise_backprop_filter",
    ),
}


@pytest.mark.parametrize("one_gemm", [True, False], ids=["one-gemm", "per-tap-or-cpu"])
@pytest.mark.parametrize("family, x_shape, w_shape, strides, pad, dilations", CONV_CASES)
def test_gpu_conv_kernels_match_the_cpu_kernels(
    monkeypatch, one_gemm, family, x_shape, w_shape, strides, pad, dilations
):
    if not one_gemm:
        monkeypatch.setattr(gpu_conv, "IM2COL_BYTES", 0)
    forward, back_in, back_filter = KERNEL_NAMES[family]
    rng = np.random.default_rng(7)
    x = rng.standard_normal(x_shape).astype(np.float32)
    w = rng.standard_normal(w_shape).astype(np.float32)
    kw = {"xp": np, "strides": strides, "pad": pad}
    y = getattr(cpu_conv, forward)(x, w, dilations=dilations, **kw)
    got = getattr(gpu_conv, forward)(x, w, dilations=dilations, **kw)
    np.testing.assert_allclose(got, y, atol=1e-5)
    if family == "depthwise":
        kw["dilations"] = dilations
    elif dilations != (1, 1):
        return
    dy = rng.standard_normal(y.shape).astype(np.float32)
    np.testing.assert_allclose(
        getattr(gpu_conv, back_in)(dy, w, input_shape=x.shape, **kw),
        getattr(cpu_conv, back_in)(dy, w, input_shape=x.shape, **kw),
        atol=1e-5,
    )
    np.testing.assert_allclose(
        getattr(gpu_conv, back_filter)(x, dy, filter_shape=w.shape, **kw),
        getattr(cpu_conv, back_filter)(x, dy, filter_shape=w.shape, **kw),
        rtol=1e-5,
        atol=1e-4,
    )


@needs_stand_in
def test_gpu_depthwise_int_inputs_and_through_the_backend(fake_gpu):  # noqa: F811
    xi = np.arange(2 * 5 * 5 * 2, dtype=np.int32).reshape(2, 5, 5, 2) % 7
    wi = np.arange(3 * 3 * 2 * 2, dtype=np.int32).reshape(3, 3, 2, 2) % 5 - 2
    kw = {"xp": np, "strides": 1, "pad": "same"}
    np.testing.assert_array_equal(
        gpu_conv.depthwise_conv2d_native(xi, wi, **kw),
        cpu_conv.depthwise_conv2d_native(xi, wi, **kw),
    )
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 6, 6, 3)).astype(np.float32)
    w = rng.standard_normal((3, 3, 3, 2)).astype(np.float32)

    def run():
        xt, wt = tf.tensor(x), tf.tensor(w)
        f = lambda a, b: tf.depthwise_conv2d(a, b, [2, 2], "same").square().sum()  # noqa: E731
        return [tf.depthwise_conv2d(xt, wt, 1, "valid"), *tf.grads(f)([xt, wt])]

    tf.set_backend("cupy")
    assert (
        kr.get_kernel("DepthwiseConv2dNative", "cupy").kernel_func.fn
        is gpu_conv.depthwise_conv2d_native
    )
    got = run()
    assert all(on_device(t) for t in got)
    got = [t.array_sync() for t in got]
    tf.set_backend("cpu")
    for g, want in zip(got, [t.array_sync() for t in run()], strict=True):
        np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-4)


# ------------------------------------------------------------------ fused kernels
FUSED_ACTIVATIONS = ["linear", "relu", "relu6", "elu", "sigmoid", "leakyrelu", "prelu"]


@needs_stand_in
@pytest.mark.parametrize("activation", FUSED_ACTIVATIONS)
def test_gpu_fused_kernels_match_the_cpu(fake_gpu, activation):  # noqa: F811
    """On the stand-in (which has ``fuse``) the GPU fused kernels agree with the CPU's, bit for
    bit where the epilogue is fused (additions and comparisons only)."""
    rng = np.random.default_rng(12)
    x = rng.standard_normal((2, 6, 6, 3)).astype(np.float32)
    kw = {"activation": activation, "leakyrelu_alpha": 0.2, "has_bias": True}
    cases = [
        ("_FusedMatMul", [rng.standard_normal((4, 5)), rng.standard_normal((5, 3))], {}, 3),
        ("FusedConv2D", [x, rng.standard_normal((3, 3, 3, 4))], {"strides": 1, "pad": "same"}, 4),
        (
            "FusedDepthwiseConv2D",
            [x, rng.standard_normal((3, 3, 3, 2))],
            {"strides": 2, "pad": "same"},
            6,
        ),
    ]
    for name, arrays, attrs, channels in cases:
        arrays = [a.astype(np.float32) for a in arrays]
        arrays.append(rng.standard_normal(channels).astype(np.float32) * 3)  # the bias
        if activation == "prelu":
            arrays.append(rng.random(channels).astype(np.float32))
        attrs = {**attrs, **kw, "has_prelu": activation == "prelu"}
        want = cpu_fused.KERNELS[name](*arrays, xp=np, **attrs)
        fake_cupy.FUSED_CALLS.clear()
        got = gpu_fused.KERNELS[name](*[fake_gpu.asarray(a) for a in arrays], xp=fake_gpu, **attrs)
        fused = activation in gpu_fused.FUSABLE
        assert fake_cupy.FUSED_CALLS == ([f"bias_{activation}"] if fused else []), name
        assert got.dtype == want.dtype
        if fused and name == "_FusedMatMul":  # the same product: the epilogue is exact
            np.testing.assert_array_equal(np.asarray(got), want)
        else:
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)
        # On NumPy (no ``fuse``) the GPU kernels take the CPU epilogue.
        on_numpy = gpu_fused.KERNELS[name](*arrays, xp=np, **attrs)
        np.testing.assert_allclose(on_numpy, want, rtol=1e-5, atol=1e-5)


@needs_stand_in
def test_gpu_fused_ops_run_on_the_gpu_kernels(fake_gpu):  # noqa: F811
    rng = np.random.default_rng(13)
    x = rng.standard_normal((1, 5, 5, 2)).astype(np.float32)
    w = rng.standard_normal((3, 3, 2, 3)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)

    def run():
        return tf.fused.conv2d(
            x=tf.tensor(x),
            filter=tf.tensor(w),
            strides=1,
            pad="same",
            bias=tf.tensor(b),
            activation="relu",
        )

    tf.set_backend("cupy")
    assert kr.get_kernel("FusedConv2D", "cupy").kernel_func.fn is gpu_fused.KERNELS["FusedConv2D"]
    fake_cupy.FUSED_CALLS.clear()
    y = run()
    assert on_device(y) and fake_cupy.FUSED_CALLS == ["bias_relu"]
    got = y.array_sync()
    tf.set_backend("cpu")
    np.testing.assert_allclose(got, run().array_sync(), rtol=1e-5, atol=1e-5)
