"""The TensorFlow 2 checkpoint workflow: save the weights each epoch, resume from the newest.

The seed (TensorFlow 2 / Keras), ported line by line::

    checkpoint_path = "training/cp-{epoch:04d}.ckpt"
    checkpoint_dir = os.path.dirname(checkpoint_path)
    cp_callback = tf.keras.callbacks.ModelCheckpoint(filepath=checkpoint_path,
                                                     save_weights_only=True, verbose=1)
    model.fit(train_dataset, epochs=10, validation_data=test_dataset, callbacks=[cp_callback])
    latest = tf.train.latest_checkpoint(checkpoint_dir)
    model.load_weights(latest)

A TF.js-style dataset goes to ``fit_dataset``. Each epoch writes ``cp-0001.ckpt.index`` and
``cp-0001.ckpt.data-00000-of-00001`` and updates the directory's ``checkpoint`` file, each
file replaced atomically. Run it twice: the second run finds the first run's checkpoints,
restores them into a fresh model before training and continues from there.

The program is ``tidytensor.demo.checkpoints_demo`` (``tidytensor demo --only checkpoints``
runs it in a temporary directory); this script runs it in ``--dir``.

Run: ``python examples/checkpoints.py [--dir DIR] [--epochs 10]``
"""

from __future__ import annotations

import argparse

from tidytensor.demo import checkpoints_demo


def main(argv: list[str] | None = None) -> bool:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default=".", help="where the training/ directory goes")
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args(argv)
    return checkpoints_demo(args.dir, args.epochs)


if __name__ == "__main__":
    raise SystemExit(0 if main() else 1)
