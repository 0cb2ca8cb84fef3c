"""prefetch: the producer runs ahead on its own thread, I/O overlaps the consumer, engine
counts stay exact while both threads make tensors, and threads never outlive a stream."""

from __future__ import annotations

import threading
import time

import pytest

import tidytensor as tf
import tidytensor.data as tfd


def prefetch_threads():
    return [t for t in threading.enumerate() if t.name == "tidytensor-data-prefetch"]


def test_producer_runs_ahead_on_another_thread():
    produced = []

    def gen():
        for i in range(100):
            produced.append(threading.get_ident())
            yield i

    it = tfd.generator(gen).prefetch(3).iterator()
    assert it.next().value == 0
    time.sleep(0.3)  # the consumer is busy; the producer fills the buffer meanwhile
    # 1 handed over + 3 buffered, and at most one more waiting to be put.
    assert 4 <= len(produced) <= 5
    assert set(produced) == {produced[0]} and produced[0] != threading.get_ident()
    assert [it.next().value for _ in range(3)] == [1, 2, 3]
    it.close()
    assert prefetch_threads() == []


def _timed(ds, work):
    start = time.perf_counter()
    for _ in ds:
        time.sleep(work)
    return time.perf_counter() - start


def test_prefetch_overlaps_io_with_compute():
    n, io, work = 25, 0.02, 0.02

    def slow_reader():
        for i in range(n):
            time.sleep(io)  # a read that releases the GIL
            yield i

    serial = _timed(tfd.generator(slow_reader), work)
    overlapped = _timed(tfd.generator(slow_reader).prefetch(2), work)
    assert serial >= n * (io + work) * 0.95
    assert overlapped < serial * 0.8, (serial, overlapped)


def test_counts_exact_while_both_threads_make_tensors():
    def row(i):
        x = tf.tensor1d([i, i + 1.0])
        return {"v": x.mul(2).add(1).sum(), "i": tf.scalar(i, "int32")}

    ds = tfd.array(list(range(400))).map(row).prefetch(8)
    before = (tf.memory().num_tensors, tf.memory().num_data_buffers, tf.memory().num_bytes)
    total = 0.0
    for element in ds:
        # The consumer opens and closes scopes while the producer runs map's tidy.
        with tf.tidy_scope():
            y = element["v"].add(tf.ones([]).mul(0))
            total += y.array_sync()
            assert element["i"].dtype == "int32"
        tf.dispose(element)
    assert total == sum(4 * i + 4 for i in range(400))
    after = (tf.memory().num_tensors, tf.memory().num_data_buffers, tf.memory().num_bytes)
    assert after == before
    assert prefetch_threads() == []


def test_two_consumer_threads_iterate_one_dataset():
    ds = (
        tfd.array(list(range(200)))
        .map(lambda i: tf.scalar(i).mul(2))
        .shuffle(16, seed=1)
        .batch(8)
        .prefetch(2)
    )
    results = {}
    before = tf.memory().num_tensors

    def consume(name):
        total = 0.0
        for batch in ds.borrow():
            total += tf.tidy(lambda b=batch: b.sum().array_sync())
        results[name] = total

    threads = [threading.Thread(target=consume, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {0: 39800.0, 1: 39800.0}
    assert tf.memory().num_tensors == before


def test_error_in_the_prefetch_thread_surfaces_in_the_consumer():
    def gen():
        yield tf.scalar(1)
        raise KeyError("missing field")

    ds = tfd.generator(gen).prefetch(4)
    before = tf.memory().num_tensors
    got = []
    with pytest.raises(KeyError, match="missing field") as info:
        for t in ds:
            got.append(t.array_sync())
            t.dispose()
    assert got == [1.0]  # elements before the error are delivered first
    assert "(raised in the dataset's prefetch thread)" in info.value.__notes__
    assert tf.memory().num_tensors == before
    assert prefetch_threads() == []


def test_close_while_the_producer_is_blocked_on_a_full_buffer():
    ds = tfd.array(list(range(1000))).map(tf.scalar).prefetch(2)
    before = tf.memory().num_tensors
    it = ds.iterator()
    it.next().value.dispose()
    time.sleep(0.05)
    it.close()
    assert prefetch_threads() == []
    assert tf.memory().num_tensors == before


def test_nested_prefetch_and_repeat_across_epochs():
    ds = tfd.array(list(range(30))).map(tf.scalar).prefetch(2).batch(4).prefetch(2).repeat(3)
    before = tf.memory().num_tensors
    sizes = [b.shape[0] for b in ds.borrow()]
    assert sizes == [4] * 7 + [2] + [4] * 7 + [2] + [4] * 7 + [2]
    assert tf.memory().num_tensors == before
    assert prefetch_threads() == []


def test_consumer_gradients_while_the_prefetch_thread_runs_kernels():
    # The engine's autodiff state is per thread: the producer's kernels neither hide the
    # consumer's kernels from its tape nor land on it.
    entered, release = threading.Event(), threading.Event()

    def slow_double(x, save):
        if x.array_sync() == 2.0:
            entered.set()
            release.wait(10)  # the producer is inside custom_grad's forward pass...
        return {"value": x.mul(2), "grad_func": lambda dy, saved: [dy.mul(2)]}

    double = tf.custom_grad(slow_double)
    ds = tfd.array([1.0, 2.0]).map(lambda v: double(tf.scalar(v))).prefetch(1)
    it = ds.iterator()
    try:
        it.next().value.dispose()
        assert entered.wait(10)
        # ...while the consumer computes a gradient of its own.
        dx = tf.grad(lambda x: x.square().sum())(tf.tensor1d([1.0, 3.0]))
        assert dx.array_sync() == [2.0, 6.0]
    finally:
        release.set()
        it.close()
