"""Preprocessing layers (TF.js's ``layers/preprocessing/*.ts``): Rescaling, CenterCrop,
Resizing, CategoryEncoding, RandomWidth — and their factories.

>>> rescaling(scale=1 / 255).apply(tf.tensor1d([0, 255])).array_sync()
[0.0, 1.0]
>>> category_encoding(num_tokens=4, output_mode='oneHot').apply(tf.tensor1d([3, 0], 'int32')).array_sync()
[[0.0, 0.0, 0.0, 1.0], [1.0, 0.0, 0.0, 0.0]]

Differences from TF.js 4.22: ``Resizing`` and ``RandomWidth`` report ``[batch, height,
width, channels]`` output shapes (TF.js drops the batch axis and reads the channels from the
wrong axis, and RandomWidth reports a width of -1, so neither could follow another layer in a
model); the width RandomWidth draws is unknown (``None``).
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from .. import ops
from ..py_strings import py_shape
from . import backend as K
from .engine.serialization import register_class
from .engine.topology import Layer
from .errors import LayersValueError
from .utils import get_exactly_one_shape, get_exactly_one_tensor, to_camel_case, to_snake_case

__all__ = ["category_encoding", "center_crop", "random_width", "rescaling", "resizing"]

INTERPOLATION_METHODS = ("bilinear", "nearest")
OUTPUT_MODES = ("oneHot", "multiHot", "count", "tfIdf", "int")


def _check_real(value: Any, who: str, arg: str) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or math.isnan(value):
        raise LayersValueError(f"{who}: {arg} must be a number, but got {value!r}")


def _check_size(value: Any, who: str, arg: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise LayersValueError(f"{who}: {arg} must be a positive integer, but got {value!r}")


def _check_interpolation(value: Any, who: str) -> str:
    if value not in INTERPOLATION_METHODS:
        raise LayersValueError(
            f"{who}: invalid interpolation parameter: {value} is not implemented (use one of "
            f"{list(INTERPOLATION_METHODS)})"
        )
    return value


def _image_axes(layer: Layer, rank: int) -> tuple[int, int]:
    if rank not in (3, 4):
        raise LayersValueError(
            f"{layer.get_class_name()} {layer.name}: expects an image [height, width, channels] "
            f"or a batch [batch, height, width, channels], but got a rank-{rank} input."
        )
    return rank - 3, rank - 2


@register_class
class Rescaling(Layer):
    """``inputs * scale + offset`` (inputs cast to float32), e.g. ``scale=1/255`` for pixels.

    Args:
        scale: the factor (required).
        offset: added after scaling (default 0).
    """

    class_name = "Rescaling"

    def __init__(self, scale: float | None = None, offset: float | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        _check_real(scale, "Rescaling", "scale")
        self.scale = scale
        if offset is not None:
            _check_real(offset, "Rescaling", "offset")
        self.offset = offset if offset else 0

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        x = get_exactly_one_tensor(inputs)
        if x.dtype != "float32":
            x = K.cast(x, "float32")
        return ops.add(ops.mul(x, self.scale), self.offset)

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"scale": self.scale, "offset": self.offset}
        config.update(super().get_config())
        return config


@register_class
class CenterCrop(Layer):
    """Crops the centre ``height`` x ``width`` of images (``[h, w, c]`` or ``[b, h, w, c]``);
    smaller images are resized up bilinearly instead. The output keeps the input's dtype.

    Args:
        height, width: the output size (required).
    """

    class_name = "CenterCrop"

    def __init__(self, height: int | None = None, width: int | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        _check_size(height, "CenterCrop", "height")
        _check_size(width, "CenterCrop", "width")
        self.height = height
        self.width = width

    def _center_crop(
        self, x: Any, h_buffer: int, w_buffer: int, in_h: int, in_w: int, dtype: str
    ) -> Any:
        top, left = h_buffer / in_h, w_buffer / in_w
        bottom, right = (self.height + h_buffer) / in_h, (self.width + w_buffer) / in_w
        rank3 = x.rank == 3
        images = ops.stack([x]) if rank3 else x
        n = images.shape[0]
        boxes = ops.tensor([[top, left, bottom, right]] * n, [n, 4])
        box_ind = ops.range(0, n, 1, "int32")
        cropped = ops.image.crop_and_resize(
            images, boxes, box_ind, [self.height, self.width], "nearest"
        )
        if rank3:
            return K.cast(get_exactly_one_tensor(ops.unstack(cropped)), dtype)
        return K.cast(cropped, dtype)

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        x = get_exactly_one_tensor(inputs)
        h_axis, w_axis = _image_axes(self, x.rank)
        dtype = x.dtype
        in_h, in_w = x.shape[h_axis], x.shape[w_axis]
        h_buffer = 0 if in_h == self.height else (in_h - self.height) // 2
        w_buffer = 0
        if in_w != self.width:
            w_buffer = (in_w - self.width) // 2
            if w_buffer == 0:
                w_buffer = 1
        if h_buffer >= 0 and w_buffer >= 0:
            return self._center_crop(x, h_buffer, w_buffer, in_h, in_w, dtype)
        return K.cast(ops.image.resize_bilinear(x, [self.height, self.width]), dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        shape = list(get_exactly_one_shape(input_shape))
        h_axis, w_axis = _image_axes(self, len(shape))
        shape[h_axis] = self.height
        shape[w_axis] = self.width
        return shape

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"height": self.height, "width": self.width}
        config.update(super().get_config())
        return config


@register_class
class Resizing(Layer):
    """Resizes images to ``height`` x ``width``.

    Args:
        height, width: the output size (required).
        interpolation: ``'bilinear'`` (default) or ``'nearest'``.
        crop_to_aspect_ratio: as in TF.js, this only switches ``align_corners`` off (the
            resize uses ``align_corners=True`` by default); no cropping is done.
    """

    class_name = "Resizing"

    def __init__(
        self,
        height: int | None = None,
        width: int | None = None,
        interpolation: str | None = None,
        crop_to_aspect_ratio: bool | None = None,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        _check_size(height, "Resizing", "height")
        _check_size(width, "Resizing", "width")
        self.height = height
        self.width = width
        self.interpolation = _check_interpolation(interpolation or "bilinear", "Resizing")
        self.crop_to_aspect_ratio = bool(crop_to_aspect_ratio)

    def compute_output_shape(self, input_shape: Any) -> Any:
        shape = list(get_exactly_one_shape(input_shape))
        h_axis, w_axis = _image_axes(self, len(shape))
        shape[h_axis] = self.height
        shape[w_axis] = self.width
        return shape

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        x = get_exactly_one_tensor(inputs)
        _image_axes(self, x.rank)
        size = [self.height, self.width]
        align = not self.crop_to_aspect_ratio
        if self.interpolation == "bilinear":
            return ops.image.resize_bilinear(x, size, align)
        return ops.image.resize_nearest_neighbor(x, size, align)

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {
            "height": self.height,
            "width": self.width,
            "interpolation": self.interpolation,
            "crop_to_aspect_ratio": self.crop_to_aspect_ratio,
        }
        config.update(super().get_config())
        return config


def encode_categorical_inputs(
    inputs: Any, output_mode: str, depth: int, weights: Any = None
) -> Any:
    """One-hot, multi-hot or count encoding of integer inputs (TF.js's
    ``encodeCategoricalInputs``)."""
    x = get_exactly_one_tensor(inputs)
    if x.dtype != "int32":
        x = K.cast(x, "int32")
    if output_mode == "int":
        return x
    original_shape = x.shape
    if x.rank == 0:
        x = ops.expand_dims(x, -1)
    if output_mode == "oneHot" and x.shape[-1] != 1:
        x = ops.expand_dims(x, -1)
    if x.rank > 2:
        raise LayersValueError(
            f"When output_mode is not int, maximum output rank is 2 Received output_mode "
            f"{output_mode} and input shape {py_shape(original_shape)} which would result "
            f"in output rank {x.rank}."
        )
    binary = output_mode in ("multiHot", "oneHot")
    if weights is not None and output_mode == "count":
        counts = ops.dense_bincount(x, weights, depth, binary)
    else:
        counts = ops.dense_bincount(x, [], depth, binary)
    if output_mode != "tfIdf":
        return counts
    if weights is not None:
        return ops.mul(counts, weights)
    raise LayersValueError("When output_mode is 'tfIdf', weights must be provided.")


@register_class
class CategoryEncoding(Layer):
    """Encodes integer category ids in ``[0, num_tokens)``: ``'oneHot'``, ``'multiHot'``
    (default) or ``'count'`` (optionally weighted by the ``count_weights`` call argument).

    Args:
        num_tokens: number of categories (required).
        output_mode: ``'multiHot'``, ``'oneHot'``, ``'count'`` or ``'tfIdf'`` (the Keras
            spellings ``'multi_hot'``... are accepted).
    """

    class_name = "CategoryEncoding"

    def __init__(
        self, num_tokens: int | None = None, output_mode: str | None = None, **kwargs: Any
    ):
        super().__init__(**kwargs)
        _check_size(num_tokens, "CategoryEncoding", "num_tokens")
        self.num_tokens = num_tokens
        mode = to_camel_case(output_mode) if isinstance(output_mode, str) else output_mode
        if mode is not None and mode not in OUTPUT_MODES:
            raise LayersValueError(
                f"CategoryEncoding: unknown output_mode {output_mode!r} (use one of "
                f"{list(OUTPUT_MODES)})"
            )
        self.output_mode = mode or "multiHot"

    def compute_output_shape(self, input_shape: Any) -> Any:
        shape = get_exactly_one_shape(input_shape)
        if shape is None:
            return [self.num_tokens]
        shape = list(shape)
        if self.output_mode == "oneHot" and (not shape or shape[-1] != 1):
            return [*shape, self.num_tokens]
        if not shape:
            return [self.num_tokens]
        shape[-1] = self.num_tokens
        return shape

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        x = get_exactly_one_tensor(inputs)
        if x.dtype != "int32":
            x = K.cast(x, "int32")
        count_weights = kwargs.get("count_weights", kwargs.get("countWeights"))
        if count_weights is not None:
            if self.output_mode != "count":
                raise LayersValueError(
                    f"CategoryEncoding {self.name}: count_weights is not used when output_mode "
                    f"!== count. Received count_weights={count_weights}"
                )
            count_weights = get_exactly_one_tensor(count_weights)
        if x.size > 0:
            top = ops.max(x).data_sync()[0]
            bottom = ops.min(x).data_sync()[0]
            if not (top < self.num_tokens and bottom >= 0):
                raise LayersValueError(
                    f"CategoryEncoding {self.name}: input values must be between 0 < values <= "
                    f"num_tokens with num_tokens={self.num_tokens} (got values in [{bottom}, "
                    f"{top}])"
                )
        return encode_categorical_inputs(x, self.output_mode, self.num_tokens, count_weights)

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {
            "num_tokens": self.num_tokens,
            "output_mode": to_snake_case(self.output_mode),
        }
        config.update(super().get_config())
        return config


@register_class
class RandomWidth(Layer):
    """Resizes images to a random width ``round(width * f)`` with ``f`` drawn uniformly from
    ``[1 + lower, 1 + upper]`` at every call (as in TF.js, also outside training).

    Args:
        factor: ``x`` (for ``[-x, x]``) or ``[lower, upper]``, each >= -1 (required).
        interpolation: ``'bilinear'`` (default) or ``'nearest'``.
        seed: makes the draws repeatable (incremented at each call, as TF.js's ``RandomSeed``).
    """

    class_name = "RandomWidth"

    def __init__(
        self,
        factor: Any = None,
        interpolation: str | None = None,
        seed: int | None = None,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        self.seed = seed
        self.factor = list(factor) if isinstance(factor, (list, tuple)) else factor
        if isinstance(self.factor, list) and len(self.factor) == 2:
            for v in self.factor:
                _check_real(v, "RandomWidth", "factor")
            self.width_lower, self.width_upper = self.factor
        elif (
            not isinstance(self.factor, (list, bool))
            and isinstance(self.factor, numbers.Real)
            and self.factor > 0
        ):
            self.width_lower, self.width_upper = -self.factor, self.factor
        else:
            raise LayersValueError(
                f"RandomWidth: invalid factor: {factor!r}. Must be positive number or tuple of 2 "
                f"numbers"
            )
        if self.width_lower < -1.0 or self.width_upper < -1.0:
            raise LayersValueError(
                f"RandomWidth: factor must have values larger than -1. Got: {factor!r}"
            )
        if self.width_upper < self.width_lower:
            raise LayersValueError(
                f"RandomWidth: factor cannot have upper bound less than lower bound. Got upper "
                f"bound: {self.width_upper}. Got lower bound: {self.width_lower}"
            )
        self.interpolation = _check_interpolation(interpolation or "bilinear", "RandomWidth")

    def _next_seed(self) -> int | None:
        if self.seed is None:
            return None
        seed = self.seed
        self.seed += 1
        return seed

    def compute_output_shape(self, input_shape: Any) -> Any:
        shape = list(get_exactly_one_shape(input_shape))
        _, w_axis = _image_axes(self, len(shape))
        shape[w_axis] = None
        return shape

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        x = get_exactly_one_tensor(inputs)
        h_axis, w_axis = _image_axes(self, x.rank)
        height, width = x.shape[h_axis], x.shape[w_axis]
        factor = ops.random_uniform(
            [1], 1.0 + self.width_lower, 1.0 + self.width_upper, "float32", self._next_seed()
        )
        new_width = math.floor(float(factor.data_sync()[0]) * width + 0.5)
        size = [height, new_width]
        if self.interpolation == "bilinear":
            return ops.image.resize_bilinear(x, size)
        return ops.image.resize_nearest_neighbor(x, size)

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {
            "factor": self.factor,
            "interpolation": self.interpolation,
            "seed": self.seed,
        }
        config.update(super().get_config())
        return config


# ------------------------------------------------------------------- tf.layers factories
def rescaling(scale: float | None = None, **kwargs: Any) -> Rescaling:
    """A :class:`Rescaling` layer."""
    return Rescaling(scale, **kwargs)


def center_crop(height: int | None = None, width: int | None = None, **kwargs: Any) -> CenterCrop:
    """A :class:`CenterCrop` layer."""
    return CenterCrop(height, width, **kwargs)


def resizing(height: int | None = None, width: int | None = None, **kwargs: Any) -> Resizing:
    """A :class:`Resizing` layer."""
    return Resizing(height, width, **kwargs)


def category_encoding(num_tokens: int | None = None, **kwargs: Any) -> CategoryEncoding:
    """A :class:`CategoryEncoding` layer."""
    return CategoryEncoding(num_tokens, **kwargs)


def random_width(factor: Any = None, **kwargs: Any) -> RandomWidth:
    """A :class:`RandomWidth` layer."""
    return RandomWidth(factor, **kwargs)
