"""Cutting a data set into the workers' slices of each global batch (no Ray needed here).

With N workers and a global batch of B samples, worker r trains on samples
``[r * B/N, (r + 1) * B/N)`` of every global batch, so the N workers together see exactly the
global batches one worker would see. ``ShardedEpochs`` is what ``model.fit`` on a prepared
model feeds to ``fit_dataset``: iterated once per epoch, it shuffles the whole set with a seed
shared by the workers and the epoch's number (the same permutation on every worker, and again
after a restart), then yields this worker's ``(xs, ys)`` slice of each global batch.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..tensor import Tensor
from ._ray import DistributeError

__all__ = [
    "DatasetShardBatches",
    "ShardedEpochs",
    "global_batches",
    "per_worker_batch_size",
    "shard",
    "to_arrays",
]


def per_worker_batch_size(global_batch_size: Any, num_workers: int) -> int:
    """``global_batch_size // num_workers``; a :class:`DistributeError` unless it divides.

    >>> from tidytensor.distribute.sharding import per_worker_batch_size
    >>> per_worker_batch_size(64, 2)
    32
    """
    if (
        isinstance(global_batch_size, bool)
        or not isinstance(global_batch_size, (int, np.integer))
        or global_batch_size < 1
    ):
        raise DistributeError(
            f"batch_size must be a positive integer (the global batch size), got {global_batch_size!r}"
        )
    if global_batch_size % num_workers:
        lower = global_batch_size - global_batch_size % num_workers
        options = f"{lower} or {lower + num_workers}" if lower else f"{num_workers}"
        raise DistributeError(
            f"model.fit(batch_size={global_batch_size}) on {num_workers} workers: the global "
            f"batch size must be divisible by the number of workers, so that each worker's "
            f"slice has the same size (leaves a remainder of {global_batch_size % num_workers}); "
            f"use a multiple of {num_workers} such as {options}"
        )
    return int(global_batch_size // num_workers)


def to_arrays(values: Any, name: str) -> list[np.ndarray]:
    """A tensor, an array or a list of them (one per model input or output) as arrays."""
    several = isinstance(values, (list, tuple)) and bool(values)
    several = several and all(isinstance(v, (Tensor, np.ndarray)) for v in values)
    items = list(values) if several else [values]
    out = []
    for item in items:
        if isinstance(item, Tensor):
            out.append(np.asarray(item.data_sync()).reshape(item.shape))
        else:
            out.append(np.asarray(item))
    lengths = {a.shape[0] if a.ndim else None for a in out}
    if len(lengths) != 1 or None in lengths:
        raise DistributeError(
            f"model.fit: every array of {name} must have the same number of samples along "
            f"axis 0, got shapes {[list(a.shape) for a in out]}"
        )
    return out


def global_batches(
    num_samples: int, global_batch_size: int, num_workers: int
) -> list[tuple[int, int]]:
    """``(start, end)`` of each global batch; a last batch with fewer samples than workers is
    dropped (with a warning), since some worker would have nothing to train on."""
    bounds = [
        (start, min(start + global_batch_size, num_samples))
        for start in range(0, num_samples, global_batch_size)
    ]
    if bounds and bounds[-1][1] - bounds[-1][0] < num_workers:
        start, end = bounds.pop()
        warnings.warn(
            f"model.fit on {num_workers} workers drops the last {end - start} sample(s) of each "
            f"epoch: fewer than one per worker",
            stacklevel=3,
        )
    if not bounds:
        raise DistributeError(
            f"model.fit: {num_samples} samples cannot give each of {num_workers} workers one"
        )
    return bounds


def shard(indices: np.ndarray, num_workers: int, rank: int) -> np.ndarray:
    """Worker ``rank``'s slice of one global batch's ``indices`` (``np.array_split``: sizes
    differ by at most one when the batch does not divide evenly)."""
    return np.array_split(indices, num_workers)[rank]


class ShardedEpochs:
    """This worker's slices of every global batch, one pass per epoch (see the module)."""

    def __init__(
        self,
        xs: list[np.ndarray],
        ys: list[np.ndarray],
        global_batch_size: int,
        num_workers: int,
        rank: int,
        seed: int | None = None,
        first_epoch: int = 0,
    ) -> None:
        self.xs, self.ys = xs, ys
        self.num_samples = xs[0].shape[0]
        if ys[0].shape[0] != self.num_samples:
            raise DistributeError(
                f"model.fit: x has {self.num_samples} samples but y has {ys[0].shape[0]}"
            )
        self.bounds = global_batches(self.num_samples, global_batch_size, num_workers)
        self.num_workers, self.rank, self.seed = num_workers, rank, seed
        self.epoch = first_epoch

    def order(self, epoch: int) -> np.ndarray:
        """The sample order of ``epoch`` (the same on every worker)."""
        if self.seed is None:
            return np.arange(self.num_samples)
        return np.random.default_rng([self.seed, epoch]).permutation(self.num_samples)

    def __iter__(self) -> Iterator[tuple[Any, Any]]:
        order = self.order(self.epoch)
        self.epoch += 1
        for start, end in self.bounds:
            mine = shard(order[start:end], self.num_workers, self.rank)
            xs = [a[mine] for a in self.xs]
            ys = [a[mine] for a in self.ys]
            yield (xs[0] if len(xs) == 1 else xs), (ys[0] if len(ys) == 1 else ys)


class DatasetShardBatches:
    """This worker's batches from a Ray Data shard (``ray.train.get_dataset_shard(name)``),
    read with ``iter_batches(batch_size=..., batch_format='numpy', drop_last=True)`` each
    epoch, as ``(xs, ys)`` pairs for ``model.fit_dataset``. Ray Train splits a dataset into
    shards of equal length (``DataConfig``'s default), and a last partial batch is dropped, so
    every worker runs the same number of steps (each all-reduce needs all of them).

    Args:
        shard: the worker's ``DataIterator`` (anything with ``iter_batches``).
        x, y: the column (or list of columns, one per model input/output) of inputs and targets.
        batch_size: this worker's batch size (``strategy.per_worker_batch_size(global)``).
    """

    def __init__(self, shard: Any, x: Any, y: Any, batch_size: int) -> None:
        if not hasattr(shard, "iter_batches"):
            raise DistributeError(
                f"distribute_dataset_shard: expected a Ray Data shard "
                f"(ray.train.get_dataset_shard(name)), got {type(shard).__name__}"
            )
        self.shard, self.x, self.y, self.batch_size = shard, x, y, batch_size

    def __iter__(self) -> Iterator[tuple[Any, Any]]:
        batches = self.shard.iter_batches(
            batch_size=self.batch_size, batch_format="numpy", drop_last=True
        )
        for batch in batches:
            yield _columns(batch, self.x), _columns(batch, self.y)


def _columns(batch: dict[str, np.ndarray], names: Any) -> Any:
    wanted = [names] if isinstance(names, str) else list(names)
    missing = [n for n in wanted if n not in batch]
    if missing:
        raise DistributeError(
            f"distribute_dataset_shard: the dataset has no column {missing} (its columns: "
            f"{sorted(batch)})"
        )
    arrays = [np.stack(list(batch[n])) if batch[n].dtype == object else batch[n] for n in wanted]
    return arrays[0] if isinstance(names, str) else arrays
