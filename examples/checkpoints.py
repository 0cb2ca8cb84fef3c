"""Seed 004's checkpoint workflow: save the weights each epoch, resume from the newest.

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

Run: ``python examples/checkpoints.py [--dir DIR] [--epochs 10]``
"""

from __future__ import annotations

import argparse
import os

import numpy as np

import tidytensor as tf
from tidytensor.demo import checkpoint_datasets, checkpoint_model


def main(argv: list[str] | None = None) -> bool:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default=".", help="where the training/ directory goes")
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args(argv)

    checkpoint_path = os.path.join(args.dir, "training", "cp-{epoch:04d}.ckpt")
    checkpoint_dir = os.path.dirname(checkpoint_path)
    train_dataset, test_dataset = checkpoint_datasets()
    model = checkpoint_model()

    resumed = tf.train.latest_checkpoint(checkpoint_dir)
    if resumed is not None:
        model.load_weights(resumed)
        print(f"resuming from {resumed}")

    cp_callback = tf.callbacks.model_checkpoint(
        filepath=checkpoint_path, save_weights_only=True, verbose=1
    )
    history = model.fit_dataset(
        train_dataset,
        epochs=args.epochs,
        validation_data=test_dataset,
        callbacks=[cp_callback],
        verbose=0,
    )
    print(f"val_acc after the last epoch: {history.history['val_acc'][-1]:.3f}")

    latest = tf.train.latest_checkpoint(checkpoint_dir)
    restored = checkpoint_model()
    restored.load_weights(latest)
    x = tf.random_normal([16, 10], seed=4)
    same = tf.tidy(
        lambda: bool(np.array_equal(model.predict(x).data_sync(), restored.predict(x).data_sync()))
    )
    print(f"latest: {latest}; a fresh model restored from it predicts the same: {same}")
    tf.dispose(x)
    model.dispose()
    restored.dispose()
    return same


if __name__ == "__main__":
    raise SystemExit(0 if main() else 1)
