"""The Embedding layer (TF.js's ``layers/embeddings.ts``) and its factory ``embedding``.

>>> e = embedding(input_dim=3, output_dim=2, embeddings_initializer='ones')
>>> e.apply(tf.tensor2d([[0, 2]], None, 'int32')).shape
[1, 2, 2]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops
from ..errors import InvalidArgumentError, from_user_input
from ..py_strings import py_shape, py_value
from . import backend as K
from .constraints import get_constraint, serialize_constraint
from .engine.serialization import register_class
from .engine.topology import Layer
from .errors import LayersValueError
from .initializers import get_initializer, serialize_initializer
from .regularizers import get_regularizer, serialize_regularizer
from .utils import assert_positive_int, get_exactly_one_shape, get_exactly_one_tensor, to_list

__all__ = ["embedding"]


@register_class
class Embedding(Layer):
    """Maps integer indices in ``[0, input_dim)`` to dense vectors of size ``output_dim``:
    ``[batch, ...]`` → ``[batch, ..., output_dim]``.

    Args:
        input_dim: vocabulary size (required).
        output_dim: size of each vector (required).
        embeddings_initializer: default ``'randomUniform'``.
        embeddings_regularizer, activity_regularizer, embeddings_constraint.
        mask_zero: index 0 is padding: the layer outputs a mask (``x != 0``) for
            masking-aware layers downstream.
        input_length: the length(s) of the input sequences, when constant (needed before a
            Flatten layer). Without ``input_shape`` the layer's batch input shape is
            ``[batch_size, *input_length]`` (``[batch_size, None]`` without ``input_length``).
    """

    class_name = "Embedding"
    DEFAULT_EMBEDDINGS_INITIALIZER = "randomUniform"

    def __init__(
        self,
        input_dim: int | None = None,
        output_dim: int | None = None,
        embeddings_initializer: Any = None,
        embeddings_regularizer: Any = None,
        activity_regularizer: Any = None,
        embeddings_constraint: Any = None,
        mask_zero: bool | None = None,
        input_length: Any = None,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        if self.batch_input_shape is None:
            batch_size = kwargs.get("batch_size")
            if input_length is None:
                self.batch_input_shape = [batch_size, None]
            else:
                self.batch_input_shape = [batch_size, *to_list(input_length)]
        self.embeddings = None
        self.input_dim = assert_positive_int(input_dim, "Embedding input_dim")
        self.output_dim = assert_positive_int(output_dim, "Embedding output_dim")
        self.embeddings_initializer = get_initializer(
            embeddings_initializer or self.DEFAULT_EMBEDDINGS_INITIALIZER
        )
        self.embeddings_regularizer = get_regularizer(embeddings_regularizer)
        self.activity_regularizer = get_regularizer(activity_regularizer)
        self.embeddings_constraint = get_constraint(embeddings_constraint)
        self.mask_zero = mask_zero
        self.supports_masking = bool(mask_zero)
        self.input_length = input_length

    def build(self, input_shape: Any) -> None:
        self.embeddings = self.add_weight(
            "embeddings",
            [self.input_dim, self.output_dim],
            self.dtype,
            self.embeddings_initializer,
            self.embeddings_regularizer,
            True,
            self.embeddings_constraint,
        )
        self.built = True

    def warn_on_incompatible_input_shape(self, input_shape: Any) -> None:
        """Embedding inputs may differ from ``batch_input_shape`` (no warning, as in TF.js)."""

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if not self.mask_zero:
            return None
        x = get_exactly_one_tensor(inputs)
        return ops.not_equal(x, ops.zeros_like(x))

    def compute_output_shape(self, input_shape: Any) -> Any:
        input_shape = get_exactly_one_shape(input_shape)
        if self.input_length is None:
            return [*input_shape, self.output_dim]
        lengths = to_list(self.input_length)
        if len(lengths) != len(input_shape) - 1:
            raise LayersValueError(
                f'Embedding {self.name}: "input_length" is {py_value(self.input_length)}, '
                f"but received input shape has shape {py_shape(input_shape)}"
            )
        for k, (s1, s2) in enumerate(zip(lengths, input_shape[1:], strict=True)):
            if s1 is not None and s2 is not None and s1 != s2:
                raise LayersValueError(
                    f'Embedding {self.name}: "input_length" is '
                    f"{py_value(self.input_length)}, but received input shape has shape "
                    f"{py_shape(input_shape)}"
                )
            if s1 is None:
                lengths[k] = s2
        return [input_shape[0], *lengths, self.output_dim]

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        self.invoke_call_hook(inputs, kwargs)
        x = get_exactly_one_tensor(inputs)
        if x.dtype != "int32":
            x = K.cast(x, "int32")
        try:
            out = K.gather(self.embeddings.read(), ops.reshape(x, [x.size]))
        except InvalidArgumentError:
            error = self._index_error(x)
            if error is None:
                raise
            raise error from None
        return ops.reshape(out, get_exactly_one_shape(self.compute_output_shape(x.shape)))

    def _index_error(self, x: Any) -> InvalidArgumentError | None:
        """The gather kernel's out-of-range error, said of this layer and the user's input."""
        indices = np.asarray(x.numpy())
        bad = np.argwhere((indices < 0) | (indices >= self.input_dim))
        if not len(bad):
            return None
        where = tuple(int(i) for i in bad[0])
        value = int(indices[where])
        return from_user_input(
            InvalidArgumentError(
                f"Embedding layer '{self.name}': input index {value} at position "
                f"{list(where)} is out of range: input_dim is {self.input_dim}, so indices must "
                f"be in [0, {self.input_dim - 1}]"
            )
        )

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {
            "input_dim": self.input_dim,
            "output_dim": self.output_dim,
            "embeddings_initializer": serialize_initializer(self.embeddings_initializer),
            "embeddings_regularizer": serialize_regularizer(self.embeddings_regularizer),
            "activity_regularizer": serialize_regularizer(self.activity_regularizer),
            "embeddings_constraint": serialize_constraint(self.embeddings_constraint),
            "mask_zero": self.mask_zero,
            "input_length": self.input_length,
        }
        config.update(super().get_config())
        return config


def embedding(
    input_dim: int | None = None, output_dim: int | None = None, **kwargs: Any
) -> Embedding:
    """An :class:`Embedding` layer: ``tf.layers.embedding(input_dim=1000, output_dim=16)``."""
    return Embedding(input_dim, output_dim, **kwargs)
