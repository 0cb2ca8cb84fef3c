"""tf.distribute on a local Ray cluster of 2 CPUs (2 worker processes): data-parallel training
equals one worker on the global batch, no tensor leaks on any worker, clear errors for bad
configurations, a killed worker's run resumes from the last checkpoint to the same weights,
and batch inference loads the model once per worker with flat memory.

Marked ``ray``: the default ``python -m pytest`` deselects them (pyproject's addopts), and
.ci/run runs them in their own step after installing the extra (``pytest -m ray``)."""

from __future__ import annotations

import glob
import json
import os
from pathlib import Path

import numpy as np
import pytest
import ray_loops

import tidytensor as tf
from tidytensor.distribute.sharding import ShardedEpochs

pytestmark = pytest.mark.ray

#: A collective waits this long for the other worker before failing (a hang fails the test).
COLLECTIVE_TIMEOUT_S = 120

#: One helper actor (process) fewer per run: no preemption watcher (a local cluster is never
#: preempted). Ray Train passes RAY_TRAIN_* variables on to its controller.
_QUIET_RAY_TRAIN = {"RAY_TRAIN_ENABLE_PREEMPTION_WATCHER": "0"}


@pytest.fixture(scope="module")
def ray():
    try:
        import ray
    except ImportError:
        pytest.fail("the tests marked 'ray' need Ray: pip install '.[ray]'")
    ray.cloudpickle.register_pickle_by_value(ray_loops)
    saved = {k: os.environ.get(k) for k in _QUIET_RAY_TRAIN}
    os.environ.update(_QUIET_RAY_TRAIN)
    src = str(Path(tf.__file__).resolve().parents[1])
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": src}},
    )
    yield ray
    ray.shutdown()
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def _train(ray, tmp_path: Path, name: str, max_failures: int = 0, **config):
    from ray.train import FailureConfig, RunConfig, ScalingConfig

    log_dir = tmp_path / f"{name}-logs"
    log_dir.mkdir()
    trainer = tf.distribute.TidytensorTrainer(
        ray_loops.train_loop,
        train_loop_config={"log_dir": str(log_dir), **config},
        tidytensor_config=tf.distribute.TidytensorConfig(timeout_s=COLLECTIVE_TIMEOUT_S),
        scaling_config=ScalingConfig(num_workers=2),
        run_config=RunConfig(
            storage_path=str(tmp_path / "storage"),
            name=name,
            failure_config=FailureConfig(max_failures=max_failures),
        ),
    )
    result = trainer.fit()
    summary = json.loads((log_dir / "summary.json").read_text())
    starts = [json.loads(Path(p).read_text()) for p in sorted(glob.glob(str(log_dir / "start-*")))]
    return result, summary, starts


def _checkpoint_weights(checkpoint) -> list[np.ndarray]:
    model, _ = tf.distribute.load_checkpoint(checkpoint)
    try:
        return ray_loops.weights_of(model)
    finally:
        model.dispose()


def _reference(fit) -> list[np.ndarray]:
    """One process, one worker: trains ``build_model()`` with ``fit(model, x, y)``."""
    model = ray_loops.build_model()
    x, y = ray_loops.make_data()
    try:
        fit(model, x, y)
        return ray_loops.weights_of(model)
    finally:
        model.optimizer.dispose()
        model.dispose()


def test_two_workers_train_as_one_on_the_global_batch(ray, tmp_path):
    """69 samples, global batch 16: four batches of 8 + 8 per worker and a last one of 3 + 2
    (the all-reduce weights it by batch size), 3 epochs of Adam. The same run checks the bad
    configurations first and counts every worker's tensors."""
    result, workers, _ = _train(
        ray, tmp_path, "equal", epochs=3, batch_size=16, shuffle=False, check_bad_configs=True
    )
    expected = _reference(
        lambda model, x, y: model.fit(x, y, batch_size=16, epochs=3, shuffle=False, verbose=0)
    )
    got = _checkpoint_weights(result.checkpoint)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, e, rtol=0, atol=1e-5)
    print(
        "largest |2 workers - 1 worker|:",
        max(float(np.abs(g - e).max()) for g, e in zip(got, expected, strict=True)),
    )
    assert result.metrics["epoch"] == 3
    # Reported through ray.train.report: per worker, the MLP's 4 weights, Adam's 8 moments and
    # its 2 accumulated beta powers; nothing else.
    assert result.metrics["num_tensors_per_worker"] == [14, 14]

    # Both workers hold bit-identical weights; neither leaks a tensor.
    assert workers[0]["weights_digest"] == workers[1]["weights_digest"]
    for w in workers:
        assert w["num_tensors_at_epoch_ends"] == [w["num_tensors_at_epoch_ends"][0]] * 3
        assert w["num_tensors_after_dispose"] == w["num_tensors_before"] == 0
        # 5 steps per epoch, one all-reduce each, plus the epoch's metrics and tensor counts.
        assert w["collective_calls"] == 3 * (5 + 2)

    # Bad configurations: clear errors on every worker.
    for rank, w in enumerate(workers):
        batch = w["errors"]["batch_size"]
        assert "model.fit(batch_size=15) on 2 workers" in batch
        assert "divisible by the number of workers" in batch and "14 or 16" in batch
        mismatch = w["errors"]["mismatch"]
        other = 1 - rank
        assert f"the model on worker {other} differs" in mismatch
        assert "weight 0 has shape" in mismatch and "[6, 5]" in mismatch and "[6, 8]" in mismatch


def test_a_killed_worker_resumes_from_the_last_checkpoint(ray, tmp_path):
    """Worker 1 is killed (SIGKILL) as epoch 3 of 4 begins; Ray Train restarts the group
    from the last checkpoint, and the run ends with the weights of an uninterrupted run: one
    worker training on the same shuffled global batches."""
    marker = tmp_path / "killed"
    result, workers, starts = _train(
        ray,
        tmp_path,
        "killed",
        max_failures=1,
        epochs=4,
        batch_size=16,
        seed=7,
        kill_marker=str(marker),
        kill_epoch=2,
    )
    assert marker.exists(), "worker 1 was never killed"
    resumed = sorted(s["resumed_at_epoch"] for s in starts)
    # Both first starts begin at epoch 0; both restarts at epoch 2, after the checkpoint of
    # epoch 2 (index 1), which the killed worker waited to see committed.
    assert resumed == [0, 0, 2, 2]
    x, y = ray_loops.make_data()
    expected = _reference(
        lambda model, x, y: model.fit_dataset(
            ShardedEpochs([x], [y], 16, 1, 0, seed=7), epochs=4, verbose=0
        )
    )
    got = _checkpoint_weights(result.checkpoint)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, e, rtol=0, atol=1e-5)
    assert workers[0]["weights_digest"] == workers[1]["weights_digest"]
    assert all(w["num_tensors_after_dispose"] == 0 for w in workers)


def test_ray_data_shards_feed_fit_dataset(ray, tmp_path):
    """69 rows split into two equal shards of 34 (Ray Train's DataConfig), read in batches of
    8 with the last partial one dropped: both workers take 4 steps per epoch, end with the
    same weights, and leak nothing."""
    from ray.train import RunConfig, ScalingConfig

    x, y = ray_loops.make_data()
    dataset = ray.data.from_items([{"x": a, "y": b} for a, b in zip(x, y, strict=True)])
    trainer = tf.distribute.TidytensorTrainer(
        ray_loops.ray_data_loop,
        train_loop_config={"log_dir": str(tmp_path)},
        tidytensor_config=tf.distribute.TidytensorConfig(timeout_s=COLLECTIVE_TIMEOUT_S),
        # Half a CPU per worker leaves one for Ray Data's split.
        scaling_config=ScalingConfig(num_workers=2, resources_per_worker={"CPU": 0.5}),
        run_config=RunConfig(storage_path=str(tmp_path / "storage"), name="ray-data"),
        datasets={"train": dataset},
    )
    trainer.fit()
    workers = json.loads((tmp_path / "summary.json").read_text())
    assert [w["batch_sizes"] for w in workers] == [[8] * 8, [8] * 8]
    assert workers[0]["weights_digest"] == workers[1]["weights_digest"]
    assert [w["num_tensors"] for w in workers] == [0, 0]


def test_batch_inference_loads_once_per_worker_with_flat_memory(ray, tmp_path):
    model = ray_loops.build_model()
    x, _ = ray_loops.make_data(n=240, seed=3)
    try:
        model.save(f"file://{tmp_path / 'model'}")
        expected = tf.tidy(lambda: model.predict(tf.tensor(x)).array_sync())
    finally:
        model.optimizer.dispose()
        model.dispose()
    dataset = ray.data.from_items(
        [{"x": row, "i": i} for i, row in enumerate(x)], override_num_blocks=12
    )
    predicted = tf.distribute.predict_batches(
        dataset,
        f"file://{tmp_path / 'model' / 'model.json'}",
        batch_size=10,
        concurrency=2,
        num_cpus=0.5,
        memory_columns=True,
    ).to_pandas()
    predicted = predicted.sort_values("i")
    np.testing.assert_allclose(np.stack(predicted["prediction"].to_list()), expected, atol=1e-6)
    per_worker = predicted.groupby("worker_pid")
    assert len(per_worker) == 2, "both inference workers should get batches"
    for _, rows in per_worker:
        assert set(rows["model_loads"]) == {1}
        # Same tensors and bytes after every batch: the model's weights, nothing left behind.
        assert rows["num_tensors"].nunique() == 1 and rows["num_bytes"].nunique() == 1
        assert rows["num_tensors"].iloc[0] == 4
    assert os.path.exists(tmp_path / "model" / "model.json")
