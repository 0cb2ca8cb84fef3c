"""Argument checks and shape helpers shared by the convolution, pooling and fused ops
(TF.js's ``conv_util`` checks, with its messages).

Most take ``op_desc``, the op's name as TF.js's messages spell it (``conv2d``, ``conv2D``,
``fused conv2d``...).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..engine import ENGINE
from ..errors import GradientError, InvalidArgumentError, ShapeError
from ..geometry.conv import (
    either_strides_or_dilations_are_one,
    is_number,
    js_format,
    strides_or_dilations_are_positive,
    tuple_values_are_one,
)
from ..naming import snake_case
from ..tensor import Tensor
from ._op import MAX_DIM, describe, js_str
from .transformations import reshape


def reshape_to(x: Tensor, shape: Any) -> Tensor:
    return reshape(x, list(shape))


def batched(x: Tensor, rank: int) -> tuple[Tensor, bool]:
    """``x`` with a batch dim of 1 prepended when it has ``rank - 1`` dims."""
    if x.rank == rank - 1:
        return reshape_to(x, [1, *x._shape]), True
    return x, False


def batched_like(lead: Tensor, rank: int, *tensors: Tensor) -> tuple[list[Tensor], bool]:
    """``tensors`` each with a batch dim of 1 prepended when ``lead`` has ``rank - 1`` dims."""
    if lead.rank == rank - 1:
        return [reshape_to(t, [1, *t._shape]) for t in tensors], True
    return list(tensors), False


def unbatched(res: Tensor, reshaped: bool) -> Tensor:
    """``res`` without the batch dim ``batched`` added (when it did: ``reshaped``)."""
    return reshape_to(res, res._shape[1:]) if reshaped else res


def check(cond: bool, message: str, error: type = ShapeError) -> None:
    # A NumPy array given where a string belongs compares element by element: that fails too.
    if isinstance(cond, np.ndarray) or not cond:
        raise error(message)


#: How TF.js words "must be rank N" (its punctuation differs by op): the convolutions, their
#: backprops, and pooling.
RANK_CONV, RANK_BACKPROP, RANK_POOL = (
    "{}, but got rank {}.",
    "{}, but got rank {}",
    "{} but got rank {}.",
)


def check_rank(op_desc: str, what: str, got: int, rank: int, form: str = RANK_CONV) -> None:
    check(
        got == rank,
        f"Error in {snake_case(op_desc)}: {what} must be rank " + form.format(rank, got),
    )


def check_ranks(op_desc: str, x: Tensor, filter: Tensor, rank: int) -> None:  # noqa: A002
    check_rank(op_desc, "input", x.rank, rank)
    check_rank(op_desc, "filter", filter.rank, rank)


def channels(shape: Any, data_format: str) -> int:
    """The channel count of a 4-D ``shape`` in ``data_format`` ('NHWC' or 'NCHW')."""
    if not isinstance(data_format, str):
        raise InvalidArgumentError(
            f"Error in {ENGINE._op_name('conv')}: data_format must be 'NHWC' or 'NCHW', but got "
            f"{describe(data_format)}"
        )
    return shape[3] if data_format == "NHWC" else shape[1]


def check_in_depth(op_desc: str, in_depth: int, filter_depth: int) -> None:
    check(
        in_depth == filter_depth,
        f"Error in {snake_case(op_desc)}: depth of input ({in_depth}) must match input depth for filter {filter_depth}.",
    )


def _is_int(v: Any) -> bool:
    return is_number(v) and float(v).is_integer()


def check_pad_type(op_desc: str, pad: Any) -> None:
    """``pad`` is 'valid', 'same' (or another string, for the kernel to refuse), a number, or
    explicit ``[[before, after], ...]`` pairs of numbers."""
    if isinstance(pad, str) or is_number(pad):
        return
    if isinstance(pad, (list, tuple)) and all(
        isinstance(p, (list, tuple)) and all(is_number(v) for v in p) for p in pad
    ):
        return
    raise InvalidArgumentError(
        f"Error in {snake_case(op_desc)}: pad must be 'valid', 'same', a number or a list of "
        f"[before, after] pairs, but got {describe(pad)}"
    )


def check_pad_on_dim_rounding_mode(op_desc: str, pad: Any, dim_rounding_mode: Any) -> None:
    """TF.js's ``checkPadOnDimRoundingMode``: a rounding mode needs integer padding. Also
    refuses a ``pad`` or ``dimRoundingMode`` of a type no kernel takes."""
    check_pad_type(op_desc, pad)
    if dim_rounding_mode is not None and not isinstance(dim_rounding_mode, str):
        raise InvalidArgumentError(
            f"Error in {snake_case(op_desc)}: dim_rounding_mode must be 'floor', 'round' or 'ceil', but got "
            f"{describe(dim_rounding_mode)}"
        )
    if dim_rounding_mode is None:
        return
    msg = f"Error in {snake_case(op_desc)}: pad must be an integer when using dim_rounding_mode {dim_rounding_mode} but got pad "
    if isinstance(pad, str):
        raise InvalidArgumentError(f"{msg}{pad}.")
    if is_number(pad):
        check(_is_int(pad), f"{msg}{js_str(pad)}.", InvalidArgumentError)
    elif isinstance(pad, (list, tuple)):
        for p in pad:
            for v in p:
                check(_is_int(v), f"{msg}{js_str(v)}.", InvalidArgumentError)
    else:
        raise InvalidArgumentError(
            f"Error in {snake_case(op_desc)}: Unknown padding parameter: {js_str(pad)}"
        )


def check_strides_or_dilations_one(
    op_desc: str, strides: Any, dilations: Any, what: str = "strides"
) -> None:
    """TF.js's "Either strides or dilations must be 1" (conv1d says "stride" and "dilation")."""
    other = "dilations" if what == "strides" else "dilation"
    check(
        either_strides_or_dilations_are_one(strides, dilations),
        f"Error in {snake_case(op_desc)}: Either {what} or {other} must be 1. "
        f"Got {what} {js_str(strides)} and {other} '{js_str(dilations)}'",
        InvalidArgumentError,
    )


def check_positive(op_desc: str, strides: Any, dilations: Any, what: str = "strides") -> None:
    """TF.js's checks that the dilations, then the strides, are all above 0."""
    check(
        strides_or_dilations_are_positive(dilations),
        f"Error in {snake_case(op_desc)}: Dilated rates should be larger than 0.",
        InvalidArgumentError,
    )
    check(
        strides_or_dilations_are_positive(strides),
        f"Error in {snake_case(op_desc)}: {'Strides' if what == 'strides' else 'Stride'} should be larger than 0.",
        InvalidArgumentError,
    )


def check_strides_dilations(
    op_desc: str, strides: Any, dilations: Any, what: str = "strides"
) -> None:
    check_strides_or_dilations_one(op_desc, strides, dilations, what)
    check_positive(op_desc, strides, dilations, what)


def conv_attrs(strides: Any, pad: Any, dim_rounding_mode: Any, **attrs: Any) -> dict[str, Any]:
    """The kernel attrs most convolution and pooling kernels take, plus ``attrs``; the
    strides, dilations and window sizes must be numbers (or lists of them) a shape can hold."""
    check_sizes(strides=strides, dilations=attrs.get("dilations"))
    if is_number(pad):
        check_sizes(pad=pad)
    return {"strides": strides, "pad": pad, "dim_rounding_mode": dim_rounding_mode, **attrs}


#: Window geometry that must be positive: a zero would divide by zero in the kernels, a
#: negative one index backwards.
_POSITIVE = ("strides", "dilations", "filterSize", "windowShape")


def check_sizes(**params: Any) -> None:
    """Each of ``params`` is None, a finite number or a list of them, at most ``MAX_DIM`` in
    size (the kernels would otherwise fail inside NumPy). Strides, dilations and window sizes
    must also be positive, and a list of them needs an entry per spatial dim (at least 2:
    TF.js reads a missing one as NaN)."""
    for what, value in params.items():
        if value is None:
            continue
        is_list = isinstance(value, (list, tuple))
        items = value if is_list else [value]
        ok = bool(items) and all(
            is_number(v) and math.isfinite(v) and abs(v) <= MAX_DIM for v in items
        )
        positive = what in _POSITIVE
        if ok and positive and is_list and len(items) < 2:
            ok = False
        if ok and positive and not all(v > 0 for v in items):
            # TF.js's words (its conv2d checks these two; the other ops divide by zero).
            sizes = {"strides": "Strides", "dilations": "Dilated rates"}.get(what, snake_case(what))
            raise InvalidArgumentError(f"Error in {_called_op()}: {sizes} should be larger than 0.")
        if ok:
            continue
        kind = (
            "a positive number or a list of positive numbers (one per spatial dim)"
            if positive
            else "a number or a list of numbers"
        )
        raise InvalidArgumentError(
            f"Error in {_called_op()}: {snake_case(what)} must be {kind} of magnitude at most {MAX_DIM}, "
            f"but got {describe(value)}"
        )


def _called_op() -> str:
    """The op the user called (read on errors only)."""

    return ENGINE._op_name("conv")


def check_depthwise_channels(op_desc: str, in_channels: int, filter_in_channels: int) -> None:
    """TF.js's depthwise check: the input's channels are the filter's inChannels."""
    check(
        in_channels == filter_in_channels,
        f"Error in {snake_case(op_desc)}: number of input channels ({in_channels}) must match the in_channels "
        f"dimension in filter {filter_in_channels}.",
    )


def check_gradient_dilations(op_desc: str, dilations: Any, in_gradients: bool = True) -> None:
    """TF.js's convolution gradients refuse dilations above 1 (some messages add "in
    gradients")."""
    if not tuple_values_are_one(dilations):
        where = " in gradients" if in_gradients else ""
        raise GradientError(
            f"Error in gradient of {snake_case(op_desc)}: dilation rates greater than 1 are not yet supported"
            f"{where}. Got dilations '{js_format(dilations)}'"
        )
