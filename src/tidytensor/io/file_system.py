"""Models in a directory: ``model.json`` plus its weight files (tfjs-node's
``tf.io.fileSystem`` / ``file://``).

Loading accepts the path of a ``model.json`` or of a directory holding one, with or without
``file://``. Weight paths are resolved against the ``model.json``'s directory (or
``weight_path_prefix``) and must stay inside it: an absolute path, a ``..`` that climbs out, a
URL or a symbolic link pointing elsewhere is refused; the same holds for a ``model.json`` that
is a symbolic link. Each file is opened by :mod:`.safe_open`, which refuses one swapped (for a
link, a FIFO, another file) between its check and its read. Every file's size is checked against the
manifest before a byte of weights is read, and nothing is allocated from the manifest's
numbers: buffers are sized from the bytes actually present.

Saving writes ``model.json`` and either one ``weights.bin`` (tfjs-node's name, when the
weights fit in one shard) or ``group1-shard1ofN.bin``... (the converter's names, each at most
``shard_size_bytes``), atomically (see :mod:`.atomic`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

from ..js_strings import js_json
from .artifacts import (
    MAX_MODEL_JSON_BYTES,
    ModelArtifacts,
    SaveResult,
    get_model_artifacts_for_json,
    get_model_artifacts_info_for_json,
    get_model_json_for_model_artifacts,
    get_weight_specs,
    parse_model_json,
)
from .atomic import write_model_dir
from .errors import IOHandlerError, ModelFileNotFoundError, ModelFormatError, ModelTooLargeError
from .safe_open import CheckedFile, check_inside, open_checked
from .weights import minimum_byte_length, stored_byte_length

__all__ = ["DeferredWeightData", "FileSystemHandler", "file_system", "shard_weight_data"]

MODEL_JSON = "model.json"
WEIGHTS_BIN = "weights.bin"
DEFAULT_SHARD_SIZE = 4 * 1024 * 1024
_READ_CHUNK = 8 * 1024 * 1024


def strip_file_scheme(path: str) -> str:
    """The local path of ``path`` (``file://`` dropped, a leading ``~`` expanded as the shell
    would: ``file://~/m`` is ``/home/you/m``)."""
    path = path[len("file://") :] if path.startswith("file://") else path
    return os.path.expanduser(path)


def check_relative_path(rel: Any, source: str) -> None:
    """A manifest weight path must be relative, without a URL scheme, NUL or backslash tricks."""
    if not isinstance(rel, str) or not rel:
        raise ModelFormatError(f"{source}: weight path {rel!r} is not a non-empty string")
    if "\x00" in rel:
        raise ModelFormatError(f"{source}: weight path {rel!r} contains a NUL byte")
    head = rel.split("/", 1)[0]
    if (
        rel.startswith(("/", "\\"))
        or os.path.isabs(rel)
        or (len(rel) > 1 and rel[1] == ":" and rel[0].isalpha())
        or "://" in rel
        or ":" in head  # a URL scheme (as a relative URL, 'a:b' is not a path)
    ):
        raise ModelFormatError(
            f"{source}: weight path {rel!r} is absolute or a URL; weight paths must be relative "
            "to the model.json"
        )
    depth = 0
    for part in rel.replace("\\", "/").split("/"):
        if part == "..":
            depth -= 1
            if depth < 0:
                raise ModelFormatError(f"{source}: weight path {rel!r} escapes the model directory")
        elif part not in ("", "."):
            depth += 1


def resolve_weight_path(base_dir: str, rel: Any, source: str) -> CheckedFile:
    """``base_dir/rel`` checked: a relative path whose real path (symbolic links resolved)
    stays inside ``base_dir`` and names a regular file."""
    check_relative_path(rel, source)
    joined = os.path.normpath(os.path.join(base_dir, rel))
    return check_inside(joined, base_dir, source, "weight file")


class FileSystemHandler:
    """Loads from and saves to the local file system (``file://`` or a plain path).

    Args:
        path: a ``model.json`` or a directory (load); a directory (save).
        weight_path_prefix: directory the manifest's paths are relative to (default: the
            ``model.json``'s directory).
        on_progress: called with the fraction of weight bytes read (0..1, ending at 1).
        max_bytes: refuse manifests whose weights need more stored bytes than this (default:
            the bytes present in the weight files).
        shard_size_bytes: largest weight file written by :meth:`save`.
    """

    def __init__(
        self,
        path: str,
        weight_path_prefix: str | None = None,
        on_progress: Callable[[float], Any] | None = None,
        max_bytes: int | None = None,
        shard_size_bytes: int | None = DEFAULT_SHARD_SIZE,
    ):
        if not isinstance(path, (str, os.PathLike)) or not str(path):
            raise IOHandlerError(f"file system path must be a non-empty string, got {path!r}")
        self.path = strip_file_scheme(os.fspath(path))
        self.weight_path_prefix = (
            None if weight_path_prefix is None else strip_file_scheme(os.fspath(weight_path_prefix))
        )
        self.on_progress = on_progress
        self.max_bytes = max_bytes
        self.shard_size_bytes = shard_size_bytes

    def __repr__(self) -> str:
        return f"FileSystemHandler({self.path!r})"

    # ------------------------------------------------------------------- loading
    def model_json_path(self) -> str:
        path = self.path
        if os.path.isdir(path):
            path = os.path.join(path, MODEL_JSON)
        return path

    def load(self) -> ModelArtifacts:
        """Reads ``model.json`` and every weight file (checked first, read once)."""
        artifacts = self.load_deferred()
        if isinstance(artifacts.weight_data, DeferredWeightData):
            artifacts.weight_data = artifacts.weight_data.read()
        return artifacts

    def load_deferred(self) -> ModelArtifacts:
        """Reads and checks ``model.json`` and checks the weight files (inside the directory,
        regular, their sizes what the manifest describes) without reading them: the
        artifacts' ``weight_data`` is a :class:`DeferredWeightData`, read once the loader has
        matched the manifest with the model's weights."""
        json_path = self.model_json_path()
        try:
            checked = check_inside(
                json_path, os.path.dirname(os.path.abspath(json_path)), json_path, MODEL_JSON
            )
        except ModelFileNotFoundError:
            where = (
                f"{self.path} has no {MODEL_JSON}"
                if os.path.isdir(self.path)
                else f"{json_path} does not exist"
            )
            raise ModelFileNotFoundError(f"Cannot load the model: {where}") from None
        if checked.size > MAX_MODEL_JSON_BYTES:
            raise ModelTooLargeError(
                f"{json_path}: {checked.size} bytes is larger than the {MAX_MODEL_JSON_BYTES}-byte "
                "limit for a model.json"
            )
        fd = open_checked(checked, json_path, MODEL_JSON)
        try:
            with open(fd, "rb", closefd=True) as f:
                text = f.read(MAX_MODEL_JSON_BYTES + 1)
        except OSError as exc:
            raise IOHandlerError(f"Cannot read {json_path}: {exc}") from None
        model_json = parse_model_json(text, json_path)
        manifest = model_json.get("weightsManifest")
        if manifest is None:
            return _artifacts(model_json, json_path, None, None, None)
        base = self.weight_path_prefix or os.path.dirname(os.path.abspath(json_path))
        checked_groups = [
            [resolve_weight_path(base, p, json_path) for p in group["paths"]] for group in manifest
        ]
        groups = [[c.path for c in files] for files in checked_groups]
        sizes = [[c.size for c in files] for files in checked_groups]
        check_group_sizes(manifest, groups, sizes, json_path, self.max_bytes)
        total = sum(sum(s) for s in sizes)
        on_progress = self.on_progress

        def read() -> list[np.ndarray]:
            reporter = _Progress(on_progress, total)
            buffers = [_read_group(files, json_path, reporter) for files in checked_groups]
            reporter.done()
            return buffers

        return _artifacts(
            model_json,
            json_path,
            get_weight_specs(manifest),
            DeferredWeightData(read),
            [sum(group_sizes) for group_sizes in sizes],
        )

    # -------------------------------------------------------------------- saving
    def save(self, artifacts: ModelArtifacts) -> SaveResult:
        """Writes ``model.json`` and the weight files into the directory, atomically."""
        target = self.path
        if os.path.basename(target) == MODEL_JSON and not os.path.isdir(target):
            target = os.path.dirname(target) or "."
        files, manifest = model_files(artifacts, self.shard_size_bytes)
        paths = write_model_dir(target, files)
        return SaveResult(get_model_artifacts_info_for_json(artifacts), paths=paths)


def model_files(
    artifacts: ModelArtifacts, shard_size_bytes: int | None
) -> tuple[list[tuple[str, list[Any]]], list[dict[str, Any]]]:
    """``[(file name, chunks)]`` for ``model.json`` and the weights, and the manifest."""
    if isinstance(artifacts.model_topology, (bytes, bytearray, memoryview)):
        raise IOHandlerError("Saving a binary model topology is not supported (JSON only).")
    shards = shard_weight_data(artifacts.weight_data, shard_size_bytes)
    if len(shards) == 1:
        names = [WEIGHTS_BIN]
    else:
        names = [f"group1-shard{i + 1}of{len(shards)}.bin" for i in range(len(shards))]
    manifest = [{"paths": names, "weights": list(artifacts.weight_specs or [])}]
    model_json = get_model_json_for_model_artifacts(artifacts, manifest)
    files: list[tuple[str, list[Any]]] = [(MODEL_JSON, [js_json(model_json).encode("utf-8")])]
    files.extend((name, [chunk]) for name, chunk in zip(names, shards, strict=True))
    return files, manifest


def shard_weight_data(weight_data: Any, shard_size_bytes: int | None) -> list[memoryview]:
    """The weight bytes cut into pieces of at most ``shard_size_bytes`` (one piece when
    ``None``; one empty piece when there is no data)."""
    if weight_data is None:
        data = memoryview(b"")
    elif isinstance(weight_data, (list, tuple)):
        data = memoryview(b"".join(bytes(memoryview(b)) for b in weight_data))
    else:
        data = memoryview(weight_data).cast("B")
    if shard_size_bytes is not None:
        if (
            not isinstance(shard_size_bytes, int)
            or isinstance(shard_size_bytes, bool)
            or shard_size_bytes <= 0
        ):
            raise IOHandlerError(
                f"shard_size_bytes must be a positive integer, got {shard_size_bytes!r}"
            )
    if shard_size_bytes is None or data.nbytes <= shard_size_bytes:
        return [data]
    return [data[i : i + shard_size_bytes] for i in range(0, data.nbytes, shard_size_bytes)]


def check_group_sizes(
    manifest: list[dict[str, Any]],
    groups: list[list[str]],
    sizes: list[list[int]],
    source: str,
    max_bytes: int | None,
) -> None:
    """Before reading: each group's files hold at least (and, without strings, exactly) the
    bytes its entries need, and the total stays within ``max_bytes``."""
    need_total = 0
    for g, (group, paths, group_sizes) in enumerate(zip(manifest, groups, sizes, strict=True)):
        need = sum(minimum_byte_length(s) for s in group["weights"])
        exact = all(stored_byte_length(s) is not None for s in group["weights"])
        have = sum(group_sizes)
        need_total += need
        listing = ", ".join(
            f"{os.path.basename(p)}: {n} bytes" for p, n in zip(paths, group_sizes, strict=True)
        )
        if have < need:
            raise ModelFormatError(
                f"{source}: weight group {g + 1} needs {'at least ' if not exact else ''}{need} "
                f"bytes for its {len(group['weights'])} weights, but its files hold only {have} "
                f"bytes ({listing}): a weight file is missing or truncated"
            )
        if exact and have != need:
            raise ModelFormatError(
                f"{source}: weight group {g + 1}'s manifest entries describe {need} bytes, but "
                f"its files hold {have} bytes ({listing}): the manifest and the weight files "
                "disagree"
            )
    if max_bytes is not None and need_total > max_bytes:
        raise ModelTooLargeError(
            f"{source}: the weights manifest needs {need_total} bytes, more than the limit of "
            f"{max_bytes} bytes (max_bytes)"
        )


class DeferredWeightData:
    """Weight files checked but not read yet: :meth:`read` reads them (once) and returns one
    buffer per manifest group."""

    def __init__(self, read: Callable[[], list[np.ndarray]]):
        self._read = read

    def read(self) -> list[np.ndarray]:
        return self._read()


class _Progress:
    def __init__(self, callback: Callable[[float], Any] | None, total: int):
        self.callback = callback
        self.total = total
        self.read = 0

    def add(self, n: int) -> None:
        self.read += n
        if self.callback is not None and self.total > 0 and self.read < self.total:
            self.callback(self.read / self.total)

    def done(self) -> None:
        if self.callback is not None:
            self.callback(1.0)


def _read_group(files: list[CheckedFile], source: str, progress: _Progress) -> np.ndarray:
    """The files of one group, read into one buffer of the size their check reported (a NumPy
    byte array: no time spent zeroing what is about to be overwritten). Each file is opened
    by :func:`.safe_open.open_checked`: a file swapped since its check is not read."""
    buf = np.empty(sum(c.size for c in files), dtype=np.uint8)
    view = memoryview(buf)
    offset = 0
    for checked in files:
        path, size = checked.path, checked.size
        fd = open_checked(checked, source, "weight file")
        try:
            with open(fd, "rb", buffering=0, closefd=True) as f:
                end = offset + size
                while offset < end:
                    n = f.readinto(view[offset : min(end, offset + _READ_CHUNK)])
                    if not n:
                        raise ModelFormatError(
                            f"{source}: weight file {path} became shorter while it was read "
                            f"(expected {size} bytes)"
                        )
                    offset += n
                    progress.add(n)
                if f.read(1):
                    raise ModelFormatError(
                        f"{source}: weight file {path} grew while it was read (expected {size} bytes)"
                    )
        except OSError as exc:
            raise IOHandlerError(f"{source}: cannot read weight file {path}: {exc}") from None
    del view
    return buf


def _artifacts(
    model_json: dict[str, Any],
    source: str,
    specs: list[dict[str, Any]] | None,
    buffers: list[Any] | None,
    group_sizes: list[int] | None,
) -> ModelArtifacts:
    if specs is None:
        artifacts = get_model_artifacts_for_json(
            {k: v for k, v in model_json.items() if k != "weightsManifest"}
        )
    else:
        artifacts = get_model_artifacts_for_json(model_json, specs, buffers)
    artifacts.source = source
    artifacts.group_sizes = group_sizes
    return artifacts


def file_system(path: str, **options: Any) -> FileSystemHandler:
    """A handler for a model directory (tfjs-node's ``tf.io.fileSystem``)."""
    return FileSystemHandler(path, **options)
