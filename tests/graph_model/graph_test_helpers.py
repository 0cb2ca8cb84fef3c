"""Shared by the graph-model tests: TF.js's recorded values as tensors, and comparisons."""

from __future__ import annotations

import base64
import math
from pathlib import Path
from typing import Any

import numpy as np

import tidytensor as tf

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
GRAPH_MODELS = GOLDEN / "graph_models"

#: TF.js's float32 test tolerance (``expectArraysClose``).
TOL = 1e-3


def _number(v: Any) -> Any:
    if isinstance(v, str):
        return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[v]
    return v


def values_of(spec: dict[str, Any]) -> list[Any]:
    """A recorded tensor's values: listed, or float32 bytes in base64 (``f32``)."""
    if "f32" in spec:
        return np.frombuffer(base64.b64decode(spec["f32"]), "<f4").tolist()
    return [_number(v) for v in spec["values"]]


def to_tensor(spec: dict[str, Any]) -> Any:
    dtype = spec["dtype"]
    values = values_of(spec) if dtype != "string" else spec["values"]
    if dtype == "string":
        return tf.tensor(values, spec["shape"], "string")
    return tf.tensor(values, spec["shape"], dtype)


def feeds(run: dict[str, Any]) -> dict[str, Any]:
    return {name: to_tensor(spec) for name, spec in run["inputs"].items()}


def assert_matches(got: Any, expected: dict[str, Any], what: str, tol: float = TOL) -> None:
    assert list(got.shape) == expected["shape"], f"{what}: shape {got.shape}"
    assert got.dtype == expected["dtype"], f"{what}: dtype {got.dtype}"
    if expected["dtype"] == "string":
        values = [v.decode() if isinstance(v, bytes) else v for v in got.data_sync()]
        assert values == expected["values"], what
        return
    want = np.asarray(values_of(expected), np.float64)
    have = np.asarray(got.data_sync(), np.float64).reshape(-1)
    if expected["dtype"] in ("int32", "bool"):
        np.testing.assert_array_equal(have, want, err_msg=what)
    else:
        np.testing.assert_allclose(have, want, rtol=tol, atol=tol, err_msg=what)


def as_list(result: Any) -> list[Any]:
    return list(result) if isinstance(result, list) else [result]
