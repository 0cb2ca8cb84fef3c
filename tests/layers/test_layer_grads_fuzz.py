"""Replays tests/golden/results/layer_grads_fuzz.json (written by
tests/golden/layer_grads_fuzz.js from TF.js 4.22): GRADIENTS through random configurations of
every layer family. Each case is a small model (layer_configs_fuzz.js's recipes; a single layer
gets a linear Dense in front so that its input gradient is used too) with TF.js's seeded
weights, compiled with SGD(0.1) and a random loss (every Layers loss; targets that fit it), trained two ``train_on_batch`` steps on
fixed inputs and targets. tidytensor must return TF.js's losses and end each step with TF.js's
weights (trainable and not: batch-norm moving statistics too), with kernel fusion on and off.

Each step starts from TF.js's own state before it (step 1 from ``weights0``, step 2 from TF.js's
weights after step 1; SGD keeps no state of its own), so a step is checked against TF.js alone,
not through the float32 rounding of the step before: chained, a last-bit difference of step 1
(which BLAS kernel summed a convolution) can grow past any fixed tolerance in step 2 where the
loss is ill-conditioned (conv2dTranspose_4: relu6 into binaryCrossentropy, 134 of 288 outputs
at 0 and 25 at 1, moved a 2e-7 difference of step 1 to 1e-2 after step 2 under
OPENBLAS_CORETYPE=Haswell). That step 2 follows step 1 in one model is still exercised.

Left out by the generator (listed in the file's ``skipped``): configurations random in
training (dropout and noise layers, RNN dropout arguments) and those TF.js cannot train.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_layer_configs_fuzz import _build

import tidytensor as tf
from tensor_cleanup import release_rnn_tensors

# LAYER_GRADS_FUZZ=<file> replays a file made with another seed
# (node tests/golden/layer_grads_fuzz.js <seed> <file>).
RESULTS = Path(
    os.environ.get(
        "LAYER_GRADS_FUZZ",
        Path(__file__).resolve().parents[1] / "golden" / "results" / "layer_grads_fuzz.json",
    )
)
# float32 chains of a few ops and two steps: 1e-4 relative (TF.js's own tolerance is 1e-3).
RTOL = 1e-4
ATOL = 1e-5
# Losses that divide by (or take the log of) the outputs (the crossentropies clip to
# [eps, 1 - eps] and take log(p / (1 - p)); categoricalCrossentropy divides by the sum of the
# outputs, which need not be probabilities here) amplify a last-bit difference of the forward
# pass (a convolution's summation order) by 1 / (1 - p) and more: TF.js's own 1e-3 for those.
ILL_CONDITIONED = {
    "binaryCrossentropy",
    "categoricalCrossentropy",
    "sparseCategoricalCrossentropy",
    "kullbackLeiblerDivergence",
    "poisson",
    "meanAbsolutePercentageError",
    "meanSquaredLogarithmicError",
}

DATA = json.loads(RESULTS.read_text())
CASES = DATA["cases"]


def _floats(item: dict[str, Any]) -> np.ndarray:
    return np.frombuffer(base64.b64decode(item["b64"]), dtype="<f4").reshape(item["shape"])


def _set_exact(model: Any, weights: list[dict[str, Any]]) -> None:
    """TF.js's weights as they are (``LayerVariable.write`` would apply the constraints again,
    which moves unitNorm'ed values by a rounding)."""
    names = [w.original_name for w in model.weights]
    assert names == [w["name"] for w in weights], (names, [w["name"] for w in weights])
    for var, w in zip(model.weights, weights, strict=True):
        value = tf.tensor(_floats(w))
        var.val.assign(value)
        value.dispose()


def _train(model: Any, case: dict[str, Any]) -> list[tuple[list[float], list[np.ndarray]]]:
    """Two ``train_on_batch`` steps on one model, each from TF.js's weights before that step."""
    xs = [tf.tensor(_floats(i)) for i in case["inputs"]]
    ys = [tf.tensor(_floats(t)) for t in case["targets"]]
    try:
        out = []
        for start in (case["weights0"], case["weights"][0]):
            _set_exact(model, start)
            loss = model.train_on_batch(
                xs[0] if len(xs) == 1 else xs, ys[0] if len(ys) == 1 else ys
            )
            losses = loss if isinstance(loss, list) else [loss]
            out.append((losses, [np.asarray(w.read().numpy()) for w in model.weights]))
        return out
    finally:
        tf.dispose([xs, ys])


def _compare(case: dict[str, Any], got: list[Any], fused: bool) -> None:
    rtol, atol = (1e-3, 1e-4) if case["loss"] in ILL_CONDITIONED else (RTOL, ATOL)
    where = f"{case['name']} ({case['loss']}; kernel fusion {'on' if fused else 'off'}; recipe {case['recipe']})"
    for step, ((losses, weights), want_losses, want_weights) in enumerate(
        zip(got, case["losses"], case["weights"], strict=True)
    ):
        np.testing.assert_allclose(
            np.asarray(losses, np.float64),
            np.asarray(want_losses, np.float64),
            rtol=rtol,
            atol=atol,
            err_msg=f"{where}: losses of step {step + 1}",
        )
        for w, want in zip(weights, want_weights, strict=True):
            np.testing.assert_allclose(
                w.astype(np.float64),
                _floats(want).astype(np.float64),
                rtol=rtol,
                atol=atol,
                err_msg=f"{where}: weight {want['name']} after step {step + 1}",
            )


def test_grads_fuzz_file_covers_the_families():
    families = {c["name"].rsplit("_", 1)[0] for c in CASES}
    assert len(CASES) >= 150
    for family in (
        "dense conv1d conv2d conv2dTranspose conv3d separableConv2d depthwiseConv2d pool2d "
        "batchNormalization layerNormalization embedding recurrent cellRnn bidirectional "
        "timeDistributed advancedActivation merge masking"
    ).split():
        assert family in families, family


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_two_sgd_steps_match_tfjs(case):
    model = _build(case)
    optimizer = tf.train.sgd(0.1)
    try:
        model.compile(optimizer=optimizer, loss=case["loss"])
        _compare(case, _train(model, case), fused=True)
        # the same steps again from the same weights (SGD keeps no state), without fusion
        tf.set_kernel_fusion(False)
        try:
            got = _train(model, case)
        finally:
            tf.set_kernel_fusion(True)
        _compare(case, got, fused=False)
    finally:
        release_rnn_tensors(model)
        model.dispose()
        optimizer.dispose()
