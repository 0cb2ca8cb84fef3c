"""Keras's own files, read directly (beyond TF.js and its converter):

- a Keras 3 ``.keras`` file (a zip of ``config.json``, ``model.weights.h5``, ``metadata.json``)
  and a Keras 2 ``.h5`` file (``model.save('m.h5')``: the config in the ``model_config``
  attribute, the weights in ``model_weights``) through ``tf.load_layers_model(path)``;
- ``tf.models.model_from_json(model.to_json())`` for Keras 2 and 3 configs
  (:mod:`.keras_configs`);
- ``model.save_weights('m.weights.h5')``, in Keras 3's layout (Keras 3 and tf-keras load it);
- ``model.load_weights(path)`` for a ``.weights.h5`` or ``.h5`` weights file, in either layout:
  Keras 3's (``layers/<layer>/vars/<i>``, layers keyed by their class's snake_case name and
  position, ``dense``, ``dense_1``...) or Keras 2's (``layer_names``/``weight_names``
  attributes, layers matched in order among those with weights, as Keras 2 does).

HDF5 needs ``h5py``, the optional extra ``keras`` (``pip install 'tidytensor[keras]'``).
Every weight is checked against the model (count, shape) before any is written; a mismatch
raises :class:`ModelFormatError` naming the file and the layer, and changes nothing.
"""

from __future__ import annotations

import io
import json
import os
import re
import warnings
import zipfile
from typing import Any

import numpy as np

from ...engine import ENGINE
from ...io.artifacts import ModelArtifacts
from ...io.atomic import replace_file
from ...io.errors import ModelFileNotFoundError, ModelFormatError
from ...ops import tensor as make_tensor
from ...py_strings import py_shape
from .keras_configs import keras_to_layers_config, keras_training_config
from .saving import FILE_LOADERS, model_from_artifacts
from .training_config import load_training_config

__all__ = [
    "is_keras_file",
    "keras_file_version",
    "load_keras_file",
    "load_keras_weights",
    "model_from_json",
    "save_keras_weights",
]

#: ``.keras`` zip members larger than this are refused (a damaged or hostile file).
MAX_MEMBER_BYTES = 8 * 1024**3
_SUBGROUP_ORDER = ("cell", "forward_layer", "backward_layer", "layer")


def _h5py() -> Any:
    try:
        import h5py
    except ImportError:
        raise ImportError(
            "Reading Keras .h5/.keras files needs h5py: install the optional extra 'keras' "
            "(pip install 'tidytensor[keras]') or h5py itself"
        ) from None
    return h5py


def is_keras_file(path: Any) -> bool:
    """Whether ``path`` names a local Keras file (``.keras``, ``.h5``, ``.hdf5``), not a
    directory."""
    if not isinstance(path, (str, os.PathLike)):
        return False
    name = os.fspath(path)
    if name.startswith("file://"):
        name = name[len("file://") :]
    elif "://" in name:
        return False
    # A directory so named is TF.js's format (model.save('best.keras') writes one).
    return name.lower().endswith((".keras", ".h5", ".hdf5")) and not os.path.isdir(name)


def _local(path: Any) -> str:
    name = os.fspath(path)
    return name[len("file://") :] if name.startswith("file://") else name


# ------------------------------------------------------------------------------ configs
def model_from_json(
    model_json: Any, custom_objects: dict[str, Any] | None = None, source: str | None = None
) -> Any:
    """A model built from a Keras ``model.to_json()`` string (Keras 2 or 3), its parsed dict,
    or TF.js's ``{modelTopology: ...}`` (``tf.models.modelFromJSON``). Weights are the layers'
    initial values; load them with ``model.load_weights``."""
    where = source or "model_from_json"
    if isinstance(model_json, (str, bytes, bytearray)):
        try:
            model_json = json.loads(model_json)
        except ValueError as exc:
            raise ModelFormatError(f"{where}: the model JSON does not parse: {exc}") from None
    if not isinstance(model_json, dict):
        raise ModelFormatError(
            f"{where}: expected a model config (a JSON object with class_name and config), "
            f"got {type(model_json).__name__}"
        )
    topology = model_json.get("modelTopology", model_json.get("model_topology", model_json))
    artifacts = ModelArtifacts(model_topology=keras_to_layers_config(topology), source=where)
    return model_from_artifacts(artifacts, custom_objects=custom_objects)


# ------------------------------------------------------------------------------- files
def load_keras_file(path: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """The model in a Keras 3 ``.keras`` or Keras 2 ``.h5`` file, with its weights."""
    filename = _local(path)
    if not os.path.isfile(filename):
        raise ModelFileNotFoundError(f"{filename}: no such Keras model file")
    if filename.lower().endswith(".keras"):
        config, weights_file = _read_keras_zip(filename)
        training = config.get("compile_config") if isinstance(config, dict) else None
    else:
        h5py = _h5py()
        with h5py.File(filename, "r") as f:
            raw = f.attrs.get("model_config")
            raw_training = f.attrs.get("training_config")
        if raw is None:
            raise ModelFormatError(
                f"{filename}: this .h5 file holds weights only (no model_config): build the "
                "model, then call model.load_weights(path)"
            )
        config = json.loads(_text(raw))
        training = None if raw_training is None else json.loads(_text(raw_training))
        weights_file = filename
    model = model_from_json(config, custom_objects, source=filename)
    try:
        load_keras_weights(model, weights_file, source=filename)
        _compile_as_saved(model, keras_training_config(training), filename)
    except BaseException:
        model.dispose()
        raise
    return model


def _text(raw: Any) -> str:
    return raw.decode("utf-8") if isinstance(raw, bytes) else str(raw)


def _compile_as_saved(model: Any, training: dict[str, Any] | None, filename: str) -> None:
    """Compiles ``model`` as it was compiled when saved, as TF.js does with a converted model's
    ``trainingConfig``; what TF.js cannot compile (a Keras-only optimizer, loss or metric)
    leaves the model uncompiled, with a warning saying why."""
    if training is None:
        return
    try:
        load_training_config(model, training, filename)
    except ModelFormatError as exc:
        warnings.warn(
            f"{exc}; the model is loaded uncompiled (compile it before fit)",
            stacklevel=4,  # tf.load_layers_model's caller
        )


def keras_file_version(path: Any) -> str:
    """``'Keras 3.15.1 (.keras)'``: who wrote the Keras file ``path`` (for summaries)."""
    filename = _local(path)
    version = None
    if filename.lower().endswith(".keras"):
        try:
            with zipfile.ZipFile(filename) as archive:
                version = json.loads(archive.read("metadata.json")).get("keras_version")
        except (KeyError, ValueError, OSError, zipfile.BadZipFile):
            pass
        return f"Keras {version or '(version not recorded)'} (.keras)"
    with _h5py().File(filename, "r") as f:
        version = f.attrs.get("keras_version")
    if isinstance(version, bytes):
        version = version.decode("utf-8", "replace")
    return f"Keras {version or '(version not recorded)'} (.h5)"


def _read_keras_zip(filename: str) -> tuple[dict[str, Any], io.BytesIO]:
    try:
        with zipfile.ZipFile(filename) as archive:
            members = {info.filename: info for info in archive.infolist()}
            for needed in ("config.json", "model.weights.h5"):
                if needed not in members:
                    raise ModelFormatError(
                        f"{filename}: a .keras file holds config.json and model.weights.h5; "
                        f"{needed} is missing (members: {', '.join(sorted(members))})"
                    )
                if members[needed].file_size > MAX_MEMBER_BYTES:
                    raise ModelFormatError(f"{filename}: {needed} is larger than allowed")
            config = json.loads(archive.read("config.json").decode("utf-8"))
            weights = io.BytesIO(archive.read("model.weights.h5"))
    except zipfile.BadZipFile as exc:
        raise ModelFormatError(f"{filename}: not a Keras 3 .keras file (a zip): {exc}") from None
    except ValueError as exc:
        raise ModelFormatError(f"{filename}: config.json does not parse: {exc}") from None
    return config, weights


FILE_LOADERS.append((is_keras_file, load_keras_file))  # tf.load_layers_model('m.keras')


# ----------------------------------------------------------------------------- weights
def _keras3_key_names(layers: list[Any]) -> list[str]:
    """Keras 3's key for each layer: its class's snake_case name, ``_1``, ``_2``... for the
    second, third... of one class."""
    used: dict[str, int] = {}
    keys = []
    for layer in layers:
        name = re.sub(r"\W+", "", layer.get_class_name())
        name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
        name = re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()
        if name in used:
            used[name] += 1
            keys.append(f"{name}_{used[name]}")
        else:
            used[name] = 0
            keys.append(name)
    return keys


def _keras3_layers(model: Any) -> list[Any]:
    """The layers Keras 3 saves for ``model``: a Sequential's without its InputLayer."""
    layers = list(model.layers)
    if model.get_class_name() == "Sequential":
        layers = [layer for layer in layers if layer.get_class_name() != "InputLayer"]
    return layers


def _group_arrays(group: Any) -> list[Any]:
    """A Keras 3 saveable's datasets: its ``vars`` in index order, then its sub-objects'."""
    arrays = []
    if "vars" in group:
        arrays += [group["vars"][k] for k in sorted(group["vars"], key=int)]
    rest = [k for k in group if k != "vars"]
    rest.sort(key=lambda k: (_SUBGROUP_ORDER.index(k) if k in _SUBGROUP_ORDER else 99, k))
    for key in rest:
        arrays += _group_arrays(group[key])
    return arrays


def _keras3_pairs(model: Any, root: Any, source: str, where: str = "layers") -> list[Any]:
    pairs = []
    layers_group = root.get("layers")
    layers = _keras3_layers(model)
    for layer, key in zip(layers, _keras3_key_names(layers), strict=True):
        if not layer.weights:
            continue
        group = None if layers_group is None else layers_group.get(key)
        if group is None:
            raise ModelFormatError(
                f"{source}: no weights for layer {layer.name!r} ({layer.get_class_name()}): "
                f"the file has no group {where}/{key} (it holds "
                f"{', '.join(layers_group or []) or 'no layers'})"
            )
        if hasattr(layer, "layers") and "layers" in group:  # a nested model
            pairs += _keras3_pairs(layer, group, source, f"{where}/{key}/layers")
            continue
        pairs += _check_layer(layer, _group_arrays(group), source, f"{where}/{key}")
    return pairs


def _legacy_pairs(model: Any, group: Any, source: str) -> list[Any]:
    def names(obj: Any, attr: str) -> list[str]:
        return [n.decode("utf-8") if isinstance(n, bytes) else str(n) for n in obj.attrs[attr]]

    saved = [
        (name, names(group[name], "weight_names"))
        for name in names(group, "layer_names")
        if len(group[name].attrs.get("weight_names", [])) > 0
    ]
    layers = [layer for layer in model.layers if layer.weights]
    if len(saved) != len(layers):
        raise ModelFormatError(
            f"{source}: the file holds weights for {len(saved)} layers "
            f"({', '.join(n for n, _ in saved)}) but the model has {len(layers)} layers with "
            f"weights ({', '.join(layer.name for layer in layers)})"
        )
    pairs = []
    for layer, (name, weight_names) in zip(layers, saved, strict=True):
        arrays = [group[name][w] for w in weight_names]
        pairs += _check_layer(layer, arrays, source, name)
    return pairs


def _check_layer(layer: Any, arrays: list[Any], source: str, where: str) -> list[Any]:
    weights = list(layer.weights)
    shapes = [list(a.shape) for a in arrays]
    if len(arrays) != len(weights) or any(
        list(w.shape) != s for w, s in zip(weights, shapes, strict=False)
    ):
        raise ModelFormatError(
            f"{source}: layer {layer.name!r} ({layer.get_class_name()}) has weights "
            f"{py_shape([w.shape for w in weights])} but the file's {where} has {py_shape(shapes)}"
        )
    return [(w, np.asarray(a[()])) for w, a in zip(weights, arrays, strict=True)]


def load_keras_weights(model: Any, path: Any, source: str | None = None) -> None:
    """Sets ``model``'s weights from a Keras ``.weights.h5``/``.h5`` file (a path or an open
    binary file), either layout (see the module docstring). Nothing changes on a mismatch."""
    h5py = _h5py()
    if source is not None:
        where = source
    else:
        where = "<h5 file>" if hasattr(path, "read") else os.fspath(path)
    if isinstance(path, (str, os.PathLike)):
        path = _local(path)
        if not os.path.isfile(path):
            raise ModelFileNotFoundError(f"load_weights: no such Keras weights file {path!r}")
        if path.lower().endswith(".keras"):  # a whole model: its weights member
            path = _read_keras_zip(path)[1]
    try:
        f = h5py.File(path, "r")
    except OSError as exc:
        raise ModelFormatError(f"{where}: not an HDF5 (Keras .h5) file: {exc}") from None
    with f:
        if "model_weights" in f:
            pairs = _legacy_pairs(model, f["model_weights"], where)
        elif "layer_names" in f.attrs:
            pairs = _legacy_pairs(model, f, where)
        elif "layers" in f or "vars" in f:
            pairs = _keras3_pairs(model, f, where)
        else:
            raise ModelFormatError(
                f"{where}: no Keras weights in this HDF5 file (neither Keras 3's 'layers' "
                "group nor Keras 2's 'layer_names')"
            )

    def write() -> None:
        values = [make_tensor(a, None, variable.dtype) for variable, a in pairs]
        for (variable, _), value in zip(pairs, values, strict=True):
            variable.write(value)

    ENGINE.tidy(write)


# ------------------------------------------------------------------------------ saving
def _saveable_children(obj: Any) -> list[tuple[str, Any]]:
    """The sub-objects Keras 3 saves under their own group, in its names."""
    if hasattr(obj, "forward_layer") and hasattr(obj, "backward_layer"):
        return [("forward_layer", obj.forward_layer), ("backward_layer", obj.backward_layer)]
    if getattr(obj, "cell", None) is not None:
        return [("cell", obj.cell)]
    if getattr(obj, "layer", None) is not None and not hasattr(obj, "layers"):
        return [("layer", obj.layer)]
    return []


def _write_saveable(group: Any, obj: Any) -> None:
    """``obj``'s weights as Keras 3 writes them: a model's layers under ``layers/<key>``, a
    wrapper's or RNN's inner layer or cell under its attribute's name, others in ``vars``."""
    vars_group = group.create_group("vars")
    if hasattr(obj, "layers") and not hasattr(obj, "cell"):
        layers_group = group.create_group("layers")
        layers = _keras3_layers(obj)
        for layer, key in zip(layers, _keras3_key_names(layers), strict=True):
            _write_saveable(layers_group.create_group(key), layer)
        return
    children = _saveable_children(obj)
    if children:
        for name, child in children:
            _write_saveable(group.create_group(name), child)
        return
    for index, weight in enumerate(obj.weights):
        vars_group.create_dataset(str(index), data=np.asarray(weight.read().numpy()))


def save_keras_weights(model: Any, path: str) -> str:
    """Writes ``model``'s weights to ``path`` in Keras 3's ``.weights.h5`` layout, atomically
    (written in memory, then replaced as one file). Returns the path."""
    h5py = _h5py()
    buffer = io.BytesIO()
    with h5py.File(buffer, "w") as f:
        _write_saveable(f, model)
    replace_file(path, [buffer.getvalue()])
    return path
