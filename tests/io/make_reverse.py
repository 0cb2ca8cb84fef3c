"""Writes the reverse fixtures: models SAVED BY TIDYTENSOR into tests/golden/io/reverse/<name>/,
with the inputs to run them on (inputs.json). tests/golden/io_reverse.js then loads each one
in TF.js and writes TF.js's predictions (tfjs_predict.json); tests/io/test_reverse.py checks
that tidytensor still writes the same files and predicts what TF.js predicted.

Run (from the repository root)::

    python tests/io/make_reverse.py && (cd tests/golden && node io_reverse.js)
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

import tidytensor as tf  # noqa: E402
from tidytensor import io, layers  # noqa: E402, F401 - io: tf.io

OUT = ROOT / "tests" / "golden" / "io" / "reverse"


def set_weights(model) -> None:
    """Deterministic weights: a sine pattern scaled by 1/sqrt(fan-in)."""
    values = []
    for k, w in enumerate(model.weights, start=1):
        n = int(np.prod(w.shape)) if w.shape else 1
        fan_in = int(np.prod(w.shape[:-1])) if len(w.shape) > 1 else 4
        v = (np.sin(0.7 * np.arange(n) + 1.3 * k + 0.1) / np.sqrt(max(fan_in, 1))).astype(
            np.float32
        )
        values.append(tf.tensor(v.reshape(w.shape)))
    model.set_weights(values)
    tf.dispose(values)


def inputs(shape: list[int], seed: int) -> np.ndarray:
    n = int(np.prod(shape))
    return (
        (1.5 * np.sin(0.7 * np.arange(n) + 1.3 * (seed + 100) + 0.1))
        .astype(np.float32)
        .reshape(shape)
    )


def mlp(name: str):
    model = layers.models.sequential(
        [
            layers.dense(units=6, activation="relu", input_shape=[4], name=f"{name}_hidden"),
            layers.dense(units=3, activation="softmax", name=f"{name}_out"),
        ],
        name=name,
    )
    set_weights(model)
    return model


def build(name: str):
    """Returns (model, [input arrays], save options)."""
    if name == "dense_mlp":
        m = mlp(name)
        m.set_user_defined_metadata({"made_by": "tidytensor", "classes": ["x", "y", "z"]})
        return m, [inputs([3, 4], 1)], {}
    if name == "sharded":
        return mlp(name), [inputs([2, 4], 2)], {"shard_size_bytes": 40}
    if name in ("quantized_uint8", "quantized_uint16", "quantized_float16"):
        return mlp(name), [inputs([3, 4], 3)], {"quantize": name.split("_")[1]}
    if name == "core_layers":
        m = layers.models.sequential(
            [
                layers.dense(units=8, activation="tanh", input_shape=[6], name="c_dense"),
                layers.reshape(target_shape=[2, 4], name="c_reshape"),
                layers.permute(dims=[2, 1], name="c_permute"),
                layers.flatten(name="c_flatten"),
                layers.repeat_vector(n=2, name="c_repeat"),
                layers.flatten(name="c_flatten2"),
                layers.dropout(rate=0.3, name="c_dropout"),
                layers.activation(activation="sigmoid", name="c_act"),
            ],
            name="core",
        )
        set_weights(m)
        return m, [inputs([2, 6], 4)], {}
    if name == "functional_multi_io":
        a = layers.input(shape=[4], name="in_a")
        b = layers.input(shape=[4], name="in_b")
        shared = layers.dense(units=3, activation="relu", name="shared")
        out_a = layers.dense(units=2, activation="softmax", name="out_a").apply(shared.apply(a))
        mid = layers.dense(units=3, activation="tanh", name="mid_b").apply(shared.apply(b))
        out_b = layers.dense(units=1, name="out_b").apply(mid)
        m = layers.models.model(inputs=[a, b], outputs=[out_a, out_b], name="multi")
        set_weights(m)
        return m, [inputs([3, 4], 5), inputs([3, 4], 6)], {"shard_size_bytes": 64}
    if name == "nested":
        inner = layers.models.sequential(
            [
                layers.dense(units=4, activation="relu", input_shape=[3], name="inner_d1"),
                layers.dense(units=2, name="inner_d2"),
            ],
            name="inner_seq",
        )
        x = layers.input(shape=[3], name="outer_in")
        y = layers.dense(units=1, activation="sigmoid", name="outer_out").apply(inner.apply(x))
        m = layers.models.model(inputs=x, outputs=y, name="outer")
        set_weights(m)
        return m, [inputs([2, 3], 7)], {}
    if name == "compiled_adam":
        m = mlp(name)
        m.compile(
            optimizer=tf.train.adam(0.01), loss="categoricalCrossentropy", metrics=["accuracy"]
        )
        x = tf.tensor(inputs([6, 4], 8))
        y = tf.one_hot(tf.tensor([0, 1, 2, 0, 1, 2], None, "int32"), 3)
        m.fit(x, y, epochs=3, batch_size=3, shuffle=False, verbose=0)
        tf.dispose([x, y])
        return m, [inputs([2, 4], 9)], {"include_optimizer": True}
    if name == "conv_pool":
        m = layers.models.sequential(
            [
                layers.conv2d(
                    filters=4,
                    kernel_size=3,
                    padding="same",
                    activation="relu",
                    input_shape=[6, 6, 2],
                    name="cv1",
                ),
                layers.max_pooling2d(pool_size=2, name="mp"),
                layers.conv2d(filters=3, kernel_size=2, use_bias=False, name="cv2"),
                layers.global_average_pooling2d(name="gap"),
                layers.dense(units=2, name="cv_out"),
            ],
            name="conv_pool",
        )
        set_weights(m)
        return m, [inputs([2, 6, 6, 2], 10)], {"shard_size_bytes": 256}
    if name == "embedding_batchnorm":
        m = layers.models.sequential(
            [
                layers.embedding(input_dim=10, output_dim=3, input_length=4, name="emb"),
                layers.flatten(name="emb_flat"),
                layers.batch_normalization(name="bn"),
                layers.layer_normalization(name="ln"),
                layers.dense(units=2, name="emb_out"),
            ],
            name="emb_bn",
        )
        set_weights(m)
        bn = m.get_layer("bn")
        tf.tidy(
            lambda: bn.set_weights(
                [
                    tf.abs(w.read()).add(0.5) if "variance" in w.original_name else w.read()
                    for w in bn.weights
                ]
            )
        )
        ids = (np.arange(12).reshape(3, 4) * 7 % 10).astype(np.float32)
        return m, [ids], {}
    if name == "merge":
        a = layers.input(shape=[4], name="ma")
        b = layers.input(shape=[4], name="mb")
        da = layers.dense(units=3, name="mda").apply(a)
        db = layers.dense(units=3, name="mdb").apply(b)
        merged = layers.concatenate(name="mcat").apply(
            [layers.add(name="madd").apply([da, db]), layers.multiply(name="mmul").apply([da, db])]
        )
        m = layers.models.model(
            inputs=[a, b], outputs=layers.dense(units=2, name="mout").apply(merged), name="merge"
        )
        set_weights(m)
        return m, [inputs([2, 4], 11), inputs([2, 4], 12)], {}
    raise KeyError(name)


NAMES = [
    "dense_mlp",
    "sharded",
    "quantized_uint8",
    "quantized_uint16",
    "quantized_float16",
    "core_layers",
    "functional_multi_io",
    "nested",
    "compiled_adam",
    "conv_pool",
    "embedding_batchnorm",
    "merge",
]


def save(name: str, folder: Path) -> tuple:
    """Builds ``name`` and saves it into ``folder``; returns (model, inputs, predictions)."""
    model, xs, options = build(name)
    tf.io.save_model(model, str(folder), **options)

    def run():
        ts = [tf.tensor(x) for x in xs]
        ys = model.predict(ts[0] if len(ts) == 1 else ts)
        ys = ys if isinstance(ys, list) else [ys]
        return [y.numpy() for y in ys]

    return model, xs, tf.tidy(run)


def main() -> None:
    from tidytensor.layers.engine import state

    for name in NAMES:
        state._reset_for_tests()
        folder = OUT / name
        shutil.rmtree(folder, ignore_errors=True)
        model, xs, ys = save(name, folder)
        record = {
            "name": name,
            "inputs": [{"shape": list(x.shape), "values": x.reshape(-1).tolist()} for x in xs],
            "tidytensor_outputs": [
                {"shape": list(y.shape), "values": y.reshape(-1).tolist()} for y in ys
            ],
        }
        (folder / "inputs.json").write_text(json.dumps(record, indent=1) + "\n")
        model.dispose()
        print("wrote", folder.relative_to(ROOT))


if __name__ == "__main__":
    main()
