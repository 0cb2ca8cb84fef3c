"""The engine's site tracking: which line of the user's code created or disposed a tensor,
for error messages and leak reports.

``SiteTracking`` is mixed into ``Engine`` (``engine.py``). Ops record their creation site
themselves (``Engine.make_op``); this module holds what library code and disposals ask for:
``pin_site`` (one site for every op of a library call), ``dispose_site`` and the note a
scope's end leaves on the tensors it disposed.
"""

from __future__ import annotations

from typing import Any

from .. import sites
from .._handles import call_site
from .state import Scope, ScopeContext, _get_context, current_context


class SiteTracking:
    """User sites for library calls and disposals (mixed into ``Engine``)."""

    def pin_site(self) -> _PinnedSite:
        """``with ENGINE.pin_site():`` — library code that runs many ops for one user call
        (an optimizer step, a training batch) finds the user's line once, instead of every
        op walking the stack past the library's frames."""
        return _PinnedSite(self)

    def _scope_end_note(self, scope: Scope) -> tuple[str, Any]:
        """How a scope's end disposed a tensor: ``(scope name, site)``, formatted only if an
        error ever needs it (``tensor.disposed_error``)."""
        ctx = _get_context(None)
        site = ctx.site if ctx is not None else None
        return (scope.name, site if site is not None else sites.user_site(3))

    def dispose_site(self) -> Any:
        """Where the user disposed a tensor: the pinned site (``pin_site``) when library code
        runs for one user call, else the innermost user frame (for ``Tensor.dispose``)."""
        return call_site(2)  # the frame that called this one's caller (Tensor.dispose)


class _PinnedSite:
    """See ``SiteTracking.pin_site``."""

    __slots__ = ("engine", "ctx", "pinned")

    def __init__(self, engine: Any):
        self.engine = engine

    def __enter__(self) -> None:
        ctx: ScopeContext = current_context()
        self.ctx = ctx
        self.pinned = ctx.site is None and self.engine.track_sites
        if self.pinned:
            ctx.site = sites.user_site(2)

    def __exit__(self, *exc: Any) -> None:
        if self.pinned:
            self.ctx.site = None
