"""The Layers training tests against TF.js's goldens once more, op by op.

Compiled steps are the default (``model.compile(run_eagerly=False)``), so the modules
imported below run compiled in their own files; here every test of theirs runs again with
``tf.config.run_functions_eagerly(True)``, the op-by-op reference. Both must match TF.js.
(``TIDYTENSOR_RUN_EAGERLY=1`` flips the default for a whole run instead.)
"""

from __future__ import annotations

import pytest
from test_training_api import *  # noqa: F403
from test_training_callbacks import *  # noqa: F403
from test_training_golden import *  # noqa: F403
from test_training_more_golden import *  # noqa: F403

import tidytensor as tf


@pytest.fixture(autouse=True)
def _op_by_op():
    tf.config.run_functions_eagerly(True)
    yield
    tf.config.run_functions_eagerly(False)


def test_the_imported_tests_run_op_by_op():
    model = tf.sequential()
    model.add(tf.layers.dense(units=1, input_shape=[2]))
    model.compile(optimizer="sgd", loss="meanSquaredError")
    x, y = tf.ones([2, 2]), tf.ones([2, 1])
    for _ in range(3):
        model.train_on_batch(x, y)
    assert model.model.compiled_steps["train"].tracing_count == 0
    tf.dispose([x, y])
    model.dispose()
