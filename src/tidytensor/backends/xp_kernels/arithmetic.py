"""Arithmetic kernels: element-wise binary math with broadcasting, as TF.js's CPU kernels.

TF.js computes every element in double precision and stores it in the output's typed array:
a float32 result is rounded once, an int32 result goes through ``ToInt32`` (NaN and
+-Infinity become 0, everything else is truncated and wrapped modulo 2**32) and a bool result
through ``ToUint8`` (true when that is not 0). The float32 paths call the ufunc directly;
int32 and bool paths reproduce the typed-array stores with :func:`from_double`.

The helpers here (``to_int32``, ``from_double``, ``complex_error``) are shared with the
basic-math kernels.
"""

from __future__ import annotations

from ... import kernel_names as k
from ...errors import DTypeError
from ...naming import snake_case
from ..xp_compat import errstate

_TWO31 = 2147483648.0
_TWO32 = 4294967296.0


def complex_error(name: str) -> DTypeError:
    """TF.js's CPU ``assertNotComplex`` error for the kernel (or op) ``name``."""
    # An op's name (``batchNorm``) in the user's snake_case; a kernel's (``RealDiv``) as is.
    shown = snake_case(name) if name[:1].islower() else name
    return DTypeError(f"{shown} does not support complex64 tensors in the CPU backend.")


def to_int32(v, xp):
    """JavaScript's ``ToInt32`` on float values: NaN/Infinity -> 0, truncate, wrap mod 2**32."""
    if v.size == 0:
        return v.astype(xp.int32)
    if xp.abs(v).max() < _TWO31:  # NaN compares False and takes the general path
        return v.astype(xp.int32)
    v = xp.where(xp.isfinite(v), xp.trunc(v), 0.0)
    return xp.fmod(v, _TWO32).astype(xp.int64).astype(xp.int32)


def from_double(v, dtype, xp):
    """Stores float results in ``dtype`` (a NumPy dtype) as a TF.js typed array would."""
    kind = dtype.kind
    if kind == "f":
        return v.astype(xp.float32)
    if kind == "c":
        return v.astype(xp.complex64)
    as_int = to_int32(v, xp)
    if kind == "b":
        return (as_int & 255) != 0  # Uint8Array store
    return as_int


def add(a, b, *, xp):
    # An operator, not xp.add: 26 ns on NumPy scalars against 460 ns. NumPy's overflow
    # warnings from kernel modules are filtered (backends/__init__.py), so no errstate here.
    return a + b  # bool + bool is logical or: TF.js stores 2 for true + true


def add_n(*tensors, xp):
    first = tensors[0]
    if first.dtype.kind == "c":
        raise complex_error("addN")
    if first.dtype.kind == "b":  # a Uint8Array accumulator: counts true values mod 256
        acc = first.astype(xp.uint8)
        for t in tensors[1:]:
            acc = xp.add(acc, t, dtype=xp.uint8)
        return acc != 0
    if len(tensors) == 1:
        return first.copy()
    with errstate(xp, over="ignore", invalid="ignore"):
        out = xp.add(first, tensors[1])
        for t in tensors[2:]:
            if out.ndim:
                xp.add(out, t, out=out)
            else:
                out = xp.add(out, t)
    return out


def sub(a, b, *, xp):
    if a.dtype.kind == "b":
        return xp.not_equal(a, b)  # 0 - 1 is stored as 255: true
    return a - b


def multiply(a, b, *, xp):
    if a.dtype.kind == "i":
        # The product of two int32 values is rounded to a double before ToInt32.
        return to_int32(xp.multiply(a, b, dtype=xp.float64), xp)
    return a * b  # bool * bool is logical and


def real_div(a, b, *, xp):
    kind = a.dtype.kind
    if kind == "f":
        return a / b  # warnings are filtered for kernel modules; see add()
    if kind == "c" or b.dtype.kind == "c":
        raise complex_error("RealDiv")
    with errstate(xp, divide="ignore", invalid="ignore"):
        return from_double(xp.true_divide(a, b, dtype=xp.float64), a.dtype, xp)


#: The Python operator each of these kernels is on float inputs (their first branch):
#: ``SameShapeKernel`` runs it in C on two float32 scalars (``_handles_c.pyx``).
FLOAT_OPERATORS = {add: "+", sub: "-", multiply: "*", real_div: "/"}


def floor_div(a, b, *, xp):
    """Always int32 in TF.js's CPU backend, even for float32 inputs."""
    kind = a.dtype.kind
    if kind == "c" or b.dtype.kind == "c":
        raise complex_error("FloorDiv")
    if kind == "i" and b.dtype.kind == "i":
        # Exact for int32; x // 0 is 0 and -2**31 // -1 wraps, as ToInt32(Math.floor(a / b)).
        with errstate(xp, divide="ignore", over="ignore"):
            return xp.floor_divide(a, b)
    with errstate(xp, divide="ignore", invalid="ignore", over="ignore"):
        q = xp.floor(xp.true_divide(a, b, dtype=xp.float64))
    return to_int32(q, xp)


def mod(a, b, *, xp):
    """``a % b`` with the divisor's sign, by TF.js's formula: rem = a % b (truncated);
    if a and b differ in sign, (rem + b) % b."""
    kind = a.dtype.kind
    if kind == "c" or b.dtype.kind == "c":
        raise complex_error("Mod")
    if kind == "i":
        with errstate(xp, divide="ignore", over="ignore"):
            return xp.mod(a, b)  # floor modulo; x % 0 is 0 (NaN stored as int32)
    # float32 (and bool: 1 % 1 and 0 % 1 are 0, x % 0 is NaN, all stored as false) in doubles.
    a64 = a.astype(xp.float64)
    b64 = b.astype(xp.float64)
    with errstate(xp, divide="ignore", invalid="ignore"):
        rem = xp.fmod(a64, b64)
        # A NaN operand gives NaN in either branch.
        out = xp.where((a64 < 0) == (b64 < 0), rem, xp.fmod(rem + b64, b64))
    return from_double(out, a.dtype, xp)


def maximum(a, b, *, xp):
    if a.dtype.kind == "c" or b.dtype.kind == "c":
        raise complex_error("Maximum")
    return xp.maximum(a, b)


def minimum(a, b, *, xp):
    if a.dtype.kind == "c" or b.dtype.kind == "c":
        raise complex_error("Minimum")
    return xp.minimum(a, b)


def pow_(a, b, *, xp):
    kind = a.dtype.kind
    if kind == "f":
        with errstate(xp, divide="ignore", invalid="ignore", over="ignore"):
            # In doubles, rounded once to float32, as TF.js's Math.pow into a Float32Array:
            # NumPy's float32 power is off by an ulp for about a fifth of its inputs.
            out = xp.power(a.astype(xp.float64), b.astype(xp.float64)).astype(a.dtype)
        if not xp.isfinite(b).all():
            # JS's Math.pow gives NaN for (+-1) ** (+-Infinity) and 1 ** NaN; C's pow gives 1.
            out = xp.where((xp.abs(a) == 1) & ~xp.isfinite(b), xp.float32("nan"), out)
        if (b == 0.5).any():
            # NumPy takes x ** 0.5 as sqrt(x) on some paths (scalars): NaN for -Infinity and -0
            # for -0, where Math.pow gives +Infinity and +0.
            out = xp.where((b == 0.5) & ((a == 0) | (a == -xp.inf)), xp.abs(a), out)
        return out
    if kind == "c" or b.dtype.kind == "c":
        raise complex_error("Pow")
    with errstate(xp, divide="ignore", invalid="ignore", over="ignore"):
        out = xp.power(a.astype(xp.float64), b.astype(xp.float64))
    return from_double(out, a.dtype, xp)


def squared_difference(a, b, *, xp):
    kind = a.dtype.kind
    if kind == "f":
        with errstate(xp, over="ignore", invalid="ignore"):
            d = xp.subtract(a, b)
            return xp.multiply(d, d, out=d) if d.ndim else xp.multiply(d, d)
    if kind == "c" or b.dtype.kind == "c":
        raise complex_error("SquaredDifference")
    if kind == "b":
        return xp.not_equal(a, b)
    d = xp.subtract(a, b, dtype=xp.float64)
    return from_double(xp.multiply(d, d), a.dtype, xp)


KERNELS = {
    k.ADD: add,
    k.ADD_N: add_n,
    k.SUB: sub,
    k.MULTIPLY: multiply,
    k.REAL_DIV: real_div,
    k.FLOOR_DIV: floor_div,
    k.MOD: mod,
    k.MAXIMUM: maximum,
    k.MINIMUM: minimum,
    k.POW: pow_,
    k.SQUARED_DIFFERENCE: squared_difference,
}
