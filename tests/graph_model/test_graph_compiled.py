"""A graph model under compiled steps: ``tf.function`` traces one ``execute`` (a plain loop
over public ops in topological order) and replays its kernels; the replay computes the eager
call's bits and leaves TF.js's memory counts. A graph with dynamic ops or control flow reads
values back to Python while it runs, so its function runs eagerly and warns, never replaying a
stale branch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from graph_test_helpers import GRAPH_MODELS, feeds
from test_graph_fixtures import _expected

import tidytensor as tf


@pytest.mark.parametrize("name", ["fused_ops", "converted_cnn"])
def test_static_graph_replays_bit_identically(name):
    expected = _expected(name)
    model = tf.load_graph_model(str(GRAPH_MODELS / name))
    run = expected["runs"][0]
    inputs = feeds(run)
    outputs = run["outputs"]
    eager = model.execute(inputs, outputs)
    eager = eager if isinstance(eager, list) else [eager]
    want = [t.numpy() for t in eager]
    tf.dispose(eager)

    compiled = tf.function(lambda feed: model.execute(feed, outputs))
    before = tf.memory().num_tensors
    for _ in range(4):  # trace, then replays
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no fallback to eager for a static graph
            got = compiled(inputs)
        got = got if isinstance(got, list) else [got]
        assert tf.memory().num_tensors - before == run["memory"]["newTensors"]
        for g, w in zip(got, want, strict=True):
            assert g.numpy().tobytes() == w.tobytes()
        tf.dispose(got)
        assert tf.memory().num_tensors == before
    tf.dispose(list(inputs.values()))
    model.dispose()


def test_graph_with_control_flow_runs_eagerly_under_a_function():
    expected = _expected("while_v2")
    model = tf.load_graph_model(str(GRAPH_MODELS / "while_v2"))
    run = expected["runs"][0]
    inputs = feeds(run)
    eager = model.execute(inputs, run["outputs"])
    eager = eager if isinstance(eager, list) else [eager]
    want = [t.numpy() for t in eager]
    tf.dispose(eager)
    compiled = tf.function(lambda feed: model.execute(feed, run["outputs"]))
    before = tf.memory().num_tensors
    with pytest.warns(RuntimeWarning, match="runs eagerly"):
        for _ in range(3):
            got = compiled(inputs)
            got = got if isinstance(got, list) else [got]
            for g, w in zip(got, want, strict=True):
                np.testing.assert_array_equal(g.numpy(), w)
            tf.dispose(got)
    assert tf.memory().num_tensors == before
    tf.dispose(list(inputs.values()))
    model.dispose()
