"""Arithmetic kernels: element-wise binary math with broadcasting."""

from __future__ import annotations

from ... import kernel_names as k


def add(a, b, *, xp):
    return xp.add(a, b)


def add_n(*tensors, xp):
    out = tensors[0]
    for t in tensors[1:]:
        out = xp.add(out, t)
    return out if len(tensors) > 1 else xp.array(out, copy=True)


def sub(a, b, *, xp):
    if a.dtype == xp.bool_:
        return xp.logical_xor(a, b)  # bool - bool: TF.js stores a - b as bool (!= 0)
    return xp.subtract(a, b)


def multiply(a, b, *, xp):
    if a.dtype == xp.bool_:
        return xp.logical_and(a, b)
    return xp.multiply(a, b)


def real_div(a, b, *, xp):
    with xp.errstate(divide="ignore", invalid="ignore"):
        out = xp.true_divide(a, b)
    return out.astype(a.dtype, copy=False) if a.dtype.kind == "c" else out.astype(xp.float32, copy=False)


def floor_div(a, b, *, xp):
    if a.dtype.kind in "iub":
        a32, b32 = a.astype(xp.int32, copy=False), b.astype(xp.int32, copy=False)
        with xp.errstate(divide="ignore", invalid="ignore"):
            # TF.js computes floor(a / b) in float: division by zero gives 0 once cast to int32.
            out = xp.floor(xp.true_divide(a32, b32))
        out = xp.where(xp.isfinite(out), out, 0)
        return out.astype(xp.int32)
    with xp.errstate(divide="ignore", invalid="ignore"):
        return xp.floor(xp.true_divide(a, b)).astype(a.dtype, copy=False)


def mod(a, b, *, xp):
    with xp.errstate(divide="ignore", invalid="ignore"):
        if a.dtype.kind in "iu":
            out = xp.where(b == 0, 0, xp.mod(a, xp.where(b == 0, 1, b)))
            return out.astype(a.dtype, copy=False)
        return xp.mod(a, b).astype(a.dtype, copy=False)


def maximum(a, b, *, xp):
    return xp.maximum(a, b)


def minimum(a, b, *, xp):
    return xp.minimum(a, b)


def pow_(a, b, *, xp):
    with xp.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if a.dtype.kind in "iu":
            out = xp.power(a.astype(xp.float64), b.astype(xp.float64))
            return xp.where(xp.isfinite(out), out, 0).astype(xp.int64).astype(xp.int32)
        return xp.power(a, b).astype(a.dtype, copy=False)


def squared_difference(a, b, *, xp):
    d = xp.subtract(a, b)
    return xp.multiply(d, d)


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
