"""Memory management in tidytensor: ``tf.dispose()`` and ``tf.tidy()``.

The programs of the TF.js book's appendix B.3, ported line by line. As in TF.js, tensors
are never garbage-collected: a tensor lives until ``dispose`` or the end of the ``tidy``
that made it, and ``tf.memory().num_tensors`` shows every one that is still alive.

The book loads a pretrained Iris model from the network; ``load_iris_model()`` builds a
small fixed-weight one instead. Its ``predict`` returns one new tensor, as a Layers
model's does, so the counts grow exactly as in the book from a different base.

Run: ``python examples/memory_dispose_and_tidy.py``
"""

from __future__ import annotations

import tidytensor as tf
from tidytensor.demo import load_iris_model


def leak_in_a_loop() -> None:
    # const model = await tf.loadLayersModel('.../iris_v1/model.json');
    model = load_iris_model()
    x = tf.random_uniform([1, 4])  # a dummy input
    for _ in range(3):
        y = model.predict(x)
        y.print()
        print(f"# of tensors: {tf.memory().num_tensors}")  # grows by one each time


def fix_with_dispose() -> None:
    model = load_iris_model()
    x = tf.random_uniform([1, 4])
    for _ in range(3):
        y = model.predict(x)
        y.print()
        tf.dispose(y)  # free the output once it is no longer needed
        print(f"# of tensors: {tf.memory().num_tensors}")


def fix_with_tidy() -> None:
    model = load_iris_model()
    x = tf.random_uniform([1, 4])
    for _ in range(3):
        # tf.tidy(() => {...}): Python lambdas hold one expression, so the body is a function.
        def body() -> None:
            y = model.predict(x)
            y.print()
            print(f"# of tensors: {tf.memory().num_tensors}")

        tf.tidy(body)


def arg_max_leaks_two() -> None:
    model = load_iris_model()
    x = tf.random_uniform([1, 4])
    for _ in range(3):
        # Two tensors nobody can reach: predict()'s output and arg_max()'s.
        winning_index = model.predict(x).arg_max().data_sync()[0]
        print(f"winning index: {winning_index}")
        print(f"# of tensors: {tf.memory().num_tensors}")


def arg_max_in_tidy() -> None:
    model = load_iris_model()
    x = tf.random_uniform([1, 4])
    for _ in range(3):

        def body() -> None:
            winning_index = model.predict(x).arg_max().data_sync()[0]
            print(f"winning index: {winning_index}")
            print(f"# of tensors: {tf.memory().num_tensors}")

        tf.tidy(body)


def normalize_leaky(x: tf.Tensor) -> tf.Tensor:
    # Leaks three tensors: the mean, the norm, and sub()'s result.
    mean = x.mean()
    sd = x.norm(2)
    return x.sub(mean).div(sd)


def normalize(x: tf.Tensor) -> tf.Tensor:
    # tidy frees everything made inside except the returned tensor.
    def body() -> tf.Tensor:
        mean = x.mean()
        sd = x.norm(2)
        return x.sub(mean).div(sd)

    return tf.tidy(body)


def normalize_demo() -> None:
    x = tf.tensor1d([1, 2, 3, 4])
    before = tf.memory().num_tensors
    y = normalize_leaky(x)
    print(f"without tidy: {tf.memory().num_tensors - before} new tensors")  # 4
    tf.dispose(y)
    before = tf.memory().num_tensors
    y = normalize(x)
    print(f"with tidy: {tf.memory().num_tensors - before} new tensor")  # 1: the result
    y.print()


if __name__ == "__main__":
    for program in (
        leak_in_a_loop,
        fix_with_dispose,
        fix_with_tidy,
        arg_max_leaks_two,
        arg_max_in_tidy,
        normalize_demo,
    ):
        print(f"--- {program.__name__} ---")
        tf.engine().reset()  # each one is a separate program in the book
        program()
