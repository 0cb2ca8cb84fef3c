"""Catalog §6.4A memory cases M11–M16 in one place (M1–M10 are in test_memory.py; M12–M15
are also exercised in the optimizer and layers suites): the exact counts TF.js 4.22.0 gives."""

from __future__ import annotations

import pytest

import tidytensor as tf


def n() -> int:
    return tf.memory().num_tensors


def test_m11_grad_of_grad_adds_one_tensor():
    x = tf.tensor1d([0.1, 0.2])
    before = n()
    g = tf.grad(tf.grad(lambda x: x.mul(x).mul(x)))(x)
    assert n() == before + 1
    assert g.array_sync() == pytest.approx([0.6, 1.2], abs=1e-6)


def test_m12_sgd_minimize_counts():
    opt = tf.train.sgd(0.1)
    seed = tf.scalar(4)
    x = seed.variable()
    initial = n()
    cost = opt.minimize(lambda: x.square(), True)
    assert n() == initial + 1
    assert x.array_sync() == pytest.approx(3.2)
    cost.dispose()
    assert opt.minimize(lambda: x.square(), False) is None
    assert n() == initial
    assert x.array_sync() == pytest.approx(2.56)
    opt.dispose()
    x.dispose()
    seed.dispose()
    assert n() == 0


def test_m13_adam_first_minimize_adds_its_moments():
    opt = tf.train.adam(0.1, 0.8, 0.9)
    x = tf.tensor1d([2, 4]).variable()
    initial = n()
    cost = opt.minimize(lambda: x.square().sum(), True)
    assert n() == initial + 3  # the cost, m and v
    assert x.array_sync() == pytest.approx([1.9, 3.9], abs=1e-3)
    cost.dispose()
    opt.minimize(lambda: x.square().sum())
    assert n() == initial + 2
    assert x.array_sync() == pytest.approx([1.8, 3.8], abs=2e-2)


def test_m14_dense_layer_dispose():
    d = tf.layers.dense(units=1, input_shape=[4])
    d.apply(tf.zeros([2, 4]))
    before = n()
    r = d.dispose()
    assert (r.ref_count_after_dispose, r.num_disposed_variables) == (0, 2)
    assert n() == before - 2
    with pytest.raises(tf.TidyTensorError, match=r"Layer .* is already disposed"):
        d.dispose()


@pytest.mark.parametrize(("optimizer", "disposed"), [("adam", 8), (None, 2)])
def test_m15_model_dispose_frees_what_it_owns(optimizer, disposed):
    m = tf.sequential()
    m.add(tf.layers.dense(units=1, input_shape=[2]))
    opt = optimizer or tf.train.adam()
    m.compile(loss="meanSquaredError", optimizer=opt)
    xs, ys = tf.zeros([4, 2]), tf.zeros([4, 1])
    m.fit(xs, ys, epochs=1, verbose=0)
    before = n()
    r = m.dispose()
    assert (r.ref_count_after_dispose, r.num_disposed_variables) == (0, disposed)
    assert n() == before - disposed


def test_m16_loading_a_model_adds_one_tensor_per_weight():
    source = tf.sequential()
    source.add(tf.layers.dense(units=32, input_shape=[32]))
    saved = {}
    source.save(tf.io.with_save_handler(lambda artifacts: saved.setdefault("a", artifacts)))
    source.dispose()
    before = n()
    model = tf.load_layers_model(tf.io.from_memory(saved["a"]))
    assert n() == before + 2  # kernel and bias, nothing else
    model.dispose()
    assert n() == before


def test_tidy_keeps_and_dispose_frees_the_tensors_of_gradient_results():
    # TF.js walks {value, grads} objects: tidy keeps them, dispose frees them.
    w = tf.variable(tf.ones([2]))
    before = tf.memory().num_tensors
    r = tf.tidy(lambda: tf.variable_grads(lambda: tf.sum(tf.mul(w, w))))
    assert not r.value.is_disposed and not r.grads[w.name].is_disposed
    assert tf.memory().num_tensors == before + 2
    value, grads = r
    assert r["grads"] is grads and r["value"] is value
    tf.dispose(r)
    assert tf.memory().num_tensors == before

    x = tf.ones([3])
    before = tf.memory().num_tensors
    vg = tf.tidy(lambda: tf.value_and_grads(lambda a: tf.sum(tf.mul(a, a)))([x]))
    assert tf.memory().num_tensors == before + 2
    tf.dispose(vg)
    one = tf.tidy(lambda: tf.value_and_grad(lambda a: tf.sum(a))(x))
    assert one.grad.array_sync() == [1.0, 1.0, 1.0]
    tf.dispose(one)
    assert tf.memory().num_tensors == before
    tf.dispose([w, x])


def test_a_failed_gradient_frees_what_f_made_but_not_its_inputs():
    x = tf.tensor([1.0, 2.0])

    def failing_grad(a, save):
        def grad_func(dy, saved):
            raise ValueError("boom")

        return {"value": tf.square(a), "grad_func": grad_func}

    one = tf.scalar(1.0)
    before = n()
    with pytest.raises(ValueError, match="boom"):
        tf.grad(lambda a: tf.custom_grad(failing_grad)(a))(x)
    assert n() == before  # y = x^2 was never handed back: it is gone
    with pytest.raises(tf.errors.GradientError):
        tf.grads(lambda a, b: a)([x, one])  # y is an input: it survives
    assert not x.is_disposed and not one.is_disposed
    kept = []

    def keeps_its_result(a):
        kept.append(tf.keep(tf.mul(a, 2)))
        raise_later = tf.custom_grad(failing_grad)(a)
        return tf.add(raise_later, kept[0])

    with pytest.raises(ValueError):
        tf.grad(keeps_its_result)(x)
    assert not kept[0].is_disposed  # tf.keep is honoured
    tf.dispose([x, one, kept[0]])
    assert n() == before - 2


def counts() -> list[int]:
    m = tf.memory()
    return [m.num_tensors, m.num_data_buffers, m.num_bytes]


def test_custom_grad_frees_what_f_made_besides_its_value():
    """TF.js runs customGrad's f as a kernel's forward function, inside a tidy: x*3 below is
    freed, and an f whose result is malformed leaves nothing behind (counts verified on
    TF.js 4.22.0: [1,1,8] -> [2,2,16] -> [3,3,24] -> [3,3,24])."""

    def affine(x, save):
        save([x])
        return {"value": x.mul(3).add(1), "grad_func": lambda dy, saved: [dy.mul(3)]}

    f = tf.custom_grad(affine)
    x = tf.tensor1d([1, 2])
    assert counts() == [1, 1, 8]
    y = f(x)
    assert counts() == [2, 2, 16]
    assert y.array_sync() == [4, 7]
    g = tf.grad(lambda x: f(x))(x)
    assert counts() == [3, 3, 24]
    assert g.array_sync() == [3, 3]

    def malformed(x, save):
        x.square()
        return {"value": x.neg()}

    with pytest.raises(tf.errors.ArgumentTypeError, match="gradFunc|grad_func"):
        tf.custom_grad(malformed)(x)
    assert counts() == [3, 3, 24]
