"""Every op, re-exported from its family module (each family's ``__all__`` is its op list)."""

from __future__ import annotations

from . import (
    arithmetic,
    basic_math,
    creation,
    logical,
    matrices,
    random,
    reduction,
    slicing_joining,
    transformations,
)
from .arithmetic import *  # noqa: F403
from .basic_math import *  # noqa: F403
from .creation import *  # noqa: F403
from .logical import *  # noqa: F403
from .matrices import *  # noqa: F403
from .random import *  # noqa: F403
from .reduction import *  # noqa: F403
from .slicing_joining import *  # noqa: F403
from .transformations import *  # noqa: F403

FAMILIES = (
    creation,
    random,
    arithmetic,
    basic_math,
    reduction,
    matrices,
    logical,
    transformations,
    slicing_joining,
)

__all__ = [name for family in FAMILIES for name in family.__all__]
