"""Random (TF.js doc subheading 'Tensors / Random').

As in TF.js, values are drawn on the host and written into a ``TensorBuffer`` that becomes
the tensor (``Multinomial`` alone is a kernel). With a seed, the values are TF.js's bit for
bit (see ``random_engines.py``); without one, NumPy draws from the same distributions.
``truncated_normal`` is in ``creation.py``, where TF.js files it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .. import kernel_names as k
from .. import random_engines
from ..dtypes import BOOL, COMPLEX64, FLOAT32, INT32, STRING
from ..engine import ENGINE
from ..engine.memory_guard import check_host_allocation
from ..errors import ArgumentTypeError, DTypeError, InvalidArgumentError, ShapeError
from ..tensor import Tensor
from ..tensor_util import fill_buffer, fill_buffer_by, js_to_number, own_buffer_tensor
from ._op import (
    bool_arg,
    checked_shape,
    convert_to_tensor,
    describe,
    drawn_per_call,
    dtype_arg,
    float_arg,
    int_arg,
    op,
    run_kernel,
    seed_arg,
)
from .creation import buffer
from .transformations import reshape

__all__ = [
    "multinomial",
    "rand",
    "random_gamma",
    "random_normal",
    "random_standard_normal",
    "random_uniform",
    "random_uniform_int",
]


@drawn_per_call
@op
def random_normal(
    shape: Any, mean: float = 0, std_dev: float = 1, dtype: str | None = None, seed: Any = None
) -> Tensor:
    """Normal samples (Marsaglia's polar method); int32 values are rounded.

    >>> tf.random_normal([2, 2], 0, 1, 'float32', 42).shape
    [2, 2]
    """
    shape = checked_shape(shape, "randomNormal")
    _check_float_or_int(dtype, "randomNormal")
    mean = float_arg(mean, "randomNormal", "mean")
    std_dev = float_arg(std_dev, "randomNormal", "stdDev")
    seed = seed_arg(seed, "randomNormal")
    check_host_allocation(ENGINE, shape, dtype or FLOAT32, "random_normal")
    res = buffer(shape, dtype)
    take = random_engines.normal_sampler(mean, std_dev, dtype, False, seed)
    return own_buffer_tensor(fill_buffer_by(res, take))


@op
def random_standard_normal(shape: Any, dtype: str | None = None, seed: Any = None) -> Tensor:
    """Normal samples with mean 0 and standard deviation 1.

    >>> tf.random_standard_normal([3], 'float32', 1).dtype
    'float32'
    """
    _check_float_or_int(dtype, "randomStandardNormal")
    return random_normal(shape, 0, 1, dtype, seed)


@drawn_per_call
@op
def random_uniform(
    shape: Any, minval: float = 0, maxval: float = 1, dtype: str = "float32", seed: Any = None
) -> Tensor:
    """Uniform samples drawn in ``[minval, maxval)`` as float64; int32 values are truncated
    toward zero, as a JS ``Int32Array`` stores them. As in TF.js, storing a float32 rounds a
    draw within half an ulp of ``maxval`` up to ``maxval``. ``seed`` may be a number or a
    string.

    >>> x = tf.random_uniform([100], -1, 1, 'float32', 'my seed')
    >>> bool(((x >= -1) & (x < 1)).all())
    True
    """
    shape = checked_shape(shape, "randomUniform")
    minval = float_arg(minval, "randomUniform", "minval")
    maxval = float_arg(maxval, "randomUniform", "maxval")
    seed = seed_arg(seed, "randomUniform")
    dtype_arg(dtype, "randomUniform", allow_none=True)
    if dtype == STRING:
        raise DTypeError("Unsupported data type string")
    check_host_allocation(ENGINE, shape, dtype or FLOAT32, "random_uniform")
    res = buffer(shape, dtype or FLOAT32)
    take = random_engines.uniform_sampler(minval, maxval, seed)
    return own_buffer_tensor(fill_buffer_by(res, take))


@op
def random_uniform_int(shape: Any, minval: float, maxval: float, seed: Any = None) -> Tensor:
    """int32 samples ``trunc(minval + (maxval - minval) * u)``.

    >>> tf.random_uniform_int([3], 0, 10, 5).dtype
    'int32'
    """
    return random_uniform(shape, minval, maxval, INT32, seed)


@drawn_per_call
@op
def random_gamma(
    shape: Any, alpha: float, beta: float = 1, dtype: str = "float32", seed: Any = None
) -> Tensor:
    """Gamma samples (Marsaglia and Tsang); as in TF.js, the mean is ``alpha * beta``.

    >>> tf.random_gamma([2], 1, 1, 'float32', 3).shape
    [2]
    """
    shape = checked_shape(shape, "randomGamma")
    if beta is None:
        beta = 1
    if dtype is None:
        dtype = FLOAT32
    dtype_arg(dtype, "randomGamma")
    if dtype != FLOAT32 and dtype != INT32:
        raise DTypeError(f"Unsupported data type {dtype}")
    alpha = float_arg(alpha, "randomGamma", "alpha")
    beta = float_arg(beta, "randomGamma", "beta", finite=True)
    seed = seed_arg(seed, "randomGamma")
    # alpha 0 draws zeros, as in TF.js (u ** (1 / 0)); a negative, -0, infinite or NaN alpha
    # makes NaNs or meaningless values there, so it is refused here.
    if not (0 < alpha < math.inf or (alpha == 0 and math.copysign(1, alpha) > 0)):
        raise InvalidArgumentError(f"random_gamma() needs alpha >= 0, but got {alpha}")
    check_host_allocation(ENGINE, shape, dtype, "random_gamma")
    res = buffer(shape, dtype)
    take = random_engines.gamma_sampler(alpha, beta, dtype, seed)
    return own_buffer_tensor(fill_buffer_by(res, take))


@op
def multinomial(
    logits: Any, num_samples: int, seed: Any = None, normalized: bool = False
) -> Tensor:
    """Samples event indices (int32) from rank-1 or rank-2 ``logits`` (or probabilities with
    ``normalized=True``), ``num_samples`` per row. As in TF.js, a seed of 0 means no seed.

    >>> tf.multinomial(tf.tensor([0.5, 0.5]), 4, 9, True).shape
    [4]
    """
    x = convert_to_tensor(logits, "logits", "multinomial")
    num_outcomes = x.size
    orig_rank = x.rank
    if num_outcomes < 2:
        raise InvalidArgumentError(
            f"Error in multinomial: you need at least 2 outcomes, but got {num_outcomes}."
        )
    if orig_rank > 2:
        raise ShapeError(f"Rank of probabilities must be 1 or 2, but is {orig_rank}")
    if x.dtype == COMPLEX64:
        raise DTypeError("'multinomial' does not support complex64 tensors")
    n = float_arg(num_samples, "multinomial", "numSamples")
    if not n.is_integer() or n < 0:
        raise InvalidArgumentError(
            f"multinomial() needs a non-negative integer num_samples, but got {num_samples}"
        )
    num_samples = int_arg(n, "multinomial", "numSamples")
    if num_samples * max(num_outcomes, 1) > 2**31 - 1:
        raise InvalidArgumentError(
            f"multinomial() would draw {num_samples} samples of {num_outcomes} outcomes, but at "
            "most 2147483647 values are supported"
        )
    seed = seed_arg(seed, "multinomial")
    normalized = bool_arg(normalized, "multinomial", "normalized")
    if not seed:  # TF.js: seed || Math.random()
        seed = None
    logits2d = reshape(x, [1, -1]) if orig_rank == 1 else x
    attrs = {"num_samples": int(num_samples), "seed": seed, "normalized": bool(normalized)}
    res = run_kernel(k.MULTINOMIAL, (logits2d,), attrs)
    return reshape(res, [res.size]) if orig_rank == 1 else res


@drawn_per_call
@op
def rand(shape: Any, rand_function: Callable[[], Any], dtype: str | None = None) -> Tensor:
    """A tensor whose values come from calling ``rand_function()`` once per element.

    >>> tf.rand([2], lambda: 3).array_sync()
    [3.0, 3.0]
    """
    shape = checked_shape(shape, "rand")
    if dtype is not None and (type(dtype) is not str or dtype not in (FLOAT32, INT32, BOOL)):
        shown = dtype if isinstance(dtype, str) else describe(dtype)
        raise DTypeError(f"Unknown data type {shown} (in 'rand': expected float32, int32 or bool)")
    check_host_allocation(ENGINE, shape, dtype or FLOAT32, "rand")
    res = buffer(shape, dtype or FLOAT32)
    if res.size and not callable(rand_function):  # TF.js calls it once per element only
        raise ArgumentTypeError(
            f"Argument 'rand_function' passed to 'rand' must be a function, but got "
            f"{type(rand_function).__name__}"
        )
    values = [_number(rand_function()) for _ in range(res.size)]
    return fill_buffer(res, values).to_tensor()


def _number(v: Any) -> float:
    return js_to_number(v)


def _check_float_or_int(dtype: str | None, op_name: str) -> None:
    dtype_arg(dtype, op_name, allow_none=True)
    if dtype == BOOL or dtype == STRING:
        raise DTypeError(f"Unsupported data type {dtype}")
