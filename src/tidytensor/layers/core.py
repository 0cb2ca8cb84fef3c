"""Core layers (TF.js's ``layers/core.ts``): Dense, Activation, Dropout, SpatialDropout1D,
Flatten, RepeatVector, Reshape, Permute, Masking — and their ``tf.layers`` factories.

>>> import tidytensor.layers as layers
>>> layers.flatten().apply(tf.zeros([2, 3, 4])).shape
[2, 12]
>>> layers.reshape(target_shape=[2, -1]).apply(tf.zeros([1, 6])).shape
[1, 2, 3]
"""

from __future__ import annotations

import math
from typing import Any

from .. import ops
from ..py_strings import py_shape, py_value
from ..tensor import Tensor
from . import backend as K
from .activations import get_activation, serialize_activation
from .constraints import get_constraint, serialize_constraint
from .engine.serialization import register_class
from .engine.topology import InputSpec, Layer
from .errors import LayersValueError
from .initializers import get_initializer, serialize_initializer
from .regularizers import get_regularizer, serialize_regularizer
from .utils import (
    array_prod,
    assert_positive_int,
    get_exactly_one_shape,
    get_exactly_one_tensor,
    to_snake_case,
)

__all__ = [
    "activation",
    "dense",
    "dropout",
    "flatten",
    "masking",
    "permute",
    "repeat_vector",
    "reshape",
    "spatial_dropout1d",
]

_FUSED_ACTIVATIONS = {"relu": "relu", "linear": "linear", "elu": "elu"}


@register_class
class Dropout(Layer):
    """Sets a fraction ``rate`` of the inputs to 0 while training (``training=True``), scaling
    the rest by ``1 / (1 - rate)``; the identity at inference.

    Args:
        rate: fraction to drop, clipped to [0, 1].
        noise_shape: shape of the dropout mask (``None`` entries take the input's size), to
            drop whole slices.
        seed: random seed.
    """

    class_name = "Dropout"

    def __init__(self, rate: float, noise_shape: Any = None, seed: Any = None, **kwargs: Any):
        super().__init__(**kwargs)
        if isinstance(rate, bool) or not isinstance(rate, (int, float)):
            raise LayersValueError(f"Dropout rate must be a number, but got {rate!r}")
        self.rate = max(min(rate, 1), 0)
        self.noise_shape = None if noise_shape is None else list(noise_shape)
        self.seed = seed
        self.supports_masking = True

    def _get_noise_shape(self, x: Tensor) -> Any:
        if self.noise_shape is None:
            return None
        shape = x.shape
        return [shape[i] if d is None else d for i, d in enumerate(self.noise_shape)]

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        self.invoke_call_hook(inputs, kwargs)
        x = get_exactly_one_tensor(inputs)
        if 0 < self.rate < 1:
            training = bool(kwargs.get("training") or False)
            noise_shape = self._get_noise_shape(x)
            return K.in_train_phase(
                lambda: K.dropout(x, self.rate, noise_shape, self.seed), lambda: x, training
            )
        return inputs

    def get_config(self) -> dict[str, Any]:
        config = {"rate": self.rate, "noise_shape": self.noise_shape, "seed": self.seed}
        config.update(super().get_config())
        return config


@register_class
class SpatialDropout1D(Dropout):
    """Dropout of whole channels of a ``[batch, steps, channels]`` input."""

    class_name = "SpatialDropout1D"

    def __init__(self, rate: float, seed: Any = None, **kwargs: Any):
        kwargs.pop("noise_shape", None)
        super().__init__(rate, seed=seed, **kwargs)
        self.input_spec = [InputSpec(ndim=3)]

    def _get_noise_shape(self, x: Tensor) -> Any:
        shape = x.shape
        return [shape[0], 1, shape[2]]


@register_class
class Dense(Layer):
    """``activation(dot(input, kernel) + bias)``: a densely connected layer.

    Args:
        units: output size (a positive integer).
        activation: name or :class:`~.activations.Activation` (default linear).
        use_bias: add a bias vector (default True).
        kernel_initializer: default ``'glorotNormal'`` (TF.js's default, not Keras's).
        bias_initializer: default ``'zeros'``.
        input_dim: size of the input's last dimension (instead of ``input_shape``).
        kernel_constraint, bias_constraint: constraints applied after each write.
        kernel_regularizer, bias_regularizer: add penalties to the layer's losses.
        activity_regularizer: not supported when the layer is called (as in TF.js).
    """

    class_name = "Dense"
    DEFAULT_KERNEL_INITIALIZER = "glorotNormal"
    DEFAULT_BIAS_INITIALIZER = "zeros"

    def __init__(
        self,
        units: int,
        activation: Any = None,
        use_bias: bool | None = None,
        kernel_initializer: Any = None,
        bias_initializer: Any = None,
        input_dim: int | None = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        if self.batch_input_shape is None and input_dim is not None:
            self.batch_input_shape = [kwargs.get("batch_size"), input_dim]
        self.units = assert_positive_int(units, "units")
        self.activation = get_activation(activation)
        self.use_bias = True if use_bias is None else bool(use_bias)
        self.kernel_initializer = get_initializer(
            kernel_initializer or self.DEFAULT_KERNEL_INITIALIZER
        )
        self.bias_initializer = get_initializer(bias_initializer or self.DEFAULT_BIAS_INITIALIZER)
        self.kernel_constraint = get_constraint(kernel_constraint)
        self.bias_constraint = get_constraint(bias_constraint)
        self.kernel_regularizer = get_regularizer(kernel_regularizer)
        self.bias_regularizer = get_regularizer(bias_regularizer)
        self.activity_regularizer = get_regularizer(activity_regularizer)
        self.supports_masking = True
        self.kernel = None
        self.bias = None
        self.input_spec = [InputSpec(min_ndim=2)]

    def build(self, input_shape: Any) -> None:
        input_shape = get_exactly_one_shape(input_shape)
        last = input_shape[-1]
        if last is None:
            raise LayersValueError(
                f"The last dimension of the input to Dense layer {self.name} must be known, but "
                f"got input shape {py_shape(input_shape)}."
            )
        if self.kernel is None:
            self.kernel = self.add_weight(
                "kernel",
                [last, self.units],
                None,
                self.kernel_initializer,
                self.kernel_regularizer,
                True,
                self.kernel_constraint,
            )
            if self.use_bias:
                self.bias = self.add_weight(
                    "bias",
                    [self.units],
                    None,
                    self.bias_initializer,
                    self.bias_regularizer,
                    True,
                    self.bias_constraint,
                )
        self.input_spec = [InputSpec(min_ndim=2, axes={-1: last})]
        self.built = True

    def compute_output_shape(self, input_shape: Any) -> Any:
        shape = list(get_exactly_one_shape(input_shape))
        shape[-1] = self.units
        return shape

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        self.invoke_call_hook(inputs, kwargs)
        x = get_exactly_one_tensor(inputs)
        fused = _FUSED_ACTIVATIONS.get(self.activation.get_class_name())
        kernel = self.kernel.read()
        bias = self.bias.read() if self.bias is not None else None
        # One TidyDense kernel where it may replace TF.js's ops (None: run those ops).
        out = K.fused_dense(x, kernel, bias, fused or "linear")
        if out is not None:
            return out if fused is not None else self.activation.apply(out)
        if fused is not None:
            return K.dot(x, kernel, fused, bias)
        out = K.dot(x, kernel)
        if bias is not None:
            out = K.bias_add(out, bias)
        return self.activation.apply(out)

    def get_config(self) -> dict[str, Any]:
        config = {
            "units": self.units,
            "activation": serialize_activation(self.activation),
            "use_bias": self.use_bias,
            "kernel_initializer": serialize_initializer(self.kernel_initializer),
            "bias_initializer": serialize_initializer(self.bias_initializer),
            "kernel_regularizer": serialize_regularizer(self.kernel_regularizer),
            "bias_regularizer": serialize_regularizer(self.bias_regularizer),
            "activity_regularizer": serialize_regularizer(self.activity_regularizer),
            "kernel_constraint": serialize_constraint(self.kernel_constraint),
            "bias_constraint": serialize_constraint(self.bias_constraint),
        }
        config.update(super().get_config())
        return config


@register_class
class Flatten(Layer):
    """Flattens each example: ``[batch, d1, d2, ...]`` → ``[batch, d1 * d2 * ...]``.

    Args:
        data_format: ``'channelsLast'`` (default) or ``'channelsFirst'`` (moves channels last
            first, so the order matches a channels-last model).
    """

    class_name = "Flatten"

    def __init__(self, data_format: str | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.input_spec = [InputSpec(min_ndim=3)]
        self.data_format = K.check_data_format(data_format)

    def compute_output_shape(self, input_shape: Any) -> Any:
        shape = get_exactly_one_shape(input_shape)
        for dim in shape[1:]:
            if dim is None:
                raise LayersValueError(
                    f'The shape of the input to "Flatten" is not fully defined (got '
                    f'{py_shape(shape[1:])}). Make sure to pass a complete "input_shape" or '
                    f'"batch_input_shape" argument to the first layer in your model.'
                )
        return [shape[0], array_prod(shape, 1)]

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        self.invoke_call_hook(inputs, kwargs)
        x = get_exactly_one_tensor(inputs)
        if self.data_format == "channelsFirst" and x.rank > 1:
            x = ops.transpose(x, [0, *range(2, x.rank), 1])
        return K.batch_flatten(x)

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {}
        if self.data_format is not None:
            config["data_format"] = to_snake_case(self.data_format)
        config.update(super().get_config())
        return config


@register_class
class Activation(Layer):
    """Applies an activation function element-wise.

    Args:
        activation: name (``'relu'``, ``'softmax'``...) or an Activation.
    """

    class_name = "Activation"

    def __init__(self, activation: Any, **kwargs: Any):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.activation = get_activation(activation)

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        self.invoke_call_hook(inputs, kwargs)
        return self.activation.apply(get_exactly_one_tensor(inputs))

    def get_config(self) -> dict[str, Any]:
        config = {"activation": serialize_activation(self.activation)}
        config.update(super().get_config())
        return config


@register_class
class RepeatVector(Layer):
    """Repeats each example ``n`` times: ``[batch, dim]`` → ``[batch, n, dim]``."""

    class_name = "RepeatVector"

    def __init__(self, n: int, **kwargs: Any):
        super().__init__(**kwargs)
        self.n = n
        self.input_spec = [InputSpec(ndim=2)]

    def compute_output_shape(self, input_shape: Any) -> Any:
        shape = get_exactly_one_shape(input_shape)
        return [shape[0], self.n, shape[1]]

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        return K.repeat(get_exactly_one_tensor(inputs), self.n)

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"n": self.n}
        config.update(super().get_config())
        return config


@register_class
class Reshape(Layer):
    """Reshapes each example to ``target_shape`` (one entry may be -1 or ``None``: inferred)."""

    class_name = "Reshape"

    def __init__(self, target_shape: Any, **kwargs: Any):
        super().__init__(**kwargs)
        if not isinstance(target_shape, (list, tuple)):
            raise LayersValueError(
                f"Reshape target_shape must be a list of dimensions, but got {target_shape!r}"
            )
        for d in target_shape:
            if d is not None and (
                isinstance(d, bool)
                or not isinstance(d, (int, float))
                or not math.isfinite(d)
                or not float(d).is_integer()
            ):
                raise LayersValueError(
                    "Reshape target_shape must be a list of integer dimensions (-1 or None: "
                    f"inferred), but got {py_shape(list(target_shape))}"
                )
        self.target_shape = [None if _unknown(d) else int(d) for d in target_shape]

    def _fix_unknown_dimension(self, input_shape: list, output_shape: list) -> list:
        final = list(output_shape)
        known = 1
        unknown = None
        for i, dim in enumerate(final):
            if _unknown(dim):
                if unknown is None:
                    unknown = i
                else:
                    raise LayersValueError(
                        f"Can only specify one unknown dimension. (layer {self.name}: "
                        f"target_shape {py_shape(output_shape)})"
                    )
            else:
                known *= dim
        original = array_prod(input_shape)
        if (unknown is not None and (known == 0 or original % known != 0)) or (
            unknown is None and original != known
        ):
            raise LayersValueError(
                f"Total size of new array must be unchanged. (layer {self.name}: cannot "
                f"reshape an example of shape {py_shape(input_shape)} into target_shape "
                f"{py_shape(output_shape)})"
            )
        if unknown is not None:
            final[unknown] = original // known
        return final

    def compute_output_shape(self, input_shape: Any) -> Any:
        shape = get_exactly_one_shape(input_shape)
        if any(_unknown(d) for d in shape):
            return shape[:1] + list(self.target_shape)
        return shape[:1] + self._fix_unknown_dimension(shape[1:], self.target_shape)

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        self.invoke_call_hook(inputs, kwargs)
        x = get_exactly_one_tensor(inputs)
        shape = x.shape
        return ops.reshape(x, shape[:1] + self._fix_unknown_dimension(shape[1:], self.target_shape))

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"target_shape": list(self.target_shape)}
        config.update(super().get_config())
        return config


def _unknown(dim: Any) -> bool:
    return dim is None or dim < 0


@register_class
class Permute(Layer):
    """Permutes the non-batch dimensions: ``dims`` is a permutation of ``1..rank-1``."""

    class_name = "Permute"

    def __init__(self, dims: Any = None, **kwargs: Any):
        super().__init__(**kwargs)
        if dims is None:
            raise LayersValueError(
                "Required configuration field `dims` is missing during Permute constructor call."
            )
        if not isinstance(dims, (list, tuple)):
            raise LayersValueError(
                f"Permute constructor requires `dims` to be an Array, but received {dims} instead."
            )
        numbers_only = all(isinstance(d, (int, float)) and not isinstance(d, bool) for d in dims)
        if not numbers_only or sorted(dims) != list(range(1, len(dims) + 1)):
            raise LayersValueError(
                f"Invalid permutation `dims`: {py_value(list(dims))} `dims` must contain "
                f"consecutive integers starting from 1."
            )
        self.dims = list(dims)
        self.dims_including_batch = [0, *self.dims]
        self.input_spec = [InputSpec(ndim=len(self.dims) + 1)]

    def compute_output_shape(self, input_shape: Any) -> Any:
        shape = get_exactly_one_shape(input_shape)
        out = list(shape)
        for i, dim in enumerate(self.dims):
            out[i + 1] = shape[dim]
        return out

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        return ops.transpose(get_exactly_one_tensor(inputs), self.dims_including_batch)

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"dims": list(self.dims)}
        config.update(super().get_config())
        return config


@register_class
class Masking(Layer):
    """Masks time steps whose features all equal ``mask_value`` (zeroing them), so that
    masking-aware downstream layers skip them."""

    class_name = "Masking"

    def __init__(self, mask_value: float | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.mask_value = 0 if mask_value is None else mask_value

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config = {"mask_value": self.mask_value, **config}
        return config

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        x = get_exactly_one_tensor(inputs)
        return ops.any(ops.not_equal(x, self.mask_value), -1)

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        self.invoke_call_hook(inputs, kwargs)
        x = get_exactly_one_tensor(inputs)
        boolean_mask = ops.any(ops.not_equal(x, self.mask_value), -1, True)
        return ops.mul(x, ops.cast(boolean_mask, x.dtype))


# ------------------------------------------------------------------- tf.layers factories
def dense(units: int, **kwargs: Any) -> Dense:
    """A :class:`Dense` layer: ``tf.layers.dense(units=3, activation='relu', input_shape=[4])``."""
    return Dense(units, **kwargs)


def activation(activation: Any, **kwargs: Any) -> Activation:  # noqa: F811
    """An :class:`Activation` layer."""
    return Activation(activation, **kwargs)


def dropout(rate: float, **kwargs: Any) -> Dropout:
    """A :class:`Dropout` layer."""
    return Dropout(rate, **kwargs)


def spatial_dropout1d(rate: float, **kwargs: Any) -> SpatialDropout1D:
    """A :class:`SpatialDropout1D` layer."""
    return SpatialDropout1D(rate, **kwargs)


def flatten(**kwargs: Any) -> Flatten:
    """A :class:`Flatten` layer."""
    return Flatten(**kwargs)


def repeat_vector(n: int, **kwargs: Any) -> RepeatVector:
    """A :class:`RepeatVector` layer."""
    return RepeatVector(n, **kwargs)


def reshape(target_shape: Any, **kwargs: Any) -> Reshape:
    """A :class:`Reshape` layer."""
    return Reshape(target_shape, **kwargs)


def permute(dims: Any, **kwargs: Any) -> Permute:
    """A :class:`Permute` layer."""
    return Permute(dims, **kwargs)


def masking(**kwargs: Any) -> Masking:
    """A :class:`Masking` layer."""
    return Masking(**kwargs)
