"""Opening a model's files without ever reading a byte from outside its directory.

A path is checked once (:func:`check_inside`: its real path lies inside the directory, it is a
regular file) and the file is then opened by that real path with ``O_NOFOLLOW`` (a final
component swapped for a symbolic link fails to open) and ``O_NONBLOCK`` (a FIFO swapped in does
not block). The open descriptor's ``fstat`` must name the very file that was checked (same
device and inode, still a regular file); otherwise the file was swapped between the check and
the open, and nothing is read from it. Where the OS allows (POSIX), the real path is opened
one component at a time from the directory with ``O_NOFOLLOW``, so a directory on the way that
was swapped for a symbolic link fails to open too. The same rule applies to ``model.json`` and to every
weight file: a symbolic link is followed only when it stays inside the directory.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from .errors import IOHandlerError, ModelFileNotFoundError, ModelFormatError

__all__ = ["CheckedFile", "check_inside", "open_checked"]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_FLAGS = (
    os.O_RDONLY
    | _NOFOLLOW
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
#: Component-by-component opening needs ``dir_fd`` and ``O_NOFOLLOW`` (POSIX).
_WALK = bool(_NOFOLLOW) and os.open in os.supports_dir_fd


@dataclass(frozen=True)
class CheckedFile:
    """A file found inside its directory: the path asked for, its real path and identity."""

    path: str
    real_base: str
    real: str
    device: int
    inode: int
    size: int


def _realpath(path: str, source: str, what: str) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError) as exc:  # a link swapped while it was resolved
        raise IOHandlerError(f"{source}: cannot resolve {what} {path}: {exc}") from None


def check_inside(path: str, base_dir: str, source: str, what: str) -> CheckedFile:
    """``path`` (a file under ``base_dir``) once checked: its real path is inside
    ``base_dir``'s real path and it is a regular file. ``what`` names it in errors
    (``'weight file'``, ``'model.json'``)."""
    real_base = _realpath(base_dir, source, "directory")
    real = _realpath(path, source, what)
    try:
        inside = os.path.commonpath([real_base, real]) == real_base
    except ValueError:  # different drives
        inside = False
    if not inside:
        raise ModelFormatError(
            f"{source}: {what} {path} resolves to {real}, outside the model directory "
            f"{real_base} (symbolic links must stay inside it)"
        )
    try:
        st = os.stat(real, follow_symlinks=False)
    except FileNotFoundError:
        listed = " listed in the manifest" if what == "weight file" else ""
        raise ModelFileNotFoundError(f"{source}: {what} {path}{listed} does not exist") from None
    except OSError as exc:
        raise IOHandlerError(f"{source}: cannot read {what} {path}: {exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise ModelFormatError(f"{source}: {what} {path} is not a regular file")
    return CheckedFile(path, real_base, real, st.st_dev, st.st_ino, st.st_size)


def _open_beneath(real_base: str, real: str) -> int:
    """``real`` opened one component at a time from ``real_base``, never following a symbolic
    link (every component of a real path is a plain directory or file)."""
    if not _WALK:
        return os.open(real, _FLAGS)
    parts = os.path.relpath(real, real_base).split(os.sep)
    fd = os.open(real_base, _DIR_FLAGS)
    try:
        for part in parts[:-1]:
            next_fd = os.open(part, _DIR_FLAGS | _NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = next_fd
        return os.open(parts[-1], _FLAGS, dir_fd=fd)
    finally:
        os.close(fd)


def open_checked(checked: CheckedFile, source: str, what: str) -> int:
    """A read-only descriptor of ``checked``'s file, refused when the file at its real path is
    no longer the one that was checked (or a component of that path became a symbolic link).
    The caller closes it."""
    try:
        fd = _open_beneath(checked.real_base, checked.real)
    except FileNotFoundError:
        raise ModelFileNotFoundError(
            f"{source}: {what} {checked.path} disappeared before it was read"
        ) from None
    except OSError as exc:  # ELOOP / ENOTDIR: a component became a symbolic link
        raise ModelFormatError(
            f"{source}: {what} {checked.path} changed before it was read ({exc.strerror}); "
            "nothing was read from it"
        ) from None
    try:
        st = os.fstat(fd)
        if (
            not stat.S_ISREG(st.st_mode)
            or st.st_dev != checked.device
            or st.st_ino != checked.inode
        ):
            raise ModelFormatError(
                f"{source}: {what} {checked.path} was replaced by another file before it was "
                "read; nothing was read from it"
            )
        if st.st_size != checked.size:
            raise ModelFormatError(
                f"{source}: {what} {checked.path} changed size before it was read (checked "
                f"{checked.size} bytes, now {st.st_size})"
            )
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd
