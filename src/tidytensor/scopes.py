"""Memory management: ``tidy``, ``keep``, ``dispose``, scopes and variables (TF.js's globals).

Layer: above ``ops`` (``tf.variable`` checks its arguments with the ops' argument helpers)
and the engine, which does the work. It installs ``Tensor.variable``, as ``ops._chained``
installs the op methods: the ``tensor`` module sits below everything that makes tensors.
"""

from __future__ import annotations

from typing import Any

from . import sites
from .engine import (
    ENGINE,
    LeakedTensor,
    current_context,
    new_context,
    restore_context,
    tensors_in,
)
from .errors import ArgumentTypeError
from .ops._op import bool_arg, dtype_arg
from .tensor import Tensor, Variable

__all__ = [
    "TidyScope",
    "dispose",
    "dispose_leaked",
    "dispose_variables",
    "end_scope",
    "keep",
    "start_scope",
    "leaks",
    "tidy",
    "tidy_scope",
    "variable",
]


def tidy(name_or_fn: Any, fn: Any = None) -> Any:
    """Runs ``fn`` and disposes every tensor it created except those it returns (in any
    nesting of lists, tuples and dicts) and those passed to :func:`keep`.

    >>> y = tf.tidy(lambda: tf.tensor([1, 2]).square().sum())
    >>> y.array_sync()
    5.0
    """
    return ENGINE.tidy(name_or_fn, fn)


def keep(result: Tensor) -> Tensor:
    """Marks a tensor so that no enclosing tidy disposes it; returns it. Inside a traced
    ``tf.function``, a kept tensor the function does not return makes that signature run
    eagerly (each call keeps its own tensor; ``compiled/tracing.py``)."""
    if isinstance(result, Tensor):
        result.kept = True
        if ENGINE.tracer is not None:
            ENGINE.tracer.on_keep([result])
        return result
    kept = ENGINE.keep(result)
    if ENGINE.tracer is not None:
        ENGINE.tracer.on_keep(tensors_in(result))
    return kept


def dispose(container: Any) -> None:
    """Disposes a tensor, a variable, or every tensor in a nested list/tuple/dict."""
    ENGINE.dispose(container)


def dispose_variables() -> None:
    """Disposes every registered variable."""
    ENGINE.dispose_variables()


def start_scope(name: str | None = None) -> None:
    """Opens a scope by hand (TF.js's ``engine().startScope()``); close it with :func:`end_scope`."""
    ENGINE.start_scope(name)


def end_scope(result: Any = None) -> None:
    """Closes the innermost scope, disposing what it tracked except ``result``."""
    ENGINE.end_scope(result)


def variable(
    initial_value: Any, trainable: bool = True, name: str | None = None, dtype: str | None = None
) -> Variable:
    """A mutable tensor sharing ``initial_value``'s buffer. Never disposed by tidy.

    >>> v = tf.variable(tf.zeros([2]), name='bias_demo')
    >>> v.assign(tf.tensor1d([1, 2]))
    >>> v.array_sync()
    [1.0, 2.0]
    >>> v.dispose()
    """
    if not isinstance(initial_value, Tensor):
        raise ArgumentTypeError(
            f"Argument 'initial_value' passed to 'variable' must be a Tensor, but got "
            f"'{type(initial_value).__name__}'"
        )
    initial_value.throw_if_disposed("variable")
    dtype_arg(dtype, "variable", allow_none=True)
    trainable = True if trainable is None else bool_arg(trainable, "variable", "trainable")
    return ENGINE.make_variable(initial_value, trainable, name, dtype)


def _tensor_variable(
    self: Tensor, trainable: bool = True, name: str | None = None, dtype: str | None = None
) -> Variable:
    """``x.variable(trainable, name, dtype)``: ``tf.variable(x, ...)``."""
    return variable(self, trainable, name, dtype)


Tensor.variable = _tensor_variable  # type: ignore[attr-defined]


class TidyScope:
    """``with tf.tidy_scope() as scope:`` — tidy as a block. Tensors made inside are disposed
    at the end except those passed to ``scope.keep(...)`` (handed to the enclosing scope, like
    tidy's return value) or to ``tf.keep`` (kept for good).

    ``async with tf.tidy_scope():`` gives the running asyncio task a scope stack of its own,
    so concurrent tasks never dispose each other's tensors across ``await``.

    >>> with tf.tidy_scope() as scope:
    ...     a = tf.ones([2]).add(1)
    ...     b = scope.keep(a.mul(2))
    >>> a.is_disposed, b.is_disposed
    (True, False)
    """

    def __init__(self, name: str | None = None):
        self.name = name or "tidy_scope"
        self._kept: list[Any] = []
        self._token: Any = None

    def keep(self, result: Any) -> Any:
        """Keeps ``result`` (a tensor or a container of them) past the end of this scope."""
        self._kept.append(result)
        return result

    def __enter__(self) -> TidyScope:
        # A scope stack of its own for the block: asyncio tasks copy their context
        # shallowly and so share their creator's stack, and a plain ``with`` around an
        # ``await`` would otherwise close (and free) another task's scope.
        self._token = new_context(current_context().active)
        ENGINE.start_scope(self.name)
        return self

    def __exit__(self, *exc: Any) -> None:
        try:
            ENGINE.end_scope(self._kept)
        finally:
            restore_context(self._token)

    async def __aenter__(self) -> TidyScope:
        return self.__enter__()

    async def __aexit__(self, *exc: Any) -> None:
        self.__exit__(*exc)


def tidy_scope(name: str | None = None) -> TidyScope:
    """A scope used as ``with`` (or ``async with``) block; see :class:`TidyScope`."""
    return TidyScope(name)


class LeakGroup:
    """Leaked tensors that share a creation site."""

    __slots__ = ("site", "count", "bytes", "tensor_ids")

    def __init__(self, site: str, count: int, nbytes: int, tensor_ids: list[int]):
        self.site = site
        self.count = count
        self.bytes = nbytes
        self.tensor_ids = tensor_ids

    def __repr__(self) -> str:
        return f"LeakGroup(site={self.site!r}, count={self.count}, bytes={self.bytes})"


def leaks() -> list[LeakGroup]:
    """Tensors garbage-collected without being disposed, grouped by the user's line that
    created them, most bytes first. Their buffers are still allocated (and counted)."""
    groups: dict[str, list[LeakedTensor]] = {}
    for record in ENGINE.state.leaked:
        if record.data_id.refs > 0 and not record._disposed:
            groups.setdefault(sites.format_site(record._site), []).append(record)
    out = [
        LeakGroup(site, len(records), sum(r.nbytes for r in records), [r.id for r in records])
        for site, records in groups.items()
    ]
    out.sort(key=lambda g: (-g.bytes, -g.count))
    return out


def dispose_leaked() -> int:
    """Frees the buffers of every leaked tensor; returns how many handles were released."""
    return ENGINE.dispose_leaked()
