"""The compiled MLP step with Adam's compiled float32 loop (``_float32_c``, issue 15) gives
the bits of TF.js's op-by-op Adam (``tf.set_kernel_fusion(False)``: a dozen NumPy kernels per
variable, none of the loop's code) and of the fused kernel's NumPy reference. Runs on both
engines; on the pure-Python one (``TIDYTENSOR_PURE_PYTHON=1``) all three are NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from predict_models import adam_mlp, weight_bits

import tidytensor as tf
from tidytensor.backends.xp_kernels import float32_loops
from tidytensor.backends.xp_kernels import optimizers as kernels

RNG = np.random.default_rng(15)
X = RNG.normal(size=(64, 784)).astype("float32")
Y = np.eye(10, dtype="float32")[RNG.integers(0, 10, 64)]


def _trained_bits(cleanup, run_eagerly: bool) -> tuple[list[bytes], list[float]]:
    model = cleanup(adam_mlp(run_eagerly, None, "categoricalCrossentropy"))
    x, y = cleanup(tf.tensor(X)), cleanup(tf.tensor(Y))
    losses = [model.train_on_batch(x, y) for _ in range(4)]
    return weight_bits(model), losses


@pytest.fixture
def reference_calls(monkeypatch):
    calls = []
    rest = kernels._adam_rest
    monkeypatch.setattr(kernels, "_adam_rest", lambda *a, **k: calls.append(1) or rest(*a, **k))
    return calls


def test_the_compiled_step_gives_the_bits_of_tfjs_op_by_op_adam(
    cleanup, monkeypatch, reference_calls
):
    compiled = _trained_bits(cleanup, run_eagerly=False)
    # The loop ran every Adam step of the replays where it is loaded, never the reference.
    assert (reference_calls == []) == (float32_loops.LOOPS is not None)

    tf.set_kernel_fusion(False)
    try:
        op_by_op = _trained_bits(cleanup, run_eagerly=True)
    finally:
        tf.set_kernel_fusion(True)
    assert compiled == op_by_op

    monkeypatch.setattr(float32_loops, "LOOPS", None)  # the fused kernel's NumPy reference
    reference_calls.clear()
    assert _trained_bits(cleanup, run_eagerly=False) == compiled
    assert reference_calls  # the reference ran this time
