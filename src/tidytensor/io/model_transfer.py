"""TF.js's ``tf.io.copyModel`` and ``moveModel``: any loadable URL to any savable one.

Above both the router (which finds the handlers) and the model store (whose handler removes
a moved model's source), so that neither imports the other's caller.
"""

from __future__ import annotations

from .artifacts import ModelArtifactsInfo
from .errors import IOHandlerError
from .model_store import _parse, store_router
from .router import get_load_handler, get_save_handler

__all__ = ["copy_model", "move_model"]


def _clone(source_url: str, dest_url: str, delete_source: bool) -> ModelArtifactsInfo:
    if source_url == dest_url:
        raise IOHandlerError(f"Old path and new path are the same: '{source_url}'")
    load_handler = get_load_handler(
        source_url, "Copying failed because no load handler is found for source URL"
    )
    save_handler = get_save_handler(
        dest_url, "Copying failed because no save handler is found for destination URL"
    )
    source_store = store_router(source_url) if delete_source else None
    if delete_source and source_store is None:
        raise IOHandlerError(f"Cannot find model manager for scheme '{_parse(source_url)[0]}'")
    artifacts = load_handler.load()
    result = save_handler.save(artifacts)  # saved first: a failed save loses nothing
    if source_store is not None:
        source_store.remove()
    return result.model_artifacts_info


def copy_model(source_url: str, dest_url: str) -> ModelArtifactsInfo:
    """Copies a model (any loadable URL to any savable one, e.g. between the two stores or to
    a directory)."""
    return _clone(source_url, dest_url, False)


def move_model(source_url: str, dest_url: str) -> ModelArtifactsInfo:
    """Moves a model out of the store: copies it, then removes the source (only after the copy
    is saved)."""
    return _clone(source_url, dest_url, True)
