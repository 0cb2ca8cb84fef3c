"""Memory management in tidytensor: ``tf.dispose()`` and ``tf.tidy()``.

The programs of the TF.js book's appendix B.3, ported line by line. As in TF.js, tensors
are never garbage-collected: a tensor lives until ``dispose`` or the end of the ``tidy``
that made it, and ``tf.memory().num_tensors`` shows every one that is still alive.

The book loads a pretrained Iris model from the network; ``load_iris_model()`` builds a
small fixed-weight one instead. Its ``predict`` returns one new tensor, as a Layers
model's does, so the counts grow exactly as in the book from a different base.

The programs are ``tidytensor.demo``'s (``predict_leak``, ``predict_dispose``,
``predict_tidy``, ``arg_max_leak``, ``arg_max_tidy``, ``normalize_demo``): this script runs
them, as ``tidytensor demo --only memory`` does. Read them in ``src/tidytensor/demo.py``.

Run: ``python examples/memory_dispose_and_tidy.py``
"""

from __future__ import annotations

from tidytensor.demo import run

if __name__ == "__main__":
    run(["memory:"])  # each one from a fresh engine: a separate program in the book
