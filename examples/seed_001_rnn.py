"""The seed 001 model: a ``tf.sequential`` with one SimpleRNN layer, trained with SGD.

The TF.js tutorial's snippet, ported line by line (camelCase becomes snake_case; the
tutorial's ``model.fit({x: data, y: labels})`` is ``model.fit(data, labels)``)::

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

The tutorial leaves ``data``, ``labels`` and ``LEARNING_RATE`` to the reader; here they are a
small random batch of sequences (80 steps of 4 features) with one-hot labels over the
layer's 20 outputs.

Run: ``python examples/seed_001_rnn.py``
"""

from __future__ import annotations

import tidytensor as tf

LEARNING_RATE = 0.01
NUM_EXAMPLES = 16

model = tf.sequential()
model.add(
    tf.layers.simple_rnn(
        units=20,
        recurrent_initializer="GlorotNormal",
        input_shape=[80, 4],
    )
)

optimizer = tf.train.sgd(LEARNING_RATE)
model.compile(optimizer=optimizer, loss="categoricalCrossentropy")

data = tf.random_normal([NUM_EXAMPLES, 80, 4], 0, 1, "float32", 1)
labels = tf.one_hot(tf.tensor1d([i % 20 for i in range(NUM_EXAMPLES)], "int32"), 20)

history = model.fit(data, labels, epochs=3, batch_size=8, verbose=0)

for epoch, loss in zip(history.epoch, history.history["loss"], strict=True):
    print(f"epoch {epoch + 1}: loss {loss:.4f}")
print("tensors in memory:", tf.memory().num_tensors)
