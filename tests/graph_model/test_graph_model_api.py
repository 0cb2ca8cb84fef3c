"""``tf.load_graph_model``'s ``GraphModel`` API, its errors and its memory: inputs as a tensor,
a list in input order or a dict by signature key or node name; outputs by signature key, node
name or ``'node:k'``; unsupported ops reported at load, once, by op type with their nodes;
intermediates freed as soon as their last consumer ran."""

from __future__ import annotations

import base64

import numpy as np
import pytest

import tidytensor as tf
from tidytensor.graph_model import UnsupportedOpError
from tidytensor.io import ModelFormatError

F = {"type": "DT_FLOAT"}


def _s(text):
    return {"s": base64.b64encode(text.encode()).decode()}


def node(name, op, inputs=(), **attr):
    return {"name": name, "op": op, "input": list(inputs), "attr": attr}


def placeholder(name, shape):
    return node(
        name, "Placeholder", dtype=F, shape={"shape": {"dim": [{"size": str(d)} for d in shape]}}
    )


def artifacts(nodes, weights=None, **extra):
    weights = weights or {}
    for name in weights:
        nodes = [*nodes, node(name, "Const", dtype=F)]
    specs = [{"name": k, "shape": list(v.shape), "dtype": "float32"} for k, v in weights.items()]
    data = b"".join(np.asarray(v, np.float32).tobytes() for v in weights.values())
    return {
        "modelTopology": {"node": nodes, "versions": {"producer": 7, "minConsumer": 3}},
        "format": "graph-model",
        "weightSpecs": specs,
        "weightData": data,
        **extra,
    }


def load(nodes, weights=None, **extra):
    return tf.load_graph_model(tf.io.from_memory(artifacts(nodes, weights, **extra)))


def two_input_model(**extra):
    """out = a * w + b, and a second output a - b."""
    nodes = [
        placeholder("a", [-1, 2]),
        placeholder("b", [-1, 2]),
        node("scaled", "Mul", ["a", "w"], T=F),
        node("out", "AddV2", ["scaled", "b"], T=F),
        node("diff", "Sub", ["a", "b"], T=F),
    ]
    signature = {
        "inputs": {"first": {"name": "a:0"}, "second": {"name": "b:0"}},
        "outputs": {"sum": {"name": "out:0"}, "difference": {"name": "diff:0"}},
    }
    return load(nodes, {"w": np.array([2.0, 3.0])}, signature=signature, **extra)


def test_inputs_as_list_dict_by_key_or_node_name():
    model = two_input_model()
    a = tf.tensor([[1.0, 2.0]])
    b = tf.tensor([[10.0, 20.0]])
    assert model.input_nodes == ["first", "second"]
    assert model.output_nodes == ["sum", "difference"]
    assert model.model_version == "7.3"
    assert model.signature["inputs"]["first"]["name"] == "a:0"
    by_list = model.execute([a, b])
    by_key = model.execute({"second": b, "first": a})
    by_node = model.execute({"a:0": a, "b": b}, ["out", "diff:0"])
    for result in (by_list, by_key, by_node):
        assert isinstance(result, list) and len(result) == 2
        np.testing.assert_allclose(result[0].numpy(), [[12.0, 26.0]])
        np.testing.assert_allclose(result[1].numpy(), [[-9.0, -18.0]])
    one = model.execute([a, b], "difference")
    assert isinstance(one, tf.Tensor)
    np.testing.assert_allclose(one.numpy(), [[-9.0, -18.0]])
    assert model.predict([a, b])[0].shape == [1, 2]
    tf.dispose([by_list, by_key, by_node, one, a, b])
    model.dispose()


def test_a_single_tensor_input_and_execute_async():
    model = load([placeholder("x", [3]), node("y", "Relu", ["x"], T=F)])
    x = tf.tensor([-1.0, 0.5, 2.0])
    y = model.execute(x)
    z = model.execute_async(x)
    np.testing.assert_array_equal(y.numpy(), [0.0, 0.5, 2.0])
    np.testing.assert_array_equal(z.numpy(), y.numpy())
    assert [dict(i) for i in model.inputs] == [{"name": "x", "shape": [3], "dtype": "float32"}]
    tf.dispose([x, y, z])
    model.dispose()


def test_predict_with_structured_output_keys_and_metadata():
    metadata = {"structuredOutputKeys": ["total", "delta"], "author": "me"}
    model = two_input_model(userDefinedMetadata=metadata)
    a = tf.tensor([[1.0, 1.0]])
    out = model.predict({"first": a, "second": a})
    assert sorted(out) == ["delta", "total"]
    np.testing.assert_allclose(out["delta"].numpy(), [[0.0, 0.0]])
    assert model.metadata == metadata
    assert model.model_structured_output_keys == ["total", "delta"]
    assert model.model_signature is model.signature
    tf.dispose([out, a])
    model.dispose()


@pytest.mark.parametrize(
    "inputs,match",
    [
        (lambda a: [a], "Input tensor count mismatch, the graph model has 2"),
        (lambda a: {"first": a, "nope": a}, r"keys: \[nope\] that are not part of graph"),
        (lambda a: {"first": a, "second": tf.ones([2, 3])}, r"must be \[-1,2\], but was \[2,3\]"),
        (
            lambda a: {"first": a, "second": tf.ones([1, 2], "int32")},
            "must be float32, but was int32",
        ),
    ],
)
def test_bad_inputs_are_named(inputs, match):
    model = two_input_model()
    a = tf.ones([1, 2])
    with pytest.raises(tf.TidyTensorError, match=match):
        model.execute(inputs(a))
    model.dispose()


def test_missing_input_and_unknown_output_are_named():
    model = two_input_model()
    a = tf.ones([1, 2])
    with pytest.raises(tf.TidyTensorError, match=r"Missing the following inputs: \[b\]"):
        model.execute({"first": a}, "sum")
    with pytest.raises(tf.TidyTensorError, match="The output 'nothing' is not found"):
        model.execute([a, a], "nothing")
    only_a = model.execute({"first": a}, "scaled")  # needs a and the weight only
    np.testing.assert_allclose(only_a.numpy(), [[2.0, 3.0]])
    tf.dispose([a, only_a])
    model.dispose()


def test_unsupported_ops_reported_at_load_once_each_with_their_nodes():
    before = tf.memory().num_tensors
    nodes = [
        placeholder("x", [2]),
        node("f1", "FancyOp", ["x"]),
        node("f2", "FancyOp", ["f1"]),
        node("g", "GrandOp", ["f2"]),
        node("ok", "Relu", ["g"], T=F),
    ]
    with pytest.raises(UnsupportedOpError) as info:
        load(nodes, {"w": np.ones(3)})
    message = str(info.value)
    assert "2 TensorFlow op types that tidytensor does not map" in message
    assert "FancyOp (nodes f1, f2); GrandOp (node g)" in message
    assert message.count("FancyOp") == 1
    assert isinstance(info.value, ModelFormatError)
    assert tf.memory().num_tensors == before  # nothing allocated


def test_unsupported_op_inside_a_function_is_named_with_its_function():
    fn = {
        "signature": {
            "name": "body",
            "inputArg": [{"name": "v", "type": "DT_FLOAT"}],
            "outputArg": [{"name": "r", "type": "DT_FLOAT"}],
        },
        "nodeDef": [node("odd", "MysteryOp", ["v"])],
        "ret": {"r": "odd:y:0"},
    }
    nodes = [placeholder("x", [2]), node("y", "Relu", ["x"], T=F)]
    art = artifacts(nodes)
    art["modelTopology"]["library"] = {"function": [fn]}
    with pytest.raises(UnsupportedOpError, match=r"MysteryOp \(node body/odd\)"):
        tf.load_graph_model(tf.io.from_memory(art))


def test_load_layers_model_on_a_graph_model_points_to_load_graph_model(tmp_path):
    import json

    model_json = {"format": "graph-model", "modelTopology": {"node": [placeholder("x", [1])]}}
    (tmp_path / "model.json").write_text(json.dumps(model_json))
    with pytest.raises(ModelFormatError, match="load it with tf.load_graph_model"):
        tf.load_layers_model(str(tmp_path))
    graph = tf.load_graph_model(str(tmp_path))
    assert graph.input_nodes == ["x"]
    graph.dispose()


def test_load_graph_model_on_a_layers_model_says_so():
    layers_json = {"modelTopology": {"class_name": "Sequential", "config": {"layers": []}}}
    with pytest.raises(ModelFormatError, match="not a graph model.*tf.load_layers_model"):
        tf.load_graph_model(tf.io.from_memory(layers_json))


def test_dispose_frees_weights_and_later_calls_fail():
    before = tf.memory().num_tensors
    model = two_input_model()
    assert tf.memory().num_tensors == before + 1
    model.dispose()
    model.dispose()  # a second dispose does nothing
    assert tf.memory().num_tensors == before
    with pytest.raises(tf.TidyTensorError, match="disposed"):
        model.execute([tf.ones([1, 2]), tf.ones([1, 2])])


def test_intermediates_are_freed_as_soon_as_their_last_consumer_ran():
    """A chain of 30 ops on a 1000-value tensor: at most the input, one live intermediate
    and the op being computed hold memory at once (not 30 intermediates)."""
    nodes = [placeholder("x", [1000])]
    previous = "x"
    for k in range(30):
        nodes.append(node(f"n{k}", "Neg" if k % 2 else "Relu", [previous], T=F))
        previous = f"n{k}"
    model = load(nodes)
    x = tf.ones([1000])
    info = tf.profile(lambda: tf.dispose(model.execute(x)))
    assert info.peak_bytes <= 4 * 4000, info.peak_bytes
    before = tf.memory().num_tensors
    y = model.execute(x, "n29")
    assert tf.memory().num_tensors == before + 1  # only the output is left
    tf.dispose([x, y])
    model.dispose()


def test_a_weight_read_by_identity_is_cloned_and_outputs_are_the_callers():
    model = load([node("y", "Identity", ["w"], T=F)], {"w": np.array([1.0, 2.0])})
    y = model.execute({}, "y")
    y.dispose()  # the caller's tensor: the weight stays
    again = model.execute({}, "y")
    np.testing.assert_array_equal(again.numpy(), [1.0, 2.0])
    again.dispose()
    model.dispose()


def test_save_writes_what_was_loaded(tmp_path):
    """``model.save`` writes the artifacts as loaded (quantized weights stay quantized): the
    saved model loads and computes the same."""
    import json

    from graph_test_helpers import GRAPH_MODELS

    model = tf.load_graph_model(str(GRAPH_MODELS / "fused_ops"))
    result = model.save(str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.json", "weights.bin"]
    assert result.model_artifacts_info.weight_data_bytes == 300
    saved = json.loads((tmp_path / "model.json").read_text())
    original = json.loads((GRAPH_MODELS / "fused_ops" / "model.json").read_text())
    assert saved["modelTopology"] == original["modelTopology"]
    assert saved["weightsManifest"][0]["weights"] == original["weightsManifest"][0]["weights"]
    assert (tmp_path / "weights.bin").read_bytes() == (
        GRAPH_MODELS / "fused_ops" / "weights.bin"
    ).read_bytes()
    again = tf.load_graph_model(str(tmp_path))
    x = tf.ones([1, 6, 6, 3])
    a, b = model.predict(x), again.predict(x)
    np.testing.assert_array_equal(a[0].numpy(), b[0].numpy())
    tf.dispose([a, b, x])
    model.dispose()
    again.dispose()


def test_an_op_error_names_the_graph_node():
    nodes = [placeholder("x", [2, 3]), node("bad_reshape", "Reshape", ["x", "shape"], T=F)]
    model = load(nodes, {"shape": np.array([4.0, 4.0])})
    x = tf.ones([2, 3])
    with pytest.raises(tf.TidyTensorError, match=r"graph node 'bad_reshape' \(Reshape\)"):
        model.execute(x)
    x.dispose()
    model.dispose()
