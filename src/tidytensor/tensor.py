"""Tensor and Variable: immutable handles over refcounted backend buffers.

A handle holds its buffer's ``data_id``, shape and dtype. Several handles may share one
buffer (reshape, clone, same-dtype cast, variables). Handles never free memory on
garbage collection: they live until disposed, exactly as in TF.js.

Layer: above ``errors``, ``dtypes``, ``sites`` and ``printing``; below the engine, which
makes every handle. Op methods (``x.add(y)``, ``x.sum()``...) are installed by
``ops/_chained.py``, and ``x.variable()`` by ``scopes``: both sit above this module.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from . import sites
from ._handles import HandleBase, call_site
from ._handles import new_handle as new_handle
from .dtypes import BOOL, COMPLEX64, NUMPY_DTYPE, STRING, check_dtype
from .errors import ArgumentTypeError, DTypeError, InvalidArgumentError, TensorDisposedError
from .js_numbers import js_store, js_to_number
from .naming import snake_case
from .printing import tensor_to_string

#: Set by engine/engine.py: the engine that tracks every tensor.
_engine: Any = None
#: Ids of tensors and variables, in creation order (``tf.testing`` reads it, never advances it).
_tensor_ids = itertools.count()


class Tensor(HandleBase):
    """An immutable n-dimensional array owned by the engine until disposed."""

    # The fields (id, data_id, _shape, dtype, scope_id, kept, _disposed, _site,
    # _dispose_site) are HandleBase's: in the compiled core a C struct the cyclic garbage
    # collector does not track (``_handles.py``). A handle collected undisposed is reported
    # as a leak by HandleBase's finalizer (``Engine.record_leak``).
    __slots__ = ()

    # Tensors compare element-wise with ``==``, so hashing is by identity.
    __hash__ = object.__hash__
    # NumPy ufuncs defer to the tensor's own operators.
    __array_ufunc__ = None
    __array_priority__ = 1000

    def __init__(self, *args: Any, **kwargs: Any):
        # The engine makes handles without __init__ (object.__new__, then the fields), as
        # TF.js's Tensor constructor is internal; a user's tf.Tensor([1, 2]) lands here.
        self._disposed = True  # a handle that never held a buffer: nothing for __del__ to report
        self.kept = True
        kind = type(self).__name__
        make = "tf.variable(initial_value)" if isinstance(self, Variable) else "tf.tensor(values)"
        raise ArgumentTypeError(
            f"tf.{kind} is not constructed directly: use {make}, as in TF.js "
            f"(got tf.{kind}({_describe_args(args, kwargs)}))"
        )

    # ----------------------------------------------------------------- properties
    @property
    def shape(self) -> list[int]:
        """The shape as a list, as in TF.js."""
        return list(self._shape)

    @property
    def size(self) -> int:
        """Number of elements."""
        return math.prod(self._shape)

    @property
    def rank(self) -> int:
        return len(self._shape)

    @property
    def strides(self) -> list[int]:
        strides, acc = [], 1
        for d in reversed(self._shape[1:]):
            acc *= d
            strides.append(acc)
        return strides[::-1]

    @property
    def is_disposed(self) -> bool:
        return self._disposed

    @property
    def is_disposed_internal(self) -> bool:
        return self._disposed

    # ----------------------------------------------------------------- lifecycle
    def dispose(self) -> None:
        """Frees this handle; the buffer goes when its last handle goes. Idempotent."""
        if self._disposed:
            return
        _engine.dispose_tensor(self, call_site(1))  # ``Engine.dispose_site`` from here

    def throw_if_disposed(self, op_name: str | None = None) -> None:
        if self._disposed:
            raise disposed_error(self, op_name)

    # ----------------------------------------------------------------- data access
    def _values(self, op_name: str) -> np.ndarray:
        """The values as a NumPy array of this tensor's shape (a read-only view or copy)."""
        if self._disposed:
            raise disposed_error(self, op_name)
        return _engine.read_sync(self, op_name)

    def data_sync(self) -> Any:
        """Flat values, like TF.js's TypedArray: float32, int32, uint8 for bool,
        interleaved float32 for complex64, a list of ``str`` for string."""
        values = self._values("data_sync")
        if self.dtype == STRING:
            return list(values.reshape(-1))
        if self.dtype == COMPLEX64:
            return (
                np.ascontiguousarray(values, dtype=np.complex64).reshape(-1).view(np.float32).copy()
            )
        if self.dtype == BOOL:
            return values.reshape(-1).astype(np.uint8)
        return np.array(values, copy=True).reshape(-1)

    async def data(self) -> Any:
        """Awaitable ``data_sync`` for asyncio code."""
        return self.data_sync()

    def array_sync(self) -> Any:
        """Nested Python lists of Python values (bool as 1/0 and complex interleaved, as TF.js)."""
        values = self._values("array_sync")
        if 0 in self._shape:
            return []  # TF.js's toNestedArray gives [] for any zero-size tensor
        if self.dtype == COMPLEX64:
            flat = np.asarray(values, dtype=np.complex64).reshape(-1).view(np.float32)
            if not self._shape:
                return float(flat[0])  # TF.js returns the real part of a complex scalar
            shape = self._shape[:-1] + (self._shape[-1] * 2,)
            return flat.reshape(shape).tolist()
        if self.dtype == BOOL:
            return np.asarray(values).astype(np.int32).tolist()
        return np.asarray(values).tolist()

    async def array(self) -> Any:
        """Awaitable ``array_sync`` for asyncio code."""
        return self.array_sync()

    def numpy(self) -> np.ndarray:
        """A fresh NumPy array with this tensor's shape and storage dtype."""
        return np.array(self._values("numpy"), dtype=NUMPY_DTYPE[self.dtype], copy=True)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        arr = self.numpy()
        return arr if dtype is None else arr.astype(dtype)

    def bytes(self) -> Any:
        """Raw bytes of the storage (a list of UTF-8 ``bytes`` for string tensors)."""
        values = self._values("bytes")
        if self.dtype == STRING:
            return [s.encode("utf-8") for s in values.reshape(-1)]
        return np.ascontiguousarray(values).tobytes()

    def buffer_sync(self) -> TensorBuffer:
        """A mutable copy of the values with ``get``/``set``/``to_tensor``."""
        values = self._values("buffer_sync")
        return TensorBuffer(
            self._shape, self.dtype, np.array(values, dtype=NUMPY_DTYPE[self.dtype])
        )

    async def buffer(self) -> TensorBuffer:
        return self.buffer_sync()

    # ----------------------------------------------------------------- printing
    def to_string(self, verbose: bool = False) -> str:
        return tensor_to_string(self._values("to_string"), self._shape, self.dtype, verbose)

    def print(self, verbose: bool = False) -> None:  # noqa: A003 - TF.js name
        print(self.to_string(verbose))

    def __repr__(self) -> str:
        if not self._disposed:
            try:
                return self.to_string()
            except TensorDisposedError:  # its buffer went with a reset or removed backend
                pass
        return f"<disposed Tensor id={self.id} shape={list(self._shape)} dtype={self.dtype}>"

    __str__ = __repr__

    # ----------------------------------------------------------------- conversion
    def __len__(self) -> int:
        if not self._shape:
            raise ArgumentTypeError("len() of a scalar tensor (rank 0): it has no first dimension")
        return self._shape[0]

    def __bool__(self) -> bool:
        if self.size != 1:
            raise InvalidArgumentError(
                f"The truth value of a tensor with {self.size} elements is ambiguous; "
                "use .any() or .all()"
            )
        return bool(self._values("__bool__").reshape(-1)[0])

    def __float__(self) -> float:
        return self._real_scalar("__float__", float)

    def __int__(self) -> int:
        return self._real_scalar("__int__", int)

    def __complex__(self) -> complex:
        value = self._scalar_value("__complex__")
        if self.dtype == STRING:
            return self._from_string(value, complex)
        return complex(value)

    def _real_scalar(self, op_name: str, convert: Any) -> Any:
        """The one value as a Python float or int. A complex64 tensor has no real value
        (Python's ``float(1+2j)`` fails too); a string is parsed as Python parses it."""
        if self.dtype == COMPLEX64:
            raise DTypeError(
                f"{convert.__name__}() needs a real tensor, but got a complex64 tensor: take "
                "tf.real(x) or tf.imag(x) first, or use complex(x)"
            )
        value = self._scalar_value(op_name)
        if self.dtype == STRING:
            return self._from_string(value, convert)
        return convert(value)

    @staticmethod
    def _from_string(value: Any, convert: Any) -> Any:
        text = value.decode() if isinstance(value, bytes) else str(value)
        try:
            return convert(text)
        except ValueError:
            raise InvalidArgumentError(
                f"{convert.__name__}() cannot convert the string {text!r} of a string tensor"
            ) from None

    def __index__(self) -> int:
        if self.dtype not in ("int32", "bool"):
            raise ArgumentTypeError(
                f"Only int32 or bool tensors can be used as an index, got {self.dtype}"
            )
        return int(self._scalar_value("__index__"))

    def _scalar_value(self, op_name: str) -> Any:
        if self.size != 1:
            raise InvalidArgumentError(
                f"{snake_case(op_name)} needs a tensor with one element, but shape is {list(self._shape)}"
            )
        return self._values(op_name).reshape(-1)[0]


def id_mark() -> int:
    """An id no handle has: every handle made afterwards gets a larger one (``tf.function``'s
    tracer tells tensors made during a call from those made before)."""
    return next(_tensor_ids)


def _describe_args(args: tuple, kwargs: dict) -> str:
    parts = [type(a).__name__ for a in args] + [f"{k}=..." for k in kwargs]
    return ", ".join(parts)


class Variable(Tensor):
    """A mutable tensor: ``assign`` points it at a new buffer. Never disposed by tidy."""

    __slots__ = ("name", "trainable")

    def assign(self, new_value: Tensor) -> None:
        """Points the variable at ``new_value``'s buffer (no copy). Same shape and dtype only;
        on error the variable is unchanged."""
        self._check_assign(new_value)
        _engine.assign_variable(self, new_value)

    def _check_assign(self, new_value: Tensor) -> None:
        """Raises what ``assign(new_value)`` would raise (a disposed variable or value, a
        non-tensor, another dtype or shape); returns when it would succeed."""
        self.throw_if_disposed("assign")
        if not isinstance(new_value, Tensor):
            raise ArgumentTypeError(
                f"Argument 'new_value' passed to 'assign' must be a Tensor, but got "
                f"'{type(new_value).__name__}'"
            )
        new_value.throw_if_disposed("assign")
        if new_value.dtype != self.dtype:
            raise InvalidArgumentError(
                f"dtype of the new value ({new_value.dtype}) and previous value ({self.dtype}) "
                f"must match (variable '{self.name}')"
            )
        if new_value._shape != self._shape:
            raise InvalidArgumentError(
                f"shape of the new value ({_shape_str(new_value._shape)}) and previous value "
                f"({_shape_str(self._shape)}) must match (variable '{self.name}')"
            )

    def __del__(self) -> None:
        pass  # variables live in the engine's registry until disposed: never a leak

    def dispose(self) -> None:
        """Frees the variable and its name. Idempotent (unlike TF.js, a second call is a no-op)."""
        if self._disposed:
            return
        _engine.dispose_variable(self, sites.user_site(2))


class TensorBuffer:
    """A mutable, writable array used to build a tensor (``tf.buffer``, ``t.buffer_sync()``).

    As TF.js's ``TensorBuffer``: ``values`` is flat, like the typed array TF.js keeps
    (float32 and int32 NumPy arrays, uint8 for bool as TF.js's ``Uint8Array``, a list of
    ``str`` for string), and ``set`` stores a value the way that typed array would (float32
    rounding; int32 truncation with wrap-around; bool as a ``Uint8Array`` byte, so ``2`` stays
    ``2`` and ``-1`` becomes ``255``). ``set`` and ``get`` check coordinates exactly as TF.js
    does: ``set`` needs one coordinate per dimension (no coordinates means ``[0]``) and
    silently ignores a position outside the buffer; ``get`` checks each coordinate against
    its dimension and returns ``None`` (TF.js's ``undefined``) for a position that is not an
    element.

    >>> b = tf.buffer([2, 2], 'int32')
    >>> b.set(7.9, 1, 0)
    >>> b.get(1, 0), b.values.tolist()
    (7, [0, 0, 7, 0])
    """

    __slots__ = ("shape", "dtype", "values", "size", "strides")

    #: The typed array TF.js allocates for each dtype (bool is a ``Uint8Array``).
    _TYPED = {
        "float32": np.dtype(np.float32),
        "int32": np.dtype(np.int32),
        "bool": np.dtype(np.uint8),
    }

    def __init__(self, shape: Any, dtype: str = "float32", values: Any = None):
        dtype = check_dtype(dtype or "float32", "buffer")
        self.dtype = dtype
        self.shape = [int(d) for d in shape]
        self.size = math.prod(self.shape)
        if values is not None:
            n = len(values) if isinstance(values, (list, tuple)) else int(np.size(values))
            if n != self.size:
                raise InvalidArgumentError(
                    f"Length of values '{n}' does not match the size inferred by the "
                    f"shape '{self.size}'."
                )
        if dtype == COMPLEX64:
            raise DTypeError(
                "complex64 dtype TensorBuffers are not supported. Please create a TensorBuffer "
                "for the real and imaginary parts separately and call tf.complex(real, imag)."
            )
        self.values = self._typed_values(values)
        self.strides = Tensor.strides.fget(_Shaped(self.shape))  # type: ignore[attr-defined]

    # ------------------------------------------------------------------ storage
    def _typed_values(self, values: Any) -> Any:
        """``values`` as the flat array TF.js keeps. A flat NumPy array of exactly the
        typed-array dtype is kept, not copied (TF.js keeps a given typed array)."""
        if self.dtype == STRING:
            if values is None:
                return [""] * self.size
            flat = (
                values if isinstance(values, list) else np.asarray(values, dtype=object).reshape(-1)
            )
            return [self._store(v) for v in flat]
        typed = self._TYPED[self.dtype]
        if values is None:
            return np.zeros(self.size, dtype=typed)
        if isinstance(values, np.ndarray) and values.dtype == typed and values.ndim == 1:
            return values
        if isinstance(values, np.ndarray) and values.dtype.kind in "biuf":
            arr = values.reshape(-1)
            if self.dtype == BOOL:
                return arr.astype(np.uint8) if arr.dtype == np.bool_ else self._to_uint8(arr)
            return np.asarray(js_store(arr.astype(np.float64), self.dtype), dtype=typed)
        flat = np.asarray(values, dtype=object).reshape(-1)
        return np.array([self._store(v) for v in flat], dtype=typed)

    @staticmethod
    def _to_uint8(arr: Any) -> Any:
        """JavaScript's ToUint8 (a ``Uint8Array`` store): truncate, non-finite to 0, mod 256."""
        f = np.asarray(arr, dtype=np.float64)
        with np.errstate(invalid="ignore"):
            t = np.where(np.isfinite(f), np.trunc(f), 0.0)
        return np.mod(t, 256.0).astype(np.uint8)

    def _store(self, value: Any) -> Any:
        """One value as TF.js's typed array for this dtype stores it."""
        if self.dtype == STRING:
            return value.decode("utf-8") if isinstance(value, bytes) else value
        number = js_to_number(value.item() if isinstance(value, np.generic) else value)
        if self.dtype == BOOL:
            return self._to_uint8(number)[()]
        return js_store(number, self.dtype)[()]

    def _slot(self, index: Any) -> int | None:
        """The element a JS index into the typed array reads, or None where there is none."""
        try:
            f = float(index)
        except (TypeError, ValueError):
            return None
        if not f.is_integer() or f < 0 or f >= self.size:
            return None
        return int(f)

    @staticmethod
    def _js_list(values: Any) -> str:
        """A JS array's ``toString``: its elements joined by commas."""
        return ",".join(
            str(int(v)) if isinstance(v, float) and v.is_integer() else str(v) for v in values
        )

    # ------------------------------------------------------------------ TF.js API
    def set(self, value: Any, *locs: Any) -> None:  # noqa: A003 - TF.js name
        """Stores ``value`` at ``locs`` (one coordinate per dimension)."""
        if not locs:
            locs = (0,)
        if len(locs) != len(self.shape):
            raise InvalidArgumentError(
                f"The number of provided coordinates ({len(locs)}) must match the rank "
                f"({len(self.shape)})"
            )
        slot = self._slot(self.loc_to_index(list(locs)))
        if slot is not None:  # a typed array ignores a write outside it
            self.values[slot] = self._store(value)

    def get(self, *locs: Any) -> Any:
        """The value at ``locs`` (no coordinates means ``[0]``); None where TF.js reads
        ``undefined``."""
        if not locs:
            locs = (0,)
        for i, loc in enumerate(locs):
            if i < len(self.shape) and (loc < 0 or loc >= self.shape[i]):
                raise InvalidArgumentError(
                    f"Requested out of range element at {self._js_list(locs)}.   Buffer "
                    f"shape={self._js_list(self.shape)}"
                )
        index = locs[-1]
        for i in range(len(locs) - 1):
            if i >= len(self.strides):
                return None  # TF.js: strides[i] is undefined, the index NaN
            index = index + self.strides[i] * locs[i]
        slot = self._slot(index)
        if slot is None:
            return None
        value = self.values[slot]
        return value if self.dtype == STRING else value.item()

    def loc_to_index(self, locs: Any) -> Any:
        """The flat index of ``locs`` (no range checks, as TF.js)."""
        locs = list(locs)
        rank = len(self.shape)
        if rank == 0:
            return 0
        if rank == 1:
            return locs[0]
        index = locs[-1]
        for i in range(len(locs) - 1):
            index = index + self.strides[i] * locs[i]
        return index

    def index_to_loc(self, index: Any) -> list:
        """The coordinates of flat ``index`` (no range checks, as TF.js)."""
        rank = len(self.shape)
        if rank == 0:
            return []
        if rank == 1:
            return [index]
        locs = []
        for stride in self.strides:
            loc = math.floor(index / stride)
            locs.append(loc)
            index -= loc * stride
        locs.append(index)
        return locs

    @property
    def rank(self) -> int:
        return len(self.shape)

    def to_tensor(self) -> Tensor:
        """A new tensor holding a copy of the values."""
        shape = tuple(self.shape)
        if self.dtype == STRING:
            arr = np.empty(self.size, dtype=object)
            for i, v in enumerate(self.values):
                if not isinstance(v, str):
                    raise ArgumentTypeError(
                        f"A string TensorBuffer holds {v!r} (a {type(v).__name__}) at index {i}; "
                        "only str values can make a string tensor"
                    )
                arr[i] = v
            return _engine.make_tensor(arr.reshape(shape), shape, STRING)
        if self.dtype == BOOL:
            return _engine.make_tensor((self.values != 0).reshape(shape), shape, BOOL)
        return _engine.make_tensor(self.values.copy().reshape(shape), shape, self.dtype)


class _Shaped:
    __slots__ = ("_shape",)

    def __init__(self, shape: Any):
        self._shape = tuple(shape)


def _shape_str(shape: tuple[int, ...]) -> str:
    return ",".join(str(d) for d in shape)


def disposed_error(t: Tensor, op_name: str | None) -> TensorDisposedError:
    """The use-after-dispose error: which tensor, which op, created and disposed where."""
    what = f"Tensor {t.id} (shape={list(t._shape)}, dtype='{t.dtype}')"
    op = f" passed to '{snake_case(op_name)}'" if op_name else ""
    created = (
        f"created at {sites.format_site(t._site)}" if t._site else "created at an unknown place"
    )
    how = getattr(t, "_dispose_site", None)
    if isinstance(how, tuple) and len(how) == 2 and isinstance(how[0], str):
        name, site = how  # disposed when a scope ended (engine._scope_end_note)
        kind = f"op '{name[:-4]}'" if name.endswith("__op") else f"scope '{name}'"
        disposed = f"disposed when {kind} ended at {sites.format_site(site)}"
    elif isinstance(how, str):
        disposed = how
    elif how is not None:
        disposed = f"disposed at {sites.format_site(how)}"
    else:
        disposed = "disposed"
    return TensorDisposedError(
        f"{what}{op} is disposed: it was {created} and {disposed}. Keep it alive with "
        "tf.keep() or by returning it from tidy(), or dispose it only after its last use."
    )
