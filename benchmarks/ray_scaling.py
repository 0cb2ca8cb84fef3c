"""Data-parallel training on Ray: 1 vs 2 workers on this machine (issue 19).

Trains a 784-256-10 MLP (203,530 float32 parameters, a 0.8 MB gradient vector) with
``tf.distribute.TidytensorTrainer`` on 1 and 2 workers at the same global batch size, and
reports per worker count: samples per second over the timed epochs (Ray's start-up and the
first, warm-up epoch excluded), the all-reduce's share of a step, and the cost of one
all-reduce of 1 KB to 4 MB vectors (for the estimate of larger groups in RESULTS.md). The same
model trained by ``model.fit`` in this process, without Ray, is the baseline.

    PYTHONPATH=src python benchmarks/ray_scaling.py [--epochs 2] [--out results.json]

Needs the ``ray`` extra. Start-up dominates the wall time (a minute or more on a busy machine).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

import tidytensor as tf

SAMPLES, FEATURES, HIDDEN, CLASSES = 4096, 784, 256, 10
GLOBAL_BATCH = 128
SIZES = (256, 25_600, 262_144, 1_048_576)  # float32 values: 1 KB, 100 KB, 1 MB, 4 MB


def make_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(SAMPLES, FEATURES)).astype(np.float32)
    y = np.eye(CLASSES, dtype=np.float32)[rng.integers(CLASSES, size=SAMPLES)]
    return x, y


def build_model() -> Any:
    model = tf.sequential()
    model.add(tf.layers.dense(units=HIDDEN, activation="relu", input_shape=[FEATURES]))
    model.add(tf.layers.dense(units=CLASSES, activation="softmax"))
    model.compile(optimizer=tf.train.sgd(0.05), loss="categorical_crossentropy")
    return model


def baseline(epochs: int) -> dict[str, float]:
    """``model.fit`` in this process, no Ray: samples per second."""
    x, y = make_data()
    model = build_model()
    model.fit(x, y, batch_size=GLOBAL_BATCH, epochs=1, shuffle=False, verbose=0)
    start = time.perf_counter()
    model.fit(x, y, batch_size=GLOBAL_BATCH, epochs=epochs, shuffle=False, verbose=0)
    seconds = time.perf_counter() - start
    model.optimizer.dispose()
    model.dispose()
    return {"samples_per_s": SAMPLES * epochs / seconds, "step_ms": 1e3 * seconds / _steps(epochs)}


def _steps(epochs: int) -> int:
    return epochs * -(-SAMPLES // GLOBAL_BATCH)


def train_loop(config: dict) -> None:
    strategy = tf.distribute.MultiWorkerMirroredStrategy(seed=0)
    comm = strategy.communicator
    model = strategy.prepare_model(build_model())
    x, y = make_data()
    model.fit(x, y, batch_size=GLOBAL_BATCH, epochs=1, verbose=0)  # warm-up
    comm.reset_stats()
    start = time.perf_counter()
    model.fit(
        x, y, batch_size=GLOBAL_BATCH, epochs=1 + config["epochs"], initial_epoch=1, verbose=0
    )
    seconds = time.perf_counter() - start
    training = {
        "seconds": seconds,
        "all_reduce_seconds": comm.seconds,
        "all_reduce_calls": comm.calls,
        "all_reduce_bytes": comm.bytes_sent,
    }
    collectives = {}
    for size in SIZES:
        vector = np.ones(size, np.float32)
        comm.all_reduce_mean(vector)  # warm-up
        comm.reset_stats()
        repeats = 20 if size <= 262_144 else 8
        for _ in range(repeats):
            comm.all_reduce_mean(vector)
        collectives[str(size * 4)] = comm.seconds / repeats
    model.optimizer.dispose()
    model.dispose()
    everyone = strategy.gather({"training": training, "all_reduce_s_by_bytes": collectives})
    if strategy.is_chief:
        Path(config["out"]).write_text(json.dumps(everyone))


def run_workers(num_workers: int, epochs: int) -> list[dict[str, Any]]:
    from ray.train import RunConfig, ScalingConfig

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "workers.json")
        trainer = tf.distribute.TidytensorTrainer(
            train_loop,
            train_loop_config={"epochs": epochs, "out": out},
            scaling_config=ScalingConfig(num_workers=num_workers),
            run_config=RunConfig(storage_path=tmp, name=f"scaling-{num_workers}"),
        )
        trainer.fit()
        return json.loads(Path(out).read_text())


def summarize(num_workers: int, workers: list[dict[str, Any]], epochs: int) -> dict[str, Any]:
    seconds = max(w["training"]["seconds"] for w in workers)
    reduce_share = [w["training"]["all_reduce_seconds"] / w["training"]["seconds"] for w in workers]
    return {
        "workers": num_workers,
        "samples_per_s": SAMPLES * epochs / seconds,
        "step_ms": 1e3 * seconds / _steps(epochs),
        "all_reduce_ms_per_step": 1e3
        * np.mean([w["training"]["all_reduce_seconds"] for w in workers])
        / _steps(epochs),
        "all_reduce_share": float(np.mean(reduce_share)),
        "all_reduce_ms_by_bytes": {
            k: 1e3 * float(np.mean([w["all_reduce_s_by_bytes"][k] for w in workers]))
            for k in workers[0]["all_reduce_s_by_bytes"]
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--out", default=None, help="also write the results as JSON here")
    args = parser.parse_args()
    import ray

    src = str(Path(tf.__file__).resolve().parents[1])
    bench = str(Path(__file__).resolve().parent)
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join([src, bench])}},
    )
    results: dict[str, Any] = {"load_average_before": os.getloadavg()}
    results["baseline_no_ray"] = baseline(args.epochs)
    for n in (1, 2):
        results[f"{n}_workers"] = summarize(n, run_workers(n, args.epochs), args.epochs)
    results["load_average_after"] = os.getloadavg()
    ray.shutdown()
    print(json.dumps(results, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
