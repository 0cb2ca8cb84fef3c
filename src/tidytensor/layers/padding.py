"""Padding layers (TF.js's ``layers/padding.ts``): ZeroPadding2D and its factory
``zero_padding2d``.

>>> zero_padding2d(padding=[1, 2]).apply(tf.ones([1, 2, 2, 1])).shape
[1, 4, 6, 1]
"""

from __future__ import annotations

from typing import Any

from .. import ops
from . import backend as K
from .engine.serialization import register_class
from .engine.topology import InputSpec, Layer
from .errors import LayersValueError
from .utils import get_exactly_one_shape, get_exactly_one_tensor, to_snake_case

__all__ = ["zero_padding2d"]


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _pair(value: Any, what: str) -> list[int]:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        length = len(value) if isinstance(value, (list, tuple)) else "non-array"
        raise LayersValueError(
            f"ZeroPadding2D expects {what} padding to be a length-2 array, but received a "
            f"length-{length} array."
        )
    if not all(_is_count(v) for v in value):
        raise LayersValueError(
            f"ZeroPadding2D expects {what} padding to hold non-negative integers, but got "
            f"{list(value)!r}"
        )
    return [int(v) for v in value]


def spatial_2d_padding(x: Any, padding: list, data_format: str) -> Any:
    """Zero-pads the two spatial axes of a rank-4 tensor (TF.js's ``spatial2dPadding``)."""
    if x.rank != 4:
        raise LayersValueError(
            f"spatial2dPadding expects input tensor to be 4-D, but received a {x.rank}-D tensor."
        )
    if data_format == "channelsFirst":
        pattern = [[0, 0], [0, 0], list(padding[0]), list(padding[1])]
    else:
        pattern = [[0, 0], list(padding[0]), list(padding[1]), [0, 0]]
    return ops.pad(x, pattern)


@register_class
class ZeroPadding2D(Layer):
    """Adds rows and columns of zeros around images.

    Args:
        padding: ``n`` (all sides), ``[rows, cols]`` (symmetric) or
            ``[[top, bottom], [left, right]]`` (default 1 everywhere).
        data_format: ``'channelsLast'`` (default) or ``'channelsFirst'``.
    """

    class_name = "ZeroPadding2D"

    def __init__(self, padding: Any = None, data_format: str | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        try:
            self.data_format = K.check_data_format(
                K.image_data_format() if data_format is None else data_format
            )
        except LayersValueError as e:
            raise LayersValueError(f"ZeroPadding2D: {e}") from None
        if padding is None:
            self.padding = [[1, 1], [1, 1]]
        elif _is_count(padding):
            self.padding = [[padding, padding], [padding, padding]]
        elif isinstance(padding, (list, tuple)):
            if len(padding) != 2:
                raise LayersValueError(
                    f"ZeroPadding2D expects padding to be a length-2 array, but received a "
                    f"length-{len(padding)} array."
                )
            if all(isinstance(p, (int, float)) and not isinstance(p, bool) for p in padding):
                h, w = _pair(padding, "height and width")
                self.padding = [[h, h], [w, w]]
            else:
                self.padding = [_pair(padding[0], "height"), _pair(padding[1], "width")]
        else:
            raise LayersValueError(
                f"ZeroPadding2D: padding must be a non-negative integer, a pair of integers or "
                f"a pair of pairs, but got {padding!r}"
            )
        self.input_spec = [InputSpec(ndim=4)]

    def compute_output_shape(self, input_shape: Any) -> Any:
        s = get_exactly_one_shape(input_shape)
        (top, bottom), (left, right) = self.padding

        def grow(dim: Any, a: int, b: int) -> Any:
            return dim + a + b if dim is not None and dim >= 0 else None

        if self.data_format == "channelsFirst":
            return [s[0], s[1], grow(s[2], top, bottom), grow(s[3], left, right)]
        return [s[0], grow(s[1], top, bottom), grow(s[2], left, right), s[3]]

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        return spatial_2d_padding(get_exactly_one_tensor(inputs), self.padding, self.data_format)

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {
            "padding": [list(p) for p in self.padding],
            "data_format": to_snake_case(self.data_format),
        }
        config.update(super().get_config())
        return config


def zero_padding2d(**kwargs: Any) -> ZeroPadding2D:
    """A :class:`ZeroPadding2D` layer (TF.js's ``tf.layers.zeroPadding2d``)."""
    return ZeroPadding2D(**kwargs)
