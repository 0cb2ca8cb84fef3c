"""Memory: pipelines free everything they drop. num_tensors (and buffers and bytes) stay
flat across epochs; early stops (break, take, errors) leave no tensors behind; generators
are closed; nothing is garbage-collected undisposed (tf.leaks() stays empty)."""

from __future__ import annotations

import asyncio
import gc

import pytest

import tidytensor as tf
import tidytensor.data as tfd


def snapshot():
    m = tf.memory()
    return (m.num_tensors, m.num_data_buffers, m.num_bytes)


def make_row(i):
    # A map with intermediates: only the returned tensors may survive.
    x = tf.tensor1d([i, i + 1, i + 2]).mul(0.5).add(1)
    return {"xs": x.square().sub(x), "ys": tf.scalar(i % 2)}


def pipeline(n=120, prefetch=3):
    return tfd.array(list(range(n))).map(make_row).shuffle(40, seed=3).batch(16).prefetch(prefetch)


def test_num_tensors_flat_over_epochs_map_shuffle_batch_prefetch():
    ds = pipeline()
    base = snapshot()
    per_epoch = []
    for _ in range(12):
        batches = 0
        for batch in ds:
            assert batch["xs"].shape[1:] == [3]
            tf.dispose(batch)
            batches += 1
        assert batches == 8
        per_epoch.append(snapshot())
    assert per_epoch == [base] * 12
    gc.collect()
    assert tf.leaks() == []


def test_training_style_loop_inside_tidy_is_flat():
    ds = pipeline(64)
    w = tf.variable(tf.zeros([3, 1]), name="data_mem_w")
    opt = tf.train.sgd(0.01)
    counts = []
    for _ in range(5):
        for batch in ds.borrow():
            opt.minimize(
                lambda b=batch: tf.losses.mean_squared_error(
                    b["ys"].reshape([-1, 1]), b["xs"].mat_mul(w)
                )
            )
        counts.append(tf.memory().num_tensors)
    assert len(set(counts[1:])) == 1  # optimizer slots are made in epoch 1
    opt.dispose()
    w.dispose()


@pytest.mark.parametrize("prefetch", [1, 4])
def test_early_break_leaves_nothing_behind(prefetch):
    ds = pipeline(prefetch=prefetch)
    base = snapshot()
    for batch in ds:
        tf.dispose(batch)
        break
    assert snapshot() == base  # the iterator was collected: shuffle/prefetch buffers freed
    it = iter(ds)
    first = next(it)
    it.close()
    tf.dispose(first)
    assert snapshot() == base
    gc.collect()
    assert tf.leaks() == []


def test_take_frees_upstream_buffers_as_soon_as_done():
    ds = pipeline().unbatch().take(5)
    base = snapshot()
    it = ds.iterator()
    got = [it.next().value for _ in range(5)]
    # 5 rows of {'xs', 'ys'}: 10 tensors; the shuffle buffer, the prefetch queue and the
    # unbatch queue were all disposed when the 5th row was taken.
    assert tf.memory().num_tensors - base[0] == 10
    assert it.next().done
    tf.dispose(got)
    assert snapshot() == base


def test_generator_is_closed_on_break_and_its_buffered_tensors_disposed():
    closed = []

    def gen():
        try:
            for i in range(1000):
                yield tf.scalar(i)
        finally:
            closed.append(True)

    ds = tfd.generator(gen).shuffle(20, seed=0).prefetch(5)
    base = snapshot()
    for t in ds:
        t.dispose()
        break
    assert closed == [True]
    assert snapshot() == base


def test_close_closes_the_generator_while_the_iterator_is_still_referenced():
    closed = []

    def gen():
        try:
            yield from (tf.scalar(i) for i in range(10))
        finally:
            closed.append(True)

    it = tfd.generator(gen).iterator()
    it.next().value.dispose()
    it.close()
    assert closed == [True]


def test_async_generator_is_closed_on_break():
    closed = []

    async def agen():
        try:
            for i in range(1000):
                await asyncio.sleep(0)
                yield tf.tensor1d([i, i])
        finally:
            closed.append(True)

    base = snapshot()
    for b in tfd.generator(agen).batch(4).prefetch(2):
        b.dispose()
        break
    assert closed == [True]
    assert snapshot() == base


@pytest.mark.parametrize("prefetch", [None, 3])
def test_generator_raising_midway_surfaces_and_leaks_nothing(prefetch):
    closed = []

    def gen():
        try:
            for i in range(50):
                if i == 23:
                    raise ValueError(f"bad record {i}")
                yield {"x": tf.tensor1d([i, i])}
        finally:
            closed.append(True)

    ds = tfd.generator(gen).map(lambda e: {"x": e["x"].mul(2)}).shuffle(8, seed=1).batch(4)
    if prefetch:
        ds = ds.prefetch(prefetch)
    base = snapshot()
    got = 0
    with pytest.raises(ValueError, match="bad record 23") as info:
        for batch in ds:
            got += 1
            tf.dispose(batch)
    assert any("after it produced 23 elements" in n for n in info.value.__notes__)
    assert got <= 4  # 23 rows were read before the error; the shuffle buffer held some
    assert closed == [True]
    del info
    gc.collect()
    assert snapshot() == base
    assert tf.leaks() == []


def test_map_raising_midway_frees_its_input_and_intermediates():
    def f(t):
        y = t.mul(3)
        if y.data_sync()[0] > 10:
            raise RuntimeError("too big")
        return y

    ds = tfd.array([1, 2, 3, 4, 5]).map(tf.scalar).map(f).batch(2)
    base = snapshot()
    with pytest.raises(RuntimeError, match="too big"):
        ds.to_array()
    assert snapshot() == base


def test_filter_skip_and_drop_last_dispose_what_they_drop():
    ds = (
        tfd.array(list(range(20)))
        .map(lambda i: tf.scalar(i))
        .filter(lambda t: t.mod(3).equal(0))  # 0 3 6 9 12 15 18
        .skip(2)  # 6 9 12 15 18
        .batch(2, small_last_batch=False)  # [6 9] [12 15]; 18 dropped
    )
    base = snapshot()
    out = ds.to_array()
    assert [b.array_sync() for b in out] == [[6.0, 9.0], [12.0, 15.0]]
    assert tf.memory().num_tensors - base[0] == 2
    tf.dispose(out)
    assert snapshot() == base


def test_zip_concatenate_repeat_flat_over_epochs():
    a = tfd.array([1, 2, 3]).map(tf.scalar)
    b = tfd.generator(lambda: (tf.tensor1d([i, i]) for i in range(4)))
    ds = tfd.zip({"a": a, "b": b}).concatenate(tfd.zip({"a": a, "b": b}).take(1)).repeat(2).batch(3)
    base = snapshot()
    for _ in range(5):
        out = ds.to_array()
        assert [x["b"].shape for x in out] == [[3, 2], [3, 2], [2, 2]]
        tf.dispose(out)
        assert snapshot() == base


def test_unbatch_break_disposes_its_queue():
    ds = tfd.array([tf.ones([10, 2])]).unbatch()
    base = snapshot()
    for row in ds:
        row.dispose()
        break
    assert snapshot() == base


def test_csv_to_tensors_flat_over_epochs(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text("a,b,y\n" + "".join(f"{i},{i * 2},{i % 2}\n" for i in range(300)))
    ds = (
        tfd.csv(path, column_configs={"y": {"is_label": True}})
        .map(lambda e: {"xs": [e["xs"]["a"], e["xs"]["b"]], "ys": e["ys"]["y"]})
        .shuffle(64, seed=0)
        .batch(32)
        .prefetch(2)
    )
    base = snapshot()
    for _ in range(4):
        n = 0
        for batch in ds.borrow():
            n += batch["xs"].shape[0]
        assert n == 300
        assert snapshot() == base


def test_elements_handed_over_are_never_disposed_by_the_pipeline():
    ds = tfd.array([1, 2, 3, 4]).map(tf.scalar).shuffle(4, seed=0).prefetch(2)
    it = ds.iterator()
    first = it.next().value
    it.close()
    assert not first.is_disposed  # the consumer owns it
    first.dispose()
