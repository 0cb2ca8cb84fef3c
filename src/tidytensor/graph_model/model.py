"""``tf.load_graph_model`` and ``GraphModel`` (TF.js's ``tfjs-converter`` ``graph_model.ts``).

Loading reads ``model.json`` (``"format": "graph-model"``, a GraphDef with its functions) and
its weight files through ``tf.io``'s handlers and manifest reader (quantized ``uint8``,
``uint16`` and ``float16`` weights included), checks that every op of the graph, its functions
and its initializer is in the op table (naming each missing op type once with its nodes), and
runs the converter's ``modelInitializer`` (hash tables) once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import InvalidArgumentError, short_traceback
from ..io.artifacts import ModelArtifacts, artifacts_from_dict, get_weight_specs, is_graph_topology
from ..io.errors import ModelFormatError
from ..io.router import get_save_handler, resolve_load_handler
from ..io.weights import WeightSlice, layout_weights, make_weight_tensor
from ..tensor import Tensor
from .executor import GraphExecutor
from .graph import Graph, build_graph, parse_input_name
from .hash_table import ResourceManager
from .op_table import OP_TABLE, OUTPUT_NAMES

__all__ = ["GraphModel", "TensorInfo", "UnsupportedOpError", "load_graph_model"]


class UnsupportedOpError(ModelFormatError):
    """A graph model uses TensorFlow ops the op table does not map."""


class TensorInfo(dict):
    """An input's or output's ``name``, ``shape`` and ``dtype`` (TF.js's ``TensorInfo``), read
    as keys or attributes."""

    __getattr__ = dict.get


@short_traceback
def load_graph_model(
    path_or_url: Any,
    *,
    weight_path_prefix: str | None = None,
    on_progress: Callable[[float], Any] | None = None,
    request_init: dict[str, Any] | None = None,
    timeout: float | None = None,
    from_tf_hub: bool = False,
) -> GraphModel:
    """Loads a TF.js graph model (``tf.loadGraphModel``), synchronously.

    Args:
        path_or_url: a ``model.json`` path or its directory (``file://`` optional), an
            ``http(s)://`` URL, or a handler (``tf.io.from_memory(artifacts)``, any object
            with ``load()``).
        weight_path_prefix: where the weight files are (default: next to ``model.json``).
        on_progress: called with the fraction of weight bytes fetched.
        request_init: HTTP headers and method.
        timeout: seconds to wait for each HTTP response.
        from_tf_hub: the URL is a TF Hub module (``model.json?tfjs-format=file`` is appended).

    Raises:
        ModelFormatError: not a graph model, or weights that do not match the manifest.
        UnsupportedOpError: ops the op table does not map (each op type with its nodes).
    """
    if from_tf_hub and isinstance(path_or_url, str):
        if not path_or_url.endswith("/"):
            path_or_url += "/"
        path_or_url += "model.json?tfjs-format=file"
    options = {
        "weight_path_prefix": weight_path_prefix,
        "on_progress": on_progress,
        "request_init": request_init,
        "timeout": timeout,
    }
    handler = resolve_load_handler(path_or_url, **options)
    artifacts = handler.load()
    if isinstance(artifacts, dict):
        artifacts = artifacts_from_dict(artifacts)
    model = GraphModel(artifacts)
    return model


def _unsupported(graphs: list[tuple[str, Graph]]) -> dict[str, list[str]]:
    missing: dict[str, list[str]] = {}
    for where, graph in graphs:
        for node in graph.nodes.values():
            if node.op not in OP_TABLE:
                missing.setdefault(node.op, []).append(f"{where}{node.name}")
    return missing


def _all_graphs(graph: Graph, prefix: str = "") -> list[tuple[str, Graph]]:
    out = [(prefix, graph)]
    for name, fn in graph.functions.items():
        out.append((f"{prefix}{name}/", fn))
    return out


class GraphModel:
    """A TensorFlow graph converted by TF.js's converter: ``execute``/``predict`` run it."""

    def __init__(self, artifacts: ModelArtifacts):
        source = artifacts.source
        topology = artifacts.model_topology
        if not is_graph_topology(topology):
            raise ModelFormatError(
                f"{source}: not a graph model: 'modelTopology' has no 'node' list (a layers "
                "model loads with tf.load_layers_model)"
            )
        self.artifacts = artifacts
        metadata = artifacts.user_defined_metadata or {}
        signature = artifacts.signature
        if metadata.get("signature") is not None:
            signature = metadata["signature"]
        self.signature = signature
        self.structured_output_keys = metadata.get("structuredOutputKeys")
        versions = topology.get("versions") or {}
        self.model_version = (
            f"{versions.get('producer', 'undefined')}.{versions.get('minConsumer', 'undefined')}"
        )
        self.graph = build_graph(topology, signature, source, OUTPUT_NAMES)
        initializer = artifacts.model_initializer
        self.initializer_graph = (
            build_graph(initializer, None, f"{source} (modelInitializer)", OUTPUT_NAMES)
            if isinstance(initializer, dict) and initializer.get("node") is not None
            else None
        )
        graphs = _all_graphs(self.graph)
        if self.initializer_graph is not None:
            graphs += _all_graphs(self.initializer_graph, "modelInitializer/")
        missing = _unsupported(graphs)
        if missing:
            listing = "; ".join(
                f"{op} (node{'s' if len(names) > 1 else ''} {', '.join(names)})"
                for op, names in missing.items()
            )
            raise UnsupportedOpError(
                f"{source}: tf.load_graph_model: the graph uses {len(missing)} TensorFlow op "
                f"type{'s' if len(missing) > 1 else ''} that tidytensor does not map: {listing}"
            )
        self.resources = ResourceManager()
        self.weights: dict[str, list[Tensor]] = {}
        self._disposed = False
        try:
            self._load_weights(artifacts)
            self.executor = self._executor(self.graph)
            self.initializer = None
            #: the initializer's outputs by resource id (TF.js's resourceIdToCapturedInput):
            #: fed to the signature inputs that carry the same resource id
            self._captured: dict[Any, Any] = {}
            if self.initializer_graph is not None:
                self.initializer = self._executor(self.initializer_graph)
                outputs = (artifacts.initializer_signature or {}).get("outputs") or {}
                results = self.initializer.execute({}, list(outputs))
                for info, tensor in zip(outputs.values(), results, strict=True):
                    self._captured[info.get("resourceId")] = tensor
        except BaseException:
            self.dispose()
            raise

    def _executor(self, graph: Graph) -> GraphExecutor:
        functions: dict[str, GraphExecutor] = {}
        for name, fn in graph.functions.items():
            functions[name] = GraphExecutor(fn, self.weights, self.resources, functions)
        return GraphExecutor(graph, self.weights, self.resources, functions)

    def _load_weights(self, artifacts: ModelArtifacts) -> None:
        specs = artifacts.weight_specs
        if specs is None and artifacts.weights_manifest is not None:
            specs = get_weight_specs(artifacts.weights_manifest)
        if not specs:
            return
        data = artifacts.weight_data
        if data is None:
            raise ModelFormatError(f"{artifacts.source}: the model has weight specs but no data")
        pieces: list[WeightSlice] = []
        if artifacts.group_sizes is not None and artifacts.weights_manifest is not None:
            buffers = data if isinstance(data, (list, tuple)) else [data]
            for group, buf in zip(artifacts.weights_manifest, buffers, strict=True):
                pieces.extend(layout_weights(buf, group["weights"], artifacts.source))
        else:
            pieces = layout_weights(data, specs, artifacts.source)
        for piece in pieces:
            self.weights[piece.spec["name"]] = [make_weight_tensor(piece)]

    # -------------------------------------------------------------------- properties
    def _infos(self, nodes: list[Any]) -> list[TensorInfo]:
        return [
            TensorInfo(
                name=node.name,
                shape=node.attr("shape", "shape"),
                dtype=node.attr("dtype", "dtype"),
            )
            for node in nodes
        ]

    @property
    def inputs(self) -> list[TensorInfo]:
        """The graph's inputs: ``name``, ``shape`` (``-1`` unknown) and ``dtype``."""
        return self._infos(self.graph.inputs)

    @property
    def outputs(self) -> list[TensorInfo]:
        return self._infos(self.graph.outputs)

    @property
    def input_nodes(self) -> list[str]:
        return [n.signature_key or n.name for n in self.graph.inputs]

    @property
    def output_nodes(self) -> list[str]:
        return [
            (
                f"{n.signature_key or n.name}:{n.default_output}"
                if n.default_output
                else n.signature_key or n.name
            )
            for n in self.graph.outputs
        ]

    @property
    def metadata(self) -> Any:
        """``userDefinedMetadata`` of the model.json."""
        return self.artifacts.user_defined_metadata

    @property
    def model_signature(self) -> Any:
        """TF.js's ``modelSignature``: the signature (``userDefinedMetadata.signature`` first)."""
        return self.signature

    @property
    def model_structured_output_keys(self) -> Any:
        """TF.js's ``modelStructuredOutputKeys``: the keys ``predict`` returns a dict by."""
        return self.structured_output_keys

    @property
    def weights_map(self) -> dict[str, list[Tensor]]:
        return self.weights

    # --------------------------------------------------------------------- running
    def _resource_id(self, input_name: str) -> Any:
        info = ((self.signature or {}).get("inputs") or {}).get(input_name) or {}
        return info.get("resourceId")

    def _normalize_inputs(self, inputs: Any) -> dict[str, Any]:
        """Inputs by name; the inputs that carry a resource (a hash table's handle, made by the
        initializer) are fed here, as TF.js does."""
        names = self.input_nodes
        if isinstance(inputs, dict):
            feeds = dict(inputs)
            for name in names:
                rid = self._resource_id(name)
                if rid is not None and rid in self._captured:
                    feeds[name] = self._captured[rid]
            return feeds
        tensors = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        captured = sum(1 for n in names if self._resource_id(n) in self._captured)
        if len(tensors) + captured != len(names):
            raise InvalidArgumentError(
                f"Input tensor count mismatch, the graph model has {len(names) - captured} "
                f"non-resource placeholders, while there are {len(tensors)} input tensors "
                "provided."
            )
        feeds, k = {}, 0
        for name in names:
            rid = self._resource_id(name)
            if rid is not None and rid in self._captured:
                feeds[name] = self._captured[rid]
            else:
                feeds[name] = tensors[k]
                k += 1
        return feeds

    def _map_inputs(self, inputs: dict[str, Any]) -> dict[str, Any]:
        sig_inputs = (self.signature or {}).get("inputs") or {}
        mapped = {}
        for name, tensor in inputs.items():
            info = sig_inputs.get(name)
            mapped[info["name"] if info else name] = tensor
        nodes = self.graph.nodes
        unknown = [n for n in mapped if parse_input_name(n)[0] not in nodes]
        if unknown:
            raise InvalidArgumentError(
                f"The dict provided in model.execute(dict) has keys: [{', '.join(unknown)}] that "
                "are not part of graph"
            )
        for name, tensor in mapped.items():
            if not isinstance(tensor, Tensor):
                raise InvalidArgumentError(
                    f"model.execute: input {name!r} must be a tensor, got {type(tensor).__name__}"
                )
            node = nodes[parse_input_name(name)[0]]
            shape = node.attr("shape", "shape")
            if shape is not None and shape:
                ok = len(shape) == tensor.rank and all(
                    s == -1 or s == d for s, d in zip(shape, tensor.shape, strict=False)
                )
                if not ok:
                    raise InvalidArgumentError(
                        f"The shape of dict['{node.name}'] provided in model.execute(dict) must "
                        f"be [{','.join(map(str, shape))}], but was "
                        f"[{','.join(map(str, tensor.shape))}]"
                    )
            dtype = node.attr("dtype", "dtype")
            if dtype is not None and dtype != tensor.dtype:
                raise InvalidArgumentError(
                    f"The dtype of dict['{node.name}'] provided in model.execute(dict) must be "
                    f"{dtype}, but was {tensor.dtype}"
                )
        return mapped

    def _map_outputs(self, outputs: Any) -> list[str]:
        names = outputs if outputs is not None else self.output_nodes
        names = [names] if isinstance(names, str) else list(names)
        sig_outputs = (self.signature or {}).get("outputs") or {}
        mapped = [sig_outputs[n]["name"] if n in sig_outputs else n for n in names]
        for name in mapped:
            if parse_input_name(name)[0] not in self.graph.nodes:
                raise InvalidArgumentError(f"The output '{name}' is not found in the graph")
        return mapped

    def _check_live(self) -> None:
        if self._disposed:
            raise InvalidArgumentError("This graph model has been disposed")

    @short_traceback
    def execute(self, inputs: Any, outputs: Any = None) -> Any:
        """Runs the graph (``model.execute``): ``inputs`` a tensor, a list in input order or a
        dict by input name; ``outputs`` a name or names (default: the model's outputs).
        Returns one tensor, or a list when several outputs were asked for."""
        self._check_live()
        feeds = self._map_inputs(self._normalize_inputs(inputs))
        names = self._map_outputs(outputs)
        results = self.executor.execute(feeds, names)
        return results[0] if len(results) == 1 else results

    def execute_async(self, inputs: Any, outputs: Any = None) -> Any:
        """``model.executeAsync``: the same call as :meth:`execute` (a Python call is
        synchronous; graphs with control flow and dynamic ops run in both)."""
        return self.execute(inputs, outputs)

    @short_traceback
    def predict(self, inputs: Any, config: Any = None) -> Any:
        """``model.predict``: :meth:`execute` for the model's outputs; a dict by the
        converter's structured output keys when the model has them."""
        result = self.execute(inputs, self.output_nodes)
        if self.structured_output_keys:
            tensors = result if isinstance(result, list) else [result]
            return dict(zip(self.structured_output_keys, tensors, strict=False))
        return result

    def predict_async(self, inputs: Any, config: Any = None) -> Any:
        return self.predict(inputs, config)

    def save(self, handler_or_url: Any, config: Any = None) -> Any:
        """Writes the model's artifacts as loaded (``model.save``): a ``file://`` path, a
        directory, any URL a save router takes, or a handler with ``save()``."""
        self._check_live()
        handler = get_save_handler(handler_or_url)
        artifacts = self.artifacts
        data = artifacts.weight_data
        if isinstance(data, (list, tuple)):
            data = b"".join(bytes(memoryview(part).cast("B")) for part in data)
        specs = artifacts.weight_specs
        if specs is None and artifacts.weights_manifest is not None:
            specs = get_weight_specs(artifacts.weights_manifest)
        saved = ModelArtifacts(
            model_topology=artifacts.model_topology,
            format=artifacts.format or "graph-model",
            generated_by=artifacts.generated_by,
            converted_by=artifacts.converted_by,
            weight_specs=specs,
            weight_data=data,
            signature=artifacts.signature,
            user_defined_metadata=artifacts.user_defined_metadata,
            model_initializer=artifacts.model_initializer,
            initializer_signature=artifacts.initializer_signature,
        )
        return handler.save(saved)

    def dispose(self) -> None:
        """Frees the weights and the hash tables (``tf.memory()`` back to before the load)."""
        if self._disposed:
            return
        self._disposed = True
        for tensors in self.weights.values():
            for t in tensors:
                if not t.is_disposed:
                    t.dispose()
        self.weights.clear()
        for t in getattr(self, "_captured", {}).values():
            if not t.is_disposed:
                t.dispose()
        self.resources.dispose()

    def __repr__(self) -> str:
        return (
            f"GraphModel(inputs={self.input_nodes}, outputs={self.output_nodes}, "
            f"version={self.model_version!r})"
        )
