"""Pooling (in TF.js's doc subheading 'Operations / Convolution'): max and average pooling,
2-D and 3-D, ``pool`` and ``maxPoolWithArgmax``, plus the private backprop ops
(``avgPoolGrad``, ``maxPoolGrad``...) the gradients call.

Argument checks, messages, rank-3 auto-batching and the kernels each op runs follow TF.js
4.22.0's ``tfjs-core/src/ops``.
"""

from __future__ import annotations

from typing import Any

from .. import kernel_names as k
from ..errors import InvalidArgumentError
from ..geometry.conv import compute_pool2d_info, is_number
from ..naming import snake_case
from ..tensor import Tensor
from ._conv_util import (
    RANK_POOL,
    batched,
    batched_like,
    check,
    check_pad_on_dim_rounding_mode,
    check_pad_type,
    check_rank,
    check_sizes,
    check_strides_or_dilations_one,
    conv_attrs,
    unbatched,
)
from ._op import bool_arg, convert_to_tensor, describe, js_str, op, run_kernel
from .sparse import Record
from .transformations import batch_to_space_nd, cast, space_to_batch_nd

__all__ = [
    "avg_pool",
    "avg_pool3d",
    "max_pool",
    "max_pool3d",
    "max_pool_with_argmax",
    "pool",
]


def _pool_attrs(
    filter_size: Any, strides: Any, pad: Any, dim_rounding_mode: Any, **attrs: Any
) -> dict[str, Any]:
    check_sizes(filterSize=filter_size)
    return {"filter_size": filter_size, **conv_attrs(strides, pad, dim_rounding_mode), **attrs}


@op
def avg_pool(
    x: Any, filter_size: Any, strides: Any, pad: Any, dim_rounding_mode: str | None = None
) -> Tensor:
    """Average pooling over windows of ``filter_size`` (taps outside the input are not counted).

    >>> tf.avg_pool(tf.tensor3d([1, 2, 3, 4], [2, 2, 1]), 2, 1, 'valid').array_sync()
    [[[2.5]]]
    """

    x = convert_to_tensor(x, "x", "avgPool", "float32")
    check_strides_or_dilations_one("avgPool", strides, 1)
    x4, reshaped = batched(x, 4)
    check_rank("avgPool", "x", x4.rank, 4, RANK_POOL)
    check_pad_on_dim_rounding_mode("avgPool", pad, dim_rounding_mode)
    attrs = _pool_attrs(filter_size, strides, pad, dim_rounding_mode)
    res = cast(run_kernel(k.AVG_POOL, (x4,), attrs), x.dtype)
    return unbatched(res, reshaped)


@op
def max_pool(
    x: Any, filter_size: Any, strides: Any, pad: Any, dim_rounding_mode: str | None = None
) -> Tensor:
    """Max pooling over windows of ``filter_size`` (NaN is ignored, as in TF.js's CPU kernel).

    >>> tf.max_pool(tf.tensor3d([1, 2, 3, 4], [2, 2, 1]), 2, 1, 'valid').array_sync()
    [[[4.0]]]
    """
    x = convert_to_tensor(x, "x", "maxPool")
    x4, reshaped = batched(x, 4)
    check_rank("maxPool", "input", x4.rank, 4, RANK_POOL)
    check_strides_or_dilations_one("maxPool", strides, 1)
    check_pad_on_dim_rounding_mode("maxPool", pad, dim_rounding_mode)
    attrs = _pool_attrs(filter_size, strides, pad, dim_rounding_mode)
    return unbatched(run_kernel(k.MAX_POOL, (x4,), attrs), reshaped)


def _check_3d_format(name: str, data_format: str) -> None:
    check(
        data_format == "NDHWC",
        f"Error in {name}: Only NDHWC is currently supported, but got data_format of {data_format}",
        InvalidArgumentError,
    )


def _need(value: Any, name: str, op_name: str) -> None:
    if value is None:
        raise InvalidArgumentError(f"Error in {snake_case(op_name)}: {name} is required")


@op
def avg_pool3d(
    x: Any,
    filter_size: Any,
    strides: Any,
    pad: Any,
    dim_rounding_mode: str | None = None,
    data_format: str = "NDHWC",
) -> Tensor:
    """3-D average pooling of ``x`` [batch, depth, height, width, channels] (or rank 4).

    >>> tf.avg_pool3d(tf.tensor4d([1, 2, 3, 4, 5, 6, 7, 8], [2, 2, 2, 1]), 2, 1, 'valid').array_sync()
    [[[[4.5]]]]
    """

    x = convert_to_tensor(x, "x", "avgPool3d", "float32")
    x5, reshaped = batched(x, 5)
    check_rank("avgPool3d", "x", x5.rank, 5, RANK_POOL)
    _check_3d_format("avgPool3d", data_format)
    ok = (is_number(strides) and strides > 0) or (
        isinstance(strides, (list, tuple))
        and len(strides) >= 3
        and all(is_number(s) and s > 0 for s in strides[:3])
    )
    check(
        ok,
        f"Error in avg_pool3d: Stride must be > 0, but got '{js_str(strides)}'",
        InvalidArgumentError,
    )
    check_pad_on_dim_rounding_mode("avgPool3d", pad, dim_rounding_mode)
    attrs = _pool_attrs(filter_size, strides, pad, dim_rounding_mode, data_format=data_format)
    res = cast(run_kernel(k.AVG_POOL3D, (x5,), attrs), x5.dtype)
    return unbatched(res, reshaped)


@op
def max_pool3d(
    x: Any,
    filter_size: Any = (1, 1, 1),
    strides: Any = None,
    pad: Any = None,
    dim_rounding_mode: str | None = None,
    data_format: str = "NDHWC",
) -> Tensor:
    """3-D max pooling of ``x`` [batch, depth, height, width, channels] (or rank 4). The result
    is float32 (TF.js's CPU kernel marks it so for every input dtype).

    >>> tf.max_pool3d(tf.tensor4d([1, 2, 3, 4, 5, 6, 7, 8], [2, 2, 2, 1]), 2, 1, 'valid').array_sync()
    [[[[8.0]]]]
    """
    x = convert_to_tensor(x, "x", "maxPool3d")
    _need(strides, "strides", "maxPool3d")
    _need(pad, "pad", "maxPool3d")
    x5, reshaped = batched(x, 5)
    check_rank("maxPool3d", "x", x5.rank, 5, RANK_POOL)
    _check_3d_format("maxPool3d", data_format)
    check_pad_on_dim_rounding_mode("maxPool3d", pad, dim_rounding_mode)
    attrs = _pool_attrs(filter_size, strides, pad, dim_rounding_mode, data_format=data_format)
    return unbatched(run_kernel(k.MAX_POOL3D, (x5,), attrs), reshaped)


class MaxPoolWithArgmaxResult(Record):
    """``max_pool_with_argmax``'s result: ``result`` (the pooled values) and ``indexes``
    (int32, each max's flat index into the input), read as attributes or as dict keys (a dict,
    so that scopes and ``tf.dispose`` find the tensors)."""

    __slots__ = ()


@op
def max_pool_with_argmax(
    x: Any, filter_size: Any, strides: Any, pad: Any, include_batch_in_index: bool = False
) -> MaxPoolWithArgmaxResult:
    """Max pooling of a rank-4 ``x`` that also returns where each max came from: the index
    ``(y * width + x) * channels + c`` (plus ``b * height * width * channels`` when
    ``include_batch_in_index``).

    >>> r = tf.max_pool_with_argmax(tf.tensor4d([1, 5, 3, 2], [1, 2, 2, 1]), 2, 1, 'valid')
    >>> r.result.array_sync(), r.indexes.array_sync()
    ([[[[5.0]]]], [[[[1]]]])
    """
    x = convert_to_tensor(x, "x", "maxPoolWithArgmax")
    check_rank("maxPoolWithArgmax", "input", x.rank, 4, RANK_POOL)
    check_pad_type("maxPoolWithArgmax", pad)
    check_sizes(filterSize=filter_size, strides=strides, pad=pad if is_number(pad) else None)
    attrs = {
        "filter_size": filter_size,
        "strides": strides,
        "pad": pad,
        "include_batch_in_index": bool_arg(
            include_batch_in_index, "maxPoolWithArgmax", "includeBatchInIndex"
        ),
    }
    result, indexes = run_kernel(k.MAX_POOL_WITH_ARGMAX, (x,), attrs)
    return MaxPoolWithArgmaxResult(result=result, indexes=indexes)


def _space_to_batch_base_paddings(filter_shape: list[int], dilation: list[int]) -> list[list[int]]:
    out = []
    for s, d in zip(filter_shape, dilation, strict=True):
        extra = s + (s - 1) * (d - 1) - 1
        out.append([extra // 2, extra - extra // 2])
    return out


def _required_space_to_batch_paddings(
    input_shape: list[int], block_shape: list[int], base_padding: list[list[int]]
) -> tuple[list[list[int]], list[list[int]]]:
    pad_start = [b[0] for b in base_padding]
    orig_end = [b[1] for b in base_padding]
    full = input_shape + pad_start + orig_end  # TF.js concatenates (a quirk kept here)
    extra = [(b - full[i] % b) % b for i, b in enumerate(block_shape)]
    paddings = [[pad_start[i], orig_end[i] + extra[i]] for i in range(len(block_shape))]
    crops = [[0, extra[i]] for i in range(len(block_shape))]
    return paddings, crops


@op
def pool(
    input: Any,  # noqa: A002 - TF.js's name
    window_shape: Any,
    pooling_type: str,
    pad: Any,
    dilations: Any = None,
    strides: Any = None,
    dim_rounding_mode: str | None = None,
) -> Tensor:
    """Max or average pooling (``pooling_type`` 'max' or 'avg') with optional dilation, done as
    space_to_batch_nd → pool → batch_to_space_nd when a dilation is above 1.

    >>> tf.pool(tf.tensor3d([1, 2, 3, 4], [2, 2, 1]), 2, 'avg', 'valid').array_sync()
    [[[2.5]]]
    """

    dilations = [1, 1] if dilations is None else dilations
    strides = 1 if strides is None else strides
    if is_number(pad) and pad == 0:
        pad = "valid"
    x = convert_to_tensor(input, "x", "maxPool")
    x4, reshaped = batched(x, 4)
    check_rank("pool", "input", x4.rank, 4, RANK_POOL)
    if not isinstance(pooling_type, str):
        raise InvalidArgumentError(
            f"Error in pool: pooling_type must be 'avg' or 'max', but got {describe(pooling_type)}"
        )
    check_pad_type("pool", pad)
    check_sizes(
        windowShape=window_shape,
        strides=strides,
        dilations=dilations,
        pad=pad if is_number(pad) else None,
    )
    check_strides_or_dilations_one("pool", strides, dilations)
    info = compute_pool2d_info(x4._shape, window_shape, strides, dilations, pad)
    dilation = list(info.dilations)
    if pad == "same":
        base = _space_to_batch_base_paddings(list(info.filter_sizes), dilation)
    else:
        base = [[0, 0], [0, 0]]
    one = dilation == [1, 1]
    paddings, crops = _required_space_to_batch_paddings(list(info.in_sizes), dilation, base)
    converted_pad = pad if one else "valid"
    converted = x4 if one else space_to_batch_nd(x4, dilation, paddings)
    if pooling_type == "avg":
        y = avg_pool(converted, window_shape, strides, converted_pad, dim_rounding_mode)
    else:
        y = max_pool(converted, window_shape, strides, converted_pad, dim_rounding_mode)
    res = y if one else batch_to_space_nd(y, dilation, crops)
    return unbatched(res, reshaped)


# ---------------------------------------------------------------------------- pooling grads
def _check_grad_ranks(op_desc: str, rank: int, **tensors: Tensor) -> None:
    for what, t in tensors.items():
        check_rank(op_desc, what, t.rank, rank, RANK_POOL)


def _check_same_rank(input: Tensor, dy: Tensor) -> None:  # noqa: A002
    check(
        input.rank == dy.rank, f"Rank of input ({input.rank}) does not match rank of dy ({dy.rank})"
    )


@op(name="avg_pool_grad")
def _avg_pool_grad(dy: Tensor, input: Tensor, filter_size: Any, strides: Any, pad: Any) -> Tensor:  # noqa: A002
    dy = convert_to_tensor(dy, "dy", "avgPoolGrad")
    input = convert_to_tensor(input, "input", "avgPoolGrad")
    _check_same_rank(input, dy)
    (dy4, input4), reshaped = batched_like(input, 4, dy, input)
    _check_grad_ranks("avgPoolGrad", 4, dy=dy4, input=input4)
    attrs = {"filter_size": filter_size, "strides": strides, "pad": pad}
    return unbatched(run_kernel(k.AVG_POOL_GRAD, (dy4, input4), attrs), reshaped)


@op(name="avg_pool3d_grad")
def _avg_pool3d_grad(
    dy: Tensor,
    input: Tensor,  # noqa: A002
    filter_size: Any,
    strides: Any,
    pad: Any,
    dim_rounding_mode: Any = None,
) -> Tensor:
    dy = convert_to_tensor(dy, "dy", "avgPool3dGrad")
    input = convert_to_tensor(input, "input", "avgPool3dGrad")
    (dy5, input5), reshaped = batched_like(input, 5, dy, input)
    _check_grad_ranks("avgPool3dGrad", 5, dy=dy5, input=input5)
    check_pad_on_dim_rounding_mode("avgPool3dGrad", pad, dim_rounding_mode)
    attrs = _pool_attrs(filter_size, strides, pad, dim_rounding_mode)
    return unbatched(run_kernel(k.AVG_POOL3D_GRAD, (dy5, input5), attrs), reshaped)


@op(name="max_pool_grad")
def _max_pool_grad(
    dy: Tensor,
    input: Tensor,  # noqa: A002
    output: Tensor,
    filter_size: Any,
    strides: Any,
    pad: Any,
    dim_rounding_mode: Any = None,
) -> Tensor:
    dy = convert_to_tensor(dy, "dy", "maxPoolGrad")
    input = convert_to_tensor(input, "input", "maxPoolGrad")
    output = convert_to_tensor(output, "output", "maxPoolGrad")
    _check_same_rank(input, dy)
    _check_grad_ranks("maxPoolGrad", 4, dy=dy, input=input)
    check_pad_on_dim_rounding_mode("maxPoolGrad", pad, dim_rounding_mode)
    attrs = _pool_attrs(filter_size, strides, pad, dim_rounding_mode)
    return run_kernel(k.MAX_POOL_GRAD, (dy, input, output), attrs)


@op(name="max_pool3d_grad")
def _max_pool3d_grad(
    dy: Tensor,
    input: Tensor,  # noqa: A002
    output: Tensor,
    filter_size: Any,
    strides: Any,
    pad: Any,
    dim_rounding_mode: Any = None,
) -> Tensor:
    dy = convert_to_tensor(dy, "dy", "maxPool3dGrad")
    input = convert_to_tensor(input, "input", "maxPool3dGrad")
    output = convert_to_tensor(output, "output", "maxPool3dGrad")
    (dy5, input5, output5), reshaped = batched_like(input, 5, dy, input, output)
    _check_grad_ranks("maxPool3dGrad", 5, dy=dy5, input=input5, output=output5)
    check_pad_on_dim_rounding_mode("maxPool3dGrad", pad, dim_rounding_mode)
    attrs = _pool_attrs(filter_size, strides, pad, dim_rounding_mode)
    return unbatched(run_kernel(k.MAX_POOL3D_GRAD, (dy5, input5, output5), attrs), reshaped)
