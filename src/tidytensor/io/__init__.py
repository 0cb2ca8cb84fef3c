"""``tf.io``: TF.js's model format — ``model.json`` plus binary weight files — read and
written byte for byte, so models move between TF.js, Keras (via ``tensorflowjs_converter``)
and tidytensor.

>>> import tempfile, tidytensor.layers as layers
>>> model = layers.models.sequential([layers.dense(units=2, input_shape=[3], name='d')])
>>> folder = tempfile.mkdtemp()
>>> result = save_model(model, folder)
>>> sorted(os.listdir(folder))
['model.json', 'weights.bin']
>>> result.model_artifacts_info.weight_data_bytes
32
>>> same = load_layers_model(folder)
>>> [w.original_name for w in same.weights]
['d/kernel', 'd/bias']
>>> _ = model.dispose(); _ = same.dispose()

Loading: :func:`load_layers_model` (``tf.load_layers_model``). Saving: :func:`save_model`
(``model.save``). Both build or read a ``LayersModel``, so they live in the Layers API
(:mod:`tidytensor.layers.engine.saving`), which registers them here with
:func:`register_model_functions`: this package reads and writes the format and never imports
the Layers API. Handlers: :func:`from_memory`, :func:`with_save_handler`, :func:`http`,
:func:`file_system`; URL routing: :func:`get_load_handlers`, :func:`get_save_handlers`,
:func:`register_load_router`, :func:`register_save_router`. The local model store
(``localstorage://`` and ``indexeddb://``): :func:`list_models`, :func:`copy_model`,
:func:`move_model`, :func:`remove_model`. Weight bytes: :func:`encode_weights`,
:func:`decode_weights`.
"""

from __future__ import annotations

import os  # noqa: F401 - used by the doctest above
from collections.abc import Callable
from typing import Any

from .artifacts import (
    ModelArtifacts,
    ModelArtifactsInfo,
    SaveResult,
    get_model_artifacts_for_json,
    get_model_artifacts_info_for_json,
    get_model_json_for_model_artifacts,
    get_weight_specs,
)
from .errors import IOHandlerError, ModelFileNotFoundError, ModelFormatError, ModelTooLargeError
from .file_system import FileSystemHandler, file_system
from .http import HTTPRequest, browser_http_request, http, is_http_scheme
from .model_store import list_models, model_store_root, remove_model
from .model_transfer import copy_model, move_model
from .passthrough import from_memory, from_memory_sync, with_save_handler, with_save_handler_sync
from .router import get_load_handlers, get_save_handlers, register_load_router, register_save_router
from .weights import concatenate_array_buffers, decode_weights, encode_weights

__all__ = [
    "FileSystemHandler",
    "HTTPRequest",
    "IOHandlerError",
    "ModelArtifacts",
    "ModelArtifactsInfo",
    "ModelFileNotFoundError",
    "ModelFormatError",
    "ModelTooLargeError",
    "SaveResult",
    "browser_http_request",
    "concatenate_array_buffers",
    "copy_model",
    "decode_weights",
    "encode_weights",
    "file_system",
    "from_memory",
    "from_memory_sync",
    "get_load_handlers",
    "get_model_artifacts_for_json",
    "get_model_artifacts_info_for_json",
    "get_model_json_for_model_artifacts",
    "get_save_handlers",
    "get_weight_specs",
    "http",
    "is_http_scheme",
    "list_models",
    "model_store_root",
    "move_model",
    "register_load_router",
    "register_model_functions",
    "register_save_router",
    "remove_model",
    "with_save_handler",
    "with_save_handler_sync",
]


def register_model_functions(**functions: Callable[..., Any]) -> None:
    """Adds functions of a layer above ``tf.io`` to this namespace: the Layers API registers
    ``load_layers_model``, ``save_model`` and ``model_from_artifacts`` when it is imported
    (``import tidytensor`` does), so ``tf.io.load_layers_model`` works while ``tf.io`` itself
    never imports ``tidytensor.layers``."""
    for name, function in functions.items():
        globals()[name] = function
        if name not in __all__:
            __all__.append(name)
