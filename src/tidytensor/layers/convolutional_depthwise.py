"""The DepthwiseConv2D layer (TF.js's ``layers/convolutional_depthwise.ts``) and its factory
``depthwise_conv2d``: each input channel is convolved with its own ``depth_multiplier``
filters.

>>> depthwise_conv2d(kernel_size=3, depth_multiplier=2).apply(tf.ones([1, 5, 5, 3])).shape
[1, 3, 3, 6]

Differences from TF.js 4.22 (bugs there, fixed here): ``dilation_rate`` is applied (TF.js
ignores it in ``call`` and in the output shape), and ``depthwise_constraint`` is serialized
(TF.js writes the regularizer under that key).
"""

from __future__ import annotations

from typing import Any

from .. import ops
from ..py_strings import py_shape
from . import backend as K
from .constraints import get_constraint, serialize_constraint
from .convolutional import BaseConv, conv_output_length, preprocess_conv2d_input
from .engine.serialization import register_class
from .engine.topology import InputSpec
from .errors import LayersValueError
from .initializers import get_initializer, serialize_initializer
from .regularizers import get_regularizer, serialize_regularizer
from .utils import assert_positive_integer, get_exactly_one_shape, get_exactly_one_tensor

__all__ = ["depthwise_conv2d"]


def _channel_dim(layer: Any, input_shape: list, channel_axis: int) -> int:
    dim = input_shape[channel_axis]
    if dim is None or dim < 0:
        raise LayersValueError(
            f"The channel dimension of the inputs to DepthwiseConv2D {layer.name} should be "
            f"defined, but is not ({dim}); input shape {py_shape(input_shape)}."
        )
    return dim


@register_class
class DepthwiseConv2D(BaseConv):
    """Depthwise 2D convolution: each input channel is convolved with its own
    ``depth_multiplier`` filters (output channels ``in * depth_multiplier``).

    Args:
        kernel_size: required.
        depth_multiplier: default 1.
        depthwise_initializer: default ``'glorotNormal'``.
        depthwise_constraint, depthwise_regularizer.
        (plus the :class:`BaseConv` arguments)
    """

    class_name = "DepthwiseConv2D"

    def __init__(
        self,
        kernel_size: Any = None,
        depth_multiplier: int | None = None,
        depthwise_initializer: Any = None,
        depthwise_constraint: Any = None,
        depthwise_regularizer: Any = None,
        **kwargs: Any,
    ):
        super().__init__(2, kernel_size, **kwargs)
        self.depthwise_kernel = None
        self.depth_multiplier = 1 if depth_multiplier is None else depth_multiplier
        assert_positive_integer(self.depth_multiplier, "DepthwiseConv2D depth_multiplier")
        self.depth_multiplier = int(self.depth_multiplier)
        self.depthwise_initializer = get_initializer(
            depthwise_initializer or self.DEFAULT_KERNEL_INITIALIZER
        )
        self.depthwise_constraint = get_constraint(depthwise_constraint)
        self.depthwise_regularizer = get_regularizer(depthwise_regularizer)

    def build(self, input_shape: Any) -> None:
        input_shape = get_exactly_one_shape(input_shape)
        if len(input_shape) < 4:
            raise LayersValueError(
                f"Inputs to DepthwiseConv2D {self.name} should have rank 4. Received input "
                f"shape: {py_shape(input_shape)}."
            )
        channel_axis = 1 if self.data_format == "channelsFirst" else 3
        input_dim = _channel_dim(self, input_shape, channel_axis)
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel",
            [*self.kernel_size, input_dim, self.depth_multiplier],
            None,
            self.depthwise_initializer,
            self.depthwise_regularizer,
            True,
            self.depthwise_constraint,
        )
        self._add_bias(input_dim * self.depth_multiplier)
        self.input_spec = [InputSpec(ndim=4, axes={channel_axis: input_dim})]
        self.built = True

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        x = preprocess_conv2d_input(get_exactly_one_tensor(inputs), self.data_format)
        y = ops.depthwise_conv2d(
            x,
            self.depthwise_kernel.read(),
            self.strides,
            self.padding,
            "NHWC",
            self.dilation_rate,
        )
        if self.data_format == "channelsFirst":
            y = ops.transpose(y, [0, 3, 1, 2])
        if self.bias is not None:
            y = K.bias_add(y, self.bias.read(), self.data_format)
        return self.activation.apply(y)

    def compute_output_shape(self, input_shape: Any) -> Any:
        input_shape = get_exactly_one_shape(input_shape)
        first = self.data_format == "channelsFirst"
        rows = input_shape[2] if first else input_shape[1]
        cols = input_shape[3] if first else input_shape[2]
        channels = input_shape[1] if first else input_shape[3]
        out_filters = None if channels is None else channels * self.depth_multiplier
        out_rows = conv_output_length(
            rows, self.kernel_size[0], self.padding, self.strides[0], self.dilation_rate[0]
        )
        out_cols = conv_output_length(
            cols, self.kernel_size[1], self.padding, self.strides[1], self.dilation_rate[1]
        )
        if first:
            return [input_shape[0], out_filters, out_rows, out_cols]
        return [input_shape[0], out_rows, out_cols, out_filters]

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["depth_multiplier"] = self.depth_multiplier
        config["depthwise_initializer"] = serialize_initializer(self.depthwise_initializer)
        config["depthwise_regularizer"] = serialize_regularizer(self.depthwise_regularizer)
        config["depthwise_constraint"] = serialize_constraint(self.depthwise_constraint)
        return config


def depthwise_conv2d(kernel_size: Any = None, **kwargs: Any) -> DepthwiseConv2D:
    """A :class:`DepthwiseConv2D` layer (TF.js's ``tf.layers.depthwiseConv2d``)."""
    return DepthwiseConv2D(kernel_size, **kwargs)
