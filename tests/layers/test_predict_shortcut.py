"""The short way through a compiled ``predict``/``predict_on_batch`` (``predict_fast.py``):
after one call has gone the whole way, a call with an input of the same shape and dtype
replays directly, with the outputs, memory counts and errors of the whole way."""

from __future__ import annotations

import numpy as np
import pytest
from predict_models import seeded, values

import tidytensor as tf
import tidytensor.layers as L
from tidytensor.layers.errors import LayersRuntimeError, LayersValueError

RNG = np.random.default_rng(5)
X = RNG.normal(size=(4, 5)).astype("float32")

#: Compiled steps on (another test may have left functions running eagerly).
pytestmark = pytest.mark.usefixtures("compiled_functions")


def make_model(run_eagerly=False):
    model = L.models.sequential()
    model.add(L.dense(units=8, input_shape=[5], activation="relu"))
    model.add(L.dense(units=3))
    return seeded(model, run_eagerly)


@pytest.mark.parametrize("method", ["predict", "predict_on_batch"])
def test_a_repeated_predict_replays_without_the_function_call(cleanup, calls, method):
    model = cleanup(make_model())
    reference = cleanup(make_model(run_eagerly=True))
    x = tf.tensor(X)
    expected = values(getattr(reference, method)(x))
    for _ in range(2):  # traced, then replayed the whole way (and remembered)
        np.testing.assert_array_equal(values(getattr(model, method)(x)), expected)
    before = calls[0]
    before_memory = tf.memory()
    out = getattr(model, method)(x)
    assert calls[0] == before  # the short way: no tf.function call
    after = tf.memory()
    assert after.num_tensors == before_memory.num_tensors + 1
    assert after.num_bytes == before_memory.num_bytes + 4 * 3 * 4
    assert out is not x and out.shape == [4, 3]
    np.testing.assert_array_equal(values(out), expected)
    assert tf.memory().num_tensors == before_memory.num_tensors
    x.dispose()


def test_the_short_way_sees_new_weights_and_new_shapes(cleanup, calls):
    model = cleanup(make_model())
    x = tf.tensor(X)
    for _ in range(2):
        tf.dispose(model.predict(x))
    new = [tf.zeros(w.shape) for w in model.weights]
    model.set_weights(new)
    tf.dispose(new)
    np.testing.assert_array_equal(values(model.predict(x)), np.zeros(12, "float32"))
    before = calls[0]
    two = tf.tensor(X[:2])
    assert model.predict(two).shape == [2, 3]  # a new shape goes the whole way
    assert calls[0] == before + 1
    tf.dispose([x, two])


def test_bad_input_raises_as_the_whole_way_does(cleanup):
    model = cleanup(make_model())
    x = tf.tensor(X)
    for _ in range(2):
        tf.dispose(model.predict(x))
    wrong = tf.tensor(RNG.normal(size=(4, 6)).astype("float32"))
    with pytest.raises(LayersValueError, match=r"expected dense_\w+ to have shape \(None, 5\)"):
        model.predict(wrong)
    gone = tf.tensor(X)
    tf.dispose(model.predict(gone))
    tf.dispose(model.predict(gone))
    gone.dispose()
    with pytest.raises(Exception, match="disposed"):
        model.predict(gone)
    tf.dispose([x, wrong])


def test_a_disposed_model_or_eager_mode_takes_the_whole_way(cleanup, calls):
    model = make_model()
    x = tf.tensor(X)
    for _ in range(2):
        tf.dispose(model.predict(x))
    model.compile(optimizer="sgd", loss="meanSquaredError", run_eagerly=True)
    before = calls[0]
    tf.dispose(model.predict(x))
    assert calls[0] == before  # op by op: no tf.function at all, and no stale replay
    assert "predict" not in model.model.compiled_steps
    model.compile(optimizer="sgd", loss="meanSquaredError")
    for _ in range(2):
        tf.dispose(model.predict(x))
    tf.config.run_functions_eagerly(True)
    try:
        before = calls[0]
        tf.dispose(model.predict(x))
        assert calls[0] == before + 1  # the function runs it eagerly
    finally:
        tf.config.run_functions_eagerly(False)
    model.dispose()
    with pytest.raises(LayersRuntimeError, match="already disposed"):
        model.predict(x)
    x.dispose()


def test_tf_profile_lists_the_kernels_of_a_remembered_predict(cleanup):
    model = cleanup(make_model())
    x = tf.tensor(X)
    for _ in range(2):
        tf.dispose(model.predict(x))
    info = tf.profile(lambda: tf.dispose(model.predict(x)))
    assert info.kernels  # run op by op, each kernel seen
    x.dispose()


def test_a_memory_limit_refuses_the_short_way_with_the_whole_ways_error(cleanup):
    model = cleanup(make_model())
    reference = cleanup(make_model(run_eagerly=True))
    x = tf.tensor(X)
    for _ in range(2):
        tf.dispose(model.predict(x))
    errors = []
    before = tf.memory().num_tensors
    tf.config.set_memory_limit(tf.memory().num_bytes + 16)
    try:
        for short_way in (True, False):
            if not short_way:
                model.model._predict_shortcut.known.clear()  # the whole way, as before
            with pytest.raises(tf.ResourceExhaustedError) as error:
                model.predict(x)
            errors.append(str(error.value))
    finally:
        tf.config.set_memory_limit(None)
    assert errors[0] == errors[1] and tf.memory().num_tensors == before
    np.testing.assert_array_equal(values(model.predict(x)), values(reference.predict(x)))
    x.dispose()
