"""Convolution layers (TF.js's ``layers/convolutional.ts``): Conv1D, Conv2D, Conv3D, Conv2DTranspose,
Conv3DTranspose, SeparableConv2D, Cropping2D, UpSampling2D — and their ``tf.layers`` factories
(DepthwiseConv2D is in ``convolutional_depthwise``, as in TF.js). Kernels default to ``'glorotNormal'`` (TF.js's default), biases to
``'zeros'``; ``data_format`` is ``'channelsLast'`` (default) or ``'channelsFirst'`` (the Keras
spellings ``'channels_last'`` / ``'channels_first'`` are accepted).

>>> c = conv2d(filters=2, kernel_size=3, padding='same', kernel_initializer='ones')
>>> c.apply(tf.ones([1, 4, 4, 1])).shape
[1, 4, 4, 2]
>>> up_sampling2d(size=[2, 3]).apply(tf.ones([1, 2, 2, 1])).shape
[1, 4, 6, 1]

Differences from TF.js 4.22 (bugs there, fixed here, each covered by a test):

- ``SeparableConv2D`` with ``channelsFirst`` adds the bias along the channels (TF.js adds it
  along the wrong axis); ``pointwise_initializer`` is honoured (TF.js reuses
  ``depthwise_initializer`` for it) and ``depth_multiplier`` is written to the config when it
  is not 1 (TF.js drops it).
- ``Conv1D`` with ``channelsFirst`` returns ``[batch, filters, steps]`` as its output shape
  says (TF.js returns channels last) and keeps ``data_format`` in its config when it is
  ``channelsFirst``; ``padding='causal'`` works as in Keras (TF.js raises).
"""

from __future__ import annotations

from typing import Any

from .. import ops
from ..ops import fused
from ..py_strings import py_shape, py_value
from . import backend as K
from .activations import get_activation, serialize_activation
from .constraints import get_constraint, serialize_constraint
from .engine.serialization import register_class
from .engine.topology import InputSpec, Layer
from .errors import LayersNotImplementedError, LayersValueError
from .initializers import get_initializer, serialize_initializer
from .regularizers import get_regularizer, serialize_regularizer
from .utils import (
    assert_positive_integer,
    get_exactly_one_shape,
    get_exactly_one_tensor,
    to_snake_case,
)

__all__ = [
    "conv1d",
    "conv2d",
    "conv2d_transpose",
    "conv3d",
    "conv3d_transpose",
    "cropping2d",
    "separable_conv2d",
    "up_sampling2d",
]

VALID_PADDING_MODE_VALUES = ("valid", "same", "causal")
VALID_INTERPOLATION_FORMAT_VALUES = ("nearest", "bilinear")
_FUSED_ACTIVATIONS = ("relu", "linear", "elu")


# ------------------------------------------------------------------ shared helpers
def _is_int(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, float) and value.is_integer()


def check_string_value(values: tuple, label: str, value: Any, who: str) -> Any:
    """``value`` if it is one of ``values`` (or ``None``); raises naming ``who`` otherwise."""
    if value is None or value in values:
        return value
    raise LayersValueError(
        f"{who}: {value!r} is not a valid {label}. Valid values are {list(values)} or None."
    )


def check_padding_mode(value: Any, who: str) -> Any:
    return check_string_value(VALID_PADDING_MODE_VALUES, "PaddingMode", value, who)


def check_data_format(value: Any, who: str) -> Any:
    """``value`` in TF.js's spelling (``'channels_first'`` → ``'channelsFirst'``)."""
    try:
        return K.check_data_format(value)
    except LayersValueError as e:
        raise LayersValueError(f"{who}: {e}") from None


def normalize_array(value: Any, n: int, name: str, who: str) -> list[int]:
    """``value`` (a number or a list of ``n`` integers) as a list of ``n`` ints."""
    if _is_int(value):
        return [int(value)] * n
    if not isinstance(value, (list, tuple)):
        raise LayersValueError(
            f"{who}: the {name} argument must be an integer or tuple of {n} integers. "
            f"Received: {value!r}."
        )
    if len(value) != n:
        raise LayersValueError(
            f"{who}: the {name} argument must be an integer or tuple of {n} integers. "
            f"Received: {len(value)} elements."
        )
    for v in value:
        if not _is_int(v):
            raise LayersValueError(
                f"{who}: the {name} argument must be an integer or tuple of {n} integers. "
                f"Received: {py_value(list(value))} including a non-integer number {v}"
            )
    return [int(v) for v in value]


def conv_output_length(
    input_length: int | None, filter_size: int, padding: str, stride: int, dilation: int = 1
) -> int | None:
    """Output length of a convolution or pooling along one axis (``None`` stays ``None``)."""
    if input_length is None:
        return None
    dilated = filter_size + (filter_size - 1) * (dilation - 1)
    if padding in ("same", "causal"):
        length = input_length
    else:
        length = input_length - dilated + 1
    return (length + stride - 1) // stride


def deconv_length(dim: int | None, stride: int, kernel: int, padding: str) -> int | None:
    """Output length of a transposed convolution along one axis."""
    if dim is None:
        return None
    if padding == "valid":
        return dim * stride + max(kernel - stride, 0)
    if padding == "same":
        return dim * stride
    raise LayersValueError(f"Unsupported padding mode: {padding}.")


def preprocess_conv2d_input(x: Any, data_format: str) -> Any:
    """NCHW → NHWC for ``channelsFirst`` (TF.js's ``preprocessConv2DInput``)."""
    if data_format == "channelsFirst":
        return ops.transpose(x, [0, 2, 3, 1])
    return x


def preprocess_conv3d_input(x: Any, data_format: str) -> Any:
    """NCDHW → NDHWC for ``channelsFirst``."""
    if data_format == "channelsFirst":
        return ops.transpose(x, [0, 2, 3, 4, 1])
    return x


def _channel_dim(layer: Layer, input_shape: list, channel_axis: int) -> int:
    dim = (
        input_shape[channel_axis] if -len(input_shape) <= channel_axis < len(input_shape) else None
    )
    if dim is None or dim < 0:
        raise LayersValueError(
            f"{layer.get_class_name()} {layer.name}: the channel dimension of the input should "
            f"be defined, but got input shape {py_shape(input_shape)}."
        )
    return dim


def _check_rank(layer: Layer, input_shape: list, rank: int) -> None:
    if len(input_shape) != rank:
        raise LayersValueError(
            f"{layer.get_class_name()} {layer.name}: input should have rank {rank}; received "
            f"input shape: {py_shape(input_shape)}"
        )


# ====================================================================== BaseConv
class BaseConv(Layer):
    """Arguments shared by every convolution layer (TF.js's ``BaseConv``; not registered).

    Args:
        kernel_size: an integer or ``rank`` integers (required).
        strides: default 1.
        padding: ``'valid'`` (default), ``'same'`` or ``'causal'`` (Conv1D only).
        data_format: ``'channelsLast'`` (default) or ``'channelsFirst'``.
        dilation_rate: default 1.
        activation: default linear.
        use_bias: default True.
        bias_initializer, bias_constraint, bias_regularizer, activity_regularizer.
    """

    DEFAULT_KERNEL_INITIALIZER = "glorotNormal"
    DEFAULT_BIAS_INITIALIZER = "zeros"

    def __init__(
        self,
        rank: int,
        kernel_size: Any = None,
        strides: Any = None,
        padding: str | None = None,
        data_format: str | None = None,
        dilation_rate: Any = None,
        activation: Any = None,
        use_bias: bool | None = None,
        bias_initializer: Any = None,
        bias_constraint: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        who = self.get_class_name()
        self.bias = None
        self.rank = rank
        if kernel_size is None:
            raise LayersValueError(f"{who}: required argument kernel_size is missing.")
        self.kernel_size = normalize_array(kernel_size, rank, "kernel_size", who)
        assert_positive_integer(self.kernel_size, f"{who} kernel_size")
        self.strides = normalize_array(1 if strides is None else strides, rank, "strides", who)
        assert_positive_integer(self.strides, f"{who} strides")
        self.padding = check_padding_mode("valid" if padding is None else padding, who)
        if self.padding == "causal" and rank != 1:
            raise LayersNotImplementedError(
                f"{who}: padding 'causal' is only supported by 1D convolutions."
            )
        self.data_format = check_data_format(
            "channelsLast" if data_format is None else data_format, who
        )
        self.activation = get_activation(activation)
        self.use_bias = True if use_bias is None else bool(use_bias)
        self.bias_initializer = get_initializer(bias_initializer or self.DEFAULT_BIAS_INITIALIZER)
        self.bias_constraint = get_constraint(bias_constraint)
        self.bias_regularizer = get_regularizer(bias_regularizer)
        self.activity_regularizer = get_regularizer(activity_regularizer)
        self.dilation_rate = normalize_array(
            1 if dilation_rate is None else dilation_rate, rank, "dilation_rate", who
        )
        assert_positive_integer(self.dilation_rate, f"{who} dilation_rate")
        self.input_spec = [InputSpec(ndim=rank + 2)]

    def _channel_axis(self, input_shape: list) -> int:
        return 1 if self.data_format == "channelsFirst" else len(input_shape) - 1

    def _add_bias(self, size: int, dtype: str | None = None) -> None:
        """Adds the ``bias`` weight (``size`` values) when ``use_bias``."""
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                [size],
                dtype,
                self.bias_initializer,
                self.bias_regularizer,
                True,
                self.bias_constraint,
            )

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {
            "kernel_size": list(self.kernel_size),
            "strides": list(self.strides),
            "padding": self.padding,
            "data_format": to_snake_case(self.data_format),
            "dilation_rate": list(self.dilation_rate),
            "activation": serialize_activation(self.activation),
            "use_bias": self.use_bias,
            "bias_initializer": serialize_initializer(self.bias_initializer),
            "bias_regularizer": serialize_regularizer(self.bias_regularizer),
            "activity_regularizer": serialize_regularizer(self.activity_regularizer),
            "bias_constraint": serialize_constraint(self.bias_constraint),
        }
        config.update(super().get_config())
        return config


class Conv(BaseConv):
    """A convolution with ``filters`` output channels (TF.js's ``Conv``; not registered).

    Args:
        filters: number of output channels (required, a positive integer).
        kernel_initializer: default ``'glorotNormal'``.
        kernel_constraint, kernel_regularizer.
        (plus the :class:`BaseConv` arguments)
    """

    def __init__(
        self,
        rank: int,
        filters: int | None = None,
        kernel_size: Any = None,
        kernel_initializer: Any = None,
        kernel_constraint: Any = None,
        kernel_regularizer: Any = None,
        **kwargs: Any,
    ):
        super().__init__(rank, kernel_size, **kwargs)
        who = self.get_class_name()
        if filters is None or isinstance(filters, bool) or not isinstance(filters, (int, float)):
            raise LayersValueError(
                f"{who}: convolution layer expected filters to be a 'number' > 0 but got "
                f"{filters!r}"
            )
        assert_positive_integer(filters, f"{who} filters")
        self.filters = int(filters)
        self.kernel = None
        self.kernel_initializer = get_initializer(
            kernel_initializer or self.DEFAULT_KERNEL_INITIALIZER
        )
        self.kernel_constraint = get_constraint(kernel_constraint)
        self.kernel_regularizer = get_regularizer(kernel_regularizer)

    def build(self, input_shape: Any) -> None:
        input_shape = get_exactly_one_shape(input_shape)
        channel_axis = self._channel_axis(input_shape)
        input_dim = _channel_dim(self, input_shape, channel_axis)
        self.kernel = self.add_weight(
            "kernel",
            [*self.kernel_size, input_dim, self.filters],
            None,
            self.kernel_initializer,
            self.kernel_regularizer,
            True,
            self.kernel_constraint,
        )
        self._add_bias(self.filters)
        self.input_spec = [InputSpec(ndim=self.rank + 2, axes={channel_axis: input_dim})]
        self.built = True

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        x = get_exactly_one_tensor(inputs)
        bias = self.bias.read() if self.bias is not None else None
        kernel = self.kernel.read()
        if self.rank == 2:
            name = self.activation.get_class_name()
            fused_act = name if name in _FUSED_ACTIVATIONS else None
            y = preprocess_conv2d_input(x, self.data_format)
            y = fused.conv2d(
                y,
                kernel,
                self.strides,
                self.padding,
                "NHWC",
                self.dilation_rate,
                None,
                bias,
                fused_act or "linear",
            )
            if self.data_format == "channelsFirst":
                y = ops.transpose(y, [0, 3, 1, 2])
            return y if fused_act is not None else self.activation.apply(y)
        if self.rank == 1:
            y = x
            if self.data_format == "channelsFirst":
                y = ops.transpose(y, [0, 2, 1])
            pad = self.padding
            if pad == "causal":
                left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
                y = ops.pad(y, [[0, 0], [left, 0], [0, 0]])
                pad = "valid"
            y = ops.conv1d(y, kernel, self.strides[0], pad, "NWC", self.dilation_rate[0])
            if bias is not None:
                y = K.bias_add(y, bias)
            if self.data_format == "channelsFirst":
                y = ops.transpose(y, [0, 2, 1])
        else:
            y = preprocess_conv3d_input(x, self.data_format)
            y = ops.conv3d(y, kernel, self.strides, self.padding, "NDHWC", self.dilation_rate)
            if bias is not None:
                y = K.bias_add(y, bias)
            if self.data_format == "channelsFirst":
                y = ops.transpose(y, [0, 4, 1, 2, 3])
        return self.activation.apply(y)

    def compute_output_shape(self, input_shape: Any) -> Any:
        input_shape = get_exactly_one_shape(input_shape)
        if self.data_format == "channelsLast":
            space = input_shape[1:-1]
        else:
            space = input_shape[2:]
        new_space = [
            conv_output_length(
                dim, self.kernel_size[i], self.padding, self.strides[i], self.dilation_rate[i]
            )
            for i, dim in enumerate(space)
        ]
        if self.data_format == "channelsLast":
            return [input_shape[0], *new_space, self.filters]
        return [input_shape[0], self.filters, *new_space]

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {
            "filters": self.filters,
            "kernel_initializer": serialize_initializer(self.kernel_initializer),
            "kernel_regularizer": serialize_regularizer(self.kernel_regularizer),
            "kernel_constraint": serialize_constraint(self.kernel_constraint),
        }
        config.update(super().get_config())
        return config


@register_class
class Conv1D(Conv):
    """1D convolution over ``[batch, steps, channels]`` (``padding='causal'`` pads on the
    left so step ``t`` only sees steps ``<= t``)."""

    class_name = "Conv1D"

    def __init__(self, filters: int | None = None, kernel_size: Any = None, **kwargs: Any):
        super().__init__(1, filters, kernel_size, **kwargs)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        if self.data_format == "channelsLast":
            del config["data_format"]
        return config


@register_class
class Conv2D(Conv):
    """2D convolution over images (``[batch, rows, cols, channels]`` for ``channelsLast``)."""

    class_name = "Conv2D"

    def __init__(self, filters: int | None = None, kernel_size: Any = None, **kwargs: Any):
        super().__init__(2, filters, kernel_size, **kwargs)


@register_class
class Conv3D(Conv):
    """3D convolution over volumes (``[batch, depth, rows, cols, channels]``)."""

    class_name = "Conv3D"

    def __init__(self, filters: int | None = None, kernel_size: Any = None, **kwargs: Any):
        super().__init__(3, filters, kernel_size, **kwargs)


class _ConvTranspose(Conv):
    """Shared code of Conv2DTranspose and Conv3DTranspose (kernel
    ``kernel_size + [filters, input_channels]``)."""

    def __init__(self, rank: int, filters: Any, kernel_size: Any, **kwargs: Any):
        super().__init__(rank, filters, kernel_size, **kwargs)
        who = self.get_class_name()
        if self.padding not in ("same", "valid"):
            raise LayersValueError(
                f"{who} currently supports only padding modes 'same' and 'valid', but received "
                f"padding mode {self.padding}"
            )
        if any(d != 1 for d in self.dilation_rate):
            raise LayersNotImplementedError(
                f"{who} does not support dilation_rate other than 1 (got "
                f"{py_value(self.dilation_rate)})."
            )

    def build(self, input_shape: Any) -> None:
        input_shape = get_exactly_one_shape(input_shape)
        _check_rank(self, input_shape, self.rank + 2)
        channel_axis = self._channel_axis(input_shape)
        input_dim = _channel_dim(self, input_shape, channel_axis)
        self.kernel = self.add_weight(
            "kernel",
            [*self.kernel_size, self.filters, input_dim],
            "float32",
            self.kernel_initializer,
            self.kernel_regularizer,
            True,
            self.kernel_constraint,
        )
        self._add_bias(self.filters, "float32")
        self.input_spec = [InputSpec(ndim=self.rank + 2, axes={channel_axis: input_dim})]
        self.built = True

    def _spatial_axes(self) -> list[int]:
        start = 2 if self.data_format == "channelsFirst" else 1
        return list(range(start, start + self.rank))

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        x = get_exactly_one_tensor(inputs)
        shape = x.shape
        out_space = [
            deconv_length(shape[axis], self.strides[i], self.kernel_size[i], self.padding)
            for i, axis in enumerate(self._spatial_axes())
        ]
        output_shape = [shape[0], *out_space, self.filters]
        if self.rank == 2:
            y = preprocess_conv2d_input(x, self.data_format)
            y = ops.conv2d_transpose(
                y, self.kernel.read(), output_shape, self.strides, self.padding
            )
            if self.data_format == "channelsFirst":
                y = ops.transpose(y, [0, 3, 1, 2])
        else:
            y = preprocess_conv3d_input(x, self.data_format)
            y = ops.conv3d_transpose(
                y, self.kernel.read(), output_shape, self.strides, self.padding
            )
            if self.data_format == "channelsFirst":
                y = ops.transpose(y, [0, 4, 1, 2, 3])
        if self.bias is not None:
            y = K.bias_add(y, self.bias.read(), self.data_format)
        return self.activation.apply(y)

    def compute_output_shape(self, input_shape: Any) -> Any:
        out = list(get_exactly_one_shape(input_shape))
        channel_axis = 1 if self.data_format == "channelsFirst" else self.rank + 1
        out[channel_axis] = self.filters
        for i, axis in enumerate(self._spatial_axes()):
            out[axis] = deconv_length(out[axis], self.strides[i], self.kernel_size[i], self.padding)
        return out

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        del config["dilation_rate"]
        return config


@register_class
class Conv2DTranspose(_ConvTranspose):
    """Transposed 2D convolution ("deconvolution"), e.g. to upsample feature maps.
    ``padding`` must be ``'same'`` or ``'valid'``."""

    class_name = "Conv2DTranspose"

    def __init__(self, filters: int | None = None, kernel_size: Any = None, **kwargs: Any):
        super().__init__(2, filters, kernel_size, **kwargs)


@register_class
class Conv3DTranspose(_ConvTranspose):
    """Transposed 3D convolution. ``padding`` must be ``'same'`` or ``'valid'``."""

    class_name = "Conv3DTranspose"

    def __init__(self, filters: int | None = None, kernel_size: Any = None, **kwargs: Any):
        super().__init__(3, filters, kernel_size, **kwargs)


@register_class
class SeparableConv2D(Conv):
    """Depthwise convolution (each input channel with ``depth_multiplier`` filters) followed
    by a 1x1 pointwise convolution to ``filters`` channels.

    Args:
        filters, kernel_size: required.
        depth_multiplier: default 1.
        depthwise_initializer, pointwise_initializer: default ``'glorotUniform'``.
        depthwise_regularizer, pointwise_regularizer, depthwise_constraint,
        pointwise_constraint.
        (``kernel_initializer`` / ``kernel_regularizer`` / ``kernel_constraint`` are refused.)
    """

    class_name = "SeparableConv2D"
    DEFAULT_DEPTHWISE_INITIALIZER = "glorotUniform"
    DEFAULT_POINTWISE_INITIALIZER = "glorotUniform"

    def __init__(
        self,
        filters: int | None = None,
        kernel_size: Any = None,
        depth_multiplier: int | None = None,
        depthwise_initializer: Any = None,
        depthwise_regularizer: Any = None,
        depthwise_constraint: Any = None,
        pointwise_initializer: Any = None,
        pointwise_regularizer: Any = None,
        pointwise_constraint: Any = None,
        kernel_initializer: Any = None,
        kernel_regularizer: Any = None,
        kernel_constraint: Any = None,
        **kwargs: Any,
    ):
        if filters is None:
            raise LayersValueError(
                "SeparableConv2D: the `filters` configuration field is required, but is "
                "unspecified."
            )
        if (
            kernel_initializer is not None
            or kernel_regularizer is not None
            or kernel_constraint is not None
        ):
            raise LayersValueError(
                "Fields kernel_initializer, kernel_regularizer and kernel_constraint are invalid "
                "for SeparableConv2D. Use depthwise_initializer, depthwise_regularizer, "
                "depthwise_constraint, pointwise_initializer, pointwise_regularizer and "
                "pointwise_constraint instead."
            )
        padding = kwargs.get("padding")
        if padding is not None and padding not in ("same", "valid"):
            raise LayersValueError(
                f"SeparableConv2D supports only padding modes: 'same' and 'valid', but "
                f"received {padding!r}"
            )
        super().__init__(2, filters, kernel_size, **kwargs)
        self.depth_multiplier = 1 if depth_multiplier is None else depth_multiplier
        assert_positive_integer(self.depth_multiplier, "SeparableConv2D depth_multiplier")
        self.depth_multiplier = int(self.depth_multiplier)
        self.depthwise_initializer = get_initializer(
            depthwise_initializer or self.DEFAULT_DEPTHWISE_INITIALIZER
        )
        self.depthwise_regularizer = get_regularizer(depthwise_regularizer)
        self.depthwise_constraint = get_constraint(depthwise_constraint)
        self.pointwise_initializer = get_initializer(
            pointwise_initializer or depthwise_initializer or self.DEFAULT_POINTWISE_INITIALIZER
        )
        self.pointwise_regularizer = get_regularizer(pointwise_regularizer)
        self.pointwise_constraint = get_constraint(pointwise_constraint)
        self.depthwise_kernel = None
        self.pointwise_kernel = None

    def build(self, input_shape: Any) -> None:
        input_shape = get_exactly_one_shape(input_shape)
        if len(input_shape) < self.rank + 2:
            raise LayersValueError(
                f"Inputs to SeparableConv2D {self.name} should have rank {self.rank + 2}, but "
                f"received input shape: {py_shape(input_shape)}"
            )
        channel_axis = self._channel_axis(input_shape)
        input_dim = _channel_dim(self, input_shape, channel_axis)
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel",
            [*self.kernel_size, input_dim, self.depth_multiplier],
            "float32",
            self.depthwise_initializer,
            self.depthwise_regularizer,
            True,
            self.depthwise_constraint,
        )
        self.pointwise_kernel = self.add_weight(
            "pointwise_kernel",
            [1] * self.rank + [input_dim * self.depth_multiplier, self.filters],
            "float32",
            self.pointwise_initializer,
            self.pointwise_regularizer,
            True,
            self.pointwise_constraint,
        )
        self._add_bias(self.filters, "float32")
        self.input_spec = [InputSpec(ndim=self.rank + 2, axes={channel_axis: input_dim})]
        self.built = True

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        x = preprocess_conv2d_input(get_exactly_one_tensor(inputs), self.data_format)
        y = ops.separable_conv2d(
            x,
            self.depthwise_kernel.read(),
            self.pointwise_kernel.read(),
            self.strides,
            self.padding,
            self.dilation_rate,
            "NHWC",
        )
        if self.bias is not None:
            y = K.bias_add(y, self.bias.read(), "channelsLast")
        y = self.activation.apply(y)
        if self.data_format == "channelsFirst":
            y = ops.transpose(y, [0, 3, 1, 2])
        return y

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        for key in ("kernel_initializer", "kernel_regularizer", "kernel_constraint"):
            del config[key]
        if self.depth_multiplier != 1:
            config["depth_multiplier"] = self.depth_multiplier
        config["depthwise_initializer"] = serialize_initializer(self.depthwise_initializer)
        config["pointwise_initializer"] = serialize_initializer(self.pointwise_initializer)
        config["depthwise_regularizer"] = serialize_regularizer(self.depthwise_regularizer)
        config["pointwise_regularizer"] = serialize_regularizer(self.pointwise_regularizer)
        config["depthwise_constraint"] = serialize_constraint(self.depthwise_constraint)
        config["pointwise_constraint"] = serialize_constraint(self.pointwise_constraint)
        return config


def _pair(value: Any, who: str, arg: str) -> list[int]:
    if (
        not isinstance(value, (list, tuple))
        or len(value) != 2
        or not all(_is_int(v) and v >= 0 for v in value)
    ):
        raise LayersValueError(
            f"{who}: each entry of {arg} must be a pair of non-negative integers, but got {value!r}"
        )
    return [int(v) for v in value]


@register_class
class Cropping2D(Layer):
    """Crops rows and columns off the borders of images.

    Args:
        cropping: ``n`` (all four sides), ``[rows, cols]`` (symmetric) or
            ``[[top, bottom], [left, right]]`` (required).
        data_format: ``'channelsLast'`` (default) or ``'channelsFirst'``.
    """

    class_name = "Cropping2D"

    def __init__(self, cropping: Any = None, data_format: str | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        if cropping is None:
            raise LayersValueError("Cropping2D: required argument cropping is missing.")
        if _is_int(cropping) and cropping >= 0:
            c = int(cropping)
            self.cropping = [[c, c], [c, c]]
        elif (
            isinstance(cropping, (list, tuple))
            and len(cropping) == 2
            and all(_is_int(v) for v in cropping)
        ):
            h, w = _pair(cropping, "Cropping2D", "cropping")
            self.cropping = [[h, h], [w, w]]
        elif isinstance(cropping, (list, tuple)) and len(cropping) == 2:
            self.cropping = [_pair(c, "Cropping2D", "cropping") for c in cropping]
        else:
            raise LayersValueError(
                f"Cropping2D: cropping must be a non-negative integer, a pair of integers or a "
                f"pair of pairs, but got {cropping!r}"
            )
        self.data_format = check_data_format(
            "channelsLast" if data_format is None else data_format, "Cropping2D"
        )
        self.input_spec = [InputSpec(ndim=4)]

    def compute_output_shape(self, input_shape: Any) -> Any:
        s = get_exactly_one_shape(input_shape)
        (top, bottom), (left, right) = self.cropping

        def crop(dim: Any, a: int, b: int) -> Any:
            return None if dim is None else dim - a - b

        if self.data_format == "channelsFirst":
            return [s[0], s[1], crop(s[2], top, bottom), crop(s[3], left, right)]
        return [s[0], crop(s[1], top, bottom), crop(s[2], left, right), s[3]]

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        x = get_exactly_one_tensor(inputs)
        (top, bottom), (left, right) = self.cropping
        h_axis, w_axis = (2, 3) if self.data_format == "channelsFirst" else (1, 2)
        shape = x.shape
        h = shape[h_axis] - top - bottom
        w = shape[w_axis] - left - right
        if h < 0 or w < 0:
            raise LayersValueError(
                f"Cropping2D {self.name}: cropping {py_value(self.cropping)} is larger than the "
                f"input (shape {py_shape(shape)})."
            )
        begin = [0, 0, 0, 0]
        size = list(shape)
        begin[h_axis], size[h_axis] = top, h
        begin[w_axis], size[w_axis] = left, w
        return ops.slice(x, begin, size)

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {
            "cropping": [list(c) for c in self.cropping],
            "data_format": to_snake_case(self.data_format),
        }
        config.update(super().get_config())
        return config


@register_class
class UpSampling2D(Layer):
    """Repeats rows and columns ``size`` times (nearest) or resizes bilinearly.

    Args:
        size: ``[rows, cols]`` factors or one integer (default ``[2, 2]``).
        data_format: ``'channelsLast'`` (default) or ``'channelsFirst'``.
        interpolation: ``'nearest'`` (default) or ``'bilinear'``.
    """

    class_name = "UpSampling2D"
    DEFAULT_SIZE = (2, 2)

    def __init__(
        self,
        size: Any = None,
        data_format: str | None = None,
        interpolation: str | None = None,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        self.input_spec = [InputSpec(ndim=4)]
        self.size = normalize_array(
            list(self.DEFAULT_SIZE) if size is None else size, 2, "size", "UpSampling2D"
        )
        assert_positive_integer(self.size, "UpSampling2D size")
        self.data_format = check_data_format(
            "channelsLast" if data_format is None else data_format, "UpSampling2D"
        )
        self.interpolation = check_string_value(
            VALID_INTERPOLATION_FORMAT_VALUES,
            "InterpolationFormat",
            "nearest" if interpolation is None else interpolation,
            "UpSampling2D",
        )

    def compute_output_shape(self, input_shape: Any) -> Any:
        s = get_exactly_one_shape(input_shape)
        if self.data_format == "channelsFirst":
            h = None if s[2] is None else self.size[0] * s[2]
            w = None if s[3] is None else self.size[1] * s[3]
            return [s[0], s[1], h, w]
        h = None if s[1] is None else self.size[0] * s[1]
        w = None if s[2] is None else self.size[1] * s[2]
        return [s[0], h, w, s[3]]

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        x = preprocess_conv2d_input(get_exactly_one_tensor(inputs), self.data_format)
        size = [self.size[0] * x.shape[1], self.size[1] * x.shape[2]]
        if self.interpolation == "nearest":
            y = ops.image.resize_nearest_neighbor(x, size)
        else:
            y = ops.image.resize_bilinear(x, size)
        if self.data_format == "channelsFirst":
            y = ops.transpose(y, [0, 3, 1, 2])
        return y

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {
            "size": list(self.size),
            "data_format": to_snake_case(self.data_format),
            "interpolation": self.interpolation,
        }
        config.update(super().get_config())
        return config


# ------------------------------------------------------------------- tf.layers factories
def conv1d(filters: int | None = None, kernel_size: Any = None, **kwargs: Any) -> Conv1D:
    """A :class:`Conv1D` layer: ``tf.layers.conv1d(filters=8, kernel_size=3)``."""
    return Conv1D(filters, kernel_size, **kwargs)


def conv2d(filters: int | None = None, kernel_size: Any = None, **kwargs: Any) -> Conv2D:
    """A :class:`Conv2D` layer: ``tf.layers.conv2d(filters=8, kernel_size=3)``."""
    return Conv2D(filters, kernel_size, **kwargs)


def conv3d(filters: int | None = None, kernel_size: Any = None, **kwargs: Any) -> Conv3D:
    """A :class:`Conv3D` layer."""
    return Conv3D(filters, kernel_size, **kwargs)


def conv2d_transpose(
    filters: int | None = None, kernel_size: Any = None, **kwargs: Any
) -> Conv2DTranspose:
    """A :class:`Conv2DTranspose` layer."""
    return Conv2DTranspose(filters, kernel_size, **kwargs)


def conv3d_transpose(
    filters: int | None = None, kernel_size: Any = None, **kwargs: Any
) -> Conv3DTranspose:
    """A :class:`Conv3DTranspose` layer."""
    return Conv3DTranspose(filters, kernel_size, **kwargs)


def separable_conv2d(
    filters: int | None = None, kernel_size: Any = None, **kwargs: Any
) -> SeparableConv2D:
    """A :class:`SeparableConv2D` layer."""
    return SeparableConv2D(filters, kernel_size, **kwargs)


def cropping2d(cropping: Any = None, **kwargs: Any) -> Cropping2D:
    """A :class:`Cropping2D` layer (TF.js's ``tf.layers.cropping2D``)."""
    return Cropping2D(cropping, **kwargs)


def up_sampling2d(**kwargs: Any) -> UpSampling2D:
    """An :class:`UpSampling2D` layer (TF.js's ``tf.layers.upSampling2d``)."""
    return UpSampling2D(**kwargs)
