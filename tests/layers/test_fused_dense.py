"""The fused Dense kernel (``TidyDense``) against TF.js's ops (matMul, bias add, activation;
``_FusedMatMul`` between reshapes when no tape records): the same bits for the output and for
the gradients of the input, the kernel and the bias; the same counts; TF.js's kernels
whenever someone watches kernels one by one."""

from __future__ import annotations

import numpy as np
import pytest

import tidytensor as tf
from kernel_recorder import recorded_kernels

CASES = [
    # (batch, in, units, activation, use_bias)
    (1, 1, 1, "linear", True),
    (4, 3, 2, "relu", True),
    (64, 33, 17, "relu", False),
    (7, 5, 3, "softmax", True),
    (16, 8, 4, "tanh", False),
    (0, 3, 2, "relu", True),
]


def _values(shape, seed, specials=True):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(shape) * 3).astype(np.float32)
    flat = a.reshape(-1)
    if specials and flat.size >= 4:
        flat[:4] = [0.0, -0.0, np.nan, np.inf]
    return a


def _forward_and_grads(case, fused: bool):
    batch, n_in, units, activation, use_bias = case
    tf.set_kernel_fusion(fused)
    try:
        layer = tf.layers.dense(
            units=units, activation=activation, use_bias=use_bias, kernel_initializer="ones"
        )
        x = tf.variable(tf.tensor(_values((batch, n_in), 1)), name=f"fd_x_{fused}")
        layer.apply(x).dispose()  # builds the weights
        layer.kernel.write(tf.tensor(_values((n_in, units), 2, specials=False)))
        if use_bias:
            layer.bias.write(tf.tensor(_values((units,), 3, specials=False)))
        seed = tf.tensor(np.linspace(-2, 3, batch * units, dtype=np.float32).reshape(batch, units))
        y = layer.apply(x)
        variables = [x, layer.kernel.val] + ([layer.bias.val] if use_bias else [])
        value, grads = tf.variable_grads(lambda: tf.mul(layer.apply(x), seed).sum(), variables)
        out = [y.numpy(), value.numpy()] + [grads[v.name].numpy() for v in variables]
        tf.dispose([y, value, seed, x, grads])
        layer.dispose()
    finally:
        tf.set_kernel_fusion(True)
    return out


@pytest.mark.parametrize("case", CASES, ids=str)
def test_fused_dense_and_its_gradients_are_bit_identical(case):
    fused = _forward_and_grads(case, True)
    plain = _forward_and_grads(case, False)
    names = ["y", "loss", "dx", "dkernel", "dbias"]
    for name, a, b in zip(names, fused, plain, strict=False):
        assert a.shape == b.shape and a.dtype == b.dtype == np.float32, name
        assert a.tobytes() == b.tobytes(), name


def _kernels_of_a_training_step(fused: bool) -> tuple[list[str], list[int]]:
    tf.set_kernel_fusion(fused)
    try:
        model = tf.sequential(
            layers=[
                tf.layers.dense(units=4, activation="relu", input_shape=[3]),
                tf.layers.dense(units=2, activation="softmax"),
            ]
        )
        start = [_values(w.shape, i, specials=False) for i, w in enumerate(model.get_weights())]
        start = [tf.tensor(w) for w in start]
        model.set_weights(start)
        tf.dispose(start)
        model.compile(optimizer="adam", loss="categoricalCrossentropy")
        x, y = tf.ones([5, 3]), tf.tensor([[0.0, 1.0]] * 5)
        model.train_on_batch(x, y)
        before = tf.memory()
        with recorded_kernels() as seen:
            model.train_on_batch(x, y)
        after = tf.memory()
        counts = [after.num_tensors - before.num_tensors, after.num_bytes - before.num_bytes]
        weights = [w.numpy() for w in model.get_weights()]
        tf.dispose([x, y])
        model.dispose()
    finally:
        tf.set_kernel_fusion(True)
    return seen, counts, weights


def test_a_training_step_runs_the_fused_kernels_and_leaves_the_same_counts():
    fused_kernels, fused_counts, fused_weights = _kernels_of_a_training_step(True)
    plain_kernels, plain_counts, plain_weights = _kernels_of_a_training_step(False)
    assert fused_kernels.count("TidyDense") == 2
    assert "TidyDenseGrad" in fused_kernels
    assert not any(name.startswith("Tidy") for name in plain_kernels)
    assert "_FusedMatMul" in plain_kernels and "Relu" in plain_kernels
    assert len(fused_kernels) < len(plain_kernels)
    assert fused_counts == plain_counts == [0, 0]
    for a, b in zip(fused_weights, plain_weights, strict=True):
        assert a.tobytes() == b.tobytes()


def test_profile_and_nested_gradients_run_tfjs_kernels():
    layer = tf.layers.dense(units=2, activation="relu", input_shape=[3])
    x = tf.tensor([[1.0, -2.0, 0.5]])
    layer.apply(x).dispose()
    info = tf.profile(lambda: tf.tidy(lambda: layer.apply(x)))
    names = [k.name for k in info.kernels]
    assert "TidyDense" not in names and "_FusedMatMul" in names
    info.result.dispose()

    # Second order through the layer: the first-order tape must record TF.js's kernels.
    def first(v):
        return tf.grad(lambda u: layer.apply(u).square().sum())(v).sum()

    d2 = tf.grad(first)(x)
    tf.set_kernel_fusion(False)
    try:
        plain = tf.grad(first)(x)
    finally:
        tf.set_kernel_fusion(True)
    assert d2.numpy().tobytes() == plain.numpy().tobytes()
    tf.dispose([d2, plain, x])
    layer.dispose()


def test_other_ranks_and_dtypes_take_the_ops():
    layer = tf.layers.dense(units=2, input_shape=[3, 4])
    x = tf.ones([2, 3, 4])
    layer.apply(x).dispose()
    with recorded_kernels() as seen:
        layer.apply(x).dispose()
    assert "TidyDense" not in seen
    x.dispose()
    layer.dispose()


@pytest.mark.parametrize("activation", ["linear", "relu"])
def test_fused_dense_gradients_match_finite_differences(activation):
    from tidytensor.layers import backend as K

    rng = np.random.default_rng(9)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    kernel = rng.standard_normal((3, 5)).astype(np.float32)
    bias = (rng.random(5).astype(np.float32) + 0.5) * np.sign(rng.standard_normal(5))
    bias = bias.astype(np.float32)

    def f(x_, kernel_, bias_):
        out = K.fused_dense(x_, kernel_, bias_, activation)
        assert out is not None  # the fused kernel, not the ops
        return out

    tf.testing.check_grads(f, [x, kernel, bias])


def test_the_dense_kernels_matrix_product_is_batch_mat_muls_bits_for_any_batch():
    """TidyDense multiplies two float32 matrices with ``dot`` (cheaper than ``matmul`` for
    a one-row predict): the same bits as BatchMatMul's kernel, one row or many."""
    from tidytensor.backends.xp_kernels.layers_dense import dense
    from tidytensor.backends.xp_kernels.matrices import batch_mat_mul

    rng = np.random.default_rng(3)
    for rows in (1, 2, 7, 64):
        for k, n in ((784, 128), (128, 10), (5, 3), (33, 1)):
            x = rng.standard_normal((rows, k)).astype("float32")
            w = rng.standard_normal((k, n)).astype("float32")
            b = rng.standard_normal(n).astype("float32")
            want = np.maximum(batch_mat_mul(x, w, xp=np) + b, 0)
            got = dense(x, w, b, xp=np, activation="relu", has_bias=True)
            assert got.dtype == np.float32
            assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
