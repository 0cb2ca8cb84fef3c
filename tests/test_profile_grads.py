"""``tf.profile`` over gradient computations lists what TF.js's does (goldens written by
tests/golden/profile_grads.js from TF.js 4.22.0): every kernel, including the Identity clone
of each tensor a gradient saves, in TF.js's order, with its tensor and byte counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tidytensor as tf

GOLDEN = json.loads(
    (Path(__file__).parent / "golden" / "results" / "profile_grads.json").read_text()
)["cases"]

CASES = {
    "grad_square_sum": lambda: (lambda a: lambda: tf.grad(lambda x: x.square().sum())(a))(
        tf.tensor1d([1, 2, 3])
    ),
    "grads_matmul_relu_mean": lambda: (
        lambda b: lambda: tf.grads(lambda x, y: x.mat_mul(y).relu().mean())([b, b])
    )(tf.tensor2d([[1, 2], [3, 4]])),
    "grad_exp_saves_its_output": lambda: (
        lambda a: lambda: tf.grad(lambda x: x.exp().mul(x).sum())(a)
    )(tf.tensor1d([0.5, -1])),
    "value_and_grad_sigmoid": lambda: (
        lambda a: lambda: tf.value_and_grad(lambda x: x.sigmoid().sum())(a).grad
    )(tf.tensor2d([[0.5, -1], [2, 0]])),
}


def test_every_golden_case_is_replayed():
    assert set(CASES) == set(GOLDEN)


@pytest.mark.parametrize("name", sorted(CASES))
def test_profile_of_a_gradient_matches_tfjs(name):
    info = tf.profile(CASES[name]())
    got = [
        {
            "name": k.name,
            "tensorsAdded": k.tensors_added,
            "bytesAdded": k.bytes_added,
            "totalTensorsSnapshot": k.total_tensors_snapshot,
        }
        for k in info.kernels
    ]
    assert got == GOLDEN[name]
    tf.engine().reset()


def test_without_profile_saved_tensors_are_not_kernel_calls():
    """Unprofiled, the clones share their buffers directly (no Identity kernel runs), with
    the same counts."""
    a = tf.tensor1d([1, 2, 3])
    before = tf.memory().num_tensors
    g = tf.grad(lambda x: x.square().sum())(a)
    assert tf.memory().num_tensors - before == 1
    profiled = tf.profile(lambda: tf.grad(lambda x: x.square().sum())(a))
    assert tf.memory().num_tensors - before == 2
    assert profiled.new_tensors == 1
    tf.dispose([a, g, profiled.result])
