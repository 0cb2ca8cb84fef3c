"""Normalization layers (TF.js's ``layers/normalization.ts``): BatchNormalization and
LayerNormalization, with their factories ``batch_normalization`` and ``layer_normalization``.

At inference (the default, and in ``predict``) BatchNormalization normalizes with its moving
mean and variance; with ``training=True`` it normalizes with the batch's moments and moves
the moving statistics towards them: ``moving -= (moving - batch_stat) * (1 - momentum)``.

>>> bn = batch_normalization(input_shape=[2])
>>> y = bn.apply(tf.tensor2d([[1, 2], [3, 6]]), training=True)
>>> [[round(v, 3) for v in row] for row in y.array_sync()]
[[-1.0, -1.0], [1.0, 1.0]]
>>> [round(v, 4) for v in bn.get_weights()[2].array_sync()]   # moving mean after one step
[0.02, 0.04]
"""

from __future__ import annotations

import numbers
from typing import Any

from .. import ops
from ..engine import ENGINE
from ..engine.atomic_update import current_value
from ..py_strings import py_shape
from .constraints import get_constraint, serialize_constraint
from .engine.serialization import register_class
from .engine.topology import InputSpec, Layer
from .errors import LayersNotImplementedError, LayersValueError
from .initializers import get_initializer, serialize_initializer
from .regularizers import get_regularizer, serialize_regularizer
from .utils import get_exactly_one_shape, get_exactly_one_tensor

__all__ = ["batch_normalization", "layer_normalization"]


def normalize(
    x: Any, mean: Any, variance: Any, beta: Any = None, gamma: Any = None, epsilon: float = 1e-3
) -> Any:
    """``gamma * (x - mean) / sqrt(variance + epsilon) + beta`` (TF.js's
    ``batchNormalization`` helper; ranks 2 to 5)."""
    if x.rank == 2:
        return ops.batch_norm2d(x, mean, variance, beta, gamma, epsilon)
    if x.rank == 3:
        return ops.batch_norm3d(x, mean, variance, beta, gamma, epsilon)
    if x.rank == 4:
        return ops.batch_norm4d(x, mean, variance, beta, gamma, epsilon)
    if x.rank == 5:
        return ops.batch_norm(x, mean, variance, beta, gamma, epsilon)
    raise LayersNotImplementedError(
        f"batch_normalization is not implemented for array of rank {x.rank} yet"
    )


def normalize_batch_in_training(
    x: Any, gamma: Any, beta: Any, reduction_axes: list[int], epsilon: float = 1e-3
) -> tuple[Any, Any, Any]:
    """``[normalized x, batch mean, batch variance]`` over ``reduction_axes``."""
    moments = ops.moments(x, reduction_axes)
    mean, variance = moments.mean, moments.variance
    if sorted(reduction_axes) == list(range(x.rank - 1)):
        normed = normalize(x, mean, variance, beta, gamma, epsilon)
        return normed, mean, variance
    target = [1 if axis in reduction_axes else x.shape[axis] for axis in range(x.rank)]
    normed = normalize(
        x,
        ops.reshape(mean, target),
        ops.reshape(variance, target),
        None if beta is None else ops.reshape(beta, target),
        None if gamma is None else ops.reshape(gamma, target),
        epsilon,
    )
    return normed, mean, variance


def _check_int(value: Any, who: str, arg: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise LayersValueError(f"{who}: expected {arg} to be an integer, but received {value!r}")


def _check_float(value: Any, who: str, arg: str) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise LayersValueError(f"{who}: expected {arg} to be a number, but received {value!r}")


@register_class
class BatchNormalization(Layer):
    """Normalizes each channel (``axis``) to zero mean and unit variance, then scales by
    ``gamma`` and shifts by ``beta``.

    Args:
        axis: the channels axis (default -1); a list of one axis (``[3]``, as Keras 2 saves
            it) is accepted too.
        momentum: of the moving mean and variance (default 0.99).
        epsilon: added to the variance (default 1e-3).
        center: learn ``beta`` (default True). scale: learn ``gamma`` (default True).
        beta_initializer: default ``'zeros'``. gamma_initializer: default ``'ones'``.
        moving_mean_initializer: default ``'zeros'``.
        moving_variance_initializer: default ``'ones'``.
        beta_constraint, gamma_constraint, beta_regularizer, gamma_regularizer.

    Weights, in order: ``gamma``, ``beta`` (trainable), ``moving_mean``, ``moving_variance``.
    """

    class_name = "BatchNormalization"

    def __init__(
        self,
        axis: int | None = None,
        momentum: float | None = None,
        epsilon: float | None = None,
        center: bool | None = None,
        scale: bool | None = None,
        beta_initializer: Any = None,
        gamma_initializer: Any = None,
        moving_mean_initializer: Any = None,
        moving_variance_initializer: Any = None,
        beta_constraint: Any = None,
        gamma_constraint: Any = None,
        beta_regularizer: Any = None,
        gamma_regularizer: Any = None,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        who = "BatchNormalization"
        self.supports_masking = True
        if isinstance(axis, (list, tuple)):  # Keras 2 writes [3] once the layer is built
            if len(axis) != 1:
                raise LayersValueError(
                    f"BatchNormalization: axis {list(axis)!r} normalizes over several axes; "
                    "only one channels axis is supported (an integer, or a list of one)"
                )
            axis = axis[0]
        self.axis = -1 if axis is None else axis
        _check_int(self.axis, who, "axis")
        self.momentum = 0.99 if momentum is None else momentum
        _check_float(self.momentum, who, "momentum")
        self.epsilon = 1e-3 if epsilon is None else epsilon
        _check_float(self.epsilon, who, "epsilon")
        self.center = True if center is None else bool(center)
        self.scale = True if scale is None else bool(scale)
        self.beta_initializer = get_initializer(beta_initializer or "zeros")
        self.gamma_initializer = get_initializer(gamma_initializer or "ones")
        self.moving_mean_initializer = get_initializer(moving_mean_initializer or "zeros")
        self.moving_variance_initializer = get_initializer(moving_variance_initializer or "ones")
        self.beta_constraint = get_constraint(beta_constraint)
        self.gamma_constraint = get_constraint(gamma_constraint)
        self.beta_regularizer = get_regularizer(beta_regularizer)
        self.gamma_regularizer = get_regularizer(gamma_regularizer)
        self.gamma = None
        self.beta = None
        self.moving_mean = None
        self.moving_variance = None

    def build(self, input_shape: Any) -> None:
        input_shape = get_exactly_one_shape(input_shape)
        ndim = len(input_shape)
        axis = self.axis if self.axis >= 0 else self.axis + ndim
        if not 0 <= axis < ndim:
            raise LayersValueError(
                f"BatchNormalization {self.name}: axis {self.axis} is out of range for an input "
                f"of shape {py_shape(input_shape)}."
            )
        dim = input_shape[axis]
        if dim is None:
            raise LayersValueError(
                f"Axis {axis} of input tensor should have a defined dimension but the layer "
                f"{self.name} received an input with shape {py_shape(input_shape)}."
            )
        self.input_spec = [InputSpec(ndim=ndim, axes={axis: dim})]
        shape = [dim]
        if self.scale:
            self.gamma = self.add_weight(
                "gamma",
                shape,
                None,
                self.gamma_initializer,
                self.gamma_regularizer,
                True,
                self.gamma_constraint,
            )
        if self.center:
            self.beta = self.add_weight(
                "beta",
                shape,
                None,
                self.beta_initializer,
                self.beta_regularizer,
                True,
                self.beta_constraint,
            )
        self.moving_mean = self.add_weight(
            "moving_mean", shape, None, self.moving_mean_initializer, None, False
        )
        self.moving_variance = self.add_weight(
            "moving_variance", shape, None, self.moving_variance_initializer, None, False
        )
        self.built = True

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        training = bool(kwargs.get("training") or False)
        x = get_exactly_one_tensor(inputs)
        shape = x.shape
        ndim = len(shape)
        if not 2 <= ndim <= 5:
            raise LayersNotImplementedError(
                f"BatchNormalization {self.name}: inputs of rank {ndim} are not supported "
                f"(ranks 2 to 5 are)."
            )
        axis = self.axis if self.axis >= 0 else self.axis + ndim
        reduction_axes = [i for i in range(ndim) if i != axis]
        broadcast_shape = [1] * ndim
        broadcast_shape[axis] = shape[axis]
        beta = self.beta.read() if self.beta is not None else None
        gamma = self.gamma.read() if self.gamma is not None else None

        if not training:
            mean = self.moving_mean.read()
            variance = self.moving_variance.read()
            if reduction_axes != list(range(ndim - 1)):
                mean = ops.reshape(mean, broadcast_shape)
                variance = ops.reshape(variance, broadcast_shape)
                beta = None if beta is None else ops.reshape(beta, broadcast_shape)
                gamma = None if gamma is None else ops.reshape(gamma, broadcast_shape)
            return normalize(x, mean, variance, beta, gamma, self.epsilon)

        normed, mean, variance = normalize_batch_in_training(
            x, gamma, beta, reduction_axes, self.epsilon
        )

        def moving_average(variable: Any, value: Any) -> None:
            def body() -> None:
                decay = 1 - self.momentum
                orig = current_value(variable.read())  # as this training step left it
                delta = ops.mul(ops.sub(orig, value), decay)
                variable.write(ops.sub(orig, delta))

            ENGINE.tidy(body)

        moving_average(self.moving_mean, mean)
        moving_average(self.moving_variance, variance)
        return normed

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {
            "axis": self.axis,
            "momentum": self.momentum,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            "beta_initializer": serialize_initializer(self.beta_initializer),
            "gamma_initializer": serialize_initializer(self.gamma_initializer),
            "moving_mean_initializer": serialize_initializer(self.moving_mean_initializer),
            "moving_variance_initializer": serialize_initializer(self.moving_variance_initializer),
            "beta_regularizer": serialize_regularizer(self.beta_regularizer),
            "gamma_regularizer": serialize_regularizer(self.gamma_regularizer),
            "beta_constraint": serialize_constraint(self.beta_constraint),
            "gamma_constraint": serialize_constraint(self.gamma_constraint),
        }
        config.update(super().get_config())
        return config


@register_class
class LayerNormalization(Layer):
    """Normalizes each example over ``axis`` (default the last) to zero mean and unit
    variance, then scales by ``gamma`` and shifts by ``beta`` (both of the normalized axes'
    shape).

    Args:
        axis: an axis or a list of axes (default -1). After the layer is built it holds the
            list of non-negative axes (as TF.js's config shows).
        epsilon: default 1e-3.
        center, scale: learn ``beta`` / ``gamma`` (default True).
        beta_initializer: default ``'zeros'``. gamma_initializer: default ``'ones'``.
        beta_regularizer, gamma_regularizer.
    """

    class_name = "LayerNormalization"

    def __init__(
        self,
        axis: Any = None,
        epsilon: float | None = None,
        center: bool | None = None,
        scale: bool | None = None,
        beta_initializer: Any = None,
        gamma_initializer: Any = None,
        beta_regularizer: Any = None,
        gamma_regularizer: Any = None,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        self.axis = -1 if axis is None else axis
        if isinstance(self.axis, (list, tuple)):
            for a in self.axis:
                if isinstance(a, bool) or not isinstance(a, int):
                    raise LayersValueError(
                        f"LayerNormalization: expected axis to be an array of integers, but "
                        f"received {list(self.axis)!r}"
                    )
            self.axis = list(self.axis)
        elif isinstance(self.axis, bool) or not isinstance(self.axis, int):
            raise LayersValueError(
                f"LayerNormalization: expected axis to be an integer or an array of integers, "
                f"but received {self.axis!r}"
            )
        self.epsilon = 1e-3 if epsilon is None else epsilon
        _check_float(self.epsilon, "LayerNormalization", "epsilon")
        self.center = True if center is None else bool(center)
        self.scale = True if scale is None else bool(scale)
        self.beta_initializer = get_initializer(beta_initializer or "zeros")
        self.gamma_initializer = get_initializer(gamma_initializer or "ones")
        self.beta_regularizer = get_regularizer(beta_regularizer)
        self.gamma_regularizer = get_regularizer(gamma_regularizer)
        self.supports_masking = True
        self.gamma = None
        self.beta = None

    def build(self, input_shape: Any) -> None:
        input_shape = get_exactly_one_shape(input_shape)
        ndim = len(input_shape)
        axes = [self.axis] if isinstance(self.axis, int) else list(self.axis)
        axes = [a + ndim if a < 0 else a for a in axes]
        for a in axes:
            if not 0 <= a < ndim:
                raise LayersValueError(
                    f"LayerNormalization {self.name}: invalid axis {a} for an input of shape "
                    f"{py_shape(input_shape)}"
                )
        if len(set(axes)) != len(axes):
            raise LayersValueError(
                f"LayerNormalization {self.name}: found duplicate axes in: {axes}"
            )
        self.axis = axes
        param_shape = [input_shape[a] for a in axes]
        if any(d is None for d in param_shape):
            raise LayersValueError(
                f"LayerNormalization {self.name}: the normalized axes {axes} of the input shape "
                f"{py_shape(input_shape)} must be known."
            )
        if self.scale:
            self.gamma = self.add_weight(
                "gamma",
                param_shape,
                "float32",
                self.gamma_initializer,
                self.gamma_regularizer,
                True,
            )
        if self.center:
            self.beta = self.add_weight(
                "beta",
                param_shape,
                "float32",
                self.beta_initializer,
                self.beta_regularizer,
                True,
            )
        self.built = True

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        x = get_exactly_one_tensor(inputs)
        shape = x.shape
        ndim = len(shape)
        moments = ops.moments(x, self.axis, True)
        mean, variance = moments.mean, moments.variance
        broadcast_shape = [1] * ndim
        for a in self.axis:
            broadcast_shape[a] = shape[a]

        def broadcast(v: Any) -> Any:
            if v is not None and v.rank != ndim:
                return ops.reshape(v, broadcast_shape)
            return v

        scale = broadcast(self.gamma.read()) if self.gamma is not None else None
        offset = broadcast(self.beta.read()) if self.beta is not None else None
        moments_tiling = [shape[i] if i in self.axis else 1 for i in range(ndim)]
        scale_offset_tiling = [1 if i in self.axis else shape[i] for i in range(ndim)]
        mean = ops.tile(mean, moments_tiling)
        variance = ops.tile(variance, moments_tiling)
        if scale is not None:
            scale = ops.tile(scale, scale_offset_tiling)
        if offset is not None:
            offset = ops.tile(offset, scale_offset_tiling)
        return normalize(x, mean, variance, offset, scale, self.epsilon)

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {
            "axis": list(self.axis) if isinstance(self.axis, list) else self.axis,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            "beta_initializer": serialize_initializer(self.beta_initializer),
            "gamma_initializer": serialize_initializer(self.gamma_initializer),
            "beta_regularizer": serialize_regularizer(self.beta_regularizer),
            "gamma_regularizer": serialize_regularizer(self.gamma_regularizer),
        }
        config.update(super().get_config())
        return config


# ------------------------------------------------------------------- tf.layers factories
def batch_normalization(**kwargs: Any) -> BatchNormalization:
    """A :class:`BatchNormalization` layer."""
    return BatchNormalization(**kwargs)


def layer_normalization(**kwargs: Any) -> LayerNormalization:
    """A :class:`LayerNormalization` layer."""
    return LayerNormalization(**kwargs)
