"""Pooling layers (TF.js's ``layers/pooling.ts``): MaxPooling1D/2D/3D,
AveragePooling1D/2D/3D, GlobalMaxPooling1D/2D, GlobalAveragePooling1D/2D — their factories
and TF.js's aliases (``max_pool2d``, ``avg_pool2d``, ``avg_pooling2d``, ``global_max_pool2d``...).

>>> max_pooling2d(pool_size=2).apply(tf.tensor4d([[[[1], [2]], [[3], [4]]]])).array_sync()
[[[[4.0]]]]
>>> global_average_pooling1d().apply(tf.tensor3d([[[1, 2], [3, 4]]])).array_sync()
[[2.0, 3.0]]
"""

from __future__ import annotations

from typing import Any

from .. import ops
from ..py_strings import py_value
from .convolutional import (
    check_data_format,
    check_padding_mode,
    conv_output_length,
    preprocess_conv2d_input,
    preprocess_conv3d_input,
)
from .engine.serialization import register_class
from .engine.topology import InputSpec, Layer
from .errors import LayersNotImplementedError, LayersValueError
from .utils import (
    assert_positive_integer,
    get_exactly_one_shape,
    get_exactly_one_tensor,
    to_snake_case,
)

__all__ = [
    "average_pooling1d",
    "average_pooling2d",
    "average_pooling3d",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "avg_pooling1d",
    "avg_pooling2d",
    "avg_pooling3d",
    "global_average_pooling1d",
    "global_average_pooling2d",
    "global_max_pool1d",
    "global_max_pool2d",
    "global_max_pooling1d",
    "global_max_pooling2d",
    "max_pool1d",
    "max_pool2d",
    "max_pooling1d",
    "max_pooling2d",
    "max_pooling3d",
]


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def pool2d(
    x: Any, pool_size: list, strides: list, padding: str, data_format: str, mode: str
) -> Any:
    """Max or average pooling of a rank-4 tensor in either data format (TF.js's ``pool2d``)."""
    y = preprocess_conv2d_input(x, data_format)
    pad = "same" if padding == "same" else "valid"
    if mode == "max":
        y = ops.max_pool(y, pool_size, strides, pad)
    else:
        y = ops.avg_pool(y, pool_size, strides, pad)
    if data_format == "channelsFirst":
        y = ops.transpose(y, [0, 3, 1, 2])
    return y


def pool3d(
    x: Any, pool_size: list, strides: list, padding: str, data_format: str, mode: str
) -> Any:
    """Max or average pooling of a rank-5 tensor in either data format (TF.js's ``pool3d``)."""
    y = preprocess_conv3d_input(x, data_format)
    pad = "same" if padding == "same" else "valid"
    if mode == "max":
        y = ops.max_pool3d(y, pool_size, strides, pad)
    else:
        y = ops.avg_pool3d(y, pool_size, strides, pad)
    if data_format == "channelsFirst":
        y = ops.transpose(y, [0, 4, 1, 2, 3])
    return y


def _sizes(value: Any, n: int, arg: str, who: str) -> list:
    """A number (repeated ``n`` times) or a list of ``n`` numbers, as a list."""
    if _is_number(value):
        out = [value] * n
    elif isinstance(value, (list, tuple)) and len(value) == n and all(_is_number(v) for v in value):
        out = list(value)
    else:
        raise LayersValueError(
            f"{who}: {arg} must be a number or a list of {n} number(s), but received "
            f"{py_value(value)}"
        )
    assert_positive_integer(out, f"{who} {arg}")
    return [int(v) for v in out]


class _Pooling(Layer):
    """Shared code of the 1D, 2D and 3D pooling layers (not registered)."""

    RANK = 2
    MODE = "max"

    def __init__(
        self,
        pool_size: Any = None,
        strides: Any = None,
        padding: str | None = None,
        data_format: str | None = None,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        who = self.get_class_name()
        n = self.RANK
        self.pool_size = _sizes(2 if pool_size is None else pool_size, n, "pool_size", who)
        self.strides = (
            list(self.pool_size) if strides is None else _sizes(strides, n, "strides", who)
        )
        self.padding = check_padding_mode("valid" if padding is None else padding, who)
        self.data_format = check_data_format(
            "channelsLast" if data_format is None else data_format, who
        )
        self.input_spec = [InputSpec(ndim=n + 2)]

    def _spatial(self, shape: list) -> list:
        if self.RANK == 1:
            return [shape[1]]
        return shape[2:] if self.data_format == "channelsFirst" else shape[1:-1]

    def compute_output_shape(self, input_shape: Any) -> Any:
        s = get_exactly_one_shape(input_shape)
        space = [
            conv_output_length(d, self.pool_size[i], self.padding, self.strides[i])
            for i, d in enumerate(self._spatial(s))
        ]
        if self.RANK == 1:
            return [s[0], space[0], s[2]]
        if self.data_format == "channelsFirst":
            return [s[0], s[1], *space]
        return [s[0], *space, s[-1]]

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        self.invoke_call_hook(inputs, kwargs)
        x = get_exactly_one_tensor(inputs)
        if self.RANK == 1:
            x = ops.reshape(x, [x.shape[0], x.shape[1], 1, x.shape[2]])
            y = pool2d(
                x,
                [self.pool_size[0], 1],
                [self.strides[0], 1],
                self.padding,
                "channelsLast",
                self.MODE,
            )
            return ops.squeeze(y, [2])
        if self.RANK == 2:
            return pool2d(
                x, self.pool_size, self.strides, self.padding, self.data_format, self.MODE
            )
        return pool3d(x, self.pool_size, self.strides, self.padding, self.data_format, self.MODE)

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {
            "pool_size": list(self.pool_size),
            "padding": self.padding,
            "strides": list(self.strides),
        }
        if self.RANK > 1:
            config["data_format"] = to_snake_case(self.data_format)
        config.update(super().get_config())
        return config


class _Pooling1D(_Pooling):
    RANK = 1

    def __init__(
        self, pool_size: Any = None, strides: Any = None, padding: str | None = None, **kwargs: Any
    ):
        data_format = kwargs.pop("data_format", None)
        super().__init__(pool_size, strides, padding, **kwargs)
        if data_format is not None and check_data_format(data_format, self.get_class_name()) != (
            "channelsLast"
        ):
            raise LayersNotImplementedError(
                f"{self.get_class_name()}: only data_format 'channelsLast' is supported by 1D "
                f"pooling (got {data_format!r})."
            )


@register_class
class MaxPooling1D(_Pooling1D):
    """Max over windows of ``pool_size`` steps of ``[batch, steps, channels]``.

    Args:
        pool_size: default 2. strides: default ``pool_size``. padding: ``'valid'`` (default)
        or ``'same'``.
    """

    class_name = "MaxPooling1D"
    MODE = "max"


@register_class
class AveragePooling1D(_Pooling1D):
    """Mean over windows of ``pool_size`` steps (arguments as :class:`MaxPooling1D`)."""

    class_name = "AveragePooling1D"
    MODE = "avg"


@register_class
class MaxPooling2D(_Pooling):
    """Max over ``pool_size`` windows of images.

    Args:
        pool_size: one number or ``[rows, cols]`` (default ``[2, 2]``).
        strides: default ``pool_size``.
        padding: ``'valid'`` (default) or ``'same'``.
        data_format: ``'channelsLast'`` (default) or ``'channelsFirst'``.
    """

    class_name = "MaxPooling2D"
    RANK = 2
    MODE = "max"


@register_class
class AveragePooling2D(_Pooling):
    """Mean over ``pool_size`` windows of images (arguments as :class:`MaxPooling2D`)."""

    class_name = "AveragePooling2D"
    RANK = 2
    MODE = "avg"


@register_class
class MaxPooling3D(_Pooling):
    """Max over ``pool_size`` windows of volumes (``[batch, depth, rows, cols, channels]``)."""

    class_name = "MaxPooling3D"
    RANK = 3
    MODE = "max"


@register_class
class AveragePooling3D(_Pooling):
    """Mean over ``pool_size`` windows of volumes."""

    class_name = "AveragePooling3D"
    RANK = 3
    MODE = "avg"


class _GlobalPooling1D(Layer):
    MODE = "max"

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.input_spec = [InputSpec(ndim=3)]

    def compute_output_shape(self, input_shape: Any) -> Any:
        s = get_exactly_one_shape(input_shape)
        return [s[0], s[2]]

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        x = get_exactly_one_tensor(inputs)
        return ops.max(x, 1) if self.MODE == "max" else ops.mean(x, 1)


@register_class
class GlobalAveragePooling1D(_GlobalPooling1D):
    """Mean over the steps: ``[batch, steps, channels]`` → ``[batch, channels]``."""

    class_name = "GlobalAveragePooling1D"
    MODE = "avg"


@register_class
class GlobalMaxPooling1D(_GlobalPooling1D):
    """Max over the steps: ``[batch, steps, channels]`` → ``[batch, channels]``."""

    class_name = "GlobalMaxPooling1D"
    MODE = "max"


class _GlobalPooling2D(Layer):
    MODE = "max"

    def __init__(self, data_format: str | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.data_format = check_data_format(
            "channelsLast" if data_format is None else data_format, self.get_class_name()
        )
        self.input_spec = [InputSpec(ndim=4)]

    def compute_output_shape(self, input_shape: Any) -> Any:
        s = get_exactly_one_shape(input_shape)
        return [s[0], s[3]] if self.data_format == "channelsLast" else [s[0], s[1]]

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        x = get_exactly_one_tensor(inputs)
        axes = [1, 2] if self.data_format == "channelsLast" else [2, 3]
        return ops.max(x, axes) if self.MODE == "max" else ops.mean(x, axes)

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"data_format": to_snake_case(self.data_format)}
        config.update(super().get_config())
        return config


@register_class
class GlobalAveragePooling2D(_GlobalPooling2D):
    """Mean over rows and columns: ``[batch, rows, cols, channels]`` → ``[batch, channels]``."""

    class_name = "GlobalAveragePooling2D"
    MODE = "avg"


@register_class
class GlobalMaxPooling2D(_GlobalPooling2D):
    """Max over rows and columns: ``[batch, rows, cols, channels]`` → ``[batch, channels]``."""

    class_name = "GlobalMaxPooling2D"
    MODE = "max"


# ------------------------------------------------------------------- tf.layers factories
def max_pooling1d(**kwargs: Any) -> MaxPooling1D:
    """A :class:`MaxPooling1D` layer (aliases ``max_pool1d``)."""
    return MaxPooling1D(**kwargs)


def max_pooling2d(**kwargs: Any) -> MaxPooling2D:
    """A :class:`MaxPooling2D` layer (alias ``max_pool2d``)."""
    return MaxPooling2D(**kwargs)


def max_pooling3d(**kwargs: Any) -> MaxPooling3D:
    """A :class:`MaxPooling3D` layer."""
    return MaxPooling3D(**kwargs)


def average_pooling1d(**kwargs: Any) -> AveragePooling1D:
    """An :class:`AveragePooling1D` layer (aliases ``avg_pool1d``, ``avg_pooling1d``)."""
    return AveragePooling1D(**kwargs)


def average_pooling2d(**kwargs: Any) -> AveragePooling2D:
    """An :class:`AveragePooling2D` layer (aliases ``avg_pool2d``, ``avg_pooling2d``)."""
    return AveragePooling2D(**kwargs)


def average_pooling3d(**kwargs: Any) -> AveragePooling3D:
    """An :class:`AveragePooling3D` layer (aliases ``avg_pool3d``, ``avg_pooling3d``)."""
    return AveragePooling3D(**kwargs)


def global_average_pooling1d(**kwargs: Any) -> GlobalAveragePooling1D:
    """A :class:`GlobalAveragePooling1D` layer (alias ``global_avg_pool1d``, as Keras)."""
    return GlobalAveragePooling1D(**kwargs)


def global_average_pooling2d(**kwargs: Any) -> GlobalAveragePooling2D:
    """A :class:`GlobalAveragePooling2D` layer (alias ``global_avg_pool2d``, as Keras)."""
    return GlobalAveragePooling2D(**kwargs)


def global_max_pooling1d(**kwargs: Any) -> GlobalMaxPooling1D:
    """A :class:`GlobalMaxPooling1D` layer (alias ``global_max_pool1d``)."""
    return GlobalMaxPooling1D(**kwargs)


def global_max_pooling2d(**kwargs: Any) -> GlobalMaxPooling2D:
    """A :class:`GlobalMaxPooling2D` layer (alias ``global_max_pool2d``)."""
    return GlobalMaxPooling2D(**kwargs)


# TF.js's aliases (exports_layers.ts).
avg_pool1d = avg_pooling1d = average_pooling1d
avg_pool2d = avg_pooling2d = average_pooling2d
avg_pool3d = avg_pooling3d = average_pooling3d
global_max_pool1d = global_max_pooling1d
global_max_pool2d = global_max_pooling2d
max_pool1d = max_pooling1d
max_pool2d = max_pooling2d
