"""Scratch arrays of compiled steps (issue 15's buffer plan, ``compiled/scratch.py``): values no
caller sees are written into arrays a replay keeps from call to call (in place over an input
that dies there), counted in the engine's live bytes while they live, freed with the trace,
the model or the function; outputs stay fresh arrays the caller owns; a replay holds no more
at once than the eager call; results are the eager call's bits."""

from __future__ import annotations

import gc
import threading

import numpy as np
import pytest
from predict_models import adam_mlp, weight_bits

import tidytensor as tf
from tidytensor.compiled import scratch
from tidytensor.engine import ENGINE

RNG = np.random.default_rng(151)
X = RNG.normal(size=(64, 784)).astype("float32")
Y = np.eye(10, dtype="float32")[RNG.integers(0, 10, 64)]
ROWS = RNG.normal(size=(3, 784)).astype("float32")

pytestmark = pytest.mark.usefixtures("compiled_functions")


@pytest.fixture(autouse=True)
def _no_limit():
    yield
    tf.config.set_memory_limit(None)
    tf.config.run_functions_eagerly(False)


def mlp(run_eagerly=False):
    return adam_mlp(run_eagerly, None, lambda y, logits: tf.losses.softmax_cross_entropy(y, logits))


def step_function(model, kind):
    return model.model.compiled_steps[kind]


def replays(fn):
    return list(fn._cache._entries.values())


def current():
    return tf.config.get_memory_info()["current"]


bits = weight_bits


def test_a_predict_output_is_not_overwritten_by_the_next_replay(cleanup):
    model = cleanup(mlp())
    eager = cleanup(mlp(run_eagerly=True))
    rows = [tf.tensor(ROWS[i : i + 1]) for i in range(3)]
    expected = [eager.predict(r).data_sync().copy() for r in rows]
    for _ in range(3):
        tf.dispose(model.predict(rows[0]))
    fn = step_function(model, "predict")
    (replay,) = replays(fn)
    assert "out=O" in replay.source and fn.scratch_bytes > 0  # the hidden layer's values
    views = list(replay.scratch.views)
    first = model.predict(rows[1])
    second = model.predict(rows[2])
    assert all(a is b for a, b in zip(replay.scratch.views, views, strict=True))  # reused
    np.testing.assert_array_equal(first.data_sync(), expected[1])
    np.testing.assert_array_equal(second.data_sync(), expected[2])
    for out in (first, second):
        for view in replay.scratch.views:
            assert not np.shares_memory(out.data_id.values, view)
    tf.dispose([first, second, *rows])


def test_outputs_and_weights_of_replayed_steps_never_view_a_scratch_array(cleanup):
    model = cleanup(mlp())
    x, y = tf.tensor(X), tf.tensor(Y)
    for _ in range(3):
        model.train_on_batch(x, y)
    (replay,) = replays(step_function(model, "train"))
    assert replay.scratch.views  # the gradients Adam reads, at least
    kept = [tf.clone(w.read()) for w in model.weights]  # handles on the old buffers
    before = [k.data_sync().copy() for k in kept]
    model.train_on_batch(x, y)
    for k, b in zip(kept, before, strict=True):  # a handle on the old weights keeps them
        np.testing.assert_array_equal(k.data_sync(), b)
    tf.dispose(kept)
    for w in model.weights:
        for view in replay.scratch.views:
            assert not np.shares_memory(w.read().data_id.values, view)
    tf.dispose([x, y])


def test_replayed_steps_with_scratch_give_the_op_by_op_bits(cleanup):
    models = {eager: cleanup(mlp(run_eagerly=eager)) for eager in (True, False)}
    x, y = tf.tensor(X), tf.tensor(Y)
    for _ in range(6):
        losses = {eager: model.train_on_batch(x, y) for eager, model in models.items()}
        assert losses[True] == losses[False]
    assert step_function(models[False], "train").scratch_bytes > 0
    assert bits(models[True]) == bits(models[False])
    tf.dispose([x, y])


def test_elementwise_outputs_are_written_over_an_input_that_dies_there():
    w = tf.variable(tf.tensor1d([0.5, -2.0, 3.0, np.nan], "float32"))

    @tf.function
    def f(x):
        a = tf.mul(x, w)  # dies at the add: the add writes over it
        b = tf.add(a, 1.0)
        return tf.sum(tf.relu(b))

    x = tf.tensor1d([1.0, 2.0, -np.inf, 4.0], "float32")
    tf.config.run_functions_eagerly(True)
    expected = f(x).data_sync().tobytes()
    tf.config.run_functions_eagerly(False)
    tf.dispose(f(x))
    (replay,) = replays(f)
    arrays = replay.scratch.plan.array_of
    assert len(arrays) >= 2 and len(set(arrays.values())) < len(arrays)  # one array, reused
    for _ in range(3):
        out = f(x)
        assert out.data_sync().tobytes() == expected
        out.dispose()
    tf.dispose([x, w])


def test_only_the_largest_candidates_are_weighed_and_results_hold(monkeypatch):
    """A long trace (an unrolled RNN's has thousands of steps) plans its scratch from the
    MAX_CANDIDATES largest candidates only: weighing every one re-planned the whole replay
    per candidate, a trace time quadratic in its steps."""
    w = tf.variable(tf.ones([64], "float32"))
    n = 48  # three times MAX_CANDIDATES

    @tf.function
    def f(x, big):
        for i in range(n):
            x = tf.relu(tf.mul(x, float(i % 3) - 0.5))
        big = tf.add(tf.mul(big, w), 1.0)  # the largest intermediates
        return tf.add(tf.sum(x), tf.sum(big))

    trials = []
    assign = scratch._assign
    monkeypatch.setattr(scratch, "_assign", lambda *a: trials.append(1) or assign(*a))
    x = tf.tensor1d(np.linspace(-1, 1, 4), "float32")
    big = tf.ones([256, 64], "float32")
    tf.config.run_functions_eagerly(True)
    expected = f(x, big).data_sync().tobytes()
    tf.config.run_functions_eagerly(False)
    tf.dispose(f(x, big))
    (replay,) = replays(f)
    arrays = replay.scratch.plan.array_of
    assert 0 < len(arrays) <= scratch.MAX_CANDIDATES
    assert len(trials) == scratch.MAX_CANDIDATES  # one re-plan per candidate weighed
    assert max(replay.scratch.plan.sizes) == 256 * 64 * 4
    out = f(x, big)
    assert out.data_sync().tobytes() == expected
    tf.dispose([out, x, big, w])


def test_scratch_bytes_are_counted_once_and_freed_with_the_model(cleanup):
    model = mlp()
    row = tf.tensor(ROWS[:1])
    tf.dispose(model.predict(row))  # traced: no replay yet
    fn = step_function(model, "predict")
    assert fn.scratch_bytes == 0
    live = current()
    tf.dispose(model.predict(row))  # the first replay allocates the arrays
    held = fn.scratch_bytes
    assert held > 0 and current() == live + held
    assert ENGINE.peak_bytes >= live + held
    counts = tf.memory()
    for _ in range(100):  # later replays reuse them
        tf.dispose(model.predict(row))
    assert current() == live + held and tf.memory() == counts
    weights = sum(w.read().size for w in model.weights) * 4
    model.dispose()
    assert fn.scratch_bytes == 0 and current() == live - weights
    row.dispose()


def test_scratch_is_freed_when_the_trace_leaves_the_cache_or_the_function_goes():
    w = tf.variable(tf.tensor2d(RNG.normal(size=(4, 4)).astype("float32")))
    f = tf.Function(lambda x: tf.sum(tf.relu(tf.add(tf.mat_mul(x, w), 1.0))), max_traces=1)
    x, z = tf.ones([3, 4]), tf.ones([5, 4])
    live = current()
    for _ in range(2):
        tf.dispose(f(x))
    held = f.scratch_bytes
    assert held > 0 and current() == live + held
    tf.dispose([f(z), f(z)])  # another signature: the first trace leaves the cache
    assert current() == live + f.scratch_bytes and f.scratch_bytes > 0
    f.release_scratch()
    assert f.scratch_bytes == 0 and current() == live
    tf.dispose(f(z))  # allocated again on the next replay
    assert current() == live + f.scratch_bytes > live
    del f
    gc.collect()
    assert current() == live
    tf.dispose([x, z, w])


def test_recompiling_a_model_frees_its_steps_scratch(cleanup):
    model = cleanup(mlp())
    x, y = tf.tensor(X[:8]), tf.tensor(Y[:8])
    live = current()
    for _ in range(3):
        model.train_on_batch(x, y)
    fn = step_function(model, "train")
    assert fn.scratch_bytes > 0
    model.compile(optimizer="sgd", loss="meanSquaredError")
    assert fn.scratch_bytes == 0
    del fn
    tf.dispose([x, y])
    assert current() < live + 8 * 1024 * 1024  # only the optimizers' own state is left


def test_a_replay_with_scratch_peaks_no_higher_than_the_eager_step(cleanup):
    model = cleanup(mlp())
    x, y = tf.tensor(X), tf.tensor(Y)
    for _ in range(2):  # traced (Adam's slots made), traced again: no scratch yet
        model.train_on_batch(x, y)
    fn = step_function(model, "train")
    assert fn.scratch_bytes == 0
    peaks = []
    for eager in (True, False):  # the eager step, then the replay that allocates scratch
        tf.config.run_functions_eagerly(eager)
        before = current()
        tf.config.reset_memory_stats()
        model.train_on_batch(x, y)
        peaks.append(tf.config.get_memory_info()["peak"] - before)
    assert fn.scratch_bytes > 0
    assert 0 < peaks[1] <= peaks[0]
    tf.dispose([x, y])


def _squares(x, y):
    """Two squares summed: the first dies before the second is made, so the plain replay
    holds one at a time, the eager call (one ``tidy``) both, the scratch arrays both."""
    return tf.add(tf.sum(tf.mul(x, x)), tf.sum(tf.mul(y, y)))


def test_a_limit_without_room_for_the_scratch_runs_the_plain_replay():
    x = tf.tensor(RNG.normal(size=(64, 256)).astype("float32"))
    y = tf.tensor(RNG.normal(size=(64, 128)).astype("float32"))
    expected = _squares(x, y)
    live = current()
    tf.config.set_memory_limit(live + 64 * 1024 * 1024)
    f = tf.function(_squares)
    tf.dispose(f(x, y))  # traced under a limit (the kernel table a limit uses)
    (replay,) = replays(f)
    scratch = replay.scratch
    assert scratch.nbytes + scratch.fresh_peak > replay.peak  # the arrays take more room
    # Room for the plain replay's buffers, not for them and the scratch arrays.
    tf.config.set_memory_limit(live + (scratch.nbytes + scratch.fresh_peak + replay.peak) // 2)
    out = f(x, y)
    assert f.scratch_bytes == 0 and current() == live + 4
    assert out.data_sync().tobytes() == expected.data_sync().tobytes()
    out.dispose()
    # No room even for the plain replay: the eager call's error, nothing allocated.
    tf.config.set_memory_limit(live + 16)
    with pytest.raises(tf.ResourceExhaustedError):
        f(x, y)
    assert f.scratch_bytes == 0 and current() == live
    tf.config.set_memory_limit(live + 64 * 1024 * 1024)
    out = f(x, y)
    assert f.scratch_bytes == scratch.nbytes > 0 and current() == live + scratch.nbytes + 4
    assert out.data_sync().tobytes() == expected.data_sync().tobytes()
    tf.dispose([out, expected, x, y])


def test_a_replay_running_elsewhere_leaves_the_scratch_alone(cleanup):
    model = cleanup(mlp())
    eager = cleanup(mlp(run_eagerly=True))
    row = tf.tensor(ROWS[:1])
    for _ in range(3):
        tf.dispose(model.predict(row))
    (replay,) = replays(step_function(model, "predict"))
    expected = eager.predict(row).data_sync().copy()
    saved = [v.copy() for v in replay.scratch.views]
    with replay.scratch.lock:  # another thread is writing into the arrays
        out = model.predict(row)
    assert all(np.array_equal(v, s) for v, s in zip(replay.scratch.views, saved, strict=True))
    np.testing.assert_array_equal(out.data_sync(), expected)
    results = []

    def predict():
        for _ in range(50):
            t = model.predict(row)
            results.append(t.data_sync().copy())
            t.dispose()

    threads = [threading.Thread(target=predict) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 150 and all(np.array_equal(r, expected) for r in results)
    tf.dispose([out, row])


def test_a_thousand_replays_with_scratch_leak_nothing(cleanup):
    model = cleanup(mlp())
    x, y = tf.tensor(X[:8]), tf.tensor(Y[:8])
    for _ in range(3):
        model.train_on_batch(x, y)
    fn = step_function(model, "train")
    held, live, counts = fn.scratch_bytes, current(), tf.memory()
    for _ in range(1000):
        model.train_on_batch(x, y)
    assert (fn.scratch_bytes, current(), tf.memory()) == (held, live, counts)
    tf.dispose([x, y])


def test_an_armed_memory_alert_below_the_scratch_keeps_the_plain_replay():
    x = tf.tensor(RNG.normal(size=(64, 256)).astype("float32"))
    y = tf.tensor(RNG.normal(size=(64, 128)).astype("float32"))
    f = tf.function(_squares)
    tf.dispose(f(x, y))  # traced
    live, alerts = current(), []
    tf.config.set_memory_alert(live + 64, alerts.append)  # the output fits, the arrays not
    try:
        out = f(x, y)
        assert f.scratch_bytes == 0 and current() == live + 4 and not alerts
        out.dispose()
    finally:
        tf.config.set_memory_alert(None)
    tf.dispose(f(x, y))
    assert f.scratch_bytes > 0
    tf.dispose([x, y])


def test_a_value_a_kernel_may_return_a_view_of_never_gets_a_scratch_array():
    @tf.function
    def f(x):
        hidden = tf.relu(tf.add(x, 1.0))  # an add and a relu that have out forms ...
        return tf.slice(hidden, [1], [2])  # ... and a slice, whose output may view them

    xs = [tf.tensor1d([1.0, 2.0, 3.0, 4.0]), tf.tensor1d([-5.0, 6.0, -7.0, 8.0])]
    tf.dispose(f(xs[0]))
    first = f(xs[0])
    second = f(xs[1])
    assert first.array_sync() == [3.0, 4.0] and second.array_sync() == [7.0, 0.0]
    (replay,) = replays(f)
    (relu,) = [line for line in replay.source.splitlines() if line.endswith("# Relu")]
    assert "out=" not in relu  # the slice may return a view of it: a new array each call
    assert "out=O" in replay.source  # the add's value, which only the relu reads
    for out in (first, second):
        for view in replay.scratch.views:
            assert not np.shares_memory(out.data_id.values, view)
    tf.dispose([first, second, *xs])
