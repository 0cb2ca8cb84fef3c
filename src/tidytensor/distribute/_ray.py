"""Ray, imported only when a distributed feature is used: ``pip install 'tidytensor[ray]'``."""

from __future__ import annotations

from typing import Any

from ..errors import TidyTensorError

__all__ = ["DistributeError", "require_ray"]

EXTRA_HINT = "pip install 'tidytensor[ray]'"


class DistributeError(TidyTensorError, ValueError):
    """A distributed run that cannot go on: a bad configuration, workers that disagree, a
    collective that timed out, or Ray missing."""


class RayNotInstalledError(DistributeError, ImportError):
    """Ray is missing: a :class:`DistributeError` that is also an ``ImportError``, as any
    missing optional dependency is (tools that list the API skip such names)."""


def require_ray(feature: str) -> Any:
    """The ``ray`` module, or a :class:`RayNotInstalledError` naming ``feature`` and the
    extra."""
    try:
        import ray
    except ImportError as exc:
        raise RayNotInstalledError(
            f"{feature} runs on Ray, which is not installed: {EXTRA_HINT} (the optional "
            f"extra 'ray' installs ray[train,data])"
        ) from exc
    return ray
