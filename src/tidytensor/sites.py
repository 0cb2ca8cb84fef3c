"""Where in the user's code a tensor was created or disposed.

A site is captured as ``(code, instruction offset)``: one frame lookup and no string
formatting on the hot path. The line number is worked out only when a message needs it.
"""

from __future__ import annotations

import os
import sys
from types import CodeType
from typing import Any

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
#: Code objects known to be tidytensor's own (True) or the user's (False).
internal_codes: dict[CodeType, bool] = {}
_internal = internal_codes
_getframe = sys._getframe

Site = tuple  # (CodeType, int)


def _is_internal(code: CodeType) -> bool:
    flag = _internal.get(code)
    if flag is None:
        filename = code.co_filename
        flag = filename.startswith(_PACKAGE_DIR) or filename.startswith("<frozen")
        _internal[code] = flag
    return flag


#: One canonical site tuple per (code, offset): tensors share it instead of each holding a
#: new tuple, which would be one more object per op for the garbage collector to walk.
_sites: dict[CodeType, dict[int, Site]] = {}


def site_of(code: CodeType, offset: int) -> Site:
    """The canonical ``(code, offset)`` tuple."""
    by_offset = _sites.get(code)
    if by_offset is None:
        by_offset = _sites[code] = {}
    site = by_offset.get(offset)
    if site is None:
        site = by_offset[offset] = (code, offset)
    return site


def user_site(depth: int = 2) -> Site | None:
    """The innermost frame outside tidytensor, as ``(code, offset)``."""
    return user_site_from(_getframe(depth))


def user_site_from(f: Any) -> Site | None:
    """The innermost frame outside tidytensor from frame ``f`` outwards, as ``(code, offset)``."""
    while f is not None:
        code = f.f_code
        flag = _internal.get(code)
        if flag is None:
            flag = _is_internal(code)
        if not flag:
            return site_of(code, f.f_lasti)
        f = f.f_back
    return None


def caller_site(frame: Any) -> Site | None:
    """The creation site of an op called from ``frame``: that frame's line when it is user
    code, else the innermost user frame outside (one frame lookup when the site is known)."""
    code = frame.f_code
    by_offset = _sites.get(code)  # only user code has sites
    if by_offset is not None:
        site = by_offset.get(frame.f_lasti)
        if site is not None:
            return site
    if _internal.get(code) is False:
        return site_of(code, frame.f_lasti)
    return user_site_from(frame)


def line_of(site: Site) -> int | None:
    code, offset = site
    for start, end, line in code.co_lines():
        if start <= offset < end:
            return line
    return code.co_firstlineno


def format_site(site: Site | None) -> str:
    """``'path/to/file.py:12 in fn'``, or ``'an unknown place'``."""
    if site is None:
        return "an unknown place"
    code = site[0]
    filename = code.co_filename
    try:
        rel = os.path.relpath(filename)
        if not rel.startswith(".."):
            filename = rel
    except ValueError:
        pass
    return f"{filename}:{line_of(site)} in {code.co_name}"
