"""Training loops the Ray tests run on each worker (pickled by value into the workers), and the
model and data they share with the single-process reference runs."""

from __future__ import annotations

import hashlib
import json
import os
import signal
from typing import Any

import numpy as np

import tidytensor as tf

FEATURES, CLASSES = 6, 3


def make_data(n: int = 69, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, FEATURES)).astype(np.float32)
    labels = (x[:, 0] + x[:, 1] > 0).astype(int) + (x[:, 2] > 1).astype(int)
    return x, np.eye(CLASSES, dtype=np.float32)[labels]


def build_model(units: int = 8) -> Any:
    """An MLP whose initial weights are seeded (every worker, every restart, the same)."""
    model = tf.sequential()
    model.add(
        tf.layers.dense(
            units=units,
            activation="relu",
            input_shape=[FEATURES],
            kernel_initializer=tf.initializers.glorot_uniform(seed=1),
        )
    )
    model.add(
        tf.layers.dense(
            units=CLASSES,
            activation="softmax",
            kernel_initializer=tf.initializers.glorot_uniform(seed=2),
        )
    )
    model.compile(optimizer=tf.train.adam(0.05), loss="categorical_crossentropy")
    return model


def weights_of(model: Any) -> list[np.ndarray]:
    return [np.asarray(w.read().data_sync()).reshape(w.shape) for w in model.weights]


class _Memory(tf.Callback):
    """Records this worker's tf.memory().num_tensors at each epoch's end."""

    def __init__(self, seen: list[int]) -> None:
        super().__init__()
        self.seen = seen

    def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
        self.seen.append(tf.memory().num_tensors)


class _KillOnce(tf.Callback):
    """Kills worker 1's process at the start of ``epoch`` the first time only (a marker file
    remembers it), as a machine that dies mid-run."""

    def __init__(self, strategy: Any, epoch: int, marker: str) -> None:
        super().__init__()
        self.strategy, self.epoch, self.marker = strategy, epoch, marker

    def on_epoch_begin(self, epoch: int, logs: Any = None) -> None:
        if (
            epoch == self.epoch
            and self.strategy.worker_index == 1
            and not os.path.exists(self.marker)
        ):
            _wait_for_reported_checkpoints()
            with open(self.marker, "w") as f:
                f.write(str(os.getpid()))
            os.kill(os.getpid(), signal.SIGKILL)


def _wait_for_reported_checkpoints() -> None:
    """Blocks until Ray Train's controller has committed every report made so far.

    ``ray.train.report`` returns once this worker's result is queued; the controller takes it
    from the queue later. A worker killed before that loses the queued report, and the restart
    would begin from an older checkpoint (or none) on a fast machine and a newer one on a slow
    one. Waiting here makes the test's resume epoch the same on every machine."""
    import ray.train

    consistency = getattr(ray.train, "CheckpointConsistencyMode", None)
    if consistency is None:
        ray.train.get_all_reported_checkpoints()
    else:
        ray.train.get_all_reported_checkpoints(consistency_mode=consistency.COMMITTED)


def check_bad_configs(strategy: Any) -> dict[str, str]:
    """Each bad configuration, caught: {case: error message}."""
    errors = {}
    model = build_model()
    strategy.prepare_model(model)
    x, y = make_data()
    try:
        model.fit(x, y, batch_size=15, epochs=1, verbose=0)
    except tf.distribute.DistributeError as exc:
        errors["batch_size"] = str(exc)
    model.optimizer.dispose()
    model.dispose()
    mismatched = build_model(units=8 if strategy.worker_index == 0 else 5)
    try:
        strategy.prepare_model(mismatched)
    except tf.distribute.DistributeError as exc:
        errors["mismatch"] = str(exc)
    mismatched.optimizer.dispose()
    mismatched.dispose()
    return errors


def train_loop(config: dict) -> None:
    """Trains the MLP with model.fit on the global batch size; resumes from Ray Train's last
    checkpoint; reports metrics and checkpoints each epoch; worker 0 writes what each worker
    saw to ``log_dir/summary.json``."""
    import ray

    strategy = tf.distribute.MultiWorkerMirroredStrategy(seed=config.get("seed"))
    log_dir = config["log_dir"]
    errors = check_bad_configs(strategy) if config.get("check_bad_configs") else {}
    tensors_before = tf.memory().num_tensors
    model, done = tf.distribute.load_checkpoint(ray.train.get_checkpoint())
    if model is None:
        model = build_model()
    with open(os.path.join(log_dir, f"start-{strategy.worker_index}-{os.getpid()}.json"), "w") as f:
        json.dump({"rank": strategy.worker_index, "resumed_at_epoch": done}, f)
    strategy.prepare_model(model)
    x, y = make_data()
    seen: list[int] = []
    callbacks = [_Memory(seen), tf.distribute.ReportCheckpointCallback(strategy)]
    if config.get("kill_marker"):
        callbacks.insert(0, _KillOnce(strategy, config["kill_epoch"], config["kill_marker"]))
    strategy.communicator.reset_stats()
    model.fit(
        x,
        y,
        batch_size=config["batch_size"],
        epochs=config["epochs"],
        shuffle=config.get("shuffle", True),
        initial_epoch=done,
        verbose=0,
        callbacks=callbacks,
    )
    digest = hashlib.sha256(b"".join(w.tobytes() for w in weights_of(model))).hexdigest()
    calls = strategy.communicator.calls
    model.optimizer.dispose()
    model.dispose()
    summary = {
        "errors": errors,
        "num_tensors_before": tensors_before,
        "num_tensors_at_epoch_ends": seen,
        "num_tensors_after_dispose": tf.memory().num_tensors,
        "weights_digest": digest,
        "collective_calls": calls,
    }
    everyone = strategy.gather(summary)
    if strategy.is_chief:
        with open(os.path.join(log_dir, "summary.json"), "w") as f:
            json.dump(everyone, f)


def ray_data_loop(config: dict) -> None:
    """Trains on this worker's Ray Data shard (get_dataset_shard(...).iter_batches feeding
    fit_dataset); worker 0 writes what each worker did to ``log_dir/summary.json``."""
    import ray

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    model = strategy.prepare_model(build_model())
    batches = strategy.distribute_dataset_shard(
        ray.train.get_dataset_shard("train"), x="x", y="y", global_batch_size=16
    )
    steps: list[int] = []

    class _Steps(tf.Callback):
        def on_batch_end(self, batch: int, logs: Any = None) -> None:
            steps.append(int(logs["size"]))

    model.fit_dataset(batches, epochs=2, verbose=0, callbacks=[_Steps()])
    digest = hashlib.sha256(b"".join(w.tobytes() for w in weights_of(model))).hexdigest()
    model.optimizer.dispose()
    model.dispose()
    everyone = strategy.gather(
        {"batch_sizes": steps, "weights_digest": digest, "num_tensors": tf.memory().num_tensors}
    )
    if strategy.is_chief:
        with open(os.path.join(config["log_dir"], "summary.json"), "w") as f:
            json.dump(everyone, f)
