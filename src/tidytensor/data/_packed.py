"""Plain rows stored packed: 4 or 8 bytes a number instead of a tree of Python objects.

A dataset row such as ``{'xs': [0.1, -1.2, ...], 'ys': [1.0]}`` costs about 700 bytes as
Python objects (a dict, lists, one 24-byte float object per number and their allocator
overhead), and ``shuffle`` holds thousands of them. A :class:`Schema` describes such a row
(dicts, lists and tuples whose leaves are Python floats, ints and bools) and writes its
numbers into one row of a :class:`PackedRows` store (float64; float32 where the rows are
only ever batched, see there). ``shuffle`` keeps its buffer there and ``batch`` gathers
its rows there, so neither holds the rows as objects; a ``batch`` right before a
``prefetch`` hands its rows over packed (:class:`PackedBatch`), and the consumer's thread
makes their tensors (so the prefetch thread's allocations stay small).

Nothing observable changes:

* A row is packed only when its dicts and lists are referenced by the pipeline alone (the
  reference count is checked: nobody else can see or mutate them; tuples, immutable, are
  taken as values, as ``copy.deepcopy`` does); shared rows, and rows
  holding anything else (tensors, strings, NumPy arrays, subclasses, ints beyond 2**53),
  stay objects.
* Unpacking a float64 row rebuilds an equal row: the same dict keys in the same order,
  lists and tuples of the same lengths, and every number with its Python type and exact
  value (float64 holds every float, every bool and every int up to 2**53).
* :meth:`Schema.batch` gives the tensors :func:`~tidytensor.data._structure.batch_rows`
  gives for the same rows (numbers float32, rounded once from their exact values; bools
  bool).
"""

from __future__ import annotations

import math
import mmap
import struct
import sys
from typing import Any

import numpy as np

from ..engine import ENGINE
from ._structure import is_tensor_like_list

__all__ = ["PACKED", "PackedBatch", "PackedRows", "Schema"]

#: Stands for a packed row in a list of rows (never a dataset element).
PACKED: Any = type("PackedRow", (), {"__repr__": lambda self: "PACKED", "__slots__": ()})()

# Reference counts prove a row is the pipeline's alone; without them (or where they are
# approximate, as in free-threaded builds) nothing is packed.
_refcount = getattr(sys, "getrefcount", None)
if not getattr(sys, "_is_gil_enabled", lambda: True)():
    _refcount = None
_EXACT_INT = 2**53
_LEAF_TYPES = (float, int, bool)
_UNCALIBRATED = -1
_MMAP_BYTES = 64 * 1024  # stores this big get an anonymous mapping of their own
_RESERVE_BYTES = 16 * 2**20  # a store's first allocation at most; it doubles beyond


def _shared(node: Any, obj: Any) -> bool:
    """Whether ``obj`` (a container at ``node``) has a reference beyond its place in the
    row. ``node.limit`` is the count a row the pipeline alone holds shows at this point
    of the walk, measured on a freshly built row when a :class:`PackedRows` is made."""
    n = _refcount(obj)
    if n > node.limit:
        if node.limit != _UNCALIBRATED:
            return True
        node.limit = n
    return False


class _Leaf:
    """A number at a structure position (batched into a ``[k]`` tensor)."""

    __slots__ = ("offset", "is_bool")
    size = 1

    def __init__(self, offset: int, value: Any):
        self.offset = offset
        self.is_bool = type(value) is bool

    def flatten(self, v: Any, out: list) -> bool:
        out.append(v)  # its type is checked with the whole row's
        return True

    def build(self, vals: Any) -> Any:
        return vals[self.offset]

    def batch(self, block: np.ndarray) -> Any:
        return _tensor(block[:, self.offset], self.is_bool)


class _Group:
    """A rectangular nested list of numbers (one tensor per row, batched into
    ``[k, *shape]``). Its lists are checked level by level."""

    __slots__ = ("offset", "shape", "size", "is_bool", "limit", "inner_limit")

    def __init__(self, offset: int, shape: tuple[int, ...], is_bool: bool):
        self.offset = offset
        self.shape = shape
        self.size = math.prod(shape)
        self.is_bool = is_bool
        self.limit = _UNCALIBRATED
        self.inner_limit = _UNCALIBRATED

    def flatten(self, v: Any, out: list) -> bool:
        shape = self.shape
        if type(v) is not list or len(v) != shape[0] or _shared(self, v):
            return False
        if len(shape) == 1:
            out.extend(v)
            return True
        return self._inner(v, 1, out)

    def _inner(self, v: list, depth: int, out: list) -> bool:
        n = self.shape[depth]
        last = depth == len(self.shape) - 1
        for sub in v:
            if type(sub) is not list or len(sub) != n or self._shared_inner(sub):
                return False
            if last:
                out.extend(sub)
            elif not self._inner(sub, depth + 1, out):
                return False
        return True

    def _shared_inner(self, sub: list) -> bool:
        n = _refcount(sub)
        if n > self.inner_limit:
            if self.inner_limit != _UNCALIBRATED:
                return True
            self.inner_limit = n
        return False

    def build(self, vals: Any) -> Any:
        flat = list(vals[self.offset : self.offset + self.size])
        for n in reversed(self.shape[1:]):
            flat = [flat[i : i + n] for i in range(0, len(flat), n)]
        return flat

    def batch(self, block: np.ndarray) -> Any:
        cols = block[:, self.offset : self.offset + self.size]
        return _tensor(cols.reshape((block.shape[0], *self.shape)), self.is_bool)


class _Dict:
    __slots__ = ("keys", "children", "limit")

    def __init__(self, keys: tuple, children: tuple):
        self.keys = keys
        self.children = children
        self.limit = _UNCALIBRATED

    def flatten(self, v: Any, out: list) -> bool:
        if type(v) is not dict or len(v) != len(self.keys) or _shared(self, v):
            return False
        for key, stored, child in zip(v, self.keys, self.children, strict=True):
            if key is not stored and key != stored:  # the same keys in the same order
                return False
            if not child.flatten(v[key], out):
                return False
        return True

    def build(self, vals: Any) -> Any:
        return {k: c.build(vals) for k, c in zip(self.keys, self.children, strict=True)}

    def batch(self, block: np.ndarray) -> Any:
        return {k: c.batch(block) for k, c in zip(self.keys, self.children, strict=True)}


class _Seq:
    """A tuple, or a list of structures (batched item by item)."""

    __slots__ = ("kind", "children", "limit")

    def __init__(self, kind: type, children: tuple):
        self.kind = kind
        self.children = children
        self.limit = _UNCALIBRATED

    def flatten(self, v: Any, out: list) -> bool:
        if type(v) is not self.kind or len(v) != len(self.children):
            return False
        # A tuple cannot change, and Python itself treats equal ones as interchangeable
        # (``copy.deepcopy`` returns a tuple of numbers as it is): only lists are checked.
        if self.kind is list and _shared(self, v):
            return False
        for item, child in zip(v, self.children, strict=True):
            if not child.flatten(item, out):
                return False
        return True

    def build(self, vals: Any) -> Any:
        return self.kind(c.build(vals) for c in self.children)

    def batch(self, block: np.ndarray) -> Any:
        return self.kind(c.batch(block) for c in self.children)


def _tensor(values: np.ndarray, is_bool: bool) -> Any:
    """The tensor ``tensor(rows)`` makes from these numbers: bools from their 0/1, numbers
    float32 (a float64 block is rounded to float32 once, as ``tensor`` stores JS numbers;
    a float32 block already holds them so rounded). The array made here is the tensor's
    own storage (``tensor`` would copy it once more)."""
    if is_bool:
        return ENGINE.make_tensor(values != 0, values.shape, "bool")
    with np.errstate(over="ignore"):
        data = np.ascontiguousarray(values, dtype=np.float32)
    if data is values or data.base is not None:  # a view: the tensor gets a copy of its own
        data = data.copy()
    return ENGINE.make_tensor(data, values.shape, "float32")


class Schema:
    """The structure of a plain row and where its numbers go in a packed row."""

    def __init__(self, root: Any, types: tuple):
        self.root = root
        self.types = types
        self.type_list = list(types)
        self.width = len(types)
        self.int_positions = tuple(i for i, t in enumerate(types) if t is int)
        self.plain_floats = all(t is float for t in types)

    @classmethod
    def of(cls, value: Any) -> Schema | None:
        """The schema of ``value``, or None where it is not a plain row."""
        if _refcount is None:
            return None
        types: list[type] = []
        root = _node(value, types)
        if root is None or not types:
            return None
        return cls(root, tuple(types))

    def flatten(self, value: Any) -> list | None:
        """The row's numbers in packing order, or None when ``value`` does not fit this
        schema or is not the pipeline's alone."""
        out: list = []
        if not self.root.flatten(value, out) or len(out) != self.width:
            return None
        # A list, not a tuple: ``tuple(map(...))`` sizes its result by a resize, and the
        # tuples so made pile up in CPython's free list of that size (up to 2,000 of them).
        if list(map(type, out)) != self.type_list:
            return None
        for i in self.int_positions:
            if not -_EXACT_INT <= out[i] <= _EXACT_INT:
                return None
        return out

    def unpack(self, raw: tuple) -> Any:
        """A fresh row from its packed numbers ``raw`` (equal to the packed row when
        those were stored as float64)."""
        if self.plain_floats:
            return self.root.build(raw)
        vals = [
            x if t is float else (int(x) if t is int else x != 0)
            for x, t in zip(raw, self.types, strict=True)
        ]
        return self.root.build(vals)

    def batch(self, block: np.ndarray) -> Any:
        """The batched element of the packed rows ``block`` (``[k, width]``)."""
        return self.root.batch(block)


def _node(value: Any, types: list) -> Any:
    t = type(value)
    if t in _LEAF_TYPES:
        types.append(t)
        return _Leaf(len(types) - 1, value)
    if t is dict:
        children = []
        for v in value.values():
            child = _node(v, types)
            if child is None:
                return None
            children.append(child)
        return _Dict(tuple(value), tuple(children)) if children else None
    if t is list and value and is_tensor_like_list(value):
        return _group(value, types)
    if (t is list or t is tuple) and value:
        children = []
        for v in value:
            child = _node(v, types)
            if child is None:
                return None
            children.append(child)
        return _Seq(t, tuple(children))
    return None


def _group(value: list, types: list) -> _Group | None:
    """A rectangular nested list of numbers, all bools or all non-bools."""
    shape: list[int] = []
    v: Any = value
    while type(v) is list:
        if not v:
            return None
        shape.append(len(v))
        v = v[0]
    flat: list = []
    if not _collect(value, tuple(shape), flat):
        return None
    kinds = {type(x) for x in flat}
    if not kinds <= set(_LEAF_TYPES) or (bool in kinds and len(kinds) > 1):
        return None
    offset = len(types)
    types.extend(type(x) for x in flat)
    return _Group(offset, tuple(shape), bool in kinds)


def _collect(v: Any, shape: tuple, out: list) -> bool:
    if type(v) is not list or len(v) != shape[0]:
        return False
    if len(shape) == 1:
        if any(type(x) is list for x in v):
            return False
        out.extend(v)
        return True
    return all(_collect(sub, shape[1:], out) for sub in v)


class PackedRows:
    """Up to ``capacity`` rows of one :class:`Schema` in one array. Its pages are touched,
    and so count in RSS, only as rows are written; its address space is taken in steps
    (all of it at once up to ``_RESERVE_BYTES``, then doubling), so a buffer far larger than
    the stream it holds costs nothing.

    Rows kept for ``batch`` alone (``for_batch``) are stored as float32: ``batch`` turns
    numbers into float32 tensors, and rounding a number to float32 once (here) or twice
    (here, then again in ``tensor``) gives the same float32. Numbers beyond float32's range
    are not packed (their rows stay objects). Other rows are float64, exact. Row ``j``'s
    numbers are written by ``struct`` at byte ``j * row_bytes``."""

    def __init__(
        self, schema: Schema, capacity: int, for_batch: bool = False, mapped: bool = False
    ):
        self.schema = schema
        self.for_batch = for_batch
        self.mapped = mapped
        code, self.dtype = ("f", np.float32) if for_batch else ("d", np.float64)
        self.struct = struct.Struct(f"={schema.width}{code}")
        self.row_bytes = self.struct.size
        self.max_rows = max(capacity, 1)
        self.capacity = 0
        self.array: np.ndarray = np.empty((0, schema.width), self.dtype)
        self.view = memoryview(b"")
        self._allocate(min(self.max_rows, max(1, _RESERVE_BYTES // self.row_bytes)))
        # Limits still uncalibrated (see ``_shared``) are measured by this first walk: a
        # fresh row, passed the way rows are (a local of the caller, then ``put``'s).
        probe = schema.unpack((0.0,) * schema.width)
        if not self.put(0, probe):
            raise AssertionError("a packed-row schema does not accept its own rows")

    def _allocate(self, rows: int) -> None:
        """Moves the store to room for ``rows`` rows (keeping the rows it holds)."""
        nbytes = rows * self.row_bytes
        if nbytes >= _MMAP_BYTES or self.mapped:
            # A mapping of its own, outside malloc's arenas: its pages are given back when
            # the store goes, and it fragments no heap (a prefetch thread's arena is small).
            buf: Any = mmap.mmap(-1, nbytes)
            array = np.frombuffer(buf, self.dtype).reshape(rows, self.schema.width)
            view = memoryview(buf)
        else:
            array = np.empty((rows, self.schema.width), self.dtype)
            view = memoryview(array).cast("B")
        kept = self.capacity * self.row_bytes
        if kept:
            view[:kept] = self.view[:kept]
        self.array, self.view, self.capacity = array, view, rows

    def _grow(self, j: int) -> None:
        self._allocate(min(self.max_rows, max(j + 1, 2 * self.capacity)))

    def put(self, j: int, value: Any) -> bool:
        """Packs ``value`` into row ``j``; False when it does not fit (row ``j`` may then
        have been written in part)."""
        nums = self.schema.flatten(value)
        if nums is None:
            return False
        if j >= self.capacity:
            self._grow(j)
        try:
            self.struct.pack_into(self.view, j * self.row_bytes, *nums)
        except OverflowError:  # beyond float32's range
            return False
        return True

    def get(self, j: int) -> Any:
        """A fresh row from row ``j`` (equal to the packed one unless ``for_batch``)."""
        return self.schema.unpack(self.struct.unpack_from(self.view, j * self.row_bytes))

    def move(self, src: int, dst: int) -> None:
        rb = self.row_bytes
        self.view[dst * rb : (dst + 1) * rb] = self.view[src * rb : (src + 1) * rb]

    def copy_to(self, j: int, other: PackedRows, k: int) -> None:
        """Copies row ``j`` into row ``k`` of ``other`` (same schema and storage)."""
        if k >= other.capacity:
            other._grow(k)
        rb = self.row_bytes
        other.view[k * rb : (k + 1) * rb] = self.view[j * rb : (j + 1) * rb]


class PackedBatch:
    """A batch of packed rows on its way from a prefetch thread to the consumer, whose
    thread makes its tensors (``tensors()``, the ``batch`` of those rows). ``rows`` is a
    view of the batch stage's store: the prefetch stage takes it before that slot is
    written again."""

    __slots__ = ("schema", "rows")

    def __init__(self, schema: Schema, rows: np.ndarray):
        self.schema = schema
        self.rows = rows

    def tensors(self) -> Any:
        return self.schema.batch(self.rows)
