"""TF.js's five dtypes, their upcasting table and their NumPy storage types."""

from __future__ import annotations

import numpy as np

from .errors import DTypeError

FLOAT32 = "float32"
INT32 = "int32"
BOOL = "bool"
COMPLEX64 = "complex64"
STRING = "string"

DTYPES = (FLOAT32, INT32, BOOL, COMPLEX64, STRING)
NUMERIC_DTYPES = (FLOAT32, INT32, BOOL, COMPLEX64)

#: Storage type of each dtype on the array backends.
NUMPY_DTYPE = {
    FLOAT32: np.dtype(np.float32),
    INT32: np.dtype(np.int32),
    BOOL: np.dtype(np.bool_),
    COMPLEX64: np.dtype(np.complex64),
    STRING: np.dtype(object),
}

#: dtype of an array as stored by a backend (only the five storage types appear).
DTYPE_OF_STORAGE = {v: k for k, v in NUMPY_DTYPE.items()}

#: How NumPy arrays given by users map to TF.js dtypes (API.md: "NumPy arrays are accepted").
DTYPE_OF_USER_ARRAY = {
    **DTYPE_OF_STORAGE,
    np.dtype(np.float64): FLOAT32,
    np.dtype(np.float16): FLOAT32,
    np.dtype(np.uint8): INT32,
    np.dtype(np.int8): INT32,
    np.dtype(np.int16): INT32,
    np.dtype(np.uint16): INT32,
    np.dtype(np.int64): INT32,
    np.dtype(np.uint32): INT32,
    np.dtype(np.uint64): INT32,
    np.dtype(np.complex128): COMPLEX64,
}

BYTES_PER_ELEMENT = {FLOAT32: 4, INT32: 4, BOOL: 1, COMPLEX64: 8}

_RANK = {BOOL: 0, INT32: 1, FLOAT32: 2, COMPLEX64: 3}
_BY_RANK = (BOOL, INT32, FLOAT32, COMPLEX64)


#: Each dtype name as one string object: the engine compares dtypes by identity on hot paths.
_CANONICAL = {d: d for d in DTYPES}


def check_dtype(dtype: object, where: str = "dtype") -> str:
    """The canonical dtype string if ``dtype`` is one of TF.js's dtypes, else a clear error."""
    canonical = _CANONICAL.get(dtype) if isinstance(dtype, str) else None
    if canonical is not None:
        return canonical
    raise DTypeError(f"Unknown dtype {dtype!r} for {where}; expected one of {', '.join(DTYPES)}")


def upcast_type(a: str, b: str) -> str:
    """TF.js's ``upcastType``: the dtype both operands are cast to."""
    if a == b:
        return a
    if a == STRING or b == STRING:
        raise DTypeError(f"Can not upcast {a} with {b}")
    return _BY_RANK[max(_RANK[a], _RANK[b])]


def sum_out_type(dtype: str) -> str:
    """dtype of ``sum``/``prod``/``cumsum`` results: bool sums to int32."""
    return upcast_type(dtype, INT32)


def is_float(dtype: str) -> bool:
    return dtype == FLOAT32 or dtype == COMPLEX64
