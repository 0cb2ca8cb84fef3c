"""``Container``: a graph of layers that is itself a layer (TF.js's ``engine/container.ts``).

A container is built from input and output :class:`~.base.SymbolicTensor` objects: it walks
the graph back from the outputs, orders the layers by depth (inputs first), checks that every
tensor can be computed from the inputs and that layer names are unique. ``LayersModel`` and
``Sequential`` are containers, so models nest inside models.

Its weights are those of its layers; ``dispose()`` decrements its reference count (1 at
creation, +1 per symbolic call) and, at 0, disposes every layer and every nested container.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

from ...engine import ENGINE
from ...py_strings import py_value
from ...tensor import Tensor
from ..errors import LayersRuntimeError, LayersValueError
from ..utils import normalize_shape_list, singleton_or_array, to_camel_case, to_list
from .executor import FeedDict, execute
from .input_layer import InputLayer
from .serialization import deserialize
from .state import get_uid
from .topology import DisposeResult, Layer, Node, SymbolicTensor, release_output_names
from .variables import LayerVariable, batch_set_value

__all__ = ["Container"]


class Container(Layer):
    """A directed acyclic graph of layers with given inputs and outputs.

    Args:
        inputs: the input symbolic tensor(s) (each from an ``InputLayer``).
        outputs: the output symbolic tensor(s).
        name: default ``<classname lowercase><N>`` (``model1``).
    """

    def __init__(self, inputs: Any = None, outputs: Any = None, name: str | None = None):
        super().__init__()
        self.name = name if name is not None else get_uid(self.get_class_name().lower())
        self.container_nodes: set[str] = set()
        self.supports_masking = False
        self._trainable = True
        self.inputs: list[SymbolicTensor] = (
            list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        )
        self.outputs: list[SymbolicTensor] = (
            list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        )
        for arg, tensors in (("inputs", self.inputs), ("outputs", self.outputs)):
            for t in tensors:
                if not isinstance(t, SymbolicTensor):
                    raise LayersValueError(
                        f"The {arg} of a model must be SymbolicTensors (from tf.input() or a "
                        f"layer's apply() on them), but got {type(t).__name__}"
                    )
        if len({id(x) for x in self.inputs}) != len(self.inputs):
            raise LayersValueError(
                "The list of inputs passed to the model is redundant. All inputs should only "
                f"appear once. Found: {','.join(str(x.name) for x in self.inputs)}"
            )
        if len({id(x) for x in self.outputs}) != len(self.outputs):
            warnings.warn(
                "The list of outputs passed to the model is redundant. All outputs should only "
                f"appear once. Found: {','.join(str(x.name) for x in self.outputs)}",
                stacklevel=2,
            )
        self.input_layers: list[Layer] = []
        self.input_layers_node_indices: list[int] = []
        self.input_layers_tensor_indices: list[int] = []
        self.output_layers: list[Layer] = []
        self.output_layers_node_indices: list[int] = []
        self.output_layers_tensor_indices: list[int] = []
        self.layers: list[Layer] = []
        self.internal_container_refs: list[Container] = []
        for x in self.outputs:
            self.output_layers.append(x.source_layer)
            self.output_layers_node_indices.append(x.node_index)
            self.output_layers_tensor_indices.append(x.tensor_index)
        for x in self.inputs:
            if x.node_index != 0 or x.tensor_index != 0:
                raise LayersValueError(f"Model input {x.name} must come from an InputLayer.")
            self.input_layers.append(x.source_layer)
            self.input_layers_node_indices.append(x.node_index)
            self.input_layers_tensor_indices.append(x.tensor_index)
        self.input_names: list[str] = []
        self.output_names: list[str] = []
        self.feed_input_shapes: list[Any] = []
        self.feed_input_names: list[str] = []
        self.feed_output_names: list[str] = []
        for i, layer in enumerate(self.input_layers):
            if not isinstance(layer, InputLayer):
                raise LayersValueError(
                    f"Input layers to a LayersModel must be InputLayer objects. Received inputs: "
                    f"{[x.name for x in self.inputs]}. Input {i} (0-based) originates from layer "
                    f"type {layer.get_class_name()}."
                )
            self.input_names.append(layer.name)
            self.feed_input_shapes.append(layer.batch_input_shape)
            self.feed_input_names.append(layer.name)
        for layer in self.output_layers:
            self.output_names.append(layer.name)
        self.internal_input_shapes = [x.shape for x in self.inputs]
        self.internal_output_shapes = [x.shape for x in self.outputs]
        self._build_graph()
        self.outbound_nodes = []
        self.inbound_nodes = []
        Node(
            outbound_layer=self,
            inbound_layers=[],
            node_indices=[],
            tensor_indices=[],
            input_tensors=self.inputs,
            output_tensors=self.outputs,
            input_masks=[None for _ in self.inputs],
            output_masks=[None for _ in self.outputs],
            input_shapes=[x.shape for x in self.inputs],
            output_shapes=[x.shape for x in self.outputs],
        )
        self.built = True
        self._ref_count = 1

    # ------------------------------------------------------------ graph building
    def _build_graph(self) -> None:
        nodes_depths: dict[int, int] = {}
        node_id_to_node: dict[int, Node] = {}
        layers_depths: dict[int, int] = {}
        layer_id_to_layer: dict[int, Layer] = {}
        layer_indices: dict[int, int] = {}
        nodes_in_decreasing_depth: list[Node] = []

        def build_map(
            tensor: SymbolicTensor,
            finished: list[Node],
            in_progress: list[Node],
            layer: Layer | None = None,
            node_index: int | None = None,
            tensor_index: int | None = None,
        ) -> None:
            if layer is None or node_index is None or tensor_index is None:
                layer, node_index = tensor.source_layer, tensor.node_index
            node = layer.inbound_nodes[node_index]
            if any(node is n for n in in_progress):
                raise LayersRuntimeError(
                    f'The tensor {tensor.name} at layer "{layer.name}" is part of a cycle.'
                )
            if any(node is n for n in finished):
                return
            self.container_nodes.add(Container.node_key(layer, node_index))
            if layer.id not in layer_indices:
                layer_indices[layer.id] = len(layer_indices)
            in_progress.append(node)
            for x, inbound, n_index, t_index in zip(
                node.input_tensors,
                node.inbound_layers,
                node.node_indices,
                node.tensor_indices,
                strict=False,
            ):
                build_map(x, finished, in_progress, inbound, n_index, t_index)
            finished.append(node)
            in_progress[:] = [n for n in in_progress if n is not node]
            nodes_in_decreasing_depth.append(node)

        finished: list[Node] = []
        in_progress: list[Node] = []
        for x in self.outputs:
            build_map(x, finished, in_progress)

        for node in reversed(nodes_in_decreasing_depth):
            node_id_to_node[node.id] = node
            depth = nodes_depths.setdefault(node.id, 0)
            depth = max(depth, layers_depths.get(node.outbound_layer.id, 0))
            layers_depths[node.outbound_layer.id] = depth
            layer_id_to_layer[node.outbound_layer.id] = node.outbound_layer
            nodes_depths[node.id] = depth
            for inbound, n_index in zip(node.inbound_layers, node.node_indices, strict=False):
                inbound_node = inbound.inbound_nodes[n_index]
                previous = nodes_depths.get(inbound_node.id, 0)
                nodes_depths[inbound_node.id] = max(depth + 1, previous)
                node_id_to_node[inbound_node.id] = inbound_node

        nodes_by_depth: dict[int, list[Node]] = {}
        for node_id in sorted(nodes_depths):  # JS object keys: integer ids ascending
            nodes_by_depth.setdefault(nodes_depths[node_id], []).append(node_id_to_node[node_id])
        layers_by_depth: dict[int, list[Layer]] = {}
        for layer_id in sorted(layers_depths):
            layers_by_depth.setdefault(layers_depths[layer_id], []).append(
                layer_id_to_layer[layer_id]
            )
        self.layers = []
        for depth in sorted(layers_by_depth, reverse=True):
            for layer in sorted(layers_by_depth[depth], key=lambda lay: layer_indices[lay.id]):
                if isinstance(layer, Container):
                    self.internal_container_refs.append(layer)
                self.layers.append(layer)
        self.layers_by_depth = layers_by_depth
        self.nodes_by_depth = nodes_by_depth

        computable = list(self.inputs)
        layers_with_complete_input: list[str] = []
        for depth in sorted(nodes_by_depth, reverse=True):
            for node in nodes_by_depth[depth]:
                layer = node.outbound_layer
                if layer is None:
                    continue
                for x in node.input_tensors:
                    if not any(x is c for c in computable):
                        raise LayersRuntimeError(
                            f"Graph disconnected: cannot obtain value for tensor {x.name} at "
                            f'layer "{layer.name}". The following previous layers were '
                            f"accessed without issue: {','.join(layers_with_complete_input)}"
                        )
                computable.extend(node.output_tensors)
                layers_with_complete_input.append(layer.name)

        all_names = [layer.name for layer in self.layers]
        for name in all_names:
            count = all_names.count(name)
            if count != 1:
                raise LayersRuntimeError(
                    f'The name "{name}" is used {count} times in the model. All layer names '
                    f"should be unique. Layer names: {py_value(all_names)}"
                )

    # -------------------------------------------------------------- disposal
    def _assert_not_disposed(self) -> None:
        if self._ref_count == 0:
            raise LayersRuntimeError(f"Container '{self.name}' is already disposed.")

    def dispose(self) -> DisposeResult:
        """Decrements the reference count; at 0 disposes every layer and nested model.

        Returns:
            ``DisposeResult(ref_count_after_dispose, num_disposed_variables)``.
        """
        self._assert_not_disposed()
        result = DisposeResult(None, 0)
        self._ref_count -= 1
        if self._ref_count == 0:
            for layer in self.layers:
                result.num_disposed_variables += layer.dispose().num_disposed_variables
            for container in self.internal_container_refs:
                result.num_disposed_variables += container.dispose().num_disposed_variables
            release_output_names(self)
            for tensor in self.inputs:  # an Input's tensor: its InputLayer is never disposed
                if isinstance(tensor.source_layer, InputLayer):
                    release_output_names(tensor.source_layer)
        result.ref_count_after_dispose = self._ref_count
        return result

    # --------------------------------------------------------------- weights
    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, trainable: bool) -> None:
        for layer in self.layers:
            for w in layer._trainable_weights:
                w.trainable = trainable
        self._trainable = bool(trainable)

    @property
    def trainable_weights(self) -> list[LayerVariable]:
        if self._trainable_weights:
            raise LayersValueError(
                "Container instance unexpectedly contains _trainable_weights.The trainable "
                "weights of a Container are a union of the trainable weights of its "
                "consituent Layers. Its own _trainable_weights must remain an empty Array."
            )
        if not self.trainable:
            return []
        weights: list[LayerVariable] = []
        for layer in self.layers:
            weights.extend(layer.trainable_weights)
        return weights

    @trainable_weights.setter
    def trainable_weights(self, weights: list[LayerVariable]) -> None:
        self._trainable_weights = list(weights)

    @property
    def non_trainable_weights(self) -> list[LayerVariable]:
        weights: list[LayerVariable] = []
        for layer in self.layers:
            weights.extend(layer.non_trainable_weights)
        if not self.trainable:
            trainable: list[LayerVariable] = []
            for layer in self.layers:
                trainable.extend(layer.trainable_weights)
            return trainable + weights
        return weights

    @non_trainable_weights.setter
    def non_trainable_weights(self, weights: list[LayerVariable]) -> None:
        self._non_trainable_weights = list(weights)

    @property
    def weights(self) -> list[LayerVariable]:
        return self.trainable_weights + self.non_trainable_weights

    def load_weights(self, weights: dict[str, Tensor], strict: bool = True) -> None:
        """Sets weights from ``{original_name: tensor}`` (as saved in ``model.json``).

        Args:
            weights: values by original weight name (``dense_Dense1/kernel``); a name with
                an extra middle scope (Keras's ``dense/dense/kernel``) matches too.
            strict: raise if a value has no weight or a weight has no value.
        """
        name_to_weight: dict[str, LayerVariable] = {}
        total = 0
        keras_saved = _is_keras_saved_model_format(weights)
        for layer in self.layers:
            for index, weight in enumerate(layer.weights):
                parsed = (
                    "/".join(weight.name.split("/")[:-1]) + f"/{index}"
                    if keras_saved
                    else weight.original_name
                )
                if parsed in name_to_weight:
                    raise LayersValueError(f"Duplicate weight name: {parsed}")
                name_to_weight[parsed] = weight
                total += 1
        pairs: list[tuple[LayerVariable, Tensor]] = []
        for name, value in weights.items():
            validated = name
            if name not in name_to_weight:
                tokens = name.split("/")
                validated = "/".join(tokens[:-2] + [tokens[-1]])
            if validated in name_to_weight:
                pairs.append((name_to_weight[validated], value))
            elif strict:
                raise LayersValueError(f"Provided weight data has no target variable: {name}")
            name_to_weight.pop(validated, None)
        if strict and name_to_weight:
            raise LayersValueError(
                f"{len(name_to_weight)} of {total} weights are not set: {','.join(name_to_weight)}"
            )
        batch_set_value(pairs)

    # ------------------------------------------------------------- computing
    def call(self, inputs: Any, **kwargs: Any) -> Any:
        def body() -> Any:
            values = to_list(inputs)
            feed = FeedDict()
            for key, value in zip(self.inputs, values, strict=False):
                feed.add(key, value)
            return execute(self.outputs, feed, kwargs)

        return ENGINE.tidy(body)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        def body() -> Any:
            values = to_list(inputs)
            masks = [None] * len(values) if mask is None else to_list(mask)
            return self._run_internal_graph(values, masks)[1]

        return ENGINE.tidy(body)

    def compute_output_shape(self, input_shape: Any) -> Any:
        input_shapes = normalize_shape_list(input_shape)
        if len(input_shapes) != len(self.input_layers):
            raise LayersValueError(
                f"Invalid input_shape argument {py_value(input_shape)}: model has "
                f"{len(self.input_layers)} tensor inputs."
            )
        shapes: dict[str, Any] = {}
        for layer, shape in zip(self.input_layers, input_shapes, strict=False):
            shapes[f"{layer.name}_0_0"] = shape
        depth_keys = sorted(self.nodes_by_depth, reverse=True)
        if len(depth_keys) > 1:
            input_layer_ids = [lay.id for lay in self.input_layers]
            for depth in depth_keys:
                for node in self.nodes_by_depth[depth]:
                    layer = node.outbound_layer
                    if layer.id in input_layer_ids:
                        continue
                    in_shapes = [
                        shapes[f"{inbound.name}_{n}_{t}"]
                        for inbound, n, t in zip(
                            node.inbound_layers,
                            node.node_indices,
                            node.tensor_indices,
                            strict=False,
                        )
                    ]
                    out = normalize_shape_list(
                        layer.compute_output_shape(singleton_or_array(in_shapes))
                    )
                    node_index = next(i for i, n in enumerate(layer.inbound_nodes) if n is node)
                    for j, s in enumerate(out):
                        shapes[f"{layer.name}_{node_index}_{j}"] = s
        out_shapes = [
            shapes[f"{layer.name}_{n}_{t}"]
            for layer, n, t in zip(
                self.output_layers,
                self.output_layers_node_indices,
                self.output_layers_tensor_indices,
                strict=False,
            )
        ]
        return singleton_or_array(out_shapes)

    def _run_internal_graph(self, inputs: list[Tensor], masks: list[Any] | None = None) -> Any:
        if masks is None:
            masks = [None] * len(inputs)
        tensor_map: dict[int, tuple[Any, Any]] = {}
        for x, y, m in zip(self.inputs, inputs, masks, strict=False):
            tensor_map[x.id] = (y, m)
        for depth in sorted(self.nodes_by_depth, reverse=True):
            for node in self.nodes_by_depth[depth]:
                layer = node.outbound_layer
                refs_in = node.input_tensors
                computed = [tensor_map[x.id] for x in refs_in if x.id in tensor_map]
                if len(computed) != len(refs_in):
                    continue
                kwargs = dict(node.call_args or {})
                if len(computed) == 1:
                    tensor, mask = computed[0]
                    kwargs.setdefault("mask", mask)
                    outputs = to_list(layer.call(tensor, **kwargs))
                    out_masks = to_list(layer.compute_mask(tensor, mask))
                else:
                    tensors = [c[0] for c in computed]
                    ms = [c[1] for c in computed]
                    kwargs.setdefault("mask", ms)
                    outputs = to_list(layer.call(tensors, **kwargs))
                    out_masks = to_list(layer.compute_mask(tensors, ms))
                for x, y, m in zip(node.output_tensors, outputs, out_masks, strict=False):
                    tensor_map[x.id] = (y, m)
        out_tensors, out_masks, out_shapes = [], [], []
        for x in self.outputs:
            if x.id not in tensor_map:
                raise LayersRuntimeError(f"Could not compute output {x.name} : {x.id}")
            tensor, mask = tensor_map[x.id]
            out_shapes.append(tensor.shape)
            out_tensors.append(tensor)
            out_masks.append(mask)
        return out_tensors, out_masks, out_shapes

    # ---------------------------------------------------------------- lookup
    def get_layer(self, name: str | int | None = None, index: int | None = None) -> Layer:
        """A layer by name or by index (position in :attr:`layers`).

        Raises:
            LayersValueError: ``No such layer: <name>`` or an index out of range.
        """
        if index is not None:
            return self.find_layer(index)
        if name is None:
            raise LayersValueError("Provide either a layer name or layer index")
        if isinstance(name, int) and not isinstance(name, bool):
            return self.find_layer(name)
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise LayersValueError(f"No such layer: {name}")

    def find_layer(self, index: int) -> Layer:
        if len(self.layers) <= index:
            raise LayersValueError(
                f"Was asked to retrieve layer at index {index}, but model only has "
                f"{len(self.layers)} layer(s)."
            )
        return self.layers[index]

    def calculate_losses(self) -> list[Tensor]:
        def body() -> list[Tensor]:
            losses: list[Tensor] = []
            for layer in self.layers:
                for node_index in range(len(layer.inbound_nodes)):
                    if Container.node_key(layer, node_index) in self.container_nodes:
                        losses.extend(layer.calculate_losses())
            return losses

        return ENGINE.tidy(body)

    # --------------------------------------------------------- serialization
    def _build_node_conversion_map(self) -> dict[str, int]:
        conversion: dict[str, int] = {}
        for layer in self.layers:
            kept = 1 if isinstance(layer, Container) else 0
            for original in range(len(layer.inbound_nodes)):
                key = Container.node_key(layer, original)
                if key in self.container_nodes:
                    conversion[key] = kept
                    kept += 1
        return conversion

    def get_config(self) -> dict[str, Any]:
        """``{name, layers: [{name, class_name, config, inbound_nodes}], input_layers,
        output_layers}``, as in ``model.json``."""
        config: dict[str, Any] = {"name": self.name}
        conversion = self._build_node_conversion_map()
        layer_configs = []
        for layer in self.layers:
            filtered_inbound = []
            for original, node in enumerate(layer.inbound_nodes):
                key = Container.node_key(layer, original)
                if key not in self.container_nodes:
                    continue
                kwargs: dict[str, Any] = {}
                if node.call_args:
                    try:
                        json.dumps(node.call_args)
                        kwargs = node.call_args
                    except (TypeError, ValueError):
                        warnings.warn(
                            f"Layer {layer.name} was passed non-serializable keyword "
                            f"arguments: {node.call_args}. They will not be included in the "
                            f"serialized model (and thus will be missing at deserialization "
                            f"time).",
                            stacklevel=2,
                        )
                if node.inbound_layers:
                    node_data = []
                    for inbound, n_index, t_index in zip(
                        node.inbound_layers, node.node_indices, node.tensor_indices, strict=False
                    ):
                        new_index = conversion.get(Container.node_key(inbound, n_index), 0)
                        node_data.append([inbound.name, new_index, t_index, dict(kwargs)])
                    filtered_inbound.append(node_data)
            layer_configs.append(
                {
                    "name": layer.name,
                    "class_name": layer.get_class_name(),
                    "config": layer.get_config(),
                    "inbound_nodes": filtered_inbound,
                }
            )
        config["layers"] = layer_configs
        config["input_layers"] = self._io_config(
            self.input_layers,
            self.input_layers_node_indices,
            self.input_layers_tensor_indices,
            conversion,
        )
        config["output_layers"] = self._io_config(
            self.output_layers,
            self.output_layers_node_indices,
            self.output_layers_tensor_indices,
            conversion,
        )
        return config

    def _io_config(
        self,
        layers: list[Layer],
        node_indices: list[int],
        tensor_indices: list[int],
        conversion: dict[str, int],
    ) -> list[list[Any]]:
        out = []
        for layer, n_index, t_index in zip(layers, node_indices, tensor_indices, strict=False):
            key = Container.node_key(layer, n_index)
            if key not in self.container_nodes:
                continue
            out.append([layer.name, conversion.get(key, 0), t_index])
        return out

    @classmethod
    def from_config(
        cls,
        config: dict[str, Any],
        custom_objects: dict[str, Any] | None = None,
        fast_weight_init: bool = False,
    ) -> Any:
        """Rebuilds the graph: creates each layer, then re-applies them in order."""
        created: dict[str, Layer] = {}
        unprocessed: dict[str, list[list[Any]]] = {}

        def add_unprocessed(layer: Layer, node_data: list[Any]) -> None:
            unprocessed.setdefault(layer.name, []).append(node_data)

        def process_node(layer: Layer, node_data: list[Any]) -> None:
            input_tensors = []
            kwargs: dict[str, Any] = {}
            for input_data in node_data:
                inbound_name, inbound_node_index, inbound_tensor_index = input_data[:3]
                kwargs = (input_data[3] if len(input_data) > 3 else None) or {}
                if inbound_name not in created:
                    add_unprocessed(layer, node_data)
                    return
                inbound = created[inbound_name]
                if len(inbound.inbound_nodes) <= inbound_node_index:
                    add_unprocessed(layer, node_data)
                    return
                inbound_node = inbound.inbound_nodes[inbound_node_index]
                input_tensors.append(
                    _output_tensor(
                        inbound_node, inbound_tensor_index, f"inbound_nodes of {layer.name}"
                    )
                )
            if input_tensors:
                layer.apply(singleton_or_array(input_tensors), dict(kwargs))

        layers_config = _get(config, "layers")
        for layer_data in layers_config:
            layer = deserialize(
                {
                    "class_name": _get(layer_data, "class_name"),
                    "config": _get(layer_data, "config"),
                },
                custom_objects,
            )
            layer.set_fast_weight_init_during_build(fast_weight_init)
            created[layer_data["name"]] = layer
            for node_data in _get(layer_data, "inbound_nodes"):
                if not isinstance(node_data, list):
                    raise LayersValueError(
                        f"Corrupted configuration, expected array for node_data: {node_data}"
                    )
                add_unprocessed(layer, node_data)
        while unprocessed:
            progressed = False
            for layer_data in layers_config:
                layer = created[layer_data["name"]]
                if layer.name in unprocessed:
                    pending = unprocessed.pop(layer.name)
                    for node_data in pending:
                        before = len(layer.inbound_nodes)
                        process_node(layer, node_data)
                        progressed = progressed or len(layer.inbound_nodes) > before
            if not progressed and unprocessed:
                raise LayersValueError(
                    f"Corrupted configuration: cannot connect layers {sorted(unprocessed)}"
                )

        def tensors(key: str) -> list[SymbolicTensor]:
            out = []
            for layer_name, node_index, tensor_index in (entry[:3] for entry in _get(config, key)):
                if layer_name not in created:
                    raise LayersValueError(f"Unknown layer {layer_name} in {key}")
                nodes = created[layer_name].inbound_nodes
                if node_index >= len(nodes):
                    raise LayersValueError(
                        f"{key} asks for node {node_index} of layer {layer_name}, which has "
                        f"{len(nodes)}"
                    )
                out.append(_output_tensor(nodes[node_index], tensor_index, key))
            return out

        return cls(
            inputs=tensors("input_layers"),
            outputs=tensors("output_layers"),
            name=config.get("name"),
        )

    # -------------------------------------------------------------- state
    @property
    def stateful(self) -> bool:
        return any(layer.stateful for layer in self.layers)

    def reset_states(self) -> None:
        def body() -> None:
            for layer in self.layers:
                if layer.stateful:
                    layer.reset_states()

        ENGINE.tidy(body)


def _output_tensor(node: Node, tensor_index: int, where: str) -> SymbolicTensor:
    """``node.output_tensors[tensor_index]``, or an error naming the layer and ``where``."""
    if not 0 <= tensor_index < len(node.output_tensors):
        count = len(node.output_tensors)
        raise LayersValueError(
            f"{where} asks for output tensor {tensor_index} of layer "
            f"{node.outbound_layer.name}, which has {count} output tensor{'s' if count != 1 else ''}"
        )
    return node.output_tensors[tensor_index]


def _get(config: dict[str, Any], snake_key: str) -> Any:
    """``config[snake_key]``, or its camelCase spelling (TF.js's in-memory configs)."""
    if snake_key in config:
        return config[snake_key]
    return config[to_camel_case(snake_key)]


def _is_keras_saved_model_format(weights: dict[str, Any]) -> bool:
    keys = list(weights)
    if not keys:
        return False
    last = keys[0].split("/")[-1]
    try:
        int(last)
    except ValueError:
        return False
    return True
