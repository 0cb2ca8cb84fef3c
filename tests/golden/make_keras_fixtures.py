"""Writes the Keras fixtures under tests/golden/keras/: small models saved by Keras 3 and by
Keras 2 (tf-keras), with Keras's own predictions, for tests/layers/test_keras_files.py.

Run it in a separate virtual environment (Keras and TensorFlow are not tidytensor's
dependencies)::

    python -m venv /tmp/kerasvenv
    /tmp/kerasvenv/bin/pip install keras tensorflow-cpu tf-keras h5py
    /tmp/kerasvenv/bin/python tests/golden/make_keras_fixtures.py

For each model NAME it writes, for Keras 3: ``NAME.keras`` (zip: config.json, model.weights.h5,
metadata.json), ``NAME.k3.weights.h5`` and ``NAME.k3.json`` (``model.to_json()``); for Keras 2:
``NAME.h5`` (``model.save``), ``NAME.k2_weights.h5`` (``save_weights``, the legacy layout) and ``NAME.k2.json``.
``predictions.json`` holds each model's inputs and both Keras versions' outputs, and for
the models in ``TRAINED`` the loss and weights after one SGD step (``train_on_batch``). Weights are
drawn from a seeded generator (batch norm's variances positive) so outputs are not trivial.
"""

from __future__ import annotations

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import numpy as np  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keras")


def build(k, name):
    """Model ``name`` built with the Keras module ``k`` (keras 3 or tf_keras)."""
    L = k.layers
    if name == "mlp":
        return k.Sequential(
            [
                k.Input(shape=(4,)),
                L.Dense(8, activation="relu"),
                L.Dense(3, activation="softmax"),
            ],
            name="mlp",
        )
    if name == "cnn":
        return k.Sequential(
            [
                k.Input(shape=(8, 8, 2)),
                L.Conv2D(4, 3, padding="same", activation="relu"),
                L.BatchNormalization(),
                L.MaxPooling2D(2),
                L.Conv2D(3, 3, strides=1, use_bias=False),
                L.BatchNormalization(axis=-1, center=False),
                L.AveragePooling2D(2),
                L.Flatten(),
                L.Dense(2),
            ],
            name="cnn",
        )
    if name == "gru":
        return k.Sequential(
            [
                k.Input(shape=(6, 3)),
                L.GRU(5, return_sequences=True),  # reset_after=True, Keras's default
                L.GRU(4, reset_after=True),
                L.Dense(2, activation="tanh"),
            ],
            name="gru",
        )
    if name == "lstm":
        return k.Sequential(
            [k.Input(shape=(6, 3)), L.LSTM(4), L.Dense(1)],
            name="lstm",
        )
    if name == "two_inputs":
        a = k.Input(shape=(3,), name="in_a")
        b = k.Input(shape=(5,), name="in_b")
        shared = L.Dense(4, activation="relu", name="shared")
        ha = shared(L.Dense(4, name="proj_a")(a))
        hb = shared(L.Dense(4, name="proj_b")(b))
        joined = L.Concatenate(name="joined")([ha, hb])
        out = L.Dense(2, activation="sigmoid", name="out")(joined)
        return k.Model(inputs=[a, b], outputs=out, name="two_inputs")
    if name == "embedding":
        return k.Sequential(
            [
                k.Input(shape=(7,), dtype="int32"),
                L.Embedding(20, 4),
                L.GlobalAveragePooling1D(),
                L.Dense(1),
            ],
            name="embedding",
        )
    if name == "nested":  # a model inside a model, wrappers with nested layer configs
        inner = k.Sequential(
            [k.Input(shape=(5, 6)), L.TimeDistributed(L.Dense(3)), L.Activation("relu")],
            name="inner",
        )
        x = k.Input(shape=(5, 6), name="seq")
        h = inner(x)
        h = L.Bidirectional(L.LSTM(2, return_sequences=True), name="bi")(h)
        h = L.GlobalMaxPooling1D()(h)
        out = L.Dense(2, name="head")(h)
        return k.Model(inputs=x, outputs=out, name="nested")
    raise ValueError(name)


NAMES = ["mlp", "cnn", "gru", "lstm", "two_inputs", "embedding", "nested"]


def inputs_for(name, rng):
    if name == "mlp":
        return [rng.normal(size=(3, 4))]
    if name == "cnn":
        return [rng.normal(size=(2, 8, 8, 2))]
    if name in ("gru", "lstm"):
        return [rng.normal(size=(3, 6, 3))]
    if name == "nested":
        return [rng.normal(size=(2, 5, 6))]
    if name == "two_inputs":
        return [rng.normal(size=(3, 3)), rng.normal(size=(3, 5))]
    if name == "embedding":
        return [rng.integers(0, 20, size=(3, 7))]
    raise ValueError(name)


def set_weights(model, rng):
    values = []
    for w in model.weights:
        shape = tuple(int(d) for d in w.shape)
        v = rng.normal(scale=0.5, size=shape)
        if "variance" in w.name:
            v = np.abs(v) + 0.5
        values.append(v.astype("float32"))
    model.set_weights(values)


#: Models saved compiled: (Keras optimizer class, loss, metrics). Nadam has no TF.js
#: counterpart: the file loads uncompiled.
COMPILED = {"mlp": ("Adam", "mse", ["accuracy"]), "two_inputs": ("Nadam", "mse", [])}

#: Models also trained one SGD step (gradients of GRU(reset_after), LSTM, batch norm in
#: training mode), recording the loss and every layer's weights after the step.
TRAINED = ["gru", "lstm", "cnn", "two_inputs"]


def train_step(k, model, xs, y):
    target = np.random.default_rng(11).normal(size=y.shape).astype("float32")
    model.compile(optimizer=k.optimizers.SGD(learning_rate=0.1), loss="mse")
    loss = model.train_on_batch(xs if len(xs) > 1 else xs[0], target)
    return {
        "target": target.tolist(),
        "loss": float(np.asarray(loss).reshape(-1)[0]),
        "layers": [
            [layer.name, [np.asarray(w).tolist() for w in layer.get_weights()]]
            for layer in model.layers
        ],
    }


def main() -> int:
    import keras
    import tf_keras

    os.makedirs(OUT, exist_ok=True)
    predictions = {"keras3_version": keras.__version__, "keras2_version": tf_keras.__version__}
    for name in NAMES:
        rng = np.random.default_rng(sum(map(ord, name)))
        xs = inputs_for(name, rng)
        xs = [x.astype("int32" if x.dtype.kind == "i" else "float32") for x in xs]
        entry = {"inputs": [x.tolist() for x in xs]}
        for tag, k in (("k3", keras), ("k2", tf_keras)):
            model = build(k, name)
            set_weights(model, np.random.default_rng(7))
            y = model.predict(xs if len(xs) > 1 else xs[0], verbose=0)
            if name in COMPILED:  # saved with a training configuration
                optimizer, loss, metrics = COMPILED[name]
                model.compile(
                    optimizer=getattr(k.optimizers, optimizer)(0.01), loss=loss, metrics=metrics
                )
            entry[tag] = np.asarray(y).tolist()
            with open(os.path.join(OUT, f"{name}.{tag}.json"), "w") as f:
                f.write(model.to_json())
            # Keras 3 and tf-keras write ".weights.h5" alike; tf-keras writes its legacy layout
            # (layer_names, weight_names) for other ".h5" names.
            weights = f"{name}.k3.weights.h5" if tag == "k3" else f"{name}.k2_weights.h5"
            model.save_weights(os.path.join(OUT, weights))
            model.save(os.path.join(OUT, f"{name}.keras" if tag == "k3" else f"{name}.h5"))
            if name in TRAINED:
                entry[f"{tag}_train"] = train_step(k, model, xs, np.asarray(y))
        predictions[name] = entry
    with open(os.path.join(OUT, "predictions.json"), "w") as f:
        json.dump(predictions, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
