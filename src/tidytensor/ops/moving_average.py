"""Moving average (TF.js doc subheading 'Operations / Moving Average')."""

from __future__ import annotations

from typing import Any

from ..errors import DTypeError, InvalidArgumentError, ShapeError
from ..tensor import Tensor
from ._op import bool_arg, convert_to_tensor, op
from .arithmetic import add, div, mul, pow, sub  # noqa: A004 - TF.js name
from .creation import scalar

__all__ = ["moving_average"]


@op
def moving_average(
    v: Any, x: Any, decay: Any, step: Any = None, zero_debias: bool = True
) -> Tensor:
    """One step of an exponential moving average: ``v + (x - v) * (1 - decay)``, divided by
    ``1 - decay ** step`` when ``zero_debias`` (the default; ``step`` is then required).

    >>> v, x = tf.tensor1d([0, 0]), tf.tensor1d([1, 2])
    >>> tf.moving_average(v, x, 0.5, zero_debias=False).array_sync()
    [0.5, 1.0]
    >>> tf.moving_average(v, x, 0.5, 1).array_sync()
    [1.0, 2.0]
    """
    v = convert_to_tensor(v, "v", "movingAverage")
    x = convert_to_tensor(x, "x", "movingAverage")
    decay = convert_to_tensor(decay, "decay", "movingAverage")
    if v.dtype != x.dtype:
        raise DTypeError(
            f"The dtypes of the first({v.dtype}) and second({x.dtype}) input must match"
        )
    if v._shape != x._shape:
        raise ShapeError("Shape mismatch in v and x")
    one = scalar(1)
    one_minus_decay = sub(one, decay)
    update = mul(sub(x, v), one_minus_decay)
    if bool_arg(zero_debias, "movingAverage", "zeroDebias"):
        if step is None:
            raise InvalidArgumentError("When using zero_debias=True, step is required.")
        step = convert_to_tensor(step, "step", "movingAverage")
        update = div(update, sub(one, pow(decay, step)))
    return add(v, update)
