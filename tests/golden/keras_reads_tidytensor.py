"""Checks that Keras 3 and tf-keras load the ``.weights.h5`` files tidytensor writes: run
in the Keras virtual environment of make_keras_fixtures.py, after writing the files with
tidytensor (the package itself is not needed in that environment)::

    PYTHONPATH=src python -c "import tidytensor as tf; [tf.load_layers_model(
        f'tests/golden/keras/{n}.keras').save_weights(f'/tmp/tt/{n}.weights.h5') for n in
        ['mlp', 'cnn', 'gru', 'lstm', 'two_inputs', 'embedding', 'nested']]"
    /tmp/kerasvenv/bin/python tests/golden/keras_reads_tidytensor.py /tmp/tt

Prints, per model and Keras version, the largest difference from Keras's own predictions in
predictions.json; exits 1 if any is above 1e-4.
"""

from __future__ import annotations

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
from make_keras_fixtures import NAMES, OUT, build  # noqa: E402


def main(directory: str) -> int:
    import keras
    import tf_keras

    predictions = json.load(open(os.path.join(OUT, "predictions.json")))
    worst = 0.0
    for name in NAMES:
        for tag, k in (("k3", keras), ("k2", tf_keras)):
            model = build(k, name)
            model.load_weights(os.path.join(directory, f"{name}.weights.h5"))
            xs = [np.array(x) for x in predictions[name]["inputs"]]
            y = model.predict(xs if len(xs) > 1 else xs[0], verbose=0)
            difference = float(np.abs(np.asarray(y) - np.array(predictions[name][tag])).max())
            worst = max(worst, difference)
            print(f"{name} {tag} ({k.__name__} {k.__version__}): {difference:.3g}")
    return 0 if worst <= 1e-4 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
