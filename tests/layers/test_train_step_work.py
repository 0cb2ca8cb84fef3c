"""A training step does each piece of work once: one output's loss is averaged once (TF.js
averages it twice, once for the per-output loss values that only a multi-output model's
metrics read), and a loss gradient does not redo forward work it does not need. The results
keep TF.js's bits (the op-by-op path, fusion off, is the reference)."""

from __future__ import annotations

import numpy as np

import tidytensor as tf
from tidytensor import ops
from tidytensor.backends.xp_kernels import layers_losses as loss_kernels


def _train(fused: bool) -> tuple[list[float], list[np.ndarray]]:
    tf.set_kernel_fusion(fused)
    try:
        model = tf.sequential(
            layers=[
                tf.layers.dense(units=5, activation="relu", input_shape=[4]),
                tf.layers.dense(units=3, activation="softmax"),
            ]
        )
        model.compile(optimizer=tf.train.adam(0.01), loss="categoricalCrossentropy")
        rng = np.random.default_rng(5)
        model.set_weights(
            [tf.tensor(rng.standard_normal(w.shape).astype(np.float32)) for w in model.weights]
        )
        x = tf.tensor(rng.standard_normal((6, 4)).astype(np.float32))
        y = tf.one_hot(tf.tensor1d([0, 1, 2, 0, 1, 2], "int32"), 3)
        losses = [float(model.train_on_batch(x, y)) for _ in range(3)]
        weights = [w.read().numpy() for w in model.weights]
        tf.dispose([x, y])
    finally:
        tf.set_kernel_fusion(True)
    return losses, weights


def test_one_output_loss_is_averaged_once_per_step(monkeypatch):
    calls = []
    mean = ops.mean

    def counting(*args, **kwargs):
        calls.append(1)
        return mean(*args, **kwargs)

    monkeypatch.setattr(ops, "mean", counting)
    fused_losses, fused_weights = _train(True)
    assert len(calls) == 3  # one mean per step
    plain_losses, plain_weights = _train(False)
    assert len(calls) == 3 + 6  # TF.js's kernels: the per-output mean too
    assert fused_losses == plain_losses
    for a, b in zip(fused_weights, plain_weights, strict=True):
        assert a.tobytes() == b.tobytes()


def test_loss_gradients_skip_the_forward_work_they_do_not_need(monkeypatch):
    """The output's gradient of the categorical cross-entropy needs no log; the target's
    gradient of the binary cross-entropy needs no exp."""
    taken = []
    for name in ("log", "exp"):
        kernel = getattr(loss_kernels, name)
        monkeypatch.setattr(
            loss_kernels,
            name,
            lambda *a, _name=name, _kernel=kernel, **k: taken.append(_name) or _kernel(*a, **k),
        )
    rng = np.random.default_rng(2)
    target = rng.random((4, 3)).astype(np.float32)
    output = rng.random((4, 3)).astype(np.float32)
    dy = np.ones(4, np.float32)
    loss_kernels.categorical_crossentropy_grad(
        dy, target, output, xp=np, epsilon=1e-7, wrt="output"
    )
    assert "log" not in taken
    loss_kernels.binary_crossentropy_grad(dy, target, output, xp=np, epsilon=1e-7, wrt="target")
    assert "exp" not in taken


def test_relu_gradient_is_worked_out_once_per_dense_backward(monkeypatch):
    """A relu Dense layer's backward pass takes Relu's gradient ``dy * step(y)`` once for
    the input's, kernel's and bias's gradients (not once for each), with the same bits as
    TF.js's kernels (fusion off)."""
    from tidytensor.backends.xp_kernels import layers_dense as dense_kernels

    steps = []
    step = dense_kernels.step
    monkeypatch.setattr(dense_kernels, "step", lambda *a, **k: steps.append(1) or step(*a, **k))
    layer = tf.layers.dense(units=4, activation="relu", input_shape=[3])
    rng = np.random.default_rng(1)
    x = tf.variable(tf.tensor(rng.standard_normal((5, 3)).astype(np.float32)), name="relu_x")
    layer.apply(x).dispose()  # builds the layer
    results = []
    for fused in (True, False):
        tf.set_kernel_fusion(fused)
        try:
            steps.clear()
            result = tf.variable_grads(lambda: layer.apply(x).square().sum())
        finally:
            tf.set_kernel_fusion(True)
        if fused:
            assert len(steps) == 1  # shared by the three gradients
        assert len(result["grads"]) == 3
        results.append({k: g.numpy().tobytes() for k, g in result["grads"].items()})
        tf.dispose([result["value"], *result["grads"].values()])
    assert results[0] == results[1]
    x.dispose()
