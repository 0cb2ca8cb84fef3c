"""``tf.distribute.TidytensorTrainer``: a Ray Train ``DataParallelTrainer`` whose backend
(``TidytensorConfig``) connects the worker group before ``train_loop_per_worker`` runs, as
``TorchTrainer``'s ``TorchConfig`` sets up its process group.

The classes subclass Ray's, so they are made on first use (``trainer_classes()``): importing
tidytensor never imports Ray.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from . import collective
from ._ray import require_ray

__all__ = ["trainer_classes"]


@functools.cache
def trainer_classes() -> dict[str, type]:
    """``{'TidytensorConfig': ..., 'TidytensorTrainer': ...}``, made on first call."""
    require_ray("tf.distribute.TidytensorTrainer")
    from ray.train.backend import Backend, BackendConfig
    from ray.train.v2._internal.constants import is_v2_enabled

    if is_v2_enabled():  # Ray Train V2, the default since Ray 2.51
        from ray.train.v2.api.data_parallel_trainer import DataParallelTrainer
    else:
        from ray.train.data_parallel_trainer import DataParallelTrainer

    @dataclass
    class TidytensorConfig(BackendConfig):
        """How the tidytensor backend connects the workers.

        Args:
            timeout_s: how long a worker waits in a collective for the others before a
                ``DistributeError`` names the missing workers.
        """

        timeout_s: float = 600.0

        @property
        def backend_cls(self) -> type:
            return _TidytensorBackend

        @property
        def framework(self) -> str:
            return "tidytensor"

    class _TidytensorBackend(Backend):
        """Starts the group's rendezvous actor and connects each worker to it."""

        def __init__(self) -> None:
            self.handles: dict[int, Any] = {}

        def on_start(self, worker_group: Any, backend_config: Any) -> None:
            world_size = len(worker_group)
            handle = collective.start_rendezvous(world_size, backend_config.timeout_s)
            self.handles[id(worker_group)] = handle
            worker_group.execute(collective.install, handle, world_size)

        def on_shutdown(self, worker_group: Any, backend_config: Any) -> None:
            handle = self.handles.pop(id(worker_group), None)
            try:
                worker_group.execute(collective.uninstall)
            finally:
                if handle is not None:
                    require_ray("TidytensorTrainer").kill(handle)

    class TidytensorTrainer(DataParallelTrainer):
        """Runs ``train_loop_per_worker`` on ``scaling_config.num_workers`` Ray workers, each
        connected to the others for ``tf.distribute.MultiWorkerMirroredStrategy``. Arguments
        are Ray Train's (``train_loop_config``, ``scaling_config``, ``run_config`` with its
        ``FailureConfig``, ``datasets``, ``dataset_config``), plus ``tidytensor_config``."""

        def __init__(
            self,
            train_loop_per_worker: Any,
            *,
            train_loop_config: dict | None = None,
            tidytensor_config: TidytensorConfig | None = None,
            scaling_config: Any = None,
            run_config: Any = None,
            datasets: dict | None = None,
            dataset_config: Any = None,
            resume_from_checkpoint: Any = None,
            metadata: dict | None = None,
        ) -> None:
            options = {
                "train_loop_config": train_loop_config,
                "backend_config": tidytensor_config or TidytensorConfig(),
                "scaling_config": scaling_config,
                "run_config": run_config,
                "datasets": datasets,
                "dataset_config": dataset_config,
                "resume_from_checkpoint": resume_from_checkpoint,
                "metadata": metadata,
            }
            super().__init__(
                train_loop_per_worker,
                **{k: v for k, v in options.items() if v is not None or k == "train_loop_config"},
            )

    classes = {
        "TidytensorConfig": TidytensorConfig,
        "TidytensorTrainer": TidytensorTrainer,
        "_TidytensorBackend": _TidytensorBackend,
    }
    for name, cls in classes.items():  # pickled by reference: see __getattr__ below
        cls.__module__, cls.__qualname__ = __name__, name
    return classes


def __getattr__(name: str) -> Any:
    """``ray_train.TidytensorTrainer`` and the others, made on first access (so that a Ray
    process unpickling one by its module and name finds it)."""
    if name in ("TidytensorConfig", "TidytensorTrainer", "_TidytensorBackend"):
        return trainer_classes()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
