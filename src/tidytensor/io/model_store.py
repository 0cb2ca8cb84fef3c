"""The local model store: ``localstorage://name`` and ``indexeddb://name`` (the browser's
stores in TF.js) both map to directories under the user cache directory, one per scheme:

- ``$TIDYTENSOR_MODEL_STORE`` if set, else
- Linux: ``$XDG_CACHE_HOME/tidytensor/models`` (default ``~/.cache/tidytensor/models``),
- macOS: ``~/Library/Caches/tidytensor/models``,
- Windows: ``%LOCALAPPDATA%\\tidytensor\\Cache\\models``.

Each model is a directory (its name escaped so that no name can reach outside the store)
with ``model.json``, ``weights.bin`` and ``info.json`` (the name and the
``ModelArtifactsInfo``), written atomically. The management calls here are TF.js's
``tf.io.listModels`` and ``removeModel``; ``copyModel`` and ``moveModel``, which take any
loadable or savable URL, live in ``model_transfer`` (above the router, which routes the
store's URLs here).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from typing import Any

from .artifacts import (
    ModelArtifacts,
    ModelArtifactsInfo,
    SaveResult,
    get_model_artifacts_info_for_json,
)
from .atomic import write_model_dir
from .errors import IOHandlerError
from .file_system import FileSystemHandler, model_files

__all__ = [
    "SCHEMES",
    "ModelStoreHandler",
    "list_models",
    "model_store_root",
    "remove_model",
]

SCHEMES = ("localstorage", "indexeddb")
URL_SCHEME_SUFFIX = "://"
INFO_JSON = "info.json"


def model_store_root() -> str:
    """The directory holding the model store (see the module docstring)."""
    env = os.environ.get("TIDYTENSOR_MODEL_STORE")
    if env:
        return os.path.abspath(os.path.expanduser(env))
    home = os.path.expanduser("~")
    if sys.platform == "darwin":
        base = os.path.join(home, "Library", "Caches", "tidytensor")
    elif os.name == "nt":
        base = os.path.join(
            os.environ.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local"),
            "tidytensor",
            "Cache",
        )
    else:
        base = os.path.join(
            os.environ.get("XDG_CACHE_HOME") or os.path.join(home, ".cache"), "tidytensor"
        )
    return os.path.join(base, "models")


def _dir_name(name: str) -> str:
    """A file name for a model name: every byte outside ``[A-Za-z0-9_-]`` escaped, long names
    shortened with a hash (names never collide, never start with a dot, never contain ``/``)."""
    out = "".join(
        ch
        if (ch.isascii() and (ch.isalnum() or ch in "_-"))
        else "".join(f"%{b:02X}" for b in ch.encode("utf-8"))
        for ch in name
    )
    if len(out) > 180:
        out = out[:120] + "~" + hashlib.sha256(name.encode("utf-8")).hexdigest()[:32]
    return out


def _scheme_dir(scheme: str) -> str:
    return os.path.join(model_store_root(), scheme)


def _parse(url: str) -> tuple[str, str]:
    if not isinstance(url, str) or URL_SCHEME_SUFFIX not in url:
        raise IOHandlerError(
            f"The url string provided does not contain a scheme. Supported schemes are: "
            f"{','.join(SCHEMES)}"
        )
    scheme, path = url.split(URL_SCHEME_SUFFIX, 1)
    return scheme, path


class ModelStoreHandler:
    """Loads from / saves to one model of the local store."""

    def __init__(self, scheme: str, name: str):
        if scheme not in SCHEMES:
            raise IOHandlerError(f"Cannot find model manager for scheme '{scheme}'")
        if not name:
            raise IOHandlerError("model_path must not be None or empty.")
        self.scheme = scheme
        self.name = name
        self.dir = os.path.join(_scheme_dir(scheme), _dir_name(name))

    def __repr__(self) -> str:
        return f"ModelStoreHandler('{self.scheme}://{self.name}' at {self.dir!r})"

    def exists(self) -> bool:
        return os.path.isfile(os.path.join(self.dir, INFO_JSON)) and os.path.isfile(
            os.path.join(self.dir, "model.json")
        )

    def load(self) -> ModelArtifacts:
        return self._load(FileSystemHandler.load)

    def load_deferred(self) -> ModelArtifacts:
        """As :meth:`FileSystemHandler.load_deferred`: weight files checked, read later."""
        return self._load(FileSystemHandler.load_deferred)

    def _load(self, how: Any) -> ModelArtifacts:
        if not self.exists():
            raise IOHandlerError(
                f"Cannot find model with path '{self.name}' in the {self.scheme} model store "
                f"({self.dir})"
            )
        artifacts = how(FileSystemHandler(self.dir))
        artifacts.source = f"{self.scheme}://{self.name} ({self.dir})"
        return artifacts

    def save(self, artifacts: ModelArtifacts) -> SaveResult:
        info = get_model_artifacts_info_for_json(artifacts)
        files, _ = model_files(artifacts, None)
        record = {"name": self.name, "scheme": self.scheme, "modelArtifactsInfo": info.to_json()}
        files.append((INFO_JSON, [json.dumps(record).encode("utf-8")]))
        os.makedirs(_scheme_dir(self.scheme), exist_ok=True)
        paths = write_model_dir(self.dir, files)
        return SaveResult(info, paths=paths)

    def info(self) -> ModelArtifactsInfo:
        with open(os.path.join(self.dir, INFO_JSON), encoding="utf-8") as f:
            return ModelArtifactsInfo.from_json(json.load(f)["modelArtifactsInfo"])

    def remove(self) -> ModelArtifactsInfo:
        if not self.exists():
            raise IOHandlerError(
                f"Cannot find model at path '{self.name}' in the {self.scheme} model store "
                f"({self.dir})"
            )
        info = self.info()
        shutil.rmtree(self.dir)
        return info


def store_router(url: Any, options: dict[str, Any] | None = None) -> ModelStoreHandler | None:
    """The handler for ``localstorage://name`` / ``indexeddb://name`` URLs."""
    if not isinstance(url, str):
        return None
    for scheme in SCHEMES:
        prefix = scheme + URL_SCHEME_SUFFIX
        if url.lower().startswith(prefix):
            return ModelStoreHandler(scheme, url[len(prefix) :])
    return None


def list_models() -> dict[str, ModelArtifactsInfo]:
    """``{url: ModelArtifactsInfo}`` for every model in the store (both schemes)."""
    out: dict[str, ModelArtifactsInfo] = {}
    for scheme in SCHEMES:
        root = _scheme_dir(scheme)
        if not os.path.isdir(root):
            continue
        for entry in sorted(os.listdir(root)):
            if entry.startswith("."):
                continue  # an unfinished save
            info_path = os.path.join(root, entry, INFO_JSON)
            try:
                with open(info_path, encoding="utf-8") as f:
                    record = json.load(f)
                out[f"{scheme}{URL_SCHEME_SUFFIX}{record['name']}"] = ModelArtifactsInfo.from_json(
                    record["modelArtifactsInfo"]
                )
            except (OSError, ValueError, KeyError, TypeError):
                continue
    return out


def remove_model(url: str) -> ModelArtifactsInfo:
    """Deletes a model from the store; returns its ``ModelArtifactsInfo``."""
    scheme, path = _parse(url)
    return ModelStoreHandler(scheme, path).remove()
