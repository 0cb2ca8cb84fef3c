"""Train a SimpleRNN sequence classifier: ``tf.sequential``, ``compile`` with SGD, ``fit``.

TF.js's RNN tutorial starts from this snippet (camelCase becomes snake_case here; its
``model.fit({x: data, y: labels})`` is ``model.fit(data, labels)``)::

    const model = tf.sequential();
    model.add(
      tf.layers.simpleRNN({
        units: 20,
        recurrentInitializer: 'GlorotNormal',
        inputShape: [80, 4]
      })
    );
    const optimizer = tf.train.sgd(LEARNING_RATE);
    model.compile({optimizer, loss: 'categoricalCrossentropy'});
    model.fit({x: data, y: labels});

The tutorial leaves ``data``, ``labels`` and ``LEARNING_RATE`` to the reader. Here the task
is one the network can learn: each sequence is 80 steps of 4 noisy features, and its class
(0 to 3) is the feature whose values are raised by 1 throughout. The snippet trains the
RNN's 20 ``tanh`` outputs directly against the labels; categorical cross-entropy wants
class probabilities, so a ``softmax`` Dense layer (one unit per class) goes on top.

The script prints the loss and accuracy of each epoch (both improve), the accuracy on
sequences the model never saw, and the tensors still alive at the end: exactly the model's
weights, the data this script keeps and the optimizer's learning rate (``fit`` frees every
temporary), then 0 once those are disposed.

Run: ``python examples/rnn_training.py``
"""

from __future__ import annotations

import random

import numpy as np

import tidytensor as tf

LEARNING_RATE = 0.05
NUM_CLASSES = 4
STEPS, FEATURES = 80, 4


def make_sequences(count: int, seed: int) -> tuple[tf.Tensor, tf.Tensor]:
    """``count`` noisy sequences and their one-hot classes: class ``c`` raises feature ``c``."""
    rng = np.random.default_rng(seed)
    x = rng.normal(0, 1, (count, STEPS, FEATURES)).astype(np.float32)
    classes = rng.integers(0, NUM_CLASSES, count)
    x[np.arange(count), :, classes] += 1.0
    labels = tf.tidy(lambda: tf.one_hot(tf.tensor1d(classes.tolist(), "int32"), NUM_CLASSES))
    return tf.tensor(x), labels


def main() -> None:
    random.seed(0)  # fit() shuffles with Python's random module: seed it for a repeatable run
    model = tf.sequential()
    model.add(
        tf.layers.simple_rnn(
            units=20,
            recurrent_initializer=tf.initializers.glorot_normal(seed=3),
            input_shape=[STEPS, FEATURES],
            kernel_initializer=tf.initializers.glorot_uniform(seed=1),
        )
    )
    model.add(
        tf.layers.dense(
            units=NUM_CLASSES,
            activation="softmax",
            kernel_initializer=tf.initializers.glorot_uniform(seed=2),
        )
    )
    optimizer = tf.train.sgd(LEARNING_RATE)
    model.compile(optimizer=optimizer, loss="categorical_crossentropy", metrics=["accuracy"])

    data, labels = make_sequences(64, seed=0)
    history = model.fit(data, labels, epochs=15, batch_size=16, verbose=0)
    for epoch, loss, acc in zip(
        history.epoch, history.history["loss"], history.history["acc"], strict=True
    ):
        print(f"epoch {epoch + 1:2d}: loss {loss:.4f}, accuracy {acc:.3f}")

    test_data, test_labels = make_sequences(32, seed=1)
    correct = tf.tidy(
        lambda: int(
            tf.equal(model.predict(test_data).arg_max(1), test_labels.arg_max(1))
            .sum()
            .data_sync()[0]
        )
    )
    print(f"accuracy on 32 new sequences: {correct / 32:.3f}")

    weights = len(model.weights)
    total = tf.memory().num_tensors
    print(
        f"tensors in memory: {total} = {weights} weights of the model + 4 data tensors "
        f"(training and test sequences and labels) + {total - weights - 4} held by the SGD "
        "optimizer (its learning rate); fit() and predict() left nothing behind"
    )
    tf.dispose([data, labels, test_data, test_labels])
    model.dispose()
    optimizer.dispose()
    print(f"after disposing the data, the model and the optimizer: {tf.memory().num_tensors}")


if __name__ == "__main__":
    main()
