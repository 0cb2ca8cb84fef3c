"""A directory's weight files are read only after the manifest matched the model's weights:
a (sparse) shard that fits its manifest but not the topology is refused unread."""

from __future__ import annotations

import importlib
import json

import numpy as np
import pytest
from io_test_helpers import (  # noqa: F401 - autouse fixtures
    dense_model,
    fresh_layer_names,
    memory_counts,
    private_model_store,
)

import tidytensor as tf
from tidytensor.io import ModelFormatError

#: The module (``tidytensor.io.file_system`` is also the name of its handler function).
file_system = importlib.import_module("tidytensor.io.file_system")


@pytest.fixture
def saved(tmp_path):
    model = dense_model()
    folder = tmp_path / "m"
    tf.io.save_model(model, str(folder), shard_size_bytes=None)
    model.dispose()
    return folder


def test_shapes_are_checked_before_any_weight_byte_is_read(saved, monkeypatch):
    obj = json.loads((saved / "model.json").read_text())
    weights = obj["weightsManifest"][0]["weights"]
    weights[0]["shape"] = [4096, 16384]  # 256 MiB of float32 where the model has [4, 3]
    total = sum(4 * int(np.prod(w["shape"])) for w in weights)
    (saved / "model.json").write_text(json.dumps(obj))
    with open(saved / "weights.bin", "r+b") as f:
        f.truncate(total)  # sparse: the sizes match the manifest
    reads = []
    real = file_system._read_group
    monkeypatch.setattr(file_system, "_read_group", lambda *a: reads.append(a) or real(*a))
    progress = []
    before = memory_counts()
    with pytest.raises(
        ModelFormatError,
        match=r"weight m_d1/kernel has shape \(4096, 16384\) in the manifest but the model's "
        r"m_d1/kernel has shape \(4, 3\)",
    ):
        tf.io.load_layers_model(str(saved), on_progress=progress.append)
    assert reads == [] and progress == []
    assert memory_counts() == before


def test_weights_are_read_once_after_matching(saved, monkeypatch):
    reads = []
    real = file_system._read_group
    monkeypatch.setattr(file_system, "_read_group", lambda *a: reads.append(a) or real(*a))
    progress = []
    model = tf.io.load_layers_model(str(saved), on_progress=progress.append)
    reference = dense_model(name="m")
    for a, b in zip(model.weights, reference.weights, strict=True):
        np.testing.assert_array_equal(a.read().numpy(), b.read().numpy())
    assert len(reads) == 1 and progress[-1] == 1.0
    model.dispose()
    reference.dispose()
    artifacts = tf.io.file_system(str(saved)).load()  # a handler's load() still reads all
    assert sum(memoryview(b).nbytes for b in artifacts.weight_data) == (4 * 3 + 3 + 3 * 2 + 2) * 4
