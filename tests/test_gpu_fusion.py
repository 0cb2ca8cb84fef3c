"""Fused elementwise chains in compiled replays (``compiled/fusion.py``): on the ``'cupy'``
backend (the NumPy stand-in, whose ``fuse`` records each fused function it runs) a replay
runs each run of float32 elementwise kernels as one fused function, with the eager call's
values; other backends, integer chains and single ops replay kernel by kernel."""

from __future__ import annotations

import numpy as np

import fake_cupy
import tidytensor as tf
from test_gpu_backend import fake_gpu  # noqa: F401  (the fixture)
from test_gpu_kernels import needs_stand_in
from tidytensor.backends.xp_kernels import arithmetic
from tidytensor.compiled import fusion


def _chain(x, b):
    y = tf.add(tf.mul(x, 2.0), b)
    z = tf.sigmoid(tf.relu(y))
    total = tf.sum(y)  # y is read after the run: the fused kernel returns it too
    w = tf.tanh(tf.sub(z, 0.5))
    return w, total


def _inputs():
    rng = np.random.default_rng(3)
    return (
        tf.tensor(rng.standard_normal((3, 4)).astype(np.float32)),
        tf.tensor(rng.standard_normal(4).astype(np.float32)),
    )


def _replayed(fn, x, b):
    """The traced (eager) call's values and the replayed call's."""
    f = tf.function(fn)
    first = f(x, b)
    fake_cupy.FUSED_CALLS.clear()
    second = f(x, b)
    values = [[t.array_sync() for t in outs] for outs in (first, second)]
    source = f.replay_source(x, b)
    tf.dispose([first, second])
    return values, source


@needs_stand_in
def test_replay_fuses_elementwise_runs_on_the_gpu_backend(fake_gpu):  # noqa: F811
    tf.set_backend("cupy")
    x, b = _inputs()
    (eager, replay), source = _replayed(_chain, x, b)
    assert fake_cupy.FUSED_CALLS == ["fused_Multiply_Add_Relu_Sigmoid", "fused_Sub_Tanh"]
    assert "Multiply+Add+Relu+Sigmoid" in source and "Sub+Tanh" in source
    for got, want in zip(replay, eager, strict=True):
        np.testing.assert_array_equal(got, want)
    tf.dispose([x, b])
    tf.set_backend("cpu")
    x, b = _inputs()
    (on_cpu, cpu_replay), cpu_source = _replayed(_chain, x, b)
    assert "+" not in cpu_source  # no fusion on the CPU backend
    for got, want in zip(replay, on_cpu, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    tf.dispose([x, b])


@needs_stand_in
def test_integer_chains_and_single_ops_replay_kernel_by_kernel(fake_gpu):  # noqa: F811
    tf.set_backend("cupy")
    i = tf.tensor([[1, -2], [3, 4]], dtype="int32")
    x = tf.tensor([1.0, -2.0])

    def fn(i, x):
        return tf.relu(tf.add(i, i)), tf.exp(x)

    (eager, replay), source = _replayed(fn, i, x)
    assert fake_cupy.FUSED_CALLS == [] and "+" not in source
    for got, want in zip(replay, eager, strict=True):
        np.testing.assert_array_equal(got, want)
    tf.dispose([i, x])


def test_fusible_kernels_are_the_float32_branches_of_their_kernels():
    """Each expression gives its kernel's float32 values, specials included."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((4, 5)).astype(np.float32) * 4
    a.flat[:4] = [np.nan, np.inf, -np.inf, -0.0]
    b = rng.standard_normal(5).astype(np.float32)
    for fn, expression in fusion.FUSIBLE.items():
        args = (a, b) if fn.__module__ == arithmetic.__name__ else (a,)
        with np.errstate(all="ignore"):
            want = fn(*args, xp=np)
            got = expression(np, *args)
        assert got.dtype == np.float32, fn.__name__
        np.testing.assert_array_equal(got, want, err_msg=fn.__name__)
