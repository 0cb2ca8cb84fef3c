"""The recurrent kernels' scratch pools (``backends/xp_kernels/recurrent_sequence.py``,
``engine/kernel_scratch.py``): each recurrent layer's pool belongs to the layer (its
``ScratchOwner``), goes with the layer's weights, and its idle bytes are counted in the
engine's live bytes exactly as arrays are lent and given back, with no sync."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import tidytensor as tf
import tidytensor.layers as L
from tidytensor.backends.xp_kernels import recurrent_sequence
from tidytensor.engine import ENGINE, kernel_scratch

RNG = np.random.default_rng(7)


@pytest.fixture(autouse=True)
def no_limit():
    yield
    tf.config.set_memory_limit(None)


def _lstm_model():
    model = L.models.sequential()
    model.add(L.lstm(units=16, input_shape=[10, 8], return_sequences=True))
    model.add(L.lstm(units=4))
    model.add(L.dense(units=3))
    return model


def _current():
    return tf.config.get_memory_info()["current"]


@pytest.mark.parametrize("compiled", [True, False])
def test_disposing_a_model_takes_its_recurrent_pool_out_of_the_live_bytes(compiled):
    x = tf.tensor(RNG.normal(size=(4, 10, 8)).astype("float32"))
    live, tensor_bytes = _current(), tf.memory().num_bytes
    model = _lstm_model()
    for _ in range(3):
        if compiled:
            tf.dispose(model.predict(x))
        else:
            tf.dispose(tf.tidy(lambda: model.apply(x)))
    pools = [recurrent_sequence.pool_of(layer._scratch_owner) for layer in model.layers[:2]]
    assert all(pool.idle_bytes() > 0 for pool in pools)  # kept between calls, and counted
    assert _current() > live
    model.dispose()
    assert all(pool.idle_bytes() == 0 and not pool._buckets for pool in pools)
    assert _current() == live
    assert tf.memory().num_bytes == tensor_bytes
    x.dispose()


def test_a_wrapped_recurrent_layers_pools_go_with_the_wrapper():
    x = tf.ones([4, 10, 8])
    live = _current()
    model = L.models.sequential()
    wrapped = L.lstm(units=8, return_sequences=True)
    model.add(L.bidirectional(layer=wrapped, input_shape=[10, 8]))
    model.add(L.time_distributed(layer=L.dense(units=2)))
    for _ in range(2):
        tf.dispose(model.predict(x))
    assert _current() > live
    model.dispose()  # the wrapper disposes the forward and backward layers' weights
    assert _current() == live
    x.dispose()


def test_a_pooled_output_is_counted_idle_the_moment_its_tensor_is_freed():
    layer = L.lstm(units=6, input_shape=[5, 3], return_sequences=True)
    x = tf.ones([2, 5, 3])
    tf.dispose(layer.apply(x))
    y = layer.apply(x)  # its buffer is one of the pool's arrays, lent
    pool = recurrent_sequence.pool_of(layer._scratch_owner)
    idle, live = pool.idle_bytes(), ENGINE.state.buffer_bytes  # no sync: read as they are
    y.dispose()
    assert pool.idle_bytes() == idle + y.size * 4
    assert ENGINE.state.buffer_bytes == live  # the bytes moved from the tensor to the pool
    kernel_scratch.sync_all()
    assert ENGINE.state.buffer_bytes == live  # nothing left for a sync to find
    layer.dispose()
    x.dispose()


def test_a_kernel_past_the_limit_is_refused_and_the_pool_is_unchanged():
    layer = L.lstm(units=8, input_shape=[6, 4], return_sequences=True)
    small = tf.ones([1, 6, 4])
    tf.dispose(layer.apply(small))
    pool = recurrent_sequence.pool_of(layer._scratch_owner)
    shapes, idle = dict(pool._buckets), pool.idle_bytes()
    big = tf.ones([64, 6, 4])
    live, handles = ENGINE.state.buffer_bytes, tf.memory()
    tf.config.set_memory_limit(live + 4096)  # no room for the 12 kB sequence output
    with pytest.raises(tf.ResourceExhaustedError, match="lstm"):
        layer.apply(big)
    tf.config.set_memory_limit(None)
    assert dict(pool._buckets) == shapes and pool.idle_bytes() == idle
    assert ENGINE.state.buffer_bytes == live and tf.memory() == handles
    big.dispose()
    layer.dispose()
    small.dispose()


def test_an_owner_collected_undisposed_releases_its_pool():
    owner = kernel_scratch.ScratchOwner("lstm_test")
    pool = recurrent_sequence.pool_of(owner)
    live = ENGINE.state.buffer_bytes
    a = pool.take(np, (5, 5))
    view = a[1:]
    del a
    assert pool.idle_bytes() == 0  # a view of it still uses it
    del view
    assert pool.idle_bytes() == 100 and ENGINE.state.buffer_bytes == live + 100
    assert pool.take(np, (5, 5)).shape == (5, 5)  # the same array, lent again
    assert pool.idle_bytes() == 100 and len(pool._buckets[(5, 5)]) == 1
    del owner
    gc.collect()
    assert pool.idle_bytes() == 0 and ENGINE.state.buffer_bytes == live


def test_a_reset_engine_counts_the_idle_pools_again():
    owner = kernel_scratch.ScratchOwner("lstm_test")
    pool = recurrent_sequence.pool_of(owner)
    pool.take(np, (3, 4))  # lent and given back at once: 48 idle bytes
    assert pool.idle_bytes() == 48
    ENGINE.reset()
    assert kernel_scratch.scratch_bytes() >= 48
    owner.release()
    assert pool.idle_bytes() == 0
    assert ENGINE.state.buffer_bytes == kernel_scratch.scratch_bytes()


def test_guarded_kernels_read_exact_live_bytes_with_no_sync(monkeypatch):
    layer = L.lstm(units=6, input_shape=[5, 3], return_sequences=True)
    x = tf.ones([2, 5, 3])
    tf.dispose(layer.apply(x))
    synced = []
    monkeypatch.setattr(kernel_scratch, "sync_all", lambda *a: synced.append(a))
    tf.config.set_memory_limit(10**8)
    for _ in range(3):
        y = layer.apply(x)  # the pool lends its arrays, they come back as y is freed
        z = tf.add(y, y)
        tf.dispose([y, z])
    assert synced == []  # no kernel walks the pools before or after it runs
    # Live bytes: the tensors' buffers and what every pool says it holds idle, exactly.
    idle = sum(h.bytes for h in list(kernel_scratch._HOLDINGS))
    assert ENGINE.state.buffer_bytes == tf.memory().num_bytes + idle
    layer.dispose()
    x.dispose()
