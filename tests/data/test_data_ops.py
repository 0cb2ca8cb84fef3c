"""Dataset ops beyond the goldens: element structures, unbatch, shuffle seeds, the iterator
protocol, borrow/for_each_async/map_async, generators (sync and async), argument errors."""

from __future__ import annotations

import asyncio
import math
from collections import namedtuple

import pytest

import tidytensor as tf
import tidytensor.data as tfd
from tidytensor.errors import ArgumentTypeError, InvalidArgumentError, ShapeError


def values(elements):
    return [e.array_sync() if isinstance(e, tf.Tensor) else e for e in elements]


def drain(ds):
    out = ds.to_array()
    got = tf.tidy(lambda: _plain(out))
    tf.dispose(out)
    return got


def _plain(x):
    if isinstance(x, tf.Tensor):
        return x.array_sync()
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, tuple):
        return tuple(_plain(v) for v in x)
    if isinstance(x, list):
        return [_plain(v) for v in x]
    return x


# ---------------------------------------------------------------- structures
def test_batch_tuples_are_structures_lists_of_numbers_are_tensors():
    ds = tfd.array([([1, 2], 0), ([3, 4], 1), ([5, 6], 0)]).batch(2)
    assert drain(ds) == [([[1.0, 2.0], [3.0, 4.0]], [0.0, 1.0]), ([[5.0, 6.0]], [0.0])]


def test_batch_namedtuple_keeps_its_type():
    Pair = namedtuple("Pair", "xs ys")
    out = (
        tfd.array([Pair(tf.tensor1d([1, 2]), 1), Pair(tf.tensor1d([3, 4]), 0)]).batch(2).to_array()
    )
    assert isinstance(out[0], Pair)
    assert out[0].xs.shape == [2, 2] and out[0].ys.array_sync() == [1.0, 0.0]
    tf.dispose(out)


def test_batch_list_of_tensors_is_a_structure():
    ds = tfd.array([[tf.scalar(1), tf.scalar(2)], [tf.scalar(3), tf.scalar(4)]]).batch(2)
    assert drain(ds) == [[[1.0, 3.0], [2.0, 4.0]]]


def test_batch_numpy_leaves_keep_their_dtype():
    import numpy as np

    out = tfd.array([np.array([1, 2], np.int32), np.array([3, 4], np.int32)]).batch(2).to_array()
    assert out[0].dtype == "int32" and out[0].shape == [2, 2]
    tf.dispose(out)


def test_batch_ints_become_float32_like_js_numbers():
    out = tfd.array([1, 2]).batch(2).to_array()
    assert out[0].dtype == "float32"
    tf.dispose(out)


@pytest.mark.parametrize(
    ("items", "error", "match"),
    [
        (lambda: [{"a": 1}, {"b": 2}], InvalidArgumentError, "row 1 has no key 'a'"),
        (
            lambda: [tf.tensor1d([1, 2]), tf.tensor1d([1, 2, 3])],
            ShapeError,
            r"shape \[2\] in row 0 but \[3\] in row 1",
        ),
        (lambda: [None, None], InvalidArgumentError, "None cannot be batched"),
        (lambda: [(1, 2), (1,)], InvalidArgumentError, "does not match row 0's structure"),
        (lambda: [1, {"a": 1}], InvalidArgumentError, "int in row 0 but dict in row 1"),
    ],
)
def test_batch_mismatched_rows_raise_and_leak_nothing(items, error, match):
    items = items()
    before = tf.memory().num_tensors
    with pytest.raises(error, match=match):
        tfd.array(items).batch(2).to_array()
    assert tf.memory().num_tensors == before


def test_unbatch_inverts_batch_for_nested_elements():
    rows = [{"x": [float(i), float(i + 1)], "y": (float(i), [float(i)])} for i in range(5)]
    got = drain(tfd.array(rows).batch(2).unbatch())
    assert got == rows


def test_unbatch_errors():
    with pytest.raises(ShapeError, match="scalar; it has no batch dimension"):
        tfd.array([tf.scalar(1)]).unbatch().to_array()
    with pytest.raises(ShapeError, match="every leaf must share the batch dimension"):
        tfd.array([{"a": tf.zeros([2]), "b": tf.zeros([3])}]).unbatch().to_array()
    with pytest.raises(InvalidArgumentError, match="must be a tensor"):
        tfd.array([{"a": tf.zeros([2]), "b": "text"}]).unbatch().to_array()


def test_zip_nested_and_tuples():
    ds = tfd.zip({"a": tfd.array([1, 2]), "b": (tfd.array([3, 4]), [tfd.array([5, 6, 7])])})
    assert ds.size == 2
    assert drain(ds) == [{"a": 1, "b": (3, [5])}, {"a": 2, "b": (4, [6])}]


def test_zip_shortest_disposes_the_partial_row():
    long = tfd.array([tf.scalar(1), tf.scalar(2), tf.scalar(3)])
    short = tfd.array([tf.scalar(4)])
    before = tf.memory().num_tensors
    out = tfd.zip([long, short]).to_array()
    assert len(out) == 1
    tf.dispose(out)
    assert tf.memory().num_tensors == before


def test_zip_argument_errors():
    with pytest.raises(ArgumentTypeError, match="must be an object or array"):
        tfd.zip(tfd.array([1]))
    with pytest.raises(InvalidArgumentError, match="not primitives"):
        tfd.zip({"a": "b"})


# ---------------------------------------------------------------- ops
def test_take_skip_repeat_concatenate_compose():
    ds = tfd.array([1, 2, 3]).repeat(2).skip(1).take(4).concatenate(tfd.array([9]))
    assert ds.to_array() == [2, 3, 1, 2, 9]
    assert ds.size == 5


def test_skip_none_skips_everything_take_none_takes_everything():
    assert tfd.array([1, 2]).skip(None).to_array() == []
    assert tfd.array([1, 2]).take(None).to_array() == [1, 2]
    assert tfd.array([1, 2]).repeat(None).size == math.inf


def test_endless_repeat_of_empty_dataset_ends():
    assert tfd.array([]).repeat().take(3).to_array() == []


def test_filter_with_tensor_predicate():
    ds = tfd.array([1, -2, 3]).map(lambda x: tf.scalar(x)).filter(lambda t: t.greater(0))
    assert drain(ds) == [1.0, 3.0]


def test_filter_predicate_must_be_scalar_like():
    with pytest.raises(InvalidArgumentError, match="one-element tensor"):
        tfd.array([[1, 2]]).map(tf.tensor).filter(lambda t: t.greater(0)).to_array()


def test_map_may_return_its_input_and_mutate_dicts():
    def f(e):
        e["z"] = e["x"].add(1)
        return e

    ds = tfd.array([{"x": tf.scalar(1)}]).map(f)
    assert drain(ds) == [{"x": 1.0, "z": 2.0}]


def test_array_hands_out_copies():
    src = [{"x": tf.tensor1d([1, 2])}]
    ds = tfd.array(src).map(lambda e: {"x": e["x"].mul(2)})
    assert drain(ds) == [{"x": [2.0, 4.0]}]
    assert drain(ds) == [{"x": [2.0, 4.0]}]  # the source tensor was not disposed
    assert not src[0]["x"].is_disposed


def test_shuffle_seed_and_reshuffle():
    base = tfd.array(list(range(50)))
    fixed = base.shuffle(50, seed=7, reshuffle_each_iteration=False)
    assert fixed.to_array() == fixed.to_array()
    assert sorted(fixed.to_array()) == list(range(50))
    a = base.shuffle(50, seed=7)
    b = base.shuffle(50, seed=7)
    epochs_a = [a.to_array() for _ in range(3)]
    assert epochs_a == [b.to_array() for _ in range(3)]  # reproducible from the seed
    assert epochs_a[0] != epochs_a[1]  # reshuffled each iteration
    assert base.shuffle(50, seed=8).to_array() != epochs_a[0]  # another seed, another order


def test_shuffle_small_buffer_is_local():
    out = tfd.array(list(range(100))).shuffle(3, seed=1).to_array()
    assert sorted(out) == list(range(100))
    # A buffer of 3 samples among the next 3 unread elements: the first output is one of
    # 0..2, and element i cannot come out before position i - 2.
    assert out[0] in (0, 1, 2)
    assert all(out.index(i) >= i - 2 for i in range(100))


@pytest.mark.parametrize(
    ("make", "error", "match"),
    [
        (
            lambda d: d.batch(0),
            InvalidArgumentError,
            "batch_size needs to be positive, but it is 0",
        ),
        (lambda d: d.batch(1.5), ArgumentTypeError, "batch_size must be an integer"),
        (lambda d: d.shuffle(0), InvalidArgumentError, "buffer_size needs to be positive"),
        (lambda d: d.shuffle(-1), InvalidArgumentError, "requires buffer_size to be specified"),
        (lambda d: d.prefetch(0), InvalidArgumentError, "buffer_size needs to be positive"),
        (lambda d: d.take("3"), ArgumentTypeError, "count must be an integer"),
        (lambda d: d.map(3), ArgumentTypeError, "transform must be callable"),
        (lambda d: d.filter(None), ArgumentTypeError, "predicate must be callable"),
        (lambda d: d.concatenate([1]), ArgumentTypeError, "expected a Dataset"),
    ],
)
def test_argument_errors(make, error, match):
    with pytest.raises(error, match=match):
        make(tfd.array([1, 2]))


def test_map_refuses_coroutine_functions():
    async def f(x):
        return x

    with pytest.raises(ArgumentTypeError, match="use map_async"):
        tfd.array([1]).map(f)


# ---------------------------------------------------------------- consuming
def test_iterator_protocol_like_tfjs():
    it = tfd.array([1, 2]).iterator()
    r = it.next()
    assert (r.value, r.done) == (1, False)
    value, done = it.next()
    assert (value, done) == (2, False)
    assert it.next() == tfd.IteratorResult(None, True)
    assert it.next().done  # stays done


def test_python_iteration_and_with():
    ds = tfd.array([1, 2, 3])
    assert list(ds) == [1, 2, 3]
    with ds.iterator() as it:
        assert next(it) == 1
    assert it.next().done  # closed by the with block


def test_elements_join_the_consumers_scope():
    ds = tfd.array([1, 2]).batch(2)
    with tf.tidy_scope():
        batch = next(iter(ds))
        assert not batch.is_disposed
    assert batch.is_disposed
    kept = tf.tidy(lambda: ds.iterator().next().value)
    assert not kept.is_disposed
    kept.dispose()


def test_pipeline_buffers_survive_consumer_scopes():
    """A shuffle buffer filled while the consumer is inside a scope belongs to the pipeline."""
    it = tfd.array([[1.0], [2.0], [3.0], [4.0]]).map(tf.tensor).shuffle(4, seed=0).iterator()
    seen = []
    for _ in range(4):
        with tf.tidy_scope():
            seen.append(it.next().value.array_sync()[0])
    assert sorted(seen) == [1.0, 2.0, 3.0, 4.0]
    assert it.next().done


def test_borrow_disposes_each_element_when_the_loop_moves_on():
    ds = tfd.array([1, 2, 3]).map(lambda x: tf.scalar(x))
    before = tf.memory().num_tensors
    seen = []
    for t in ds.borrow():
        assert tf.memory().num_tensors == before + 1
        seen.append(t)
    assert all(t.is_disposed for t in seen)
    assert tf.memory().num_tensors == before
    for t in ds.borrow():
        last = t
        break
    assert last.is_disposed and tf.memory().num_tensors == before


def test_for_each_async_disposes_elements_and_intermediates():
    ds = tfd.array([1, 2, 3]).map(lambda x: {"v": tf.scalar(x)})
    before = tf.memory().num_tensors
    total = []
    ds.for_each_async(lambda e: total.append(e["v"].square().array_sync()))
    assert total == [1.0, 4.0, 9.0]
    assert tf.memory().num_tensors == before


def test_for_each_async_accepts_coroutines():
    seen = []

    async def f(t):
        await asyncio.sleep(0)
        seen.append(t.mul(2).array_sync())

    before = tf.memory().num_tensors
    tfd.array([1, 2]).map(tf.scalar).for_each_async(f)
    assert seen == [2.0, 4.0]
    assert tf.memory().num_tensors == before


def test_map_async_frees_intermediates():
    async def f(x):
        await asyncio.sleep(0)
        t = tf.scalar(x).add(1)  # an intermediate
        return t.mul(2)

    ds = tfd.array([1, 2]).map_async(f)
    before = tf.memory().num_tensors
    out = ds.to_array()
    assert values(out) == [4.0, 6.0]
    assert tf.memory().num_tensors == before + 2
    tf.dispose(out)


def test_to_array_for_test():
    assert tfd.array(list(range(10))).map(lambda x: x + 1).to_array_for_test() == list(range(1, 11))


# ---------------------------------------------------------------- generators
def test_generator_restarts_each_epoch():
    calls = []

    def gen():
        calls.append(1)
        yield from range(3)

    ds = tfd.generator(gen)
    assert ds.to_array() == [0, 1, 2]
    assert ds.to_array() == [0, 1, 2]
    assert len(calls) == 2


def test_generator_function_may_return_any_iterable():
    assert tfd.generator(lambda: [1, 2]).to_array() == [1, 2]


def test_generator_object_is_refused_with_a_hint():
    def gen():
        yield 1

    with pytest.raises(ArgumentTypeError, match="Pass the generator function itself"):
        tfd.generator(gen())
    with pytest.raises(ArgumentTypeError, match="must return an iterator"):
        tfd.generator(lambda: 3).to_array()


def test_async_generator_runs_on_a_private_loop():
    async def agen():
        for i in range(4):
            await asyncio.sleep(0)
            # The generator owns what it makes: it tidies its own intermediates.
            yield {"x": tf.tidy(lambda i=i: tf.scalar(i).mul(2))}

    out = tfd.generator(agen).batch(2).to_array()
    assert [b["x"].array_sync() for b in out] == [[0.0, 2.0], [4.0, 6.0]]
    tf.dispose(out)


def test_async_generator_works_inside_a_running_event_loop():
    async def agen():
        yield 1
        yield 2

    async def main():
        return tfd.generator(agen).to_array()

    assert asyncio.run(main()) == [1, 2]


def test_coroutine_returning_an_iterator():
    async def make():
        return iter([5, 6])

    assert tfd.generator(make).to_array() == [5, 6]


def test_func_continues_one_stream():
    state = {"i": 0}

    def step():
        state["i"] += 1
        return {"value": state["i"], "done": state["i"] % 3 == 0}

    ds = tfd.func(step)
    assert ds.to_array() == [1, 2]
    assert ds.to_array() == [4, 5]


def test_repr_and_summary():
    ds = tfd.array([1]).map(lambda x: x).batch(1)
    assert repr(ds) == "<_FnDataset size=1>"
    assert ds.iterator().summary() == "Array of 1 items -> Map -> Batch"


def test_tensors_made_when_a_stream_starts_belong_to_the_pipeline():
    def make():
        rows = [tf.scalar(1), tf.scalar(2)]  # made by the generator function itself
        return iter(rows)

    ds = tfd.generator(make).map(lambda t: t.add(1))
    with tf.tidy_scope():
        it = ds.iterator()  # started inside a scope that ends before the stream is read
    assert [t.array_sync() for t in it.to_array()] == [2.0, 3.0]
