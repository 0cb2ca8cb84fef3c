"""``tf.distribute.MultiWorkerMirroredStrategy``: data-parallel training inside a Ray Train
worker, named after TF 2's strategy and Ray Train's ``prepare_model``.

Every worker holds a full copy (a mirror) of the model. ``strategy.prepare_model(model)``
checks that every worker built the same model, copies worker 0's weights to the others, makes
the model's optimizer average each step's gradients across the workers before applying them,
and makes ``model.fit`` take the *global* batch size: each worker trains on its own slice of
every global batch, so N workers take the same steps as one worker training on the global
batch. Custom loops use ``strategy.all_reduce(grads)`` or ``strategy.distribute_optimizer``.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from .. import ops
from ..layers.training.callbacks import Callback
from ..scopes import dispose, tidy
from ..tensor import Tensor
from . import collective
from ._ray import DistributeError
from .sharding import DatasetShardBatches, ShardedEpochs, per_worker_batch_size, to_arrays

__all__ = ["MultiWorkerMirroredStrategy", "ReduceOp", "prepare_model"]


#: model.fit arguments that only make sense on one worker.
_LOCAL_FIT_ONLY = ("validation_split", "class_weight", "sample_weight", "steps_per_epoch")


class ReduceOp:
    """How :meth:`MultiWorkerMirroredStrategy.reduce` combines the workers' values."""

    SUM = "SUM"
    MEAN = "MEAN"


class MultiWorkerMirroredStrategy:
    """Synchronous data parallelism across the workers of a ``tf.distribute.TidytensorTrainer``
    run (create it inside ``train_loop_per_worker``).

    Args:
        communicator: the workers' communicator (default: the one the trainer connected).
        seed: the seed of ``model.fit``'s shuffling, the same on every worker so that the
            workers slice the same global batches (default: drawn by worker 0). Give one to
            make a restarted run repeat an interrupted one's batches.
    """

    def __init__(self, communicator: Any = None, seed: int | None = None) -> None:
        self._comm = communicator if communicator is not None else collective.current_communicator()
        self._seed = seed
        self._batch_weight = 1.0

    # ------------------------------------------------------------------ the group
    @property
    def num_replicas_in_sync(self) -> int:
        """How many workers train together (TF 2's name)."""
        return self._comm.world_size

    @property
    def worker_index(self) -> int:
        """This worker's rank, 0 to ``num_replicas_in_sync - 1``."""
        return self._comm.rank

    @property
    def is_chief(self) -> bool:
        """Worker 0: the one that writes checkpoints."""
        return self._comm.rank == 0

    @property
    def communicator(self) -> Any:
        return self._comm

    @property
    def seed(self) -> int:
        """The shuffling seed every worker shares (drawn by worker 0 on first use)."""
        if self._seed is None:
            drawn = int(np.random.default_rng().integers(2**31)) if self.is_chief else None
            self._seed = int(self._comm.broadcast(drawn))
        return self._seed

    def per_worker_batch_size(self, global_batch_size: int) -> int:
        """``global_batch_size / num_replicas_in_sync``; an error unless it divides evenly."""
        return per_worker_batch_size(global_batch_size, self.num_replicas_in_sync)

    # ------------------------------------------------------------------ collectives
    def all_reduce(self, values: Any, op: str = ReduceOp.MEAN, weight: float | None = None) -> Any:
        """The workers' ``values`` (a tensor, a list of tensors or a dict of them, such as
        ``variable_grads``' ``.grads``) combined element-wise: new tensors in the same
        structure, identical on every worker, that the caller disposes. ``op`` is ``'MEAN'``
        (weighted by ``weight``, default the current batch's size inside ``model.fit``, else
        1) or ``'SUM'``."""
        op = _check_op(op, "all_reduce")
        names, tensors = _flatten(values)
        if not tensors:
            return values
        flat = np.concatenate([_host(t).reshape(-1) for t in tensors])
        w = self._batch_weight if weight is None else float(weight)
        if op == ReduceOp.SUM:
            reduced = self._comm.all_reduce_mean(flat, 1.0) * np.float32(self.num_replicas_in_sync)
        else:
            reduced = self._comm.all_reduce_mean(flat, w)
        out, start = [], 0
        for t in tensors:
            size = int(np.prod(t.shape, dtype=np.int64))
            out.append(ops.tensor(reduced[start : start + size].reshape(t.shape), None, t.dtype))
            start += size
        return _unflatten(values, names, out)

    def reduce(self, op: str, value: Any, axis: Any = None) -> Any:
        """TF 2's ``strategy.reduce``: a Python number, or a tensor (a new one the caller
        disposes), summed or averaged over the workers (``axis`` first reduces ``value``
        itself on each worker, as TF 2 does)."""
        op = _check_op(op, "reduce")
        if isinstance(value, Tensor):
            local = (
                tidy(lambda: ops.sum(value, axis) if op == ReduceOp.SUM else ops.mean(value, axis))
                if axis is not None
                else value
            )
            try:
                return self.all_reduce(local, op, weight=1.0)
            finally:
                if local is not value:
                    dispose(local)
        mean = float(self._comm.all_reduce_mean(np.array([value], np.float64), 1.0)[0])
        return mean * self.num_replicas_in_sync if op == ReduceOp.SUM else mean

    def gather(self, obj: Any) -> list[Any]:
        """Every worker's ``obj`` (any picklable value), in rank order, on every worker."""
        return self._comm.all_gather(obj)

    def broadcast(self, obj: Any, root: int = 0) -> Any:
        """Worker ``root``'s ``obj`` on every worker."""
        return self._comm.broadcast(obj, root)

    # ------------------------------------------------------------------ training
    def distribute_optimizer(self, optimizer: Any) -> Any:
        """Makes ``optimizer`` average its gradients across the workers before applying them
        (its ``minimize`` and ``compute_gradients``); returns the same optimizer."""
        if getattr(optimizer, "_tidytensor_strategy", None) is self:
            return optimizer
        compute = type(optimizer).compute_gradients
        strategy = self

        def compute_gradients(f: Any, var_list: Any = None) -> Any:
            result = compute(optimizer, f, var_list)
            try:
                averaged = strategy.all_reduce(result.grads)
            except BaseException:
                dispose(result.value)
                raise
            finally:
                dispose(result.grads)
            return result._replace(grads=averaged)

        optimizer.compute_gradients = compute_gradients
        optimizer._tidytensor_strategy = self
        return optimizer

    def prepare_model(self, model: Any) -> Any:
        """Ready a compiled model for data-parallel training (Ray Train's ``prepare_model``):
        checks every worker built the same model (else a :class:`DistributeError` naming the
        first difference), gives every worker worker 0's weights, averages the optimizer's
        gradients across workers, and makes ``model.fit(x, y, batch_size=GLOBAL, ...)`` train
        this worker's slice of every global batch. Returns ``model``."""
        if getattr(model, "optimizer_", None) is None:
            raise DistributeError(
                "prepare_model(model): the model has no optimizer; call model.compile(...) first"
            )
        self._check_same_model(model)
        self._copy_chief_weights(model)
        self.distribute_optimizer(model.optimizer_)
        if getattr(model, "_tidytensor_local_fit", None) is None:
            model._tidytensor_local_fit = model.fit
        strategy = self

        def fit(x: Any, y: Any, batch_size: int = 32, epochs: int = 1, **kwargs: Any) -> Any:
            return strategy.fit(model, x, y, batch_size=batch_size, epochs=epochs, **kwargs)

        model.fit = fit
        return model

    def fit(
        self,
        model: Any,
        x: Any,
        y: Any,
        batch_size: int = 32,
        epochs: int = 1,
        verbose: int = 1,
        callbacks: Any = None,
        shuffle: bool = True,
        initial_epoch: int = 0,
        validation_data: Any = None,
        **kwargs: Any,
    ) -> Any:
        """``model.fit`` on a prepared model: ``x``/``y`` are the whole data set (the same on
        every worker; arrays or tensors, or lists of them for several inputs/outputs),
        ``batch_size`` the global batch size. Each epoch shuffles the whole set with a seed
        shared by the workers (``shuffle=True``), cuts it into global batches and trains this
        worker's slice of each; a last global batch too small to give every worker a sample is
        dropped. Returns the ``History``."""
        unsupported = sorted(k for k in _LOCAL_FIT_ONLY if kwargs.pop(k, None) not in (None, 0))
        if unsupported:
            raise DistributeError(
                f"model.fit on {self.num_replicas_in_sync} workers does not take "
                f"{', '.join(unsupported)}; pass validation_data, or train with fit_dataset"
            )
        self.per_worker_batch_size(batch_size)
        epochs_data = ShardedEpochs(
            to_arrays(x, "x"),
            to_arrays(y, "y"),
            batch_size,
            self.num_replicas_in_sync,
            self.worker_index,
            seed=self.seed if shuffle else None,
            first_epoch=initial_epoch,
        )
        weight = _BatchWeight(self)
        return model.fit_dataset(
            epochs_data,
            epochs=epochs,
            verbose=verbose,
            callbacks=[weight, *_as_list(callbacks)],
            initial_epoch=initial_epoch,
            validation_data=validation_data,
            **kwargs,
        )

    def distribute_dataset_shard(
        self, shard: Any, x: Any = "x", y: Any = "y", global_batch_size: int = 32
    ) -> DatasetShardBatches:
        """This worker's batches of a Ray Data shard for ``model.fit_dataset`` (the
        ``get_dataset_shard(...).iter_batches(batch_format='numpy')`` route; see
        :class:`~tidytensor.distribute.sharding.DatasetShardBatches`): columns ``x`` and ``y``,
        ``global_batch_size / num_replicas_in_sync`` rows per batch."""
        return DatasetShardBatches(shard, x, y, self.per_worker_batch_size(global_batch_size))

    # ------------------------------------------------------------------ checks
    def _check_same_model(self, model: Any) -> None:
        mine = model_fingerprint(model)
        everyone = self._comm.all_gather(mine)
        for rank, theirs in enumerate(everyone):
            if theirs != mine:
                raise DistributeError(
                    f"prepare_model(model): the model on worker {rank} differs from the one on "
                    f"worker {self.worker_index}: {_first_difference(mine, theirs, rank, self.worker_index)}. "
                    "Every worker must build and compile the same model"
                )

    def _copy_chief_weights(self, model: Any) -> None:
        values = [_host(w.read()) for w in model.weights] if self.is_chief else None
        values = self._comm.broadcast(values)
        if not self.is_chief:
            tensors = [
                ops.tensor(v, None, w.dtype) for v, w in zip(values, model.weights, strict=False)
            ]
            try:
                model.set_weights(tensors)
            finally:
                dispose(tensors)


def prepare_model(model: Any) -> Any:
    """``MultiWorkerMirroredStrategy().prepare_model(model)`` (Ray Train's spelling)."""
    return MultiWorkerMirroredStrategy().prepare_model(model)


def model_fingerprint(model: Any) -> dict[str, Any]:
    """What every worker's model must share: its layers' classes, its weights' shapes and
    dtypes, and its optimizer's class (a digest of them besides, for a short comparison)."""
    layers = [layer.get_class_name() for layer in model.layers]
    weights = [(list(w.shape), str(w.dtype)) for w in model.weights]
    optimizer = type(model.optimizer_).__name__
    digest = hashlib.sha256(repr((layers, weights, optimizer)).encode()).hexdigest()[:16]
    return {"digest": digest, "layers": layers, "weights": weights, "optimizer": optimizer}


def _first_difference(mine: dict, theirs: dict, rank: int, me: int) -> str:
    if mine["layers"] != theirs["layers"]:
        return f"layers {theirs['layers']} on worker {rank}, {mine['layers']} on worker {me}"
    if len(mine["weights"]) != len(theirs["weights"]):
        return (
            f"{len(theirs['weights'])} weights on worker {rank}, {len(mine['weights'])} on "
            f"worker {me}"
        )
    for i, (a, b) in enumerate(zip(mine["weights"], theirs["weights"], strict=False)):
        if a != b:
            return (
                f"weight {i} has shape {b[0]} ({b[1]}) on worker {rank} but {a[0]} ({a[1]}) "
                f"on worker {me}"
            )
    return f"optimizer {theirs['optimizer']} on worker {rank}, {mine['optimizer']} on worker {me}"


class _BatchWeight(Callback):
    """A ``fit`` callback that weights each step's all-reduce by this worker's batch size."""

    def __init__(self, strategy: MultiWorkerMirroredStrategy) -> None:
        super().__init__()
        self.strategy = strategy

    def on_batch_begin(self, batch: int, logs: Any = None) -> None:
        if logs and "size" in logs:
            self.strategy._batch_weight = float(logs["size"])

    def on_train_end(self, logs: Any = None) -> None:
        self.strategy._batch_weight = 1.0


def _check_op(op: str, name: str) -> str:
    op = str(getattr(op, "value", op)).upper()
    if op not in (ReduceOp.SUM, ReduceOp.MEAN):
        raise DistributeError(
            f"{name}: op must be 'SUM' or 'MEAN' (tf.distribute.ReduceOp), got {op!r}"
        )
    return op


def _host(t: Tensor) -> np.ndarray:
    return np.asarray(t.data_sync()).reshape(t.shape)


def _flatten(values: Any) -> tuple[list[Any] | None, list[Tensor]]:
    if isinstance(values, Tensor):
        return None, [values]
    if isinstance(values, dict):
        names = list(values)
        return names, [values[n] for n in names]
    if isinstance(values, (list, tuple)):
        return None, list(values)
    raise DistributeError(
        f"all_reduce: expected a tensor, a list of tensors or a dict of them, got "
        f"{type(values).__name__}"
    )


def _unflatten(values: Any, names: list[Any] | None, out: list[Tensor]) -> Any:
    if isinstance(values, Tensor):
        return out[0]
    if names is not None:
        return dict(zip(names, out, strict=False))
    return type(values)(out)


def _as_list(callbacks: Any) -> list[Any]:
    if callbacks is None:
        return []
    return list(callbacks) if isinstance(callbacks, (list, tuple)) else [callbacks]
