"""Merge layers (TF.js's ``layers/merge.ts``): Add, Average, Concatenate, Maximum, Minimum,
Multiply, Dot — and their factories.

Each factory makes a layer (``tf.layers.add()``, as in TF.js); given a list of tensors or
symbolic tensors first it also applies a new layer to them (Keras's functional form):

>>> add([tf.tensor1d([1, 2]).reshape([1, 2]), tf.tensor2d([[10, 20]])]).array_sync()
[[11.0, 22.0]]
>>> concatenate(axis=-1).apply([tf.ones([1, 2]), tf.zeros([1, 1])]).array_sync()
[[1.0, 1.0, 0.0]]
"""

from __future__ import annotations

from functools import reduce
from typing import Any

from .. import ops
from ..py_strings import py_shape, py_value
from . import backend as K
from .engine.serialization import register_class
from .engine.topology import Layer
from .errors import LayersNotImplementedError, LayersValueError
from .utils import get_exactly_one_shape, is_array_of_shapes

__all__ = ["add", "average", "concatenate", "dot", "maximum", "minimum", "multiply"]


class Merge(Layer):
    """Base of the element-wise merge layers: inputs are broadcast against each other (after
    the batch axis) and combined by :meth:`merge_function` (not registered)."""

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.reshape_required = False

    def merge_function(self, inputs: list) -> Any:
        raise LayersNotImplementedError(f"{self.get_class_name()} has no merge function")

    def compute_elementwise_op_output_shape(self, shape1: Any, shape2: Any) -> Any:
        """The broadcast of two shapes without their batch axis (``None`` if unknown)."""
        if shape1 is None or shape2 is None:
            return None
        if len(shape1) < len(shape2):
            return self.compute_elementwise_op_output_shape(shape2, shape1)
        if len(shape2) == 0:
            return list(shape1)
        out = list(shape1[: len(shape1) - len(shape2)])
        for i, j in zip(shape1[len(shape1) - len(shape2) :], shape2, strict=True):
            if i is None or j is None or i < 0 or j < 0:
                out.append(None)
            elif i == 1:
                out.append(j)
            elif j == 1:
                out.append(i)
            else:
                if i != j:
                    raise LayersValueError(
                        f"{self.get_class_name()} {self.name}: operands could not be broadcast "
                        f"together with shapes {py_shape(list(shape1))} {py_shape(list(shape2))}"
                    )
                out.append(i)
        return out

    def _shapes(self, input_shape: Any) -> list:
        if isinstance(input_shape, (list, tuple)) and not is_array_of_shapes(input_shape):
            input_shape = [get_exactly_one_shape(input_shape)]
        if len(input_shape) < 2:
            raise LayersValueError(
                f"A merge layer should be called on an Array of at least 2 inputs. Got "
                f"{len(input_shape)} input(s). (layer {self.name})"
            )
        return [None if s is None else list(s) for s in input_shape]

    def _check_batch_sizes(self, shapes: list) -> list:
        sizes: list = []
        for s in shapes:
            if s is not None and s[0] is not None and s[0] not in sizes:
                sizes.append(s[0])
        if len(sizes) > 1:
            raise LayersValueError(
                f"Can not merge tensors with different batch sizes. Got tensors with shapes: "
                f"{py_shape(shapes)}. (layer {self.name})"
            )
        return sizes

    def _output_shape_without_batch(self, shapes: list) -> Any:
        """The inputs' shapes (batch dim dropped) broadcast together."""
        out = None if shapes[0] is None else shapes[0][1:]
        for s in shapes[1:]:
            out = self.compute_elementwise_op_output_shape(out, None if s is None else s[1:])
        return out

    def build(self, input_shape: Any) -> None:
        shapes = self._shapes(input_shape)
        self._check_batch_sizes(shapes)
        self._output_shape_without_batch(shapes)  # refuses shapes that do not broadcast
        ranks = {len(s) for s in shapes if s is not None}
        self.reshape_required = any(s is None for s in shapes) or len(ranks) != 1
        self.built = True

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        if not self.reshape_required:
            return self.merge_function(inputs)
        max_rank = max(x.rank for x in inputs)
        reshaped = []
        for x in inputs:
            for _ in range(max_rank - x.rank):
                x = K.expand_dims(x, 1)
            reshaped.append(x)
        return self.merge_function(reshaped)

    def compute_output_shape(self, input_shape: Any) -> Any:
        shapes = self._shapes(input_shape)
        out = self._output_shape_without_batch(shapes)
        sizes = self._check_batch_sizes(shapes)
        batch = sizes[0] if len(sizes) == 1 else None
        return [batch, *(out or [])]

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if mask is None:
            return None
        if not isinstance(mask, (list, tuple)):
            raise LayersValueError(f"{self.name}: `mask` should be an Array")
        if not isinstance(inputs, (list, tuple)):
            raise LayersValueError(f"{self.name}: `inputs` should be an Array")
        if len(mask) != len(inputs):
            raise LayersValueError(
                f"The Array 'inputs' and 'mask' are expected to have the same length, but have "
                f"different lengths ({len(inputs)} vs {len(mask)})"
            )
        present = [m for m in mask if m is not None]
        if not present:
            return None
        return reduce(ops.logical_and, present)


def _apply_or_make(cls: type, inputs: Any, kwargs: dict) -> Any:
    layer = cls(**kwargs)
    if inputs is None:
        return layer
    if not isinstance(inputs, (list, tuple)):
        raise LayersValueError(
            f"{cls.class_name}: the functional form expects a list of tensors, but got "
            f"{type(inputs).__name__}"
        )
    return layer.apply(list(inputs))


@register_class
class Add(Merge):
    """Element-wise sum of the inputs (broadcast against each other)."""

    class_name = "Add"

    def merge_function(self, inputs: list) -> Any:
        return reduce(ops.add, inputs[1:], ops.clone(inputs[0]))


@register_class
class Multiply(Merge):
    """Element-wise product of the inputs."""

    class_name = "Multiply"

    def merge_function(self, inputs: list) -> Any:
        return reduce(ops.mul, inputs[1:], ops.clone(inputs[0]))


@register_class
class Average(Merge):
    """Element-wise mean of the inputs."""

    class_name = "Average"

    def merge_function(self, inputs: list) -> Any:
        return ops.mul(1 / len(inputs), reduce(ops.add, inputs[1:], ops.clone(inputs[0])))


@register_class
class Maximum(Merge):
    """Element-wise maximum of the inputs."""

    class_name = "Maximum"

    def merge_function(self, inputs: list) -> Any:
        return reduce(ops.maximum, inputs)


@register_class
class Minimum(Merge):
    """Element-wise minimum of the inputs."""

    class_name = "Minimum"

    def merge_function(self, inputs: list) -> Any:
        return reduce(ops.minimum, inputs)


@register_class
class Concatenate(Merge):
    """Concatenates the inputs along ``axis`` (default -1); the other axes must match.

    Args:
        axis: the concatenation axis.
    """

    class_name = "Concatenate"
    DEFAULT_AXIS = -1

    def __init__(self, axis: int | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.axis = self.DEFAULT_AXIS if axis is None else axis
        if isinstance(self.axis, bool) or not isinstance(self.axis, int):
            raise LayersValueError(f"Concatenate: axis must be an integer, but got {axis!r}")
        self.supports_masking = True
        self.reshape_required = False

    def build(self, input_shape: Any) -> None:
        if not is_array_of_shapes(input_shape) or len(input_shape) == 1:
            raise LayersValueError(
                f"A `Concatenate` layer should be called on a list of at least 2 inputs "
                f"(layer {self.name})"
            )
        if all(s is None for s in input_shape):
            self.built = True
            return
        reduced: list = []
        for s in input_shape:
            s = list(s)
            if not -len(s) <= self.axis < len(s):
                raise LayersValueError(
                    f"Concatenate {self.name}: axis {self.axis} is out of range for input shape "
                    f"{py_shape(s)}"
                )
            del s[self.axis]
            if s not in reduced:
                reduced.append(s)
        if len(reduced) > 1:
            raise LayersValueError(
                f"A `Concatenate` layer requires inputs with matching shapes except for the "
                f"concat axis. Got input shapes: {py_shape([list(s) for s in input_shape])} "
                f"(layer {self.name})"
            )
        self.built = True

    def merge_function(self, inputs: list) -> Any:
        return K.concatenate(inputs, self.axis)

    def compute_output_shape(self, input_shape: Any) -> Any:
        if not is_array_of_shapes(input_shape):
            raise LayersValueError(
                f"A `Concatenate` layer should be called on a list of inputs (layer {self.name})."
            )
        out = list(input_shape[0])
        axis = self.axis + len(out) if self.axis < 0 else self.axis
        for s in input_shape[1:]:
            if out[axis] is None or s[axis] is None:
                out[axis] = None
                break
            out[axis] += s[axis]
        return out

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if mask is None:
            return None
        if not isinstance(mask, (list, tuple)):
            raise LayersValueError("`mask` should be an array for Concatenate")
        if not isinstance(inputs, (list, tuple)):
            raise LayersValueError("`inputs` should be an array for Concatenate")
        if len(mask) != len(inputs):
            raise LayersValueError(
                f"Mismatch in the length of mask ({len(mask)}) and the length of inputs "
                f"({len(inputs)})"
            )
        if all(m is None for m in mask):
            return None
        masks = []
        for x, m in zip(inputs, mask, strict=True):
            if m is None:
                masks.append(ops.cast(ops.ones_like(x), "bool"))
            elif m.rank < x.rank:
                masks.append(ops.expand_dims(m, -1))
            else:
                masks.append(m)
        return ops.all(ops.concat(masks, self.axis), -1, False)

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"axis": self.axis}
        config.update(super().get_config())
        return config


def _interpret_axis(axis: int, dim: int) -> int:
    while axis < 0:
        axis += dim
    return axis


def l2_normalize(x: Any, axis: int) -> Any:
    """``x / sqrt(max(sum(x^2, axis), epsilon))`` (TF.js's ``losses.l2Normalize``)."""
    if x.dtype != "float32":
        x = ops.cast(x, "float32")
    square_sum = ops.sum(K.square(x), axis, True)
    eps = ops.fill(square_sum.shape, K.epsilon())
    norm = ops.sqrt(ops.maximum(square_sum, eps))
    return ops.div(x, norm)


def batch_dot(x: Any, y: Any, axes: Any) -> Any:
    """Batched dot product of rank-2 or rank-3 tensors along ``axes`` (Keras's
    ``batch_dot``)."""
    if x.rank > 3 or y.rank > 3:
        raise LayersNotImplementedError(
            "batch_dot is not implemented for tensors of 4D or higher rank yet"
        )
    if x.rank < 2 or y.rank < 2:
        raise LayersValueError(
            f"batch_dot requires the ranks of x and y to be >= 2, but got {x.rank} and {y.rank}"
        )
    if isinstance(axes, int):
        axes = [axes, axes]
    x_ndim, y_ndim = x.rank, y.rank
    if axes is None:
        axes = [x_ndim - 1, y_ndim - 2]
    diff = 0
    if x_ndim > y_ndim:
        diff = x_ndim - y_ndim
        y = ops.reshape(y, y.shape + [1] * diff)
    elif y_ndim > x_ndim:
        diff = y_ndim - x_ndim
        x = ops.reshape(x, x.shape + [1] * diff)
    if x.rank == 2 and y.rank == 2:
        if axes[0] == axes[1]:
            out = ops.sum(ops.mul(x, y), axes[0])
        else:
            out = ops.sum(ops.mul(ops.transpose(x, [1, 0]), y), axes[1])
    else:
        adj_x = axes[0] != x.rank - 1
        adj_y = axes[1] == y.rank - 1
        out = ops.mat_mul(x, y, adj_x, adj_y)
    if diff > 0:
        idx = x_ndim + y_ndim - 3 if x_ndim > y_ndim else x_ndim - 1
        out = ops.squeeze(out, list(range(idx, idx + diff)))
    if out.rank == 1:
        out = ops.expand_dims(out, 1)
    return out


@register_class
class Dot(Merge):
    """Dot product of two inputs (ranks 2 or 3) along ``axes``, per example.

    Args:
        axes: one axis for both inputs, or ``[axis_of_first, axis_of_second]`` (required;
            negative values count from the end).
        normalize: L2-normalize both inputs along ``axes`` first (cosine proximity).
    """

    class_name = "Dot"

    def __init__(self, axes: Any = None, normalize: bool | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        if axes is None:
            raise LayersValueError("Dot: required argument axes is missing.")
        items = axes if isinstance(axes, (list, tuple)) else [axes]
        if (isinstance(axes, (list, tuple)) and len(axes) != 2) or any(
            isinstance(a, bool) or not isinstance(a, int) for a in items
        ):
            raise LayersValueError(
                f"Dot: axes must be an integer or a list of two integers, but got {axes!r}"
            )
        self.axes = list(axes) if isinstance(axes, (list, tuple)) else axes
        self.normalize = False if normalize is None else bool(normalize)
        self.supports_masking = True
        self.reshape_required = False

    def _check_two(self, input_shape: Any) -> tuple[list, list]:
        if not (
            isinstance(input_shape, (list, tuple))
            and len(input_shape) == 2
            and is_array_of_shapes(input_shape)
        ):
            raise LayersValueError(
                f"A `Dot` layer should be called on a list of exactly 2 inputs (layer {self.name})."
            )
        shape1, shape2 = list(input_shape[0]), list(input_shape[1])
        if len(shape1) > 3 or len(shape2) > 3:
            raise LayersNotImplementedError(
                "Dot layer does not support tensors of 4D or higher rank yet."
            )
        return shape1, shape2

    def _interpret_axes(self, shape1: list, shape2: list) -> list[int]:
        if isinstance(self.axes, list):
            return [
                _interpret_axis(self.axes[0], len(shape1)),
                _interpret_axis(self.axes[1], len(shape2)),
            ]
        return [_interpret_axis(self.axes, len(shape1)), _interpret_axis(self.axes, len(shape2))]

    def build(self, input_shape: Any) -> None:
        shape1, shape2 = self._check_two(input_shape)
        axes = self._interpret_axes(shape1, shape2)
        if not (axes[0] < len(shape1) and axes[1] < len(shape2)):
            raise LayersValueError(
                f"Dot {self.name}: axes {py_value(self.axes)} are out of range for input shapes "
                f"{py_shape(shape1)} and {py_shape(shape2)}"
            )
        if shape1[axes[0]] != shape2[axes[1]]:
            raise LayersValueError(
                f"Dimension incompatibility: {shape1[axes[0]]} !== {shape2[axes[1]]} (layer "
                f"{self.name}, input shapes {py_shape(shape1)} and {py_shape(shape2)})"
            )
        self.built = True

    def merge_function(self, inputs: list) -> Any:
        if len(inputs) != 2:
            raise LayersValueError(
                f"A `Dot` layer must be called on exactly 2 inputs, but received {len(inputs)} "
                f"input(s)."
            )
        x1, x2 = inputs
        axes = self._interpret_axes(x1.shape, x2.shape)
        if self.normalize:
            x1 = l2_normalize(x1, axes[0])
            x2 = l2_normalize(x2, axes[1])
        return batch_dot(x1, x2, axes)

    def compute_output_shape(self, input_shape: Any) -> Any:
        shape1, shape2 = self._check_two(input_shape)
        axes = self._interpret_axes(shape1, shape2)
        del shape1[axes[0]]
        del shape2[axes[1]]
        del shape2[0]
        out = shape1 + shape2
        if len(out) == 1:
            out.append(1)
        return out

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        return None

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"axes": self.axes, "normalize": self.normalize}
        config.update(super().get_config())
        return config


# ------------------------------------------------------------------- tf.layers factories
def add(inputs: Any = None, **kwargs: Any) -> Any:
    """An :class:`Add` layer; given a list of (symbolic) tensors, the sum of them."""
    return _apply_or_make(Add, inputs, kwargs)


def average(inputs: Any = None, **kwargs: Any) -> Any:
    """An :class:`Average` layer; given a list of (symbolic) tensors, their mean."""
    return _apply_or_make(Average, inputs, kwargs)


def concatenate(inputs: Any = None, **kwargs: Any) -> Any:
    """A :class:`Concatenate` layer; given a list of (symbolic) tensors, their
    concatenation."""
    return _apply_or_make(Concatenate, inputs, kwargs)


def maximum(inputs: Any = None, **kwargs: Any) -> Any:
    """A :class:`Maximum` layer; given a list of (symbolic) tensors, their maximum."""
    return _apply_or_make(Maximum, inputs, kwargs)


def minimum(inputs: Any = None, **kwargs: Any) -> Any:
    """A :class:`Minimum` layer; given a list of (symbolic) tensors, their minimum."""
    return _apply_or_make(Minimum, inputs, kwargs)


def multiply(inputs: Any = None, **kwargs: Any) -> Any:
    """A :class:`Multiply` layer; given a list of (symbolic) tensors, their product."""
    return _apply_or_make(Multiply, inputs, kwargs)


def dot(inputs: Any = None, **kwargs: Any) -> Any:
    """A :class:`Dot` layer (``axes`` required); given a list of two (symbolic) tensors,
    their dot product."""
    return _apply_or_make(Dot, inputs, kwargs)
