"""Plain rows stored packed (shuffle buffers, batches being gathered): the same elements,
the same shuffle orders and bit-identical batches as rows kept as Python objects, with a
fraction of the memory; rows others can see (shared references) stay objects."""

from __future__ import annotations

import copy
import math
import random
from collections import namedtuple

import numpy as np
import pytest

import tidytensor as tf
import tidytensor.data as tfd
from tidytensor.data import _packed, iterators
from tidytensor.data._packed import PackedRows, Schema


@pytest.fixture
def unpacked(monkeypatch):
    """A context in which pipelines keep every row as an object (the reference path)."""

    class _Off:
        def __enter__(self):
            monkeypatch.setattr(iterators, "_SCHEMA_TRIES", 0)

        def __exit__(self, *exc):
            monkeypatch.setattr(iterators, "_SCHEMA_TRIES", 8)

    return _Off()


def plain(x):
    if isinstance(x, tf.Tensor):
        return (x.dtype, x.shape, np.asarray(x.data_sync()).tobytes())
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(plain(v) for v in x)
    return (type(x), repr(x))  # the type, and -0.0 apart from 0.0, nan equal to nan


def epochs(ds, n=2):
    out = []
    for _ in range(n):
        batches = ds.to_array()
        out.append(plain(batches))
        tf.dispose(batches)
    return out


def mixed_row(i, rng):
    x = [rng.uniform(-3, 3) for _ in range(5)]
    x[i % 5] = [-0.0, 1e-40, 3.4e38, -7.5, 0.1][i % 5]  # -0, a subnormal, near float32 max
    return {
        "xs": x,
        "grid": [[rng.random(), float(i)], [rng.random(), -float(i)]],
        "meta": {"n": i * 1_000_003, "flag": i % 3 == 0, "pair": (i, float(i) / 7)},
        "ys": float(i % 2),
    }


def rows_dataset(n=300, seed=0):
    rng = random.Random(seed)
    rows = [mixed_row(i, rng) for i in range(n)]
    return tfd.array(rows)  # hands out fresh copies: plain rows the pipeline alone holds


# ------------------------------------------------------------ the same results
@pytest.mark.parametrize("prefetch", [0, 3])
def test_shuffle_batch_is_bit_identical_to_unpacked_rows(unpacked, prefetch):
    def make():
        ds = rows_dataset().shuffle(64, seed=11).batch(32)
        return ds.prefetch(prefetch) if prefetch else ds

    got = epochs(make(), 3)
    with unpacked:
        want = epochs(make(), 3)
    assert got == want
    assert got[0] != got[1]  # reshuffled each epoch, identically in both paths


def test_batch_without_shuffle_is_bit_identical(unpacked):
    got = epochs(rows_dataset(101).batch(16), 1)
    with unpacked:
        want = epochs(rows_dataset(101).batch(16), 1)
    assert got == want
    assert [b["xs"][1] for b in got[0]] == [[16, 5]] * 6 + [[5, 5]]  # the small last batch


def test_small_last_batch_dropped_alike(unpacked):
    ds = rows_dataset(70).shuffle(20, seed=2).batch(32, small_last_batch=False)
    got = epochs(ds, 1)
    with unpacked:
        want = epochs(rows_dataset(70).shuffle(20, seed=2).batch(32, small_last_batch=False), 1)
    assert got == want and len(got[0]) == 2


def test_shuffled_rows_come_back_equal_with_their_types(unpacked):
    # shuffle -> map: the consumer sees rows rebuilt from exact float64 numbers.
    extremes = [{"v": [x, 2**53, True, 0]} for x in (-0.0, math.nan, math.inf, 5e-324, 1.1)]

    def make():
        return tfd.array(extremes * 3).shuffle(7, seed=5).map(lambda r: r)

    got = [plain(r) for r in make().to_array()]
    with unpacked:
        want = [plain(r) for r in make().to_array()]
    assert got == want
    assert {r["v"][0][1] for r in got} == {"-0.0", "nan", "inf", "5e-324", "1.1"}
    assert all(r["v"][1:] == [(int, "9007199254740992"), (bool, "True"), (int, "0")] for r in got)


def test_rows_packed_rounded_to_float32_still_batch_like_objects(unpacked):
    # 1e39 is beyond float32 (that row stays an object); 2**53 + 2 is beyond what float64
    # holds exactly as an int (stays an object too); the rest are packed. Mixed batches.
    def make():
        rows = [{"x": [float(i) + 0.1, 1e39 if i == 3 else 1.0], "k": i} for i in range(10)]
        rows[6]["k"] = 2**53 + 2
        return tfd.array(rows).shuffle(10, seed=1).batch(4)

    got = epochs(make(), 1)
    with unpacked:
        want = epochs(make(), 1)
    assert got == want


def test_mismatched_rows_raise_the_same_errors(unpacked):
    def make():
        rows = [{"a": [1.0, 2.0]} for _ in range(5)] + [{"b": [1.0, 2.0]}]
        return tfd.array(rows).shuffle(6, seed=0).batch(6)

    with pytest.raises(Exception) as got:
        make().to_array()
    with unpacked, pytest.raises(Exception) as want:
        make().to_array()
    assert type(got.value) is type(want.value) and str(got.value) == str(want.value)


def test_tensor_rows_and_plain_rows_mix(unpacked):
    def make():
        def gen():
            for i in range(20):
                yield {"x": tf.tensor([float(i)]) if i % 4 == 0 else [float(i)]}

        return tfd.generator(gen).shuffle(8, seed=3).batch(5)

    before = tf.memory().num_tensors
    with pytest.raises(Exception) as got:  # a tensor in row 0 and a list in another
        make().to_array()
    with unpacked, pytest.raises(Exception) as want:
        make().to_array()
    assert str(got.value) == str(want.value)
    assert tf.memory().num_tensors == before  # every row's tensors disposed


def test_stores_grow_past_their_first_reservation(unpacked, monkeypatch):
    monkeypatch.setattr(_packed, "_RESERVE_BYTES", 100)  # room for one or two rows at first
    got = epochs(rows_dataset(200).shuffle(150, seed=4).batch(60), 2)
    got_unshuffled = epochs(rows_dataset(200).batch(60), 1)
    with unpacked:
        want = epochs(rows_dataset(200).shuffle(150, seed=4).batch(60), 2)
        want_unshuffled = epochs(rows_dataset(200).batch(60), 1)
    assert got == want and got_unshuffled == want_unshuffled


def test_a_huge_buffer_over_a_short_stream_reserves_little():
    # A window of 3M rows of 8 bytes would be 24 MB; TF.js's shuffle draws each of its slots
    # (end markers too), so a window far past that would only test patience.
    it = tfd.array([[1.0, 2.0]] * 10).shuffle(3 * 10**6, seed=0).batch(4).iterator()
    first = it.next().value
    shuffle = it.upstream
    assert shuffle.store is not None
    assert shuffle.store.array.nbytes <= _packed._RESERVE_BYTES
    tf.dispose(first)
    it.close()


# ------------------------------------------------------------ what is packed
def test_the_csv_pipeline_buffers_every_row_packed(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text("a,b,label\n" + "".join(f"{i},{-i / 3},{i % 2}\n" for i in range(500)))
    ds = tfd.csv(str(path), column_configs={"label": {"is_label": True}})
    ds = ds.map(lambda e: {"xs": list(e["xs"].values()), "ys": [e["ys"]["label"]]})
    it = ds.shuffle(256, seed=0).batch(32).iterator()
    batch = it.next().value
    shuffle = it.upstream
    assert shuffle.count == 255 and shuffle.objects == {} and shuffle.buffer == []
    assert shuffle.store.array.dtype == np.float32  # only ever batched
    assert shuffle.store.array.shape == (256, 3)  # 12 bytes a row
    assert batch["xs"].shape == [32, 2] and batch["ys"].shape == [32, 1]
    tf.dispose(batch)
    it.close()
    assert shuffle.store is None and shuffle.count == 0


def test_a_shuffle_not_followed_by_batch_keeps_exact_float64():
    it = tfd.array([[0.1, 0.2]] * 4).shuffle(4, seed=0).iterator()
    assert it.next().value == [0.1, 0.2]
    assert it.store.array.dtype == np.float64
    it.close()


def test_shared_rows_stay_objects_and_keep_their_identity():
    shared = [1.0, 2.0]
    out = tfd.array([0, 1, 2, 3]).map(lambda i: {"x": shared}).shuffle(4, seed=0).to_array()
    assert all(r["x"] is shared for r in out)

    def gen():  # one dict, mutated after each yield: the buffer holds references to it
        d = {"i": [0.0]}
        for i in range(5):
            d["i"] = [float(i)]
            yield d

    out = tfd.generator(gen).shuffle(5, seed=0).to_array()
    assert all(r is out[0] for r in out) and out[0] == {"i": [4.0]}


def test_a_row_referenced_elsewhere_is_not_packed():
    kept = []

    def remember(r):
        row = {"x": [r * 1.0]}
        if r == 2:
            kept.append(row)
        return row

    it = tfd.array([0, 1, 2, 3]).map(remember).shuffle(4, seed=0).iterator()
    first = it.next().value
    assert it.store is not None and list(it.objects.values()) in ([kept[0]], [])
    rest = [first] + [r for r in it]
    assert sorted(r["x"][0] for r in rest) == [0.0, 1.0, 2.0, 3.0]
    assert any(r is kept[0] for r in rest)


# ------------------------------------------------------------ schemas
Point = namedtuple("Point", "x y")


class FloatList(list):
    pass


@pytest.mark.parametrize(
    "row",
    [
        "text",
        None,
        [],
        {},
        [[1.0, 2.0], [3.0]],  # ragged
        [True, 1.0],  # bools mixed with numbers in one tensor
        Point(1.0, 2.0),
        FloatList([1.0]),
        np.float64(1.0),
        {"a": np.zeros(2)},
        {"a": [1.0, "x"]},
    ],
)
def test_rows_that_are_not_plain_have_no_schema(row):
    assert Schema.of(row) is None


def test_schema_round_trip_and_order():
    row = {"b": [[1.5, -2.0], [3.0, 4.25]], "a": (7, False), "c": [{"d": 2.5}, {"d": -1.0}]}
    schema = Schema.of(row)
    assert schema.width == 4 + 2 + 2
    store = PackedRows(schema, 3)
    also = row["c"]  # a second reference to one of its lists: not the pipeline's alone
    assert not store.put(2, row)
    del also
    assert store.put(2, row)  # held once, as a pipeline holds the rows it packs
    assert store.put(2, copy.deepcopy(row))
    back = store.get(2)
    assert back == row and list(back) == ["b", "a", "c"]
    assert type(back["a"]) is tuple and type(back["a"][0]) is int and back["a"][1] is False
    reordered = {"a": (7, False), "b": [[1.5, -2.0], [3.0, 4.25]], "c": [{"d": 2.5}, {"d": -1.0}]}
    assert not store.put(1, reordered)  # the same keys in another order
    ragged = {"b": [[1.5, -2.0], [3.0]], "a": (7, False), "c": [{"d": 2.5}, {"d": -1.0}]}
    assert not store.put(1, ragged)
    assert not store.put(
        1, {"b": [[1.5, -2.0], [3.0, 4]], "a": (7, False), "c": [{"d": 2.5}, {"d": -1.0}]}
    )


def test_schema_batch_equals_batch_rows():
    from tidytensor.data._structure import batch_rows

    rng = random.Random(3)
    rows = [mixed_row(i, rng) for i in range(9)]
    schema = Schema.of(rows[0])
    for for_batch in (False, True):
        store = PackedRows(schema, 9, for_batch)
        for i, r in enumerate(rows):
            assert store.put(i, copy.deepcopy(r))
        got = tf.tidy(lambda s=store: plain(schema.batch(s.array)))
        want = tf.tidy(lambda: plain(batch_rows(rows)))
        assert got == want


def test_map_intermediates_are_freed_when_the_map_returns_numbers():
    before = tf.memory().num_tensors
    out = tfd.array([1.0, 2.0, 3.0]).map(lambda x: tf.scalar(x).mul(2).data_sync()[0]).to_array()
    assert out == [2.0, 4.0, 6.0]
    assert tf.memory().num_tensors == before


# ------------------------------------------------------------ prefetch hand-off
def test_batches_cross_the_prefetch_thread_packed(unpacked):
    def make(depth):
        return rows_dataset(250).batch(16).prefetch(depth)

    it = make(2).iterator()
    first = it.next().value
    assert it.upstream.slots == 4 and it.upstream.block.mapped  # 2 queued, 1 put, 1 taken
    tf.dispose(first)
    it.close()
    for depth in (1, 2, 5):
        got = epochs(make(depth), 2)
        with unpacked:
            want = epochs(make(depth), 2)
        assert got == want


def test_a_slow_consumer_never_sees_a_slot_written_again(unpacked):
    import time

    def make():
        return rows_dataset(400, seed=9).shuffle(50, seed=1).batch(8).prefetch(1)

    got = []
    for i, b in enumerate(make().borrow()):
        if i % 7 == 0:
            time.sleep(0.01)  # the producer fills every slot it may meanwhile
        got.append(plain(b))
    with unpacked:
        want = epochs(make(), 1)[0]
    assert got == want


def test_packed_batches_join_the_consumers_scope():
    it = rows_dataset(64).batch(16).prefetch(3).iterator()
    before = tf.memory().num_tensors
    try:
        total = tf.tidy(lambda: it.next().value["ys"].sum().data_sync()[0])
    finally:
        it.close()
    assert total == 8.0 and tf.memory().num_tensors == before


def test_closing_early_with_packed_batches_queued_leaves_nothing():
    import threading
    import time

    before = tf.memory().num_tensors
    for b in rows_dataset(500).batch(8).prefetch(6):
        tf.dispose(b)
        time.sleep(0.02)  # let the queue fill
        break
    assert tf.memory().num_tensors == before
    assert not [t for t in threading.enumerate() if t.name == "tidytensor-data-prefetch"]


def test_an_error_behind_packed_batches_surfaces_with_its_note():
    def boom(r):
        if r["meta"]["n"] == 40 * 1_000_003:
            raise KeyError("row 40")
        return r

    got = []
    with pytest.raises(KeyError, match="row 40") as info:
        for b in rows_dataset(100).map(boom).batch(16).prefetch(2):
            got.append(b["xs"].shape[0])
            tf.dispose(b)
    assert got == [16, 16]
    assert "(raised in the dataset's prefetch thread)" in info.value.__notes__
