"""``Dataset``: TF.js's ``tf.data.Dataset``, synchronous, with its memory rules kept exact.

A dataset is a recipe: ``iterator()`` starts a fresh stream (re-reading a file, restarting
a generator), and the chainable ops (``map``, ``batch``, ``shuffle``...) return new
datasets. ``size`` follows TF.js's rules: an ``int``, ``math.inf``, or ``None`` (unknown).
"""

from __future__ import annotations

import abc
import inspect
import math
import os
import random
import threading
import time
from collections.abc import Callable
from typing import Any

from ..errors import ArgumentTypeError, InvalidArgumentError
from ..random_engines import Alea, js_number_to_string
from ._async import LoopThread
from ._structure import dispose_value, pipeline_context
from .iterators import (
    AsyncGeneratorIterator,
    AsyncMapIterator,
    BatchIterator,
    ChainedIterator,
    FilterIterator,
    FunctionCallIterator,
    GeneratorIterator,
    ItemsIterator,
    LazyIterator,
    MapIterator,
    PrefetchIterator,
    ShuffleIterator,
    SkipIterator,
    TakeIterator,
    UnbatchIterator,
    ZipIterator,
    flatten_structure,
    repeat_factories,
)

__all__ = ["Dataset", "array", "dataset_from_iterator_fn", "func", "generator", "zip"]

_INF = math.inf


def _check_count(count: Any, op: str) -> int | None:
    """None and +inf mean "no limit" (None); -inf is a negative count."""
    if count is None:
        return None
    if isinstance(count, float) and math.isinf(count):
        return None if count > 0 else -1
    if isinstance(count, bool) or not isinstance(count, int):
        raise ArgumentTypeError(f"Dataset.{op}(): count must be an integer or None, got {count!r}")
    return count


def _check_positive(value: Any, name: str, op: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgumentTypeError(f"Dataset.{op}(): {name} must be an integer, got {value!r}")
    if value <= 0:
        raise InvalidArgumentError(f"{name} needs to be positive, but it is {value}")
    return value


class Dataset(abc.ABC):
    """A re-iterable stream of elements (TF.js's ``tf.data.Dataset``).

    Elements are tensors, numbers, strings, bools, NumPy arrays, or dicts/lists/tuples of
    those. Who owns their tensors: the pipeline, until an element is handed to the
    consumer (by ``iterator().next()``, Python iteration or ``to_array``); then the
    consumer, whose innermost open scope (``tf.tidy``, ``tf.tidy_scope``) takes them, or
    who disposes them by hand. Everything the pipeline drops on the way (``map``'s
    intermediates and consumed inputs, filtered and skipped elements, batched rows,
    buffered elements when a stream is closed early) is disposed.

    >>> ds = tf.data.array([1, 2, 3, 4, 5]).map(lambda x: x * 10).batch(2)
    >>> [b.array_sync() for b in ds.borrow()]
    [[10.0, 20.0], [30.0, 40.0], [50.0]]
    >>> ds.size
    3
    """

    #: TF.js's bound for buffers that should fit in memory.
    MAX_BUFFER_SIZE = 10000

    size: int | float | None = None

    @abc.abstractmethod
    def iterator(self) -> LazyIterator:
        """A fresh stream over this dataset's elements."""

    def __iter__(self) -> LazyIterator:
        return self.iterator()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} size={self.size}>"

    # ------------------------------------------------------------------ consuming
    def borrow(self) -> Any:
        """Iterates with borrowed elements: each element's tensors are disposed when the
        loop asks for the next one, and the last when the loop ends (or breaks). Clone
        what must outlive its step. The simplest leak-free training loop:

        >>> ds = tf.data.array([[1, 2], [3, 4]]).batch(2)
        >>> before = tf.memory().num_tensors
        >>> for xs in ds.borrow():
        ...     total = tf.tidy(lambda: xs.sum().array_sync())
        >>> total, tf.memory().num_tensors - before
        (10.0, 0)
        """
        it = self.iterator()
        value: Any = None
        try:
            while True:
                dispose_value(value)
                value = None
                result = it.next()
                if result.done:
                    return
                value = result.value
                yield value
        finally:
            dispose_value(value)
            it.close()

    def to_array(self) -> list[Any]:
        """Every element in a list (for datasets that fit in memory; the caller owns them).

        >>> tf.data.array([1, 2, 3]).skip(1).to_array()
        [2, 3]
        """
        if self.size == _INF:
            raise InvalidArgumentError("Can not convert infinite data stream to array.")
        return self.iterator().to_array()

    def to_array_for_test(self) -> list[Any]:
        """``to_array`` through a 100-element prefetch (TF.js's ``toArrayForTest``)."""
        if self.size == _INF:
            raise InvalidArgumentError("Can not convert infinite data stream to array.")
        return PrefetchIterator(self.iterator(), 100).to_array()

    def for_each_async(self, f: Callable[[Any], Any]) -> None:
        """Calls ``f(element)`` for every element, inside a tidy scope, then disposes the
        element's tensors. A plain call (``f`` may also be a coroutine function)."""
        self.iterator().for_each_async(f)

    # ------------------------------------------------------------------ transforming
    def map(self, transform: Callable[[Any], Any]) -> Dataset:
        """Applies ``transform`` to every element, inside ``tf.tidy``: its intermediates
        are freed, and the input tensors it does not return are disposed.

        >>> tf.data.array([1, 2, 3]).map(lambda x: x * x).to_array()
        [1, 4, 9]
        """
        if not callable(transform):
            raise ArgumentTypeError(f"Dataset.map(): transform must be callable, got {transform!r}")
        if inspect.iscoroutinefunction(transform):
            raise ArgumentTypeError(
                "Dataset.map() was given a coroutine function; use map_async() for async transforms"
            )
        base = self
        return dataset_from_iterator_fn(lambda: MapIterator(base.iterator(), transform), self.size)

    def map_async(self, transform: Callable[[Any], Any]) -> Dataset:
        """Like ``map`` for a coroutine function (run on a private event loop, inside
        ``async with tf.tidy_scope()``, so its intermediates are freed too)."""
        if not callable(transform):
            raise ArgumentTypeError(
                f"Dataset.map_async(): transform must be callable, got {transform!r}"
            )
        base = self
        return dataset_from_iterator_fn(
            lambda: AsyncMapIterator(base.iterator(), transform), self.size
        )

    def filter(self, predicate: Callable[[Any], Any]) -> Dataset:
        """Keeps the elements for which ``predicate`` (run in tidy) is true; disposes the rest.

        >>> tf.data.array(list(range(1, 11))).filter(lambda x: x % 2 == 0).to_array()
        [2, 4, 6, 8, 10]
        """
        if not callable(predicate):
            raise ArgumentTypeError(
                f"Dataset.filter(): predicate must be callable, got {predicate!r}"
            )
        base = self
        size = _INF if self.size == _INF else None
        return dataset_from_iterator_fn(lambda: FilterIterator(base.iterator(), predicate), size)

    def batch(self, batch_size: int, small_last_batch: bool = True) -> Dataset:
        """Groups ``batch_size`` elements into one: tensors are stacked on a new axis 0,
        numbers (and bools, strings, nested lists of them) become one tensor, dicts and
        tuples are batched key by key. With ``small_last_batch=False`` a final partial
        batch is dropped (and disposed).

        >>> [b.shape for b in tf.data.array([[1], [2], [3]]).batch(2).borrow()]
        [[2, 1], [1, 1]]
        """
        _check_positive(batch_size, "batch_size", "batch")
        if self.size == _INF or self.size is None:
            size = self.size
        elif small_last_batch:
            size = math.ceil(self.size / batch_size)
        else:
            size = self.size // batch_size
        base = self
        return dataset_from_iterator_fn(
            lambda: BatchIterator(base.iterator(), batch_size, bool(small_last_batch)), size
        )

    def unbatch(self) -> Dataset:
        """Splits each element along axis 0 into rows (the inverse of ``batch``).

        >>> tf.data.array([[[1, 2], [3, 4]]]).unbatch().map(lambda t: t.array_sync()).to_array()
        [[1.0, 2.0], [3.0, 4.0]]
        """
        base = self
        size = _INF if self.size == _INF else None
        return dataset_from_iterator_fn(lambda: UnbatchIterator(base.iterator()), size)

    def concatenate(self, dataset: Dataset) -> Dataset:
        """This dataset's elements followed by ``dataset``'s.

        >>> tf.data.array([1, 2]).concatenate(tf.data.array([3])).to_array()
        [1, 2, 3]
        """
        if not isinstance(dataset, Dataset):
            raise ArgumentTypeError(
                f"Dataset.concatenate(): expected a Dataset, got {type(dataset).__name__}"
            )
        if self.size == _INF or dataset.size == _INF:
            size: Any = _INF
        elif self.size is not None and dataset.size is not None:
            size = self.size + dataset.size
        else:
            size = None
        base = self
        return dataset_from_iterator_fn(
            lambda: ChainedIterator(iter([base.iterator, dataset.iterator])), size
        )

    def repeat(self, count: int | None = None) -> Dataset:
        """Repeats the dataset ``count`` times (forever when ``None`` or negative); each
        repetition is a fresh ``iterator()``. An endless repeat of an empty stream ends.

        >>> tf.data.array([1, 2]).repeat(2).to_array()
        [1, 2, 1, 2]
        """
        count = _check_count(count, "repeat")
        if self.size is not None and count is not None and count > 0:
            size: Any = self.size * count
        elif count == 0:
            size = 0
        elif self.size is not None and (count is None or count < 0):
            size = _INF
        else:
            size = None
        base = self
        endless = count is None or count < 0
        return dataset_from_iterator_fn(
            lambda: ChainedIterator(repeat_factories(base.iterator, count), stop_on_empty=endless),
            size,
        )

    def take(self, count: int | None) -> Dataset:
        """At most the first ``count`` elements (all of them when ``None`` or negative). The
        upstream is closed as soon as the last one is taken, freeing its buffers.

        >>> tf.data.array([1, 2, 3, 4]).take(2).to_array()
        [1, 2]
        """
        count = _check_count(count, "take")
        if self.size is not None and count is not None and count >= 0 and self.size > count:
            size: Any = count
        elif self.size is not None:
            size = self.size
        else:
            size = None
        base = self
        if count is None or count < 0:
            return dataset_from_iterator_fn(base.iterator, size)
        return dataset_from_iterator_fn(lambda: TakeIterator(base.iterator(), count), size)

    def skip(self, count: int | None) -> Dataset:
        """Drops (and disposes) the first ``count`` elements; all of them when ``None`` or
        negative, as in TF.js.

        >>> tf.data.array([1, 2, 3, 4]).skip(3).to_array()
        [4]
        """
        count = _check_count(count, "skip")
        if self.size is not None and count is not None and count >= 0 and self.size >= count:
            size: Any = self.size - count
        elif self.size is not None:
            size = 0
        else:
            size = None
        base = self
        n = math.inf if count is None or count < 0 else count
        return dataset_from_iterator_fn(lambda: SkipIterator(base.iterator(), n), size)

    def shuffle(
        self, buffer_size: int, seed: int | str | None = None, reshuffle_each_iteration: bool = True
    ) -> Dataset:
        """Samples uniformly from a buffer of ``buffer_size`` elements (the whole dataset
        is shuffled when it is at least the dataset's size). ``seed`` makes the orders
        reproducible; with ``reshuffle_each_iteration=False`` every iteration gives the
        same order (TF.js 4.22 reshuffles either way; its first order is this one). The
        orders are TF.js's for the same seed (a string or number, hashed as JS's String()).
        Rows of plain numbers (dicts/lists/tuples of floats, ints, bools) are buffered
        packed, 4 or 8 bytes a number instead of a Python object each.

        >>> sorted(tf.data.array([1, 2, 3, 4]).shuffle(4, seed=1).to_array())
        [1, 2, 3, 4]
        """
        if buffer_size is None or (isinstance(buffer_size, (int, float)) and buffer_size < 0):
            message = "`Dataset.shuffle()` requires buffer_size to be specified."
            if self.size is not None:
                message += (
                    "  If your data fits in main memory (for regular Python objects), and/or "
                    "GPU memory (for `tf.Tensor`s), consider setting buffer_size to the "
                    f"dataset size ({self.size} elements)"
                )
            raise InvalidArgumentError(message)
        _check_positive(buffer_size, "buffer_size", "shuffle")
        if seed is None or seed == "":
            seed = f"{time.time_ns()}-{os.getpid()}-{random.random()}"
        # TF.js's seeding: an alea stream on the dataset's seed gives every iteration the
        # seed of its window's stream (one int32, plus a second one when reshuffling).
        master = Alea(seed)
        lock = threading.Lock()
        fixed: list[str] = []
        base = self

        def make() -> LazyIterator:
            with lock:
                if reshuffle_each_iteration:
                    stream_seed = js_number_to_string(master.int32() + master.int32())
                else:
                    if not fixed:
                        fixed.append(js_number_to_string(master.int32()))
                    stream_seed = fixed[0]
            return ShuffleIterator(base.iterator(), buffer_size, stream_seed)

        return dataset_from_iterator_fn(make, self.size)

    def prefetch(self, buffer_size: int) -> Dataset:
        """Produces up to ``buffer_size`` elements ahead on a background thread, so I/O and
        preprocessing overlap the consumer's compute. Closing the stream (or a ``break``)
        stops the thread and disposes what it had produced. Batches of plain rows of
        numbers cross over packed: their tensors are made as the consumer takes them."""
        if buffer_size is None:
            raise InvalidArgumentError("`Dataset.prefetch()` requires buffer_size to be specified.")
        _check_positive(buffer_size, "buffer_size", "prefetch")
        base = self
        return dataset_from_iterator_fn(
            lambda: PrefetchIterator(base.iterator(), buffer_size), self.size
        )


class _FnDataset(Dataset):
    def __init__(self, iterator_fn: Callable[[], LazyIterator], size: Any):
        self._iterator_fn = iterator_fn
        self.size = size

    def iterator(self) -> LazyIterator:
        # Work done to start a stream (a generator function building its first tensors)
        # belongs to the pipeline too, not to the scope the caller happens to be in.
        with pipeline_context():
            return self._iterator_fn()


def dataset_from_iterator_fn(iterator_fn: Callable[[], LazyIterator], size: Any = None) -> Dataset:
    """A dataset whose ``iterator()`` calls ``iterator_fn`` (TF.js's ``datasetFromIteratorFn``)."""
    return _FnDataset(iterator_fn, size)


def array(items: list[Any]) -> Dataset:
    """A dataset of the given items (TF.js's ``tf.data.array``). Each iteration hands out
    copies: tensors are cloned (sharing their buffers), so the caller's items stay the
    caller's.

    >>> tf.data.array([{'a': 1}, {'a': 2}]).to_array()
    [{'a': 1}, {'a': 2}]
    """
    if isinstance(items, tuple):
        items = list(items)
    if not isinstance(items, list):
        raise ArgumentTypeError(
            f"tf.data.array() expects a list of elements, got {type(items).__name__}"
        )
    return dataset_from_iterator_fn(lambda: ItemsIterator(items), len(items))


def zip(datasets: Any) -> Dataset:  # noqa: A001 - TF.js's name
    """Zips a dict, list or tuple (possibly nested) of datasets into one whose elements have
    that structure; it ends with the shortest dataset.

    >>> ds = tf.data.zip({'a': tf.data.array([1, 2]), 'b': tf.data.array([3, 4, 5])})
    >>> ds.to_array(), ds.size
    ([{'a': 1, 'b': 3}, {'a': 2, 'b': 4}], 2)
    """
    if not isinstance(datasets, (dict, list, tuple)):
        raise ArgumentTypeError("The argument to zip() must be an object or array.")
    leaves: list[Dataset] = []
    structure = flatten_structure(datasets, lambda d: isinstance(d, Dataset), leaves)
    sizes = [d.size for d in leaves]
    size = None if (not sizes or any(s is None for s in sizes)) else min(sizes)
    return dataset_from_iterator_fn(
        lambda: ZipIterator(structure, [d.iterator() for d in leaves]), size
    )


def generator(generator: Callable[[], Any]) -> Dataset:
    """A dataset from a function returning an iterator: a generator function, an async
    generator function (run on a private event loop thread), or any function returning an
    iterable or async iterable. Called afresh for every iteration (every epoch). As in
    TF.js, the generator owns the tensors it makes until it yields them: wrap the work
    behind each element in ``tf.tidy`` so that its intermediates are freed.

    >>> def gen():
    ...     for i in range(3):
    ...         yield {'x': i}
    >>> tf.data.generator(gen).batch(3).map(lambda b: b['x'].array_sync()).to_array()
    [[0.0, 1.0, 2.0]]
    """
    if not callable(generator):
        hint = ""
        if inspect.isgenerator(generator) or inspect.isasyncgen(generator):
            hint = (
                " Pass the generator function itself (not the generator object it returned): "
                "a dataset restarts it for every iteration."
            )
        raise ArgumentTypeError(
            f"tf.data.generator() expects a function returning an iterator, got "
            f"{type(generator).__name__}.{hint}"
        )

    def make() -> LazyIterator:
        loop: LoopThread | None = None
        try:
            result = generator()
            if inspect.isawaitable(result):
                loop = LoopThread()
                result = loop.run(result)
            if hasattr(result, "__anext__"):
                if loop is None:
                    loop = LoopThread()
                return AsyncGeneratorIterator(result, loop)
            if hasattr(result, "__aiter__"):
                if loop is None:
                    loop = LoopThread()
                return AsyncGeneratorIterator(result.__aiter__(), loop)
            if loop is not None:
                loop.close()
                loop = None
            try:
                it = iter(result)
            except TypeError:
                raise ArgumentTypeError(
                    "The function passed to tf.data.generator() must return an iterator or an "
                    f"async iterator, but it returned {type(result).__name__}"
                ) from None
            return GeneratorIterator(it)
        except BaseException:
            if loop is not None:
                loop.close()
            raise

    return dataset_from_iterator_fn(make, None)


def func(f: Callable[[], Any]) -> Dataset:
    """A dataset whose elements come from calling ``f()``, which returns
    ``{'value': element, 'done': False}`` and finally ``{'done': True}`` (TF.js's
    ``tf.data.func``). As in TF.js, every iteration continues the same stream.

    >>> state = {'i': 0}
    >>> def step():
    ...     state['i'] += 1
    ...     return {'value': state['i'], 'done': state['i'] > 3}
    >>> tf.data.func(step).to_array()
    [1, 2, 3]
    """
    if not callable(f):
        raise ArgumentTypeError(f"tf.data.func() expects a function, got {type(f).__name__}")
    it = FunctionCallIterator(f)

    class _Shared(LazyIterator):
        def _next(self) -> Any:
            return it._pull()

    return dataset_from_iterator_fn(_Shared, None)
