"""Convolutional recurrent layers (TF.js's ``layers/convolutional_recurrent.ts``): ConvLSTM2D,
ConvLSTM2DCell — and their ``tf.layers`` factories.

An LSTM whose input and recurrent transformations are 2-D convolutions: inputs are
``[batch, time, rows, cols, channels]`` (``channelsLast``) and the states are images.

>>> conv = conv_lstm2d(filters=2, kernel_size=3, padding='same', input_shape=[4, 5, 5, 1])
>>> conv.apply(tf.ones([1, 4, 5, 5, 1])).shape
[1, 5, 5, 2]

It runs TF.js's per-step loop (eight convolutions per step), with TF.js's defaults: kernels
``glorotNormal``, recurrent kernels ``orthogonal``, ``hardSigmoid`` recurrent activation.
"""

from __future__ import annotations

from typing import Any

from .. import ops
from ..engine import ENGINE
from ..scopes import dispose
from ..tensor import Tensor
from . import backend as K
from .convolutional import (
    check_data_format,
    check_padding_mode,
    conv_output_length,
    normalize_array,
)
from .engine.serialization import register_class
from .engine.topology import InputSpec
from .errors import LayersNotImplementedError, LayersValueError
from .recurrent import RNN, LSTMCell, _make_cell, from_cell_config
from .utils import assert_positive_integer, get_exactly_one_shape, to_snake_case

__all__ = ["conv_lstm2d", "conv_lstm2d_cell"]


@register_class
class ConvLSTM2DCell(LSTMCell):
    """One ConvLSTM2D step: the LSTM gates from ``conv2d(x, kernel_g) + conv2d(h,
    recurrent_kernel_g, 'same') + bias_g``.

    Args:
        filters: number of output channels (the states' channels).
        kernel_size: an int or ``[rows, cols]``.
        strides: an int or ``[rows, cols]`` (input convolutions only; default 1).
        padding: ``'valid'`` (default) or ``'same'`` (input convolutions; the recurrent ones
            are always ``'same'``).
        data_format: ``'channelsLast'`` (default) or ``'channelsFirst'``.
        dilation_rate: an int or ``[rows, cols]`` (default 1).
        The rest as :class:`~.recurrent.LSTMCell` (``units`` is ``filters``).
    """

    class_name = "ConvLSTM2DCell"

    def __init__(
        self,
        filters: int,
        kernel_size: Any = None,
        strides: Any = None,
        padding: str | None = None,
        data_format: str | None = None,
        dilation_rate: Any = None,
        **kwargs: Any,
    ):
        kwargs.pop("units", None)
        assert_positive_integer(filters, "filters")
        super().__init__(filters, **kwargs)
        who = "ConvLSTM2DCell"
        self.filters = filters
        if kernel_size is None:
            raise LayersValueError(f"{who}: the kernel_size argument is required.")
        self.kernel_size = normalize_array(kernel_size, 2, "kernelSize", who)
        for size in self.kernel_size:
            assert_positive_integer(size, "kernelSize")
        self.strides = normalize_array(strides or 1, 2, "strides", who)
        for stride in self.strides:
            assert_positive_integer(stride, "strides")
        self.padding = check_padding_mode(padding or "valid", who)
        self.data_format = check_data_format(data_format or "channelsLast", who)
        self.dilation_rate = normalize_array(dilation_rate or 1, 2, "dilationRate", who)
        for rate in self.dilation_rate:
            assert_positive_integer(rate, "dilationRate")

    def build(self, input_shape: Any) -> None:
        input_shape = get_exactly_one_shape(input_shape)
        channel_axis = 1 if self.data_format == "channelsFirst" else len(input_shape) - 1
        if input_shape[channel_axis] is None:
            raise LayersValueError(
                f"The channel dimension of the input should be defined. Found "
                f"{input_shape[channel_axis]}"
            )
        input_dim = input_shape[channel_axis]
        self._add_cell_weights(
            [*self.kernel_size, input_dim, self.filters * 4],
            [*self.kernel_size, self.filters, self.filters * 4],
            [self.filters * 4],
        )

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        def body() -> list[Tensor]:
            if len(inputs) != 3:
                raise LayersValueError(
                    f"ConvLSTM2DCell expects 3 input Tensors (inputs, h, c), got {len(inputs)}."
                )
            training = bool(kwargs.get("training") or False)
            x, h_prev, c_prev = inputs[0], inputs[1], inputs[2]
            self._dropout_masks(x, h_prev, training, 4)

            def with_dropout(t: Tensor, mask: Any, index: int) -> Tensor:
                if not mask or mask[index] is None:
                    return t
                return ops.mul(mask[index], t)

            xs = [with_dropout(x, self.dropout_mask, g) for g in range(4)]
            hs = [with_dropout(h_prev, self.recurrent_dropout_mask, g) for g in range(4)]
            kernels = ops.split(self.kernel.read(), 4, 3)
            biases = ops.split(self.bias.read(), 4) if self.use_bias else [None] * 4
            xs = [
                self.input_conv(xg, k, b, self.padding)
                for xg, k, b in zip(xs, kernels, biases, strict=True)
            ]
            recurrent = ops.split(self.recurrent_kernel.read(), 4, 3)
            hs = [self.recurrent_conv(hg, k) for hg, k in zip(hs, recurrent, strict=True)]
            i = self.recurrent_activation.apply(ops.add(xs[0], hs[0]))
            f = self.recurrent_activation.apply(ops.add(xs[1], hs[1]))
            c = ops.add(
                ops.mul(f, c_prev), ops.mul(i, self.activation.apply(ops.add(xs[2], hs[2])))
            )
            h = ops.mul(
                self.recurrent_activation.apply(ops.add(xs[3], hs[3])), self.activation.apply(c)
            )
            return [h, h, c]

        return ENGINE.tidy(body)

    def _format(self) -> str:
        return "NCHW" if self.data_format == "channelsFirst" else "NHWC"

    def input_conv(self, x: Tensor, w: Tensor, b: Tensor | None, padding: str | None) -> Tensor:
        out = ops.conv2d(x, w, self.strides, padding or "valid", self._format(), self.dilation_rate)
        if b is not None:
            return K.bias_add(out, b, self.data_format)
        return out

    def recurrent_conv(self, x: Tensor, w: Tensor) -> Tensor:
        return ops.conv2d(x, w, 1, "same", self._format())

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.pop("units", None)
        config.update(
            {
                "filters": self.filters,
                "kernel_size": list(self.kernel_size),
                "padding": self.padding,
                "data_format": to_snake_case(self.data_format),
                "dilation_rate": list(self.dilation_rate),
                "strides": list(self.strides),
            }
        )
        return config


class ConvRNN2D(RNN):
    """Base class of convolutional recurrent layers (inputs of rank 5)."""

    class_name = "ConvRNN2D"

    def __init__(self, cell: Any = None, **kwargs: Any):
        if kwargs.get("unroll"):
            raise LayersNotImplementedError("Unrolling is not possible with convolutional RNNs.")
        if isinstance(cell, (list, tuple)):
            raise LayersNotImplementedError(
                "It is not possible at the moment to stack convolutional cells."
            )
        super().__init__(cell, **kwargs)
        self.input_spec = [InputSpec(ndim=5)]

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        def body() -> Any:
            for attr in ("dropout_mask", "recurrent_dropout_mask"):
                if getattr(self.cell, attr) is not None:
                    dispose(getattr(self.cell, attr))
                    setattr(self.cell, attr, None)
            if kwargs.get("constants"):
                raise LayersValueError("ConvRNN2D cell does not support constants")
            return super(ConvRNN2D, self).call(
                inputs,
                mask=kwargs.get("mask"),
                training=kwargs.get("training"),
                initial_state=kwargs.get("initial_state", kwargs.get("initialState")),
            )

        return ENGINE.tidy(body)

    def compute_output_shape(self, input_shape: Any) -> Any:
        if input_shape and isinstance(input_shape[0], (list, tuple)):
            input_shape = input_shape[0]
        out_shape = self.compute_single_output_shape(input_shape)
        if not self.return_sequences:
            out_shape = [out_shape[0], *out_shape[2:]]
        if self.return_state:
            state = [input_shape[0], *out_shape[-3:]]
            return [out_shape, state, list(state)]
        return out_shape

    def get_initial_state(self, inputs: Tensor) -> list[Tensor]:
        def body() -> list[Tensor]:
            output_shape = self.compute_single_output_shape(list(inputs.shape))
            state = ops.zeros([output_shape[0], *output_shape[2:]])
            size = self.cell.state_size
            return [state] * len(size) if isinstance(size, (list, tuple)) else [state]

        return ENGINE.tidy(body)

    def _state_shape(self, index: int, batch_size: int) -> list[int]:
        output_shape = self.compute_single_output_shape(self.input_spec[0].shape)
        return [output_shape[0], *output_shape[2:]]

    def compute_single_output_shape(self, input_shape: Any) -> list[Any]:
        cell = self.cell
        channels_first = cell.data_format == "channelsFirst"
        h = input_shape[3 if channels_first else 2]
        w = input_shape[4 if channels_first else 3]
        h_out = conv_output_length(
            h, cell.kernel_size[0], cell.padding, cell.strides[0], cell.dilation_rate[0]
        )
        w_out = conv_output_length(
            w, cell.kernel_size[1], cell.padding, cell.strides[1], cell.dilation_rate[1]
        )
        spatial = [cell.filters, h_out, w_out] if channels_first else [h_out, w_out, cell.filters]
        return [*input_shape[:2], *spatial]


_CONV_ATTRIBUTES = frozenset(
    {
        "filters",
        "kernel_size",
        "strides",
        "padding",
        "data_format",
        "dilation_rate",
        "activation",
        "recurrent_activation",
        "use_bias",
        "kernel_initializer",
        "recurrent_initializer",
        "bias_initializer",
        "unit_forget_bias",
        "kernel_regularizer",
        "recurrent_regularizer",
        "bias_regularizer",
        "kernel_constraint",
        "recurrent_constraint",
        "bias_constraint",
        "dropout",
        "recurrent_dropout",
        "implementation",
    }
)


@register_class
class ConvLSTM2D(ConvRNN2D):
    """A convolutional LSTM layer over ``[batch, time, rows, cols, channels]``; arguments as
    :class:`ConvLSTM2DCell` and :class:`~.recurrent.RNN`."""

    class_name = "ConvLSTM2D"

    def __init__(self, filters: int, **kwargs: Any):
        cell, rest = _make_cell(type(self), ConvLSTM2DCell, filters, dict(kwargs))
        super().__init__(cell, **rest)

    @classmethod
    def from_config(
        cls,
        config: dict[str, Any],
        custom_objects: dict[str, Any] | None = None,
        fast_weight_init: bool = False,
    ) -> Any:
        return from_cell_config(cls, ConvLSTM2DCell, config)

    def __getattr__(self, name: str) -> Any:
        if name in _CONV_ATTRIBUTES:
            cell = self.__dict__.get("cell")
            if cell is not None:
                return getattr(cell, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


# ======================================================================= factories
def conv_lstm2d(filters: int, **kwargs: Any) -> ConvLSTM2D:
    """A :class:`ConvLSTM2D` layer:
    ``tf.layers.conv_lstm2d(filters=8, kernel_size=3, padding='same', input_shape=[10, 32, 32, 1])``."""
    return ConvLSTM2D(filters, **kwargs)


def conv_lstm2d_cell(filters: int, **kwargs: Any) -> ConvLSTM2DCell:
    """A :class:`ConvLSTM2DCell` (for :func:`~.recurrent.rnn`)."""
    return ConvLSTM2DCell(filters, **kwargs)
