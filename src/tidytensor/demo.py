"""Example programs, ported to tidytensor: TF.js's memory model shown by running it.

The memory programs (from the TF.js book's chapter on ``tf.dispose()`` and ``tf.tidy()``)
and the basics (from TF.js's "simple concepts" tutorial) print tensors and
``tf.memory().num_tensors``; every program below is their code ported line by line
(camelCase becomes snake_case), printing what they print. Run it with ``tidytensor demo``
or ``python -m tidytensor demo``.

The originals load a pretrained Iris model from the network. The demo has no network, so
:func:`load_iris_model` builds a small Iris classifier (4 inputs, 10 sigmoid units, 3
softmax outputs) from fixed weights. Like a Layers model, its ``predict`` runs inside
``tf.tidy`` and returns one new tensor, so the counts move exactly as in the book; only the
base count differs (the book's model holds more tensors than this one's 4 weights).

The last program trains an Iris classifier with the Layers API on the Iris data shipped with
the package (:func:`tidytensor.datasets.load_iris`): ``fit`` with its progress display,
held-out accuracy, and the tensor count staying flat across epochs and across 1,000
``predict`` calls inside ``tf.tidy``.

The checkpoints program follows TensorFlow 2's guide on saving during training:
``ModelCheckpoint(save_weights_only=True)`` during ``fit``, ``tf.train.latest_checkpoint`` and
``model.load_weights`` into a fresh model.
"""

from __future__ import annotations

import os
import random
import shutil
import tempfile
from collections.abc import Callable
from typing import Any

import numpy as np

import tidytensor as tf
import tidytensor.layers as layers
from tidytensor.datasets import load_iris

__all__ = [
    "PROGRAMS",
    "IrisModel",
    "checkpoint_datasets",
    "checkpoint_model",
    "checkpoints_demo",
    "iris_classifier",
    "iris_training_demo",
    "load_iris_model",
    "normalize",
    "normalize_leaky",
    "run",
]

# Weights of a 4 -> 10 -> 3 classifier trained offline on Iris-like measurements, each
# feature divided by (7.9, 4.4, 6.9, 2.5) cm (sepal length/width, petal length/width).
_W1 = [
    [1.37, -1.31, -1.07, -0.87, -1.23, 1.16, -0.97, -0.64, -1.95, 0.59],
    [-1.22, -1.44, 1.2, -0.4, -0.37, -2.26, -0.49, -1.22, -0.26, 1.56],
    [3.4, 0.62, -3.59, -2.91, -1.66, 3.91, -2.08, -1.55, -9.2, 2.09],
    [3.21, -0.6, -3.58, -2.69, -1.13, 6.06, -2.7, -2.15, -5.08, 2.45],
]
_B1 = [-2.48, -0.59, 2.49, 3.27, 0.45, -2.7, 3.64, 3.93, 9.88, -4.84]
_W2 = [
    [-4.22, 1.42, 4.7],
    [0.57, 0.34, -0.19],
    [6.05, -0.87, -3.77],
    [4.53, 0.37, -4.18],
    [0.96, -1.18, -0.8],
    [-8.15, 2.87, 6.11],
    [3.57, 0.88, -4.52],
    [2.6, 1.3, -4.62],
    [4.53, 5.24, -11.88],
    [-3.46, -2.14, 5.15],
]
_B2 = [-0.19, 0.1, 0.09]

#: The classes, in the order of the model's outputs.
IRIS_CLASSES = ("setosa", "versicolor", "virginica")


class IrisModel:
    """A fixed-weight Iris classifier whose weights are variables, as a Layers model's are.

    >>> model = load_iris_model()
    >>> p = model.predict(tf.tensor2d([[5.1 / 7.9, 3.5 / 4.4, 1.4 / 6.9, 0.2 / 2.5]]))
    >>> p.shape, p.arg_max(1).array_sync()
    ([1, 3], [0])
    >>> tf.dispose(p); model.dispose()
    """

    def __init__(self) -> None:
        # Each initial value is freed by tidy; the variables keep its buffer.
        self.weights = tf.tidy(
            lambda: [
                tf.variable(tf.tensor2d(_W1)),
                tf.variable(tf.tensor1d(_B1)),
                tf.variable(tf.tensor2d(_W2)),
                tf.variable(tf.tensor1d(_B2)),
            ]
        )

    def predict(self, x: tf.Tensor) -> tf.Tensor:
        """Class probabilities, shape ``[batch, 3]``: one new tensor, temporaries freed."""
        w1, b1, w2, b2 = self.weights

        def forward() -> tf.Tensor:
            hidden = tf.sigmoid(tf.add(tf.mat_mul(x, w1), b1))
            logits = tf.add(tf.mat_mul(hidden, w2), b2)
            # softmax, written with ops: exp(z - max z) / sum(exp(z - max z))
            shifted = tf.exp(tf.sub(logits, tf.max(logits, -1, True)))
            return tf.div(shifted, tf.sum(shifted, -1, True))

        return tf.tidy(forward)

    def dispose(self) -> None:
        """Frees the weights (tidy never does: they are variables)."""
        tf.dispose(self.weights)


def load_iris_model() -> IrisModel:
    """Stands in for the book's ``await tf.loadLayersModel('.../iris_v1/model.json')``."""
    return IrisModel()


def _count() -> None:
    print(f"# of tensors: {tf.memory().num_tensors}")


# ---------------------------------------------------------------- memory
def predict_leak() -> None:
    """Each ``model.predict()`` output stays alive: one more tensor per iteration."""
    # const model = await tf.loadLayersModel('.../iris_v1/model.json');
    model = load_iris_model()
    x = tf.random_uniform([1, 4])  # a dummy input
    for _ in range(3):
        y = model.predict(x)
        y.print()
        print(f"# of tensors: {tf.memory().num_tensors}")  # grows by one each time


def predict_dispose() -> None:
    """Fix 1: ``tf.dispose(y)`` once the output is no longer needed."""
    model = load_iris_model()
    x = tf.random_uniform([1, 4])
    for _ in range(3):
        y = model.predict(x)
        y.print()
        tf.dispose(y)  # free the output once it is no longer needed
        print(f"# of tensors: {tf.memory().num_tensors}")


def predict_tidy() -> None:
    """Fix 2: the loop body inside ``tf.tidy``."""
    model = load_iris_model()
    x = tf.random_uniform([1, 4])
    for _ in range(3):
        # tf.tidy(() => {...}): Python lambdas hold one expression, so the body is a function.
        def body() -> None:
            y = model.predict(x)
            y.print()
            print(f"# of tensors: {tf.memory().num_tensors}")

        tf.tidy(body)


def arg_max_leak() -> None:
    """``model.predict(x).arg_max().data_sync()[0]`` loses two tensors per iteration."""
    model = load_iris_model()
    x = tf.random_uniform([1, 4])
    for _ in range(3):
        # Two tensors nobody can reach: predict()'s output and arg_max()'s.
        winning_index = model.predict(x).arg_max().data_sync()[0]
        print(f"winning index: {winning_index}")
        print(f"# of tensors: {tf.memory().num_tensors}")


def arg_max_tidy() -> None:
    """``tf.tidy`` frees the two unnamed tensors too."""
    model = load_iris_model()
    x = tf.random_uniform([1, 4])
    for _ in range(3):

        def body() -> None:
            winning_index = model.predict(x).arg_max().data_sync()[0]
            print(f"winning index: {winning_index}")
            print(f"# of tensors: {tf.memory().num_tensors}")

        tf.tidy(body)


def normalize_leaky(x: tf.Tensor) -> tf.Tensor:
    """The book's first ``normalize``: leaks the mean, the norm and ``sub``'s result."""
    mean = x.mean()
    sd = x.norm(2)
    return x.sub(mean).div(sd)


def normalize(x: tf.Tensor) -> tf.Tensor:
    """The book's fixed ``normalize``: the body in ``tf.tidy``; only the result survives."""
    return tf.tidy(lambda: x.sub(x.mean()).div(x.norm(2)))


def normalize_demo() -> None:
    """Counts around both versions of ``normalize``."""
    x = tf.tensor1d([1, 2, 3, 4])
    start = tf.memory().num_tensors
    print(f"# of tensors before: {start}")
    y = normalize_leaky(x)
    now = tf.memory().num_tensors
    print(f"# of tensors after normalize() without tf.tidy(): {now}", end="")
    print(f" (the result and {now - start - 1} leaked tensors)")
    y.print()
    tf.dispose(y)
    start = tf.memory().num_tensors
    y = normalize(x)
    now = tf.memory().num_tensors
    print(f"# of tensors after normalize() with tf.tidy(): {now}", end="")
    print(f" (the result and {now - start - 1} leaked tensors)")
    y.print()
    print(f"the result is disposed: {y.is_disposed}")


# ---------------------------------------------------------------- basics
def tensors_demo() -> None:
    """Creating tensors: ``tf.tensor`` with a shape, inferred shapes, ``tensor2d``, ``zeros``."""
    shape = [2, 3]  # 2 rows, 3 columns
    a = tf.tensor([1.0, 2.0, 3.0, 10.0, 20.0, 30.0], shape)
    a.print()
    b = tf.tensor([[1.0, 2.0, 3.0], [10.0, 20.0, 30.0]])
    b.print()
    c = tf.tensor2d([[1.0, 2.0, 3.0], [10.0, 20.0, 30.0]])
    c.print()
    zeros = tf.zeros([3, 5])
    zeros.print()


def variables_demo() -> None:
    """A variable initialized from a tensor, then given new values with ``assign``."""
    initial_values = tf.zeros([5])
    biases = tf.variable(initial_values)
    biases.print()
    updated_values = tf.tensor1d([0, 1, 0, 1, 0])
    biases.assign(updated_values)
    biases.print()


def operations_demo() -> None:
    """Unary and binary ops, and chaining."""
    d = tf.tensor2d([[1.0, 2.0], [3.0, 4.0]])
    d_squared = d.square()
    d_squared.print()
    e = tf.tensor2d([[1.0, 2.0], [3.0, 4.0]])
    f = tf.tensor2d([[5.0, 6.0], [7.0, 8.0]])
    e_plus_f = e.add(f)
    e_plus_f.print()
    sq_sum = e.add(f).square()
    sq_sum.print()
    # Every op is also in the main namespace:
    sq_sum = tf.square(tf.add(e, f))
    sq_sum.print()


def model_from_ops_demo() -> None:
    """``y = 2x^2 + 4x + 8`` written with ops; ``predict(2)`` prints 24."""
    a = tf.scalar(2)
    b = tf.scalar(4)
    c = tf.scalar(8)

    def predict(input: float) -> tf.Tensor:
        # y = a * x ^ 2 + b * x + c
        def body() -> tf.Tensor:
            x = tf.scalar(input)
            ax2 = a.mul(x.square())
            bx = b.mul(x)
            y = ax2.add(bx).add(c)
            return y

        return tf.tidy(body)

    result = predict(2)
    result.print()


def dispose_demo() -> None:
    """``dispose`` frees a tensor's memory."""
    x = tf.tensor2d([[0.0, 2.0], [4.0, 6.0]])
    x_squared = x.square()
    _count()
    x.dispose()
    x_squared.dispose()
    _count()


def tidy_demo() -> None:
    """``tf.tidy`` frees every intermediate tensor and keeps the returned one."""

    def body() -> tf.Tensor:
        y = tf.tensor1d([1.0, 2.0, 3.0, 4.0])
        z = tf.ones([4])
        return y.sub(z).square().mean()

    average = tf.tidy(body)
    average.print()
    _count()


def tidy_keeps_variables_demo() -> None:
    """``tf.tidy`` does not clean up variables, even ones created inside it."""
    made = []

    def body() -> None:
        v = tf.variable(tf.tensor1d([1.0, 2.0]))
        v.assign(tf.tensor1d([3.0, 4.0]))
        made.append(v)

    tf.tidy(body)
    _count()
    (v,) = made
    print(f"the variable is disposed: {v.is_disposed}")
    v.print()
    v.dispose()
    _count()


# ------------------------------------------------------- training with the Layers API
def iris_split() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The bundled Iris data split 120 / 30 (every fifth flower of each species held out),
    features standardized with the training set's mean and deviation."""
    iris = load_iris()
    held_out = np.arange(len(iris.target)) % 5 == 4
    x_train, y_train = iris.data[~held_out], iris.target[~held_out]
    x_test, y_test = iris.data[held_out], iris.target[held_out]
    mean, std = x_train.mean(axis=0), x_train.std(axis=0)
    return (x_train - mean) / std, y_train, (x_test - mean) / std, y_test


def iris_classifier(run_eagerly: bool = False) -> Any:
    """The Iris demo's model, compiled: 4 -> 10 (sigmoid) -> 3 (softmax), seeded Glorot
    weights, Adam 0.02, categorical crossentropy, accuracy (benchmarks/ times its ``fit``)."""
    model = layers.models.sequential()
    model.add(
        layers.dense(
            units=10,
            activation="sigmoid",
            input_shape=[4],
            kernel_initializer=layers.initializers.glorot_normal(seed=1),
        )
    )
    model.add(
        layers.dense(
            units=3,
            activation="softmax",
            kernel_initializer=layers.initializers.glorot_normal(seed=2),
        )
    )
    model.compile(
        optimizer=tf.train.adam(0.02),
        loss="categoricalCrossentropy",
        metrics=["accuracy"],
        run_eagerly=run_eagerly,
    )
    return model


def iris_training_demo(epochs: int = 30) -> float:
    """Trains a 4 -> 10 -> 3 classifier (sigmoid, softmax; Adam, categorical crossentropy,
    accuracy) with ``fit``, then checks memory. Returns the held-out accuracy."""
    x_train, y_train, x_test, y_test = iris_split()
    print(f"{len(y_train)} training and {len(y_test)} held-out flowers, 4 features each")
    xs = tf.tensor2d(x_train)
    ys = tf.one_hot(tf.tensor1d(y_train, "int32"), 3)
    model = iris_classifier()
    counts: list[int] = []
    random.seed(0)  # fit() shuffles with Python's random module: seed it for a repeatable run
    model.fit(
        xs,
        ys,
        epochs=epochs,
        batch_size=16,
        callbacks={"on_epoch_end": lambda epoch, logs: counts.append(tf.memory().num_tensors)},
    )
    flat = "flat" if len(set(counts[1:])) == 1 else "NOT flat"
    print(f"# of tensors at the end of each epoch: {', '.join(map(str, counts))} ({flat})")

    x_held_out = tf.tensor2d(x_test)
    predicted = tf.tidy(lambda: model.predict(x_held_out).arg_max(1).data_sync())
    correct = int((np.asarray(predicted) == y_test).sum())
    accuracy = correct / len(y_test)
    print(f"held-out accuracy: {accuracy:.3f} ({correct}/{len(y_test)})")

    before = tf.memory().num_tensors
    seen = set()
    for _ in range(1000):
        tf.tidy(lambda: model.predict(x_held_out).arg_max(1).data_sync())
        seen.add(tf.memory().num_tensors)
    print(f"# of tensors before 1,000 predict() calls, each inside tf.tidy(): {before}")
    print(f"# of tensors after each of them: {', '.join(map(str, sorted(seen)))}")

    # Save in TF.js's format (model.json + weights.bin, loadable by tf.loadLayersModel in
    # TF.js), load it back, and check the reloaded model predicts the same.
    with tempfile.TemporaryDirectory() as directory:
        model.save(directory)
        print(f"saved in TF.js's format: {', '.join(sorted(os.listdir(directory)))}")
        reloaded = tf.load_layers_model(directory)
    same = tf.tidy(
        lambda: bool(
            tf.max(
                tf.abs(tf.sub(model.predict(x_held_out), reloaded.predict(x_held_out)))
            ).data_sync()[0]
            < 1e-6
        )
    )
    print(f"reloaded model predicts the same: {same}")
    reloaded.dispose()
    model.dispose()
    tf.dispose([xs, ys, x_held_out])
    return accuracy


def checkpoint_model() -> Any:
    """The checkpoint guide's model: Dense(16, relu) on 10 features, Dropout(0.5), Dense(1, sigmoid);
    Adam(0.001), binary crossentropy, accuracy."""
    model = layers.models.sequential()
    model.add(layers.dense(units=16, activation="relu", input_shape=[10]))
    model.add(layers.dropout(rate=0.5))
    model.add(layers.dense(units=1, activation="sigmoid"))
    model.compile(
        optimizer=tf.train.adam(learning_rate=0.001),
        loss="binaryCrossentropy",
        metrics=["accuracy"],
    )
    return model


def checkpoint_datasets(seed: int = 4) -> tuple[Any, Any]:
    """The checkpoint guide's ``train_dataset`` and ``test_dataset`` (which it does not show): 512 and
    128 rows of 10 features, labelled by the sign of a fixed linear score, batches of 32."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=10)

    def dataset(rows: int) -> Any:
        x = rng.normal(size=(rows, 10)).astype("float32")
        y = (x @ w > 0).astype("float32")[:, None]
        return tf.data.zip({"xs": tf.data.array(x.tolist()), "ys": tf.data.array(y.tolist())})

    return dataset(512).batch(32), dataset(128).batch(32)


def checkpoints_demo(directory: str | None = None, epochs: int = 10) -> bool:
    """The checkpoint guide's workflow: ``ModelCheckpoint(save_weights_only=True)`` saves
    the weights after each epoch, ``tf.train.latest_checkpoint`` finds the newest, and a
    fresh model restored from it predicts exactly what the trained one does. Returns that.

    In ``directory`` (default: a temporary one), under the seed's relative path
    ``training/``; run it twice on the same directory and the second run restores the first
    run's newest checkpoint before training and continues from there."""
    own = directory is None
    workdir = tempfile.mkdtemp() if own else directory
    cwd = os.getcwd()
    os.chdir(workdir)  # the seed's relative paths ("training/cp-0001.ckpt")
    try:
        train_dataset, test_dataset = checkpoint_datasets()
        random.seed(0)
        model = checkpoint_model()
        checkpoint_path = "training/cp-{epoch:04d}.ckpt"
        checkpoint_dir = os.path.dirname(checkpoint_path)
        resumed = tf.train.latest_checkpoint(checkpoint_dir)
        if resumed is not None:
            model.load_weights(resumed)
            print(f"resuming from {os.path.join(workdir, resumed)}")
        cp_callback = tf.callbacks.model_checkpoint(
            filepath=checkpoint_path, save_weights_only=True, verbose=1
        )
        history = model.fit_dataset(
            train_dataset,
            epochs=epochs,
            validation_data=test_dataset,
            callbacks=[cp_callback],
            verbose=0,
        )
        print(f"val_acc after the last epoch: {history.history['val_acc'][-1]:.3f}")
        latest = tf.train.latest_checkpoint(checkpoint_dir)
        print(f"latest checkpoint: {latest}")
        print(f"files: {', '.join(sorted(os.listdir(checkpoint_dir))[:3])}, ...")
        fresh = checkpoint_model()
        x = tf.random_normal([8, 10], seed=1)
        before = tf.tidy(lambda: fresh.predict(x).data_sync())
        fresh.load_weights(latest)
        trained = tf.tidy(lambda: model.predict(x).data_sync())
        restored = tf.tidy(lambda: fresh.predict(x).data_sync())
        same = bool(np.array_equal(trained, restored))
        print(
            "fresh model before load_weights predicts the same: "
            f"{bool(np.array_equal(trained, before))}"
        )
        print(f"fresh model restored from latest predicts the same: {same}")
        tf.dispose(x)
        model.dispose()
        fresh.dispose()
        return same
    finally:
        os.chdir(cwd)
        if own:
            shutil.rmtree(workdir, ignore_errors=True)


#: (title, program) pairs: the memory programs (leaks and their fixes with ``tf.dispose`` and
#: ``tf.tidy``), the basics (tensors, variables, ops), then a training run.
PROGRAMS: list[tuple[str, Callable[[], Any]]] = [
    ("Memory: model.predict() in a loop: one leaked tensor per iteration", predict_leak),
    ("Memory: fixed with tf.dispose(y): the count stays constant", predict_dispose),
    ("Memory: fixed with tf.tidy(): the count stays constant", predict_tidy),
    ("Memory: predict(x).arg_max().data_sync()[0]: two leaked tensors per iteration", arg_max_leak),
    ("Memory: the same inside tf.tidy(): the count stays constant", arg_max_tidy),
    ("Memory: normalize() without and with tf.tidy()", normalize_demo),
    ("Basics: tensors", tensors_demo),
    ("Basics: variables", variables_demo),
    ("Basics: operations", operations_demo),
    ("Basics: a model written with ops: y = 2x^2 + 4x + 8", model_from_ops_demo),
    ("Basics: dispose", dispose_demo),
    ("Basics: tf.tidy", tidy_demo),
    ("Basics: tf.tidy does not clean up variables", tidy_keeps_variables_demo),
    ("Iris: train a classifier with fit(), then 1,000 predict() calls", iris_training_demo),
    (
        "Checkpoints: ModelCheckpoint each epoch, latest_checkpoint, load_weights",
        checkpoints_demo,
    ),
]


#: Earlier titles began with the number of the guide they came from ("000 ...", "001 ..."):
#: ``--only 000`` and ``--only 001`` still select those programs.
_OLD_PREFIXES = {"000": "memory:", "001": "basics:"}


def matches(title: str, only: list[str] | None) -> bool:
    """True when ``only`` is empty or one of its words is in ``title`` (ignoring case)."""
    if not only:
        return True
    words = [_OLD_PREFIXES.get(word.strip(), word).lower() for word in only]
    return any(word in title.lower() for word in words)


def run(only: list[str] | None = None) -> None:
    """Runs the programs (those whose title contains one of ``only``, if given).

    Each program starts from a fresh engine (``tf.engine().reset()``), as each original
    snippet is a separate program, so its counts start where the original's do.
    """
    selected = [(title, program) for title, program in PROGRAMS if matches(title, only)]
    for i, (title, program) in enumerate(selected):
        if i:
            print()
        print(f"=== {title} ===")
        tf.engine().reset()
        program()
    tf.engine().reset()
