"""Weight-name matching (original names, TF 2.2 inner cell scopes, Keras 3 positional names)
and every weight dtype through a model save and load."""

from __future__ import annotations

import json

import numpy as np
from io_test_helpers import dense_model, fresh_layer_names, memory_counts, private_model_store  # noqa: F401 - autouse fixtures

import tidytensor as tf
from tidytensor import layers
from tidytensor.layers.engine.serialization import register_class
from tidytensor.layers.engine.variables import LayerVariable


def _artifacts(model):
    seen = []
    tf.io.save_model(model, tf.io.with_save_handler(seen.append))
    return seen[0]


def _renamed(artifacts, rename):
    return tf.io.ModelArtifacts(
        model_topology=artifacts.model_topology,
        weight_specs=[dict(s, name=rename(s["name"])) for s in artifacts.weight_specs],
        weight_data=artifacts.weight_data,
    )


def _same_weights(a, b):
    for x, y in zip(a.weights, b.weights, strict=True):
        np.testing.assert_array_equal(x.read().numpy(), y.read().numpy())


def test_inner_cell_scope_is_stripped():
    model = dense_model()
    art = _renamed(_artifacts(model), lambda n: n.replace("/", "/inner_cell/"))
    assert art.weight_specs[0]["name"] == "m_d1/inner_cell/kernel"
    loaded = tf.io.load_layers_model(tf.io.from_memory(art))
    _same_weights(loaded, model)
    loaded.dispose()
    model.dispose()


def test_keras3_positional_names():
    model = dense_model()
    counters: dict[str, int] = {}

    def keras3(name):
        layer = name.split("/")[0]
        counters[layer] = counters.get(layer, -1) + 1
        return f"{layer}/vars/{counters[layer]}"

    art = _renamed(_artifacts(model), keras3)
    loaded = tf.io.load_layers_model(tf.io.from_memory(art))
    _same_weights(loaded, model)
    loaded.dispose()
    counters.clear()

    def nested(name):
        layer = name.split("/")[0]
        counters[layer] = counters.get(layer, -1) + 1
        return f"_backbone/_layer_checkpoint_dependencies/_{layer}/vars/{counters[layer]}"

    art = _renamed(_artifacts(model), nested)
    loaded = tf.io.load_layers_model(tf.io.from_memory(art))
    _same_weights(loaded, model)
    loaded.dispose()
    model.dispose()


def test_manifest_order_does_not_matter():
    model = dense_model()
    art = _artifacts(model)
    pieces = tf.io.decode_weights(art.weight_data, art.weight_specs)
    specs = list(reversed(art.weight_specs))
    data, specs = tf.io.encode_weights(
        [{"name": s["name"], "tensor": pieces[s["name"]]} for s in specs]
    )
    tf.dispose(pieces)
    shuffled = tf.io.ModelArtifacts(
        model_topology=art.model_topology, weight_specs=specs, weight_data=data
    )
    loaded = tf.io.load_layers_model(tf.io.from_memory(shuffled))
    _same_weights(loaded, model)
    loaded.dispose()
    model.dispose()


class DtypeZoo(layers.Layer):
    """A layer holding one weight of every dtype (non-trainable), returning its input."""

    class_name = "DtypeZooForIOTest"

    def build(self, input_shape):
        self.i = self.add_weight("ints", [3], "int32", "zeros", trainable=False)
        self.b = self.add_weight("flags", [2, 2], "bool", "zeros", trainable=False)
        # build() runs in the layer's name scope. tf.zeros(complex64) leaves its two parts
        # alive (as in TF.js), so make the complex initial value inside tidy.
        init = tf.tidy(lambda: tf.complex(tf.zeros([2]), tf.zeros([2])))
        self.c = LayerVariable(init, "complex64", "waves", False)
        init.dispose()
        init = tf.tensor(["", ""], None, "string")
        self.s = LayerVariable(init, "string", "words", False)
        init.dispose()
        self._non_trainable_weights.extend([self.c, self.s])
        self.built = True

    def call(self, inputs, **kwargs):
        return tf.identity(layers.utils.get_exactly_one_tensor(inputs))


def test_every_weight_dtype_round_trips(tmp_path):
    register_class(DtypeZoo)
    model = layers.models.sequential(
        [layers.dense(units=2, input_shape=[3], name="d"), DtypeZoo(name="zoo")]
    )
    zoo = model.layers[1]
    values = {
        "zoo/ints": tf.tensor([1, -7, 2147483647], None, "int32"),
        "zoo/flags": tf.tensor([[True, False], [False, True]]),
        "zoo/waves": tf.complex(tf.tensor([1.5, -2]), tf.tensor([0.25, 3])),
        "zoo/words": tf.tensor(["héllo", "日本語"]),
    }
    for w in zoo.weights:
        w.write(values[w.original_name])
    tf.io.save_model(model, str(tmp_path / "z"), shard_size_bytes=7)
    baseline = memory_counts()
    loaded = tf.io.load_layers_model(str(tmp_path / "z"))
    for w in loaded.layers[1].weights:
        assert w.dtype == values[w.original_name].dtype
        assert w.read().array_sync() == values[w.original_name].array_sync()
    _same_weights(loaded.layers[0], model.layers[0])
    loaded.dispose()
    assert memory_counts() == baseline
    for q in ("uint8", "float16"):  # float32 weights, and int32 ones for uint8/uint16
        tf.io.save_model(model, str(tmp_path / q), quantize=q)
        manifest = json.loads((tmp_path / q / "model.json").read_text())
        quantized = {
            s["name"] for s in manifest["weightsManifest"][0]["weights"] if "quantization" in s
        }
        assert quantized == (
            {"d/kernel", "d/bias", "zoo/ints"} if q == "uint8" else {"d/kernel", "d/bias"}
        )
        again = tf.io.load_layers_model(str(tmp_path / q))
        for w in again.layers[1].weights:
            if w.original_name not in quantized:
                assert w.read().array_sync() == values[w.original_name].array_sync()
        again.dispose()
    tf.dispose(values)
    model.dispose()
