"""How ``fit`` assembles its callbacks: :func:`standardize_callbacks` reads the
``callbacks`` argument, the :class:`CallbackConstructorRegistry` adds callbacks by verbosity
level (the progress bar), and :func:`configure_callbacks` builds the :class:`CallbackList`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...errors import LayersValueError
from .base import BaseCallback, BaseLogger, CallbackList, History
from .hooks import CustomCallback

__all__ = [
    "CallbackConstructorRegistry",
    "ModelLoggingVerbosity",
    "configure_callbacks",
    "register_callback_constructor",
    "standardize_callbacks",
]


class ModelLoggingVerbosity:
    """``fit(verbose=...)`` levels: 0 silent, 1 progress (2: one line per epoch)."""

    SILENT = 0
    VERBOSE = 1


def standardize_callbacks(callbacks: Any, yield_every: Any = None) -> list[BaseCallback]:
    """A list of callback objects from ``fit``'s ``callbacks`` argument: a callback, a dict
    of hooks, or a list of either."""
    if callbacks is None:
        return []
    items = list(callbacks) if isinstance(callbacks, (list, tuple)) else [callbacks]
    out: list[BaseCallback] = []
    for item in items:
        if isinstance(item, BaseCallback):
            out.append(item)
        elif isinstance(item, dict):
            out.append(CustomCallback(item, yield_every))
        else:
            raise LayersValueError(
                "callbacks must be Callback objects or dicts of hooks such as "
                f"{{'on_epoch_end': fn}}, but got {type(item).__name__}: {item!r}"
            )
    return out


class CallbackConstructorRegistry:
    """Callbacks that ``fit`` adds by verbosity level (how the progress bar is added at
    ``verbose >= 1``)."""

    constructors: dict[int, list[Callable[[], BaseCallback]]] = {}

    @classmethod
    def register_callback_constructor(
        cls, verbosity_level: int, callback_constructor: Callable[[], BaseCallback]
    ) -> None:
        if (
            isinstance(verbosity_level, bool)
            or not isinstance(verbosity_level, int)
            or verbosity_level < 0
        ):
            raise LayersValueError(
                f"Verbosity level is expected to be an integer >= 0, but got {verbosity_level}"
            )
        cls.check_for_duplicate(callback_constructor)
        cls.constructors.setdefault(verbosity_level, []).append(callback_constructor)

    @classmethod
    def check_for_duplicate(cls, callback_constructor: Callable[[], BaseCallback]) -> None:
        for constructors in cls.constructors.values():
            if any(c is callback_constructor for c in constructors):
                raise LayersValueError("Duplicate callback constructor.")

    @classmethod
    def clear(cls) -> None:
        cls.constructors = {}

    @classmethod
    def create_callbacks(cls, verbosity_level: int) -> list[BaseCallback]:
        made: list[BaseCallback] = []
        for level in sorted(cls.constructors):
            if verbosity_level >= level:
                made.extend(ctor() for ctor in cls.constructors[level])
        return made


def register_callback_constructor(
    verbosity_level: int, callback_constructor: Callable[[], BaseCallback]
) -> None:
    """Adds a callback class that ``fit`` instantiates whenever ``verbose >= verbosity_level``
    (``tf.registerCallbackConstructor``)."""
    CallbackConstructorRegistry.register_callback_constructor(verbosity_level, callback_constructor)


def configure_callbacks(
    callbacks: list[BaseCallback] | None,
    verbose: int,
    epochs: int,
    initial_epoch: int | None,
    num_train_samples: int | None,
    steps_per_epoch: int | None,
    batch_size: int | None,
    do_validation: bool,
    callback_metrics: list[str],
) -> tuple[CallbackList, History]:
    """The callback list of one ``fit``: ``BaseLogger``, the registered ones for
    ``verbose``, the user's, then the ``History`` (returned too)."""
    history = History()
    actual: list[BaseCallback] = [
        BaseLogger(),
        *CallbackConstructorRegistry.create_callbacks(verbose),
    ]
    if callbacks:
        actual.extend(callbacks)
    actual.append(history)
    callback_list = CallbackList(actual)
    callback_list.set_params(
        {
            "epochs": epochs,
            "initial_epoch": initial_epoch,
            "samples": num_train_samples,
            "steps": steps_per_epoch,
            "batch_size": batch_size,
            "verbose": verbose,
            "do_validation": do_validation,
            "metrics": callback_metrics,
        }
    )
    return callback_list, history
