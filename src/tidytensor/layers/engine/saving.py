"""``tf.load_layers_model`` and ``model.save`` (TF.js's ``tfjs-layers/src/models.ts``
``loadLayersModelFromIOHandler`` and ``engine/training.ts`` ``save``).

Loading checks everything it can before anything is allocated: the JSON, the manifest, the
weight files (paths, presence, sizes) and every layer class name. Only then is the model built
(with cheap zero initial values when the weights will overwrite them, under a temporary memory
budget sized from the manifest, so a topology far bigger than its weights fails instead of
exhausting memory), each manifest weight matched to a model weight by TF.js's rules and its
shape and dtype checked, and finally the weights decoded and written. A failure at any step
frees every tensor and variable the load made, so ``tf.memory()`` is back where it was.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ... import config as _config
from ...engine import ENGINE
from ...errors import ResourceExhaustedError, TidyTensorError, short_traceback
from ...io import register_model_functions
from ...io.artifacts import (
    LAYERS_MODEL_FORMAT,
    ModelArtifacts,
    SaveResult,
    artifacts_from_dict,
    check_topology,
    check_weight_spec,
    get_weight_specs,
)
from ...io.errors import IOHandlerError, ModelFormatError, ModelTooLargeError
from ...io.file_system import DeferredWeightData
from ...io.router import get_save_handler, resolve_load_handler
from ...io.weights import WeightSlice, encode_weights, layout_weights, make_weight_tensor
from ...py_strings import py_shape
from ..utils import convert_pythonic_to_ts, to_camel_case, to_snake_case
from .serialization import SerializationMap, deserialize
from .state import record_names, stop_recording_names
from .topology_check import check_identifiers, layer_class_names
from .training_config import load_training_config

__all__ = [
    "FILE_LOADERS",
    "LAYERS_VERSION",
    "get_training_config",
    "load_layers_model",
    "model_from_artifacts",
    "save_model",
]

#: The tfjs-layers version whose model format this package writes.
LAYERS_VERSION = "4.22.0"

#: Extra bytes a model may allocate while it is built, beyond its manifest's weights.
BUILD_SLACK_BYTES = 16 * 1024 * 1024
_NO_BYTES = memoryview(b"")
#: Readers of model files in other formats, as ``(accepts(path), load(path, custom_objects))``
#: pairs, registered by the modules that read them (Keras's files: ``keras_files.py``, which
#: builds on this module).
FILE_LOADERS: list[tuple[Callable[[Any], bool], Callable[..., Any]]] = []
_DECODED_VALUE_SIZE = {"float32": 4, "int32": 4, "bool": 1, "complex64": 8}


@short_traceback
def load_layers_model(
    path_or_url: Any,
    strict: bool = True,
    weight_path_prefix: str | None = None,
    on_progress: Callable[[float], Any] | None = None,
    *,
    custom_objects: dict[str, Any] | None = None,
    max_bytes: int | None = None,
    request_init: dict[str, Any] | None = None,
    timeout: float | None = None,
) -> Any:
    """Loads a layers model (``tf.loadLayersModel``), synchronously.

    Args:
        path_or_url: a ``model.json`` path or its directory (``file://`` optional), a Keras 3
            ``.keras`` or Keras 2 ``.h5`` file (needs the extra ``keras``), an
            ``http(s)://`` URL, ``localstorage://name`` / ``indexeddb://name``, or a handler
            (``tf.io.from_memory(artifacts)``, any object with ``load()``).
        strict: every manifest weight must have a model weight and every model weight a value.
        weight_path_prefix: where the weight files are (default: next to ``model.json``).
        on_progress: called with the fraction of weight bytes fetched, ending with 1.
        custom_objects: ``{class_name: class}`` for layers not registered with
            ``tf.serialization.register_class``.
        max_bytes: refuse manifests needing more weight bytes than this (default: the bytes
            actually present in the weight files).
        request_init: HTTP headers and method (``{'headers': {...}}``).
        timeout: seconds to wait for each HTTP response.

    Returns:
        A ``LayersModel`` (or ``Sequential``), compiled when the model was saved with its
        training configuration (``include_optimizer=True``), optimizer state restored.

    Raises:
        ModelFormatError: a file that is not a layers model, an unknown layer class, a weight
            path outside the model directory, sizes, shapes or dtypes that disagree, weights
            without a target or unset (strict), missing quantization metadata.
        ModelFileNotFoundError: ``model.json`` or a weight file does not exist.
        ModelTooLargeError: the manifest needs more bytes than ``max_bytes``.
        IOHandlerError: no handler for the URL, or an HTTP request failed.
    """
    options = {
        "weight_path_prefix": weight_path_prefix,
        "on_progress": on_progress,
        "max_bytes": max_bytes,
        "request_init": request_init,
        "timeout": timeout,
    }
    for accepts, load_file in FILE_LOADERS:
        if accepts(path_or_url):
            return load_file(path_or_url, custom_objects)
    handler = resolve_load_handler(path_or_url, **options)
    # A directory's weight files are read only after the model's weights matched the manifest.
    load = getattr(handler, "load_deferred", None) or handler.load
    artifacts = load()
    if isinstance(artifacts, dict):
        artifacts = artifacts_from_dict(artifacts)
    if not isinstance(artifacts, ModelArtifacts):
        raise ModelFormatError(
            f"The load handler {handler!r} returned {type(artifacts).__name__}, not model artifacts"
        )
    return model_from_artifacts(artifacts, strict, custom_objects, max_bytes)


# ------------------------------------------------------------------------------- loading
def model_from_artifacts(
    artifacts: ModelArtifacts,
    strict: bool = True,
    custom_objects: dict[str, Any] | None = None,
    max_bytes: int | None = None,
) -> Any:
    """The model described by ``artifacts`` (see :func:`load_layers_model`)."""
    source = artifacts.source
    topology = artifacts.model_topology
    if topology is None:
        raise ModelFormatError(
            f"{source}: the artifacts have no model topology: weights alone cannot make a model"
        )
    check_topology(topology, source)
    if artifacts.format is not None and artifacts.format != LAYERS_MODEL_FORMAT:
        raise ModelFormatError(
            f"{source}: format {artifacts.format!r} is not a layers model ('layers-model')"
        )
    field = "modelTopology"
    if topology.get("model_config") is not None:
        topology = topology["model_config"]
        field = "modelTopology.model_config"
    specs = artifacts.weight_specs
    if specs is None and artifacts.weights_manifest is not None:
        specs = get_weight_specs(artifacts.weights_manifest)
    pieces: list[WeightSlice] | None = None
    deferred = isinstance(artifacts.weight_data, DeferredWeightData)
    if artifacts.weight_data is not None:
        if specs is None:
            raise ModelFormatError(
                f"{source}: LayersModel artifacts contains weight data, but not weight specs. "
                "Therefore loading of weights cannot proceed."
            )
        if deferred:  # checked now, read once the model's weights are known to match
            for spec in specs:
                check_weight_spec(spec, source)
            pieces = [WeightSlice(spec, _NO_BYTES) for spec in specs]
        else:
            pieces = _layout(artifacts, specs, max_bytes)
    check_layer_classes(topology, source, custom_objects, field)
    model_pieces = [p for p in pieces or [] if p.spec.get("group") != "optimizer"]
    optimizer_pieces = [p for p in pieces or [] if p.spec.get("group") == "optimizer"]
    fast_weight_init = pieces is not None and strict
    budget = None
    if fast_weight_init:
        needed = sum(_decoded_bytes(p) for p in model_pieces)
        budget = needed + max(BUILD_SLACK_BYTES, needed // 10)
        if max_bytes is not None:
            budget = min(budget, max(max_bytes, needed) + BUILD_SLACK_BYTES)
    elif max_bytes is not None:
        budget = max_bytes + BUILD_SLACK_BYTES

    variables_before = {id(v) for v in ENGINE.state.registered_variables.values()}
    scope = ENGINE.start_scope("load_layers_model")
    made_names = record_names()
    try:
        try:
            with _allocation_budget(budget):
                ts_config = convert_pythonic_to_ts(_sequential_dicts(topology))
                model = deserialize(ts_config, custom_objects, fast_weight_init)
        except ResourceExhaustedError as exc:
            raise ModelTooLargeError(
                f"{source}: building the model's layers needs more memory than its weights "
                f"manifest describes ({budget} bytes allowed): the topology and the weights do "
                f"not match. {exc}"
            ) from exc
        except MemoryError as exc:
            raise ModelTooLargeError(
                f"{source}: building the model's layers ran out of memory: {exc}"
            ) from exc
        if not hasattr(model, "predict") or not hasattr(model, "layers"):
            raise ModelFormatError(
                f"{source}: the topology's class {type(model).__name__} is a layer, not a model "
                "(expected Sequential, Model or Functional)"
            )
        if artifacts.training_config is not None:
            load_training_config(model, artifacts.training_config, source)
        if artifacts.user_defined_metadata is not None:
            model.set_user_defined_metadata(artifacts.user_defined_metadata)
        if pieces is not None:
            pairs = match_weights(model, model_pieces, strict, source)
            if deferred:  # every shape and dtype matched: only now read the bytes
                artifacts.weight_data = artifacts.weight_data.read()
                read = dict(zip(map(id, pieces), _layout(artifacts, specs, max_bytes), strict=True))
                pairs = [(variable, read[id(piece)]) for variable, piece in pairs]
                optimizer_pieces = [read[id(piece)] for piece in optimizer_pieces]

            def write() -> None:
                for variable, piece in pairs:
                    variable.write(make_weight_tensor(piece))
                optimizer = getattr(model, "optimizer", None)
                if optimizer is not None and optimizer_pieces:
                    optimizer.set_weights(
                        [
                            {"name": p.spec["name"], "tensor": make_weight_tensor(p)}
                            for p in optimizer_pieces
                        ]
                    )

            ENGINE.tidy(write)
    except BaseException as exc:
        ENGINE.end_scope(None)
        _dispose_new_variables(variables_before)
        stop_recording_names(made_names, release=True)
        if isinstance(
            exc, (ModelFormatError, IOHandlerError, KeyboardInterrupt, SystemExit)
        ) or not isinstance(exc, Exception):
            raise
        if isinstance(exc, RecursionError):
            raise ModelFormatError(f"{source}: the model topology is nested too deeply") from None
        if isinstance(exc, TidyTensorError):
            raise ModelFormatError(
                f"{source}: cannot build the model from modelTopology: {exc}"
            ) from exc
        raise ModelFormatError(
            f"{source}: cannot build the model from modelTopology: a value tidytensor did not "
            f"expect stopped it ({type(exc).__name__} while building: {exc}); check the layer "
            "configs against the layers' documented arguments"
        ) from exc
    stop_recording_names(made_names, release=False)
    ENGINE.end_scope([t for t in scope.track if not t.is_disposed])
    return model


def _layout(
    artifacts: ModelArtifacts, specs: list[dict[str, Any]], max_bytes: int | None
) -> list[WeightSlice]:
    """Slices of the weight data, one per spec, every length checked (per group when the
    artifacts came from a manifest with groups)."""
    source = artifacts.source
    data = artifacts.weight_data
    if artifacts.group_sizes is not None and artifacts.weights_manifest is not None:
        buffers = data if isinstance(data, (list, tuple)) else [data]
        if len(buffers) != len(artifacts.weights_manifest):
            raise ModelFormatError(
                f"{source}: {len(artifacts.weights_manifest)} weight groups but "
                f"{len(buffers)} group buffers"
            )
        pieces: list[WeightSlice] = []
        for g, (group, buf) in enumerate(zip(artifacts.weights_manifest, buffers, strict=True)):
            try:
                pieces.extend(layout_weights(buf, group["weights"], source))
            except ModelFormatError as exc:
                raise ModelFormatError(f"{exc} (weight group {g + 1})") from None
        return pieces
    pieces = layout_weights(data, specs, source)
    if max_bytes is not None:
        total = sum(p.data.nbytes for p in pieces)
        if total > max_bytes:
            raise ModelTooLargeError(
                f"{source}: the weights need {total} bytes, more than the limit of {max_bytes} "
                "bytes (max_bytes)"
            )
    return pieces


def _sequential_dicts(entry: Any) -> Any:
    """The topology with every Sequential written as ``{layers: [...]}`` (the old format
    wrote a bare list of layers, which TF.js's ``Sequential.fromConfig`` also accepts)."""
    if isinstance(entry, list):
        return [_sequential_dicts(e) for e in entry]
    if not isinstance(entry, dict):
        return entry
    out = {k: _sequential_dicts(v) for k, v in entry.items()}
    if out.get("class_name", out.get("className")) == "Sequential" and isinstance(
        out.get("config"), list
    ):
        out["config"] = {"layers": out["config"]}
    return out


def _decoded_bytes(piece: WeightSlice) -> int:
    n = 1
    for d in piece.spec["shape"]:
        n *= d
    if piece.spec["dtype"] == "string":
        return piece.data.nbytes
    return n * _DECODED_VALUE_SIZE[piece.spec["dtype"]]


@contextmanager
def _allocation_budget(extra_bytes: int | None) -> Iterator[None]:
    """Caps live tensor bytes at the current total plus ``extra_bytes`` while building."""
    if extra_bytes is None:
        yield
        return
    previous = _config.get_memory_limit()
    limit = _config.get_memory_info()["current"] + extra_bytes
    if previous is not None:
        limit = min(limit, previous)
    ENGINE.set_memory_limit(limit)
    try:
        yield
    finally:
        ENGINE.set_memory_limit(previous)


def _dispose_new_variables(before: set[int]) -> None:
    for v in list(ENGINE.state.registered_variables.values()):
        if id(v) not in before and not v.is_disposed:
            v.dispose()


def _layer_table(custom_objects: dict[str, Any] | None) -> set[str]:
    known = set(SerializationMap.get_map().class_name_map.get("layer", {}))
    known.update(custom_objects or {})
    return known


def check_layer_classes(
    topology: dict[str, Any],
    source: str,
    custom_objects: dict[str, Any] | None = None,
    field: str = "modelTopology",
) -> None:
    """The topology's structure (see :mod:`.topology_check`) and every layer class it names
    is registered (checked before building)."""
    known = _layer_table(custom_objects)
    for class_name in layer_class_names(topology, source, field):
        if class_name not in known:
            registered = ", ".join(sorted(known))
            raise ModelFormatError(
                f"{source}: Unknown layer: {class_name}. This may be due to one of the following "
                f"reasons:\n1. The layer is defined in Python (Keras) or JavaScript and has no "
                f"tidytensor port yet.\n2. It is a custom layer: subclass tf.layers.Layer, set "
                f"class_name = '{class_name}' on the class and register it with "
                f"tf.serialization.register_class(YourLayer) (or pass "
                f"custom_objects={{'{class_name}': YourLayer}}) before loading.\n"
                f"Registered layer classes: {registered}"
            )
    check_identifiers(topology, source, field, custom_objects)


def _layer_class_names(entry: Any, source: str = "model topology") -> Iterator[str]:
    """Every layer class name in ``entry`` (its structure checked on the way)."""
    return layer_class_names(entry, source, "modelTopology")


# ------------------------------------------------------------------------ weight matching
def _keras3_key(name: str) -> str:
    """Keras 3's saved names (``_backbone/_layer_checkpoint_dependencies/dense/vars/0``)
    reduced to ``backbone/dense/0``."""
    parts = [p[1:] if p.startswith("_") else p for p in name.split("/")]
    return "/".join(p for p in parts if p not in ("vars", "layer_checkpoint_dependencies"))


def match_weights(
    model: Any, pieces: list[WeightSlice], strict: bool, source: str
) -> list[tuple[Any, WeightSlice]]:
    """Pairs each manifest weight with its model weight (TF.js's ``Container.loadWeights``
    rules) and checks shapes and dtypes. Nothing is written."""
    names = [p.spec["name"] for p in pieces]
    keras_saved = bool(names) and names[0].split("/")[-1].isdigit()
    name_to_weight: dict[str, Any] = {}
    total = 0
    for layer in model.layers:
        for index, weight in enumerate(layer.weights):
            if keras_saved:
                parsed = "/".join(weight.name.split("/")[:-1]) + f"/{index}"
            else:
                parsed = weight.original_name
            if parsed in name_to_weight:
                raise ModelFormatError(f"{source}: Duplicate weight name: {parsed}")
            name_to_weight[parsed] = weight
            total += 1
    pairs = []
    for piece in pieces:
        name = piece.spec["name"]
        validated = name
        if name not in name_to_weight:
            tokens = name.split("/")
            validated = "/".join(tokens[:-2] + tokens[-1:])  # TF 2.2's inner cell scope
            if validated not in name_to_weight and keras_saved:
                validated = _keras3_key(name)
                if validated not in name_to_weight:  # a nested Keras 3 path: <layer>/<index>
                    validated = "/".join(validated.split("/")[-2:])
        weight = name_to_weight.pop(validated, None)
        if weight is None:
            if strict:
                raise ModelFormatError(
                    f"{source}: Provided weight data has no target variable: {name} (the model's "
                    f"weights are {', '.join(w.original_name for w in model.weights) or 'none'}; "
                    "load with strict=False to skip it)"
                )
            continue
        spec = piece.spec
        if list(spec["shape"]) != list(weight.shape):
            raise ModelFormatError(
                f"{source}: weight {name} has shape {py_shape(spec['shape'])} in the manifest but "
                f"the model's {weight.original_name} has shape {py_shape(weight.shape)}"
            )
        if spec["dtype"] != weight.dtype:
            raise ModelFormatError(
                f"{source}: weight {name} has dtype {spec['dtype']} in the manifest but the "
                f"model's {weight.original_name} has dtype {weight.dtype}"
            )
        pairs.append((weight, piece))
    if strict and name_to_weight:
        raise ModelFormatError(
            f"{source}: {len(name_to_weight)} of {total} weights are not set: "
            f"{','.join(name_to_weight)} (load with strict=False to keep their initial values)"
        )
    return pairs


# ---------------------------------------------------------------------- training config
def _identifier(fn: Any) -> str:
    if isinstance(fn, str):
        return fn
    name = getattr(fn, "class_name", None) or getattr(fn, "__name__", None)
    if not isinstance(name, str):
        raise ModelFormatError(f"Unknown LossOrMetricFn {fn!r}")
    return to_camel_case(name)


def get_training_config(model: Any) -> dict[str, Any]:
    """``{loss, metrics, optimizer_config}`` for ``model.json`` (TF.js's
    ``getTrainingConfig``: loss and metric names snake_cased)."""
    loss = model.loss
    if isinstance(loss, str):
        loss_names: Any = to_snake_case(loss)
    elif isinstance(loss, (list, tuple)):
        if not all(isinstance(x, str) for x in loss):
            raise ModelFormatError("Serialization of non-string loss is not supported.")
        loss_names = [to_snake_case(x) for x in loss]
    elif isinstance(loss, dict):
        if not all(isinstance(x, str) for x in loss.values()):
            raise ModelFormatError("Serialization of non-string loss is not supported.")
        loss_names = {k: to_snake_case(v) for k, v in loss.items()}
    else:
        raise ModelFormatError("Serialization of non-string loss is not supported.")
    metrics = model.metrics
    if isinstance(metrics, str) or callable(metrics):
        metric_names: Any = [to_snake_case(_identifier(metrics))]
    elif isinstance(metrics, (list, tuple)):
        metric_names = [to_snake_case(_identifier(m)) for m in metrics]
    else:
        metric_names = {k: to_snake_case(_identifier(v)) for k, v in (metrics or {}).items()}
    optimizer = model.optimizer
    return {
        "loss": loss_names,
        "metrics": metric_names,
        "optimizer_config": {
            "class_name": optimizer.get_class_name(),
            "config": optimizer.get_config(),
        },
    }


# -------------------------------------------------------------------------------- saving
def save_model(
    model: Any,
    handler_or_url: Any,
    include_optimizer: bool = False,
    quantize: Any = None,
    shard_size_bytes: int | None = 4 * 1024 * 1024,
    trainable_only: bool = False,
) -> SaveResult:
    """Saves ``model`` (``model.save(url)``): topology, weights and, with
    ``include_optimizer``, the training configuration and the optimizer's state.

    Args:
        handler_or_url: a directory (``file://`` optional), ``http(s)://`` (multipart POST),
            ``localstorage://name`` / ``indexeddb://name``, or a handler
            (``tf.io.with_save_handler(fn)``).
        include_optimizer: also save ``trainingConfig`` and the optimizer weights.
        quantize: ``'uint8'``, ``'uint16'`` or ``'float16'`` (or ``{dtype: [name patterns]}``)
            to store float32 weights quantized, as ``tensorflowjs_converter --quantize_*``.
        shard_size_bytes: largest weight file of a directory save (``None``: one file).
        trainable_only: save only the trainable weights.

    Returns:
        A :class:`SaveResult` with the sizes saved (and the paths written, for directories).
    """
    handler = get_save_handler(handler_or_url, shard_size_bytes=shard_size_bytes)
    if not hasattr(handler, "save"):
        raise ModelFormatError(
            "LayersModel.save() cannot proceed because the IOHandler provided does not have the "
            "`save` attribute defined."
        )
    named = model.get_named_weights(trainable_only)
    data, specs = encode_weights(named, quantize=quantize)
    artifacts = ModelArtifacts(
        model_topology=model.to_json(None, False),
        format=LAYERS_MODEL_FORMAT,
        generated_by=f"TensorFlow.js tfjs-layers v{LAYERS_VERSION}",
        converted_by=None,
        source=str(handler_or_url),
    )
    if include_optimizer and getattr(model, "optimizer", None) is not None:
        artifacts.training_config = get_training_config(model)

        def optimizer_bytes() -> tuple[bytes, list[dict[str, Any]]]:
            # get_weights() makes a new 'iter' scalar: the tidy frees it.
            return encode_weights(model.optimizer.get_weights(), group="optimizer")

        opt_data, opt_specs = ENGINE.tidy(optimizer_bytes)
        data += opt_data
        specs += opt_specs
    metadata = model.get_user_defined_metadata()
    if metadata is not None:
        artifacts.user_defined_metadata = metadata
    artifacts.weight_data = data
    artifacts.weight_specs = specs
    return handler.save(artifacts)


# ``tf.io.load_layers_model``, ``tf.io.save_model`` and ``tf.io.model_from_artifacts``: tf.io
# never imports the Layers API, so the Layers API hands it these.
register_model_functions(
    load_layers_model=load_layers_model,
    model_from_artifacts=model_from_artifacts,
    save_model=save_model,
)
