"""Turning TensorLike values (numbers, nested lists, NumPy arrays) into tensors.

TF.js's ``makeTensor`` / ``inferShape`` / ``inferDtype`` / ``toTypedArray`` and
``convertToTensor`` (``tfjs-core/src/ops/tensor_ops_util.ts``, ``tensor_util_env.ts``,
``util_base.ts``), with their error messages. Python numbers are JS numbers, so values are
converted as JavaScript converts them when it stores them in a typed array:

- float32: rounded to the nearest float32 (``Float32Array``);
- int32: truncated toward zero and wrapped to 32 bits, NaN and infinities become 0
  (``Int32Array``);
- bool: ``Math.round(v) !== 0`` when a tensor is made from values, and ``Uint8Array``
  storage (truncate, wrap to 8 bits, non-zero) where TF.js writes a typed array directly
  (``fill``, ``range``, random ops);
- strings given for a numeric dtype are parsed as JavaScript's ``Number(s)`` does, and
  numbers given among strings are written as JavaScript's ``String(x)`` does.

The number conversions themselves (``js_to_number``, ``js_store``) live in ``js_numbers``,
below the tensor (which stores values with them too); they are re-exported here.

One deliberate difference: ragged nested lists always raise TF.js's debug-mode error
(``Element arr[1] should have 2 elements, but has 1 elements``); TF.js without debug mode
builds a tensor whose buffer does not fit its shape.
"""

from __future__ import annotations

import math
import reprlib
from typing import Any

import numpy as np

from .dtypes import (
    BOOL,
    COMPLEX64,
    DTYPE_OF_USER_ARRAY,
    DTYPES,
    FLOAT32,
    INT32,
    NUMPY_DTYPE,
    STRING,
)
from .engine import ENGINE
from .errors import ArgumentTypeError, DTypeError, ShapeError
from .js_numbers import js_store, js_to_number
from .naming import snake_case
from .random_engines import js_number_to_string
from .tensor import Tensor, disposed_error
from .utf16 import from_code_units

__all__ = [
    "assert_non_negative_integer_dimensions",
    "check_dtype_name",
    "convert_to_tensor",
    "convert_to_tensor_array",
    "fill_buffer",
    "fill_buffer_by",
    "own_buffer_tensor",
    "filled_tensor",
    "host_tensor",
    "infer_dtype",
    "infer_shape",
    "js_store",
    "js_to_number",
    "make_tensor",
    "scalar_tensor",
    "shape_str",
    "to_storage",
]

_SCALAR_TYPES = (int, float, bool, str, bytes, complex, np.generic)
_ARRAY_TYPES = (list, tuple, np.ndarray)
_NUMERIC_PARSE = ("bool", "int32", "float32")


def check_dtype_name(dtype: Any, op_name: str) -> str:
    """``dtype`` if it is one of TF.js's five, else TF.js's ``Unknown data type`` error."""
    if isinstance(dtype, str) and dtype in NUMPY_DTYPE:
        return dtype
    shown = dtype if isinstance(dtype, str) else reprlib.repr(dtype)
    raise DTypeError(
        f"Unknown data type {shown} (in '{snake_case(op_name)}': expected one of {', '.join(DTYPES)})"
    )


def shape_str(shape: Any) -> str:
    """A shape as JS prints an array: ``2,3``."""
    return ",".join(_js_elem_str(d) for d in shape)


def _js_elem_str(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
        return js_number_to_string(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def assert_non_negative_integer_dimensions(
    shape: Any, op_name: str | None = None
) -> tuple[int, ...]:
    """TF.js's ``assertNonNegativeIntegerDimensions``; returns the shape as a tuple of ints.
    A bare int is taken as a rank-1 shape (a Python convenience)."""
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    if isinstance(shape, Tensor) or not isinstance(shape, (list, tuple, np.ndarray)):
        where = f" passed to '{snake_case(op_name)}'" if op_name else ""
        raise ArgumentTypeError(
            f"The shape{where} must be an array of integers, but got {type(shape).__name__}"
        )
    out = []
    for d in shape:
        if isinstance(d, (bool, np.bool_)):
            ok = False
        elif isinstance(d, (int, np.integer)):
            ok = d >= 0
        elif isinstance(d, (float, np.floating)):
            ok = math.isfinite(d) and float(d).is_integer() and d >= 0
        else:
            ok = False
        if not ok:
            raise ShapeError(
                f"Tensor must have a shape comprised of positive integers but got shape "
                f"[{shape_str(shape)}]."
            )
        out.append(int(d))
    return tuple(out)


# ============================================================================ inference
def infer_dtype(values: Any) -> str:
    """TF.js's ``inferDtype``: the dtype of the first leaf; NumPy arrays by their dtype."""
    if isinstance(values, np.ndarray):
        return _dtype_of_array(values)
    while isinstance(values, (list, tuple)):
        if not values:
            return FLOAT32
        values = values[0]
    if isinstance(values, np.ndarray):
        return _dtype_of_array(values)
    if isinstance(values, (bool, np.bool_)):
        return BOOL
    if isinstance(values, (str, bytes, np.str_, np.bytes_)):
        return STRING
    if isinstance(values, (complex, np.complexfloating)):
        return COMPLEX64
    if isinstance(values, np.integer):
        return INT32
    return FLOAT32


def _dtype_of_array(arr: np.ndarray) -> str:
    dtype = DTYPE_OF_USER_ARRAY.get(arr.dtype)
    if dtype is None:
        if arr.dtype.kind in "US":
            return STRING
        if arr.dtype == object:
            return infer_dtype(arr.reshape(-1)[0] if arr.size else 0.0)
        raise DTypeError(f"NumPy arrays of dtype {arr.dtype} cannot become tensors")
    return dtype


def _first_path_shape(values: Any) -> list[int]:
    shape: list[int] = []
    v = values
    while isinstance(v, _ARRAY_TYPES):
        if isinstance(v, np.ndarray):
            shape.extend(v.shape)
            break
        shape.append(len(v))
        if len(v) == 0:
            break
        v = v[0]
    return shape


def infer_shape(values: Any) -> tuple[int, ...]:
    """Shape of a nested list (read along first elements, as TF.js does), with TF.js's
    debug-mode error for ragged nesting."""
    if isinstance(values, np.ndarray):
        return values.shape
    if not isinstance(values, (list, tuple)):
        return ()
    return _infer_checked(values)[0]


def _infer_checked(values: list | tuple) -> tuple[tuple[int, ...], np.ndarray | None]:
    """The shape of a nested list and, when NumPy can hold it as a regular array, that array."""
    shape = tuple(_first_path_shape(values))
    try:
        arr = np.asarray(values)
    except (ValueError, TypeError):
        arr = None
    if arr is None or arr.shape != shape or arr.dtype == object:
        _check_consistent(values, shape, [])
        arr = None if arr is None or arr.shape != shape else arr
    return shape, arr


def _check_consistent(val: Any, shape: tuple[int, ...], index: list[int]) -> None:
    where = "arr[" + "][".join(str(i) for i in index) + "]"
    if not isinstance(val, _ARRAY_TYPES):
        if shape:
            raise ShapeError(
                f"Element {where} is a primitive, but should be an array/TypedArray of "
                f"{shape[0]} elements"
            )
        return
    n = len(val)
    if not shape:
        raise ShapeError(f"Element {where} should be a primitive, but is an array of {n} elements")
    if n != shape[0]:
        raise ShapeError(f"Element {where} should have {shape[0]} elements, but has {n} elements")
    sub = shape[1:]
    for i in range(n):
        _check_consistent(val[i], sub, index + [i])


# ============================================================================ conversion
def _flat_objects(values: Any) -> list:
    """The leaves of a nested list (or a NumPy array, or a scalar), in order."""
    if isinstance(values, np.ndarray):
        return list(values.reshape(-1))
    if isinstance(values, (list, tuple)):
        out: list = []
        _flatten_into(values, out)
        return out
    return [values]


def _flatten_into(values: Any, out: list) -> None:
    for v in values:
        if isinstance(v, (list, tuple)):
            _flatten_into(v, out)
        elif isinstance(v, np.ndarray):
            out.extend(v.reshape(-1).tolist() if v.dtype != object else list(v.reshape(-1)))
        else:
            out.append(v)


def _js_string(v: Any) -> str:
    if isinstance(v, str):
        # Surrogate code points are stored as TF.js's TextEncoder stores them.
        return v if v.isascii() else from_code_units(v)
    if isinstance(v, (bytes, np.bytes_)):
        # Strings are stored decoded, so bytes that are not UTF-8 raise here (TF.js keeps
        # the raw bytes and shows each bad sequence as U+FFFD when it prints or reads them).
        return bytes(v).decode("utf-8")
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (int, float, np.integer, np.floating)):
        return js_number_to_string(v)
    if v is None:
        return "null"
    raise DTypeError(f"A string tensor's values must be strings, got {type(v).__name__}")


def to_storage(
    values: Any, dtype: str, shape: tuple[int, ...] | None = None, arr: Any = None
) -> np.ndarray:
    """Values (nested lists, a scalar or a NumPy array) converted as TF.js's ``toTypedArray``
    converts them, as a NumPy array in ``dtype``'s storage type, reshaped to ``shape``."""
    if arr is None and isinstance(values, np.ndarray):
        arr = values
    if dtype == STRING:
        if isinstance(values, np.ndarray) and values.dtype.kind == "U":
            out = values.astype(object)
        else:
            flat = [_js_string(v) for v in _flat_objects(values)]
            out = np.empty(len(flat), dtype=object)
            out[:] = flat
    elif dtype == COMPLEX64:
        if arr is None:
            arr = np.asarray(values)
        if arr.dtype.kind not in "biufc":
            raise DTypeError("Cannot create a complex64 tensor from non-numeric values")
        out = arr.astype(np.complex64)
    else:
        if arr is None and not isinstance(values, _ARRAY_TYPES):
            arr = np.asarray(values) if not isinstance(values, (str, bytes)) else None
        kind = arr.dtype.kind if arr is not None else "O"
        np_dtype = NUMPY_DTYPE[dtype]
        if arr is not None and arr.dtype == np_dtype:
            out = np.array(arr, copy=True)
        elif kind == "b":
            out = arr.astype(np_dtype)
        elif kind in "iu" and dtype == INT32:
            out = arr.astype(np.int64).astype(np.int32)  # wraps as ToInt32 does
        elif kind in "iuf":
            out = js_store(arr.astype(np.float64), dtype)
        elif kind == "c":
            raise DTypeError(f"Cannot create a {dtype} tensor from complex values")
        else:  # strings, None, mixed Python objects: Number(v) one by one
            src = arr if isinstance(values, np.ndarray) else values
            nums = np.array([js_to_number(v) for v in _flat_objects(src)], dtype=np.float64)
            out = js_store(nums, dtype)
    if shape is not None and out.shape != tuple(shape):
        out = out.reshape(shape)
    return out


# ============================================================================ makeTensor
def make_tensor(
    values: Any, shape: Any = None, dtype: str | None = None, op_name: str = "tensor"
) -> Tensor:
    """TF.js's ``tensor(values, shape, dtype)``: shape and dtype checks, then conversion."""
    inferred, arr = _infer_values(values, op_name)
    return _make_from_inferred(values, inferred, arr, shape, dtype, op_name)


def _infer_values(values: Any, op_name: str) -> tuple[tuple[int, ...], np.ndarray | None]:
    if isinstance(values, Tensor):
        raise ArgumentTypeError(
            "values passed to tensor(values) must be a number/boolean/string or an array of "
            f"numbers/booleans/strings, or a TypedArray, but got a Tensor (in '{snake_case(op_name)}'; use "
            "tf.clone() or tensor.cast() instead)"
        )
    if isinstance(values, np.ndarray):
        return values.shape, values
    if isinstance(values, (list, tuple)):
        return _infer_checked(values)
    if values is None or not isinstance(values, _SCALAR_TYPES):
        got = "None" if values is None else type(values).__name__
        raise ArgumentTypeError(
            "values passed to tensor(values) must be a number/boolean/string or an array of "
            f"numbers/booleans/strings, or a TypedArray, but got {got} (in '{snake_case(op_name)}')"
        )
    return (), None


def _make_from_inferred(
    values: Any,
    inferred: tuple[int, ...],
    arr: np.ndarray | None,
    shape: Any,
    dtype: str | None,
    op_name: str,
) -> Tensor:
    inferred_dtype = infer_dtype(values)
    if dtype is None:
        dtype = inferred_dtype
    elif dtype == COMPLEX64 and inferred_dtype != COMPLEX64:
        raise DTypeError(
            "Cannot construct a complex64 tensor directly. Please use tf.complex(real, imag)."
        )
    if shape is not None:
        shape = assert_non_negative_integer_dimensions(shape, op_name)
        provided = math.prod(shape)
        size = math.prod(inferred)
        if provided != size:
            raise ShapeError(
                f"Based on the provided shape, [{shape_str(shape)}], the tensor should have "
                f"{provided} values but has {size}"
            )
        last = len(inferred) - 1
        for i, d in enumerate(inferred):
            flat_dims_dont_match = d != math.prod(shape[i:]) if i == last else True
            if (i >= len(shape) or d != shape[i]) and flat_dims_dont_match:
                raise ShapeError(
                    f"Error creating a new Tensor. Inferred shape ({shape_str(inferred)}) does "
                    f"not match the provided shape ({shape_str(shape)}). "
                )
    else:
        shape = tuple(inferred)
    check_dtype_name(dtype, op_name)
    if dtype == STRING and inferred_dtype != STRING and math.prod(inferred) > 0:
        raise DTypeError(
            f"Cannot create a string tensor from {inferred_dtype} values (in '{snake_case(op_name)}')"
        )
    return ENGINE.make_tensor(to_storage(values, dtype, shape, arr), shape, dtype)


def scalar_tensor(value: Any, dtype: str) -> Tensor:
    """Fast path for a Python number becoming a rank-0 tensor."""
    return ENGINE.make_tensor(_scalar_storage(value, dtype), (), dtype)


def _scalar_storage(value: Any, dtype: str) -> Any:
    tv = type(value)
    if dtype == FLOAT32 and (tv is float or tv is int) and -3.4e38 < value < 3.4e38:
        return np.float32(value)
    if dtype == INT32 and tv is int and -2147483648 <= value <= 2147483647:
        return np.int32(value)
    if dtype == STRING:
        return np.array(_js_string(value), dtype=object)
    if dtype == COMPLEX64:
        return np.complex64(value)
    return js_store(js_to_number(value), dtype)[()]


def host_tensor(values: np.ndarray, shape: tuple[int, ...], dtype: str) -> Tensor:
    """A tensor from a host array already in ``dtype``'s storage type (TF.js's
    ``ENGINE.makeTensor`` with a typed array: no kernel runs)."""
    if values.shape != shape:
        values = values.reshape(shape)
    return ENGINE.make_tensor(values, shape, dtype)


def filled_tensor(shape: tuple[int, ...], value: Any, dtype: str) -> Tensor:
    """A host-made tensor of one repeated value (TF.js's ``makeZerosTypedArray`` /
    ``makeOnesTypedArray`` followed by ``ENGINE.makeTensor``)."""
    np_dtype = NUMPY_DTYPE[dtype]
    if dtype != "string" and value == 0:
        # np.zeros maps zero pages lazily; np.full writes every byte up front.
        return ENGINE.make_tensor(np.zeros(shape, dtype=np_dtype), shape, dtype)
    return ENGINE.make_tensor(np.full(shape, value, dtype=np_dtype), shape, dtype)


# ============================================================================ convertToTensor
def convert_to_tensor(
    x: Any, arg_name: str, op_name: str, parse_as_dtype: str = "numeric"
) -> Tensor:
    """Returns ``x`` if it is a tensor (after a dtype check), else makes one from TensorLike
    (TF.js's ``convertToTensor``)."""
    if isinstance(x, Tensor):
        if x._disposed:
            raise disposed_error(x, ENGINE._op_name(op_name))
        if parse_as_dtype == "numeric":
            if x.dtype == STRING:
                raise DTypeError(
                    f"Argument '{snake_case(arg_name)}' passed to '{snake_case(op_name)}' must be numeric tensor, but got "
                    "string tensor"
                )
        elif parse_as_dtype != "string_or_numeric" and x.dtype != parse_as_dtype:
            raise DTypeError(
                f"Argument '{snake_case(arg_name)}' passed to '{snake_case(op_name)}' must be {parse_as_dtype} tensor, but "
                f"got {x.dtype} tensor"
            )
        return x
    tx = type(x)
    if (tx is float or tx is int) and parse_as_dtype in ("numeric", "string_or_numeric", FLOAT32):
        return ENGINE.make_tensor(_scalar_storage(x, FLOAT32), (), FLOAT32)
    inferred = infer_dtype(x) if x is not None else FLOAT32
    if inferred != STRING and parse_as_dtype in _NUMERIC_PARSE:
        inferred = parse_as_dtype
    if parse_as_dtype != "string_or_numeric" and (
        (parse_as_dtype != "numeric" and parse_as_dtype != inferred)
        or (parse_as_dtype == "numeric" and inferred == STRING)
    ):
        raise DTypeError(
            f"Argument '{snake_case(arg_name)}' passed to '{snake_case(op_name)}' must be {parse_as_dtype} tensor, but got "
            f"{inferred} tensor"
        )
    if x is None or not isinstance(x, _ARRAY_TYPES + _SCALAR_TYPES):
        got = "None" if x is None else type(x).__name__
        raise ArgumentTypeError(
            f"Argument '{snake_case(arg_name)}' passed to '{snake_case(op_name)}' must be a Tensor or TensorLike, but got "
            f"'{got}'"
        )
    if tx is bool and inferred == BOOL:
        return ENGINE.make_tensor(np.bool_(x), (), BOOL)
    shape, arr = _infer_values(x, op_name)
    return ENGINE.make_tensor(to_storage(x, inferred, shape, arr), shape, inferred)


def convert_to_tensor_array(
    xs: Any, arg_name: str, op_name: str, parse_as_dtype: str = "numeric"
) -> list[Tensor]:
    """A list of TensorLike, each converted (TF.js's ``convertToTensorArray``)."""
    if not isinstance(xs, (list, tuple)):
        raise ArgumentTypeError(
            f"Argument '{snake_case(arg_name)}' passed to {snake_case(op_name)} must be a `Tensor[]` or `TensorLike[]`"
        )
    return [
        convert_to_tensor(x, f"{arg_name}[{i}]", op_name, parse_as_dtype) for i, x in enumerate(xs)
    ]


#: Values drawn per step by ``fill_buffer_by``: its float64 temporaries stay under 1 MiB.
FILL_CHUNK = 1 << 16


def fill_buffer_by(buf: Any, take: Any) -> Any:
    """``fill_buffer`` with the values of ``take(n)`` (float64, the next ``n`` of a stream),
    drawn ``FILL_CHUNK`` at a time straight into the buffer; returns ``buf``."""
    target = buf.values.reshape(-1)
    for start in range(0, buf.size, FILL_CHUNK):
        stop = min(start + FILL_CHUNK, buf.size)
        target[start:stop] = js_store(take(stop - start), buf.dtype, np, bool_mode="uint8")
    return buf


def own_buffer_tensor(buf: Any) -> Tensor:
    """The tensor of a numeric ``TensorBuffer`` that only its op holds: its values move into
    the tensor without the copy ``to_tensor`` makes (the buffer is left empty)."""
    shape = tuple(buf.shape)
    values, buf.values = buf.values, None
    if buf.dtype == BOOL:
        values = values != 0
    return ENGINE.make_tensor(values.reshape(shape), shape, buf.dtype)


def fill_buffer(buf: Any, values: Any) -> Any:
    """Writes numbers (a float64 array, in row-major order) into a ``TensorBuffer`` as a JS
    typed array of its dtype stores them (TF.js's ``res.values[i] = x``); returns ``buf``."""
    stored = js_store(values, buf.dtype, np, bool_mode="uint8")
    target = buf.values
    target[...] = stored.reshape(target.shape)
    return buf
