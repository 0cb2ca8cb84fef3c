"""``Layer``, ``SymbolicTensor``, ``Node`` and ``InputSpec`` (TF.js's ``engine/topology.ts``).

A layer is called with :meth:`Layer.apply` (or ``layer(x)``):

- with ``tf.Tensor`` inputs it builds itself on first use (creating its weights from the
  input shape) and runs :meth:`Layer.call` inside ``tf.tidy``, so only the outputs survive;
- with :class:`SymbolicTensor` inputs (from ``tf.input``) it builds itself, infers the output
  shape with :meth:`Layer.compute_output_shape`, records a :class:`Node` connecting it to the
  layers that produced its inputs and returns new symbolic tensors. Models are made of these
  connections.

Layers are reference-counted: the count is set to 1 on the first eager call and grows by one
per symbolic call; :meth:`Layer.dispose` decrements it and frees the weights at 0.

>>> import tidytensor.layers as layers
>>> d = layers.dense(units=1, kernel_initializer='ones', input_shape=[2])
>>> d.apply(tf.tensor2d([[1, 2]])).array_sync()
[[3.0]]
>>> [w.original_name.split('/')[1] for w in d.weights]
['kernel', 'bias']
>>> r = d.dispose()
>>> r.ref_count_after_dispose, r.num_disposed_variables
(0, 2)
"""

from __future__ import annotations

import difflib
import inspect
import itertools
import math
import warnings
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ... import ops
from ...engine import ENGINE
from ...errors import ArgumentTypeError
from ...js_strings import js_json
from ...py_strings import py_shape
from ...tensor import Tensor
from ..errors import (
    LayersAttributeError,
    LayersNotImplementedError,
    LayersRuntimeError,
    LayersValueError,
)
from ..initializers import Initializer, get_initializer
from ..utils import (
    count_params_in_weights,
    normalize_shape_list,
    singleton_or_array,
    to_list,
    to_snake_case,
)
from .serialization import Serializable, normalize_config_keys
from .state import (
    get_next_unique_tensor_id,
    get_scoped_tensor_name,
    get_uid,
    get_unique_tensor_name,
    name_scope,
    release_tensor_name,
)
from .variables import LayerVariable, batch_get_value, batch_set_value

__all__ = [
    "DisposeResult",
    "InputSpec",
    "Layer",
    "Node",
    "SymbolicTensor",
    "get_keras_mask",
    "get_source_inputs",
]

_layer_ids = itertools.count()
_node_ids = itertools.count()


# ====================================================================== InputSpec
class InputSpec:
    """What a layer expects of one input: ``dtype``, exact ``shape`` (``None`` entries are
    free), ``ndim``, ``max_ndim``, ``min_ndim`` and ``axes`` (``{axis: size}``)."""

    def __init__(
        self,
        dtype: str | None = None,
        shape: Any = None,
        ndim: int | None = None,
        max_ndim: int | None = None,
        min_ndim: int | None = None,
        axes: dict[int, int] | None = None,
    ):
        self.dtype = dtype
        self.shape = list(shape) if shape is not None else None
        self.ndim = len(shape) if shape is not None else ndim
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.axes = dict(axes or {})

    @classmethod
    def of(cls, spec: Any) -> InputSpec | None:
        """``spec`` as an ``InputSpec`` (a dict of its arguments is accepted, camelCase too)."""
        if spec is None or isinstance(spec, InputSpec):
            return spec
        return cls(**normalize_config_keys(spec))

    def __repr__(self) -> str:
        fields = {k: v for k, v in vars(self).items() if v not in (None, {})}
        return f"InputSpec({', '.join(f'{k}={v!r}' for k, v in fields.items())})"


# ================================================================= SymbolicTensor
class SymbolicTensor:
    """A placeholder for a tensor whose shape (``None`` for unknown dimensions) and dtype are
    known but whose values are not; produced by ``tf.input`` and by applying layers to other
    symbolic tensors.

    Attributes:
        name: unique name (``dense_Dense1/dense_Dense1``); ``original_name`` without suffix.
        source_layer, node_index, tensor_index: where it comes from (Keras's history).
        inputs: the symbolic tensors ``source_layer`` was applied to.
    """

    def __init__(
        self,
        dtype: str,
        shape: Any,
        source_layer: Layer,
        inputs: list[SymbolicTensor],
        call_args: dict[str, Any],
        name: str | None = None,
        output_tensor_index: int | None = None,
    ):
        self.dtype = dtype
        self.shape = list(shape)
        self.source_layer = source_layer
        self.inputs = inputs
        self.call_args = call_args
        self.output_tensor_index = output_tensor_index
        self.id = get_next_unique_tensor_id()
        self.original_name: str | None = None
        self.name: str | None = None
        if name is not None:
            self.original_name = get_scoped_tensor_name(name)
            self.name = get_unique_tensor_name(self.original_name, self.id)
        self.rank = len(self.shape)
        self.node_index: int | None = None
        self.tensor_index: int | None = None

    def __repr__(self) -> str:
        return (
            f"SymbolicTensor(name={self.name!r}, shape={py_shape(self.shape)}, dtype={self.dtype})"
        )


# ============================================================================ Node
class Node:
    """One call of ``outbound_layer`` on symbolic tensors: where each input came from
    (``inbound_layers[i].inbound_nodes[node_indices[i]].output_tensors[tensor_indices[i]]``)
    and what it produced. Creating a node registers it with the layers involved."""

    def __init__(
        self,
        outbound_layer: Layer,
        inbound_layers: list[Layer],
        node_indices: list[int],
        tensor_indices: list[int],
        input_tensors: list[SymbolicTensor],
        output_tensors: list[SymbolicTensor],
        input_masks: list[Any],
        output_masks: list[Any],
        input_shapes: Any,
        output_shapes: Any,
        call_args: dict[str, Any] | None = None,
    ):
        self.id = next(_node_ids)
        self.call_args = call_args
        self.outbound_layer = outbound_layer
        self.inbound_layers = inbound_layers
        self.node_indices = node_indices
        self.tensor_indices = tensor_indices
        self.input_tensors = input_tensors
        self.output_tensors = output_tensors
        self.input_masks = input_masks
        self.output_masks = output_masks
        self.input_shapes = input_shapes
        self.output_shapes = output_shapes
        for layer in inbound_layers:
            if layer is not None:
                layer.outbound_nodes.append(self)
        outbound_layer.inbound_nodes.append(self)

    def get_config(self) -> dict[str, Any]:
        return {
            "outbound_layer": self.outbound_layer.name if self.outbound_layer else None,
            "inbound_layers": [
                layer.name if layer is not None else None for layer in self.inbound_layers
            ],
            "node_indices": self.node_indices,
            "tensor_indices": self.tensor_indices,
        }

    def __repr__(self) -> str:
        inbound = [layer.name for layer in self.inbound_layers]
        return f"Node({self.outbound_layer.name} <- {inbound})"


@dataclass
class DisposeResult:
    """What ``dispose()`` of a layer or model returns."""

    ref_count_after_dispose: int | None
    num_disposed_variables: int


# ---------------------------------------------------------------- masks of eager outputs
_keras_masks: dict[int, tuple[Any, Any]] = {}


def _set_keras_mask(t: Any, mask: Any) -> None:
    key = id(t)
    _keras_masks[key] = (weakref.ref(t, lambda _r, k=key: _keras_masks.pop(k, None)), mask)


def get_keras_mask(t: Any) -> Any:
    """The mask a masking-aware layer attached to its eager output ``t`` (TF.js's
    ``tensor.kerasMask``), or ``None``."""
    entry = _keras_masks.get(id(t))
    if entry is not None and entry[0]() is t:
        return entry[1]
    return None


def _is_array_like(x: Any) -> bool:
    return isinstance(x, (np.ndarray, list, tuple, int, float, np.generic)) and not isinstance(
        x, bool
    )


# =========================================================================== Layer
class Layer(Serializable):
    """Base class of every layer.

    Subclasses override (all optional):

    - ``__init__(self, <own args>, **kwargs)``: store arguments, set ``self.input_spec`` and
      ``self.supports_masking``; pass ``**kwargs`` (the :class:`Layer` arguments below) up.
    - ``build(self, input_shape)``: create weights with :meth:`add_weight`, then set
      ``self.built = True``. ``input_shape`` is one shape (a list with ``None`` for unknown
      dimensions) or a list of shapes for several inputs.
    - ``call(self, inputs, **kwargs)``: the computation on ``tf.Tensor`` inputs (a tensor or
      a list of tensors; :func:`~.utils.get_exactly_one_tensor` unwraps a single one).
      ``kwargs`` holds ``training`` and ``mask`` when given. It runs inside ``tf.tidy``.
    - ``compute_output_shape(self, input_shape)``: the output shape(s) for symbolic calls.
    - ``compute_mask(self, inputs, mask=None)``: the output mask when ``supports_masking``.
    - ``get_config(self)``: the layer's own arguments (snake_case keys, values as in
      ``model.json``) merged with ``super().get_config()``.
    - ``class_name``: the registered name; decorate the class with ``register_class``.

    Args:
        input_shape: shape of one example (no batch dimension); makes this layer usable first
            in a ``Sequential`` model.
        batch_input_shape: full input shape including the batch dimension (wins over
            ``input_shape``).
        batch_size: batch dimension to put in front of ``input_shape``.
        dtype: input dtype for the implied input layer (default ``'float32'``).
        name: the layer's name (default ``<snake_class>_<ClassN>``, e.g. ``dense_Dense1``).
        trainable: whether ``fit`` updates the weights (default True).
        weights: initial weight values, set on build.
        input_dtype: legacy alias of ``dtype``.
    """

    serialization_kind: ClassVar[str] = "layer"
    class_name: ClassVar[str] = ""

    def __init__(
        self,
        *,
        input_shape: Any = None,
        batch_input_shape: Any = None,
        batch_size: int | None = None,
        dtype: str | None = None,
        name: str | None = None,
        trainable: bool | None = None,
        weights: list[Any] | None = None,
        input_dtype: str | None = None,
        **unknown: Any,
    ):
        if unknown:
            raise ArgumentTypeError(
                f"{type(self).__name__} got unexpected argument(s) "
                f"{', '.join(sorted(unknown))}" + _did_you_mean(unknown, type(self))
            )
        self.id = next(_layer_ids)
        self.activity_regularizer: Any = None
        self._input_spec: list[InputSpec | None] | None = None
        self.supports_masking = False
        self._trainable_weights: list[LayerVariable] = []
        self._non_trainable_weights: list[LayerVariable] = []
        self._losses: list[Callable[[], Tensor]] = []
        self._updates: list[Tensor] = []
        self._built = False
        self._call_hook: Callable | None = None
        self._added_weight_names: list[str] = []
        self._stateful = False
        self.inbound_nodes: list[Node] = []
        self.outbound_nodes: list[Node] = []
        if name is not None and not isinstance(name, str):
            raise LayersValueError(
                f"{type(self).__name__}: name must be a string, but got {type(name).__name__}"
            )
        if trainable is not None and not isinstance(trainable, (bool, np.bool_, int)):
            raise LayersValueError(
                f"{type(self).__name__}: trainable must be a boolean, but got "
                f"{type(trainable).__name__}"
            )
        if dtype is not None and not isinstance(dtype, str):
            raise LayersValueError(
                f"{type(self).__name__}: dtype must be a string, but got {type(dtype).__name__}"
            )
        if not name:
            prefix = self.get_class_name()
            name = f"{to_snake_case(prefix)}_{get_uid(prefix)}"
        self.name: str = name
        self._trainable = True if trainable is None else bool(trainable)
        self.batch_input_shape: list | None = None
        self.dtype: str | None = None
        if input_shape is not None or batch_input_shape is not None:
            if batch_input_shape is not None:
                self.batch_input_shape = _shape_list(batch_input_shape, "batch_input_shape")
            else:
                self.batch_input_shape = [batch_size] + _shape_list(input_shape, "input_shape")
            self.dtype = dtype or input_dtype or "float32"
        self.initial_weights = weights
        self._ref_count: int | None = None
        self._fast_weight_init_during_build = False

    # --------------------------------------------------------------- identity
    def get_class_name(self) -> str:
        return type(self).class_name or type(self).__name__

    def __repr__(self) -> str:
        return f"<{self.get_class_name()} name={self.name!r} built={self.built}>"

    @staticmethod
    def node_key(layer: Layer, node_index: int) -> str:
        return f"{layer.name}_ib-{node_index}"

    # ------------------------------------------------------------- properties
    @property
    def input_spec(self) -> list[InputSpec | None] | None:
        return self._input_spec

    @input_spec.setter
    def input_spec(self, spec: Any) -> None:
        self._input_spec = None if spec is None else [InputSpec.of(s) for s in to_list(spec)]

    @property
    def built(self) -> bool:
        return self._built

    @built.setter
    def built(self, built: bool) -> None:
        self._built = bool(built)

    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, trainable: bool) -> None:
        for w in self._trainable_weights:
            w.trainable = trainable
        self._trainable = bool(trainable)

    @property
    def trainable_weights(self) -> list[LayerVariable]:
        if self._trainable:
            return [w for w in self._trainable_weights if w.trainable]
        return []

    @trainable_weights.setter
    def trainable_weights(self, weights: list[LayerVariable]) -> None:
        self._trainable_weights = list(weights)

    @property
    def non_trainable_weights(self) -> list[LayerVariable]:
        if self.trainable:
            return [w for w in self._trainable_weights if not w.trainable] + list(
                self._non_trainable_weights
            )
        return list(self._trainable_weights) + list(self._non_trainable_weights)

    @non_trainable_weights.setter
    def non_trainable_weights(self, weights: list[LayerVariable]) -> None:
        self._non_trainable_weights = list(weights)

    @property
    def weights(self) -> list[LayerVariable]:
        """Trainable weights, then non-trainable ones."""
        return self.trainable_weights + self.non_trainable_weights

    @property
    def stateful(self) -> bool:
        return self._stateful

    @property
    def losses(self) -> list[Callable[[], Tensor]]:
        """Regularization loss functions (each returns a scalar)."""
        return self._losses

    @property
    def updates(self) -> list[Tensor]:
        return self._updates

    def _get_node_at_index(self, node_index: int, attr_name: str) -> Node:
        if not self.inbound_nodes:
            raise LayersRuntimeError(
                f"The layer has never been called and thus has no defined {attr_name}."
            )
        if len(self.inbound_nodes) <= node_index:
            raise LayersValueError(
                f"Asked to get {attr_name} at node {node_index}, but the layer has only "
                f"{len(self.inbound_nodes)} inbound nodes."
            )
        return self.inbound_nodes[node_index]

    def get_input_at(self, node_index: int) -> Any:
        """The symbolic input(s) of the ``node_index``-th call."""
        return singleton_or_array(self._get_node_at_index(node_index, "input").input_tensors)

    def get_output_at(self, node_index: int) -> Any:
        """The symbolic output(s) of the ``node_index``-th call."""
        return singleton_or_array(self._get_node_at_index(node_index, "output").output_tensors)

    @property
    def input(self) -> Any:
        """The symbolic input(s) (only for a layer called exactly once)."""
        if len(self.inbound_nodes) > 1:
            raise LayersAttributeError(
                f"Layer {self.name} has multiple inbound nodes, hence the notion of "
                f'"layer input" is ill-defined. Use `get_input_at(node_index)` instead.'
            )
        if not self.inbound_nodes:
            raise LayersAttributeError(f"Layer {self.name} is not connected, no input to return.")
        return singleton_or_array(self._get_node_at_index(0, "input").input_tensors)

    @property
    def output(self) -> Any:
        """The symbolic output(s) (only for a layer called exactly once)."""
        if not self.inbound_nodes:
            raise LayersAttributeError(f"Layer {self.name} has no inbound nodes.")
        if len(self.inbound_nodes) > 1:
            raise LayersAttributeError(
                f"Layer {self.name} has multiple inbound nodes, hence the notion of "
                f'"layer output" is ill-defined. Use `get_output_at(node_index)` instead.'
            )
        return singleton_or_array(self._get_node_at_index(0, "output").output_tensors)

    @property
    def output_shape(self) -> Any:
        """The output shape (or shapes) of every call, which must all agree."""
        if not self.inbound_nodes:
            raise LayersAttributeError(
                f"The layer {self.name} has never been called and thus has no defined output shape."
            )
        seen = []
        for node in self.inbound_nodes:
            key = js_json(node.output_shapes)
            if key not in seen:
                seen.append(key)
        if len(seen) != 1:
            raise LayersAttributeError(
                f"The layer {self.name} has multiple inbound nodes with different output "
                f'shapes. Hence the notion of "output shape" is ill-defined for the layer.'
            )
        shapes = self.inbound_nodes[0].output_shapes
        if isinstance(shapes, list) and len(shapes) == 1 and isinstance(shapes[0], list):
            return shapes[0]
        return shapes

    # ------------------------------------------------------------------ losses
    def calculate_losses(self) -> list[Tensor]:
        """The current value of each regularization loss."""
        return [loss_fn() for loss_fn in self.losses]

    def add_loss(self, losses: Any) -> None:
        """Adds loss functions (callables returning a scalar) to :attr:`losses`."""
        if losses is None or (isinstance(losses, (list, tuple)) and len(losses) == 0):
            return
        if self._losses is not None:
            self._losses.extend(to_list(losses))

    def reset_states(self) -> None:
        """Resets a stateful layer's states (an error for other layers)."""
        if not self.stateful:
            raise LayersRuntimeError(
                "Cannot call the reset_states() method of a non-stateful Layer object."
            )

    # ------------------------------------------------------------ input checks
    def assert_input_compatibility(self, inputs: Any) -> None:
        """Checks ``inputs`` against :attr:`input_spec`; raises naming the layer, the input
        and what was expected."""
        inputs_list = to_list(inputs)
        if not self.input_spec:
            return
        spec_list = self.input_spec
        if len(inputs_list) != len(spec_list):
            raise LayersValueError(
                f"Layer {self.name} expects {len(spec_list)} inputs, but it received "
                f"{len(inputs_list)} input tensors. Input received: "
                f"{[_describe(x) for x in inputs_list]}"
            )
        for index, (x, spec) in enumerate(zip(inputs_list, spec_list, strict=False)):
            if spec is None:
                continue
            ndim = x.rank
            shape = list(x.shape)
            if spec.ndim is not None and ndim != spec.ndim:
                raise LayersValueError(
                    f"Input {index} is incompatible with layer {self.name}: expected "
                    f"ndim={spec.ndim}, found ndim={ndim}{_full_shape(shape)}"
                )
            if spec.max_ndim is not None and ndim > spec.max_ndim:
                raise LayersValueError(
                    f"Input {index} is incompatible with layer {self.name}: expected "
                    f"max_ndim={spec.max_ndim}, found ndim={ndim}{_full_shape(shape)}"
                )
            if spec.min_ndim is not None and ndim < spec.min_ndim:
                raise LayersValueError(
                    f"Input {index} is incompatible with layer {self.name}: expected "
                    f"min_ndim={spec.min_ndim}, found ndim={ndim}.{_full_shape(shape)}"
                )
            if spec.dtype is not None and x.dtype != spec.dtype:
                raise LayersValueError(
                    f"Input {index} is incompatible with layer {self.name} : expected "
                    f"dtype={spec.dtype}, found dtype={x.dtype}."
                )
            for axis, value in spec.axes.items():
                axis = int(axis)
                at = shape[axis] if -len(shape) <= axis < len(shape) else None
                if value is not None and at not in (value, None):
                    raise LayersValueError(
                        f"Input {index} is incompatible with layer {self.name}: expected axis "
                        f"{axis} of input shape to have value {value} but got shape "
                        f"{py_shape(shape)}."
                    )
            if spec.shape is not None:
                for i, spec_dim in enumerate(spec.shape):
                    dim = shape[i] if i < len(shape) else None
                    if spec_dim is not None and dim is not None and spec_dim != dim:
                        raise LayersValueError(
                            f"Input {index} is incompatible with layer {self.name}: expected "
                            f"shape={py_shape(spec.shape)}, found shape="
                            f"{py_shape(shape)}."
                        )

    def warn_on_incompatible_input_shape(self, input_shape: Any) -> None:
        """Warns when a symbolic input's shape disagrees with ``batch_input_shape``."""
        if self.batch_input_shape is None:
            return
        if len(input_shape) != len(self.batch_input_shape):
            warnings.warn(
                f"The rank of the input tensor provided (shape: {py_shape(input_shape)}) does "
                f"not match that of the batch_input_shape ({py_shape(self.batch_input_shape)}) of "
                f"the layer {self.name}",
                stacklevel=3,
            )
        elif any(
            d is not None and i is not None and i != d
            for d, i in zip(self.batch_input_shape, input_shape, strict=False)
        ):
            warnings.warn(
                f"The shape of the input tensor ({py_shape(input_shape)}) does not match the "
                f"expectation of layer {self.name}: {py_shape(self.batch_input_shape)}",
                stacklevel=3,
            )

    # -------------------------------------------------------------- computing
    def call(self, inputs: Any, **kwargs: Any) -> Any:
        """The layer's computation on concrete tensors (identity by default)."""
        return inputs

    def invoke_call_hook(self, inputs: Any, kwargs: dict[str, Any]) -> None:
        if self._call_hook is not None:
            self._call_hook(inputs, kwargs)

    def set_call_hook(self, call_hook: Callable | None) -> None:
        """Registers ``call_hook(inputs, kwargs)``, run by layers that call
        :meth:`invoke_call_hook` (tests use it)."""
        self._call_hook = call_hook

    def clear_call_hook(self) -> None:
        self._call_hook = None

    def __call__(self, inputs: Any, kwargs: dict[str, Any] | None = None, **more: Any) -> Any:
        """Same as :meth:`apply`."""
        return self.apply(inputs, kwargs, **more)

    def apply(self, inputs: Any, kwargs: dict[str, Any] | None = None, **more: Any) -> Any:
        """Runs the layer on tensors, or connects it to symbolic tensors.

        Args:
            inputs: a ``tf.Tensor`` / :class:`SymbolicTensor`, or a list of them (all of the
                same kind). Array-likes (NumPy arrays, nested lists) are converted to tensors
                for the call and freed afterwards.
            kwargs: call arguments as a dict (TF.js style), e.g. ``{'training': True}``; they
                can also be given as keywords: ``layer.apply(x, training=True)``.

        Returns:
            ``tf.Tensor``(s) for tensor inputs — exactly the outputs are new, every temporary
            is freed — or :class:`SymbolicTensor`(s) for symbolic inputs.

        Raises:
            LayersValueError: mixed input kinds, or inputs that do not fit the layer.
            LayersRuntimeError: the layer was disposed.
        """
        kw = dict(kwargs or {})
        kw.update(more)
        self._assert_not_disposed()
        converted: list[Tensor] = []
        if isinstance(inputs, (list, tuple)):
            inputs = [self._as_input(x, converted) for x in inputs]
        else:
            inputs = self._as_input(inputs, converted)
        inputs_list = to_list(inputs)
        all_symbolic = all(isinstance(x, SymbolicTensor) for x in inputs_list)
        none_symbolic = not any(isinstance(x, SymbolicTensor) for x in inputs_list)
        if all_symbolic == none_symbolic:
            raise LayersValueError(
                "Arguments to apply() must be all SymbolicTensors or all Tensors"
            )
        undo = None if self.built else self._build_snapshot()
        try:
            with name_scope(self.name):
                if not self.built:
                    self.assert_input_compatibility(inputs)
                    self.build(singleton_or_array([list(x.shape) for x in inputs_list]))
                    self.built = True
                    if self.initial_weights:
                        self.set_weights(self.initial_weights)
                    if self._ref_count is None and none_symbolic:
                        self._ref_count = 1
                self.assert_input_compatibility(inputs)
                if none_symbolic:
                    return self._apply_eager(inputs, inputs_list, kw)
                return self._apply_symbolic(inputs, inputs_list, kw)
        except BaseException:
            if undo is not None:
                self._undo_build(undo)
            raise
        finally:
            for t in converted:
                t.dispose()

    def _build_snapshot(self) -> list[tuple]:
        """What a first ``apply`` may change by building this layer and the unbuilt layers
        inside it (an RNN's cell, a wrapper's layer), to restore if the call fails."""
        snapshot = []
        seen: set[int] = set()
        todo: list[Layer] = [self]
        while todo:
            layer = todo.pop()
            if id(layer) in seen or layer.built:
                continue
            seen.add(id(layer))
            snapshot.append(
                (
                    layer,
                    list(layer._trainable_weights),
                    list(layer._non_trainable_weights),
                    list(layer._added_weight_names),
                    None if layer._losses is None else list(layer._losses),
                    layer._ref_count,
                    layer._input_spec,
                )
            )
            for value in vars(layer).values():
                items = value if isinstance(value, (list, tuple)) else (value,)
                todo.extend(v for v in items if isinstance(v, Layer))
        return snapshot

    def _undo_build(self, snapshot: list[tuple]) -> None:
        """Leaves no half-built layer behind when the call that built it fails: the weights
        it made are disposed and the layers it built are unbuilt, ready to build again."""
        for layer, trainable, non_trainable, names, losses, ref_count, spec in snapshot:
            kept = {id(w) for w in trainable + non_trainable}
            for w in layer._trainable_weights + layer._non_trainable_weights:
                if id(w) not in kept and not w.is_disposed:
                    w.dispose()
            layer._trainable_weights = trainable
            layer._non_trainable_weights = non_trainable
            layer._added_weight_names = names
            if losses is not None:
                layer._losses = losses
            layer._ref_count = ref_count
            layer._input_spec = spec
            layer.built = False

    def _as_input(self, x: Any, converted: list[Tensor]) -> Any:
        if isinstance(x, (Tensor, SymbolicTensor)):
            return x
        if _is_array_like(x):
            t = ops.tensor(x)
            converted.append(t)
            return t
        raise LayersValueError(
            f"Layer {self.name}: apply() expects Tensors or SymbolicTensors, but got "
            f"{type(x).__name__}"
        )

    def _apply_eager(self, inputs: Any, inputs_list: list[Tensor], kw: dict[str, Any]) -> Any:
        if self.activity_regularizer is not None:
            raise LayersNotImplementedError(
                "Layer invocation in the presence of activity regularizer(s) is not supported yet."
            )
        output = ENGINE.tidy(lambda: self.call(inputs, **kw))
        if self.supports_masking:
            self._set_mask_metadata(inputs, output)
        outputs = []
        for x in to_list(output):
            if any(x is y for y in inputs_list):
                x = ops.clone(x)
            outputs.append(x)
        return singleton_or_array(outputs)

    def _apply_symbolic(self, inputs: Any, inputs_list: list, kw: dict[str, Any]) -> Any:
        input_shape = singleton_or_array([list(x.shape) for x in inputs_list])
        output_shape = self.compute_output_shape(input_shape)
        output_dtype = "float32"
        self.warn_on_incompatible_input_shape(list(inputs_list[0].shape))
        if (
            output_shape is not None
            and len(output_shape) > 0
            and isinstance(output_shape[0], (list, tuple))
        ):
            output: Any = [
                SymbolicTensor(output_dtype, shape, self, inputs_list, kw, self.name, index)
                for index, shape in enumerate(output_shape)
            ]
        else:
            output = SymbolicTensor(output_dtype, output_shape, self, inputs_list, kw, self.name)
        self._add_inbound_node(inputs, output, None, None, input_shape, output_shape, kw)
        self._ref_count = (self._ref_count or 0) + 1
        if self.activity_regularizer is not None:
            raise LayersNotImplementedError(
                "Layer invocation in the presence of activity regularizer(s) is not supported yet."
            )
        return output

    def build(self, input_shape: Any) -> None:
        """Creates the weights for ``input_shape`` (nothing by default)."""
        self.built = True

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The output shape for ``input_shape`` (unchanged by default)."""
        return input_shape

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """The output mask: ``mask`` for masking-aware layers, else ``None``."""
        if not self.supports_masking:
            for m in to_list(mask) if mask is not None else []:
                if m is not None:
                    raise LayersValueError(
                        f"Layer {self.name} does not support masking, but was passed an input_mask."
                    )
            return None
        return mask

    def _set_mask_metadata(self, inputs: Any, outputs: Any, previous_mask: Any = None) -> None:
        output_masks = self.compute_mask(inputs, previous_mask)
        outputs_list = to_list(outputs)
        masks_list = to_list(output_masks)
        if len(outputs_list) != len(masks_list):
            raise LayersRuntimeError(
                f"{self.name} outputs {len(outputs_list)} tensors but {len(masks_list)} masks "
                f"for those tensors"
            )
        for out, mask in zip(outputs_list, masks_list, strict=False):
            if mask is not None:
                _set_keras_mask(out, mask)

    def _add_inbound_node(
        self,
        input_tensors: Any,
        output_tensors: Any,
        input_masks: Any,
        output_masks: Any,
        input_shapes: Any,
        output_shapes: Any,
        kwargs: dict[str, Any] | None = None,
    ) -> None:
        input_list = to_list(input_tensors)
        output_list = to_list(output_tensors)
        Node(
            outbound_layer=self,
            inbound_layers=[x.source_layer for x in input_list],
            node_indices=[x.node_index for x in input_list],
            tensor_indices=[x.tensor_index for x in input_list],
            input_tensors=input_list,
            output_tensors=output_list,
            input_masks=to_list(input_masks),
            output_masks=to_list(output_masks),
            input_shapes=normalize_shape_list(input_shapes),
            output_shapes=normalize_shape_list(output_shapes),
            call_args=kwargs,
        )
        for i, out in enumerate(output_list):
            out.source_layer = self
            out.node_index = len(self.inbound_nodes) - 1
            out.tensor_index = i

    # ------------------------------------------------------------------ weights
    def count_params(self) -> int:
        """Number of scalars in the weights (the layer must be built)."""
        if not self.built:
            raise LayersRuntimeError(
                f"You tried to call count_params() on {self.name}, but the layer is not built "
                f"yet. Build it first by calling build(batch_input_shape)."
            )
        return count_params_in_weights(self.weights)

    def get_weights(self, trainable_only: bool = False) -> list[Tensor]:
        """The weights' live ``tf.Variable`` objects (not copies), in :attr:`weights` order."""
        return batch_get_value(self.trainable_weights if trainable_only else self.weights)

    def set_weights(self, weights: list[Any]) -> None:
        """Sets every weight, in :attr:`weights` order. Each variable then shares the given
        tensor's buffer (the caller may dispose its tensors). Nothing changes if any count or
        shape is wrong."""

        def body() -> None:
            params = self.weights
            values = [v if isinstance(v, Tensor) else ops.tensor(v) for v in weights]
            if len(params) != len(values):
                raise LayersValueError(
                    f'You called set_weights(weights) on layer "{self.name}" with a weight list '
                    f"of length {len(values)}, but the layer was expecting {len(params)} "
                    f"weights. Provided weights: "
                    f"{[py_shape(list(v.shape)) for v in values]}"
                )
            if not params:
                return
            pairs = []
            for p, pv, w in zip(params, batch_get_value(params), values, strict=False):
                if list(pv.shape) != list(w.shape):
                    raise LayersValueError(
                        f"Layer weight shape {py_shape(pv.shape)} not compatible with "
                        f"provided weight shape {py_shape(w.shape)} (weight {p.name} of "
                        f"layer {self.name})"
                    )
                pairs.append((p, w))
            batch_set_value(pairs)

        ENGINE.tidy(body)

    def add_weight(
        self,
        name: str,
        shape: Any,
        dtype: str | None = None,
        initializer: Any = None,
        regularizer: Any = None,
        trainable: bool | None = None,
        constraint: Any = None,
        get_initializer_func: Callable[[], Initializer] | None = None,
    ) -> LayerVariable:
        """Creates a weight named ``<layer name>/<name>`` (under the current name scope).

        Args:
            name: unique within the layer.
            shape: the weight's shape.
            dtype: default ``'float32'``.
            initializer: an :class:`Initializer` or an identifier (default
                ``'glorotUniform'``).
            regularizer: adds ``regularizer.apply(weight)`` to :attr:`losses`.
            trainable: default True.
            constraint: applied after each write.
            get_initializer_func: the initializer to use when weights will be overwritten
                anyway (fast initialization while loading a model); default zeros.
        """
        if name in self._added_weight_names:
            raise LayersValueError(f"Duplicate weight name {name} for layer {self.name}")
        self._added_weight_names.append(name)
        dtype = dtype or "float32"
        if self._fast_weight_init_during_build:
            initializer = (
                get_initializer_func()
                if get_initializer_func is not None
                else get_initializer("zeros")
            )
        initializer = get_initializer(initializer if initializer is not None else "glorotUniform")
        init_value = initializer.apply(list(shape), dtype)
        weight = LayerVariable(
            init_value, dtype, name, True if trainable is None else trainable, constraint
        )
        init_value.dispose()
        if regularizer is not None:
            self.add_loss(lambda: regularizer.apply(weight.read()))
        if trainable is None or trainable:
            self._trainable_weights.append(weight)
        else:
            self._non_trainable_weights.append(weight)
        return weight

    def set_fast_weight_init_during_build(self, value: bool) -> None:
        """Use cheap (zero) initial values while building: the weights are about to be
        overwritten (model loading)."""
        self._fast_weight_init_during_build = bool(value)

    # ------------------------------------------------------------ serialization
    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"name": self.name, "trainable": self.trainable}
        if self.batch_input_shape is not None:
            config["batch_input_shape"] = list(self.batch_input_shape)
        if self.dtype is not None:
            config["dtype"] = self.dtype
        return config

    @classmethod
    def from_config(
        cls,
        config: dict[str, Any],
        custom_objects: dict[str, Any] | None = None,
        fast_weight_init: bool = False,
    ) -> Any:
        """A new layer from :meth:`get_config`'s output. Keys the constructor does not know
        (Keras writes a few) are ignored, as in TF.js."""
        config = normalize_config_keys(config)
        accepted = _accepted_arguments(cls)
        if accepted is not None:
            config = {k: v for k, v in config.items() if k in accepted}
        return cls(**config)

    # ------------------------------------------------------------------ dispose
    def _dispose_weights(self) -> int:
        weights = self.weights
        for w in weights:
            w.dispose()
        return len(weights)

    def _assert_not_disposed(self) -> None:
        if self._ref_count == 0:
            raise LayersRuntimeError(f"Layer '{self.name}' is already disposed.")

    def dispose(self) -> DisposeResult:
        """Decrements the reference count; at 0, frees the weights.

        Returns:
            ``DisposeResult(ref_count_after_dispose, num_disposed_variables)``.

        Raises:
            LayersRuntimeError: the layer was never built or used, or is already disposed.
        """
        if not self.built:
            raise LayersRuntimeError(
                f"Cannot dispose Layer {self.name} because it has not been built yet."
            )
        if self._ref_count is None:
            raise LayersRuntimeError(
                f"Cannot dispose Layer {self.name} because it has not been used yet."
            )
        self._assert_not_disposed()
        num_disposed = 0
        self._ref_count -= 1
        if self._ref_count == 0:
            num_disposed = self._dispose_weights()
            release_output_names(self)
        return DisposeResult(self._ref_count, num_disposed)


def release_output_names(layer: Layer) -> None:
    """Gives back the names of the symbolic tensors ``layer``'s calls made (it is disposed)."""
    for node in layer.inbound_nodes:
        for tensor in node.output_tensors:
            release_tensor_name(tensor.id)


def get_source_inputs(
    tensor: SymbolicTensor, layer: Layer | None = None, node_index: int | None = None
) -> list[SymbolicTensor]:
    """The input symbolic tensors that ``tensor`` is computed from."""
    if layer is None or (node_index is not None and node_index > 0):
        layer = tensor.source_layer
        node_index = tensor.node_index
    if not layer.inbound_nodes:
        return [tensor]
    node = layer.inbound_nodes[node_index]
    if not node.inbound_layers:
        return node.input_tensors
    sources: list[SymbolicTensor] = []
    for x, inbound, index in zip(
        node.input_tensors, node.inbound_layers, node.node_indices, strict=False
    ):
        for s in get_source_inputs(x, inbound, index):
            if not any(s is y for y in sources):
                sources.append(s)
    return sources


# ------------------------------------------------------------------ small helpers
def _shape_list(shape: Any, arg: str) -> list:
    if isinstance(shape, int) and not isinstance(shape, bool):
        return [shape]
    if not isinstance(shape, (list, tuple)):
        raise LayersValueError(f"{arg} must be a list of dimensions, but got {shape!r}")
    dims = []
    for d in shape:
        if d is None:
            dims.append(None)
            continue
        if (
            isinstance(d, bool)
            or not isinstance(d, (int, float, np.integer, np.floating))
            or not math.isfinite(d)
            or not float(d).is_integer()
            or d < 0
        ):
            raise LayersValueError(
                f"{arg} must be a list of dimensions (non-negative integers or None), but got "
                f"{shape!r}"
            )
        dims.append(int(d))
    return dims


def _full_shape(shape: list) -> str:
    """What TF.js's rank messages omit (Keras adds it): the shape that arrived."""
    return f" (full shape received: {py_shape(shape)})"


def _describe(x: Any) -> str:
    if isinstance(x, (Tensor, SymbolicTensor)):
        return f"{type(x).__name__}(shape={py_shape(list(x.shape))})"
    return repr(x)


_accepted_cache: dict[type, set[str] | None] = {}


def _accepted_arguments(cls: type) -> set[str] | None:
    """Keyword arguments the constructors in ``cls``'s hierarchy accept (None: anything)."""
    if cls in _accepted_cache:
        return _accepted_cache[cls]
    names: set[str] = set()
    open_ended = True
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        params = inspect.signature(init).parameters.values()
        names.update(p.name for p in params if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL))
        if klass is Layer:
            open_ended = False
            break
        if not any(p.kind is p.VAR_KEYWORD for p in params):
            open_ended = False
            break
    names.discard("self")
    result = None if open_ended else names
    _accepted_cache[cls] = result
    return result


def _did_you_mean(unknown: dict[str, Any], cls: type) -> str:
    accepted = _accepted_arguments(cls) or set()
    hints = []
    for key in sorted(unknown):
        close = difflib.get_close_matches(key, sorted(accepted), n=1)
        if close:
            hints.append(f"{key!r} (did you mean {close[0]!r}?)")
    return f"; {', '.join(hints)}" if hints else ""
