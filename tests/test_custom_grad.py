"""tf.custom_grad's calling convention: f(*inputs, save) and grad_func(dy, saved), with the
trailing parameter optional as it is for a JavaScript function."""

from __future__ import annotations

import pytest

import tidytensor as tf


def test_f_and_grad_func_may_leave_out_save_and_saved():
    x = tf.tensor([1.0, 2.0])
    plain = tf.custom_grad(lambda a: {"value": a.square(), "grad_func": lambda dy: [dy.mul(10)]})
    assert tf.grad(plain)(x).array_sync() == [10.0, 10.0]

    def full(a, save):
        save([a])
        return {"value": a.square(), "grad_func": lambda dy, saved: [dy.mul(saved[0]).mul(2)]}

    assert tf.grad(tf.custom_grad(full))(x).array_sync() == [2.0, 4.0]

    two = tf.custom_grad(lambda a, b: {"value": a.mul(b), "grad_func": lambda dy: [dy, dy.neg()]})
    y = tf.tensor([3.0, 4.0])
    ga, gb = tf.grads(two)([x, y])
    assert (ga.array_sync(), gb.array_sync()) == ([1.0, 1.0], [-1.0, -1.0])

    def star(*args):  # *args takes everything, save included
        assert len(args) == 2
        return {"value": args[0].abs(), "grad_func": lambda *a: [a[0]]}

    assert tf.grad(tf.custom_grad(star))(x).array_sync() == [1.0, 1.0]
    tf.dispose([x, y, ga, gb])


def test_an_f_that_takes_too_few_inputs_still_fails_plainly():
    bad = tf.custom_grad(lambda: {"value": tf.scalar(1.0), "grad_func": lambda dy: [dy]})
    with pytest.raises(TypeError):
        bad(tf.scalar(2.0))
