"""``tf.distribute``: data-parallel training and batch inference on Ray (optional extra
``ray``: ``pip install 'tidytensor[ray]'``). Importing it never imports Ray.

- ``tf.distribute.TidytensorTrainer(train_loop_per_worker, scaling_config=..., run_config=...)``:
  a Ray Train ``DataParallelTrainer`` whose backend (``TidytensorConfig``) connects the workers.
- ``tf.distribute.MultiWorkerMirroredStrategy()`` inside the loop: ``prepare_model(model)``
  (same model everywhere, worker 0's weights, gradients averaged each step, ``fit`` on the
  global batch size), ``all_reduce``, ``reduce``, ``gather``, ``broadcast``.
- ``tf.distribute.ReportCheckpointCallback`` / ``load_checkpoint``: metrics and checkpoints
  through ``ray.train.report``, in tidytensor's model format.
- ``tf.distribute.predict_batches`` / ``ModelPredictor``: a model loaded once per Ray Data
  worker, applied with ``map_batches``.
"""

from __future__ import annotations

from typing import Any

from . import ray_train
from ._ray import DistributeError
from .checkpoints import ReportCheckpointCallback, load_checkpoint, save_checkpoint
from .inference import ModelPredictor, predict_batches
from .sharding import per_worker_batch_size
from .strategy import MultiWorkerMirroredStrategy, ReduceOp, prepare_model

__all__ = [
    "DistributeError",
    "ModelPredictor",
    "MultiWorkerMirroredStrategy",
    "ReduceOp",
    "ReportCheckpointCallback",
    "TidytensorConfig",
    "TidytensorTrainer",
    "load_checkpoint",
    "per_worker_batch_size",
    "predict_batches",
    "prepare_model",
    "save_checkpoint",
]


def __getattr__(name: str) -> Any:
    """``TidytensorTrainer`` and ``TidytensorConfig`` subclass Ray's classes: made (and Ray
    imported) on first access, with an error naming the extra when Ray is missing."""
    if name in ("TidytensorTrainer", "TidytensorConfig"):
        return ray_train.trainer_classes()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
