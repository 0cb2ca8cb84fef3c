"""Gradients of the arithmetic kernels (TF.js's Add_grad.ts, Sub_grad.ts, Pow_grad.ts, ...).

Each gradient runs the ops TF.js's runs, in the same order. Where TF.js forgets to sum a
broadcast gradient back to its input's shape (Maximum, Minimum, SquaredDifference: TF.js
4.22.0 then fails with "The gradient of input 'b' has shape ..."), the gradient is reduced
here as Add's is, so those ops differentiate under broadcasting; with equal shapes the ops
run are TF.js's.
"""

from __future__ import annotations

from .. import kernel_names as k
from .. import ops
from ..engine import ENGINE
from ..engine.tape import KernelThunk
from ..geometry.broadcast import assert_and_get_broadcast_shape, get_reduction_axes
from ..kernel_registry import GradConfig, register_gradient
from ..ops.creation import clone


def sum_to_shape(res, shape, out_shape, always_reshape=False):
    """Sums ``res`` (of the broadcast shape ``out_shape``) back to ``shape``, as TF.js's binary
    gradients do: ``reshape(sum(res, axes), shape)`` when some axis was broadcast; otherwise
    ``res`` itself, or ``reshape(res, shape)`` (a new tensor sharing its buffer) with
    ``always_reshape`` (Add, Sub, Pow, Atan2 reshape unconditionally). ``res`` must not be the
    caller's ``dy`` unless ``always_reshape`` is set: the tape disposes partial gradients."""
    shape = tuple(shape)
    if always_reshape and res._shape == shape:  # nothing broadcast: no axes to sum
        return _reshape_same(res, shape)
    axes = get_reduction_axes(shape, tuple(out_shape))
    if axes:
        return ops.reshape(ops.sum(res, axes), list(shape))
    return ops.reshape(res, list(shape)) if always_reshape else res


def _reshape_same(res, shape):
    """``ops.reshape(res, list(shape))`` where ``shape`` is ``res``'s own: what the op runs
    once its checks passed (they cannot fail here), the Reshape kernel, so tapes and
    profiles see it as TF.js's does."""
    if not res._disposed and res.data_id.backend is ENGINE._backend:
        return ENGINE.run_kernel(k.RESHAPE, (res,), {"shape": shape})
    return ops.reshape(res, list(shape))  # its checks' own error


def _add_grad(dy, saved, attrs):
    a, b = saved
    if a._shape == b._shape == dy._shape:
        # Nothing broadcast: TF.js's reshape(dy, shape), whose checks cannot fail here, runs
        # the Reshape kernel (one thunk object each, no Python frame on the compiled tape).
        return (
            KernelThunk(k.RESHAPE, (dy,), {"shape": a._shape}),
            KernelThunk(k.RESHAPE, (dy,), {"shape": b._shape}),
        )
    return _add_grad_broadcast(dy, a, b)  # apart: the closures' cells cost the plain case


def _add_grad_broadcast(dy, a, b):
    out = assert_and_get_broadcast_shape(a._shape, b._shape)
    return (
        lambda: sum_to_shape(dy, a._shape, out, True),
        lambda: sum_to_shape(dy, b._shape, out, True),
    )


def _sub_grad(dy, saved, attrs):
    a, b = saved
    out = assert_and_get_broadcast_shape(a._shape, b._shape)

    def der_b():
        axes = get_reduction_axes(b._shape, out)
        res = ops.sum(dy, axes) if axes else dy
        return ops.reshape(ops.neg(res), list(b._shape))

    return (lambda: sum_to_shape(dy, a._shape, out, True), der_b)


def _mul_grad(dy, saved, attrs):
    a, b = saved
    out = assert_and_get_broadcast_shape(a._shape, b._shape)
    return (
        lambda: sum_to_shape(ops.mul(dy, ops.cast(b, "float32")), a._shape, out),
        lambda: sum_to_shape(ops.mul(dy, ops.cast(a, "float32")), b._shape, out),
    )


def _div_grad(dy, saved, attrs):
    """RealDiv, and FloorDiv (TF.js gives floorDiv the gradient of real division)."""
    a, b = saved
    out = assert_and_get_broadcast_shape(a._shape, b._shape)

    def der_b():
        res = sum_to_shape(ops.mul(dy, ops.cast(a, "float32")), b._shape, out)
        return ops.neg(ops.div(res, ops.cast(ops.square(b), "float32")))

    return (lambda: sum_to_shape(ops.div(dy, ops.cast(b, "float32")), a._shape, out), der_b)


def _mod_grad(dy, saved, attrs):
    a, b = saved
    out = assert_and_get_broadcast_shape(a._shape, b._shape)
    return (
        # TF.js returns dy itself when nothing was broadcast; a reshape shares its buffer.
        lambda: sum_to_shape(dy, a._shape, out, True),
        lambda: sum_to_shape(ops.mul(dy, ops.neg(ops.floor(ops.div(a, b)))), b._shape, out),
    )


def _maximum_grad(dy, saved, attrs):
    a, b = saved
    out = assert_and_get_broadcast_shape(a._shape, b._shape)
    return (
        lambda: sum_to_shape(
            ops.mul(dy, ops.cast(ops.greater_equal(a, b), "float32")), a._shape, out
        ),
        lambda: sum_to_shape(ops.mul(dy, ops.cast(ops.less(a, b), "float32")), b._shape, out),
    )


def _minimum_grad(dy, saved, attrs):
    a, b = saved
    out = assert_and_get_broadcast_shape(a._shape, b._shape)
    return (
        lambda: sum_to_shape(ops.mul(dy, ops.cast(ops.less_equal(a, b), "float32")), a._shape, out),
        lambda: sum_to_shape(ops.mul(dy, ops.cast(ops.greater(a, b), "float32")), b._shape, out),
    )


def _pow_grad(dy, saved, attrs):
    base, exp, y = saved
    out = assert_and_get_broadcast_shape(base._shape, exp._shape)

    def der_base():
        exp_float = ops.cast(exp, "float32")
        power = ops.pow(base, ops.sub(exp_float, ops.scalar(1)))
        return sum_to_shape(ops.mul(dy, ops.mul(exp_float, power)), base._shape, out, True)

    def der_exp():
        log_base = ops.where(ops.greater(base, 0), ops.log(base), ops.zeros_like(base))
        return sum_to_shape(ops.mul(dy, ops.mul(y, log_base)), exp._shape, out, True)

    return (der_base, der_exp)


def _squared_difference_grad(dy, saved, attrs):
    a, b = saved
    out = assert_and_get_broadcast_shape(a._shape, b._shape)
    two = ops.scalar(2)
    return (
        lambda: sum_to_shape(ops.mul(dy, ops.mul(two, ops.sub(a, b))), a._shape, out),
        lambda: sum_to_shape(ops.mul(dy, ops.mul(two, ops.sub(b, a))), b._shape, out),
    )


def _add_n_grad(dy, saved, attrs):

    return tuple((lambda: clone(dy)) for _ in saved)


for _config in (
    GradConfig(k.ADD, _add_grad, inputs_to_save=(0, 1)),
    GradConfig(k.ADD_N, _add_n_grad, save_all_inputs=True),
    GradConfig(k.SUB, _sub_grad, inputs_to_save=(0, 1)),
    GradConfig(k.MULTIPLY, _mul_grad, inputs_to_save=(0, 1)),
    GradConfig(k.REAL_DIV, _div_grad, inputs_to_save=(0, 1)),
    GradConfig(k.FLOOR_DIV, _div_grad, inputs_to_save=(0, 1)),
    GradConfig(k.MOD, _mod_grad, inputs_to_save=(0, 1)),
    GradConfig(k.MAXIMUM, _maximum_grad, inputs_to_save=(0, 1)),
    GradConfig(k.MINIMUM, _minimum_grad, inputs_to_save=(0, 1)),
    GradConfig(k.POW, _pow_grad, inputs_to_save=(0, 1), outputs_to_save=(True,)),
    GradConfig(k.SQUARED_DIFFERENCE, _squared_difference_grad, inputs_to_save=(0, 1)),
):
    register_gradient(_config)
