"""Metrics and checkpoints reported to Ray Train, in tidytensor's own model format.

A checkpoint is a directory holding ``model/`` (``model.save('file://...',
include_optimizer=True)``: ``model.json``, its weights and the optimizer's state) and
``tidytensor_checkpoint.json`` (the number of epochs done). Worker 0 writes it; every worker
reports the metrics averaged over the workers, as Ray Train expects every worker to report.
After a failure Ray Train restarts the group and ``ray.train.get_checkpoint()`` returns the
last one; ``load_checkpoint`` turns it back into a compiled model and the epoch to resume at.
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any

import numpy as np

from ..layers.engine.saving import load_layers_model
from ..layers.training.callbacks import Callback
from ..runtime import memory as tensor_memory
from ..tensor import Tensor
from ._ray import DistributeError, require_ray
from .strategy import MultiWorkerMirroredStrategy

__all__ = ["ReportCheckpointCallback", "load_checkpoint", "save_checkpoint"]

CHECKPOINT_FILE = "tidytensor_checkpoint.json"
CHECKPOINT_FORMAT = "tidytensor-checkpoint"


def save_checkpoint(model: Any, directory: str, epoch: int, **extra: Any) -> str:
    """Writes ``model`` (with its optimizer's state) and ``epoch`` into ``directory``."""
    model.save("file://" + os.path.join(directory, "model"), include_optimizer=True)
    with open(os.path.join(directory, CHECKPOINT_FILE), "w") as f:
        json.dump({"format": CHECKPOINT_FORMAT, "epoch": int(epoch), **extra}, f)
    return directory


def load_checkpoint(checkpoint: Any) -> tuple[Any, int]:
    """``(model, epochs_done)`` from a Ray ``Checkpoint`` (or a directory) written by
    :func:`save_checkpoint`; ``(None, 0)`` for ``None`` (no checkpoint yet). The model comes
    back compiled, its optimizer's state restored."""
    if checkpoint is None:
        return None, 0
    if hasattr(checkpoint, "as_directory"):  # a ray.train.Checkpoint
        with checkpoint.as_directory() as directory:
            return _load_directory(directory)
    return _load_directory(os.fspath(checkpoint))


def _load_directory(directory: str) -> tuple[Any, int]:
    meta_path = os.path.join(directory, CHECKPOINT_FILE)
    try:
        with open(meta_path) as f:
            meta = json.load(f)
    except FileNotFoundError:
        raise DistributeError(
            f"load_checkpoint: {directory} holds no {CHECKPOINT_FILE}; expected a checkpoint "
            "written by tf.distribute.ReportCheckpointCallback or save_checkpoint"
        ) from None
    if meta.get("format") != CHECKPOINT_FORMAT:
        raise DistributeError(
            f"load_checkpoint: {meta_path} has format {meta.get('format')!r}, expected "
            f"{CHECKPOINT_FORMAT!r}"
        )
    model = load_layers_model("file://" + os.path.join(directory, "model", "model.json"))
    return model, int(meta["epoch"])


class ReportCheckpointCallback(Callback):
    """A ``fit`` callback that, every ``frequency`` epochs, reports the epoch's metrics
    (averaged over the workers) to Ray Train with a checkpoint written by worker 0 (Ray
    Train's ``ReportCheckpointCallback``, for tidytensor). The metrics also hold
    ``num_tensors_per_worker``: each worker's ``tf.memory().num_tensors`` at the epoch's end,
    in rank order (a count that grows from epoch to epoch is a leak).

    Args:
        strategy: the run's ``MultiWorkerMirroredStrategy`` (default: a new one).
        metrics: the log names to report (default: all), or a dict ``{reported: log name}``.
        frequency: report a checkpoint every this many epochs (metrics every epoch).
    """

    def __init__(self, strategy: Any = None, metrics: Any = None, frequency: int = 1) -> None:
        super().__init__()
        self.strategy = strategy if strategy is not None else MultiWorkerMirroredStrategy()
        self.metrics = metrics
        if not isinstance(frequency, int) or frequency < 1:
            raise DistributeError(
                f"ReportCheckpointCallback: frequency must be a positive integer, got {frequency!r}"
            )
        self.frequency = frequency

    def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
        ray = require_ray("ReportCheckpointCallback")
        from ray.train import Checkpoint

        metrics = self._averaged(logs or {})
        metrics["num_tensors_per_worker"] = self.strategy.gather(tensor_memory().num_tensors)
        metrics["epoch"] = epoch + 1
        save = (epoch + 1) % self.frequency == 0
        if not (save and self.strategy.is_chief):
            ray.train.report(metrics, checkpoint=None)
            return
        with tempfile.TemporaryDirectory(prefix="tidytensor-ckpt-") as directory:
            save_checkpoint(self.model, directory, epoch + 1)
            ray.train.report(metrics, checkpoint=Checkpoint.from_directory(directory))

    def _averaged(self, logs: dict[str, Any]) -> dict[str, Any]:
        if isinstance(self.metrics, dict):
            chosen = {reported: name for reported, name in self.metrics.items()}
        elif self.metrics is not None:
            chosen = {
                name: name
                for name in ([self.metrics] if isinstance(self.metrics, str) else self.metrics)
            }
        else:
            chosen = {name: name for name in sorted(logs)}
        missing = sorted(name for name in chosen.values() if name not in logs)
        if missing:
            raise DistributeError(
                f"ReportCheckpointCallback: no log named {missing} (the epoch's logs: {sorted(logs)})"
            )
        values = np.array([_number(logs[name]) for name in chosen.values()], np.float64)
        if values.size:
            values = self.strategy.communicator.all_reduce_mean(values, 1.0)
        return {reported: float(v) for reported, v in zip(chosen, values, strict=False)}


def _number(value: Any) -> float:
    if isinstance(value, Tensor):
        return float(value.data_sync()[0])
    return float(value)
