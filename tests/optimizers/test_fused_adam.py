"""Adam's fused update kernel (``TidyAdamUpdate``) against TF.js's op-by-op update.

The fused kernel must give the same bits as the dozen kernels TF.js runs, leave the same
counts, and stay out of the way whenever someone watches kernels one by one (``tf.profile``,
a gradient tape).
"""

from __future__ import annotations

import numpy as np
import pytest

import tidytensor as tf
from tidytensor.optimizers import adam as adam_module
from tidytensor.optimizers.adam import AdamOptimizer

SHAPES = [(), (3,), (7, 5), (2, 3, 4), (64, 33)]


def _run(shape, fused: bool, steps: int = 5):
    """Adam steps on one variable with a fixed gradient sequence; returns value, m, v bits."""
    tf.set_kernel_fusion(fused)
    try:
        rng = np.random.default_rng(7)
        x = tf.variable(tf.tensor(rng.standard_normal(shape).astype(np.float32)), name="fx")
        opt = tf.train.adam(0.01, 0.8, 0.95, 1e-6)
        for step in range(steps):
            g = rng.standard_normal(shape).astype(np.float32) * np.float32(10.0**step - 1)
            grad = tf.tensor(g)
            opt.apply_gradients({"fx": grad})
            grad.dispose()
        out = [x.numpy()] + [w["tensor"].numpy() for w in opt.get_weights()[1:]]
        for w in opt.get_weights():
            if w["name"] == "iter":
                w["tensor"].dispose()
        opt.dispose()
        x.dispose()
    finally:
        tf.set_kernel_fusion(True)
    return out


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_fused_update_is_bit_identical_to_the_op_by_op_update(shape):
    fused = _run(shape, True)
    plain = _run(shape, False)
    for a, b in zip(fused, plain, strict=True):
        assert a.dtype == b.dtype == np.float32 and a.shape == b.shape == shape
        assert a.tobytes() == b.tobytes()


def test_fused_update_is_used_and_leaves_the_same_counts(monkeypatch):
    def counts_after_two_steps():
        x = tf.variable(tf.tensor([[1.0, -2.0], [3.0, 0.5]]), name="cx")
        opt = tf.train.adam(0.1)
        before = tf.memory()
        for _ in range(2):
            opt.minimize(lambda: x.square().sum())
        after = tf.memory()
        opt.dispose()
        x.dispose()
        return [
            after.num_tensors - before.num_tensors,
            after.num_data_buffers - before.num_data_buffers,
            after.num_bytes - before.num_bytes,
        ]

    calls = []
    fused = AdamOptimizer._fused_update
    monkeypatch.setattr(
        AdamOptimizer, "_fused_update", lambda self, *a: calls.append(1) or fused(self, *a)
    )
    with_fused = counts_after_two_steps()
    assert calls == [1, 1]
    tf.set_kernel_fusion(False)
    try:
        assert counts_after_two_steps() == with_fused
    finally:
        tf.set_kernel_fusion(True)
    assert calls == [1, 1]
    assert with_fused[0] == 2  # the m and v slots; every temporary of both steps is gone


def test_profile_lists_tfjs_kernels_not_the_fused_one():
    x = tf.variable(tf.tensor([1.0, 2.0]), name="px")
    opt = tf.train.adam(0.1)
    g = tf.tensor([0.5, -0.5])
    info = tf.profile(lambda: opt.apply_gradients({"px": g}))
    names = [kernel.name for kernel in info.kernels]
    assert "TidyAdamUpdate" not in names
    assert names[:2] == ["Sub", "Sub"] and names.count("Sqrt") == 1 and names.count("RealDiv") == 3
    opt.apply_gradients({"px": g})  # unobserved: fused; both paths agree on the result
    twin = tf.variable(tf.tensor([1.0, 2.0]), name="px_twin")
    twin_opt = tf.train.adam(0.1)
    for _ in range(2):
        tf.profile(lambda: twin_opt.apply_gradients({"px_twin": g}))
    assert x.numpy().tobytes() == twin.numpy().tobytes()
    for thing in (x, g, twin):
        thing.dispose()
    opt.dispose()
    twin_opt.dispose()


def test_fused_kernel_stays_off_while_a_tape_records(monkeypatch):
    def refuse(*args):
        raise AssertionError("fused update ran under a tape")

    monkeypatch.setattr(AdamOptimizer, "_fused_update", refuse)
    x = tf.variable(tf.tensor([1.0, 2.0]), name="tx")
    opt = tf.train.adam(0.1)

    def f(a):
        opt.apply_gradients({"tx": tf.ones_like(a)})
        return a.square().sum()

    dx = tf.grad(f)(tf.tensor([3.0]))
    np.testing.assert_allclose(dx.numpy(), [6.0])
    dx.dispose()
    opt.dispose()
    x.dispose()


def _run_many(fused: bool, steps: int = 4):
    """Adam steps on variables of several shapes (a scalar, a float32 gradient for a
    variable of another dtype's shape...) together; returns every value, m and v."""
    tf.set_kernel_fusion(fused)
    try:
        rng = np.random.default_rng(11)
        names = [f"many{i}" for i in range(len(SHAPES))]
        xs = [
            tf.variable(tf.tensor(rng.standard_normal(s).astype(np.float32)), name=n)
            for s, n in zip(SHAPES, names, strict=True)
        ]
        opt = tf.train.adam(0.02, 0.85, 0.97, 1e-7)
        for step in range(steps):
            grads = {
                n: tf.tensor(rng.standard_normal(s).astype(np.float32) * np.float32(3.0**step))
                for s, n in zip(SHAPES, names, strict=True)
            }
            # One variable's gradient broadcasts (not plain): it takes the op-by-op path.
            grads[names[1]].dispose()
            grads[names[1]] = tf.scalar(0.25 * (step + 1))
            opt.apply_gradients(grads)
            tf.dispose(list(grads.values()))
        out = [x.numpy() for x in xs] + [w["tensor"].numpy() for w in opt.get_weights()[1:]]
        for w in opt.get_weights():
            if w["name"] == "iter":
                w["tensor"].dispose()
        opt.dispose()
        tf.dispose(xs)
    finally:
        tf.set_kernel_fusion(True)
    return out


def test_one_flat_update_for_all_variables_is_bit_identical(monkeypatch):
    """All the variables the fused kernel takes run as one ``TidyAdamUpdate`` per step (one
    flat update over all of them), with the op-by-op update's bits."""
    batches = []
    fused_op = adam_module.adam_update

    def counting(values, *args, **kwargs):
        batches.append(len(values))
        return fused_op(values, *args, **kwargs)

    monkeypatch.setattr(adam_module, "adam_update", counting)
    fused = _run_many(True)
    assert batches == [4, 4, 4, 4]  # one kernel per step, for the four plain variables
    plain = _run_many(False)
    for a, b in zip(fused, plain, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert a.tobytes() == b.tobytes()


def test_flat_kernel_reads_the_parts_it_handed_out_where_they_lie(monkeypatch):
    """Fed its own outputs back (the variables and moments it wrote), the flat kernel reads
    them in its last flat output without concatenating them again; anything else (a part
    replaced, another order) is concatenated; the gradients' products go straight into
    flat arrays. Bits as variable by variable either way."""
    from tidytensor.backends.xp_kernels import optimizers as kernels

    rng = np.random.default_rng(4)
    shapes = [(3, 4), (), (5,)]
    f32 = np.float32
    values, grads, ms, vs = (
        [rng.standard_normal(s).astype(f32) * f32(k) for s in shapes] for k in (1, 1, 0.1, 0.01)
    )
    attrs = {"xp": np, "beta1": 0.9, "beta2": 0.99, "epsilon": 1e-7, "learning_rate": 0.01}
    betas = (f32(0.9), f32(0.99))
    concatenated = []
    concatenate = np.concatenate
    monkeypatch.setattr(
        np,
        "concatenate",
        lambda arrays, *a, **k: concatenated.append(len(arrays)) or concatenate(arrays, *a, **k),
    )
    n = len(shapes)
    one = [list(values), list(ms), list(vs)]
    for step in range(3):
        if step == 2:  # a part replaced: that group is concatenated again
            values[1] = values[1].copy()
            one[0][1] = one[0][1].copy()
        concatenated.clear()
        outs = kernels.adam_update(*values, *grads, *ms, *vs, *betas, count=n, **attrs)
        # Gradients are never concatenated; values and moments only when not the parts.
        assert concatenated == ([n] * 3 if step == 0 else [n] * (1 if step == 2 else 0))
        ms, vs, values = outs[:n], outs[n : 2 * n], outs[2 * n :]
        for i in range(n):  # the reference: one variable at a time
            one[1][i], one[2][i], one[0][i] = kernels.adam_update(
                one[0][i], grads[i], one[1][i], one[2][i], *betas, **attrs
            )
        for got, want in zip((values, ms, vs), one, strict=True):
            for a, b in zip(got, want, strict=True):
                assert a.shape == b.shape and a.tobytes() == b.tobytes()


def test_flat_update_scratch_is_reused_and_dropped_with_the_buffer_pools():
    from tidytensor.backends.xp_kernels import optimizers as kernels

    f32 = np.float32
    arrays = [np.ones(3, f32), np.ones((2, 2), f32)]
    attrs = {"xp": np, "beta1": 0.9, "beta2": 0.99, "epsilon": 1e-7, "learning_rate": 0.01}
    kernels.adam_update(*arrays * 4, f32(0.9), f32(0.99), count=2, **attrs)
    first = kernels._scratch(np, 7)
    assert all(a is b for a, b in zip(first, kernels._scratch(np, 7), strict=True))
    kernels.clear_buffer_pool()
    assert all(a is not b for a, b in zip(first, kernels._scratch(np, 7), strict=True))


def test_flat_update_writes_into_outputs_nothing_holds_any_more():
    """A flat update's outputs go into the arrays of an earlier update once every part of
    them is gone (no record, view or handle left), never into arrays someone still holds:
    the previous update's outputs (this update's inputs), or a part kept elsewhere."""
    from tidytensor.backends.xp_kernels import optimizers as kernels

    kernels.clear_buffer_pool()
    f32 = np.float32
    rng = np.random.default_rng(2)
    shapes = [(4, 3), (5,)]
    values, grads, ms, vs = ([rng.standard_normal(s).astype(f32) for s in shapes] for _ in range(4))
    attrs = {"xp": np, "beta1": 0.9, "beta2": 0.99, "epsilon": 1e-7, "learning_rate": 0.01}
    betas = (f32(0.9), f32(0.99))
    n = len(shapes)
    seen: list[set] = []
    kept = None
    def pooled(a):
        """The pooled array whose memory ``a`` (a part of a lent output) is."""
        return a.base.base.obj  # part -> the lent array -> its memoryview -> the pool's array

    for step in range(6):
        outs = kernels.adam_update(*values, *grads, *ms, *vs, *betas, count=n, **attrs)
        bases = {id(pooled(o)) for o in outs}
        assert not bases & {id(pooled(a)) for a in values + ms + vs if a.base is not None}
        if kept is not None:
            assert kept[0].base is not None and id(pooled(kept[0])) not in bases
            np.testing.assert_array_equal(kept[0], kept[1])  # never written over
        if step == 2:
            kept = (outs[0], outs[0].copy())  # a part someone holds on to
        seen.append(bases)
        ms, vs, values = outs[:n], outs[n : 2 * n], outs[2 * n :]
    pool = {id(e.base) for e in kernels._SCRATCH.kept.outputs}
    assert set().union(*seen) <= pool  # every output written into a pooled array
    # Two steps' worth serve every step, plus the one array the kept part pins.
    assert len(pool) == 7
