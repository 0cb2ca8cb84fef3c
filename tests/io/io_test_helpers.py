"""Fixtures and helpers shared by the tests in tests/io. (Not a conftest.py: a second
package-less ``conftest`` module next to tests/layers/conftest.py collides under
``--doctest-modules``.) Each test module imports the two autouse fixtures:

- ``fresh_layer_names``: layer-name counters start at 1, as each TF.js fixture model did;
- ``private_model_store``: ``localstorage://`` / ``indexeddb://`` go to a temporary directory.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

import tidytensor as tf
import tidytensor.layers  # noqa: F401 - registers the layer classes
from tidytensor.layers.engine import state
from tidytensor.layers.engine.saving import _layer_class_names
from tidytensor.layers.engine.serialization import SerializationMap

GOLDEN_IO = Path(__file__).resolve().parents[1] / "golden" / "io"


@pytest.fixture(autouse=True)
def fresh_layer_names():
    state._reset_for_tests()
    yield


@pytest.fixture(autouse=True)
def private_model_store(tmp_path, monkeypatch):
    monkeypatch.setenv("TIDYTENSOR_MODEL_STORE", str(tmp_path / "model-store"))
    yield


def fixture_dirs() -> list[str]:
    return sorted(
        p.name for p in GOLDEN_IO.iterdir() if p.is_dir() and (p / "model.json").is_file()
    )


def missing_layer_classes(model_dir: Path) -> list[str]:
    """Layer classes the fixture's topology names that no layer family has registered yet."""
    topology = json.loads((model_dir / "model.json").read_text())["modelTopology"]
    known = set(SerializationMap.get_map().class_name_map.get("layer", {}))
    return sorted(set(_layer_class_names(topology.get("model_config", topology))) - known)


def read_record(model_dir: Path) -> dict:
    return json.loads((model_dir / "predict.json").read_text())


def record_inputs(record: dict) -> list:
    return [
        tf.tensor(np.asarray(i["values"], np.float32).reshape(i["shape"])) for i in record["inputs"]
    ]


def assert_outputs_match(ys, record: dict, tol: float = 1e-5) -> None:
    ys = ys if isinstance(ys, list) else [ys]
    assert len(ys) == len(record["outputs"])
    for y, expected in zip(ys, record["outputs"], strict=True):
        assert y.shape == expected["shape"]
        want = np.asarray(expected["values"], np.float64)
        got = np.asarray(y.numpy(), np.float64).reshape(-1)
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def memory_counts() -> tuple[int, int, int]:
    m = tf.memory()
    return m.num_tensors, m.num_data_buffers, m.num_bytes


def dense_model(name: str = "m", units: int = 3, inputs: int = 4, seed: int = 0):
    """A deterministic Sequential Dense(relu) + Dense model with explicit layer names."""
    from tidytensor import layers

    model = layers.models.sequential(
        [
            layers.dense(units=units, input_shape=[inputs], activation="relu", name=f"{name}_d1"),
            layers.dense(units=2, name=f"{name}_d2"),
        ],
        name=name,
    )
    rng = np.random.default_rng(seed)
    values = [tf.tensor(rng.standard_normal(w.shape).astype(np.float32)) for w in model.weights]
    model.set_weights(values)
    tf.dispose(values)
    return model


def files_in(path: str | os.PathLike) -> list[str]:
    return sorted(os.listdir(path))
