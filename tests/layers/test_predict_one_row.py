"""A compiled ``predict`` of one row through a 784-128-10 MLP (issue 15's speed target) keeps
every semantic of the eager call: the same bits, the same memory counts, the same errors, a
fresh output the caller owns with the caller's line as its creation site, and nothing leaked
over 1,000 calls. Also the replay's generated code that the short way runs: the bound arrays
(``bind``) and kernels called with their attributes as keywords."""

from __future__ import annotations

import re
import sys
from types import SimpleNamespace

import numpy as np
import pytest
from predict_models import seeded, values

import tidytensor as tf
import tidytensor.layers as L
from tidytensor.compiled.replay import _emit
from tidytensor.compiled.tracing import Step
from tidytensor.sites import line_of

RNG = np.random.default_rng(15)
ROWS = RNG.normal(size=(40, 784)).astype("float32")

#: Compiled steps on (another test may have left functions running eagerly).
pytestmark = pytest.mark.usefixtures("compiled_functions")


def mlp(run_eagerly=False, functional=False):
    """784 -> 128 relu -> 10, the same weights for every model made."""
    if functional:
        inp = L.input(shape=[784])
        out = L.dense(units=10).apply(L.dense(units=128, activation="relu").apply(inp))
        model = L.models.model(inputs=inp, outputs=out)
    else:
        model = L.models.sequential()
        model.add(L.dense(units=128, input_shape=[784], activation="relu"))
        model.add(L.dense(units=10))
    return seeded(model, run_eagerly, scale=0.1)


@pytest.mark.parametrize("functional", [False, True])
@pytest.mark.parametrize("rows", [1, 4, 40])  # 40: two batches of predict's 32
@pytest.mark.parametrize("method", ["predict", "predict_on_batch"])
def test_compiled_predict_equals_the_eager_call_bit_for_bit(cleanup, method, rows, functional):
    model = cleanup(mlp(functional=functional))
    eager = cleanup(mlp(run_eagerly=True, functional=functional))
    x = tf.tensor(ROWS[:rows])
    expected = values(getattr(eager, method)(x))
    # NumPy's float32 arithmetic in TF.js's order: matMul, add, relu, matMul, add.
    w1, b1, w2, b2 = (w.read().data_sync().reshape(w.shape) for w in model.weights)
    h = np.maximum(np.dot(ROWS[:rows], w1) + b1, np.float32(0))
    np.testing.assert_allclose(expected, (np.dot(h, w2) + b2).ravel(), rtol=1e-5, atol=1e-5)
    for _ in range(4):  # traced, replayed the whole way, then the short way twice
        got = values(getattr(model, method)(x))
        np.testing.assert_array_equal(got, expected)
        assert got.dtype == np.float32
    x.dispose()


@pytest.mark.parametrize("method", ["predict", "predict_on_batch"])
def test_one_row_takes_the_short_way_with_the_eager_calls_memory_counts(cleanup, calls, method):
    model = cleanup(mlp())
    eager = cleanup(mlp(run_eagerly=True))
    row = tf.tensor(ROWS[:1])
    for _ in range(2):
        tf.dispose(getattr(model, method)(row))
    left = []
    for m in (eager, model):
        before = tf.memory()
        n = calls[0]
        out = getattr(m, method)(row)
        after = tf.memory()
        left.append(
            (
                after.num_tensors - before.num_tensors,
                after.num_bytes - before.num_bytes,
                after.num_data_buffers - before.num_data_buffers,
            )
        )
        assert out is not row and out.shape == [1, 10] and not out.is_disposed
        if m is model:
            assert calls[0] == n  # the short way: no tf.function call
        out.dispose()
        assert tf.memory().num_tensors == before.num_tensors
    assert left[0] == left[1] == (1, 40, 1)


def test_each_call_gives_a_fresh_output_the_caller_owns(cleanup):
    model = cleanup(mlp())
    row = tf.tensor(ROWS[:1])
    outs = [model.predict(row) for _ in range(4)]
    assert len({id(t.data_id) for t in outs}) == 4  # a buffer of its own each
    keep = outs[-1].data_sync().copy()
    tf.dispose(outs[:-1])
    np.testing.assert_array_equal(outs[-1].data_sync(), keep)
    inner = tf.tidy(lambda: tf.keep(model.predict(row)))  # kept: leaves the tidy alive
    np.testing.assert_array_equal(values(inner), keep)
    tf.dispose([outs[-1], row])


@pytest.mark.parametrize("method", ["predict", "predict_on_batch"])
def test_the_output_is_noted_as_made_on_the_callers_line(cleanup, method):
    model = cleanup(mlp())
    row = tf.tensor(ROWS[:1])
    for _ in range(2):
        tf.dispose(getattr(model, method)(row))
    out = getattr(model, method)(row)
    line = sys._getframe().f_lineno - 1
    code, _offset = out._site
    assert code is sys._getframe().f_code and line_of(out._site) == line
    tf.dispose([out, row])


@pytest.mark.parametrize(
    ("bad", "dtype"),
    [((1, 783), "float32"), ((1, 784, 1), "float32"), ((784,), "float32"), ((1, 784), "int32")],
)
def test_bad_input_gives_the_eager_calls_error_and_changes_nothing(cleanup, bad, dtype):
    model = cleanup(mlp())
    eager = cleanup(mlp(run_eagerly=True))
    row = tf.tensor(ROWS[:1])
    for _ in range(3):  # the short way remembers the good row
        tf.dispose(model.predict(row))
    wrong = tf.tensor(np.ones(bad, dtype=dtype))
    messages = []
    for m in (eager, model):
        before = tf.memory()
        try:
            tf.dispose(m.predict(wrong))
            messages.append(None)
        except Exception as error:  # noqa: BLE001 - compared below, type and text
            # the layers' names differ only by their counter (dense_Dense3 / dense_Dense1)
            messages.append((type(error), re.sub(r"_Dense\d+", "_Dense", str(error))))
        after = tf.memory()
        assert (after.num_tensors, after.num_bytes) == (before.num_tensors, before.num_bytes)
    assert messages[0] == messages[1]
    if dtype == "float32":
        assert messages[0] is not None and "shape" in messages[0][1]
    np.testing.assert_array_equal(values(model.predict(row)), values(eager.predict(row)))
    tf.dispose([row, wrong])


def test_a_thousand_short_way_calls_leak_nothing(cleanup, calls):
    model = cleanup(mlp())
    row = tf.tensor(ROWS[:1])
    for _ in range(3):
        tf.dispose(model.predict(row))
    expected = values(model.predict(row))
    before = tf.memory()
    n = calls[0]
    for _ in range(1000):
        model.predict(row).dispose()
    after = tf.memory()
    assert calls[0] == n
    assert (after.num_tensors, after.num_bytes, after.num_data_buffers) == (
        before.num_tensors,
        before.num_bytes,
        before.num_data_buffers,
    )
    np.testing.assert_array_equal(values(model.predict(row)), expected)
    row.dispose()


def test_bind_views_an_argument_whose_buffer_has_another_shape(cleanup):
    """An argument that is a reshape of another tensor shares its buffer with another shape:
    the replay's ``bind`` views it with the argument's shape, as ``backend.array`` does."""
    w = tf.variable(tf.tensor2d([[1.5, -2.0], [0.25, 4.0]]))
    f = tf.function(lambda x: tf.relu(tf.mat_mul(x, w)))
    base = tf.tensor([1.0, -2.0, 0.5, 3.0])
    x = tf.reshape(base, [2, 2])
    eager = values(tf.relu(tf.mat_mul(x, w)))
    for _ in range(3):
        np.testing.assert_array_equal(values(f(x)), eager)
    tf.dispose([x, base, w])


def test_a_disposed_variable_refuses_the_replay_before_any_kernel_runs(cleanup):
    w = tf.variable(tf.tensor2d([[1.0, 2.0], [3.0, 4.0]]))
    f = tf.function(lambda x: tf.mat_mul(x, w))
    x = tf.tensor2d([[1.0, 0.0], [0.0, 1.0]])
    for _ in range(2):
        tf.dispose(f(x))
    w.dispose()
    with pytest.raises(Exception, match="disposed"):
        f(x)
    x.dispose()


def test_replayed_kernels_take_their_attributes_as_keywords(cleanup):
    w = tf.variable(tf.tensor2d([[1.0, 2.0], [3.0, 4.0]]))
    f = tf.function(lambda x: tf.mat_mul(x, w, True, False))
    x = tf.tensor2d([[1.0, 2.0], [5.0, -1.0]])
    np.testing.assert_array_equal(values(f(x)), values(tf.mat_mul(x, w, True, False)))
    np.testing.assert_array_equal(values(f(x)), values(tf.mat_mul(x, w, True, False)))
    source = f.replay_source(x)
    assert "F0(t0, t1, xp=_xp, transpose_a=K0_0, transpose_b=K0_1)" in source
    assert "partial" not in source
    tf.dispose([x, w])


def test_an_attribute_not_spelled_as_a_keyword_is_passed_as_a_dict():
    seen = {}

    def kernel(a, *, xp, **attrs):
        seen.update(attrs)
        return a

    slots = [SimpleNamespace(np_dtype=np.dtype("float32")) for _ in range(2)]
    step = Step("xp", "Odd", kernel, {"lambda": 1, "two words": 2, "plain": 3}, (0,), (1,))
    names, lines = {"_xp": np}, ["def replay(t0):"]
    _emit(0, step, slots, None, None, names, lambda s: f"t{s}", lines)
    lines.append("    return t1")
    exec(compile("\n".join(lines) + "\n", "<test>", "exec"), names)  # noqa: S102
    a = np.ones(2, "float32")
    assert names["replay"](a) is a
    assert seen == {"lambda": 1, "two words": 2, "plain": 3}
    assert "plain=K0_2" in lines[1] and "**KW0" in lines[1]


@pytest.mark.parametrize("method", ["predict", "predict_on_batch"])
def test_a_sequential_model_replays_without_its_inner_models_call(cleanup, monkeypatch, method):
    from tidytensor.layers.engine.models import LayersModel

    model = cleanup(mlp())
    row = tf.tensor(ROWS[:1])
    for _ in range(2):
        tf.dispose(getattr(model, method)(row))
    inner_calls = []
    original = getattr(LayersModel, method)

    def counting(self, *args, **kwargs):
        inner_calls.append(self)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(LayersModel, method, counting)
    tf.dispose(getattr(model, method)(row))
    assert inner_calls == []  # straight to the inner model's remembered replay
    two = tf.tensor(ROWS[:2])  # a shape not remembered: the long way, through it
    tf.dispose(getattr(model, method)(two))
    assert inner_calls == [model.model]
    tf.dispose([row, two])
