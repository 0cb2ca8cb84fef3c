"""Memory management: ``tidy``, ``keep``, ``dispose``, scopes and variables (TF.js's globals)."""

from __future__ import annotations

from typing import Any

from . import sites
from .engine import ENGINE, tensors_in
from .errors import ArgumentTypeError
from .tensor import Tensor, Variable

__all__ = [
    "dispose",
    "dispose_variables",
    "end_scope",
    "keep",
    "start_scope",
    "tidy",
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
    """Marks a tensor so that no enclosing tidy disposes it; returns it."""
    if isinstance(result, Tensor):
        result.kept = True
        return result
    return ENGINE.keep(result)


def dispose(container: Any) -> None:
    """Disposes a tensor, a variable, or every tensor in a nested list/tuple/dict."""
    site = sites.user_site(2)
    for t in tensors_in(container):
        if t._disposed:
            continue
        if isinstance(t, Variable):
            ENGINE.dispose_variable(t, site)
        else:
            ENGINE.dispose_tensor(t, site)


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
    return ENGINE.make_variable(initial_value, trainable, name, dtype)
