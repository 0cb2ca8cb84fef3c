"""Turning TensorLike values (numbers, nested lists, NumPy arrays) into tensors.

TF.js's ``tensor_util_env.ts`` and ``makeTensor``: dtype inference (numbers are
float32, booleans bool, strings string), shape inference with a clear error for ragged
lists, and the ``convert_to_tensor`` every op calls on its arguments.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .dtypes import (
    BOOL,
    COMPLEX64,
    DTYPE_OF_USER_ARRAY,
    FLOAT32,
    INT32,
    NUMPY_DTYPE,
    STRING,
    check_dtype,
)
from .engine import ENGINE
from .errors import ArgumentTypeError, DTypeError, InvalidArgumentError, ShapeError
from .tensor import Tensor, disposed_error

_SCALAR_TYPES = (int, float, bool, str, complex, np.generic)


def infer_dtype(values: Any) -> str:
    """TF.js's ``inferDtype``: the dtype of the first leaf."""
    if isinstance(values, np.ndarray):
        return _dtype_of_array(values)
    while isinstance(values, (list, tuple)):
        if not values:
            return FLOAT32
        values = values[0]
    if isinstance(values, (bool, np.bool_)):
        return BOOL
    if isinstance(values, str):
        return STRING
    if isinstance(values, (complex, np.complexfloating)):
        return COMPLEX64
    if isinstance(values, np.ndarray):
        return _dtype_of_array(values)
    if isinstance(values, np.integer):
        return INT32
    return FLOAT32


def _dtype_of_array(arr: np.ndarray) -> str:
    dtype = DTYPE_OF_USER_ARRAY.get(arr.dtype)
    if dtype is None:
        if arr.dtype.kind in "US":
            return STRING
        if arr.dtype == object:
            return infer_dtype(arr.reshape(-1)[0].item() if arr.size else 0.0)
        raise DTypeError(f"NumPy arrays of dtype {arr.dtype} cannot become tensors")
    return dtype


def infer_shape(values: Any) -> tuple[int, ...]:
    """Shape of a nested list, raising a clear error for ragged nesting."""
    if isinstance(values, np.ndarray):
        return values.shape
    shape: list[int] = []
    v = values
    while isinstance(v, (list, tuple, np.ndarray)):
        shape.append(len(v))
        if len(v) == 0:
            break
        v = v[0]
    if len(shape) > 1:
        _check_consistent(values, tuple(shape), [])
    return tuple(shape)


def _check_consistent(values: Any, shape: tuple[int, ...], index: list[int]) -> None:
    depth = len(index)
    if depth == len(shape):
        if isinstance(values, (list, tuple, np.ndarray)):
            raise ShapeError(f"Element arr{_idx(index)} should be a primitive, but is an array of {len(values)} elements")
        return
    if not isinstance(values, (list, tuple, np.ndarray)) or len(values) != shape[depth]:
        n = len(values) if isinstance(values, (list, tuple, np.ndarray)) else "no"
        raise ShapeError(
            f"Element arr{_idx(index)} should have {shape[depth]} elements, but has {n} elements"
        )
    for i, item in enumerate(values):
        _check_consistent(item, shape, index + [i])


def _idx(index: list[int]) -> str:
    return "".join(f"[{i}]" for i in index)


def to_storage(values: Any, dtype: str) -> np.ndarray:
    """Values converted as TF.js's ``toTypedArray`` would, in NumPy storage dtype."""
    np_dtype = NUMPY_DTYPE[dtype]
    if dtype == STRING:
        arr = np.array(values, dtype=object)
        flat = arr.reshape(-1)
        for i, s in enumerate(flat):
            if not isinstance(s, str):
                if isinstance(s, bytes):
                    flat[i] = s.decode("utf-8")
                else:
                    raise DTypeError(f"A string tensor's values must all be strings, got {type(s).__name__}")
        return arr
    if isinstance(values, np.ndarray) and values.dtype == np_dtype:
        return values.copy()
    try:
        if dtype == BOOL:
            arr = np.asarray(values)
            if arr.dtype != np.bool_:
                if arr.dtype.kind in "USO":
                    raise DTypeError("Cannot create a bool tensor from strings")
                arr = np.floor(arr.astype(np.float64) + 0.5) != 0  # Math.round(v) !== 0
            return np.array(arr, dtype=np.bool_)
        if dtype == INT32:
            arr = np.asarray(values)
            if arr.dtype.kind == "f":
                arr = np.trunc(arr)
                arr = np.where(np.isfinite(arr), arr, 0)
                return arr.astype(np.int64).astype(np.int32)
            if arr.dtype.kind in "USO":
                raise DTypeError("Cannot create an int32 tensor from strings")
            return arr.astype(np.int32)
        arr = np.asarray(values)
        if arr.dtype.kind in "USO":
            raise DTypeError(f"Cannot create a {dtype} tensor from strings")
        return arr.astype(np_dtype)
    except (ValueError, OverflowError) as exc:
        raise InvalidArgumentError(f"Cannot convert the given values to {dtype}: {exc}") from None


def make_tensor(values: Any, shape: Any = None, dtype: str | None = None, op_name: str = "tensor") -> Tensor:
    """TF.js's ``makeTensor``: values (nested or flat) with an optional shape and dtype."""
    if dtype is not None:
        check_dtype(dtype, op_name)
    if isinstance(values, Tensor):
        raise ArgumentTypeError(
            f"Argument 'values' passed to '{op_name}' is already a Tensor; use tf.clone() or "
            "tensor.cast() instead"
        )
    if not isinstance(values, (list, tuple, np.ndarray) + _SCALAR_TYPES):
        raise ArgumentTypeError(
            "values passed to tensor(values) must be a number/boolean/string or an array of "
            f"numbers/booleans/strings, or a TypedArray, but got {type(values).__name__}"
        )
    inferred = infer_shape(values)
    inferred_dtype = infer_dtype(values)
    if dtype is None:
        dtype = inferred_dtype
    elif (dtype == STRING) != (inferred_dtype == STRING) and _size(inferred) > 0:
        raise DTypeError(f"Cannot create a {dtype} tensor from {inferred_dtype} values")
    if shape is not None:
        shape = _check_shape_arg(shape, op_name)
        n = math.prod(inferred)
        size = math.prod(shape)
        if len(inferred) > 1 and tuple(inferred) != shape and n == size:
            raise ShapeError(
                f"Error creating a new Tensor. Inferred shape ({_sh(inferred)}) does not match "
                f"the provided shape ({_sh(shape)}). "
            )
        if n != size and not (len(inferred) == 0 or (n == 1 and len(inferred) <= 1)):
            raise ShapeError(
                f"Based on the provided shape, [{_sh(shape)}], the tensor should have {size} values "
                f"but has {n}"
            )
    else:
        shape = tuple(inferred)
    arr = to_storage(values, dtype)
    if arr.shape != shape:
        if arr.size == 1 and math.prod(shape) != 1:  # one value fills the whole shape
            arr = np.full(shape, arr.reshape(-1)[0], dtype=arr.dtype)
        else:
            arr = arr.reshape(shape)
    return ENGINE.make_tensor(arr, shape, dtype)


def _check_shape_arg(shape: Any, op_name: str) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        out = tuple(int(d) for d in shape)
    except TypeError:
        raise ArgumentTypeError(f"The shape passed to '{op_name}' must be a list of ints, got {shape!r}") from None
    for d in out:
        if d < 0:
            raise ShapeError(f"The shape passed to '{op_name}' has a negative dimension: {list(out)}")
    return out


def _size(shape: tuple[int, ...]) -> int:
    return math.prod(shape)


def _sh(shape: Any) -> str:
    return ",".join(str(d) for d in shape)


def scalar_tensor(value: Any, dtype: str) -> Tensor:
    """Fast path for a Python number becoming a tensor."""
    return ENGINE.make_tensor(NUMPY_DTYPE[dtype].type(value), (), dtype)


def convert_to_tensor(x: Any, arg_name: str, op_name: str, parse_as_dtype: str = "numeric") -> Tensor:
    """Returns ``x`` if it is a tensor (after a dtype check), else makes one from TensorLike."""
    if isinstance(x, Tensor):
        if x._disposed:
            raise disposed_error(x, op_name)
        if parse_as_dtype == "numeric" and x.dtype == STRING:
            raise DTypeError(
                f"Argument '{arg_name}' passed to '{op_name}' must be numeric tensor, but got "
                "string tensor"
            )
        if parse_as_dtype not in ("numeric", "string_or_numeric") and x.dtype != parse_as_dtype:
            raise DTypeError(
                f"Argument '{arg_name}' passed to '{op_name}' must be {parse_as_dtype} tensor, but "
                f"got {x.dtype} tensor"
            )
        return x
    tx = type(x)
    if tx is float or tx is int:
        dtype = FLOAT32 if parse_as_dtype in ("numeric", "string_or_numeric") else parse_as_dtype
        if dtype == STRING:
            raise DTypeError(f"Argument '{arg_name}' passed to '{op_name}' must be string tensor, but got a number")
        return ENGINE.make_tensor(NUMPY_DTYPE[dtype].type(x) if dtype != BOOL else np.bool_(round(x) != 0), (), dtype)
    if not isinstance(x, (list, tuple, np.ndarray) + _SCALAR_TYPES):
        raise ArgumentTypeError(
            f"Argument '{arg_name}' passed to '{op_name}' must be a Tensor or TensorLike, but got "
            f"'{type(x).__name__}'"
        )
    inferred = infer_dtype(x)
    if inferred == STRING and parse_as_dtype == "numeric":
        raise DTypeError(
            f"Argument '{arg_name}' passed to '{op_name}' must be numeric tensor, but got string tensor"
        )
    dtype = parse_as_dtype if parse_as_dtype not in ("numeric", "string_or_numeric") else inferred
    if (dtype == STRING) != (inferred == STRING) and infer_shape(x) != (0,):
        raise DTypeError(
            f"Argument '{arg_name}' passed to '{op_name}' must be {dtype} tensor, but got {inferred} tensor"
        )
    return make_tensor(x, None, dtype, op_name)


def convert_to_tensor_array(xs: Any, arg_name: str, op_name: str, parse_as_dtype: str = "numeric") -> list[Tensor]:
    """A list of TensorLike, each converted (TF.js's ``convertToTensorArray``)."""
    if not isinstance(xs, (list, tuple)):
        raise ArgumentTypeError(f"Argument {arg_name} passed to {op_name} must be a `Tensor[]` or `TensorLike[]`")
    return [convert_to_tensor(x, f"{arg_name}[{i}]", op_name, parse_as_dtype) for i, x in enumerate(xs)]
