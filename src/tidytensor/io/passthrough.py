"""In-memory handlers (TF.js's ``io/passthrough.ts``): ``tf.io.from_memory(artifacts)`` loads
a model from artifacts already in memory; ``tf.io.with_save_handler(fn)`` hands the artifacts
of a save to ``fn``.

>>> seen = []
>>> handler = with_save_handler(lambda artifacts: seen.append(artifacts.format))
>>> _ = handler.save(ModelArtifacts(model_topology={}, format='layers-model'))
>>> seen
['layers-model']
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from .artifacts import (
    ModelArtifacts,
    SaveResult,
    artifacts_from_dict,
    get_model_artifacts_info_for_json,
    get_weight_specs,
)
from .errors import IOHandlerError

__all__ = [
    "PassthroughLoader",
    "PassthroughSaver",
    "from_memory",
    "from_memory_sync",
    "with_save_handler",
    "with_save_handler_sync",
]


class PassthroughLoader:
    """A load handler that returns the artifacts it was given."""

    def __init__(self, artifacts: ModelArtifacts):
        self.artifacts = artifacts

    def load(self) -> ModelArtifacts:
        return self.artifacts


class PassthroughSaver:
    """A save handler that calls ``save_handler(artifacts)``; its result may be a
    :class:`SaveResult`, a dict with TF.js's keys, or nothing (the sizes are then computed)."""

    def __init__(self, save_handler: Callable[[ModelArtifacts], Any]):
        if not callable(save_handler):
            raise IOHandlerError(f"with_save_handler() needs a function, got {save_handler!r}")
        self.save_handler = save_handler

    def save(self, artifacts: ModelArtifacts) -> SaveResult:
        result = self.save_handler(artifacts)
        if isinstance(result, SaveResult):
            return result
        info = get_model_artifacts_info_for_json(artifacts)
        if isinstance(result, dict):
            return SaveResult(info, responses=result.get("responses"), errors=result.get("errors"))
        return SaveResult(info)


def _to_artifacts(obj: Any) -> ModelArtifacts:
    if isinstance(obj, ModelArtifacts):
        return obj
    if not isinstance(obj, dict):
        raise IOHandlerError(
            f"from_memory() needs model artifacts (tf.io.ModelArtifacts or a dict with "
            f"'modelTopology', 'weightSpecs', 'weightData'), got {type(obj).__name__}"
        )
    artifacts = artifacts_from_dict(obj)
    if artifacts.weight_specs is None and artifacts.weights_manifest is not None:
        artifacts.weight_specs = get_weight_specs(artifacts.weights_manifest)
    return artifacts


def from_memory_sync(
    model_artifacts: Any,
    weight_specs: list[dict[str, Any]] | None = None,
    weight_data: Any = None,
    training_config: dict[str, Any] | None = None,
) -> PassthroughLoader:
    """A load handler for artifacts in memory: a :class:`ModelArtifacts` or a dict with its
    fields (TF.js's camelCase keys or snake_case). The legacy form passes the topology and
    the weights as separate arguments."""
    legacy = weight_specs is not None or weight_data is not None or training_config is not None
    is_artifacts = isinstance(model_artifacts, ModelArtifacts) or (
        isinstance(model_artifacts, dict)
        and any(
            k in model_artifacts
            for k in ("modelTopology", "model_topology", "weightSpecs", "weight_specs")
        )
    )
    if not legacy and is_artifacts:
        return PassthroughLoader(_to_artifacts(model_artifacts))
    warnings.warn(
        "Please call tf.io.from_memory() with only one argument. The argument should be of "
        "type ModelArtifacts. The multi-argument signature of tf.io.from_memory() has been "
        "deprecated and will be removed in a future release.",
        DeprecationWarning,
        stacklevel=3,
    )
    return PassthroughLoader(
        ModelArtifacts(
            model_topology=model_artifacts,
            weight_specs=weight_specs,
            weight_data=weight_data,
            training_config=training_config,
        )
    )


def from_memory(
    model_artifacts: Any,
    weight_specs: list[dict[str, Any]] | None = None,
    weight_data: Any = None,
    training_config: dict[str, Any] | None = None,
) -> PassthroughLoader:
    """``tf.io.fromMemory``: see :func:`from_memory_sync` (loading is synchronous here)."""
    return from_memory_sync(model_artifacts, weight_specs, weight_data, training_config)


def with_save_handler(save_handler: Callable[[ModelArtifacts], Any]) -> PassthroughSaver:
    """A save handler that passes the artifacts to ``save_handler``."""
    return PassthroughSaver(save_handler)


def with_save_handler_sync(save_handler: Callable[[ModelArtifacts], Any]) -> PassthroughSaver:
    """Same as :func:`with_save_handler`."""
    return PassthroughSaver(save_handler)
