"""The fused Layers losses (``TidyCategoricalCrossentropy``, ``TidyBinaryCrossentropy``)
against TF.js's op-by-op losses: the same bits for the loss and for both gradients, the same
counts, and the op-by-op kernels whenever someone watches kernels one by one."""

from __future__ import annotations

import numpy as np
import pytest

import tidytensor as tf
from tidytensor.layers import losses

SHAPES = [(7,), (5, 4), (3, 2, 6), (64, 10), (256, 1)]
LOSSES = {
    "categorical": losses.categorical_crossentropy,
    "binary": losses.binary_crossentropy,
}


def _problem(shape, seed):
    """Random probabilities with entries clipped from below and from above, and targets."""
    rng = np.random.default_rng(seed)
    output = rng.random(shape).astype(np.float32)
    flat = output.reshape(-1)
    flat[0], flat[1], flat[-1], flat[-2] = 0.0, 1e-9, 1.0, 1 - 1e-9
    target = rng.random(shape).astype(np.float32)
    return target, output


def _loss_and_grads(loss_fn, target, output, fused: bool):
    tf.set_kernel_fusion(fused)
    try:
        t, o = tf.tensor(target), tf.tensor(output)
        dy_seed = tf.tensor(
            np.linspace(-2, 3, target[..., 0].size, dtype=np.float32).reshape(target.shape[:-1])
        )

        def f(t_, o_):
            return tf.mul(loss_fn(t_, o_), dy_seed).sum()

        loss = loss_fn(t, o)
        dt, do = tf.grads(f)([t, o])
        out = [loss.numpy(), dt.numpy(), do.numpy()]
        tf.dispose([t, o, dy_seed, loss, dt, do])
    finally:
        tf.set_kernel_fusion(True)
    return out


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("seed", [0, 1])
def test_fused_loss_and_gradients_are_bit_identical(loss, shape, seed):
    target, output = _problem(shape, seed)
    fused = _loss_and_grads(LOSSES[loss], target, output, True)
    plain = _loss_and_grads(LOSSES[loss], target, output, False)
    for name, a, b in zip(("loss", "d_target", "d_output"), fused, plain, strict=True):
        assert a.shape == b.shape and a.dtype == b.dtype == np.float32, name
        assert a.tobytes() == b.tobytes(), f"{name} differs: max |diff| {np.abs(a - b).max()}"


@pytest.mark.parametrize("loss", LOSSES)
def test_fused_loss_leaves_the_counts_of_the_op_by_op_loss(loss):
    target, output = _problem((6, 3), 3)
    t, o = tf.tensor(target), tf.tensor(output)

    def counts():
        before = tf.memory()
        loss_value = LOSSES[loss](t, o)
        after = tf.memory()
        loss_value.dispose()
        return (
            after.num_tensors - before.num_tensors,
            after.num_data_buffers - before.num_data_buffers,
        )

    fused = counts()
    tf.set_kernel_fusion(False)
    try:
        assert counts() == fused == (1, 1)
    finally:
        tf.set_kernel_fusion(True)
    tf.dispose([t, o])


def test_profile_and_nested_gradients_run_the_tfjs_ops():
    target, output = _problem((4, 3), 4)
    t, o = tf.tensor(target), tf.tensor(output)
    info = tf.profile(lambda: losses.categorical_crossentropy(t, o))
    names = [kernel.name for kernel in info.kernels]
    assert "TidyCategoricalCrossentropy" not in names
    assert names[:3] == ["Sum", "RealDiv", "ClipByValue"]
    assert "Log" in names and names[-1] == "Neg"
    tf.dispose(info.result)
    # Unobserved, the loss is the fused kernel.
    info_kernels = []
    from tidytensor.engine import ENGINE

    original = ENGINE._dispatch

    def spy(name, inputs, attrs):
        info_kernels.append(name)
        return original(name, inputs, attrs)

    ENGINE._dispatch = spy
    try:
        loss = losses.categorical_crossentropy(t, o)
        first_order = tf.grad(lambda x: losses.categorical_crossentropy(t, x).sum())(o)
        fused_names = list(info_kernels)
        info_kernels.clear()
        # Second order (by the target: the clip mask has no gradient, in TF.js either): the
        # inner gradient call is nested, so the TF.js ops run and are differentiated again.
        second = tf.grad(
            lambda tt: tf.grad(lambda y: losses.categorical_crossentropy(tt, y).sum())(o).sum()
        )(t)
        nested_names = list(info_kernels)
    finally:
        del ENGINE._dispatch
    assert "TidyCategoricalCrossentropy" in fused_names
    assert "TidyCategoricalCrossentropyGrad" in fused_names
    assert not any(n.startswith("Tidy") for n in nested_names)
    assert np.all(np.isfinite(second.numpy()))
    tf.dispose([t, o, loss, first_order, second])


@pytest.mark.parametrize("loss", LOSSES)
def test_fused_loss_gradients_match_finite_differences(loss):
    rng = np.random.default_rng(5)
    target = rng.random((4, 5)).astype(np.float32)
    output = (rng.random((4, 5)) * 0.8 + 0.1).astype(np.float32)  # away from the clip bounds
    tf.testing.check_grads(LOSSES[loss], [target, output])
