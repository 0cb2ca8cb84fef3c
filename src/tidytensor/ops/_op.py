"""The ``@op`` decorator and the argument helpers every op uses.

``@op`` runs the op in its own ``<name>__op`` scope, so every temporary it makes (converted
arguments, casts) is freed when it returns: TF.js's ``op()`` from ``ops/operation.ts``.
"""

from __future__ import annotations

import builtins
import functools
import inspect
import math
import os
import reprlib
import sysconfig
from collections.abc import Callable
from typing import Any, TypeVar, overload

import numpy as np

from ..engine import ENGINE
from ..engine.memory_guard import out_of_host_memory
from ..errors import (
    ArgumentTypeError,
    InvalidArgumentError,
    ResourceExhaustedError,
    ShapeError,
    TensorIndexError,
    TidyTensorError,
)
from ..naming import snake_case
from ..tensor import Tensor
from ..tensor_util import (
    assert_non_negative_integer_dimensions,
    check_dtype_name,
    convert_to_tensor,
    convert_to_tensor_array,
)

__all__ = [
    "OP_SCOPE_SUFFIX",
    "op",
    "axis_arg",
    "bool_arg",
    "check_rank_limit",
    "checked_shape",
    "describe",
    "dtype_arg",
    "float_arg",
    "int_arg",
    "int_value",
    "int_list_arg",
    "ints_arg",
    "seed_arg",
    "real_number",
    "str_arg",
    "translate_error",
    "convert_to_tensor",
    "convert_to_tensor_array",
    "js_str",
    "keep_dims_arg",
    "parse_axis",
    "parse_axis_param",
    "drawn_per_call",
    "run_kernel",
]

OP_SCOPE_SUFFIX = "__op"
F = TypeVar("F", bound=Callable[..., Any])

run_kernel = ENGINE.run_kernel


@overload
def op(fn: F, *, name: str | None = None, fast_kernel: str | None = None) -> F: ...
@overload
def op(
    fn: None = None, *, name: str | None = None, fast_kernel: str | None = None
) -> Callable[[F], F]: ...
def op(fn: F | None = None, *, name: str | None = None, fast_kernel: str | None = None) -> Any:
    """Wraps ``fn`` so that it runs in a scope named ``<name>__op``.

    ``fast_kernel`` names the kernel ``fn`` runs, unchanged, when every argument is a float32
    tensor of one shape; such calls then skip the op body (see ``Engine.make_op``).

    A builtin error that escapes ``fn`` (an argument no check foresaw reaching Python or
    NumPy) becomes a tidytensor error naming the op, what it was given and its signature.
    """

    def decorate(fn: F) -> F:
        scope_name = (name or fn.__name__.rstrip("_")) + OP_SCOPE_SUFFIX
        op_name = scope_name[: -len(OP_SCOPE_SUFFIX)]

        def on_error(exc: BaseException, args: tuple, kwargs: dict) -> BaseException | None:
            return translate_error(exc, op_name, fn, args, kwargs)

        wrapper = functools.wraps(fn)(ENGINE.make_op(scope_name, fn, fast_kernel, on_error))
        wrapper.op_name = op_name  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate(fn) if fn is not None else decorate


def drawn_per_call(fn: F) -> F:
    """Marks an op that draws random values on the host (``random_normal``, ``rand``...).

    Eagerly it is ``fn``. Inside a ``tf.function`` being traced, the tracer records the call
    itself (``record_host_call``), not the values it drew: every replay calls ``fn`` again, so
    draws without a seed are fresh each call and seeded ones repeat as they do eagerly.
    """

    @functools.wraps(fn)
    def drawing(*args: Any, **kwargs: Any) -> Any:
        tracer = ENGINE.tracer
        if tracer is None:
            return fn(*args, **kwargs)
        return tracer.record_host_call(fn, args, kwargs)

    return drawing  # type: ignore[return-value]


def parse_axis_param(
    axis: Any, shape: tuple[int, ...] | list[int], op_name: str = "op"
) -> list[int]:
    """Normalizes ``axis`` (None, an int or a list; negatives allowed) to sorted-as-given
    non-negative ints, with TF.js's error for out-of-range axes."""
    rank = len(shape)
    if axis is None:
        return list(range(rank))
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    out = []
    for ax in axes:
        f = real_number(ax)
        if f is None or not -rank <= f < rank:
            raise InvalidArgumentError(
                f"All values in axis param must be in range [-{rank}, {rank}) but got axis "
                f"{list(axis) if isinstance(axis, (list, tuple)) else describe(axis)} "
                f"(op '{snake_case(op_name)}')"
            )
        if not f.is_integer():
            raise InvalidArgumentError(
                f"All values in axis param must be integers but got axis {describe(axis)} "
                f"(op '{snake_case(op_name)}')"
            )
        ax = int(f)
        out.append(ax + rank if ax < 0 else ax)
    return out


# ---------------------------------------------------------------------------- argument checks
#: The largest dimension (and element count) a shape may have: TF.js keeps shapes in int32.
MAX_DIM = 2**31 - 1
#: The most dimensions a tensor that holds its own values may have (NumPy's limit).
MAX_RANK = 64


def describe(value: Any) -> str:
    """``value`` as an error message shows what was given: tensors by dtype and shape, other
    values by a shortened ``repr``."""
    if isinstance(value, Tensor):
        if value.is_disposed:
            return "a disposed tensor"
        return f"a {value.dtype} tensor of shape [{','.join(map(str, value._shape))}]"
    if isinstance(value, np.ndarray):
        return f"a {value.dtype} NumPy array of shape {list(value.shape)}"
    return _REPR.repr(value)  # Python's spelling: nan, inf, None, True


_REPR = reprlib.Repr()
_REPR.maxstring = 40
_REPR.maxother = 40
_REPR.maxlist = _REPR.maxtuple = 8
_REPR.maxlevel = 3


def _bad(op_name: str, name: str, expected: str, value: Any, cls: type = InvalidArgumentError):
    return cls(
        f"Argument '{snake_case(name)}' passed to '{snake_case(op_name)}' must be {expected}, but got {describe(value)}"
    )


def real_number(value: Any) -> float | None:
    """``value`` as a float when it is a real number (Python, NumPy, or a one-element numeric
    tensor), else None."""
    if isinstance(value, (bool, np.bool_, str, bytes)):
        return None
    if isinstance(value, (int, float, np.integer, np.floating)):
        return float(value)
    if isinstance(value, Tensor):
        if value.is_disposed or value.size != 1 or value.dtype not in ("float32", "int32"):
            return None
        return float(value.data_sync()[0])
    if isinstance(value, np.ndarray) and value.size == 1 and value.dtype.kind in "iuf":
        return float(value.reshape(-1)[0])
    return None


def int_value(value: Any) -> int | None:
    """``value`` as an int when it is an integral finite real number (see ``real_number``),
    else None. Plain ints return at once: this runs on the success path of many ops."""
    if type(value) is int:
        return value
    f = real_number(value)
    if f is None or not math.isfinite(f) or not f.is_integer():
        return None
    return int(f)


def int_arg(
    value: Any, op_name: str, name: str, *, minimum: int | None = None, maximum: int | None = None
) -> int:
    """``value`` as an int: an integer, or a float with an integral value (a JS number).
    Raises a tidytensor error naming the op and the argument otherwise."""
    out = int_value(value)
    if out is None:
        cls = ArgumentTypeError if real_number(value) is None else InvalidArgumentError
        raise _bad(op_name, name, "an integer", value, cls)
    if minimum is not None and out < minimum:
        raise _bad(op_name, name, f"an integer >= {minimum}", value)
    top = MAX_DIM if maximum is None else maximum
    if out > top:
        raise _bad(op_name, name, f"an integer <= {top}", value)
    return out


def float_arg(value: Any, op_name: str, name: str, *, finite: bool = False) -> float:
    """``value`` as a float (a Python/NumPy number or a one-element numeric tensor)."""
    f = real_number(value)
    if f is None:
        raise _bad(op_name, name, "a number", value, ArgumentTypeError)
    if finite and not math.isfinite(f):
        raise _bad(op_name, name, "a finite number", value)
    return f


def bool_arg(value: Any, op_name: str, name: str) -> bool:
    """``value`` as a bool: a Python/NumPy bool, None (false) or 0/1."""
    if value is None or isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)) and value in (0, 1):
        return bool(value)
    raise _bad(op_name, name, "a boolean", value, ArgumentTypeError)


def str_arg(value: Any, op_name: str, name: str, choices: Any = None) -> str:
    """``value`` when it is a string (one of ``choices`` when given)."""
    if not isinstance(value, str):
        raise _bad(op_name, name, "a string", value, ArgumentTypeError)
    if choices is not None and value not in choices:
        raise _bad(op_name, name, "one of " + ", ".join(f"'{c}'" for c in choices), value)
    return value


def int_list_arg(
    value: Any,
    op_name: str,
    name: str,
    *,
    length: int | None = None,
    minimum: int | None = None,
    scalar_ok: bool = False,
) -> list[int]:
    """``value`` as a list of ints (a list, tuple, 1-D array or 1-D int tensor); a bare
    integer is a one-element list when ``scalar_ok``."""
    if isinstance(value, Tensor) and not value.is_disposed and value.rank == 1:
        items: Any = value.array_sync() if value.dtype in ("int32", "float32") else None
    elif isinstance(value, np.ndarray) and value.ndim == 1:
        items = value.tolist()
    elif isinstance(value, (list, tuple)):
        items = value
    elif scalar_ok and real_number(value) is not None and not isinstance(value, Tensor):
        items = [value]
    else:
        items = None
    what = "an array of integers" if length is None else f"an array of {length} integers"
    if minimum == 0:
        what = what.replace("integers", "non-negative integers")
    elif minimum == 1:
        what = what.replace("integers", "positive integers")
    if items is None:
        raise _bad(op_name, name, what, value, ArgumentTypeError)
    if length is not None and len(items) != length:
        raise _bad(op_name, name, what, value)
    out = []
    for v in items:
        d = None if isinstance(v, Tensor) else int_value(v)
        if d is None or (minimum is not None and d < minimum) or abs(d) > MAX_DIM:
            raise _bad(op_name, name, what, value)
        out.append(d)
    return out


def axis_arg(
    axis: Any, shape: Any, op_name: str, *, allow_none: bool = False, many: bool = False
) -> Any:
    """``axis`` (an int; with ``many``, also a list of them) when its type is one an axis may
    have; the range is the kernel's to check. Anything else gets TF.js's axis error."""
    if type(axis) is int:
        return axis
    if axis is None and allow_none:
        return None
    if not many and isinstance(axis, (list, tuple)):
        if len(axis) != 1:
            raise InvalidArgumentError(
                f"Argument 'axis' passed to '{snake_case(op_name)}' must be one integer, but got "
                f"{describe(axis)}"
            )
        axis = axis[0]
    items = axis if isinstance(axis, (list, tuple)) else [axis]
    for a in items:
        f = real_number(a)
        if f is None or not math.isfinite(f):
            rank = len(shape)
            raise InvalidArgumentError(
                f"All values in axis param must be in range [-{rank}, {rank}) but got axis "
                f"{describe(axis)} (op '{snake_case(op_name)}')"
            )
        if not f.is_integer():
            raise InvalidArgumentError(
                f"All values in axis param must be integers but got axis {describe(axis)} "
                f"(op '{snake_case(op_name)}')"
            )
    if isinstance(axis, (list, tuple)):
        return [int(real_number(a)) for a in axis]  # type: ignore[arg-type]
    return int(real_number(axis))  # type: ignore[arg-type]


def ints_arg(value: Any, op_name: str, name: str, *, allow_none: bool = False) -> Any:
    """A number or a list of numbers, truncated to ints as TF.js's typed arrays store them
    (``slice``'s ``begin`` and ``size``); NaN, infinities and non-numbers are refused."""
    if value is None and allow_none:
        return None
    if isinstance(value, Tensor) and not value.is_disposed and value.rank == 1:
        value = value.array_sync()
    elif isinstance(value, np.ndarray) and value.ndim == 1:
        value = value.tolist()
    items = value if isinstance(value, (list, tuple)) else [value]
    out = []
    for v in items:
        f = real_number(v) if not isinstance(v, (list, tuple)) else None
        if f is None or not math.isfinite(f) or abs(f) > MAX_DIM:
            raise _bad(
                op_name,
                name,
                "an integer or an array of integers",
                value,
                ArgumentTypeError if f is None else InvalidArgumentError,
            )
        out.append(int(f))
    return out if isinstance(value, (list, tuple)) else out[0]


def seed_arg(value: Any, op_name: str) -> Any:
    """A random seed as TF.js takes one: None, a number or a string."""
    if value is None or isinstance(value, (str, bool, int, float, np.integer, np.floating)):
        return value
    raise _bad(op_name, "seed", "a number or a string", value, ArgumentTypeError)


def check_rank_limit(rank: int, op_name: str) -> None:
    """Refuses a result of more than ``MAX_RANK`` dimensions."""
    if rank > MAX_RANK:
        raise ShapeError(
            f"'{snake_case(op_name)}' would make a tensor of rank {rank}, but at most {MAX_RANK} "
            "dimensions are supported"
        )


def checked_shape(shape: Any, op_name: str) -> tuple[int, ...]:
    """TF.js's shape check, then a size TF.js could hold (int32 element counts)."""
    dims = assert_non_negative_integer_dimensions(shape, op_name)
    check_rank_limit(len(dims), op_name)
    size = 1
    for d in dims:
        size *= d
        if d > MAX_DIM:  # one dimension alone past the limit, even where another is 0
            raise ShapeError(
                f"The shape [{','.join(map(str, dims))}] passed to '{snake_case(op_name)}' has a dimension "
                f"of {d}, but at most {MAX_DIM} are supported"
            )
    if size > MAX_DIM:
        raise ShapeError(
            f"The shape [{','.join(map(str, dims))}] passed to '{snake_case(op_name)}' has {size} elements, but at "
            f"most {MAX_DIM} are supported"
        )
    return dims


def dtype_arg(value: Any, op_name: str, allow_none: bool = False) -> Any:
    """``value`` when it is one of TF.js's five dtype names (or None when ``allow_none``)."""
    if value is None and allow_none:
        return None
    return check_dtype_name(value, op_name)


# ---------------------------------------------------------------------------- the backstop
#: Builtin errors an op body or NumPy may raise on arguments no check foresaw, and the
#: tidytensor error each becomes (a subclass of the same builtin where one fits).
_TRANSLATED: tuple[tuple[type, type], ...] = (
    (MemoryError, ResourceExhaustedError),
    (RecursionError, InvalidArgumentError),
    (IndexError, TensorIndexError),
    (TypeError, ArgumentTypeError),
    (AttributeError, ArgumentTypeError),
    (ValueError, InvalidArgumentError),
    (ArithmeticError, InvalidArgumentError),
    (LookupError, InvalidArgumentError),
)
_CAUGHT = tuple(builtin for builtin, _ in _TRANSLATED)
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_LIBRARY_DIRS = tuple(
    {
        _PACKAGE_DIR,
        os.path.dirname(os.path.abspath(np.__file__)) + os.sep,
        os.path.abspath(sysconfig.get_paths()["stdlib"]) + os.sep,
    }
)


def _raised_by_library(exc: BaseException) -> bool:
    """True when every frame the error went through is tidytensor's, NumPy's or the standard
    library's: a callback of the user's that raised keeps its own error."""
    tb = exc.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if not filename.startswith(_LIBRARY_DIRS) and not filename.startswith("<"):
            return False
        tb = tb.tb_next
    return True


def _signature_text(fn: Callable) -> str:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return "(...)"
    parts = []
    for p in sig.parameters.values():
        text = p.name
        if p.kind is p.VAR_POSITIONAL:
            text = "*" + text
        elif p.kind is p.VAR_KEYWORD:
            text = "**" + text
        ann = p.annotation
        if isinstance(ann, str) and ann not in ("Any", "Tensor") and ann:
            text += f": {ann}"
        if p.default is not p.empty:
            text += f" = {p.default!r}"
        parts.append(text)
    return f"({', '.join(parts)})"


def _given_text(fn: Callable, args: tuple, kwargs: dict) -> str:
    try:
        bound = inspect.signature(fn).bind_partial(*args, **kwargs).arguments
        items = [(name, value) for name, value in bound.items()]
    except (TypeError, ValueError):
        items = [(f"arg{i}", a) for i, a in enumerate(args)] + list(kwargs.items())
    return ", ".join(f"{name}={describe(value)}" for name, value in items)


#: How ``geometry.broadcast`` starts its error, which names no op.
_BROADCAST_FAILED = "Operands could not be broadcast"


def translate_error(
    exc: BaseException, op_name: str, fn: Callable, args: tuple, kwargs: dict
) -> BaseException | None:
    """The tidytensor error that replaces a builtin error ``exc`` raised inside op
    ``op_name`` (None when ``exc`` should propagate as it is: a tidytensor error, or an error
    from the user's own callback). The message names the op, what it was given and what its
    signature expects."""
    if isinstance(exc, ShapeError) and str(exc).startswith(_BROADCAST_FAILED):
        message = str(exc)  # the broadcast check knows the shapes; the op knows its name
        return ShapeError(f"{snake_case(op_name)}: o{message[1:].rstrip('.')}")
    if isinstance(exc, TidyTensorError) or not isinstance(exc, _CAUGHT):
        return None
    if not _raised_by_library(exc):
        return None
    if isinstance(exc, MemoryError):  # the arguments may be fine: the host ran out
        given = _given_text(fn, args, kwargs) or "no arguments"
        return out_of_host_memory(op_name, f"its result (given: {given})", exc)
    cls = next(tt for builtin, tt in _TRANSLATED if isinstance(exc, builtin))
    reason = str(exc) or type(exc).__name__
    return cls(
        f"Invalid arguments to '{snake_case(op_name)}': {reason}. Given: "
        f"{_given_text(fn, args, kwargs) or 'no arguments'}. Expected: "
        f"{snake_case(op_name)}{_signature_text(fn)}"
    )


def js_str(value: Any) -> str:
    """``value`` as JS's template strings print it (arrays joined by commas, 1.0 as 1), but
    ``None``, ``True``, ``False``, ``nan`` and ``inf`` spelled as in Python (the user wrote
    them so)."""
    if isinstance(value, (list, tuple)):
        return ",".join(js_str(v) for v in value)
    if value is None or isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return repr(value)
        if value.is_integer():
            return str(int(value))
    return str(value)


def _is_int(value: Any) -> bool:
    """True for an integral real number (a Python/NumPy number or a one-element float32 or
    int32 tensor); never for a bool, a string or a complex value."""
    return int_value(value) is not None


def keep_dims_arg(value: Any, op_name: str) -> bool:
    """``keepDims`` as a bool (None, a bool or 0/1), else a clear argument error."""
    if value is False or value is True:
        return value
    return bool_arg(value, op_name, "keepDims")


def parse_axis(axis: Any, shape: tuple[int, ...], op_name: str) -> list[int]:
    """TF.js's ``parseAxisParam``: None means every axis; negatives count from the end.

    Duplicates are kept (TF.js keeps them too). Raises TF.js's errors, naming the op.
    """
    rank = len(shape)
    if axis is None:
        return list(range(rank))
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    if not builtins.all(_is_int(a) for a in axes):
        raise InvalidArgumentError(
            f"All values in axis param must be integers but got axis {js_str(axis)} (op '{snake_case(op_name)}')"
        )
    ints = [int_value(a) for a in axes]
    if not builtins.all(-rank <= a < rank for a in ints):
        raise InvalidArgumentError(
            f"All values in axis param must be in range [-{rank}, {rank}) but got axis "
            f"{js_str(axis)} (op '{snake_case(op_name)}')"
        )
    return [a + rank if a < 0 else a for a in ints]
