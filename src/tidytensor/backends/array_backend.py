"""A backend over an array module ``xp`` (NumPy or CuPy): buffers are arrays with refcounts.

Kernels are written once against ``xp`` in ``xp_kernels/<family>.py``: each module has
``KERNELS`` (functions ``fn(*arrays, xp, **attrs) -> array | list[array]``) and may have
``RAW_KERNELS`` (functions ``fn(inputs, attrs, backend) -> TensorInfo``) for kernels that
share their input's buffer instead of computing (reshape, identity...).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from typing import Any

from .._handles import BackendBase, RecordBase, SameShapeKernel, dispose_record, share_record
from .._handles import new_record as _new_record
from ..dtypes import DTYPE_OF_STORAGE, DTYPE_OF_USER_ARRAY, NUMPY_DTYPE, STRING
from ..kernel_registry import KernelConfig, register_kernel
from . import Backend
from .xp_compat import errstate

#: The kernel families, one module each under xp_kernels/ (an explicit list, not discovery).
#: Op families TF.js builds only from other ops' kernels (dropout, moving_average, rnn,
#: linalg, signal) register no kernel of their own, so they have no module here.
FAMILIES = (
    "creation",
    "random",
    "arithmetic",
    "basic_math",
    "reduction",
    "matrices",
    "logical",
    "transformations",
    "slicing_joining",
    "convolution",
    "pooling",
    "fused",
    "normalization",
    "losses",
    "image",
    "scan",
    "segment",
    "evaluation",
    "spectral",
    "sparse",
    "ragged",
    "string",
    "recurrent",
    "optimizers",
    "layers_losses",
    "layers_dense",
)


class DataId(RecordBase):
    """One buffer: its array (``values``), its handle count (``refs``), its owner
    (``backend``), ``nbytes``, ``shape`` and ``dtype``. The engine reads ``refs``, ``backend``
    and ``nbytes``; only the backend writes them. The fields are RecordBase's: in the compiled
    core a C struct the cyclic garbage collector does not track (``_handles.py``)."""

    __slots__ = ()


def new_record(values: Any, backend: ArrayBackend, nbytes: int, dtype: str) -> DataId:
    """The one constructor of buffer records: a new buffer holding ``values`` (one handle),
    counted by its backend."""
    backend._num_ids += 1
    return _new_record(DataId, values, backend, nbytes, dtype)


#: The NumPy scalar types a kernel may return (0-d arithmetic gives scalars), each with its
#: dtype and size: ``SameShapeKernel`` records such an output without asking it.
_SCALAR_TYPES: dict[type, tuple[str, int]] = {
    npdtype.type: (dtype, npdtype.itemsize)
    for npdtype, dtype in DTYPE_OF_STORAGE.items()
    if dtype != STRING and npdtype.kind != "O"
}


def _relabel(values: Any, dtype: str) -> Any:
    """A buffer read as another dtype: a lossless cast shares its input's buffer (as TF.js's
    CPU Cast does) and converts on read."""
    return values.astype(NUMPY_DTYPE[dtype])


def _string_bytes(values: Any) -> int:
    return sum(len(s.encode("utf-8")) for s in values.reshape(-1))


class ArrayBackend(BackendBase, Backend):
    """Buffers are :class:`DataId` records holding an ``xp`` array. ``alive`` and ``_num_ids``
    (the count of buffers) are BackendBase's fields (``_handles.py``)."""

    name = "array"
    xp: Any = None
    complex_counts_three = False

    def __init__(self) -> None:
        self.alive = True
        self._num_ids = 0

    # ------------------------------------------------------------------ storage
    def write(self, values: Any, shape: tuple[int, ...], dtype: str) -> DataId:
        """Stores host values (already in storage dtype) and returns a new data id."""
        values = self.upload(values)
        nbytes = _string_bytes(values) if dtype == STRING else values.nbytes
        return new_record(values, self, nbytes, dtype)

    def upload(self, values: Any) -> Any:
        """Host (NumPy) values into this backend's array type."""
        return self.xp.asarray(values)

    def write_array(self, arr: Any) -> DataId:
        """Stores a kernel's output array as a new buffer. The record is itself the kernel's
        TensorInfo: its ``shape`` and ``dtype`` are the output's."""
        dtype = DTYPE_OF_STORAGE.get(arr.dtype)
        if dtype is None:
            arr, dtype = self._normalize(arr)
        return new_record(arr, self, arr.nbytes if dtype != STRING else _string_bytes(arr), dtype)

    def _normalize(self, arr: Any) -> tuple[Any, str]:
        dtype = DTYPE_OF_USER_ARRAY.get(arr.dtype)
        if dtype is None:
            if arr.dtype.kind in "US":
                dtype = STRING
            else:
                raise TypeError(f"Backend '{self.name}' cannot store arrays of dtype {arr.dtype}")
        return self.xp.asarray(arr, dtype=NUMPY_DTYPE[dtype]), dtype

    def read_sync(self, data_id: DataId, shape: tuple[int, ...], dtype: str | None = None) -> Any:
        """The values as a host NumPy array of ``shape`` (may be a view: do not mutate)."""
        values = data_id.values
        if dtype is not None and dtype is not data_id.dtype:
            values = values.astype(NUMPY_DTYPE[dtype])
        return values if data_id.shape == shape else values.reshape(shape)

    #: A TensorInfo viewing ``x``'s buffer with another shape: no copy, refcount + 1;
    #: ``self.share(x, shape, dtype=None)``. The per-op core's function, which the compiled
    #: tape runs inline for the tensors a gradient saves.
    share = share_record

    def array(self, t: Any) -> Any:
        """The array behind a tensor (or TensorInfo-like), viewed with its shape and dtype."""
        rec = t.data_id
        shape = t._shape
        v = rec.values if rec.shape is shape or rec.shape == shape else rec.values.reshape(shape)
        return v if rec.dtype is t.dtype else _relabel(v, t.dtype)

    #: Drops one reference to a buffer; frees it (and returns True) at zero, or at once with
    #: ``force``: ``self.dispose_data(data_id, force=False)``. The per-op core's function,
    #: which the core runs inline when it disposes a handle.
    dispose_data = dispose_record

    def inc_ref(self, data_id: DataId) -> None:
        data_id.refs += 1

    def ref_count(self, data_id: DataId) -> int:
        return data_id.refs

    def num_data_ids(self) -> int:
        return self._num_ids

    def string_bytes(self, data_id: DataId) -> int:
        return data_id.nbytes

    def quiet(self) -> Any:
        """A context in which the array library raises no floating-point warnings."""
        return errstate(self.xp, all="ignore")

    def count_non_finite(self, data_id: DataId) -> str | None:
        values = data_id.values
        xp = self.xp
        if bool(xp.isnan(values).any()):
            return "NaN"
        if bool(xp.isinf(values).any()):
            return "Infinity"
        return None

    def memory(self) -> dict[str, Any]:
        return {
            "unreliable": True,
            "reasons": [
                "The reported memory is an upper bound. Due to automatic garbage collection, "
                "the true allocated memory may be less."
            ],
        }

    def dispose(self) -> None:
        """Forgets every buffer: handles still pointing here read as disposed. The kernels'
        cached scratch arrays (``clear_buffer_pool`` of a family) go too."""
        self.alive = False
        self._num_ids = 0
        for clear in _pool_clears():
            clear()  # its pools uncount their idle arrays (kernel_scratch)

    # ------------------------------------------------------------------ kernels
    @classmethod
    def register_kernels(cls, backend_name: str) -> None:
        """Registers every family's kernels for ``backend_name``."""
        for family in FAMILIES:
            module = importlib.import_module(f"{__package__}.xp_kernels.{family}")
            for kernel_name, fn in getattr(module, "KERNELS", {}).items():
                register_kernel(KernelConfig(kernel_name, backend_name, XpKernel(kernel_name, fn)))
            for kernel_name, fn in getattr(module, "RAW_KERNELS", {}).items():
                register_kernel(KernelConfig(kernel_name, backend_name, fn))


@functools.cache
def _pool_clears() -> tuple[Callable[[], None], ...]:
    """Every family's ``clear_buffer_pool``, looked up once: ``dispose`` runs at each
    ``engine.reset()`` (every test of the suite), and importing 26 modules by name there
    cost 0.1 ms."""
    found = []
    for family in FAMILIES:
        module = importlib.import_module(f"{__package__}.xp_kernels.{family}")
        clear = getattr(module, "clear_buffer_pool", None)
        if clear is not None:
            found.append(clear)
    return tuple(found)


def _arity(fn: Callable[..., Any]) -> int | None:
    """Number of positional array parameters, or None for ``*arrays``."""
    code = fn.__code__
    if code.co_flags & 0x04:  # CO_VARARGS
        return None
    return code.co_argcount


class XpKernel:
    """Adapts ``fn(*arrays, xp, **attrs)`` to the registry's kernel signature.

    ``bind`` returns a closure specialized for one or two inputs: the per-op hot path.
    """

    __slots__ = ("name", "fn")

    def __init__(self, name: str, fn: Callable[..., Any]):
        self.name = name
        self.fn = fn

    def __call__(self, inputs: tuple, attrs: Any, backend: ArrayBackend) -> Any:
        return self.bind(backend)(inputs, attrs)

    @staticmethod
    def _writer(backend: ArrayBackend) -> Callable[[Any], Any]:
        """``write_one(out)``: a kernel's output stored as a new buffer record (a list or
        tuple of outputs gives a list of records)."""
        write = backend.write_array
        storage_dtype = DTYPE_OF_STORAGE.get

        def write_one(out: Any) -> Any:
            # The common case of one numeric output goes straight to the record.
            try:
                dtype = storage_dtype(out.dtype)
            except AttributeError:
                if isinstance(out, (list, tuple)):
                    return [write(o) for o in out]
                return write(out)
            if dtype is None or dtype == STRING:
                return write(out)
            return new_record(out, backend, out.nbytes, dtype)

        return write_one

    def bind_same_shape(self, backend: ArrayBackend) -> SameShapeKernel | None:
        """For a two-input kernel: ``fast(ra, rb)`` on two buffer records that hold arrays of
        the tensors' own shape and dtype (no reshape, no relabel), returning the output's
        record, or None if the kernel raised (the caller then runs the general path, which
        reports or retries). The per-op core runs it (``_handles.SameShapeKernel``). None
        for other arities. A kernel module's ``FLOAT_OPERATORS`` names the Python operator
        a kernel is on float inputs, which the compiled core runs in C on float32 scalars."""
        if _arity(self.fn) != 2:
            return None
        family = importlib.import_module(self.fn.__module__)
        return SameShapeKernel(
            self.fn,
            backend.xp,
            backend,
            DataId,
            DTYPE_OF_STORAGE,
            _SCALAR_TYPES,
            self._writer(backend),
            getattr(family, "FLOAT_OPERATORS", {}).get(self.fn),
        )

    def bind(self, backend: ArrayBackend) -> Callable[[tuple, Any], Any]:
        fn, xp, write_one = self.fn, backend.xp, self._writer(backend)

        arity = _arity(fn)
        if arity == 1:

            def kernel1(inputs: tuple, attrs: Any) -> Any:
                (x,) = inputs
                rec = x.data_id
                s = x._shape
                v = rec.values if rec.shape is s or rec.shape == s else rec.values.reshape(s)
                if rec.dtype is not x.dtype:
                    v = _relabel(v, x.dtype)
                return write_one(fn(v, xp=xp, **attrs) if attrs else fn(v, xp=xp))

            return kernel1
        if arity == 2:

            def kernel2(inputs: tuple, attrs: Any) -> Any:
                a, b = inputs
                ra, rb = a.data_id, b.data_id
                sa, sb = a._shape, b._shape
                va = ra.values if ra.shape is sa or ra.shape == sa else ra.values.reshape(sa)
                vb = rb.values if rb.shape is sb or rb.shape == sb else rb.values.reshape(sb)
                if ra.dtype is not a.dtype:
                    va = _relabel(va, a.dtype)
                if rb.dtype is not b.dtype:
                    vb = _relabel(vb, b.dtype)
                return write_one(fn(va, vb, xp=xp, **attrs) if attrs else fn(va, vb, xp=xp))

            return kernel2

        def kernel(inputs: tuple, attrs: Any) -> Any:
            arrays = [backend.array(t) for t in inputs]
            out = fn(*arrays, xp=xp, **attrs) if attrs else fn(*arrays, xp=xp)
            return write_one(out)

        return kernel
