"""Basic-math kernels: element-wise unary math (and Atan2, Prelu), as TF.js's CPU kernels.

Most TF.js CPU kernels keep the input's dtype: the value is computed in double precision
and stored in a typed array of that dtype, so ``acos`` of an int32 tensor is an int32
tensor of truncated values. The float32 path of every kernel calls the ufunc directly;
other dtypes go through :func:`_in_double` (compute in float64, store as TF.js does).
Float32 paths enter no ``errstate``: NumPy's floating-point warnings from kernel modules are
filtered (``backends/__init__.py``), and where a user turned them into errors the engine
reruns the kernel quietly (``Engine._kernel_retry``). The context manager costs more than a
small kernel.
"""

from __future__ import annotations

import math

import numpy as np

from ... import kernel_names as k
from ..xp_compat import errstate
from .arithmetic import complex_error, from_double, to_int32

#: TF.js's constants (``erf_util.ts``, ``selu_util.ts``, the CPU Softplus kernel).
ERF_P = 0.3275911
ERF_A1 = 0.254829592
ERF_A2 = -0.284496736
ERF_A3 = 1.421413741
ERF_A4 = -1.453152027
ERF_A5 = 1.061405429
SELU_SCALEALPHA = 1.7580993408473768599402175208123
SELU_SCALE = 1.0507009873554804934193349852946
_SOFTPLUS_THRESHOLD = math.log(1.1920928955078125e-7) + 2.0


def _float32_below(v: float) -> np.float32:
    """The largest float32 <= ``v``: ``x > v`` equals ``x > _float32_below(v)`` for float32 x."""
    f = np.float32(v)
    return np.nextafter(f, np.float32(-np.inf)) if float(f) > v else f


#: float32 bounds that make float32 comparisons agree with TF.js's double comparisons.
_SOFTPLUS_HI = _float32_below(-_SOFTPLUS_THRESHOLD)  # x > HI: softplus(x) = x
_SOFTPLUS_LO = -_SOFTPLUS_HI  # x < LO: softplus(x) = exp(x)


def _in_double(name, fn, x, xp):
    """Non-float32 input: ``fn`` on float64 values, stored in ``x``'s dtype (complex refused)."""
    if x.dtype.kind == "c":
        raise complex_error(name)
    with errstate(xp, all="ignore"):
        return from_double(fn(x.astype(xp.float64)), x.dtype, xp)


# ---------------------------------------------------------------------------- abs, signs
def abs_(x, *, xp):
    kind = x.dtype.kind
    if kind == "f":
        return xp.abs(x)
    if kind == "c":
        raise complex_error("abs")
    if kind == "b":
        return x.copy()
    # TF.js fills a Float32Array, so large int32 values are rounded to float32 first.
    return to_int32(xp.abs(x.astype(xp.float32)), xp)


def complex_abs(x, *, xp):
    return xp.abs(x).astype(xp.float32, copy=False)


def neg(x, *, xp):
    kind = x.dtype.kind
    if kind == "c":
        raise complex_error("neg")
    if kind == "b":
        return x.copy()  # x * (-1 stored as bool true)
    return xp.negative(x)


def sign(x, *, xp):
    kind = x.dtype.kind
    if kind == "f":
        # NaN gives 0 in TF.js (neither < 0 nor > 0).
        return xp.subtract(x > 0, x < 0, dtype=xp.float32)
    if kind == "i":
        return xp.sign(x)
    if kind == "b":
        return x.copy()
    raise complex_error("Sign")


def square(x, *, xp):
    kind = x.dtype.kind
    if kind == "f":
        return xp.square(x)
    if kind == "c":
        raise complex_error("square")
    if kind == "b":
        return x.copy()
    # A Float32Array holds the products: int32 squares are rounded to float32 first.
    return to_int32(xp.square(x.astype(xp.float64)).astype(xp.float32), xp)


def reciprocal(x, *, xp):
    if x.dtype.kind == "f":
        return xp.reciprocal(x)  # 1 / denormal overflows to Infinity
    return _in_double("Reciprocal", xp.reciprocal, x, xp)


# ---------------------------------------------------------------------------- rounding
def ceil(x, *, xp):
    if x.dtype.kind == "f":
        return xp.ceil(x)
    return _in_double("Ceil", xp.ceil, x, xp)


def floor(x, *, xp):
    if x.dtype.kind == "f":
        return xp.floor(x)
    return _in_double("Floor", xp.floor, x, xp)


def round_(x, *, xp):
    """Half to even, as TF.js's Round kernel."""
    if x.dtype.kind == "f":
        return xp.rint(x)
    return _in_double("Round", xp.rint, x, xp)


def clip_by_value(x, *, xp, clip_value_min, clip_value_max):
    if x.dtype.kind == "f":
        # Bounds beyond float32 become +-Infinity.
        return xp.clip(x, xp.float32(clip_value_min), xp.float32(clip_value_max))
    return _in_double("ClipByValue", lambda v: xp.clip(v, clip_value_min, clip_value_max), x, xp)


# ---------------------------------------------------------------------------- exp and log
def exp(x, *, xp):
    """Always float32, whatever the input dtype."""
    if x.dtype.kind == "f":
        return xp.exp(x)
    if x.dtype.kind == "c":
        raise complex_error("Exp")
    with errstate(xp, over="ignore"):
        return xp.exp(x.astype(xp.float64)).astype(xp.float32)


def expm1(x, *, xp):
    """In double, then rounded to float32, as TF.js's ``Math.expm1`` into a Float32Array:
    NumPy's float32 ``expm1`` is not correctly rounded and its last bit differs between
    NumPy versions and SIMD paths (``expm1(1)`` came out an ulp low on one)."""
    if x.dtype.kind == "f":
        with errstate(xp, over="ignore"):
            return xp.expm1(x.astype(xp.float64)).astype(xp.float32)
    return _in_double("Expm1", xp.expm1, x, xp)


def log(x, *, xp):
    if x.dtype.kind == "f":
        return xp.log(x)
    return _in_double("Log", xp.log, x, xp)


def log1p(x, *, xp):
    if x.dtype.kind == "f":
        return xp.log1p(x)
    return _in_double("Log1p", xp.log1p, x, xp)


def sqrt(x, *, xp):
    if x.dtype.kind == "f":
        return xp.sqrt(x)
    return _in_double("Sqrt", xp.sqrt, x, xp)


def rsqrt(x, *, xp):
    if x.dtype.kind == "f":
        s = xp.sqrt(x)
        return xp.divide(1, s, out=s) if s.ndim else xp.divide(1, s)
    return _in_double("Rsqrt", lambda v: 1.0 / xp.sqrt(v), x, xp)


def erf(x, *, xp):
    """Abramowitz-Stegun 7.1.26, TF.js's CPU formula, evaluated in double precision."""

    def formula(v):
        a = xp.abs(v)
        t = 1.0 / (1.0 + ERF_P * a)
        poly = ((((ERF_A5 * t + ERF_A4) * t + ERF_A3) * t + ERF_A2) * t + ERF_A1) * t
        return xp.sign(v) * (1.0 - poly * xp.exp(-a * a))

    if x.dtype.kind == "c":
        raise complex_error("Erf")
    with errstate(xp, all="ignore"):
        return from_double(formula(x.astype(xp.float64)), x.dtype, xp)


# ---------------------------------------------------------------------------- trigonometry
def _trig(name, ufunc):
    def kernel(x, *, xp):
        if x.dtype.kind == "f":
            return getattr(xp, ufunc)(x)
        return _in_double(name, getattr(xp, ufunc), x, xp)

    kernel.__name__ = ufunc
    return kernel


sin = _trig("Sin", "sin")
cos = _trig("Cos", "cos")
tan = _trig("Tan", "tan")
asin = _trig("Asin", "arcsin")
acos = _trig("Acos", "arccos")
atan = _trig("Atan", "arctan")
sinh = _trig("Sinh", "sinh")
cosh = _trig("Cosh", "cosh")
tanh = _trig("Tanh", "tanh")
asinh = _trig("Asinh", "arcsinh")
acosh = _trig("Acosh", "arccosh")
atanh = _trig("Atanh", "arctanh")


def atan2(a, b, *, xp):
    if a.dtype.kind == "f" and b.dtype.kind == "f":
        return xp.arctan2(a, b)
    if a.dtype.kind == "c" or b.dtype.kind == "c":
        raise complex_error("Atan2")
    return from_double(xp.arctan2(a.astype(xp.float64), b.astype(xp.float64)), a.dtype, xp)


# ---------------------------------------------------------------------------- tests
def is_finite(x, *, xp):
    if x.dtype.kind == "c":
        raise complex_error("IsFinite")
    return xp.isfinite(x)


def is_inf(x, *, xp):
    if x.dtype.kind == "c":
        raise complex_error("IsInf")
    return xp.isinf(x)


def is_nan(x, *, xp):
    if x.dtype.kind == "c":
        raise complex_error("IsNan")
    return xp.isnan(x)


# ---------------------------------------------------------------------------- activations
def _pos_plus_neg(x, alpha, xp):
    """``x < 0 ? alpha * x : x`` without a branch (``xp.where`` is slow on mixed signs):
    max(x, 0) + alpha * min(x, 0), exact because one term is 0 (needs a finite alpha)."""
    out = xp.minimum(x, 0)
    out = out * alpha
    out += xp.maximum(x, 0)
    return out


def relu(x, *, xp):
    kind = x.dtype.kind
    if kind == "f" or kind == "i":
        return xp.maximum(x, 0)
    if kind == "b":
        return x.copy()
    raise complex_error("Relu")


def relu6(x, *, xp):
    kind = x.dtype.kind
    if kind == "f" or kind == "i":
        out = xp.maximum(x, 0)
        return xp.minimum(out, 6, out=out) if out.ndim else xp.minimum(out, 6)
    if kind == "b":
        return x.copy()
    raise complex_error("Relu6")


def leaky_relu(x, *, xp, alpha):
    """Always float32: ``x < 0 ? alpha * x : x``."""
    if x.dtype.kind == "f":
        if 0.0 < alpha <= 1.0:
            # For 0 < alpha <= 1, max(x, alpha * x) picks alpha * x exactly when x < 0.
            return xp.maximum(x, x * alpha)
        if math.isfinite(alpha):
            return _pos_plus_neg(x, alpha, xp)
        return xp.where(x < 0, x * alpha, x)
    if x.dtype.kind == "c":
        raise complex_error("leakyRelu")
    v = x.astype(xp.float64)
    return xp.where(v < 0, v * alpha, v).astype(xp.float32)


def prelu(x, alpha, *, xp):
    """Always float32: ``x < 0 ? alpha * x : x``, broadcasting ``alpha``."""
    if x.dtype.kind == "c" or alpha.dtype.kind == "c":
        raise complex_error("prelu")
    if x.dtype.kind == "f" and alpha.dtype.kind == "f":
        if xp.isfinite(alpha).all():
            return _pos_plus_neg(x, alpha, xp)
        return xp.where(x < 0, x * alpha, x)
    v, a = x.astype(xp.float64), alpha.astype(xp.float64)
    with errstate(xp, over="ignore", invalid="ignore"):
        return xp.where(v < 0, v * a, v).astype(xp.float32)


def elu(x, *, xp):
    if x.dtype.kind == "f":
        # max(x, 0) + expm1(min(x, 0)): one term is always exactly 0.
        out = xp.expm1(xp.minimum(x, 0))
        out += xp.maximum(x, 0)
        return out
    return _in_double("Elu", lambda v: xp.where(v >= 0, v, xp.exp(v) - 1.0), x, xp)


def elu_grad(dy, y, *, xp):
    """``y >= 0 ? dy : dy * (y + 1)``, float32 (TF.js multiplies in double, then rounds)."""
    if dy.dtype.kind == "c" or y.dtype.kind == "c":
        raise complex_error("eluGrad")
    scaled = dy.astype(xp.float64) * (y.astype(xp.float64) + 1.0)
    return xp.where(y >= 0, dy, scaled).astype(xp.float32)


def selu(x, *, xp):
    if x.dtype.kind == "f":
        out = xp.expm1(xp.minimum(x, 0))
        out *= SELU_SCALEALPHA
        pos = xp.maximum(x, 0)
        pos *= SELU_SCALE
        out += pos
        return out

    def formula(v):
        return xp.where(v >= 0, SELU_SCALE * v, SELU_SCALEALPHA * (xp.exp(v) - 1.0))

    return _in_double("Selu", formula, x, xp)


def sigmoid(x, *, xp):
    if x.dtype.kind == "f":
        e = xp.exp(xp.negative(x))
        e += 1
        return xp.reciprocal(e, out=e) if e.ndim else xp.reciprocal(e)
    return _in_double("Sigmoid", lambda v: 1.0 / (1.0 + xp.exp(-v)), x, xp)


def softplus(x, *, xp):
    """TF.js's thresholds: exp(x) below log(eps) + 2, x above its negation, else log1p(exp(x))."""
    if x.dtype.kind == "f":
        e = xp.exp(xp.minimum(x, _SOFTPLUS_HI))
        out = xp.where(x < _SOFTPLUS_LO, e, xp.log1p(e))
        return xp.where(x > _SOFTPLUS_HI, x, out)

    def formula(v):
        e = xp.exp(v)
        return xp.where(
            v < _SOFTPLUS_THRESHOLD, e, xp.where(v > -_SOFTPLUS_THRESHOLD, v, xp.log(1.0 + e))
        )

    return _in_double("Softplus", formula, x, xp)


def step(x, *, xp, alpha):
    """``x > 0 ? 1 : alpha``; NaN stays NaN."""
    if x.dtype.kind == "f":
        above = x > 0
        out = above.astype(xp.float32)
        if alpha != 0:
            low = xp.float32(alpha)  # beyond float32: +-Infinity
            if xp.isfinite(low):
                out += xp.logical_not(above) * low  # exact: one term is always 0
            else:
                out = xp.where(above, out, low)
        nan = xp.isnan(x)
        return xp.where(nan, x, out) if nan.any() else out
    return _in_double("Step", lambda v: xp.where(v > 0, 1.0, float(alpha)), x, xp)


KERNELS = {
    k.ABS: abs_,
    k.COMPLEX_ABS: complex_abs,
    k.ACOS: acos,
    k.ACOSH: acosh,
    k.ASIN: asin,
    k.ASINH: asinh,
    k.ATAN: atan,
    k.ATAN2: atan2,
    k.ATANH: atanh,
    k.CEIL: ceil,
    k.CLIP_BY_VALUE: clip_by_value,
    k.COS: cos,
    k.COSH: cosh,
    k.ELU: elu,
    k.ELU_GRAD: elu_grad,
    k.ERF: erf,
    k.EXP: exp,
    k.EXPM1: expm1,
    k.FLOOR: floor,
    k.IS_FINITE: is_finite,
    k.IS_INF: is_inf,
    k.IS_NAN: is_nan,
    k.LEAKY_RELU: leaky_relu,
    k.LOG: log,
    k.LOG1P: log1p,
    k.NEG: neg,
    k.PRELU: prelu,
    k.RECIPROCAL: reciprocal,
    k.RELU: relu,
    k.RELU6: relu6,
    k.ROUND: round_,
    k.RSQRT: rsqrt,
    k.SELU: selu,
    k.SIGMOID: sigmoid,
    k.SIGN: sign,
    k.SIN: sin,
    k.SINH: sinh,
    k.SOFTPLUS: softplus,
    k.SQRT: sqrt,
    k.SQUARE: square,
    k.STEP: step,
    k.TAN: tan,
    k.TANH: tanh,
}
