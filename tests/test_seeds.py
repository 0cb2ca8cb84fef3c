"""Every program of seeds 000 and 001, ported, with the counts and values the seeds print.

Seed 000 prints 14, 15, 16 for its predict loop and 15, 17, 19 for its arg_max loop: the
base (13 tensors held by its Iris model and input) depends on the model, the +1 and +2 per
iteration do not. Our fixed-weight model holds 4 weight variables, so with the input the
base is 5. Strings are TF.js 4.22.0's ``print`` output for the same tensors.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import tidytensor as tf
from tidytensor import demo
from tidytensor.demo import load_iris_model, normalize, normalize_leaky

MODEL_TENSORS = 4  # w1, b1, w2, b2


def count() -> int:
    return tf.memory().num_tensors


@pytest.fixture
def model():
    m = load_iris_model()
    yield m
    m.dispose()


# ------------------------------------------------------------------ seed 000
def test_model_holds_four_variables_and_predict_adds_one_tensor(model):
    assert count() == MODEL_TENSORS
    assert tf.memory().num_data_buffers == MODEL_TENSORS
    x = tf.random_uniform([1, 4])
    before = tf.memory()
    y = model.predict(x)
    after = tf.memory()
    assert after.num_tensors == before.num_tensors + 1
    assert after.num_data_buffers == before.num_data_buffers + 1
    assert (y.shape, y.dtype) == ([1, 3], "float32")


def test_model_math(model):
    """predict is sigmoid(x W1 + b1) W2 + b2, then softmax; the seed's flowers classify."""
    flowers = np.array([[5.1, 3.5, 1.4, 0.2], [6.0, 2.9, 4.5, 1.5], [6.9, 3.1, 5.8, 2.2]])
    x = flowers / np.array([7.9, 4.4, 6.9, 2.5])
    w1, b1, w2, b2 = (np.asarray(w, np.float64) for w in model.weights)
    h = 1 / (1 + np.exp(-(x @ w1 + b1)))
    z = h @ w2 + b2
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    y = model.predict(tf.tensor2d(x.tolist()))
    np.testing.assert_allclose(y.numpy(), p, rtol=1e-4, atol=1e-6)
    assert y.arg_max(1).array_sync() == [0, 1, 2]


def test_predict_loop_leaks_one_tensor_per_iteration(model, capsys):
    x = tf.random_uniform([1, 4])
    base = count()
    assert base == MODEL_TENSORS + 1
    counts, outputs = [], []
    for _ in range(3):
        y = model.predict(x)
        y.print()
        counts.append(count())
        outputs.append(y.data_sync().tolist())
    assert counts == [base + 1, base + 2, base + 3]
    assert outputs[0] == outputs[1] == outputs[2]
    assert math.isclose(sum(outputs[0]), 1, rel_tol=1e-6)
    printed = capsys.readouterr().out.split("Tensor\n")[1:]
    assert len(printed) == 3
    for text in printed:  # the seed's layout: "     [[0.4286409, 0.4692867, 0.1020722],]"
        assert re.fullmatch(r"     \[\[[-\d.e]+, [-\d.e]+, [-\d.e]+\],\]\n", text), text


def test_dispose_keeps_the_count_constant(model):
    x = tf.random_uniform([1, 4])
    base = count()
    counts = []
    for _ in range(3):
        y = model.predict(x)
        y.to_string()
        tf.dispose(y)
        counts.append(count())
    assert counts == [base] * 3


def test_tidy_keeps_the_count_constant(model):
    x = tf.random_uniform([1, 4])
    base = count()
    counts = []
    for _ in range(3):

        def body():
            y = model.predict(x)
            y.to_string()
            counts.append(count())

        tf.tidy(body)
    assert counts == [base + 1] * 3  # counted inside tidy, while y is alive
    assert count() == base


def test_arg_max_data_sync_leaks_two_tensors_per_iteration(model):
    x = tf.random_uniform([1, 4])
    base = count()
    counts, winners = [], []
    for _ in range(3):
        winning_index = model.predict(x).arg_max().data_sync()[0]
        winners.append(int(winning_index))
        counts.append(count())
    # arg_max() reduces axis 0 of the [1, 3] output: every index is 0, as the seed prints.
    assert winners == [0, 0, 0]
    assert counts == [base + 2, base + 4, base + 6]


def test_arg_max_inside_tidy_keeps_the_count_constant(model):
    x = tf.random_uniform([1, 4])
    base = count()
    counts, winners = [], []
    for _ in range(3):

        def body():
            winners.append(int(model.predict(x).arg_max().data_sync()[0]))
            counts.append(count())

        tf.tidy(body)
    assert winners == [0, 0, 0]
    assert counts == [base + 2] * 3
    assert count() == base


NORMALIZED = [-0.27386125922203064, -0.09128709137439728, 0.09128709137439728, 0.27386125922203064]


def test_normalize_without_tidy_leaks_three_tensors():
    x = tf.tensor1d([1, 2, 3, 4])
    before = tf.memory()
    y = normalize_leaky(x)
    after = tf.memory()
    assert after.num_tensors - before.num_tensors == 4  # mean, sd, sub()'s result, the result
    assert after.num_data_buffers - before.num_data_buffers == 4
    np.testing.assert_allclose(y.data_sync(), NORMALIZED, rtol=1e-6)
    y.dispose()
    assert count() - before.num_tensors == 3


def test_normalize_inside_tidy_leaks_nothing_and_returns_a_live_tensor():
    x = tf.tensor1d([1, 2, 3, 4])
    before = tf.memory()
    y = normalize(x)
    after = tf.memory()
    assert after.num_tensors - before.num_tensors == 1
    assert after.num_data_buffers - before.num_data_buffers == 1
    assert not y.is_disposed and not x.is_disposed
    np.testing.assert_allclose(y.data_sync(), NORMALIZED, rtol=1e-6)
    assert y.add(1).shape == [4]  # usable after tidy


def test_async_function_in_tidy_is_refused():
    """The seed's warning: the function passed to tidy must not be async."""

    async def body():
        return tf.tensor([1])

    before = count()
    with pytest.raises(tf.TidyTensorError, match="(?i)async|coroutine"):
        tf.tidy(body)
    assert count() == before


# ------------------------------------------------------------------ seed 001
def printed(t, capsys):
    t.print()
    return capsys.readouterr().out


def test_tensors(capsys):
    want = "Tensor\n    [[1 , 2 , 3 ],\n     [10, 20, 30]]\n"
    shape = [2, 3]
    a = tf.tensor([1.0, 2.0, 3.0, 10.0, 20.0, 30.0], shape)
    assert printed(a, capsys) == want
    b = tf.tensor([[1.0, 2.0, 3.0], [10.0, 20.0, 30.0]])
    assert printed(b, capsys) == want
    c = tf.tensor2d([[1.0, 2.0, 3.0], [10.0, 20.0, 30.0]])
    assert printed(c, capsys) == want
    zeros = tf.zeros([3, 5])
    assert printed(zeros, capsys) == (
        "Tensor\n    [[0, 0, 0, 0, 0],\n     [0, 0, 0, 0, 0],\n     [0, 0, 0, 0, 0]]\n"
    )


def test_variables(capsys):
    initial_values = tf.zeros([5])
    biases = tf.variable(initial_values)
    assert printed(biases, capsys) == "Tensor\n    [0, 0, 0, 0, 0]\n"
    updated_values = tf.tensor1d([0, 1, 0, 1, 0])
    biases.assign(updated_values)
    assert printed(biases, capsys) == "Tensor\n    [0, 1, 0, 1, 0]\n"
    assert initial_values.array_sync() == [0, 0, 0, 0, 0]  # tensors are immutable


def test_operations(capsys):
    d = tf.tensor2d([[1.0, 2.0], [3.0, 4.0]])
    d_squared = d.square()
    assert printed(d_squared, capsys) == "Tensor\n    [[1, 4 ],\n     [9, 16]]\n"
    e = tf.tensor2d([[1.0, 2.0], [3.0, 4.0]])
    f = tf.tensor2d([[5.0, 6.0], [7.0, 8.0]])
    e_plus_f = e.add(f)
    assert printed(e_plus_f, capsys) == "Tensor\n    [[6 , 8 ],\n     [10, 12]]\n"
    sq_sum = e.add(f).square()
    want = "Tensor\n    [[36 , 64 ],\n     [100, 144]]\n"
    assert printed(sq_sum, capsys) == want
    sq_sum = tf.square(tf.add(e, f))
    assert printed(sq_sum, capsys) == want


def test_model_from_ops_predicts_24(capsys):
    a = tf.scalar(2)
    b = tf.scalar(4)
    c = tf.scalar(8)

    def predict(input):
        def body():
            x = tf.scalar(input)
            ax2 = a.mul(x.square())
            bx = b.mul(x)
            y = ax2.add(bx).add(c)
            return y

        return tf.tidy(body)

    before = count()
    result = predict(2)
    assert count() == before + 1  # only the result survives the tidy
    assert printed(result, capsys) == "Tensor\n    24\n"
    assert result.array_sync() == 24


def test_dispose_frees_both_tensors():
    before = count()
    x = tf.tensor2d([[0.0, 2.0], [4.0, 6.0]])
    x_squared = x.square()
    assert count() == before + 2
    x.dispose()
    x_squared.dispose()
    assert count() == before
    assert tf.memory().num_bytes == 0


def test_tidy_average_is_3_5(capsys):
    before = count()

    def body():
        y = tf.tensor1d([1.0, 2.0, 3.0, 4.0])
        z = tf.ones([4])
        return y.sub(z).square().mean()

    average = tf.tidy(body)
    assert count() == before + 1
    assert printed(average, capsys) == "Tensor\n    3.5\n"


def test_tidy_does_not_clean_variables():
    made = []
    before = count()

    def body():
        v = tf.variable(tf.tensor1d([1.0, 2.0]))
        v.assign(tf.tensor1d([3.0, 4.0]))
        made.append(v)

    tf.tidy(body)
    (v,) = made
    assert count() == before + 1  # TF.js: +1, the variable
    assert not v.is_disposed
    assert v.array_sync() == [3, 4]
    v.dispose()
    assert count() == before


# ------------------------------------------------------------------ the demo's programs
def _counts(text):
    return [int(n) for n in re.findall(r"# of tensors: (\d+)", text)]


@pytest.mark.parametrize(
    ("program", "deltas"),
    [
        (demo.predict_leak, [1, 2, 3]),
        (demo.predict_dispose, [0, 0, 0]),
        (demo.predict_tidy, [1, 1, 1]),
        (demo.arg_max_leak, [2, 4, 6]),
        (demo.arg_max_tidy, [2, 2, 2]),
    ],
)
def test_demo_programs_count_like_the_seed(program, deltas, capsys):
    program()
    out = capsys.readouterr().out
    base = MODEL_TENSORS + 1
    assert _counts(out) == [base + d for d in deltas]
    if "arg_max" in program.__name__:
        assert out.count("winning index: 0\n") == 3
    else:
        assert out.count("Tensor\n     [[") == 3


def test_demo_normalize_program(capsys):
    demo.normalize_demo()
    out = capsys.readouterr().out
    assert "without tf.tidy(): 5 (the result and 3 leaked tensors)" in out
    assert "with tf.tidy(): 5 (the result and 0 leaked tensors)" in out
    assert "the result is disposed: False" in out


def test_demo_seed_001_programs(capsys):
    for program in (
        demo.tensors_demo,
        demo.variables_demo,
        demo.operations_demo,
        demo.model_from_ops_demo,
        demo.tidy_demo,
    ):
        program()
    out = capsys.readouterr().out
    assert out.count("Tensor\n    [[1 , 2 , 3 ],\n     [10, 20, 30]]\n") == 3
    assert "Tensor\n    [0, 1, 0, 1, 0]\n" in out
    assert out.count("Tensor\n    [[36 , 64 ],\n     [100, 144]]\n") == 2
    assert "Tensor\n    24\n" in out
    assert "Tensor\n    3.5\n" in out
