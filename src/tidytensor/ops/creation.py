"""Creation (TF.js doc subheading 'Tensors / Creation').

As in TF.js, ``tensor``/``scalar``/``tensorNd``/``zeros``/``ones`` upload host values with no
kernel; ``zeros``/``ones``/``fill``/``range``/``linspace`` are not wrapped in an op scope, so
``zeros(shape, 'complex64')`` leaves its real and imaginary parts alive (three tensors, as
in TF.js). ``tf.variable`` lives in ``scopes.py``.
"""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

from .. import kernel_names as k
from .. import random_engines
from ..dtypes import BOOL, COMPLEX64, FLOAT32, INT32, STRING
from ..engine import ENGINE
from ..engine.memory_guard import check_host_allocation, out_of_host_memory
from ..errors import ArgumentTypeError, DTypeError, InvalidArgumentError, ShapeError
from ..naming import snake_case
from ..tensor import Tensor, TensorBuffer
from ..tensor_util import (
    _infer_values,
    _make_from_inferred,
    fill_buffer_by,
    filled_tensor,
    infer_dtype,
    make_tensor,
    own_buffer_tensor,
    shape_str,
    to_storage,
)
from ._op import (
    MAX_DIM,
    check_rank_limit,
    checked_shape,
    convert_to_tensor,
    describe,
    drawn_per_call,
    dtype_arg,
    float_arg,
    int_list_arg,
    op,
    run_kernel,
    seed_arg,
)

__all__ = [
    "buffer",
    "clone",
    "complex",
    "diag",
    "eye",
    "fill",
    "imag",
    "linspace",
    "one_hot",
    "ones",
    "ones_like",
    "print",
    "range",
    "real",
    "scalar",
    "tensor",
    "tensor1d",
    "tensor2d",
    "tensor3d",
    "tensor4d",
    "tensor5d",
    "tensor6d",
    "truncated_normal",
    "zeros",
    "zeros_like",
]

_COMPLEX_BUFFER_MSG = (
    "complex64 dtype TensorBuffers are not supported. Please create a TensorBuffer for the "
    "real and imaginary parts separately and call tf.complex(real, imag)."
)


# ============================================================================ from values
def tensor(values: Any, shape: Any = None, dtype: str | None = None) -> Tensor:
    """Creates a tensor from nested lists, a flat list with a shape, a number or a NumPy array.

    Python numbers become float32 unless ``dtype`` is given, as JS numbers do in TF.js.

    >>> tf.tensor([[1, 2], [3, 4]]).shape
    [2, 2]
    >>> tf.tensor([1, 2, 3, 4], [2, 2], 'int32').array_sync()
    [[1, 2], [3, 4]]
    """
    if dtype is not None and type(dtype) is not str:
        dtype_arg(dtype, "tensor")
    return make_tensor(values, shape, dtype, "tensor")


def scalar(value: Any, dtype: str | None = None) -> Tensor:
    """Creates a rank-0 tensor.

    >>> tf.scalar(3.5).array_sync()
    3.5
    >>> tf.scalar(True).dtype
    'bool'
    """
    if dtype is not None and type(dtype) is not str:
        dtype_arg(dtype, "scalar")
    is_array = isinstance(value, (list, tuple)) or (
        hasattr(value, "ndim")
        and not isinstance(value, Tensor)
        and value.ndim > 0
        and dtype != STRING
    )
    if is_array and dtype != COMPLEX64:
        raise ShapeError(
            "Error creating a new Scalar: value must be a primitive (number|boolean|string)"
        )
    return make_tensor(value, [], dtype, "scalar")


def tensor1d(values: Any, dtype: str | None = None) -> Tensor:
    """Creates a rank-1 tensor from a flat list or array.

    >>> tf.tensor1d([1, 2, 3], 'int32').array_sync()
    [1, 2, 3]
    """
    _assert_non_null(values)
    if dtype is not None and type(dtype) is not str:
        dtype_arg(dtype, "tensor1d")
    inferred, arr = _infer_values(values, "tensor1d")
    if len(inferred) != 1:
        raise ShapeError("tensor1d() requires values to be a flat/TypedArray")
    return _make_from_inferred(values, inferred, arr, None, dtype, "tensor1d")


_RANK_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


def _ranked(rank: int):
    name = f"tensor{rank}d"
    nested = "number" + "[]" * rank
    flat_word = "flat/TypedArray" if rank == 2 else "flat array"

    def create(values: Any, shape: Any = None, dtype: str | None = None) -> Tensor:
        _assert_non_null(values)
        if shape is not None and (
            not isinstance(shape, (list, tuple, np.ndarray)) or len(shape) != rank
        ):
            raise ShapeError(
                f"{name}() requires shape to have {_RANK_WORDS[rank]} numbers, but got "
                f"{describe(shape)}"
            )
        if dtype is not None and type(dtype) is not str:
            dtype_arg(dtype, name)
        inferred, arr = _infer_values(values, name)
        if len(inferred) != rank and len(inferred) != 1:
            raise ShapeError(f"{name}() requires values to be {nested} or flat/TypedArray")
        if len(inferred) == 1 and shape is None:
            raise ShapeError(
                f"{name}() requires shape to be provided when `values` are a {flat_word}"
            )
        return _make_from_inferred(values, inferred, arr, shape, dtype, name)

    create.__name__ = create.__qualname__ = name
    create.__doc__ = (
        f"Creates a rank-{rank} tensor from ``{nested}`` values, or flat values and a shape.\n\n"
        f"    >>> tf.{name}([1] * {2**rank}, [2] * {rank}).shape\n"
        f"    {[2] * rank}\n"
    )
    return create


def _assert_non_null(values: Any) -> None:
    if values is None:
        raise ArgumentTypeError("The input to the tensor constructor must not be None.")


tensor2d = _ranked(2)
tensor3d = _ranked(3)
tensor4d = _ranked(4)
tensor5d = _ranked(5)
tensor6d = _ranked(6)


def buffer(shape: Any, dtype: str = "float32", values: Any = None) -> TensorBuffer:
    """An empty (or prefilled) mutable ``TensorBuffer``; ``to_tensor()`` makes the tensor.

    >>> b = tf.buffer([2, 2])
    >>> b.set(3, 0, 0)
    >>> b.to_tensor().array_sync()
    [[3.0, 0.0], [0.0, 0.0]]
    """
    dtype = _dtype_or(dtype, FLOAT32, "buffer")
    shape = checked_shape(shape, "buffer")
    dtype_arg(dtype, "buffer")
    if dtype == COMPLEX64:
        raise DTypeError(_COMPLEX_BUFFER_MSG)
    if values is not None:
        if isinstance(values, Tensor):
            raise ArgumentTypeError(
                "The values passed to 'buffer' must be a list or array, but got a Tensor"
            )
        values = to_storage(values, dtype).reshape(-1)
    return TensorBuffer(list(shape), dtype, values)


@op
def clone(x: Any) -> Tensor:
    """A new handle on the same buffer (no copy; ``num_data_buffers`` does not grow).

    >>> tf.clone(tf.tensor([1, 2])).array_sync()
    [1.0, 2.0]
    """
    x = convert_to_tensor(x, "x", "clone", "string_or_numeric")
    return run_kernel(k.IDENTITY, (x,))


# ============================================================================ complex numbers
@op
def complex(real: Any, imag: Any) -> Tensor:  # noqa: A001 - TF.js name
    """A complex64 tensor from real and imaginary parts of the same shape.

    >>> tf.complex([1, 2], [3, 4]).data_sync().tolist()
    [1.0, 3.0, 2.0, 4.0]
    """
    re = convert_to_tensor(real, "real", "complex")
    im = convert_to_tensor(imag, "imag", "complex")
    if re._shape != im._shape:
        a, b = shape_str(re._shape), shape_str(im._shape)
        raise ShapeError(
            f"real and imag shapes, {a} and {b}, must match in call to tf.complex(). "
            f"Shapes {a} and {b} must match"
        )
    for name, t in (("real", re), ("imag", im)):
        if t.dtype == COMPLEX64:
            raise DTypeError(
                f"Argument '{snake_case(name)}' passed to 'complex' must be a real-valued tensor, but got "
                "complex64 tensor"
            )
    return run_kernel(k.COMPLEX, (re, im))


def _complex_part(kernel: str, name: str, input: Any) -> Tensor:  # noqa: A002
    x = convert_to_tensor(input, "input", name)
    if x.dtype != COMPLEX64:
        raise DTypeError(
            f"Argument 'input' passed to '{name}' must be complex64 tensor, but got {x.dtype} tensor"
        )
    return run_kernel(kernel, (x,))


@op
def real(input: Any) -> Tensor:  # noqa: A002 - TF.js name
    """The real parts of a complex64 tensor, as float32.

    >>> tf.real(tf.complex([1, 2], [3, 4])).array_sync()
    [1.0, 2.0]
    """
    return _complex_part(k.REAL, "real", input)


@op
def imag(input: Any) -> Tensor:  # noqa: A002 - TF.js name
    """The imaginary parts of a complex64 tensor, as float32.

    >>> tf.imag(tf.complex([1, 2], [3, 4])).array_sync()
    [3.0, 4.0]
    """
    return _complex_part(k.IMAG, "imag", input)


# ============================================================================ filled tensors
def zeros(shape: Any, dtype: str = "float32") -> Tensor:
    """A tensor of zeros. ``complex64`` is built with ``complex(zeros, zeros)`` and, as in
    TF.js, leaves those two parts alive in the current scope.

    >>> tf.zeros([2, 2], 'int32').array_sync()
    [[0, 0], [0, 0]]
    """
    return _filled(shape, dtype, 0, "zeros")


def ones(shape: Any, dtype: str = "float32") -> Tensor:
    """A tensor of ones (``complex64``: real part one, imaginary part zero).

    >>> tf.ones([3]).array_sync()
    [1.0, 1.0, 1.0]
    """
    return _filled(shape, dtype, 1, "ones")


def _dtype_or(dtype: Any, default: Any, op_name: str) -> Any:
    """``dtype or default`` (TF.js's default for a missing dtype), refusing a dtype that is
    not a string before any truth test could trip on it."""
    if dtype is not None and type(dtype) is not str:
        dtype_arg(dtype, op_name)
    return dtype or default


def _filled(shape: Any, dtype: str, value: int, name: str) -> Tensor:
    shape = checked_shape(shape, name)
    dtype = _dtype_or(dtype, FLOAT32, name)
    if dtype == COMPLEX64:
        re = _filled(shape, FLOAT32, value, name)
        im = _filled(shape, FLOAT32, 0, name)
        return complex(re, im)
    dtype_arg(dtype, name)
    if dtype == STRING:
        raise DTypeError(f"Unknown data type {dtype} (in '{name}': strings cannot be {name})")
    check_host_allocation(ENGINE, shape, dtype, name)
    try:
        return filled_tensor(shape, value, dtype)
    except MemoryError as exc:
        raise out_of_host_memory(name, f"a {dtype} tensor of shape {list(shape)}", exc) from None


@op
def zeros_like(x: Any) -> Tensor:
    """Zeros with ``x``'s shape and dtype.

    >>> tf.zeros_like(tf.tensor([1, 2], None, 'int32')).array_sync()
    [0, 0]
    """
    x = convert_to_tensor(x, "x", "zerosLike")
    return run_kernel(k.ZEROS_LIKE, (x,))


@op
def ones_like(x: Any) -> Tensor:
    """Ones with ``x``'s shape and dtype.

    >>> tf.ones_like(tf.tensor([[1, 2]])).array_sync()
    [[1.0, 1.0]]
    """
    x = convert_to_tensor(x, "x", "onesLike")
    return run_kernel(k.ONES_LIKE, (x,))


def fill(shape: Any, value: Any, dtype: str | None = None) -> Tensor:
    """A tensor filled with one value; the dtype is inferred from ``value`` if not given.

    >>> tf.fill([2, 2], 4).array_sync()
    [[4.0, 4.0], [4.0, 4.0]]
    """
    shape = checked_shape(shape, "fill")
    dtype = _dtype_or(dtype, None, "fill") or infer_dtype(value)
    dtype_arg(dtype, "fill")
    if dtype == COMPLEX64:
        raise DTypeError("Unknown data type complex64 (in 'fill': use tf.complex() to build one)")
    if isinstance(value, (list, tuple, Tensor)) or (hasattr(value, "ndim") and value.ndim > 0):
        raise ArgumentTypeError(
            f"The value passed to 'fill' must be a number, boolean or string, but got "
            f"{type(value).__name__}"
        )
    if dtype == STRING and not isinstance(value, (str, bytes)):
        raise DTypeError(f"fill() with dtype string needs a string value, but got {value!r}")
    if dtype != STRING and not isinstance(value, (bool, int, float, str, bytes, np.generic)):
        raise ArgumentTypeError(
            f"The value passed to 'fill' must be a number, boolean or string, but got "
            f"{describe(value)}"
        )
    return run_kernel(k.FILL, (), {"shape": shape, "value": value, "dtype": dtype})


def eye_(num_rows: int, num_columns: int | None, batch_shape: Any, dtype: str) -> Tensor:
    if num_columns is None:
        num_columns = num_rows
    check_host_allocation(ENGINE, [num_rows, num_columns], dtype or FLOAT32, "eye")
    buff = buffer([num_rows, num_columns], dtype)
    if batch_shape is not None:
        batch_shape = int_list_arg(batch_shape, "eye", "batchShape", minimum=0)
    if dtype == STRING:
        raise DTypeError("eye() does not support dtype string")
    for i in builtins.range(builtins.min(num_rows, num_columns)):
        buff.set(1, i, i)
    # the Reshape, ExpandDims and Tile kernels the reshape, expand_dims and tile ops would
    # run (their checks hold for these arguments): creation sits below transformations and
    # slicing_joining, which import it
    out = run_kernel(k.RESHAPE, (buff.to_tensor(),), {"shape": [num_rows, num_columns]})
    if batch_shape is None:
        return out
    batch = list(batch_shape)
    if len(batch) not in (1, 2, 3):
        raise InvalidArgumentError(
            f"eye() currently supports only 1D and 2D batch_shapes, but received {len(batch)}D."
        )
    for _ in batch:
        out = run_kernel(k.EXPAND_DIMS, (out,), {"dim": 0})
    return run_kernel(k.TILE, (out,), {"reps": batch + [1, 1]})


@op
def eye(
    num_rows: int, num_columns: int | None = None, batch_shape: Any = None, dtype: str = "float32"
) -> Tensor:
    """An identity matrix (or a batch of them, for a 1-3D ``batch_shape``).

    >>> tf.eye(2).array_sync()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return eye_(num_rows, num_columns, batch_shape, _dtype_or(dtype, FLOAT32, "eye"))


def linspace(start: float, stop: float, num: int) -> Tensor:
    """``num`` evenly spaced float32 values from ``start`` to ``stop`` (accumulated in float32
    as TF.js does).

    >>> tf.linspace(0, 1, 3).array_sync()
    [0.0, 0.5, 1.0]
    """
    start = float_arg(start, "linspace", "start")
    stop = float_arg(stop, "linspace", "stop")
    n = float_arg(num, "linspace", "num")
    if not n > 0:
        raise InvalidArgumentError("The number of values should be positive.")
    if n > MAX_DIM and math.isfinite(n):
        raise InvalidArgumentError(
            f"Argument 'num' passed to 'linspace' must be at most {MAX_DIM}, but got "
            f"{describe(num)}"
        )
    return run_kernel(k.LIN_SPACE, (), {"start": start, "stop": stop, "num": num})


def range(start: float, stop: float, step: float = 1, dtype: str = "float32") -> Tensor:  # noqa: A001
    """Values from ``start`` up to (not including) ``stop`` by ``step``; float32 by default.

    >>> tf.range(0, 9, 2).array_sync()
    [0.0, 2.0, 4.0, 6.0, 8.0]
    """
    start = float_arg(start, "range", "start")
    stop = float_arg(stop, "range", "stop")
    step = float_arg(step, "range", "step")
    if step == 0:
        raise InvalidArgumentError("Cannot have a step of zero")
    dtype = _dtype_or(dtype, FLOAT32, "range")
    dtype_arg(dtype, "range")
    count = abs((stop - start) / step)
    if math.isfinite(count) and count > MAX_DIM:
        raise InvalidArgumentError(
            f"range({describe(start)}, {describe(stop)}, {describe(step)}) would make "
            f"{math.ceil(count)} values, but at most {MAX_DIM} are supported"
        )
    if dtype in (STRING, COMPLEX64):
        raise DTypeError(f"Unknown data type {dtype} (in 'range': expected float32, int32 or bool)")
    return run_kernel(k.RANGE, (), {"start": start, "stop": stop, "step": step, "dtype": dtype})


@op
def one_hot(
    indices: Any, depth: int, on_value: float = 1, off_value: float = 0, dtype: str = "int32"
) -> Tensor:
    """One-hot vectors along a new last axis; int32 by default. Indices outside
    ``[0, depth)`` give rows of ``off_value``.

    >>> tf.one_hot(tf.tensor1d([0, 2], 'int32'), 3).array_sync()
    [[1, 0, 0], [0, 0, 1]]
    """
    d = float_arg(depth, "oneHot", "depth")
    if d < 2:
        raise InvalidArgumentError(f"Error in one_hot: depth must be >=2, but it is {depth}")
    if not d.is_integer():
        raise InvalidArgumentError(f"Error in one_hot: depth must be an integer, but it is {depth}")
    depth = int(d)
    on_value = float_arg(on_value, "oneHot", "onValue")
    off_value = float_arg(off_value, "oneHot", "offValue")
    x = convert_to_tensor(indices, "indices", "oneHot", INT32)
    if x.size * depth > MAX_DIM:
        raise ShapeError(
            f"Error in one_hot: {x.size} indices of depth {depth} would make {x.size * depth} "
            f"values, but at most {MAX_DIM} are supported"
        )
    dtype = _dtype_or(dtype, INT32, "oneHot")
    dtype_arg(dtype, "oneHot")
    if dtype not in (FLOAT32, INT32, BOOL):
        raise DTypeError(f"one_hot() does not support dtype {dtype}")
    attrs = {"dtype": dtype, "depth": int(depth), "on_value": on_value, "off_value": off_value}
    return run_kernel(k.ONE_HOT, (x,), attrs)


@op
def diag(x: Any) -> Tensor:
    """A tensor of rank ``2k`` with ``x`` (rank ``k``) on its diagonal, zeros elsewhere.

    >>> tf.diag(tf.tensor([1, 2])).array_sync()
    [[1.0, 0.0], [0.0, 2.0]]
    """
    x = convert_to_tensor(x, "x", "diag")
    if x.dtype == COMPLEX64:
        raise DTypeError(_COMPLEX_BUFFER_MSG)
    check_rank_limit(2 * x.rank, "diag")
    return run_kernel(k.DIAG, (x,))


@drawn_per_call
@op
def truncated_normal(
    shape: Any, mean: float = 0, std_dev: float = 1, dtype: str | None = None, seed: Any = None
) -> Tensor:
    """Normal samples, redrawn until within two standard deviations of the mean. With a
    ``seed`` the values are TF.js's, bit for bit.

    >>> tf.truncated_normal([3], 0, 1, 'float32', 7).shape
    [3]
    """
    shape = checked_shape(shape, "truncatedNormal")
    dtype_arg(dtype, "truncatedNormal", allow_none=True)
    if dtype == BOOL or dtype == STRING:
        raise DTypeError(f"Unsupported data type {dtype}")
    mean = float_arg(mean, "truncatedNormal", "mean")
    std_dev = float_arg(std_dev, "truncatedNormal", "stdDev")
    seed = seed_arg(seed, "truncatedNormal")
    if not std_dev >= 0:
        raise InvalidArgumentError(
            f"truncated_normal() needs std_dev >= 0, but got {std_dev} (no value could be drawn)"
        )
    if math.isnan(mean - 2 * std_dev) or math.isnan(mean + 2 * std_dev):
        # No draw could fall within [mean - 2 stdDev, mean + 2 stdDev] (TF.js's loop never ends).
        raise InvalidArgumentError(
            f"truncated_normal() needs a mean and std_dev that bound its values, but got mean "
            f"{describe(mean)} and std_dev {describe(std_dev)} (no value could be drawn)"
        )
    check_host_allocation(ENGINE, shape, dtype or FLOAT32, "truncated_normal")
    res = buffer(shape, dtype)
    take = random_engines.normal_sampler(mean, std_dev, dtype, True, seed)
    return own_buffer_tensor(fill_buffer_by(res, take))


def print(x: Tensor, verbose: bool = False) -> None:  # noqa: A001 - TF.js name
    """Prints ``x.to_string(verbose)`` (TF.js's ``tf.print``)."""
    if not isinstance(x, Tensor):
        raise ArgumentTypeError(f"tf.print() needs a Tensor, but got {type(x).__name__}")
    builtins.print(x.to_string(verbose))
