"""``tidytensor summary`` and ``tidytensor predict`` take graph models too."""

from __future__ import annotations

import json

import numpy as np
from graph_test_helpers import GRAPH_MODELS, feeds

import tidytensor as tf
from tidytensor import cli


def test_summary_describes_a_graph_model(capsys):
    assert cli.main(["summary", str(GRAPH_MODELS / "basic_pitch")]) == 0
    out = capsys.readouterr().out
    assert "Format: graph-model" in out
    assert "Converted by: TensorFlow.js Converter v3.13.0" in out
    assert "Class: GraphModel (model version 561.undefined)" in out
    assert "Inputs: input_2 (-1, 43844, 1) float32" in out
    assert "Signature: inputs [input_2], outputs [contour, Identity_1:0, Identity_2:0]" in out
    assert "Conv2D x26" in out and "MirrorPad x9" in out and "DivNoNan x1" in out


def test_summary_names_quantization_functions_and_initializer(capsys):
    assert cli.main(["summary", str(GRAPH_MODELS / "fused_ops")]) == 0
    assert "Quantized: 1 as float16, 1 as uint16, 1 as uint8" in capsys.readouterr().out
    assert cli.main(["summary", str(GRAPH_MODELS / "while_v2")]) == 0
    assert "(with 2 function(s))" in capsys.readouterr().out
    assert cli.main(["summary", str(GRAPH_MODELS / "hash_table")]) == 0
    assert "Initializer: 4 nodes (run at load)" in capsys.readouterr().out


def test_predict_runs_a_graph_model(tmp_path, capsys):
    expected = json.loads((GRAPH_MODELS / "if_v2" / "expected.json").read_text())
    run = expected["runs"][1]
    inputs = {k: v["values"] for k, v in run["inputs"].items()}
    inputs = {
        "c": False,
        "x": np.reshape(inputs["x"], (2, 2)).tolist(),
        "y": np.reshape(inputs["y"], (2, 2)).tolist(),
    }
    path = tmp_path / "in.json"
    path.write_text(json.dumps(inputs))
    assert cli.main(["predict", str(GRAPH_MODELS / "if_v2"), "--input", str(path)]) == 0
    got = np.asarray(json.loads(capsys.readouterr().out)).reshape(-1)
    np.testing.assert_allclose(got, run["results"][0]["values"], rtol=1e-6)
    # The same through the API.
    model = tf.load_graph_model(str(GRAPH_MODELS / "if_v2"))
    xs = feeds(run)
    y = model.predict(xs)
    np.testing.assert_allclose(y.numpy().reshape(-1), got, rtol=1e-6)
    tf.dispose([y, *xs.values()])
    model.dispose()
