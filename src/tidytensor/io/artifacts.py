"""Model artifacts and ``model.json`` (TF.js's ``io/types.ts`` and ``io/io_utils.ts``).

A saved layers model is a ``model.json``::

    {"modelTopology": {...}, "format": "layers-model", "generatedBy": "...",
     "convertedBy": null, "weightsManifest": [{"paths": [...], "weights": [...]}],
     "trainingConfig": {...}?, "userDefinedMetadata": {...}?}

plus the weight files its manifest lists. In memory the same content is a
:class:`ModelArtifacts` (TF.js's ``ModelArtifacts``, fields in snake_case): the topology, the
flat list of weight specs (every group's ``weights`` concatenated) and the weight bytes.

This module checks the JSON side: :func:`parse_model_json` refuses anything that is not a
layers model and :func:`check_weight_spec` refuses a manifest entry that cannot be decoded,
each with an error naming the file and the problem, before any tensor exists.

>>> a = ModelArtifacts(model_topology={'class_name': 'Sequential', 'config': {}},
...                    weight_specs=[{'name': 'w', 'shape': [2], 'dtype': 'float32'}],
...                    weight_data=b'\\0' * 8)
>>> info = get_model_artifacts_info_for_json(a)
>>> info.model_topology_type, info.weight_specs_bytes, info.weight_data_bytes
('JSON', 44, 8)
"""

from __future__ import annotations

import datetime
import json
import math
from dataclasses import dataclass, field
from typing import Any

from ..js_strings import js_json
from .errors import ModelFormatError

__all__ = [
    "LAYERS_MODEL_FORMAT",
    "ModelArtifacts",
    "ModelArtifactsInfo",
    "SaveResult",
    "artifacts_from_dict",
    "check_weight_spec",
    "get_model_artifacts_for_json",
    "get_model_artifacts_info_for_json",
    "get_model_json_for_model_artifacts",
    "get_weight_specs",
    "parse_model_json",
]

LAYERS_MODEL_FORMAT = "layers-model"
#: The ``format`` of a model.json written by TF.js's converter for a TensorFlow graph.
GRAPH_MODEL_FORMAT = "graph-model"
WEIGHT_DTYPES = ("float32", "int32", "bool", "string", "complex64")
QUANTIZATION_DTYPES = ("uint8", "uint16", "float16")
#: Bytes per stored value (TF.js's ``DTYPE_VALUE_SIZE_MAP``); strings have no fixed size.
DTYPE_VALUE_SIZE = {
    "float32": 4,
    "int32": 4,
    "bool": 1,
    "complex64": 8,
    "uint8": 1,
    "uint16": 2,
    "float16": 2,
}
#: Most dimensions a weight may have (TF.js has no limit; no real weight comes close).
MAX_WEIGHT_RANK = 32
#: ``model.json`` files larger than this are refused before they are parsed.
MAX_MODEL_JSON_BYTES = 256 * 1024 * 1024

# camelCase key of a ModelArtifacts field in TF.js -> our attribute.
_ARTIFACT_KEYS = {
    "modelTopology": "model_topology",
    "format": "format",
    "generatedBy": "generated_by",
    "convertedBy": "converted_by",
    "weightSpecs": "weight_specs",
    "weightData": "weight_data",
    "trainingConfig": "training_config",
    "userDefinedMetadata": "user_defined_metadata",
    "signature": "signature",
    "modelInitializer": "model_initializer",
    "initializerSignature": "initializer_signature",
    "weightsManifest": "weights_manifest",
}


@dataclass
class ModelArtifacts:
    """What a load handler returns and a save handler receives (TF.js's ``ModelArtifacts``).

    ``weight_data`` is ``bytes``-like or a list of ``bytes``-like chunks read one after the
    other (TF.js's ``ArrayBuffer | ArrayBuffer[]``); a weight may span two chunks.
    ``weight_specs`` is the flat list of manifest entries (dicts with TF.js's keys ``name``,
    ``shape``, ``dtype``, optional ``group`` and ``quantization``).
    """

    model_topology: Any = None
    format: str | None = None
    generated_by: str | None = None
    converted_by: str | None = None
    weight_specs: list[dict[str, Any]] | None = None
    weight_data: Any = None
    training_config: dict[str, Any] | None = None
    user_defined_metadata: dict[str, Any] | None = None
    signature: Any = None
    model_initializer: Any = None
    initializer_signature: Any = None
    #: Where the artifacts came from (a path or URL), for error messages.
    source: str = "<memory>"
    #: The manifest as written (groups with their paths), when loaded from a model.json.
    weights_manifest: list[dict[str, Any]] | None = None
    #: Byte length of each group's data (in manifest order), when loaded from files/URLs.
    group_sizes: list[int] | None = None


@dataclass
class ModelArtifactsInfo:
    """Sizes of what was saved (TF.js's ``ModelArtifactsInfo``)."""

    date_saved: datetime.datetime
    model_topology_type: str = "JSON"
    model_topology_bytes: int = 0
    weight_specs_bytes: int = 0
    weight_data_bytes: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "dateSaved": self.date_saved.isoformat(),
            "modelTopologyType": self.model_topology_type,
            "modelTopologyBytes": self.model_topology_bytes,
            "weightSpecsBytes": self.weight_specs_bytes,
            "weightDataBytes": self.weight_data_bytes,
        }

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> ModelArtifactsInfo:
        return cls(
            date_saved=datetime.datetime.fromisoformat(obj["dateSaved"]),
            model_topology_type=obj.get("modelTopologyType", "JSON"),
            model_topology_bytes=int(obj.get("modelTopologyBytes", 0)),
            weight_specs_bytes=int(obj.get("weightSpecsBytes", 0)),
            weight_data_bytes=int(obj.get("weightDataBytes", 0)),
        )


@dataclass
class SaveResult:
    """What ``model.save`` returns (TF.js's ``SaveResult``)."""

    model_artifacts_info: ModelArtifactsInfo
    responses: list[Any] | None = None
    errors: list[Any] | None = None
    #: Files written (directory and model-store saves): model.json first, then the weights.
    paths: list[str] = field(default_factory=list)


def weight_data_length(weight_data: Any) -> int:
    """Total bytes of ``weight_data`` (one buffer or a list of them)."""
    if weight_data is None:
        return 0
    if isinstance(weight_data, (list, tuple)):
        return sum(memoryview(b).nbytes for b in weight_data)
    return memoryview(weight_data).nbytes


def _utf8_len(obj: Any) -> int:
    return len(js_json(obj).encode("utf-8"))


def get_model_artifacts_info_for_json(artifacts: ModelArtifacts) -> ModelArtifactsInfo:
    """Byte sizes of the topology and specs as ``JSON.stringify`` writes them, and of the
    weight data (TF.js's ``getModelArtifactsInfoForJSON``)."""
    if isinstance(artifacts.model_topology, (bytes, bytearray, memoryview)):
        raise ModelFormatError("Expected JSON model topology, received ArrayBuffer.")
    return ModelArtifactsInfo(
        date_saved=datetime.datetime.now(datetime.timezone.utc),
        model_topology_type="JSON",
        model_topology_bytes=0
        if artifacts.model_topology is None
        else _utf8_len(artifacts.model_topology),
        weight_specs_bytes=0
        if artifacts.weight_specs is None
        else _utf8_len(artifacts.weight_specs),
        weight_data_bytes=weight_data_length(artifacts.weight_data),
    )


def get_model_json_for_model_artifacts(
    artifacts: ModelArtifacts, manifest: list[dict[str, Any]]
) -> dict[str, Any]:
    """The ``model.json`` object for ``artifacts`` with weights manifest ``manifest`` (TF.js's
    ``getModelJSONForModelArtifacts``: same keys, same order)."""
    result: dict[str, Any] = {
        "modelTopology": artifacts.model_topology,
        "format": artifacts.format,
        "generatedBy": artifacts.generated_by,
        "convertedBy": artifacts.converted_by,
        "weightsManifest": manifest,
    }
    for attr, key in (
        ("signature", "signature"),
        ("user_defined_metadata", "userDefinedMetadata"),
        ("model_initializer", "modelInitializer"),
        ("initializer_signature", "initializerSignature"),
        ("training_config", "trainingConfig"),
    ):
        value = getattr(artifacts, attr)
        if value is not None:
            result[key] = value
    return result


def get_weight_specs(weights_manifest: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every group's ``weights``, concatenated in manifest order (TF.js's ``getWeightSpecs``)."""
    specs: list[dict[str, Any]] = []
    for group in weights_manifest:
        specs.extend(group["weights"])
    return specs


def get_model_artifacts_for_json(
    model_json: dict[str, Any], weight_specs: Any = None, weight_data: Any = None
) -> ModelArtifacts:
    """:class:`ModelArtifacts` from a parsed ``model.json`` plus its weights (TF.js's
    ``getModelArtifactsForJSONSync``)."""
    artifacts = ModelArtifacts(
        model_topology=model_json.get("modelTopology"),
        format=model_json.get("format"),
        generated_by=model_json.get("generatedBy"),
        converted_by=model_json.get("convertedBy"),
        training_config=model_json.get("trainingConfig"),
        signature=model_json.get("signature"),
        user_defined_metadata=model_json.get("userDefinedMetadata"),
        model_initializer=model_json.get("modelInitializer"),
        initializer_signature=model_json.get("initializerSignature"),
    )
    if model_json.get("weightsManifest") is not None:
        if weight_specs is None:
            raise ModelFormatError("model.json has weightsManifest but weight_specs is None")
        if weight_data is None:
            raise ModelFormatError("model.json has weightsManifest but weight_data is None")
        artifacts.weight_specs = weight_specs
        artifacts.weight_data = weight_data
        artifacts.weights_manifest = model_json["weightsManifest"]
    return artifacts


def artifacts_from_dict(obj: dict[str, Any], source: str = "<memory>") -> ModelArtifacts:
    """:class:`ModelArtifacts` from a dict with TF.js's camelCase keys (``modelTopology``,
    ``weightSpecs``, ``weightData``...) or our snake_case ones."""
    fields: dict[str, Any] = {}
    for key, value in obj.items():
        attr = _ARTIFACT_KEYS.get(key, key)
        if attr not in ModelArtifacts.__dataclass_fields__ or attr in ("source", "group_sizes"):
            raise ModelFormatError(
                f"{source}: unknown model artifacts field {key!r}; expected some of "
                f"{', '.join(_ARTIFACT_KEYS)}"
            )
        fields[attr] = value
    return ModelArtifacts(**fields, source=source)


# ----------------------------------------------------------------------------- validation
def _fail(source: str, problem: str) -> ModelFormatError:
    return ModelFormatError(f"{source}: {problem}")


def parse_model_json(text: bytes | str, source: str) -> dict[str, Any]:
    """Parses and checks a ``model.json``: a JSON object with a layers-model topology and/or a
    well-formed weights manifest. Raises :class:`ModelFormatError` naming ``source``."""
    if len(text) > MAX_MODEL_JSON_BYTES:
        raise _fail(
            source,
            f"model JSON of {len(text)} bytes is larger than the {MAX_MODEL_JSON_BYTES}-byte "
            "limit for a model.json",
        )
    try:
        if isinstance(text, (bytes, bytearray, memoryview)):
            text = bytes(text).decode("utf-8-sig")
        obj = json.loads(text)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        hint = (
            " (TF.js 1.0 removed .pb models: convert to model.json)"
            if source.endswith(".pb")
            else ""
        )
        raise _fail(source, f"is not valid JSON: {exc}{hint}") from None
    check_model_json(obj, source)
    return obj


def check_model_json(obj: Any, source: str) -> None:
    """Checks the structure of a parsed ``model.json`` (see :func:`parse_model_json`)."""
    if not isinstance(obj, dict):
        raise _fail(
            source,
            f"is not a model: expected a JSON object with 'modelTopology' and "
            f"'weightsManifest', but got a JSON {_json_type(obj)}",
        )
    topology = obj.get("modelTopology")
    manifest = obj.get("weightsManifest")
    if topology is None and manifest is None:
        raise _fail(
            source,
            "is not a model: the JSON contains neither model topology or manifest for weights "
            f"(keys found: {', '.join(map(str, list(obj)[:10])) or 'none'})",
        )
    fmt = obj.get("format")
    if fmt is not None and fmt not in (LAYERS_MODEL_FORMAT, GRAPH_MODEL_FORMAT):
        raise _fail(
            source,
            f"has format {fmt!r}; a layers model has format 'layers-model', a graph model "
            "'graph-model'",
        )
    if is_graph_topology(topology) or fmt == GRAPH_MODEL_FORMAT:
        if not is_graph_topology(topology):
            raise _fail(source, "is a graph model but its 'modelTopology' has no 'node' list")
    elif topology is not None:
        check_topology(topology, source)
    if manifest is not None:
        check_weights_manifest(manifest, source)
    for key in ("trainingConfig", "userDefinedMetadata"):
        if obj.get(key) is not None and not isinstance(obj[key], dict):
            raise _fail(
                source, f"'{key}' must be a JSON object, but is a JSON {_json_type(obj[key])}"
            )


def is_graph_topology(topology: Any) -> bool:
    """Whether ``topology`` is a GraphDef (a graph model's ``{'node': [...], ...}``)."""
    return (
        isinstance(topology, dict)
        and isinstance(topology.get("node"), list)
        and "class_name" not in topology
        and "model_config" not in topology
    )


def check_topology(topology: Any, source: str) -> None:
    """A layers-model topology: ``{class_name, config}`` or the converter's
    ``{model_config: {class_name, config}, ...}``."""
    if not isinstance(topology, dict):
        raise _fail(
            source,
            f"'modelTopology' must be a JSON object, but is a JSON {_json_type(topology)}",
        )
    if "node" in topology and "class_name" not in topology and "model_config" not in topology:
        raise _fail(
            source,
            "holds a graph model (a GraphDef topology with 'node'); tf.load_layers_model loads "
            "layers models only: load it with tf.load_graph_model",
        )
    inner = topology.get("model_config", topology)
    if not isinstance(inner, dict):
        raise _fail(
            source, f"'model_config' must be a JSON object, but is a JSON {_json_type(inner)}"
        )
    class_name = inner.get("class_name", inner.get("className"))
    if not isinstance(class_name, str):
        raise _fail(source, "the model topology has no 'class_name' string")
    if "config" not in inner:
        raise _fail(source, f"the model topology ({class_name}) has no 'config'")


def check_weights_manifest(manifest: Any, source: str) -> None:
    """``[{paths: [str...], weights: [entry...]}...]`` with every entry decodable and names
    unique."""
    if not isinstance(manifest, list):
        raise _fail(
            source,
            f"'weightsManifest' must be a JSON array of groups, but is a JSON {_json_type(manifest)}",
        )
    seen: set[str] = set()
    for g, group in enumerate(manifest):
        where = f"weightsManifest[{g}]"
        if not isinstance(group, dict):
            raise _fail(source, f"{where} must be an object with 'paths' and 'weights'")
        paths = group.get("paths")
        weights = group.get("weights")
        if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
            raise _fail(source, f"{where}.paths must be an array of strings")
        if not isinstance(weights, list):
            raise _fail(source, f"{where}.weights must be an array of weight entries")
        if weights and not paths:
            raise _fail(source, f"{where} lists {len(weights)} weights but no weight files")
        for i, entry in enumerate(weights):
            check_weight_spec(entry, source, f"{where}.weights[{i}]")
            if entry["name"] in seen:
                raise _fail(
                    source, f"{where}.weights[{i}]: duplicate weight name {entry['name']!r}"
                )
            seen.add(entry["name"])


def check_weight_spec(entry: Any, source: str, where: str = "weight") -> None:
    """One manifest entry: ``name``, ``shape`` (non-negative integers), ``dtype``, optional
    ``group`` and ``quantization`` (TF.js's ``decodeWeight`` checks, made before decoding)."""
    if not isinstance(entry, dict):
        raise _fail(source, f"{where} must be an object with name, shape and dtype")
    name = entry.get("name")
    if not isinstance(name, str) or not name:
        raise _fail(source, f"{where} has no 'name' string")
    where = f"weight {name!r}"
    shape = entry.get("shape")
    if not isinstance(shape, list) or not all(
        isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape
    ):
        raise _fail(
            source, f"{where}: 'shape' must be an array of non-negative integers, got {shape!r}"
        )
    if len(shape) > MAX_WEIGHT_RANK:
        raise _fail(source, f"{where}: rank {len(shape)} is more than {MAX_WEIGHT_RANK} dimensions")
    dtype = entry.get("dtype")
    if dtype not in WEIGHT_DTYPES:
        raise _fail(
            source,
            f"Unsupported dtype in weight '{name}': {dtype!r} (supported: {', '.join(WEIGHT_DTYPES)})",
        )
    group = entry.get("group")
    if group is not None and group not in ("model", "optimizer"):
        raise _fail(source, f"{where}: 'group' must be 'model' or 'optimizer', got {group!r}")
    if "quantization" not in entry:
        return
    q = entry["quantization"]
    if not isinstance(q, dict):
        raise _fail(source, f"{where}: 'quantization' must be an object, got {q!r}")
    qdtype = q.get("dtype")
    if qdtype in ("uint8", "uint16"):
        if not ("min" in q and "scale" in q):
            raise _fail(
                source,
                f"Weight {name} with quantization {qdtype} doesn't have corresponding metadata "
                "min and scale.",
            )
        for key in ("min", "scale"):
            v = q[key]
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
                raise _fail(
                    source, f"{where}: quantization {key} must be a finite number, got {v!r}"
                )
        if dtype not in ("float32", "int32"):
            raise _fail(
                source,
                f"Unsupported dtype in weight '{name}': {dtype} (quantization {qdtype} decodes "
                "to float32 or int32 only)",
            )
    elif qdtype == "float16":
        if dtype != "float32":
            raise _fail(
                source,
                f"Weight {name} is quantized with float16 which only supports weights of type "
                f"float32 not {dtype}.",
            )
    else:
        raise _fail(
            source,
            f"Weight {name} has unknown quantization dtype {qdtype}. Supported quantization "
            "dtypes are: 'uint8', 'uint16', and 'float16'.",
        )


def _json_type(obj: Any) -> str:
    if isinstance(obj, dict):
        return "object"
    if isinstance(obj, list):
        return "array"
    if isinstance(obj, str):
        return "string"
    if isinstance(obj, bool):
        return "boolean"
    if obj is None:
        return "null"
    return "number"
