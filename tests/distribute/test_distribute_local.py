"""tf.distribute without a Ray cluster: the rendezvous's collectives (run on asyncio), the
sharding of global batches, the strategy on one in-process worker, checkpoints and the batch
predictor. The Ray cluster tests are in test_ray_cluster.py (marked ``ray``)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import warnings

import numpy as np
import pytest
import ray_loops

import tidytensor as tf
from tidytensor.distribute import collective, inference
from tidytensor.distribute._ray import require_ray
from tidytensor.distribute.collective import Rendezvous
from tidytensor.distribute.sharding import ShardedEpochs, global_batches, per_worker_batch_size
from tidytensor.distribute.strategy import model_fingerprint

DistributeError = tf.distribute.DistributeError


# ------------------------------------------------------------------ the rendezvous
def _together(rendezvous: Rendezvous, method: str, parts: list[tuple]) -> list:
    async def run() -> list:
        return await asyncio.gather(*(getattr(rendezvous, method)(*part) for part in parts))

    return asyncio.run(run())


def test_all_reduce_is_the_weighted_mean_in_rank_order_on_every_worker():
    r = Rendezvous(3, timeout_s=5)
    vectors = [
        np.array([1.0, 2.0], np.float32),
        np.array([3.0, 4.0], np.float32),
        np.array([5.0, 0.0], np.float32),
    ]
    answers = _together(
        r, "all_reduce", [(1, rank, vectors[rank], w) for rank, w in enumerate([2, 1, 1])]
    )
    for status, value in answers:
        assert status == "ok" and value.dtype == np.float32
        np.testing.assert_array_equal(value, np.array([2.5, 2.0], np.float32))
    assert r.rounds == {}  # every worker took its answer: the round is gone


def test_all_gather_lists_in_rank_order():
    r = Rendezvous(2, timeout_s=5)
    answers = _together(r, "all_gather", [(1, 1, "b"), (1, 0, "a")])
    assert answers == [("ok", ["a", "b"]), ("ok", ["a", "b"])]


def test_collective_errors_name_the_workers():
    r = Rendezvous(2, timeout_s=5)
    answers = _together(
        r, "all_reduce", [(1, 0, np.zeros(3, np.float32), 1), (1, 1, np.zeros(4, np.float32), 1)]
    )
    assert answers[0][0] == "error"
    assert "worker 0: 3 values, worker 1: 4 values" in answers[0][1]

    async def mixed() -> list:
        first = asyncio.ensure_future(r.all_gather(2, 0, None))
        await asyncio.sleep(0)
        second = await r.all_reduce(2, 1, np.zeros(1, np.float32), 1)
        first.cancel()
        return [second]

    ((status, message),) = asyncio.run(mixed())
    assert (
        status == "error"
        and "worker 1 called all_reduce while another worker called all_gather" in message
    )

    lonely = Rendezvous(3, timeout_s=0.05)
    status, message = asyncio.run(lonely.all_gather(1, 1, None))
    assert status == "error" and "waited 0.05 s for workers [0, 2], which never joined" in message


# ------------------------------------------------------------------ sharding
def test_batch_size_must_divide_among_the_workers():
    assert per_worker_batch_size(64, 4) == 16
    with pytest.raises(
        DistributeError, match=r"batch_size=10\) on 4 workers.*remainder of 2.*such as 8 or 12"
    ):
        per_worker_batch_size(10, 4)
    with pytest.raises(DistributeError, match="multiple of 4 such as 4"):
        per_worker_batch_size(3, 4)
    for bad in (0, -8, 2.0, True):
        with pytest.raises(DistributeError, match="positive integer"):
            per_worker_batch_size(bad, 2)


def test_the_workers_slices_make_up_each_global_batch():
    x = np.arange(23, dtype=np.float32).reshape(23, 1)
    y = -x
    one = ShardedEpochs([x], [y], 8, 1, 0, seed=5)
    two = [ShardedEpochs([x], [y], 8, 2, rank, seed=5) for rank in range(2)]
    for _ in range(2):  # two epochs: a new permutation each, the same on every worker
        whole = list(one)
        parts = [list(s) for s in two]
        assert len(whole) == len(parts[0]) == len(parts[1]) == 3
        for batch, a, b in zip(whole, *parts, strict=False):
            np.testing.assert_array_equal(np.concatenate([a[0], b[0]]), batch[0])
            np.testing.assert_array_equal(np.concatenate([a[1], b[1]]), batch[1])
    assert not np.array_equal(one.order(0), one.order(1))
    np.testing.assert_array_equal(ShardedEpochs([x], [y], 8, 1, 0).order(3), np.arange(23))


def test_a_last_batch_too_small_for_every_worker_is_dropped():
    with pytest.warns(UserWarning, match="drops the last 2 sample"):
        assert global_batches(18, 8, 4) == [(0, 8), (8, 16)]
    assert global_batches(20, 8, 4) == [(0, 8), (8, 16), (16, 20)]
    with (
        pytest.raises(DistributeError, match="3 samples cannot give each of 4 workers one"),
        pytest.warns(UserWarning),
    ):
        global_batches(3, 8, 4)


# ------------------------------------------------------------------ without Ray
def test_importing_tidytensor_does_not_import_ray():
    code = "import sys, tidytensor as tf; tf.distribute.MultiWorkerMirroredStrategy; print('ray' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_missing_ray_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    with pytest.raises(
        DistributeError, match=r"predict_batches runs on Ray.*pip install 'tidytensor\[ray\]'"
    ):
        tf.distribute.predict_batches(None, "model.json")
    with pytest.raises(DistributeError, match=r"TidytensorTrainer runs on Ray"):
        require_ray("TidytensorTrainer")


def test_the_strategy_needs_the_trainers_worker_group():
    collective.uninstall()
    with pytest.raises(
        DistributeError, match="inside the train_loop_per_worker of tf.distribute.TidytensorTrainer"
    ):
        tf.distribute.MultiWorkerMirroredStrategy()


class _OneWorker:
    """A communicator for a group of one, in process (what a Ray worker alone would do)."""

    world_size, rank = 1, 0

    def __init__(self) -> None:
        self.calls = 0

    def all_reduce_mean(self, vector, weight=1.0):
        self.calls += 1
        return np.asarray(vector).copy()

    def all_gather(self, obj):
        return [obj]

    def broadcast(self, obj, root=0):
        return obj


def test_one_worker_fit_equals_plain_fit_and_leaks_nothing():
    x, y = ray_loops.make_data()
    plain = ray_loops.build_model()
    plain.fit(x, y, batch_size=16, epochs=2, shuffle=False, verbose=0)
    expected = ray_loops.weights_of(plain)
    plain.optimizer.dispose()
    plain.dispose()

    comm = _OneWorker()
    strategy = tf.distribute.MultiWorkerMirroredStrategy(communicator=comm, seed=0)
    model = strategy.prepare_model(ray_loops.build_model())
    before = tf.memory().num_tensors
    history = model.fit(x, y, batch_size=16, epochs=2, shuffle=False, verbose=0)
    # The weights, and now Adam's two moments per weight: nothing else stays.
    assert tf.memory().num_tensors == before + 2 * len(model.weights)
    assert comm.calls == 2 * 5 and len(history.history["loss"]) == 2
    for g, e in zip(ray_loops.weights_of(model), expected, strict=True):
        np.testing.assert_array_equal(g, e)
    with pytest.raises(DistributeError, match="does not take class_weight, validation_split"):
        model.fit(x, y, batch_size=16, validation_split=0.2, class_weight={0: 1})
    model.optimizer.dispose()
    model.dispose()


def test_a_prepared_models_train_step_runs_op_by_op_without_a_warning():
    """The host all-reduce inside the step would make a compiled step read gradients back
    (and fall back to eager with a RuntimeWarning); the step runs op by op instead, and
    predict stays compiled."""
    x, y = ray_loops.make_data()
    comm = _OneWorker()
    strategy = tf.distribute.MultiWorkerMirroredStrategy(communicator=comm, seed=0)
    model = strategy.prepare_model(ray_loops.build_model())
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        model.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0)
        tf.dispose(model.predict(x))
    steps = model.model.compiled_steps
    assert "train" not in steps and "predict" in steps and comm.calls == 5
    model.optimizer.dispose()
    model.dispose()


def test_all_reduce_keeps_the_structure_and_reduce_sums_or_averages():
    strategy = tf.distribute.MultiWorkerMirroredStrategy(communicator=_OneWorker())
    a, b = tf.tensor([1, 2]), tf.tensor([[3.0]])
    out = strategy.all_reduce({"a": a, "b": b})
    assert list(out) == ["a", "b"] and out["b"].shape == [1, 1]
    assert out["a"].dtype == "float32" and out["a"].array_sync() == [1, 2]
    total = strategy.reduce(tf.distribute.ReduceOp.SUM, b, axis=None)
    mean = strategy.reduce("MEAN", a, axis=0)
    assert total.array_sync() == [[3.0]] and mean.array_sync() == 1.5
    assert strategy.reduce("SUM", 2.5) == 2.5
    with pytest.raises(DistributeError, match="op must be 'SUM' or 'MEAN'"):
        strategy.reduce("MAX", 1.0)
    tf.dispose([a, b, out, total, mean])


def test_prepare_model_needs_a_compiled_model_and_fingerprints_it():
    strategy = tf.distribute.MultiWorkerMirroredStrategy(communicator=_OneWorker())
    model = tf.sequential()
    model.add(tf.layers.dense(units=2, input_shape=[3]))
    with pytest.raises(DistributeError, match=r"no optimizer; call model.compile\(...\) first"):
        strategy.prepare_model(model)
    model.compile(optimizer="sgd", loss="mse")
    fingerprint = model_fingerprint(model)
    assert fingerprint["weights"] == [([3, 2], "float32"), ([2], "float32")]
    assert fingerprint["layers"] == ["Dense"] and fingerprint["optimizer"] == "SGDOptimizer"
    model.dispose()


def test_a_checkpoint_resumes_adam_where_it_stopped(tmp_path):
    """Two epochs, a checkpoint, two more from the loaded model: the weights of four
    uninterrupted epochs (Adam's moments and iteration count come back with the model)."""
    x, y = ray_loops.make_data()
    straight = ray_loops.build_model()
    straight.fit(x, y, batch_size=16, epochs=4, shuffle=False, verbose=0)
    expected = ray_loops.weights_of(straight)
    straight.optimizer.dispose()
    straight.dispose()

    first = ray_loops.build_model()
    first.fit(x, y, batch_size=16, epochs=2, shuffle=False, verbose=0)
    tf.distribute.save_checkpoint(first, str(tmp_path), epoch=2)
    first.optimizer.dispose()
    first.dispose()
    model, epoch = tf.distribute.load_checkpoint(str(tmp_path))
    assert epoch == 2
    model.fit(x, y, batch_size=16, epochs=4, initial_epoch=epoch, shuffle=False, verbose=0)
    for g, e in zip(ray_loops.weights_of(model), expected, strict=True):
        np.testing.assert_allclose(g, e, rtol=0, atol=1e-6)
    model.dispose()
    assert tf.distribute.load_checkpoint(None) == (None, 0)
    with pytest.raises(DistributeError, match="holds no tidytensor_checkpoint.json"):
        tf.distribute.load_checkpoint(str(tmp_path / "model"))


def test_the_predictor_loads_once_and_keeps_memory_flat(tmp_path):
    model = ray_loops.build_model()
    model.save(f"file://{tmp_path}")
    x, _ = ray_loops.make_data(n=30, seed=4)
    expected = tf.tidy(lambda: model.predict(tf.tensor(x)).array_sync())
    model.optimizer.dispose()
    model.dispose()
    loads = inference.LOADS_IN_PROCESS["count"]
    predictor = tf.distribute.ModelPredictor(f"file://{tmp_path}/model.json", memory_columns=True)
    outs = [predictor({"x": x[i : i + 10]}) for i in range(0, 30, 10)]
    assert inference.LOADS_IN_PROCESS["count"] == loads + 1
    np.testing.assert_allclose(np.concatenate([o["prediction"] for o in outs]), expected, atol=1e-6)
    assert {int(o["num_tensors"][0]) for o in outs} == {4}
    assert len({int(o["num_bytes"][0]) for o in outs}) == 1
    with pytest.raises(DistributeError, match="the batch has no column 'x'"):
        predictor({"features": x})
    predictor.model.dispose()


class _Shard:
    """Stands for a Ray Data DataIterator: numpy batches of a dict of columns."""

    def __init__(self, columns: dict) -> None:
        self.columns = columns
        self.calls: list[dict] = []

    def iter_batches(self, **kwargs):
        self.calls.append(kwargs)
        n = len(next(iter(self.columns.values())))
        size = kwargs["batch_size"]
        for start in range(0, n - size + 1 if kwargs.get("drop_last") else n, size):
            yield {k: v[start : start + size] for k, v in self.columns.items()}


def test_a_ray_data_shard_feeds_fit_dataset_in_per_worker_batches():
    x, y = ray_loops.make_data()
    rows = np.empty(len(x), dtype=object)
    rows[:] = list(x)  # a column of equal-shape rows, as Ray Data may hand them
    shard = _Shard({"x": rows, "y": y})
    strategy = tf.distribute.MultiWorkerMirroredStrategy(communicator=_OneWorker())
    model = strategy.prepare_model(ray_loops.build_model())
    batches = strategy.distribute_dataset_shard(shard, x="x", y=["y"], global_batch_size=16)
    model.fit_dataset(batches, epochs=2, verbose=0)
    assert shard.calls == [{"batch_size": 16, "batch_format": "numpy", "drop_last": True}] * 2
    first_x, first_y = next(iter(batches))
    np.testing.assert_array_equal(first_x, x[:16])
    assert isinstance(first_y, list) and first_y[0].shape == (16, 3)
    with pytest.raises(DistributeError, match=r"no column \['label'\]"):
        next(iter(strategy.distribute_dataset_shard(shard, y="label", global_batch_size=16)))
    with pytest.raises(DistributeError, match="expected a Ray Data shard"):
        strategy.distribute_dataset_shard([1, 2], global_batch_size=16)
    model.optimizer.dispose()
    model.dispose()


def test_a_group_of_one_exchanges_nothing():
    comm = collective.Communicator(handle=None, world_size=1, rank=0)
    vector = np.array([1.5, -2.0], np.float32)
    out = comm.all_reduce_mean(vector, weight=3)
    np.testing.assert_array_equal(out, vector)
    assert out is not vector and comm.all_gather("a") == ["a"] and comm.broadcast(7) == 7
    assert comm.calls == 0 and comm.bytes_sent == 0
