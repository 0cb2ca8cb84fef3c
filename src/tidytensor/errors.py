"""The errors tidytensor raises.

Every class derives from :class:`TidyTensorError` and from the builtin that fits,
so ``except ValueError`` still catches a bad shape. Messages name the op or file,
what was given and what was expected.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

_F = TypeVar("_F", bound=Callable[..., Any])


class TidyTensorError(Exception):
    """Base class of every error raised by tidytensor."""


class TensorDisposedError(TidyTensorError, RuntimeError):
    """A tensor was used after its buffer was disposed."""


class KernelNotRegisteredError(TidyTensorError, LookupError):
    """No kernel of that name is registered for the active backend."""


class BackendNotFoundError(TidyTensorError, LookupError):
    """No backend of that name is registered."""


class ShapeError(TidyTensorError, ValueError):
    """Shapes that do not fit the op (broadcasting, ranks, sizes)."""


class DTypeError(TidyTensorError, TypeError):
    """A dtype the op does not accept, or dtypes that cannot be combined."""


class InvalidArgumentError(TidyTensorError, ValueError):
    """An argument with a value the op does not accept."""


class TensorIndexError(TidyTensorError, IndexError):
    """An index that does not fit the tensor (an ``IndexError``, so ``for row in t`` stops
    at the end)."""


class ArgumentTypeError(TidyTensorError, TypeError):
    """An argument of a type the op does not accept."""


class VariableExistsError(TidyTensorError, ValueError):
    """A variable name is already registered."""


class KernelError(TidyTensorError, RuntimeError):
    """A kernel failed in a way the op's argument checks did not foresee (a bug to report)."""


class ResourceExhaustedError(TidyTensorError, MemoryError):
    """An allocation would take live tensor memory past ``tf.config.set_memory_limit``."""


class KernelLeakError(TidyTensorError, RuntimeError):
    """A kernel left backend buffers behind (checked in test mode)."""


class GradientError(TidyTensorError, ValueError):
    """A gradient could not be computed, or a gradient function returned a wrong value."""


class LeakWarning(UserWarning):
    """Tensors were garbage-collected without ``dispose()`` (their buffers stay allocated).

    It plays the part of a ``ResourceWarning`` (an unreleased resource), but derives from
    ``UserWarning`` so that Python's default warning filters show it: one line per creation
    site, with a count, reported at the next safe point (``tf.engine().report_leaks()``, a
    later leak after ``leak_report_interval`` seconds, or interpreter exit)."""


class MemoryAlertWarning(UserWarning):
    """Live tensor memory crossed the level set by ``tf.config.set_memory_alert``."""


def from_user_input(exc: TidyTensorError) -> TidyTensorError:
    """Marks ``exc`` as a mistake in the values the user passed (an index past a layer's
    vocabulary...), not a fault inside tidytensor: the public call it escapes from
    (:func:`short_traceback`) re-raises it with a traceback that ends at that call."""
    exc.short_traceback = True  # type: ignore[attr-defined]
    return exc


def short_traceback(fn: _F) -> _F:
    """Decorates a top-level public entry point (``fit``, ``evaluate``, ``predict``, the
    ``*_on_batch`` steps, ``execute``, ``load_layers_model``...): an error marked by
    :func:`from_user_input` leaves it without the frames inside tidytensor, so the user reads
    the message under their own line, not under 30 internal frames. Layer calls keep their
    frames: a layer runs inside other layers and models, and a custom layer's author needs
    the traceback through it."""

    @functools.wraps(fn)
    def entry_point(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except TidyTensorError as exc:
            if not getattr(exc, "short_traceback", False):
                raise
            raise exc.with_traceback(None) from None

    return entry_point  # type: ignore[return-value]
