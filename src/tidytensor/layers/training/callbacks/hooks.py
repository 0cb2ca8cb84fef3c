"""Callbacks made of user functions: :class:`CustomCallback` (TF.js's, built from a dict of
hooks, with ``on_yield``) and :class:`LambdaCallback` (Keras's). A hook may take fewer
arguments than it is given and may be a coroutine function."""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from typing import Any

from ....callables import positional_arity
from ...errors import LayersValueError
from .base import BaseCallback, Callback, _is_number, _resolve, _run_awaitable

__all__ = ["DEFAULT_YIELD_EVERY_MS", "CustomCallback", "LambdaCallback"]

#: ``on_yield`` runs at most this often by default (``yield_every='auto'``).
DEFAULT_YIELD_EVERY_MS = 125


class _Hook:
    """A user function called with as many of the hook's arguments as it takes."""

    __slots__ = ("arity", "fn")

    def __init__(self, fn: Callable, name: str):
        if not callable(fn):
            raise LayersValueError(
                f"Callback hook {name} must be a function, but got {type(fn).__name__}: {fn!r}"
            )
        self.fn = fn
        self.arity = positional_arity(fn)

    def __call__(self, *args: Any) -> Any:
        if self.arity is not None:
            args = args[: self.arity]
        result = self.fn(*args)
        if inspect.isawaitable(result):
            result = _run_awaitable(result)
        return result


class CustomCallback(BaseCallback):
    """A callback made of hook functions (TF.js's ``CustomCallback``): keyword arguments or
    a dict, snake_case or TF.js's camelCase keys.

    Args:
        args: a dict of hooks (``{'on_epoch_end': fn}`` or ``{'onEpochEnd': fn}``).
        yield_every: how often ``on_yield(epoch, batch, logs)`` runs: ``'auto'`` (every
            125 ms), ``'batch'``, ``'epoch'``, ``'never'`` or a number of milliseconds.
        **hooks: hooks as keyword arguments (``on_epoch_end=fn``).
    """

    _HOOKS = {
        "on_train_begin": "onTrainBegin",
        "on_train_end": "onTrainEnd",
        "on_epoch_begin": "onEpochBegin",
        "on_epoch_end": "onEpochEnd",
        "on_batch_begin": "onBatchBegin",
        "on_batch_end": "onBatchEnd",
        "on_yield": "onYield",
    }
    _OPTIONS = {"now_func": "nowFunc", "next_frame_func": "nextFrameFunc"}

    def __init__(self, args: dict[str, Any] | None = None, yield_every: Any = None, **hooks: Any):
        super().__init__()
        given = dict(args or {})
        given.update(hooks)
        camel_to_snake = {v: k for k, v in {**self._HOOKS, **self._OPTIONS}.items()}
        resolved: dict[str, Any] = {}
        for key, value in given.items():
            name = camel_to_snake.get(key, key)
            if name not in self._HOOKS and name not in self._OPTIONS:
                raise LayersValueError(
                    f"Unknown callback hook {key!r}: expected one of "
                    f"{', '.join(self._HOOKS)} (or TF.js's camelCase names)"
                )
            if value is not None:
                resolved[name] = value
        self.current_epoch = 0
        self.now_func: Callable[[], float] = resolved.get("now_func") or (
            lambda: time.perf_counter() * 1000.0
        )
        self.next_frame_func: Callable[[], Any] = resolved.get("next_frame_func") or (lambda: None)
        self.yield_every: Any = "auto" if yield_every is None else yield_every
        if self.yield_every == "auto":
            self.yield_every = DEFAULT_YIELD_EVERY_MS
        if self.yield_every == "never" and resolved.get("on_yield") is not None:
            raise LayersValueError(
                "yield_every is `never` but you provided an `on_yield` callback. Either change "
                "`yield_every` or remove the callback"
            )
        if not (
            self.yield_every in ("batch", "epoch", "never")
            or (_is_number(self.yield_every) and self.yield_every >= 0)
        ):
            raise LayersValueError(
                f"yield_every must be 'auto', 'batch', 'epoch', 'never' or a number of "
                f"milliseconds, but got {self.yield_every!r}"
            )
        self._last_wait: float | None = None
        hook = {name: _Hook(fn, name) for name, fn in resolved.items() if name in self._HOOKS}
        self.train_begin = hook.get("on_train_begin")
        self.train_end = hook.get("on_train_end")
        self.epoch_begin = hook.get("on_epoch_begin")
        self.epoch_end = hook.get("on_epoch_end")
        self.batch_begin = hook.get("on_batch_begin")
        self.batch_end = hook.get("on_batch_end")
        self.yield_ = hook.get("on_yield")

    def maybe_wait(self, epoch: int, batch: int, logs: dict[str, Any]) -> None:
        """Calls ``on_yield`` (and the frame function) at most once every ``yield_every``
        milliseconds."""
        now = self.now_func()
        if self._last_wait is not None and now - self._last_wait < self.yield_every:
            return
        self._last_wait = now
        if self.yield_ is not None:
            self.yield_(epoch, batch, logs)
        _resolve(self.next_frame_func())

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self.current_epoch = epoch
        if self.epoch_begin is not None:
            self.epoch_begin(epoch, logs)

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        if self.epoch_end is not None:
            self.epoch_end(epoch, logs)
        if self.yield_every == "epoch":
            _resolve(self.next_frame_func())

    def on_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        if self.batch_begin is not None:
            self.batch_begin(batch, logs)

    def on_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        if self.batch_end is not None:
            self.batch_end(batch, logs)
        if self.yield_every == "batch":
            _resolve(self.next_frame_func())
        elif _is_number(self.yield_every):
            self.maybe_wait(self.current_epoch, batch, logs or {})

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        if self.train_begin is not None:
            self.train_begin(logs)

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        if self.train_end is not None:
            self.train_end(logs)


class LambdaCallback(Callback):
    """A callback from plain functions (Keras's ``LambdaCallback``): ``on_epoch_begin`` /
    ``on_epoch_end`` get ``(epoch, logs)``, ``on_batch_begin`` / ``on_batch_end`` get
    ``(batch, logs)``, ``on_train_begin`` / ``on_train_end`` get ``(logs)``."""

    def __init__(
        self,
        on_epoch_begin: Callable | None = None,
        on_epoch_end: Callable | None = None,
        on_batch_begin: Callable | None = None,
        on_batch_end: Callable | None = None,
        on_train_begin: Callable | None = None,
        on_train_end: Callable | None = None,
    ):
        super().__init__()
        self._hooks = {
            name: _Hook(fn, name)
            for name, fn in (
                ("on_epoch_begin", on_epoch_begin),
                ("on_epoch_end", on_epoch_end),
                ("on_batch_begin", on_batch_begin),
                ("on_batch_end", on_batch_end),
                ("on_train_begin", on_train_begin),
                ("on_train_end", on_train_end),
            )
            if fn is not None
        }

    def _call(self, name: str, *args: Any) -> None:
        hook = self._hooks.get(name)
        if hook is not None:
            hook(*args)

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._call("on_epoch_begin", epoch, logs)

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._call("on_epoch_end", epoch, logs)

    def on_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._call("on_batch_begin", batch, logs)

    def on_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._call("on_batch_end", batch, logs)

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._call("on_train_begin", logs)

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        self._call("on_train_end", logs)
