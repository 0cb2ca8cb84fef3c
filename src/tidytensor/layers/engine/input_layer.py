"""``InputLayer`` and ``tf.input`` (TF.js's ``engine/input_layer.ts``).

``tf.input(shape=[4])`` makes an :class:`InputLayer` (named ``input1``, ``input2``...) and
returns its output, a :class:`~.base.SymbolicTensor` of shape ``[None, 4]``: the starting point
of a functional model.

>>> x = input(shape=[4], name='pixels')
>>> x.shape, x.name, x.source_layer.get_class_name()
([None, 4], 'pixels', 'InputLayer')
"""

from __future__ import annotations

from typing import Any

from ..errors import LayersValueError
from .serialization import register_class
from .state import get_uid
from .topology import DisposeResult, Layer, Node, SymbolicTensor, _shape_list

__all__ = ["InputLayer", "input", "input_layer"]


@register_class
class InputLayer(Layer):
    """The entry point of a model: holds the input's shape and dtype; cannot be applied.

    Args:
        input_shape: shape of one example (no batch dimension).
        batch_size: batch dimension put in front of ``input_shape``.
        batch_input_shape: full shape, batch dimension included (instead of ``input_shape``).
        dtype: default ``'float32'``.
        sparse: kept for Keras compatibility (always dense here).
        name: default ``input<N>``.
    """

    class_name = "InputLayer"

    def __init__(
        self,
        input_shape: Any = None,
        batch_size: int | None = None,
        batch_input_shape: Any = None,
        dtype: str | None = None,
        sparse: bool | None = None,
        name: str | None = None,
    ):
        super().__init__(dtype=dtype, name=name if name is not None else get_uid("input"))
        self.trainable = False
        self.built = True
        self.sparse = bool(sparse) if sparse is not None else False
        if input_shape is not None and batch_input_shape is not None:
            raise LayersValueError(
                "Only provide the input_shape OR batch_input_shape argument to input_layer, not "
                "both at the same time."
            )
        if batch_input_shape is None:
            if input_shape is None:
                raise LayersValueError(
                    "An InputLayer should be passed either a `batch_input_shape` or an "
                    "`input_shape`."
                )
            batch_input_shape = [batch_size] + _shape_list(input_shape, "input_shape")
        elif batch_size is not None:
            raise LayersValueError(
                "Cannot specify batch_size if batch_input_shape is specified when creating an "
                "InputLayer."
            )
        self.batch_input_shape = _shape_list(batch_input_shape, "batch_input_shape")
        self.dtype = dtype or "float32"
        self.input_spec = [{"shape": self.batch_input_shape}]
        tensor = SymbolicTensor(self.dtype, self.batch_input_shape, self, [], {}, self.name)
        tensor.node_index = 0
        tensor.tensor_index = 0
        Node(
            outbound_layer=self,
            inbound_layers=[],
            node_indices=[],
            tensor_indices=[],
            input_tensors=[tensor],
            output_tensors=[tensor],
            input_masks=[None],
            output_masks=[None],
            input_shapes=[self.batch_input_shape],
            output_shapes=[self.batch_input_shape],
        )

    def apply(self, inputs: Any, kwargs: Any = None, **more: Any) -> Any:
        raise LayersValueError(
            f"Cannot pass any input to an InputLayer's apply() method. InputLayer name: {self.name}"
        )

    def dispose(self) -> DisposeResult:
        return DisposeResult(self._ref_count, 0)

    def get_config(self) -> dict[str, Any]:
        return {
            "batch_input_shape": list(self.batch_input_shape),
            "dtype": self.dtype,
            "sparse": self.sparse,
            "name": self.name,
        }


def input(  # noqa: A001 - TF.js's name
    shape: Any = None,
    batch_shape: Any = None,
    name: str | None = None,
    dtype: str | None = None,
    sparse: bool | None = None,
) -> SymbolicTensor:
    """A symbolic input for a functional model (``tf.input``).

    Args:
        shape: shape of one example, without the batch dimension (``[4]`` → ``[None, 4]``).
        batch_shape: full shape including the batch dimension (instead of ``shape``).
        name: the input layer's name (default ``input<N>``).
        dtype: default ``'float32'``.
        sparse: accepted for Keras compatibility.
    """
    if batch_shape is None and shape is None:
        raise LayersValueError(
            "Please provide to Input either a `shape` or a `batch_shape` argument. Note that "
            "`shape` does not include the batch dimension."
        )
    if batch_shape is not None and shape is not None:
        raise LayersValueError(
            "Please provide either a `shape` or `batch_shape` argument to Input, but not both."
        )
    if batch_shape is None:
        batch_shape = [None] + _shape_list(shape, "shape")
    layer = InputLayer(
        batch_input_shape=batch_shape, name=name, dtype=dtype or "float32", sparse=sparse
    )
    return layer.inbound_nodes[0].output_tensors[0]


def input_layer(
    input_shape: Any = None,
    batch_size: int | None = None,
    batch_input_shape: Any = None,
    dtype: str | None = None,
    sparse: bool | None = None,
    name: str | None = None,
) -> InputLayer:
    """An :class:`InputLayer` (``tf.layers.inputLayer``), e.g. as the first layer of a
    ``Sequential`` model."""
    return InputLayer(input_shape, batch_size, batch_input_shape, dtype, sparse, name)
