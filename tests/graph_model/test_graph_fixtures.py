"""Graph models from files (tests/golden/graph_models/<name>/: hand-built ones written by
tests/golden/make_graph_models.js, converted_* ones written by tensorflowjs_converter
(tests/golden/make_converted_graph_models.py: TF 2 while/cond lowered to TF 1 frames with
TensorLists, a StaticHashTable in modelInitializer with a resource input, a Keras CNN with fused
ops and uint8 weights), and published ones found in npm packages) load with
``tf.load_graph_model`` and compute what TF.js 4.22 computed from the same files, with TF.js's
memory counts: each run makes exactly its outputs, leaves nothing behind, and ``dispose()``
brings ``tf.memory()`` back to where it was before the load."""

from __future__ import annotations

import json

import numpy as np
import pytest
from graph_test_helpers import GRAPH_MODELS, as_list, assert_matches, feeds

import tidytensor as tf

NAMES = sorted(p.name for p in GRAPH_MODELS.iterdir() if (p / "expected.json").exists())


def _expected(name: str) -> dict:
    return json.loads((GRAPH_MODELS / name / "expected.json").read_text())


def test_fixtures_present():
    assert {
        "basic_pitch",
        "converted_cnn",
        "converted_detect",
        "converted_lookup",
        "converted_while",
        "fused_ops",
        "hash_table",
        "hash_table_resource",
        "if_v2",
        "nms",
        "v1_cond",
        "v1_loop",
        "v1_nested_loop",
        "while_v2",
    } <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_graph_model_matches_tfjs(name):
    expected = _expected(name)
    start = tf.memory().num_tensors
    model = tf.load_graph_model(str(GRAPH_MODELS / name))
    if model.initializer is None:  # TF.js runs an initializer later, at the first execute
        assert tf.memory().num_tensors - start == expected["weightTensors"]
    assert model.input_nodes == expected["inputNodes"]
    assert model.output_nodes == expected["outputNodes"]
    assert model.model_version == expected["modelVersion"]
    assert [dict(i) for i in model.inputs] == expected["inputs"]
    assert [i.name for i in model.outputs] == [o["name"] for o in expected["outputs"]]
    for k, run in enumerate(expected["runs"]):
        inputs = feeds(run)
        for method in ("execute", "execute_async"):
            before = tf.memory().num_tensors
            out = getattr(model, method)(inputs, run["outputs"])
            assert tf.memory().num_tensors - before == run["memory"]["newTensors"], method
            results = as_list(out)
            assert len(results) == len(run["results"])
            for j, (got, want) in enumerate(zip(results, run["results"], strict=True)):
                assert_matches(got, want, f"{name} run {k} output {j} ({method})")
            tf.dispose(out)
            assert tf.memory().num_tensors - before == run["memory"]["leaked"] == 0
        tf.dispose(list(inputs.values()))
    model.dispose()
    assert tf.memory().num_tensors == start
    assert expected["restoredAfterDispose"]


def test_resource_inputs_are_fed_from_the_initializer():
    """A TF 2 model's table handle input (a signature input with a resource id) is fed with
    the initializer's output: a list of inputs leaves it out, as in TF.js."""
    model = tf.load_graph_model(str(GRAPH_MODELS / "hash_table_resource"))
    assert model.input_nodes == ["ids", "table_handle"]
    ids = tf.tensor([9, 7, 1], dtype="int32")
    scores, total = model.execute([ids])
    np.testing.assert_allclose(scores.numpy(), [0.9, -1.0, 0.1], rtol=1e-6)
    np.testing.assert_allclose(total.numpy(), 0.0, atol=1e-6)
    with pytest.raises(tf.TidyTensorError, match="1 non-resource placeholders, while there are 2"):
        model.execute([ids, ids])
    tf.dispose([ids, scores, total])
    model.dispose()
