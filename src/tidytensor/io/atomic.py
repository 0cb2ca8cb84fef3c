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

A process killed mid-save leaves its hidden ``.<name>.tidytensor-tmp-<hex>`` directory behind.
Every save holds a shared ``flock`` on the directories it works with (its new directory and,
from just before the swap, the previous model's) until it is done; the next save of the same
target removes each such temporary that nobody holds a lock on (a killed process's locks are
gone), and leaves those of saves still running alone.
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

try:
    import fcntl
except ImportError:  # Windows: no flock, stale temporaries are left alone
    fcntl = None  # type: ignore[assignment]

from .errors import IOHandlerError

__all__ = ["replace_file", "write_model_dir"]

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


def _temporary_pattern(base: str) -> re.Pattern[str]:
    return re.compile(rf"^\.{re.escape(base)}\.tidytensor-tmp-[0-9a-f]{{12}}(-old)?$")


def _hold(path: str) -> int | None:
    """A descriptor of directory ``path`` holding a shared lock (None where locks are not
    available): a cleaner's exclusive lock then fails while the save runs."""
    if fcntl is None:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
    except OSError:
        os.close(fd)
        return None
    return fd


def _remove_stale_temporaries(parent: str, base: str) -> None:
    """Removes ``parent``'s temporaries of earlier saves to ``base`` that no live save holds."""
    if fcntl is None:
        return
    pattern = _temporary_pattern(base)
    try:
        names = [n for n in os.listdir(parent) if pattern.match(n)]
    except OSError:
        return
    for name in names:
        path = os.path.join(parent, name)
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | os.O_NOFOLLOW)
        except OSError:
            continue  # gone, or not a directory of ours
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue  # a save in progress holds it
        try:
            shutil.rmtree(path, ignore_errors=True)
        finally:
            os.close(fd)


def _new_temporary(parent: str, base: str) -> tuple[str, int | None]:
    """A new hidden directory next to the target, locked before a cleaner could take it."""
    for _ in range(100):
        tmp = os.path.join(parent, f".{base}.tidytensor-tmp-{uuid.uuid4().hex[:12]}")
        os.mkdir(tmp)
        fd = _hold(tmp)
        try:
            same = fd is None or os.path.samestat(os.fstat(fd), os.stat(tmp))
        except OSError:
            same = False
        if same:
            return tmp, fd
        os.close(fd)  # a concurrent cleaner removed it before the lock: try another name
    raise OSError(f"cannot create a temporary directory in {parent}")


def _release(fds: list[int | None]) -> None:
    for fd in fds:
        if fd is not None:
            os.close(fd)


def write_model_dir(target: str, files: list[tuple[str, Iterable[Any]]]) -> list[str]:
    """Replaces the model in directory ``target`` by ``files`` (``(name, chunks)`` pairs)
    atomically. Returns the paths written. Raises :class:`IOHandlerError` naming the target."""
    target = os.path.abspath(target)
    if os.path.exists(target) and not os.path.isdir(target):
        raise IOHandlerError(f"Cannot save the model to {target}: it exists and is not a directory")
    parent, base = os.path.split(target)
    tmp: str | None = None
    held: list[int | None] = []
    try:
        os.makedirs(parent, exist_ok=True)
        _remove_stale_temporaries(parent, base)
        tmp, fd = _new_temporary(parent, base)
        held.append(fd)
        for name, chunks in files:
            _write_file(os.path.join(tmp, name), chunks)
        _fsync_dir(tmp)
        if not os.path.exists(target):
            os.rename(tmp, target)
            tmp = None
        else:
            held.append(_hold(target))  # the previous model: it moves to a temporary name
            _swap_in(tmp, target)
        _fsync_dir(parent)
    except OSError as exc:
        raise IOHandlerError(f"Cannot save the model to {target}: {exc}") from exc
    finally:
        if tmp is not None and os.path.isdir(tmp):
            shutil.rmtree(tmp, ignore_errors=True)
        _release(held)
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


def replace_file(target: str, chunks: Iterable[Any]) -> str:
    """Replaces file ``target`` by ``chunks`` (bytes-like) atomically: they are written to a
    hidden file next to it, flushed to disk, then renamed over it, so a failure at any point
    leaves the previous file whole. Returns the absolute path. Raises :class:`IOHandlerError`
    naming the target."""
    target = os.path.abspath(target)
    parent, base = os.path.split(target)
    tmp = os.path.join(parent, f".{base}.tidytensor-tmp-{uuid.uuid4().hex[:12]}")
    try:
        os.makedirs(parent, exist_ok=True)
        if os.path.isdir(target):
            raise IsADirectoryError(21, "it is a directory", target)
        _write_file(tmp, chunks)
        os.replace(tmp, target)
        _fsync_dir(parent)
    except OSError as exc:
        raise IOHandlerError(f"Cannot write {target}: {exc}") from exc
    finally:
        if os.path.lexists(tmp):
            os.remove(tmp)
    return target
