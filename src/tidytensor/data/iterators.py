"""Lazy iterators: the streams behind every :class:`~tidytensor.data.Dataset`.

TF.js's ``LazyIterator`` family, made synchronous. Each iterator pulls from its upstream
with ``_pull()`` (a value, or :data:`END`) and frees what it drops: ``map`` disposes the
input tensors its function did not pass through and runs the function in ``tidy``;
``filter`` and ``skip`` dispose what they discard; ``batch`` disposes the rows it stacked;
``shuffle``, ``prefetch`` and ``unbatch`` dispose their buffers on :meth:`close`.

The consumer calls :meth:`LazyIterator.next` (TF.js's ``{value, done}``, here an
:class:`IteratorResult`) or iterates in Python. ``close()`` (also ``with``, the end of the
stream, an error, or the iterator being garbage-collected after a ``break``) closes the
whole chain, so an early stop leaves no tensors behind. An error raised while producing an
element closes the chain too and then propagates.

Rows of plain numbers (dicts, lists and tuples of Python floats, ints and bools that only
the pipeline holds) are kept packed, 4 or 8 bytes a number, in ``shuffle``'s buffer and
while ``batch`` gathers them (see :mod:`._packed`); a ``batch`` right after a ``shuffle``
takes its rows packed, never rebuilding them as objects.
"""

from __future__ import annotations

import abc
import inspect
import itertools
import threading
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from ..engine import ENGINE
from ..errors import ArgumentTypeError, InvalidArgumentError
from ..random_engines import Alea
from ..scopes import tidy_scope
from ..tensor import Tensor
from ._async import LoopThread
from ._packed import PACKED, PackedBatch, PackedRows, Schema
from ._structure import (
    END,
    adopt,
    batch_rows,
    deep_clone,
    dispose_except,
    dispose_value,
    pipeline_context,
    tensors_of,
    unbatch_value,
)

__all__ = ["IteratorResult", "LazyIterator"]


class IteratorResult(NamedTuple):
    """One step of an iterator: ``value`` and ``done`` (TF.js's ``IteratorResult``)."""

    value: Any
    done: bool


class LazyIterator(abc.ABC):
    """A stream of dataset elements. ``next()`` hands one element to the caller (who then
    owns its tensors: they join the caller's innermost scope, if any); ``close()`` ends
    the stream and disposes whatever the pipeline still holds."""

    _closed = False

    # ------------------------------------------------------------------ subclass hooks
    @abc.abstractmethod
    def _next(self) -> Any:
        """The next element, or END. Runs in the pipeline's scope context."""

    def _close(self) -> None:  # noqa: B027 - optional hook: most iterators hold nothing
        """Disposes this iterator's buffers and closes its upstreams."""

    def summary(self) -> str:
        return type(self).__name__

    # ------------------------------------------------------------------ pipeline side
    def _pull(self) -> Any:
        if self._closed:
            return END
        return self._next()

    def close(self) -> None:
        """Ends the stream: disposes buffered elements, stops background threads, closes
        generators. Idempotent; ``next()`` returns ``done`` afterwards."""
        if self._closed:
            return
        self._closed = True
        self._close()

    # ------------------------------------------------------------------ consumer side
    def next(self) -> IteratorResult:
        """The next element as ``IteratorResult(value, done)``, as TF.js's ``next()``."""
        if self._closed:
            return IteratorResult(None, True)
        with pipeline_context():
            try:
                value = self._next()
            except BaseException:
                self.close()
                raise
            if value is END:
                self.close()
                return IteratorResult(None, True)
        return IteratorResult(adopt(value), False)

    def __iter__(self) -> LazyIterator:
        return self

    def __next__(self) -> Any:
        result = self.next()
        if result.done:
            raise StopIteration
        return result.value

    def __enter__(self) -> LazyIterator:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        if not self._closed:
            try:
                self.close()
            except Exception:  # noqa: S110 - never raise from a finalizer
                pass

    def to_array(self) -> list[Any]:
        """Every remaining element, in a list (the caller owns them)."""
        out: list[Any] = []
        try:
            while True:
                result = self.next()
                if result.done:
                    return out
                out.append(result.value)
        except BaseException:
            dispose_value(out)
            raise

    def for_each_async(self, f: Callable[[Any], Any]) -> None:
        """Calls ``f`` on every remaining element inside a tidy scope, then disposes the
        element's tensors (TF.js's ``forEachAsync``; a plain call here)."""
        loop: LoopThread | None = None
        try:
            while True:
                result = self.next()
                if result.done:
                    return
                value = result.value
                try:
                    ENGINE.start_scope("Dataset.for_each_async")
                    try:
                        out = f(value)
                        if inspect.isawaitable(out):
                            if loop is None:
                                loop = LoopThread()
                            loop.run(tidy_await(out, keep_result=False))
                    finally:
                        ENGINE.end_scope(None)
                finally:
                    dispose_value(value)
        finally:
            self.close()
            if loop is not None:
                loop.close()


async def tidy_await(aw: Any, keep_result: bool) -> Any:
    """Awaits ``aw`` inside ``async with tf.tidy_scope()``: what it makes is freed at the
    end except its result (when ``keep_result``)."""

    async with tidy_scope("Dataset.map_async") as scope:
        result = await aw
        if keep_result:
            scope.keep(result)
    return result


# ====================================================================== sources
class ItemsIterator(LazyIterator):
    """``tf.data.array``: hands out copies of the items (tensors cloned, as TF.js does), so
    the caller's items are never disposed by the pipeline."""

    def __init__(self, items: list[Any]):
        self.items = items
        self.index = 0

    def summary(self) -> str:
        return f"Array of {len(self.items)} items"

    def _next(self) -> Any:
        if self.index >= len(self.items):
            return END
        item = self.items[self.index]
        self.index += 1
        return deep_clone(item)


class FunctionCallIterator(LazyIterator):
    """``tf.data.func``: ``f()`` returns ``{'value': ..., 'done': ...}`` (a dict or an object
    with those attributes)."""

    def __init__(self, fn: Callable[[], Any]):
        self.fn = fn

    def _next(self) -> Any:
        result = self.fn()
        if isinstance(result, dict):
            done, value = result.get("done", False), result.get("value")
        else:
            done, value = getattr(result, "done", False), getattr(result, "value", None)
        if done:
            dispose_value(value)
            return END
        return value


def _note(exc: BaseException, text: str) -> None:
    notes = getattr(exc, "__notes__", ())
    if text not in notes and hasattr(exc, "add_note"):
        exc.add_note(text)


class GeneratorIterator(LazyIterator):
    """Pulls from a Python iterator (a generator made by ``tf.data.generator``'s function)."""

    def __init__(self, it: Iterator[Any]):
        self.it = it
        self.count = 0

    def summary(self) -> str:
        return "Generator"

    def _next(self) -> Any:
        try:
            value = next(self.it)
        except StopIteration:
            return END
        except Exception as e:
            _note(e, f"(raised by the dataset's generator after it produced {self.count} elements)")
            raise
        self.count += 1
        return value

    def _close(self) -> None:  # noqa: B027 - optional hook: most iterators hold nothing
        close = getattr(self.it, "close", None)
        if close is not None:
            close()


class AsyncGeneratorIterator(LazyIterator):
    """Pulls from an async iterator on a private event loop thread."""

    def __init__(self, ait: Any, loop: LoopThread):
        self.ait = ait
        self.loop = loop
        self.count = 0

    def summary(self) -> str:
        return "Async generator"

    def _next(self) -> Any:
        try:
            value = self.loop.run(self.ait.__anext__())
        except StopAsyncIteration:
            return END
        except Exception as e:
            _note(
                e,
                f"(raised by the dataset's async generator after it produced {self.count} elements)",
            )
            raise
        self.count += 1
        return value

    def _close(self) -> None:  # noqa: B027 - optional hook: most iterators hold nothing
        try:
            aclose = getattr(self.ait, "aclose", None)
            if aclose is not None:
                self.loop.run(aclose())
        finally:
            self.loop.close()


# ====================================================================== one-to-one
class _Stage(LazyIterator):
    """An iterator over one ``upstream`` iterator: ``summary`` adds ``-> STAGE`` to the
    upstream's, and closing it closes the upstream."""

    STAGE = ""
    upstream: LazyIterator

    def summary(self) -> str:
        return f"{self.upstream.summary()} -> {self.STAGE}"

    def _close(self) -> None:  # noqa: B027 - optional hook: most iterators hold nothing
        self.upstream.close()


def _map_element(value: Any, scope_name: str, call: Callable[[Any], Any]) -> Any:
    """``call(value)`` in a scope of its own: the result is kept and the element's other
    tensors are disposed (all of them when ``call`` raises)."""
    inputs = tensors_of(value)
    scope = ENGINE.start_scope(scope_name)
    try:
        out = call(value)
    except BaseException:
        ENGINE.end_scope(None)
        dispose_value(inputs)
        raise
    # A scope that tracked nothing has nothing to free or to hand on: skip walking the
    # result for its tensors (plain rows of numbers make none).
    ENGINE.end_scope(out if scope.track else None)
    dispose_except(inputs, out)
    return out


class MapIterator(_Stage):
    STAGE = "Map"

    def __init__(self, upstream: LazyIterator, fn: Callable[[Any], Any]):
        self.upstream = upstream
        self.fn = fn

    def _next(self) -> Any:
        value = self.upstream._pull()
        if value is END:
            return END
        return _map_element(value, "Dataset.map", self._call)

    def _call(self, value: Any) -> Any:
        out = self.fn(value)
        if inspect.isawaitable(out):
            if inspect.iscoroutine(out):
                out.close()
            raise ArgumentTypeError(
                "The function passed to Dataset.map() returned an awaitable; use map_async()"
            )
        return out


class AsyncMapIterator(_Stage):
    """``map_async``: the coroutine runs on a private loop inside ``async with
    tf.tidy_scope()``, so its intermediates are freed (TF.js leaves that to the user)."""

    STAGE = "AsyncMap"

    def __init__(self, upstream: LazyIterator, fn: Callable[[Any], Any]):
        self.upstream = upstream
        self.fn = fn
        self.loop: LoopThread | None = None

    def _next(self) -> Any:
        value = self.upstream._pull()
        if value is END:
            return END
        return _map_element(value, "Dataset.map_async", self._call)

    def _call(self, value: Any) -> Any:
        out = self.fn(value)
        if inspect.isawaitable(out):
            if self.loop is None:
                self.loop = LoopThread()
            out = self.loop.run(tidy_await(out, keep_result=True))
        return out

    def _close(self) -> None:  # noqa: B027 - optional hook: most iterators hold nothing
        try:
            self.upstream.close()
        finally:
            if self.loop is not None:
                self.loop.close()


def _truthy(x: Any) -> bool:
    if isinstance(x, Tensor):
        if x.size != 1:
            raise InvalidArgumentError(
                f"filter(): the predicate returned a tensor of shape {x.shape}; return a bool "
                "or a one-element tensor"
            )
        return bool(x.data_sync()[0])
    return bool(x)


class FilterIterator(_Stage):
    STAGE = "Filter"

    def __init__(self, upstream: LazyIterator, predicate: Callable[[Any], Any]):
        self.upstream = upstream
        self.predicate = predicate

    def _next(self) -> Any:
        while True:
            value = self.upstream._pull()
            if value is END:
                return END
            try:
                ENGINE.start_scope("Dataset.filter")
                try:
                    keep = _truthy(self.predicate(value))
                finally:
                    ENGINE.end_scope(None)
            except BaseException:
                dispose_value(value)
                raise
            if keep:
                return value
            dispose_value(value)


class TakeIterator(_Stage):
    STAGE = "Take"

    def __init__(self, upstream: LazyIterator, count: int):
        self.upstream = upstream
        self.max_count = count
        self.count = 0

    def _next(self) -> Any:
        if self.count >= self.max_count:
            self.upstream.close()
            return END
        value = self.upstream._pull()
        if value is END:
            return END
        self.count += 1
        if self.count >= self.max_count:
            # Nothing more will be read: free upstream buffers (shuffle, prefetch) now.
            self.upstream.close()
        return value


class SkipIterator(_Stage):
    STAGE = "Skip"

    def __init__(self, upstream: LazyIterator, count: int):
        self.upstream = upstream
        self.max_count = count
        self.count = 0

    def _next(self) -> Any:
        while self.count < self.max_count:
            skipped = self.upstream._pull()
            if skipped is END:
                return END
            self.count += 1
            dispose_value(skipped)
        return self.upstream._pull()


# ====================================================================== many-to-one, one-to-many
class BatchIterator(_Stage):
    """Groups ``batch_size`` rows into one element. Plain rows (numbers in dicts, lists
    and tuples that only the pipeline holds) are packed into ``block`` as they arrive
    instead of being kept as objects, and batched from it; see :mod:`._packed`.

    Right before a ``prefetch`` (``slots`` > 1), a batch of packed rows is handed over
    as a :class:`PackedBatch` whose tensors the consumer's thread makes as it takes it:
    ``block`` then holds ``slots`` batches' rows, one slot per batch the prefetch stage
    may still hold (its buffer, the one being put, the one being taken)."""

    STAGE = "Batch"

    def __init__(self, upstream: LazyIterator, batch_size: int, small_last_batch: bool):
        self.upstream = upstream
        self.batch_size = batch_size
        self.small_last_batch = small_last_batch
        self.exhausted = False
        self.block: PackedRows | None = None
        self.slots = 1
        self.slot = 0
        self.schema_tries = _SCHEMA_TRIES
        if type(upstream) is ShuffleIterator:
            upstream.for_batch = True  # its rows are only ever batched (by this stage)

    def _next(self) -> Any:
        if self.exhausted:
            return END
        objects: dict[int, Any] = {}
        offset = self.slot * self.batch_size
        try:
            if type(self.upstream) is ShuffleIterator:
                n = self.upstream._pull_rows(self.batch_size, objects, self, offset)
                if n < self.batch_size:
                    self.exhausted = True
            else:
                n = self._pull_rows(objects, offset)
            if n == 0 or (n < self.batch_size and not self.small_last_batch):
                dispose_value(list(objects.values()))
                return END
            block = self.block
            if block is not None and not objects and self.slots > 1:
                self.slot = (self.slot + 1) % self.slots
                return PackedBatch(block.schema, block.array[offset : offset + n])
            out = ENGINE.tidy("Dataset.batch", lambda: _batch(n, objects, block, offset))
        except BaseException:
            dispose_value(list(objects.values()))
            raise
        if objects:
            dispose_except(tensors_of(list(objects.values())), out)
        return out

    def new_block(self, schema: Schema) -> PackedRows:
        """This stage's packed rows, for ``schema``: ``slots`` batches of them."""
        self.block = PackedRows(schema, self.slots * self.batch_size, True, self.slots > 1)
        return self.block

    def _pull_rows(self, objects: dict[int, Any], offset: int) -> int:
        """Pulls up to ``batch_size`` rows: row ``i`` is packed as row ``offset + i`` of
        ``block``, or else kept as ``objects[i]``. Returns how many were pulled."""
        block = self.block
        n = 0
        while n < self.batch_size:
            value = self.upstream._pull()
            if value is END:
                self.exhausted = True
                break
            if block is None and self.schema_tries > 0:
                schema = _schema_of(value, self)
                if schema is not None:
                    block = self.new_block(schema)
            if block is None or not block.put(offset + n, value):
                objects[n] = value
            n += 1
        return n


_SCHEMA_TRIES = 8  # rows tried for a packing schema before a stage gives up on packing


def _schema_of(value: Any, stage: Any) -> Schema | None:
    """The packing schema of rows shaped like ``value`` (None where it is no plain row;
    after ``_SCHEMA_TRIES`` such rows, ``stage`` stops trying)."""
    schema = Schema.of(value)
    if schema is None:
        stage.schema_tries -= 1
    return schema


def _batch(n: int, objects: dict[int, Any], block: PackedRows | None, offset: int) -> Any:
    """``batch_rows`` of ``n`` rows: row ``i`` is ``objects[i]``, or else packed as row
    ``offset + i`` of ``block``."""
    if block is None:
        return batch_rows([objects[i] for i in range(n)])
    if not objects:
        return block.schema.batch(block.array[offset : offset + n])
    return batch_rows([objects[i] if i in objects else block.get(offset + i) for i in range(n)])


class UnbatchIterator(_Stage):
    STAGE = "Unbatch"

    def __init__(self, upstream: LazyIterator):
        self.upstream = upstream
        self.queue: deque[Any] = deque()

    def _next(self) -> Any:
        while not self.queue:
            value = self.upstream._pull()
            if value is END:
                return END
            inputs = tensors_of(value)
            try:
                rows = ENGINE.tidy("Dataset.unbatch", lambda v=value: unbatch_value(v))
            except BaseException:
                dispose_value(inputs)
                raise
            dispose_except(inputs, rows)
            self.queue.extend(rows)
        return self.queue.popleft()

    def _close(self) -> None:  # noqa: B027 - optional hook: most iterators hold nothing
        try:
            self.upstream.close()
        finally:
            queued, self.queue = list(self.queue), deque()
            dispose_value(queued)


class ShuffleIterator(_Stage):
    """Samples from a window of ``buffer_size`` upstream elements, drawing exactly as TF.js's
    ``ShuffleIterator``: a seeded alea stream (``seed``, a string, as TF.js's) picks
    ``floor(random() * length)`` in the window, and the window's last entry moves to the
    drawn one's place. As in TF.js, once the upstream has ended, the window is filled up
    with end-of-stream markers: drawing one costs a draw and shrinks the window until an
    element is drawn, after which the window is filled up again.

    Plain rows are buffered packed (see :mod:`._packed`): once ``store`` exists, window
    position ``i`` is row ``i`` of it unless ``objects`` holds the element at ``i``.
    Before that, ``buffer`` lists the elements. Positions from ``count`` to ``length``
    are end markers (kept implicit); END in ``buffer``/``objects`` is one made explicit
    by a move."""

    STAGE = "Shuffle"

    def __init__(self, upstream: LazyIterator, buffer_size: int, seed: Any):
        self.upstream = upstream
        self.buffer_size = buffer_size
        self.random = Alea(seed)
        self.count = 0  # explicit window positions
        self.length = 0  # window length (``count`` plus implicit end markers)
        self.buffer: list[Any] = []
        self.store: PackedRows | None = None
        self.objects: dict[int, Any] = {}
        self.schema_tries = _SCHEMA_TRIES
        # Set by a ``batch`` stage right after this one: then only ``_pull_rows`` reads the
        # buffer, and packed rows may be stored rounded to float32 (see PackedRows).
        self.for_batch = False
        self.exhausted = False  # the upstream has ended
        self._unpacked: Any = None

    def _fill(self) -> None:
        while not self.exhausted and self.count < self.buffer_size:
            value = self.upstream._pull()
            if value is END:
                self.exhausted = True
                self.upstream.close()
                break
            store = self.store
            if store is None and self.schema_tries > 0:
                schema = _schema_of(value, self)
                if schema is not None:
                    store = self.store = PackedRows(schema, self.buffer_size, self.for_batch)
                    self.objects = dict(enumerate(self.buffer))
                    self.buffer = []
            if store is None:
                self.buffer.append(value)
            elif not store.put(self.count, value):
                self.objects[self.count] = value
            self.count += 1
        self.length = self.buffer_size if self.exhausted else self.count

    def _draw(self, take_row: Callable[[int], None]) -> Any:
        """Removes a random element and returns it, or PACKED after ``take_row(i)`` has
        read its packed row ``i``; END when the window is empty. The last entry moves to
        the drawn one's place; drawn end markers are dropped."""
        self._fill()
        if self.exhausted and self.count == 0:
            # Only end markers are left: their draws could change nothing anyone sees (the
            # iteration ends, and the next one is seeded afresh), so skip them.
            self.length = 0
        while self.length > 0:
            last = self.length - 1
            i = int(self.random() * self.length)
            self.length = last
            if i >= self.count:  # an implicit end marker
                continue
            item = self._take(i, last, take_row)
            if item is not END:
                return item
        return END

    def _take(self, i: int, last: int, take_row: Callable[[int], None]) -> Any:
        """Removes explicit position ``i`` and moves window position ``last`` there."""
        count = self.count
        if self.store is None:
            buffer = self.buffer
            item = buffer[i]
            if last >= count:  # an implicit end marker moves in
                buffer[i] = END
            else:
                buffer[i] = buffer[last]
                buffer.pop()
                self.count = last
            return item
        objects = self.objects
        item = objects.pop(i, PACKED)
        if item is PACKED:
            take_row(i)
        if last >= count:
            objects[i] = END
        else:
            if i != last:
                moved = objects.pop(last, PACKED)
                if moved is PACKED:
                    self.store.move(last, i)
                else:
                    objects[i] = moved
            self.count = last
        return item

    def _next(self) -> Any:
        item = self._draw(self._unpack_row)
        if item is PACKED:
            item, self._unpacked = self._unpacked, None
        return item

    def _unpack_row(self, i: int) -> None:
        self._unpacked = self.store.get(i)  # type: ignore[union-attr]

    def _pull_rows(self, n: int, objects: dict[int, Any], batch: BatchIterator, offset: int) -> int:
        """Up to ``n`` draws (fewer at the end of the stream), as ``n`` calls of ``_next``
        would make them, for ``batch``: draw ``i`` is packed as row ``offset + i`` of its
        ``block``, or else kept as ``objects[i]``. Returns how many were drawn."""
        if self._closed:
            return 0
        count = 0

        def take_row(i: int) -> None:
            store: PackedRows = self.store  # type: ignore[assignment]  # a packed row was drawn
            block = batch.block or batch.new_block(store.schema)
            store.copy_to(i, block, offset + count)

        while count < n:
            item = self._draw(take_row)
            if item is END:
                break
            if item is not PACKED:
                objects[count] = item
            count += 1
        return count

    def _close(self) -> None:  # noqa: B027 - optional hook: most iterators hold nothing
        try:
            self.upstream.close()
        finally:
            held = [x for x in self.buffer + list(self.objects.values()) if x is not END]
            self.buffer, self.objects, self.count, self.length = [], {}, 0, 0
            self.store = None
            dispose_value(held)


class _Raised:
    __slots__ = ("exc",)

    def __init__(self, exc: BaseException):
        self.exc = exc


class _Channel:
    """A bounded hand-off between the prefetch thread and the consumer."""

    def __init__(self, capacity: int):
        self.cond = threading.Condition()
        self.items: deque[Any] = deque()
        self.capacity = capacity
        self.closed = False
        self.finished = False

    def put(self, item: Any) -> bool:
        with self.cond:
            while len(self.items) >= self.capacity and not self.closed:
                self.cond.wait()
            if self.closed:
                return False
            self.items.append(item)
            self.cond.notify_all()
            return True

    def get(self) -> Any:
        with self.cond:
            while not self.items:
                if self.finished:
                    return END
                self.cond.wait()
            item = self.items.popleft()
            self.cond.notify_all()
            return item

    def finish(self) -> None:
        with self.cond:
            self.finished = True
            self.cond.notify_all()

    def close(self) -> list[Any]:
        with self.cond:
            self.closed = True
            items = list(self.items)
            self.items.clear()
            self.cond.notify_all()
            return items


def _prefetch_worker(upstream: LazyIterator, channel: _Channel) -> None:
    """Runs the upstream pipeline ahead of the consumer. It owns ``upstream``: it is the
    only thread that pulls from it, and it closes it on the way out."""
    try:
        while True:
            try:
                value = upstream._pull()
            except BaseException as e:
                channel.put(_Raised(e))
                return
            if value is END:
                channel.put(END)
                return
            if not channel.put(value):
                dispose_value(value)
                return
    finally:
        try:
            upstream.close()
        finally:
            channel.finish()


class PrefetchIterator(_Stage):
    """Produces up to ``buffer_size`` elements ahead on a background thread, so that the
    upstream work (I/O, parsing, map functions) overlaps the consumer's."""

    STAGE = "Prefetch"

    def __init__(self, upstream: LazyIterator, buffer_size: int):
        self.upstream = upstream
        self.buffer_size = buffer_size
        self.channel = _Channel(buffer_size)
        self.thread: threading.Thread | None = None
        if type(upstream) is BatchIterator:
            # Batches of plain rows cross over packed; the consumer makes their tensors.
            # Slots: the channel's, the batch being put, and the one being taken.
            upstream.slots = buffer_size + 2

    def _next(self) -> Any:
        if self.thread is None:
            # The worker gets the upstream and the channel, never ``self``: dropping this
            # iterator (a ``break``) lets it be collected and closed.
            self.thread = threading.Thread(
                target=_prefetch_worker,
                args=(self.upstream, self.channel),
                name="tidytensor-data-prefetch",
                daemon=True,
            )
            self.thread.start()
        item = self.channel.get()
        if type(item) is PackedBatch:
            return ENGINE.tidy("Dataset.batch", item.tensors)
        if isinstance(item, _Raised):
            _note(item.exc, "(raised in the dataset's prefetch thread)")
            raise item.exc
        return item

    def _close(self) -> None:  # noqa: B027 - optional hook: most iterators hold nothing
        leftover = self.channel.close()
        thread = self.thread
        if thread is None:
            self.upstream.close()
        elif thread is not threading.current_thread():
            thread.join()
            leftover += self.channel.close()
        dispose_value([x for x in leftover if x is not END and not isinstance(x, _Raised)])


# ====================================================================== combinators
class ChainedIterator(LazyIterator):
    """Concatenates the streams made by ``factories`` (an iterator of zero-argument callables
    returning a LazyIterator), opening each only when the previous one has ended."""

    def __init__(
        self, factories: Iterator[Callable[[], LazyIterator]], stop_on_empty: bool = False
    ):
        self.factories = factories
        self.current: LazyIterator | None = None
        self.stop_on_empty = stop_on_empty
        self.produced = 0

    def summary(self) -> str:
        return "Chained"

    def _next(self) -> Any:
        while True:
            if self.current is None:
                factory = next(self.factories, None)
                if factory is None:
                    return END
                self.current = factory()
                self.produced = 0
            value = self.current._pull()
            if value is not END:
                self.produced += 1
                return value
            self.current.close()
            self.current = None
            if self.stop_on_empty and self.produced == 0:
                # An endless repeat of an empty stream would spin forever.
                self.factories = iter(())
                return END

    def _close(self) -> None:  # noqa: B027 - optional hook: most iterators hold nothing
        if self.current is not None:
            current, self.current = self.current, None
            current.close()


def repeat_factories(factory: Callable[[], LazyIterator], count: int | None) -> Iterator[Any]:
    if count is None or count < 0:
        return itertools.repeat(factory)
    return itertools.repeat(factory, count)


class ZipIterator(LazyIterator):
    """Pulls one element from each iterator of a nested structure and returns them in that
    structure; ends with the shortest stream (disposing the partial row)."""

    def __init__(self, structure: Any, iterators: list[LazyIterator]):
        self.structure = structure  # the nest with iterator indices as leaves
        self.iterators = iterators

    def summary(self) -> str:
        return "Zip"

    def _next(self) -> Any:
        values = []
        for it in self.iterators:
            try:
                value = it._pull()
            except BaseException:
                dispose_value(values)
                raise
            if value is END:
                dispose_value(values)
                for other in self.iterators:
                    other.close()
                return END
            values.append(value)
        return _rebuild(self.structure, values)

    def _close(self) -> None:  # noqa: B027 - optional hook: most iterators hold nothing
        errors = []
        for it in self.iterators:
            try:
                it.close()
            except Exception as e:  # close every stream even if one fails
                errors.append(e)
        if errors:
            raise errors[0]


class _Leaf(int):
    """An index into a flat list, standing for a leaf of a nested structure."""


def _rebuild(node: Any, values: list[Any]) -> Any:
    if isinstance(node, _Leaf):
        return values[node]
    if isinstance(node, dict):
        return {k: _rebuild(v, values) for k, v in node.items()}
    items = [_rebuild(v, values) for v in node]
    if isinstance(node, list):
        return items
    return type(node)(*items) if hasattr(node, "_fields") else tuple(items)


def flatten_structure(node: Any, is_leaf: Callable[[Any], bool], leaves: list[Any]) -> Any:
    """Replaces the leaves of a dict/list/tuple nest by ``_Leaf`` indices into ``leaves``."""
    if is_leaf(node):
        leaves.append(node)
        return _Leaf(len(leaves) - 1)
    if isinstance(node, dict):
        return {k: flatten_structure(v, is_leaf, leaves) for k, v in node.items()}
    if isinstance(node, (list, tuple)):
        items = [flatten_structure(v, is_leaf, leaves) for v in node]
        if isinstance(node, list):
            return items
        return type(node)(*items) if hasattr(node, "_fields") else tuple(items)
    raise InvalidArgumentError(
        "Leaves of the structure passed to zip() must be Datasets, not primitives. "
        f"Got {type(node).__name__}."
    )
