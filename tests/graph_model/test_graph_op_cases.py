"""One small graph model per TensorFlow op (tests/golden/results/graph_op_cases.json, written by
tests/golden/make_graph_models.js with tests/golden/graph_op_cases.js): each runs in tidytensor
as it ran in TF.js 4.22 (values, dtypes, shapes, and the tensors each call makes and leaves),
and together with the fixtures they exercise every op name the op table maps."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest
from graph_test_helpers import GOLDEN, GRAPH_MODELS, as_list, assert_matches, to_tensor

import tidytensor as tf
from tidytensor.graph_model import OP_TABLE

RECORD = json.loads((GOLDEN / "results" / "graph_op_cases.json").read_text())
CASES = RECORD["cases"]
BY_NAME = {c["name"]: c for c in CASES}

#: Cases TF.js 4.22 cannot run (its bugs, or ops its converter lacks), with what TensorFlow
#: computes for them.
BEYOND_TFJS = {
    # TF.js's executor reads inputs 'a'/'b' its op list names 'x'/'y'.
    "BitwiseAnd": [{"shape": [4], "dtype": "int32", "values": [8, 2, 3, 15]}],
    # TF.js's executor reads an attribute its op list does not define.
    "EnsureShape": None,  # the input, unchanged
    # Ragged ops: in TF.js's op lists after 4.22.
    "RaggedGather": [
        {"shape": [3], "dtype": "int32", "values": [0, 2, 4]},
        {"shape": [4], "dtype": "float32", "values": [4, 5, 1, 2]},
    ],
    "RaggedRange": [
        {"shape": [3], "dtype": "int32", "values": [0, 3, 5]},
        {"shape": [5], "dtype": "int32", "values": [0, 1, 2, 5, 7]},
    ],
    "RaggedTensorToTensor": [
        {
            "shape": [3, 4],
            "dtype": "float32",
            "values": [1, 2, -1, -1, -1, -1, -1, -1, 3, 4, 5, -1],
        },
    ],
}


#: Cases where TF.js 4.22 computes something else than TensorFlow, and what tidytensor computes.
TFJS_BUGS = {
    # TF.js's op list reads num_upper from input 1, num_lower's: TensorFlow keeps the lower band.
    "MatrixBandPart": lambda inputs: np.tril(np.triu(inputs["in0"], -1), 0),
}


def _load(case):
    artifacts = {
        "modelTopology": case["modelJson"]["modelTopology"],
        "format": "graph-model",
        "weightSpecs": case["modelJson"]["weightsManifest"][0]["weights"],
        "weightData": base64.b64decode(case["weightData"]),
    }
    if case["modelJson"].get("modelInitializer"):
        artifacts["modelInitializer"] = case["modelJson"]["modelInitializer"]
    return tf.load_graph_model(tf.io.from_memory(artifacts))


def test_the_table_maps_every_op_tfjs_maps():
    """All 242 op names TF.js 4.22's converter maps, and the three ragged ops of its later
    op lists."""
    tfjs = set(RECORD["tfjsOpNames"])
    assert len(tfjs) == 242
    assert tfjs <= set(OP_TABLE), sorted(tfjs - set(OP_TABLE))
    assert set(OP_TABLE) - tfjs == {"RaggedGather", "RaggedRange", "RaggedTensorToTensor"}


def test_every_mapped_op_runs_in_a_case_or_fixture():
    seen = set()
    for case in CASES:
        seen |= {n["op"] for n in case["modelJson"]["modelTopology"]["node"]}
    for model_json in GRAPH_MODELS.glob("*/model.json"):
        topology = json.loads(model_json.read_text())
        seen |= {n["op"] for n in topology["modelTopology"]["node"]}
        for fn in topology["modelTopology"].get("library", {}).get("function", []):
            seen |= {n["op"] for n in fn.get("nodeDef", [])}
        seen |= {n["op"] for n in (topology.get("modelInitializer") or {}).get("node", [])}
    missing = set(OP_TABLE) - seen
    # InitializeTable(V2), LookupTable*(V1) and HashTable (V1) share the V2 entries' code.
    assert missing <= {
        "HashTable",
        "InitializeTable",
        "InitializeTableV2",
        "LookupTableFind",
        "LookupTableImport",
        "LookupTableSize",
        "If",
        "While",
    }, sorted(missing)


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_op_case_matches_tfjs(name):
    case = BY_NAME[name]
    assert "loadError" not in case or name in BEYOND_TFJS, case.get("loadError")
    start = tf.memory().num_tensors
    model = _load(case)
    for run in case["runs"]:
        inputs = {k: to_tensor(v) for k, v in run["inputs"].items()}
        methods = ("execute",) if run.get("once") else ("execute", "execute_async")
        for method in methods:
            before = tf.memory().num_tensors
            out = getattr(model, method)(inputs, run["outputs"])
            results = as_list(out)
            if "error" in run or "loadError" in case:
                expected = BEYOND_TFJS[name]
                if expected is None:
                    np.testing.assert_array_equal(
                        results[0].numpy(), next(iter(inputs.values())).numpy()
                    )
                else:
                    for k, (got, want) in enumerate(zip(results, expected, strict=True)):
                        assert_matches(got, want, f"{name} output {k}")
            elif name in TFJS_BUGS:
                want = TFJS_BUGS[name]({k: v.numpy() for k, v in inputs.items()})
                np.testing.assert_allclose(results[0].numpy(), want, rtol=1e-6)
            else:
                # What TF.js leaks (TensorListSetItem drops the replaced element without
                # freeing it) is not made here.
                made = run["memory"]["newTensors"] - run["memory"]["leaked"]
                assert tf.memory().num_tensors - before == made, method
                for k, (got, want) in enumerate(zip(results, run["results"], strict=True)):
                    if case.get("random"):
                        assert list(got.shape) == want["shape"] and got.dtype == want["dtype"]
                    else:
                        assert_matches(got, want, f"{name} output {k} ({method})")
            returns_input = any(r is t for r in results for t in inputs.values())
            if not run.get("once") and not returns_input:
                tf.dispose(out)
                assert tf.memory().num_tensors == before, f"{name}: {method} left tensors"
        tf.dispose(list(inputs.values()))
    model.dispose()
    assert tf.memory().num_tensors == start
