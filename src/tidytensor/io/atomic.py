"""Atomic directory writes: a save either leaves the new model in place or the previous one,
never a mix of the two.

:func:`write_model_dir` writes every file into a new hidden directory next to the target
(same file system), flushes them to disk, then swaps that directory with the target in one
step (Linux ``renameat2(RENAME_EXCHANGE)``, macOS ``renamex_np(RENAME_SWAP)``). Where no
atomic swap exists the target is renamed aside, the new directory renamed in, and the old one
removed: the previous model stays complete (under its aside name) until the new one is in
place. Files in the target that are not part of the previous model (a README, other
subdirectories) are moved into the new directory. A failure at any point before the swap
removes the new directory and leaves the target as it was.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import re
import shutil
import sys
import uuid
from collections.abc import Iterable
from typing import Any

from .errors import IOHandlerError

__all__ = ["write_model_dir"]

#: Files a TF.js model directory holds (besides those its manifest lists).
_MODEL_FILE = re.compile(
    r"^(model\.json|weights\.bin|model\.weights\.bin|group\d+-shard\d+of\d+(\.bin)?|info\.json)$"
)


def _write_file(path: str, chunks: Iterable[Any]) -> None:
    """Writes ``chunks`` (bytes-like) to a new file and flushes it to disk."""
    with open(path, "xb") as f:
        for chunk in chunks:
            f.write(chunk)
        f.flush()
        os.fsync(f.fileno())


def _fsync_dir(path: str) -> None:
    if os.name != "posix":
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems do not support fsync on directories
    finally:
        os.close(fd)


_exchange_fn: Any = None


def _exchange(a: str, b: str) -> bool:
    """Swaps two paths atomically; False where the OS or file system cannot."""
    global _exchange_fn
    if _exchange_fn is None:
        _exchange_fn = False
        libc_name = ctypes.util.find_library("c")
        try:
            libc = ctypes.CDLL(libc_name, use_errno=True)
            if sys.platform.startswith("linux") and hasattr(libc, "renameat2"):
                renameat2 = libc.renameat2
                renameat2.argtypes = [
                    ctypes.c_int,
                    ctypes.c_char_p,
                    ctypes.c_int,
                    ctypes.c_char_p,
                    ctypes.c_uint,
                ]

                def _exchange_fn(x: bytes, y: bytes) -> int:
                    return renameat2(-100, x, -100, y, 2)  # AT_FDCWD, RENAME_EXCHANGE
            elif sys.platform == "darwin" and hasattr(libc, "renamex_np"):
                renamex_np = libc.renamex_np
                renamex_np.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint]

                def _exchange_fn(x: bytes, y: bytes) -> int:
                    return renamex_np(x, y, 2)  # RENAME_SWAP
        except OSError:
            _exchange_fn = False
    if not _exchange_fn:
        return False
    if _exchange_fn(os.fsencode(a), os.fsencode(b)) == 0:
        return True
    err = ctypes.get_errno()
    if err in (22, 38, 95):  # EINVAL, ENOSYS, EOPNOTSUPP: not supported here
        return False
    raise OSError(err, os.strerror(err), b)


def _previous_model_files(target: str) -> set[str]:
    """Names in ``target`` that belong to the model saved there (to be replaced)."""
    names = {n for n in os.listdir(target) if _MODEL_FILE.match(n)}
    try:
        with open(os.path.join(target, "model.json"), "rb") as f:
            manifest = json.loads(f.read(64 * 1024 * 1024)).get("weightsManifest") or []
        for group in manifest:
            for p in group.get("paths", []):
                name = os.path.normpath(str(p))
                if os.sep not in name and name not in (".", ".."):
                    names.add(name)
    except (OSError, ValueError, AttributeError, TypeError):
        pass
    return names


def write_model_dir(target: str, files: list[tuple[str, Iterable[Any]]]) -> list[str]:
    """Replaces the model in directory ``target`` by ``files`` (``(name, chunks)`` pairs)
    atomically. Returns the paths written. Raises :class:`IOHandlerError` naming the target."""
    target = os.path.abspath(target)
    if os.path.exists(target) and not os.path.isdir(target):
        raise IOHandlerError(f"Cannot save the model to {target}: it exists and is not a directory")
    parent, base = os.path.split(target)
    tmp = os.path.join(parent, f".{base}.tidytensor-tmp-{uuid.uuid4().hex[:12]}")
    try:
        os.makedirs(parent, exist_ok=True)
        os.mkdir(tmp)
        for name, chunks in files:
            _write_file(os.path.join(tmp, name), chunks)
        _fsync_dir(tmp)
        if not os.path.exists(target):
            os.rename(tmp, target)
            tmp = None
        else:
            _swap_in(tmp, target)
        _fsync_dir(parent)
    except OSError as exc:
        raise IOHandlerError(f"Cannot save the model to {target}: {exc}") from exc
    finally:
        if tmp is not None and os.path.isdir(tmp):
            shutil.rmtree(tmp, ignore_errors=True)
    return [os.path.join(target, name) for name, _ in files]


def _swap_in(tmp: str, target: str) -> None:
    """Puts the complete directory ``tmp`` at ``target``; ``tmp`` then holds the old one."""
    ours = _previous_model_files(target)
    new_names = set(os.listdir(tmp))
    if _exchange(tmp, target):
        old = tmp
    else:
        old = tmp + "-old"
        os.rename(target, old)
        try:
            os.rename(tmp, target)
        except OSError:
            os.rename(old, target)
            raise
    # Carry over what was in the directory besides the previous model.
    for name in os.listdir(old):
        if name in ours or name in new_names:
            continue
        try:
            os.rename(os.path.join(old, name), os.path.join(target, name))
        except OSError:
            pass
    shutil.rmtree(old, ignore_errors=True)
