"""Graph models converted by TensorFlow.js's own converter from TensorFlow SavedModels, for
tidytensor's graph-model tests: each is written to graph_models/converted_<name>/ and
make_graph_models.js then records TF.js 4.22's outputs for it (expected.json).

Needs TensorFlow and tensorflowjs in a separate virtual environment (they are heavy, and not
tidytensor dependencies):

    python -m venv /tmp/tfjsvenv
    /tmp/tfjsvenv/bin/pip install tensorflow-cpu==2.15.1 "numpy<2" tensorflow_hub==0.16.1
    /tmp/tfjsvenv/bin/pip install --no-deps tensorflowjs==4.22.0 tf_keras==2.15.1
    PYTHONPATH=/tmp/shim /tmp/tfjsvenv/bin/python make_converted_graph_models.py

tensorflowjs's converter modules import tensorflow_decision_forests and jax at the top, for
models these are not: /tmp/shim holds empty stand-ins (tensorflow_decision_forests/__init__.py
empty, jax/__init__.py empty, jax/experimental/__init__.py with ``jax2tf = None``).
    node make_graph_models.js converted_while converted_cnn converted_lookup
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile

import numpy as np
import tensorflow as tf
from tensorflowjs.converters import tf_saved_model_conversion_v2 as conversion

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "graph_models")


class WhileAndCond(tf.Module):
    """tf.while_loop with a TensorArray, and tf.cond: TF 2 control flow (While/If functions,
    TensorList ops) after conversion."""

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32),
                                  tf.TensorSpec([], tf.int32)])
    def __call__(self, x, n):
        rows = tf.TensorArray(tf.float32, size=0, dynamic_size=True)

        def body(i, acc, rows):
            acc = acc * 0.5 + tf.cast(i, tf.float32)
            return i + 1, acc, rows.write(i, tf.reduce_sum(acc, axis=0))

        _, acc, rows = tf.while_loop(lambda i, acc, rows: i < n, body, [0, x, rows])
        stacked = rows.stack()
        total = tf.reduce_sum(acc)
        scaled = tf.cond(total > 0, lambda: acc * 2.0, lambda: -acc)
        return {"acc": scaled, "rows": stacked}


class Lookup(tf.Module):
    """A StaticHashTable: the converter moves its initialization into modelInitializer."""

    def __init__(self):
        super().__init__()
        keys = tf.constant(["cat", "dog", "bird", "fish"])
        values = tf.constant([3, 1, 4, 1], tf.int32)
        self.table = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(keys, values), default_value=-1
        )

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def __call__(self, words):
        ids = self.table.lookup(words)
        return {"ids": ids, "doubled": ids * 2}


class Detect(tf.Module):
    """Non-max suppression with scores, a gather of the kept boxes, tf.where and top_k: the
    dynamic ops (NonMaxSuppressionV5, Where)."""

    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32),
                                  tf.TensorSpec([None], tf.float32)])
    def __call__(self, boxes, scores):
        keep, kept_scores = tf.image.non_max_suppression_with_scores(
            boxes, scores, max_output_size=5, iou_threshold=0.4, score_threshold=0.2,
            soft_nms_sigma=0.3)
        confident = tf.where(scores > 0.5)
        top = tf.math.top_k(scores, k=2)
        return {"keep": keep, "kept_scores": kept_scores, "boxes": tf.gather(boxes, keep),
                "confident": confident, "top": top.values}


def cnn() -> tf.keras.Model:
    """Conv2D + BatchNorm + ReLU, DepthwiseConv2D, pooling, Dense: fused ops after conversion."""
    tf.keras.utils.set_random_seed(7)
    inputs = tf.keras.Input([8, 8, 3])
    x = tf.keras.layers.Conv2D(4, 3, padding="same", use_bias=False)(inputs)
    x = tf.keras.layers.BatchNormalization()(x)
    x = tf.keras.layers.ReLU(6.0)(x)
    x = tf.keras.layers.DepthwiseConv2D(3, strides=2, padding="same")(x)
    x = tf.keras.layers.Activation("relu")(x)
    x = tf.keras.layers.GlobalAveragePooling2D()(x)
    outputs = tf.keras.layers.Dense(5, activation="softmax")(x)
    model = tf.keras.Model(inputs, outputs)
    # Non-trivial batch-norm statistics.
    bn = model.layers[2]
    bn.set_weights([w + np.linspace(0.1, 0.4, w.size).reshape(w.shape) for w in bn.get_weights()])
    return model


def convert(name: str, saved_model_dir: str, quantization: dict | None = None) -> None:
    target = os.path.join(OUT, f"converted_{name}")
    shutil.rmtree(target, ignore_errors=True)
    conversion.convert_tf_saved_model(
        saved_model_dir, target, signature_def="serving_default",
        saved_model_tags="serve", quantization_dtype_map=quantization,
    )
    print("wrote", target, sorted(os.listdir(target)))


def main() -> None:
    work = tempfile.mkdtemp()
    module = WhileAndCond()
    tf.saved_model.save(module, os.path.join(work, "while"),
                        signatures=module.__call__.get_concrete_function())
    convert("while", os.path.join(work, "while"))
    lookup = Lookup()
    tf.saved_model.save(lookup, os.path.join(work, "lookup"),
                        signatures=lookup.__call__.get_concrete_function())
    convert("lookup", os.path.join(work, "lookup"))
    detect = Detect()
    tf.saved_model.save(detect, os.path.join(work, "detect"),
                        signatures=detect.__call__.get_concrete_function())
    convert("detect", os.path.join(work, "detect"))
    model = cnn()
    model.save(os.path.join(work, "cnn"), save_format="tf")
    convert("cnn", os.path.join(work, "cnn"), {"uint8": "*"})
    shutil.rmtree(work)


if __name__ == "__main__":
    sys.exit(main())
