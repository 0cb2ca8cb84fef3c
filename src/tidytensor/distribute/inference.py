"""Batch inference on a Ray Dataset: each Ray Data worker loads the model once and reuses it for
every batch it gets (seed 003: load once, reuse), so its memory stays flat across batches.

``predict_batches(dataset, 'file://model/model.json')`` is ``dataset.map_batches(
ModelPredictor, fn_constructor_kwargs=..., batch_format='numpy', concurrency=...)``: Ray
Data's callable-class form, which keeps one ``ModelPredictor`` per actor.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..layers.engine.saving import load_layers_model
from ..ops import tensor
from ..runtime import memory as tensor_memory
from ..scopes import tidy
from ._ray import DistributeError, require_ray

__all__ = ["ModelPredictor", "predict_batches"]

#: Models loaded in this process (a worker loads its model once: memory tests read this).
LOADS_IN_PROCESS = {"count": 0}


class ModelPredictor:
    """Loads a layers model once and predicts each numpy batch Ray Data hands it.

    Args:
        model_path: anything ``tf.load_layers_model`` reads (``file://.../model.json``).
        input_column: the batch column holding the model's input (an array column).
        output_column: the column the predictions go to.
        batch_size: ``model.predict``'s batch size inside each Ray batch.
        memory_columns: also add ``num_tensors``, ``num_bytes``, ``model_loads`` and
            ``worker_pid`` columns, read after the batch is predicted (to watch memory).
    """

    def __init__(
        self,
        model_path: str,
        input_column: str = "x",
        output_column: str = "prediction",
        batch_size: int = 32,
        memory_columns: bool = False,
    ) -> None:
        self.model = load_layers_model(model_path)
        LOADS_IN_PROCESS["count"] += 1
        self.input_column, self.output_column = input_column, output_column
        self.batch_size, self.memory_columns = batch_size, memory_columns

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        if self.input_column not in batch:
            raise DistributeError(
                f"ModelPredictor: the batch has no column {self.input_column!r} (columns: "
                f"{sorted(batch)}); pass input_column="
            )
        x = np.asarray(batch[self.input_column])
        if x.dtype == object:  # ragged column of equal-shape rows
            x = np.stack(list(x))

        def predict() -> Any:
            return self.model.predict(tensor(x.astype(np.float32)), batch_size=self.batch_size)

        out = tidy(predict)
        try:
            values = np.asarray(out.data_sync()).reshape(out.shape)
        finally:
            out.dispose()
        result = dict(batch)
        result[self.output_column] = values
        if self.memory_columns:
            memory = tensor_memory()
            n = len(values)
            result["num_tensors"] = np.full(n, memory.num_tensors, np.int64)
            result["num_bytes"] = np.full(n, memory.num_bytes, np.int64)
            result["model_loads"] = np.full(n, LOADS_IN_PROCESS["count"], np.int64)
            result["worker_pid"] = np.full(n, os.getpid(), np.int64)
        return result


def predict_batches(
    dataset: Any,
    model_path: str,
    *,
    input_column: str = "x",
    output_column: str = "prediction",
    batch_size: int = 256,
    predict_batch_size: int = 32,
    concurrency: int = 1,
    num_cpus: float = 1,
    memory_columns: bool = False,
) -> Any:
    """``dataset`` (a Ray Dataset) with an ``output_column`` of predictions, computed by
    ``concurrency`` Ray actors that each load ``model_path`` once (see :class:`ModelPredictor`)."""
    require_ray("tf.distribute.predict_batches")
    return dataset.map_batches(
        ModelPredictor,
        fn_constructor_kwargs={
            "model_path": model_path,
            "input_column": input_column,
            "output_column": output_column,
            "batch_size": predict_batch_size,
            "memory_columns": memory_columns,
        },
        batch_size=batch_size,
        batch_format="numpy",
        concurrency=concurrency,
        num_cpus=num_cpus,
    )
