"""URL routing (TF.js's ``io/router_registry.ts``): each router maps a URL string to a handler
or ``None``. Built in, in this order: ``http(s)://`` (:mod:`.http`), ``localstorage://`` and
``indexeddb://`` (:mod:`.model_store`), and ``file://`` or any string without a scheme (a
local path, :mod:`.file_system`).

>>> type(get_load_handlers('file:///tmp/m/model.json')[0]).__name__
'FileSystemHandler'
>>> type(get_save_handlers('indexeddb://my-model')[0]).__name__
'ModelStoreHandler'
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any

from .errors import IOHandlerError, ModelFormatError
from .file_system import FileSystemHandler
from .http import HTTPRequest, is_http_scheme
from .model_store import store_router

__all__ = [
    "get_load_handlers",
    "get_save_handlers",
    "register_load_router",
    "register_save_router",
]

Router = Callable[[Any, dict[str, Any]], Any]
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")

_HTTP_OPTIONS = ("request_init", "weight_path_prefix", "on_progress", "timeout", "max_bytes")
_FILE_OPTIONS = ("weight_path_prefix", "on_progress", "max_bytes", "shard_size_bytes")


def _pick(options: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    return {k: v for k, v in options.items() if k in names and v is not None}


def http_router(url: Any, options: dict[str, Any]) -> Any:
    if is_http_scheme(url):
        return HTTPRequest(url, **_pick(options, _HTTP_OPTIONS))
    return None


def file_router(url: Any, options: dict[str, Any]) -> Any:
    if isinstance(url, os.PathLike):
        url = os.fspath(url)
    if not isinstance(url, str):
        return None
    if url.startswith("file://") or not _SCHEME.match(url):
        return FileSystemHandler(url, **_pick(options, _FILE_OPTIONS))
    return None


def _store_router(url: Any, options: dict[str, Any]) -> Any:
    return store_router(url, options)


_LOAD_ROUTERS: list[Router] = [http_router, _store_router, file_router]
_SAVE_ROUTERS: list[Router] = [http_router, _store_router, file_router]


def register_load_router(router: Router) -> None:
    """Adds a router tried (before the built-in ones) when loading from a URL string."""
    _LOAD_ROUTERS.insert(0, router)


def register_save_router(router: Router) -> None:
    """Adds a router tried (before the built-in ones) when saving to a URL string."""
    _SAVE_ROUTERS.insert(0, router)


def _call(router: Router, url: Any, options: dict[str, Any]) -> Any:
    try:
        return router(url, options)
    except TypeError:
        return router(url)  # a TF.js-style router taking the URL only


def get_load_handlers(url: Any, options: dict[str, Any] | None = None) -> list[Any]:
    """Every load handler whose router accepts ``url``."""
    handlers = []
    for router in _LOAD_ROUTERS:
        handler = _call(router, url, options or {})
        if handler is not None:
            handlers.append(handler)
            if router in (http_router, _store_router, file_router):
                break  # the built-in routers are exclusive
    return handlers


def get_save_handlers(url: Any, options: dict[str, Any] | None = None) -> list[Any]:
    """Every save handler whose router accepts ``url``."""
    handlers = []
    for router in _SAVE_ROUTERS:
        handler = _call(router, url, options or {})
        if handler is not None:
            handlers.append(handler)
            if router in (http_router, _store_router, file_router):
                break
    return handlers


def get_load_handler(
    url: Any, what: str = "Cannot find any load handlers for URL", **options: Any
) -> Any:
    """The one load handler for ``url`` (a handler object passes through)."""
    if hasattr(url, "load") and not isinstance(url, (str, os.PathLike)):
        return url
    handlers = get_load_handlers(url, options)
    if not handlers:
        raise IOHandlerError(f"{what} '{url}'")
    if len(handlers) > 1:
        raise IOHandlerError(f"Found more than one ({len(handlers)}) load handlers for URL '{url}'")
    return handlers[0]


def get_save_handler(
    url: Any, what: str = "Cannot find any save handlers for URL", **options: Any
) -> Any:
    """The one save handler for ``url`` (a handler object passes through)."""
    if hasattr(url, "save") and not isinstance(url, (str, os.PathLike)):
        return url
    handlers = get_save_handlers(url, options)
    if not handlers:
        raise IOHandlerError(f"{what} '{url}'")
    if len(handlers) > 1:
        raise IOHandlerError(f"Found more than one ({len(handlers)}) save handlers for URL '{url}'")
    return handlers[0]


def resolve_load_handler(path_or_url: Any, **options: Any) -> Any:
    """The load handler a ``load_*_model`` call gets: for a path or URL, the one handler its
    routers give (``options`` that are ``None`` left out); any object with ``load()`` as is."""
    if isinstance(path_or_url, (str, os.PathLike)):
        return get_load_handler(path_or_url, **{k: v for k, v in options.items() if v is not None})
    if hasattr(path_or_url, "load"):
        return path_or_url
    raise ModelFormatError(
        "Cannot proceed with model loading because the IOHandler provided does not have the "
        f"`load` method implemented (got {type(path_or_url).__name__})."
    )
