"""Basic math (TF.js doc subheading 'Operations / Basic math').

Element-wise unary math and activations. As in TF.js, some ops take float32 tensors only
(``cos``, ``sin``, ``tan``, ``tanh``, ``cosh``, ``ceil``, ``floor``, ``log``, ``sqrt``,
``rsqrt``, ``sigmoid``, ``elu``); the others also take int32 and bool tensors and, except
``exp``, ``erf``, ``leaky_relu`` and ``prelu`` (always float32) and the ``is_*`` tests
(bool), return the input's dtype with the value truncated to it: ``tf.acos`` of an int32
tensor is an int32 tensor.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from .. import kernel_names as k
from ..dtypes import COMPLEX64, FLOAT32, INT32
from ..engine.recording import custom_grad
from ..errors import ArgumentTypeError, DTypeError, InvalidArgumentError
from ..geometry.broadcast import assert_and_get_broadcast_shape
from ..naming import snake_case
from ..tensor import Tensor
from ._op import convert_to_tensor, op, run_kernel
from .arithmetic import mul
from .creation import fill
from .transformations import cast, make_types_match

__all__ = [
    "abs",
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "ceil",
    "clip_by_value",
    "cos",
    "cosh",
    "elu",
    "erf",
    "exp",
    "expm1",
    "floor",
    "is_finite",
    "is_inf",
    "is_nan",
    "leaky_relu",
    "log",
    "log1p",
    "log_sigmoid",
    "neg",
    "prelu",
    "reciprocal",
    "relu",
    "relu6",
    "round",
    "rsqrt",
    "selu",
    "sigmoid",
    "sign",
    "sin",
    "sinh",
    "softplus",
    "sqrt",
    "square",
    "step",
    "tan",
    "tanh",
]


def _unary(kernel: str, x: Any, op_name: str, dtype: str = "numeric") -> Tensor:
    return run_kernel(kernel, (convert_to_tensor(x, "x", op_name, dtype),))


def _number(value: Any, arg_name: str, op_name: str) -> float:
    """A plain number argument (``alpha``, clip bounds) as a Python float."""
    if not isinstance(value, numbers.Real):
        raise ArgumentTypeError(
            f"Argument '{snake_case(arg_name)}' passed to '{snake_case(op_name)}' must be a number, but got "
            f"{type(value).__name__}"
        )
    return float(value)


def _shown_bound(v: float) -> str:
    """A bound as TF.js's message writes it (integers without '.0'), ``nan`` and ``inf`` as
    Python writes them."""
    if math.isnan(v) or math.isinf(v):
        return repr(v)
    if v.is_integer() and -1e21 < v < 1e21:
        return str(int(v))
    return repr(v)


# ---------------------------------------------------------------------------- abs, signs
@op
def abs(x: Any) -> Tensor:  # noqa: A001 - TF.js's name
    """Element-wise absolute value; of a complex64 tensor, its float32 magnitude.

    >>> tf.abs(tf.tensor1d([-1, 2, -3])).array_sync()
    [1.0, 2.0, 3.0]
    """
    x = convert_to_tensor(x, "x", "abs")
    if x.dtype == COMPLEX64:
        return run_kernel(k.COMPLEX_ABS, (x,))
    return run_kernel(k.ABS, (x,))


@op
def neg(x: Any) -> Tensor:
    """Element-wise ``-x`` (int32 wraps; a bool tensor is returned unchanged, as in TF.js).

    >>> tf.neg(tf.tensor1d([1, -2])).array_sync()
    [-1.0, 2.0]
    """
    return _unary(k.NEG, x, "neg")


@op
def sign(x: Any) -> Tensor:
    """Element-wise sign: -1, 0 or 1 (0 for NaN).

    >>> tf.sign(tf.tensor1d([-3, 0, 2, float('nan')])).array_sync()
    [-1.0, 0.0, 1.0, 0.0]
    """
    return _unary(k.SIGN, x, "sign")


@op
def square(x: Any) -> Tensor:
    """Element-wise ``x * x``.

    >>> tf.square(tf.tensor1d([2, -3])).array_sync()
    [4.0, 9.0]
    """
    return _unary(k.SQUARE, x, "square")


@op
def reciprocal(x: Any) -> Tensor:
    """Element-wise ``1 / x`` (``1 / 0`` is Infinity).

    >>> tf.reciprocal(tf.tensor1d([2, 4])).array_sync()
    [0.5, 0.25]
    """
    return _unary(k.RECIPROCAL, x, "reciprocal")


# ---------------------------------------------------------------------------- rounding
@op
def ceil(x: Any) -> Tensor:
    """Element-wise ceiling (float32 tensors only).

    >>> tf.ceil(tf.tensor1d([0.6, -1.5])).array_sync()
    [1.0, -1.0]
    """
    return _unary(k.CEIL, x, "ceil", FLOAT32)


@op
def floor(x: Any) -> Tensor:
    """Element-wise floor (float32 tensors only).

    >>> tf.floor(tf.tensor1d([0.6, -1.5])).array_sync()
    [0.0, -2.0]
    """
    return _unary(k.FLOOR, x, "floor", FLOAT32)


@op
def round(x: Any) -> Tensor:  # noqa: A001 - TF.js's name
    """Element-wise rounding, halves to even.

    >>> tf.round(tf.tensor1d([0.9, 2.5, 2.3, 1.5, -4.5])).array_sync()
    [1.0, 2.0, 2.0, 2.0, -4.0]
    """
    return _unary(k.ROUND, x, "round")


@op
def clip_by_value(x: Any, clip_value_min: Any, clip_value_max: Any) -> Tensor:
    """Clips every value to ``[clip_value_min, clip_value_max]``.

    >>> tf.clip_by_value(tf.tensor1d([-1, 0.5, 3]), 0, 1).array_sync()
    [0.0, 0.5, 1.0]
    """
    x = convert_to_tensor(x, "x", "clipByValue")
    lo = _number(clip_value_min, "clipValueMin", "clipByValue")
    hi = _number(clip_value_max, "clipValueMax", "clipByValue")
    if not lo <= hi:
        raise InvalidArgumentError(
            f"Error in clip: min ({_shown_bound(lo)}) must be less than or equal to max "
            f"({_shown_bound(hi)})."
        )
    if lo == hi:
        return fill(x.shape, lo, x.dtype)
    return run_kernel(k.CLIP_BY_VALUE, (x,), {"clip_value_min": lo, "clip_value_max": hi})


# ---------------------------------------------------------------------------- exp and log
@op
def exp(x: Any) -> Tensor:
    """Element-wise ``e ** x``; the result is float32 for every input dtype.

    >>> tf.exp(tf.tensor([0, 1], None, 'int32')).array_sync()
    [1.0, 2.7182817459106445]
    """
    return _unary(k.EXP, x, "exp")


@op
def expm1(x: Any) -> Tensor:
    """Element-wise ``e ** x - 1``, accurate near 0.

    >>> tf.expm1(tf.tensor1d([0, 1])).array_sync()
    [0.0, 1.718281865119934]
    """
    return _unary(k.EXPM1, x, "expm1")


@op
def log(x: Any) -> Tensor:
    """Element-wise natural logarithm (float32 tensors only): ``log(0)`` is -Infinity,
    negative values give NaN.

    >>> tf.log(tf.tensor1d([1, 0])).array_sync()
    [0.0, -inf]
    """
    return _unary(k.LOG, x, "log", FLOAT32)


@op
def log1p(x: Any) -> Tensor:
    """Element-wise ``log(1 + x)``, accurate near 0.

    >>> tf.log1p(tf.tensor1d([0, -1])).array_sync()
    [0.0, -inf]
    """
    return _unary(k.LOG1P, x, "log1p")


@op
def sqrt(x: Any) -> Tensor:
    """Element-wise square root (float32 tensors only).

    >>> tf.sqrt(tf.tensor1d([4, 9])).array_sync()
    [2.0, 3.0]
    """
    return _unary(k.SQRT, x, "sqrt", FLOAT32)


@op
def rsqrt(x: Any) -> Tensor:
    """Element-wise ``1 / sqrt(x)`` (float32 tensors only).

    >>> tf.rsqrt(tf.tensor1d([4, 0.25])).array_sync()
    [0.5, 2.0]
    """
    return _unary(k.RSQRT, x, "rsqrt", FLOAT32)


@op
def erf(x: Any) -> Tensor:
    """Element-wise Gauss error function (TF.js's approximation, error below 1.5e-7).

    int32 tensors are cast to float32; other dtypes are refused.

    >>> np.round(tf.erf(tf.tensor1d([0, 1])).array_sync(), 4).tolist()
    [0.0, 0.8427]
    """
    x = convert_to_tensor(x, "x", "erf")
    if x.dtype != INT32 and x.dtype != FLOAT32:
        raise DTypeError(
            f"Input dtype must be `int32` or `float32`. (tf.erf got a {x.dtype} tensor)"
        )
    if x.dtype == INT32:
        x = cast(x, FLOAT32)
    return run_kernel(k.ERF, (x,))


# ---------------------------------------------------------------------------- trigonometry
@op
def sin(x: Any) -> Tensor:
    """Element-wise sine (float32 tensors only).

    >>> tf.sin(tf.tensor1d([0])).array_sync()
    [0.0]
    """
    return _unary(k.SIN, x, "sin", FLOAT32)


@op
def cos(x: Any) -> Tensor:
    """Element-wise cosine (float32 tensors only).

    >>> tf.cos(tf.tensor1d([0])).array_sync()
    [1.0]
    """
    return _unary(k.COS, x, "cos", FLOAT32)


@op
def tan(x: Any) -> Tensor:
    """Element-wise tangent (float32 tensors only).

    >>> tf.tan(tf.tensor1d([0])).array_sync()
    [0.0]
    """
    return _unary(k.TAN, x, "tan", FLOAT32)


@op
def asin(x: Any) -> Tensor:
    """Element-wise arcsine; NaN outside [-1, 1].

    >>> tf.asin(tf.tensor1d([0, 2])).array_sync()
    [0.0, nan]
    """
    return _unary(k.ASIN, x, "asin")


@op
def acos(x: Any) -> Tensor:
    """Element-wise arccosine; NaN outside [-1, 1].

    >>> tf.acos(tf.tensor1d([1])).array_sync()
    [0.0]
    """
    return _unary(k.ACOS, x, "acos")


@op
def atan(x: Any) -> Tensor:
    """Element-wise arctangent.

    >>> tf.atan(tf.tensor1d([0])).array_sync()
    [0.0]
    """
    return _unary(k.ATAN, x, "atan")


@op
def atan2(a: Any, b: Any) -> Tensor:
    """Element-wise ``atan(a / b)`` using both signs to pick the quadrant, with broadcasting.

    >>> np.round(tf.atan2(tf.tensor1d([1, 1]), tf.tensor1d([1, -1])).array_sync(), 4).tolist()
    [0.7854, 2.3562]
    """
    a = convert_to_tensor(a, "a", "atan2")
    b = convert_to_tensor(b, "b", "atan2")
    if a.dtype != b.dtype:
        a, b = make_types_match(a, b)
    if a._shape != b._shape:
        assert_and_get_broadcast_shape(a._shape, b._shape)
    return run_kernel(k.ATAN2, (a, b))


@op
def sinh(x: Any) -> Tensor:
    """Element-wise hyperbolic sine.

    >>> tf.sinh(tf.tensor1d([0])).array_sync()
    [0.0]
    """
    return _unary(k.SINH, x, "sinh")


@op
def cosh(x: Any) -> Tensor:
    """Element-wise hyperbolic cosine (float32 tensors only).

    >>> tf.cosh(tf.tensor1d([0])).array_sync()
    [1.0]
    """
    return _unary(k.COSH, x, "cosh", FLOAT32)


@op
def tanh(x: Any) -> Tensor:
    """Element-wise hyperbolic tangent (float32 tensors only).

    >>> tf.tanh(tf.tensor1d([0, 100])).array_sync()
    [0.0, 1.0]
    """
    return _unary(k.TANH, x, "tanh", FLOAT32)


@op
def asinh(x: Any) -> Tensor:
    """Element-wise inverse hyperbolic sine.

    >>> tf.asinh(tf.tensor1d([0])).array_sync()
    [0.0]
    """
    return _unary(k.ASINH, x, "asinh")


@op
def acosh(x: Any) -> Tensor:
    """Element-wise inverse hyperbolic cosine; NaN below 1.

    >>> tf.acosh(tf.tensor1d([1, 0])).array_sync()
    [0.0, nan]
    """
    return _unary(k.ACOSH, x, "acosh")


@op
def atanh(x: Any) -> Tensor:
    """Element-wise inverse hyperbolic tangent; +-Infinity at +-1, NaN beyond.

    >>> tf.atanh(tf.tensor1d([0, 1])).array_sync()
    [0.0, inf]
    """
    return _unary(k.ATANH, x, "atanh")


# ---------------------------------------------------------------------------- tests
@op
def is_finite(x: Any) -> Tensor:
    """Element-wise test: not NaN and not +-Infinity (a bool tensor).

    >>> tf.is_finite(tf.tensor1d([1, float('inf'), float('nan')])).array_sync()
    [1, 0, 0]
    """
    return _unary(k.IS_FINITE, x, "isFinite")


@op
def is_inf(x: Any) -> Tensor:
    """Element-wise test: +-Infinity (a bool tensor).

    >>> tf.is_inf(tf.tensor1d([1, float('-inf'), float('nan')])).array_sync()
    [0, 1, 0]
    """
    return _unary(k.IS_INF, x, "isInf")


@op
def is_nan(x: Any) -> Tensor:
    """Element-wise test: NaN (a bool tensor).

    >>> tf.is_nan(tf.tensor1d([1, float('inf'), float('nan')])).array_sync()
    [0, 0, 1]
    """
    return _unary(k.IS_NAN, x, "isNaN")


# ---------------------------------------------------------------------------- activations
@op
def relu(x: Any) -> Tensor:
    """Element-wise ``max(x, 0)``.

    >>> tf.relu(tf.tensor1d([-1, 2])).array_sync()
    [0.0, 2.0]
    """
    return _unary(k.RELU, x, "relu")


@op
def relu6(x: Any) -> Tensor:
    """Element-wise ``min(max(x, 0), 6)``.

    >>> tf.relu6(tf.tensor1d([-1, 2, 8])).array_sync()
    [0.0, 2.0, 6.0]
    """
    return _unary(k.RELU6, x, "relu6")


@op
def leaky_relu(x: Any, alpha: float = 0.2) -> Tensor:
    """Element-wise ``x < 0 ? alpha * x : x``; the result is float32.

    >>> tf.leaky_relu(tf.tensor1d([-1, 2]), 0.1).array_sync()
    [-0.10000000149011612, 2.0]
    """
    x = convert_to_tensor(x, "x", "leakyRelu")
    alpha = _number(alpha, "alpha", "leakyRelu")
    return run_kernel(k.LEAKY_RELU, (x,), {"alpha": alpha})


@op
def prelu(x: Any, alpha: Any) -> Tensor:
    """Leaky relu with a learned slope tensor ``alpha`` (broadcast against ``x``); float32.

    >>> tf.prelu(tf.tensor1d([-1, 2, -3]), tf.tensor1d([0.5, 0.5, 0.25])).array_sync()
    [-0.5, 2.0, -0.75]
    """
    x = convert_to_tensor(x, "x", "prelu")
    alpha = convert_to_tensor(alpha, "alpha", "prelu")
    if x._shape != alpha._shape:
        assert_and_get_broadcast_shape(x._shape, alpha._shape)
    return run_kernel(k.PRELU, (x, alpha))


@op
def elu(x: Any) -> Tensor:
    """Exponential linear unit: ``x >= 0 ? x : e ** x - 1`` (float32 tensors only).

    >>> np.round(tf.elu(tf.tensor1d([-1, 2])).array_sync(), 4).tolist()
    [-0.6321, 2.0]
    """
    return _unary(k.ELU, x, "elu", FLOAT32)


@op(name="eluGrad")
def _elu_grad(dy: Tensor, y: Tensor) -> Tensor:
    """The EluGrad kernel: ``y >= 0 ? dy : dy * (y + 1)`` for ``y = elu(x)``; used by Elu's
    gradient. Not a public op."""
    return run_kernel(k.ELU_GRAD, (dy, y))


@op
def selu(x: Any) -> Tensor:
    """Scaled exponential linear unit.

    >>> np.round(tf.selu(tf.tensor1d([-1, 2])).array_sync(), 4).tolist()
    [-1.1113, 2.1014]
    """
    return _unary(k.SELU, x, "selu")


@op
def sigmoid(x: Any) -> Tensor:
    """Element-wise ``1 / (1 + e ** -x)`` (float32 tensors only).

    >>> tf.sigmoid(tf.tensor1d([0])).array_sync()
    [0.5]
    """
    return _unary(k.SIGMOID, x, "sigmoid", FLOAT32)


@op
def softplus(x: Any) -> Tensor:
    """Element-wise ``log(1 + e ** x)``, with TF.js's cut-offs for large ``|x|``.

    >>> np.round(tf.softplus(tf.tensor1d([0, 20])).array_sync(), 4).tolist()
    [0.6931, 20.0]
    """
    return _unary(k.SOFTPLUS, x, "softplus")


@op
def log_sigmoid(x: Any) -> Tensor:
    """Element-wise ``log(sigmoid(x))``, computed as ``-softplus(-x)``, with TF.js's custom
    gradient ``dy * sigmoid(-x)``.

    >>> np.round(tf.log_sigmoid(tf.tensor1d([0])).array_sync(), 4).tolist()
    [-0.6931]
    >>> tf.grad(tf.log_sigmoid)(tf.tensor1d([0])).array_sync()
    [0.5]
    """

    x = convert_to_tensor(x, "x", "logSigmoid")

    def forward(x: Tensor, save: Any) -> dict:
        def grad_func(dy: Tensor, saved: list[Tensor]) -> Tensor:
            return mul(dy, sigmoid(neg(x)))

        return {"value": neg(softplus(neg(x))), "grad_func": grad_func}

    return custom_grad(forward)(x)


@op
def step(x: Any, alpha: float = 0.0) -> Tensor:
    """Element-wise ``x > 0 ? 1 : alpha``; NaN stays NaN.

    >>> tf.step(tf.tensor1d([-1, 0, 2]), 0.5).array_sync()
    [0.5, 0.5, 1.0]
    """
    x = convert_to_tensor(x, "x", "step")
    alpha = _number(alpha, "alpha", "step")
    return run_kernel(k.STEP, (x,), {"alpha": alpha})
