"""The fused ``softmaxCrossEntropyWithLogits`` kernel (``TidySoftmaxCrossEntropyWithLogits``)
behind ``tf.losses.softmax_cross_entropy`` against TF.js's ops and custom gradient: the same
bits for the loss and both gradients, the same counts, and TF.js's kernels whenever someone
watches kernels one by one."""

from __future__ import annotations

import numpy as np
import pytest

import tidytensor as tf
from kernel_recorder import recorded_kernels

SHAPES = [(5,), (3, 4), (2, 3, 4), (64, 10), (7, 1)]


def _problem(shape, seed, specials):
    rng = np.random.default_rng(seed)
    logits = (rng.standard_normal(shape) * 4).astype(np.float32)
    labels = rng.random(shape).astype(np.float32)
    if specials and logits.size >= 6:
        flat = logits.reshape(-1)
        flat[:3] = [80.0, -80.0, 0.0]
        flat[-1] = -np.inf
    return labels, logits


def _loss_and_grads(labels, logits, fused: bool):
    tf.set_kernel_fusion(fused)
    try:
        y, x = tf.tensor(labels), tf.tensor(logits)
        loss = tf.losses.softmax_cross_entropy(y, x)
        per_example = tf.tidy(
            lambda: tf.losses.softmax_cross_entropy(y, x, None, 0, tf.losses.Reduction.NONE)
        )
        dy, dx = tf.grads(lambda a, b: tf.losses.softmax_cross_entropy(a, b))([y, x])
        out = [loss.numpy(), per_example.numpy(), dy.numpy(), dx.numpy()]
        tf.dispose([y, x, loss, per_example, dy, dx])
    finally:
        tf.set_kernel_fusion(True)
    return out


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("specials", [False, True])
def test_fused_softmax_cross_entropy_is_bit_identical(shape, specials):
    labels, logits = _problem(shape, 4, specials)
    fused = _loss_and_grads(labels, logits, True)
    plain = _loss_and_grads(labels, logits, False)
    for name, a, b in zip(
        ("loss", "per_example", "d_labels", "d_logits"), fused, plain, strict=True
    ):
        assert a.shape == b.shape and a.dtype == b.dtype == np.float32, name
        assert a.tobytes() == b.tobytes(), name


def test_fused_kernel_runs_unobserved_and_tfjs_kernels_under_profile():
    labels, logits = _problem((4, 3), 1, False)
    y, x = tf.tensor(labels), tf.tensor(logits)
    info = tf.profile(lambda: tf.tidy(lambda: tf.losses.softmax_cross_entropy(y, x)))
    names = [k.name for k in info.kernels]
    assert not any(n.startswith("Tidy") for n in names) and "Max" in names and "Exp" in names
    info.result.dispose()

    with recorded_kernels() as seen:
        before = tf.memory().num_tensors
        loss = tf.losses.softmax_cross_entropy(y, x)
        assert tf.memory().num_tensors == before + 1
    assert "TidySoftmaxCrossEntropyWithLogits" in seen and "Max" not in seen
    tf.dispose([y, x, loss])


def test_fused_softmax_cross_entropy_gradients_match_finite_differences():
    # The logits' gradient, for labels that sum to 1 along the last axis: TF.js's custom
    # gradient (kept by the fused kernel) is the loss's derivative only there, and its labels'
    # gradient, dy * (labels - softmax), is not the derivative at all.
    labels, logits = _problem((3, 4), 6, False)
    labels = (labels / labels.sum(-1, keepdims=True)).astype(np.float32)
    y = tf.tensor(labels)
    tf.testing.check_grads(
        lambda b: tf.losses.softmax_cross_entropy(y, b, None, 0, tf.losses.Reduction.NONE),
        [logits],
    )
    y.dispose()
