"""``model.save_weights(path)`` and ``model.load_weights(path)``: weights checkpoints (TF 2's
and Keras's workflow; TF.js has only ``loadWeights`` from a dict of tensors).

A checkpoint ``prefix`` (``training/cp-0001.ckpt``) is two files, named as TF 2 names them:
``prefix.data-00000-of-00001`` holds everything (a short header, a JSON manifest in TF.js's
weight-spec format, then the weight bytes in TF.js's encoding, with their SHA-256), and
``prefix.index`` a copy of the manifest for people and tools. The directory's ``checkpoint``
file names the newest prefix (``tf.train.latest_checkpoint`` reads it).

Weights are matched by the model's structure, as TF 2 and Keras 3 match them, not by name: the
n-th layer that has weights takes the n-th layer's values of the checkpoint, in its weights'
order, so a fresh copy of a model (whose generated names differ) loads them. A checkpoint of
another architecture is refused before any weight changes.

Every file is replaced atomically (written beside its target, flushed, renamed over it), the
data first and the ``checkpoint`` file last: a save interrupted at any point leaves the
previous checkpoint readable and ``latest_checkpoint`` naming a complete one.

Paths ending in ``.h5`` are Keras's files (see :mod:`.keras_files`); ``LayersModel``'s
``save_weights``/``load_weights`` send them there.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
from typing import Any

from ...engine import ENGINE
from ...io.atomic import replace_file
from ...io.errors import ModelFileNotFoundError, ModelFormatError
from ...io.weights import encode_weights, layout_weights, make_weight_tensor
from ...train import (
    CHECKPOINT_DATA_SUFFIX,
    CHECKPOINT_INDEX_SUFFIX,
    CHECKPOINT_STATE_FILE,
    checkpoint_state_text,
)

__all__ = ["load_weights_file", "save_weights_file", "weight_slots"]

_MAGIC = b"TIDYTENSOR-WEIGHTS-CHECKPOINT\n"
_FORMAT = "tidytensor-weights-checkpoint"
_VERSION = 1
_MAX_HEADER_BYTES = 256 * 1024 * 1024


def weight_slots(model: Any) -> list[tuple[int, Any, list[Any]]]:
    """``(position, layer, weights)`` for each layer of ``model`` that has weights, position
    counting only such layers (the structure checkpoints are matched by)."""
    slots = []
    for layer in model.layers:
        weights = list(layer.weights)
        if weights:
            slots.append((len(slots), layer, weights))
    return slots


def _layer_label(layer: Any) -> str:
    return f"{layer.get_class_name()} {layer.name!r}"


# -------------------------------------------------------------------------------- saving
def save_weights_file(model: Any, filepath: str | os.PathLike, overwrite: bool = True) -> str:
    """Writes ``model``'s weights to the checkpoint ``filepath`` (see the module docstring)
    and names it in its directory's ``checkpoint`` file. Returns the prefix written."""
    prefix = os.fspath(filepath)
    data_path = prefix + CHECKPOINT_DATA_SUFFIX
    if not overwrite and os.path.exists(data_path):
        raise ModelFormatError(
            f"save_weights: {prefix!r} already exists and overwrite=False was given"
        )
    named = []
    for position, layer, weights in weight_slots(model):
        for index, w in enumerate(weights):
            named.append(
                (
                    {"name": w.original_name, "tensor": w.read()},
                    {
                        "layer": position,
                        "layer_class": layer.get_class_name(),
                        "layer_name": layer.name,
                        "index": index,
                    },
                )
            )
    data, specs = encode_weights([n for n, _ in named])
    for spec, (_, where) in zip(specs, named, strict=True):
        spec.update(where)
    manifest = {
        "format": _FORMAT,
        "version": _VERSION,
        "model_class": model.get_class_name(),
        "weights": specs,
        "data_bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
    }
    header = json.dumps(manifest).encode("utf-8")
    replace_file(data_path, [_MAGIC, struct.pack("<Q", len(header)), header, data])
    replace_file(prefix + CHECKPOINT_INDEX_SUFFIX, [json.dumps(manifest, indent=1).encode()])
    directory, base = os.path.split(os.path.abspath(prefix))
    replace_file(
        os.path.join(directory, CHECKPOINT_STATE_FILE), [checkpoint_state_text(base).encode()]
    )
    return prefix


# ------------------------------------------------------------------------------- loading
def _read_checkpoint(prefix: str) -> tuple[dict[str, Any], memoryview]:
    data_path = prefix + CHECKPOINT_DATA_SUFFIX
    if not os.path.isfile(data_path):
        if os.path.isfile(prefix):  # the data file itself was named
            data_path = prefix
        else:
            raise ModelFileNotFoundError(
                f"load_weights: no checkpoint at {prefix!r} (expected the file {data_path!r}, "
                "written by model.save_weights or ModelCheckpoint(save_weights_only=True))"
            )
    with open(data_path, "rb") as f:
        raw = f.read()
    if not raw.startswith(_MAGIC) or len(raw) < len(_MAGIC) + 8:
        raise ModelFormatError(
            f"load_weights: {data_path!r} is not a tidytensor weights checkpoint"
        )
    start = len(_MAGIC) + 8
    (length,) = struct.unpack("<Q", raw[len(_MAGIC) : start])
    if length > min(_MAX_HEADER_BYTES, len(raw) - start):
        raise ModelFormatError(f"load_weights: {data_path!r} is truncated (in its header)")
    try:
        manifest = json.loads(raw[start : start + length].decode("utf-8"))
    except ValueError as exc:
        raise ModelFormatError(f"load_weights: {data_path!r} has a corrupt header: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != _FORMAT:
        raise ModelFormatError(f"load_weights: {data_path!r} is not a weights checkpoint")
    data = memoryview(raw)[start + length :]
    if len(data) != manifest.get("data_bytes") or (
        hashlib.sha256(data).hexdigest() != manifest.get("sha256")
    ):
        raise ModelFormatError(
            f"load_weights: {data_path!r} is damaged: its weight bytes do not match the "
            f"checksum written with them ({len(data)} bytes, {manifest.get('data_bytes')} "
            "expected)"
        )
    return manifest, data


def _describe(entries: list[dict[str, Any]]) -> str:
    return ", ".join(f"{e['name']} {e['shape']}" for e in entries)


def load_weights_file(model: Any, filepath: str | os.PathLike) -> None:
    """Sets ``model``'s weights from the checkpoint ``filepath`` (a prefix from
    ``save_weights``/``latest_checkpoint``). Every layer, shape and dtype is checked before
    anything is written; a mismatch raises :class:`ModelFormatError` and changes nothing."""
    prefix = os.fspath(filepath)
    manifest, data = _read_checkpoint(prefix)
    specs = manifest.get("weights")
    if not isinstance(specs, list):
        raise ModelFormatError(f"load_weights: {prefix!r} has no weights list")
    pieces = layout_weights(data, specs, prefix)
    by_layer: dict[int, list[Any]] = {}
    for piece in pieces:
        by_layer.setdefault(piece.spec.get("layer"), []).append(piece)
    slots = weight_slots(model)
    if len(by_layer) != len(slots):
        hint = (
            "the model has no weights yet: build it (give the first layer an input_shape, or "
            "call model.build) before loading"
            if not slots
            else "the checkpoint was saved from another architecture"
        )
        raise ModelFormatError(
            f"load_weights: {prefix!r} holds weights for {len(by_layer)} layers but the model "
            f"({model.get_class_name()} {model.name!r}) has {len(slots)} layers with weights "
            f"({hint}); no weight was changed"
        )
    pairs = []
    for (position, layer, weights), saved in zip(slots, by_layer.values(), strict=True):
        specs_here = [p.spec for p in saved]
        shapes_match = len(saved) == len(weights) and all(
            list(w.shape) == list(s["shape"]) and w.dtype == s["dtype"]
            for w, s in zip(weights, specs_here, strict=False)
        )
        if not shapes_match:
            model_side = [{"name": w.original_name, "shape": list(w.shape)} for w in weights]
            raise ModelFormatError(
                f"load_weights: {prefix!r} was saved from another architecture: layer "
                f"{position} with weights ({_layer_label(layer)}) has {_describe(model_side)} "
                f"but the checkpoint's layer {position} ({specs_here[0].get('layer_class')} "
                f"{specs_here[0].get('layer_name')!r}) has {_describe(specs_here)}; no weight "
                "was changed"
            )
        pairs.extend(zip(weights, saved, strict=True))

    def write() -> None:
        values = [make_weight_tensor(piece) for _, piece in pairs]  # every value first
        for (variable, _), value in zip(pairs, values, strict=True):
            variable.write(value)

    ENGINE.tidy(write)
