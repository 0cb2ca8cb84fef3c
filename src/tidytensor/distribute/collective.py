"""Collectives between the workers of one Ray Train run, without PyTorch or a home-made cluster.

Each worker group gets one :class:`Rendezvous` actor (an asyncio Ray actor that needs no CPU),
made by the trainer's backend when the group starts and killed when it stops; a restarted group
gets a fresh one. A collective is one actor call per worker: every worker sends its part with
the collective's sequence number, the actor waits until the last part arrives, combines the
parts in rank order (so every worker receives bit-identical values) and answers all of them.
Workers must call collectives in the same order, as with any all-reduce; a worker that calls a
different one, or sends a vector of another size, gets a :class:`DistributeError` saying so.

The reduction is a star through the actor: per collective, ``world_size`` vectors in and
``world_size`` out. benchmarks/RESULTS.md measures its cost and estimates it for 8 and 64
workers.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ._ray import DistributeError, require_ray

__all__ = [
    "Communicator",
    "Rendezvous",
    "current_communicator",
    "install",
    "installed",
    "start_rendezvous",
    "uninstall",
]


class Rendezvous:
    """The meeting point of one worker group (runs as a Ray actor; see the module docstring)."""

    def __init__(self, world_size: int, timeout_s: float) -> None:
        self.world_size = int(world_size)
        self.timeout_s = float(timeout_s)
        self.rounds: dict[int, dict[str, Any]] = {}

    async def ready(self) -> int:
        return self.world_size

    async def all_reduce(self, seq: int, rank: int, vector: np.ndarray, weight: float) -> Any:
        """``sum(weight_r * vector_r) / sum(weight_r)`` over the ranks, in float64, in rank
        order, cast back to the vectors' dtype."""
        return await self._collect(seq, rank, "all_reduce", (vector, float(weight)), _weighted_mean)

    async def all_gather(self, seq: int, rank: int, obj: Any) -> Any:
        """Every rank's ``obj``, as a list in rank order."""
        return await self._collect(seq, rank, "all_gather", obj, list)

    async def _collect(self, seq: int, rank: int, kind: str, part: Any, combine: Any) -> Any:
        import asyncio  # in the actor, not at ``import tidytensor`` (26 ms)

        round_ = self.rounds.get(seq)
        if round_ is None:
            round_ = {"kind": kind, "parts": {}, "event": asyncio.Event(), "taken": 0}
            round_["result"] = None
            self.rounds[seq] = round_
        if round_["kind"] != kind:
            return _failure(
                f"collective #{seq}: worker {rank} called {kind} while another worker called "
                f"{round_['kind']}; every worker must run the same collectives in the same order"
            )
        round_["parts"][rank] = part
        if len(round_["parts"]) == self.world_size:
            parts = [round_["parts"][r] for r in range(self.world_size)]
            try:
                round_["result"] = ("ok", combine(parts))
            except DistributeError as exc:
                round_["result"] = _failure(f"collective #{seq} ({kind}): {exc}")
            round_["event"].set()
        else:
            try:
                await asyncio.wait_for(round_["event"].wait(), self.timeout_s)
            except asyncio.TimeoutError:
                missing = sorted(set(range(self.world_size)) - set(round_["parts"]))
                return _failure(
                    f"collective #{seq} ({kind}): worker {rank} waited {self.timeout_s:g} s for "
                    f"workers {missing}, which never joined (TidytensorConfig(timeout_s=...) "
                    "sets the wait)"
                )
        result = round_["result"]
        round_["taken"] += 1
        if round_["taken"] == self.world_size:
            del self.rounds[seq]
        return result


def _failure(message: str) -> tuple[str, str]:
    return ("error", message)


def _weighted_mean(parts: list[tuple[np.ndarray, float]]) -> np.ndarray:
    sizes = [vector.shape for vector, _ in parts]
    if len(set(sizes)) != 1:
        listed = ", ".join(f"worker {r}: {s[0]} values" for r, s in enumerate(sizes))
        raise DistributeError(
            f"the workers sent vectors of different sizes ({listed}); each worker must train "
            "the same model"
        )
    total_weight = sum(weight for _, weight in parts)
    if total_weight <= 0:
        raise DistributeError(f"the weights sum to {total_weight}; expected a positive sum")
    acc = np.zeros(sizes[0], dtype=np.float64)
    for vector, weight in parts:
        acc += vector.astype(np.float64) * weight
    return (acc / total_weight).astype(parts[0][0].dtype)


class Communicator:
    """A worker's side of its group's :class:`Rendezvous`: ``all_reduce_mean``,
    ``all_gather``, ``broadcast``, ``barrier``. Keeps how long its collectives took
    (``seconds``, ``calls``, ``bytes_sent``) for benchmarks."""

    def __init__(self, handle: Any, world_size: int, rank: int) -> None:
        self.handle = handle
        self.world_size = int(world_size)
        self.rank = int(rank)
        self.seq = 0
        self.seconds = 0.0
        self.calls = 0
        self.bytes_sent = 0

    def _call(self, method: str, *args: Any) -> Any:
        ray = require_ray("the collective")
        self.seq += 1
        start = time.perf_counter()
        status, value = ray.get(getattr(self.handle, method).remote(self.seq, self.rank, *args))
        self.seconds += time.perf_counter() - start
        self.calls += 1
        if status != "ok":
            raise DistributeError(value)
        return value

    def all_reduce_mean(self, vector: np.ndarray, weight: float = 1.0) -> np.ndarray:
        """The weighted mean of every worker's ``vector`` (a 1-D array of the same size on
        each worker), identical on every worker."""
        vector = np.ascontiguousarray(vector).reshape(-1)
        if self.world_size == 1:  # nothing to exchange: the mean of one vector is itself
            return vector.copy()
        self.bytes_sent += vector.nbytes
        return self._call("all_reduce", vector, float(weight))

    def all_gather(self, obj: Any) -> list[Any]:
        """Every worker's ``obj`` (picklable), as a list in rank order."""
        if self.world_size == 1:
            return [obj]
        return self._call("all_gather", obj)

    def broadcast(self, obj: Any, root: int = 0) -> Any:
        """Worker ``root``'s ``obj`` on every worker."""
        return self.all_gather(obj if self.rank == root else None)[root]

    def barrier(self) -> None:
        self.all_gather(None)

    def reset_stats(self) -> None:
        self.seconds, self.calls, self.bytes_sent = 0.0, 0, 0


# --------------------------------------------------------- the worker process's communicator
_INSTALLED: dict[str, Any] = {}


def start_rendezvous(world_size: int, timeout_s: float) -> Any:
    """Starts a worker group's :class:`Rendezvous` actor (no CPU reserved); its handle."""
    ray = require_ray("TidytensorTrainer")
    actor = ray.remote(num_cpus=0, max_concurrency=max(16, 2 * world_size))(Rendezvous)
    handle = actor.remote(world_size, timeout_s)
    ray.get(handle.ready.remote())
    return handle


def install(handle: Any, world_size: int) -> None:
    """Run on each worker by the trainer's backend when the group starts."""
    _INSTALLED.clear()
    _INSTALLED.update(handle=handle, world_size=int(world_size), communicator=None)


def uninstall() -> None:
    _INSTALLED.clear()


def installed() -> bool:
    return "handle" in _INSTALLED


def current_communicator() -> Communicator:
    """This worker's communicator (its rank read from Ray Train's context on first use)."""
    if not installed():
        raise DistributeError(
            "MultiWorkerMirroredStrategy() found no worker group: create it inside the "
            "train_loop_per_worker of tf.distribute.TidytensorTrainer (a Ray Train trainer), "
            "which connects the workers before the loop starts"
        )
    if _INSTALLED["communicator"] is None:
        ray = require_ray("MultiWorkerMirroredStrategy")
        context = ray.train.get_context()
        world_size = context.get_world_size()
        if world_size != _INSTALLED["world_size"]:
            raise DistributeError(
                f"Ray Train reports {world_size} workers but the group was connected for "
                f"{_INSTALLED['world_size']}"
            )
        _INSTALLED["communicator"] = Communicator(
            _INSTALLED["handle"], world_size, context.get_world_rank()
        )
    return _INSTALLED["communicator"]
