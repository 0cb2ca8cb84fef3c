"""tf.function (tidytensor.compiled): trace once per signature, replay after; each bullet of
API.md §4 "Compiled steps" with a test."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tidytensor as tf
from tidytensor.compiled import VariableCreationError
from tidytensor.engine import ENGINE


@pytest.fixture(autouse=True)
def _compiled_mode():
    """These tests are about replays (even under TIDYTENSOR_RUN_EAGERLY=1); the eager
    reference calls set run_functions_eagerly(True) themselves."""
    tf.config.run_functions_eagerly(False)
    yield


def _mlp_step(seed=0):
    """A training step as users write one: forward, loss, optimizer.minimize."""
    rng = np.random.default_rng(seed)
    w1 = tf.variable(tf.tensor(rng.standard_normal((6, 5)).astype("float32")), name=None)
    b1 = tf.variable(tf.zeros([5]))
    w2 = tf.variable(tf.tensor(rng.standard_normal((5, 3)).astype("float32")))
    opt = tf.train.adam(0.01)

    def step(x, y):
        def loss():
            h = tf.relu(tf.add(tf.mat_mul(x, w1), b1))
            return tf.losses.softmax_cross_entropy(y, tf.mat_mul(h, w2))

        return opt.minimize(loss, True, [w1, b1, w2])

    return step, [w1, b1, w2], opt


def _batch(seed=1, n=4):
    rng = np.random.default_rng(seed)
    x = tf.tensor(rng.standard_normal((n, 6)).astype("float32"))
    y = tf.one_hot(tf.tensor1d(rng.integers(0, 3, n), "int32"), 3).cast("float32")
    return x, y


def _values(ts):
    return [t.data_sync().copy() for t in ts]


def _dispose_all(*things):
    for thing in things:
        tf.dispose(thing)


# ---------------------------------------------------------------------- tracing
def test_traces_once_per_signature_and_side_effects_run_only_while_tracing():
    calls = []

    @tf.function
    def f(x, scale):
        calls.append(scale)
        return tf.mul(x, scale)

    x = tf.tensor1d([1, 2, 3])
    outs = [f(x, 2.0) for _ in range(3)]
    assert calls == [2.0] and f.tracing_count == 1
    outs.append(f(x, 3.0))  # a new Python value: a new signature
    assert calls == [2.0, 3.0] and f.tracing_count == 2
    outs.append(f(tf.tensor1d([1, 2]), 3.0))  # a new shape
    outs.append(f(tf.tensor1d([1, 2], "int32"), 3.0))  # a new dtype
    assert f.tracing_count == 4
    assert outs[3].array_sync() == [3, 6, 9]
    assert outs[5].dtype == "float32" and outs[5].array_sync() == [3, 6]
    _dispose_all(outs, x)


def test_replays_straight_line_code_and_frees_each_value_after_its_last_use():
    w = tf.variable(tf.tensor2d([[1, 2], [3, 4]]))

    @tf.function
    def f(x):
        return tf.relu(tf.add(tf.mat_mul(x, w), 1))

    x = tf.tensor2d([[1, -2], [0.5, 1]])
    tf.dispose(f(x))
    source = f.replay_source(x)
    assert "del" in source and source.startswith("def replay(")
    assert "tidy" not in source and "_make_tensor" not in source
    _dispose_all(w, x)


def test_cache_is_lru_capped_and_excessive_retracing_warns_once():
    f = tf.Function(lambda x, k: tf.add(x, k), name="adder", max_traces=3)
    x = tf.scalar(1)
    with pytest.warns(RuntimeWarning, match=r"5 out of the last \d+ calls to tf.function 'adder'"):
        for k in range(6):
            tf.dispose(f(x, float(k)))
    assert len(f._cache) == 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once only
        for k in range(6, 12):
            tf.dispose(f(x, float(k)))
    tf.dispose(f(x, 11.0))
    assert f.tracing_count == 12  # 11.0 was still cached; 0.0 is not any more
    tf.dispose(f(x, 0.0))
    assert f.tracing_count == 13
    x.dispose()


def test_decorator_arguments_and_methods():
    class Scaler:
        def __init__(self, k):
            self.k = k

        @tf.function(reduce_retracing=True, jit_compile=True)
        def __call__(self, x):
            return tf.mul(x, self.k)

    a, b = Scaler(2.0), Scaler(3.0)
    x = tf.tensor1d([1, 2])
    ra, rb = a(x), b(x)
    assert ra.array_sync() == [2, 4] and rb.array_sync() == [3, 6]
    _dispose_all(ra, rb, x)


# ---------------------------------------------------------------------- results
def test_training_step_replay_is_bit_identical_to_eager():
    results = {}
    for eager in (True, False):
        tf.config.run_functions_eagerly(eager)
        step, variables, opt = _mlp_step()
        f = tf.function(step)
        x, y = _batch()
        losses = []
        for _ in range(6):
            loss = f(x, y)
            losses.append(loss.data_sync().copy())
            loss.dispose()
        results[eager] = (losses, _values(variables), opt._iterations)
        assert f.tracing_count == (0 if eager else 2)  # the first trace made Adam's slots
        _dispose_all(variables, x, y)
        opt.dispose()
    eager, compiled = results[True], results[False]
    assert all(np.array_equal(a, b) for a, b in zip(eager[0], compiled[0], strict=True))
    assert all(np.array_equal(a, b) for a, b in zip(eager[1], compiled[1], strict=True))
    assert eager[2] == compiled[2] == 6  # the optimizer's commit action ran on every replay


def test_memory_after_a_call_equals_the_eager_calls_and_outputs_are_fresh():
    w = tf.variable(tf.tensor1d([1, 2, 3]))

    def body(x):
        y = tf.mul(x, w)
        w.assign(tf.add(w, 1))
        return [y, tf.reshape(y, [3, 1]), tf.reshape(x, [1, 3]), x]

    f = tf.function(body)
    x = tf.tensor1d([4, 5, 6])
    tf.dispose(f(x)[:3])
    counts = []
    for eager in (True, False):
        tf.config.run_functions_eagerly(eager)
        before = tf.memory()
        out = f(x)
        after = tf.memory()
        counts.append(
            (
                after.num_tensors - before.num_tensors,
                after.num_bytes - before.num_bytes,
                after.num_data_buffers - before.num_data_buffers,
            )
        )
        assert out[3] is x  # an argument returned is the argument, as eagerly
        tf.dispose(out[:3])
    assert counts[0] == counts[1]
    first, second = f(x), f(x)
    assert first[0] is not second[0] and first[0].data_id is not second[0].data_id
    first[0].dispose()  # the caller owns each output: disposing one leaves the others
    assert second[0].array_sync() == second[1].reshape([3]).array_sync()
    _dispose_all(first[:3], second[:3], w, x)


def test_a_thousand_replays_leak_nothing():
    step, variables, opt = _mlp_step()
    f = tf.function(step)
    x, y = _batch()
    for _ in range(3):
        f(x, y).dispose()
    before = tf.memory()
    for _ in range(1000):
        f(x, y).dispose()
    after = tf.memory()
    assert (after.num_tensors, after.num_bytes, after.num_data_buffers) == (
        before.num_tensors,
        before.num_bytes,
        before.num_data_buffers,
    )
    assert ENGINE.backend.num_data_ids() == before.num_data_buffers
    _dispose_all(variables, x, y)
    opt.dispose()


# ---------------------------------------------------------------------- variables
def test_variables_are_read_and_updated_in_place_every_call():
    v = tf.variable(tf.scalar(0))

    @tf.function
    def bump(k):
        v.assign(tf.add(v, k))
        return tf.mul(v, 2)

    k = tf.scalar(1)
    outs = [bump(k) for _ in range(4)]
    assert v.data_sync()[0] == 4
    assert [o.data_sync()[0] for o in outs] == [2, 4, 6, 8]
    v.assign(tf.scalar(10))  # a write outside is seen by the next replay
    outs.append(bump(k))
    assert outs[-1].data_sync()[0] == 22
    _dispose_all(outs, v, k)


def test_a_variable_made_on_a_later_call_raises_clearly():
    made = []

    @tf.function
    def f(x):
        made.append(tf.variable(x))  # a new variable on every call
        return tf.add(made[-1], 1)

    x = tf.scalar(1)
    tf.dispose(f(x))  # the first call may make variables
    with pytest.raises(
        VariableCreationError, match="tried to create the variable .* after its first"
    ):
        f(x)
    _dispose_all(made, x)


def test_a_variable_made_once_on_the_first_call_is_then_replayed():
    box = {}

    @tf.function
    def f(x):
        if "v" not in box:
            box["v"] = tf.variable(tf.zeros([2]))
        box["v"].assign(tf.add(box["v"], x))
        return tf.clone(box["v"])

    x = tf.tensor1d([1, 2])
    outs = [f(x) for _ in range(4)]
    assert outs[-1].array_sync() == [4, 8] and f.tracing_count == 2
    _dispose_all(outs, box["v"], x)


# ---------------------------------------------------------------------- randomness
def test_unseeded_random_ops_draw_fresh_values_every_replay():
    @tf.function
    def noisy(x):
        return tf.add(x, tf.random_normal([50]))

    x = tf.zeros([50])
    a, b, c = noisy(x), noisy(x), noisy(x)
    assert noisy.tracing_count == 1
    assert not np.array_equal(b.data_sync(), c.data_sync())
    assert not np.array_equal(a.data_sync(), b.data_sync())
    _dispose_all(a, b, c, x)


def test_seeded_random_ops_and_dropout_replay_as_eagerly():
    def body(x):
        return [tf.random_uniform([8], 0, 1, "float32", 7), tf.dropout(x, 0.5, seed=3)]

    x = tf.ones([20])
    eager = [body(x) for _ in range(3)]
    f = tf.function(body)
    compiled = [f(x) for _ in range(3)]
    for e, c in zip(eager, compiled, strict=True):
        assert np.array_equal(e[0].data_sync(), c[0].data_sync())
        assert np.array_equal(e[1].data_sync(), c[1].data_sync())
    _dispose_all(eager, compiled, x)


def test_unseeded_dropout_is_never_frozen():
    f = tf.function(lambda x: tf.dropout(x, 0.5))
    x = tf.ones([200])
    masks = [f(x) for _ in range(4)]
    values = [m.data_sync() for m in masks]
    assert not np.array_equal(values[1], values[2]) and not np.array_equal(values[2], values[3])
    _dispose_all(masks, x)


# ---------------------------------------------------------------------- reads back
def test_a_value_read_back_to_python_runs_that_signature_eagerly_never_stale():
    @tf.function
    def f(x):
        if float(tf.sum(x)) > 0:  # a Python `if` on a tensor's value
            return tf.mul(x, 2)
        return tf.mul(x, -1)

    pos, neg = tf.tensor1d([1, 2]), tf.tensor1d([-1, -2])
    with pytest.warns(
        RuntimeWarning, match=r"runs eagerly .*'__float__' read .*test_compiled_function.py:\d+"
    ):
        a = f(pos)
    b, c = f(neg), f(pos)
    assert a.array_sync() == [2, 4] and b.array_sync() == [1, 2] and c.array_sync() == [2, 4]
    for read in (lambda t: t.data_sync(), lambda t: t.array_sync(), bool):

        def g(x, read=read):
            read(tf.sum(x))
            return tf.neg(x)

        with pytest.warns(RuntimeWarning, match="runs eagerly"):
            tf.dispose(tf.function(g)(pos))
    _dispose_all(a, b, c, pos, neg)


# ---------------------------------------------------------------------- memory
def test_peak_memory_of_a_replay_is_at_most_the_eager_steps():
    step, variables, opt = _mlp_step()
    f = tf.function(step)
    x, y = _batch(n=64)
    for _ in range(2):
        f(x, y).dispose()
    peaks = []
    for eager in (True, False):
        tf.config.run_functions_eagerly(eager)
        ENGINE.reset_memory_stats()
        f(x, y).dispose()
        peaks.append(ENGINE.peak_bytes - ENGINE.state.buffer_bytes)
    assert 0 < peaks[1] <= peaks[0]
    _dispose_all(variables, x, y)
    opt.dispose()


def test_memory_limit_sees_the_replay_and_refuses_with_the_eager_error():
    step, variables, opt = _mlp_step()
    f = tf.function(step)
    x, y = _batch(n=64)
    for _ in range(2):
        f(x, y).dispose()
    before = _values(variables)
    tf.config.set_memory_limit(tf.memory().num_bytes + 64)
    try:
        with pytest.raises(tf.ResourceExhaustedError) as compiled_error:
            f(x, y)
        assert all(np.array_equal(a, b) for a, b in zip(before, _values(variables), strict=True))
        tf.config.run_functions_eagerly(True)
        with pytest.raises(tf.ResourceExhaustedError) as eager_error:
            f(x, y)
    finally:
        tf.config.set_memory_limit(None)
    assert str(compiled_error.value) == str(eager_error.value)
    _dispose_all(variables, x, y)
    opt.dispose()


# ---------------------------------------------------------------------- failures
def test_bad_input_raises_the_eager_error_and_changes_nothing():
    step, variables, opt = _mlp_step()
    f = tf.function(step)
    x, y = _batch()
    for _ in range(2):
        f(x, y).dispose()
    bad = tf.ones([4, 7])
    before, counts = _values(variables), tf.memory()
    with pytest.raises(Exception) as compiled_error:
        f(bad, y)
    assert all(np.array_equal(a, b) for a, b in zip(before, _values(variables), strict=True))
    assert tf.memory().num_tensors == counts.num_tensors
    tf.config.run_functions_eagerly(True)
    with pytest.raises(Exception) as eager_error:
        f(bad, y)
    assert type(compiled_error.value) is type(eager_error.value)
    assert str(compiled_error.value) == str(eager_error.value)
    _dispose_all(variables, x, y, bad)
    opt.dispose()


def test_an_exception_inside_a_replay_leaves_weights_and_optimizer_state_as_before():
    step, variables, opt = _mlp_step()
    f = tf.function(step)
    x, y = _batch()
    for _ in range(2):
        f(x, y).dispose()
    (replay,) = [e for e in f._cache._entries.values()]
    compute = replay.compute

    def interrupted(*arrays):
        compute(*arrays)  # every kernel ran ...
        raise KeyboardInterrupt  # ... and Ctrl-C arrives before the commit

    replay.compute = interrupted
    state = _values(variables) + _values([s.variable for s in opt.accumulated_first_moment])
    counts, iterations = tf.memory(), opt._iterations
    with pytest.raises(KeyboardInterrupt):
        f(x, y)
    assert opt._iterations == iterations
    after = _values(variables) + _values([s.variable for s in opt.accumulated_first_moment])
    assert all(np.array_equal(a, b) for a, b in zip(state, after, strict=True))
    assert (tf.memory().num_tensors, tf.memory().num_bytes) == (
        counts.num_tensors,
        counts.num_bytes,
    )
    replay.compute = compute
    f(x, y).dispose()
    assert opt._iterations == iterations + 1
    _dispose_all(variables, x, y)
    opt.dispose()


# ---------------------------------------------------------------------- eager contexts
def test_profile_and_tapes_run_everything_eagerly():
    f = tf.function(lambda x: tf.exp(tf.mul(x, 2)))
    x = tf.tensor1d([1, 2])
    tf.dispose(f(x))
    info = tf.profile(lambda: f(x))
    assert [k.name for k in info.kernels] == ["Multiply", "Exp"]
    assert f.tracing_count == 1
    g = tf.grad(lambda v: f(v))(x)  # the outer tape sees the function's kernels
    assert np.allclose(g.data_sync(), 2 * np.exp(2 * np.array([1, 2])))
    _dispose_all(g, info.result, x)


def test_run_functions_eagerly_turns_replay_off_everywhere():
    calls = []

    @tf.function
    def f(x):
        calls.append(1)
        return tf.neg(x)

    x = tf.scalar(1)
    tf.config.run_functions_eagerly(True)
    assert tf.config.functions_run_eagerly()
    for _ in range(3):
        tf.dispose(f(x))
    assert len(calls) == 3 and f.tracing_count == 0
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.config.run_functions_eagerly("yes")
    x.dispose()


def test_kernels_of_a_custom_grad_forward_function_are_replayed_not_frozen():
    square = tf.custom_grad(
        lambda x: {"value": tf.square(x), "grad_func": lambda dy: tf.mul(dy, 2)}
    )
    f = tf.function(lambda x: tf.add(square(x), 1))
    a, b = tf.tensor1d([1, 2]), tf.tensor1d([3, 4])
    ra, rb = f(a), f(b)
    assert f.tracing_count == 1 and rb.array_sync() == [10, 17]
    _dispose_all(ra, rb, a, b)


def test_a_tensor_made_outside_any_kernel_is_never_frozen():
    f = tf.function(lambda x: tf.add(x, tf.tensor1d([1, 2])))  # a constant: frozen, as in TF 2
    x = tf.tensor1d([0, 0])
    outs = [f(x), f(x)]
    assert outs[1].array_sync() == [1, 2] and "C" in f.replay_source(x)
    _dispose_all(outs, x)


# ---------------------------------------------------------------------- tf.keep
def test_a_kept_tensor_that_escapes_runs_that_signature_eagerly_each_call_its_own():
    kept = []

    @tf.function
    def f(x):
        y = tf.mul(x, 2)
        kept.append(tf.keep(tf.add(y, 1)))  # leaves the call through the list
        return y

    with pytest.warns(RuntimeWarning, match=r"tf\.keep at .*test_compiled_function\.py:\d+"):
        outs = [f(tf.tensor1d([float(i), 1.0])) for i in range(3)]
    assert f.tracing_count == 1
    assert [k.array_sync() for k in kept] == [[1.0, 3.0], [3.0, 3.0], [5.0, 3.0]]
    assert [o.array_sync() for o in outs] == [[0.0, 2.0], [2.0, 2.0], [4.0, 2.0]]
    assert "tf.function 'f'" in str(f._warned)
    _dispose_all(kept, outs)


def test_a_kept_tensor_that_is_returned_or_disposed_still_replays():
    @tf.function
    def returned(x):
        return tf.keep(tf.mul(x, 3))

    @tf.function
    def disposed(x):
        t = tf.keep(tf.add(x, 1))
        y = tf.mul(t, 2)
        t.dispose()
        return y

    x = tf.tensor1d([1.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3):
            a, b = returned(x), disposed(x)
            assert (a.array_sync(), b.array_sync()) == ([3.0, 6.0], [4.0, 6.0])
            _dispose_all(a, b)
    for fn in (returned, disposed):
        assert fn.replay_source(x) is not None  # a replay, not the eager route
    x.dispose()


# ---------------------------------------------------------------------- the quick key
def test_plain_tensor_calls_replay_by_shape_and_dtype_without_the_whole_signature(monkeypatch):
    import importlib

    function_module = importlib.import_module("tidytensor.compiled.function")
    w = tf.variable(tf.tensor2d([[1.0, 2.0], [3.0, 4.0]]))
    f = tf.function(lambda x: tf.relu(tf.mat_mul(x, w)))
    x = tf.tensor2d([[1.0, -1.0]])
    for _ in range(2):  # traced, then replayed the long way (which remembers the quick key)
        tf.dispose(f(x))
    calls = []
    signature = function_module._signature
    monkeypatch.setattr(function_module, "_signature", lambda *a: calls.append(1) or signature(*a))
    out = f(tf.tensor2d([[1.0, -1.0]]))
    assert out.array_sync() == [[0.0, 0.0]] and calls == []
    w.assign(tf.tensor2d([[2.0, 0.0], [0.0, 1.0]]))  # variables are read on every replay
    out2 = f(x)
    assert out2.array_sync() == [[2.0, 0.0]] and calls == []
    y = tf.tensor2d([[1.0, 1.0], [2.0, 2.0]])  # a new shape: the whole signature, a trace
    tf.dispose(f(y))
    assert calls and f.tracing_count == 2
    _dispose_all(out, out2, x, y, w)


def test_the_quick_key_never_outlives_its_trace_nor_hides_shared_buffers():
    """(And quick calls keep their trace the most recently used: see the next test.)"""
    f = tf.function(lambda a, b: tf.add(a, b))
    f._cache.max_traces = 1
    a, b = tf.tensor1d([1.0, 2.0]), tf.tensor1d([3.0, 4.0])
    for _ in range(2):
        tf.dispose(f(a, b))
    assert len(f._quick) == 1
    c = tf.tensor1d([1.0, 2.0, 3.0])
    tf.dispose(f(c, c))  # evicts the first trace (max_traces 1); shared buffers: no quick key
    assert not f._quick  # the evicted trace's quick key went with it
    out = f(a, b)  # the long way traces again
    assert out.array_sync() == [4.0, 6.0] and f.tracing_count == 3
    _dispose_all(out, a, b, c)


def test_quick_calls_count_as_uses_of_their_trace_for_the_lru_cache():
    f = tf.function(lambda a: tf.mul(a, 2))
    f._cache.max_traces = 2
    one, two, three = tf.tensor1d([1.0]), tf.tensor1d([1.0, 2.0]), tf.tensor1d([1.0, 2.0, 3.0])
    for t in (one, one, two, two):  # both traced and replayed (quick keys remembered)
        tf.dispose(f(t))
    tf.dispose(f(one))  # a quick call: 'one' is now more recent than 'two'
    tf.dispose(f(three))  # evicts the least recently used trace: 'two'
    count = f.tracing_count
    tf.dispose(f(one))
    assert f.tracing_count == count  # still cached
    tf.dispose(f(two))
    assert f.tracing_count == count + 1
    _dispose_all(one, two, three)


def test_the_same_generated_source_is_compiled_once_and_named_for_each_function():
    from tidytensor.compiled import codegen

    def body(x):
        return tf.relu(tf.add(tf.mul(x, 2), 1))

    first, second = tf.Function(body, name="first"), tf.Function(body, name="second")
    x = tf.tensor1d([1, -2, 3])
    tf.dispose(first(x))
    before = codegen._compiled.cache_info()
    tf.dispose(second(x))
    after = codegen._compiled.cache_info()
    assert first.replay_source(x) == second.replay_source(x)
    assert after.hits >= before.hits + 2 and after.misses == before.misses  # replay and bind

    code = codegen.compile_source("def f():\n    return 1\n", "<tf.function g replay>")
    inner = next(c for c in code.co_consts if hasattr(c, "co_filename"))
    assert code.co_filename == inner.co_filename == "<tf.function g replay>"
    _dispose_all(x)
