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
