"""Training callbacks (TF.js's ``base_callbacks.ts`` and ``callbacks.ts``, plus Keras's
classic callbacks).

``fit(callbacks=...)`` takes callback objects, TF.js-style dicts of hooks, or a list mixing
both::

    model.fit(x, y, callbacks={'on_epoch_end': lambda epoch, logs: print(epoch, logs)})
    model.fit(x, y, callbacks=[tf.callbacks.early_stopping(patience=2), CSVLogger('log.csv')])

Hook names are snake_case (``on_train_begin``, ``on_train_end``, ``on_epoch_begin``,
``on_epoch_end``, ``on_batch_begin``, ``on_batch_end``, ``on_yield``); TF.js's camelCase
keys (``onEpochEnd``) are accepted in dicts too. A hook may take fewer arguments than it
is given (``lambda epoch: ...``) and may be a coroutine function (it is run to completion).
Logs hold plain Python numbers: ``{'loss': 0.25, 'acc': 0.5, 'val_loss': 0.3}``.

>>> calls = []
>>> cb = CustomCallback(on_epoch_end=lambda epoch, logs: calls.append((epoch, logs['loss'])))
>>> cb.on_epoch_end(0, {'loss': 0.5})
>>> calls
[(0, 0.5)]
"""

from __future__ import annotations

import asyncio
import contextvars
import csv
import inspect
import math
import os
import threading
import time
import warnings
from collections.abc import Callable
from typing import Any

from ..tensor import Tensor
from .errors import LayersNotImplementedError, LayersRuntimeError, LayersValueError

__all__ = [
    "BaseCallback",
    "BaseLogger",
    "CSVLogger",
    "Callback",
    "CallbackConstructorRegistry",
    "CallbackList",
    "CustomCallback",
    "DEFAULT_YIELD_EVERY_MS",
    "EarlyStopping",
    "History",
    "LambdaCallback",
    "ModelCheckpoint",
    "ModelLoggingVerbosity",
    "ReduceLROnPlateau",
    "configure_callbacks",
    "early_stopping",
    "register_callback_constructor",
    "standardize_callbacks",
]

#: ``on_yield`` runs at most this often by default (``yield_every='auto'``).
DEFAULT_YIELD_EVERY_MS = 125


class ModelLoggingVerbosity:
    """``fit(verbose=...)`` levels: 0 silent, 1 progress (2: one line per epoch)."""

    SILENT = 0
    VERBOSE = 1


# ----------------------------------------------------------------------------- helpers
def _run_awaitable(aw: Any) -> Any:
    """Runs a coroutine/awaitable to completion from synchronous code (on this thread when
    no event loop runs here, else on a helper thread)."""

    async def wrap() -> Any:
        return await aw

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(wrap())
    box: dict[str, Any] = {}
    ctx = contextvars.copy_context()

    def target() -> None:
        try:
            box["result"] = ctx.run(asyncio.run, wrap())
        except BaseException as exc:  # noqa: BLE001 - re-raised on the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=target, name="tidytensor-callback")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box.get("result")


def _positional_arity(fn: Callable) -> int | None:
    """How many positional arguments ``fn`` accepts (None: any number)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    count = 0
    for p in sig.parameters.values():
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            return None
        if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            count += 1
    return count


class _Hook:
    """A user function called with as many of the hook's arguments as it takes."""

    __slots__ = ("arity", "fn")

    def __init__(self, fn: Callable, name: str):
        if not callable(fn):
            raise LayersValueError(
                f"Callback hook {name} must be a function, but got {type(fn).__name__}: {fn!r}"
            )
        self.fn = fn
        self.arity = _positional_arity(fn)

    def __call__(self, *args: Any) -> Any:
        if self.arity is not None:
            args = args[: self.arity]
        result = self.fn(*args)
        if inspect.isawaitable(result):
            result = _run_awaitable(result)
        return result


def _resolve(result: Any) -> Any:
    return _run_awaitable(result) if inspect.isawaitable(result) else result


def _number(value: Any) -> Any:
    """A log value as a Python number (a scalar tensor is read, not disposed)."""
    if isinstance(value, Tensor):
        return float(value.data_sync()[0])
    return value


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# ----------------------------------------------------------------------------- bases
class BaseCallback:
    """The interface of every callback: ``set_params``, ``set_model`` and the ``on_*``
    hooks, each a no-op here. ``params`` holds ``epochs``, ``initial_epoch``, ``samples``,
    ``steps``, ``batch_size``, ``verbose``, ``do_validation`` and ``metrics`` (the log keys).

    Keras's ``on_train_batch_begin`` / ``on_train_batch_end`` are called by the default
    ``on_batch_begin`` / ``on_batch_end``, so Keras-style subclasses work unchanged.
    """

    def __init__(self) -> None:
        self.validation_data: Any = None
        self.params: dict[str, Any] = {}

    def set_params(self, params: dict[str, Any]) -> None:
        self.params = params

    def set_model(self, model: Any) -> None:
        """Does nothing here; :class:`Callback` keeps the model."""

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> Any:
        pass

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> Any:
        pass

    def on_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> Any:
        return self.on_train_batch_begin(batch, logs)

    def on_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> Any:
        return self.on_train_batch_end(batch, logs)

    def on_train_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> Any:
        pass

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> Any:
        pass

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> Any:
        pass

    def on_train_end(self, logs: dict[str, Any] | None = None) -> Any:
        pass


class Callback(BaseCallback):
    """A callback that keeps the model it trains (``self.model``, a ``LayersModel``)."""

    def __init__(self) -> None:
        super().__init__()
        self.model: Any = None

    def set_model(self, model: Any) -> None:
        from .models import LayersModel

        if not isinstance(model, LayersModel):
            raise LayersRuntimeError("model must be a LayersModel, not some other Container")
        self.model = model


class CallbackList:
    """Calls each callback's hook in order (TF.js's ``CallbackList``)."""

    def __init__(self, callbacks: list[BaseCallback] | None = None, queue_length: int = 10):
        self.callbacks: list[BaseCallback] = list(callbacks) if callbacks is not None else []
        self.queue_length = queue_length

    def append(self, callback: BaseCallback) -> None:
        self.callbacks.append(callback)

    def set_params(self, params: dict[str, Any]) -> None:
        for callback in self.callbacks:
            callback.set_params(params)

    def set_model(self, model: Any) -> None:
        for callback in self.callbacks:
            callback.set_model(model)

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        logs = {} if logs is None else logs
        for callback in self.callbacks:
            _resolve(callback.on_epoch_begin(epoch, logs))

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        logs = {} if logs is None else logs
        for callback in self.callbacks:
            _resolve(callback.on_epoch_end(epoch, logs))

    def on_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        logs = {} if logs is None else logs
        for callback in self.callbacks:
            _resolve(callback.on_batch_begin(batch, logs))

    def on_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        logs = {} if logs is None else logs
        for callback in self.callbacks:
            _resolve(callback.on_batch_end(batch, logs))

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        logs = {} if logs is None else logs
        for callback in self.callbacks:
            _resolve(callback.on_train_begin(logs))

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        logs = {} if logs is None else logs
        for callback in self.callbacks:
            _resolve(callback.on_train_end(logs))


class BaseLogger(BaseCallback):
    """Averages the batch logs over each epoch (weighted by batch size) into the epoch
    logs, for every key in ``params['metrics']`` (always the first callback of ``fit``)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen = 0
        self.totals: dict[str, float] = {}

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self.seen = 0
        self.totals = {}

    def on_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        logs = logs or {}
        size = logs.get("size") or 0
        self.seen += size
        for key, value in logs.items():
            value = _number(value)
            if _is_number(value):
                self.totals[key] = self.totals.get(key, 0.0) + value * size

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        if logs is None:
            return
        keys = self.params.get("metrics") or []
        for key in keys:
            if key in self.totals and self.seen:
                logs[key] = self.totals[key] / self.seen
        # Keras's order: the metrics in ``params['metrics']`` order, then anything else.
        ordered = {k: logs[k] for k in keys if k in logs}
        ordered.update((k, v) for k, v in logs.items() if k not in ordered)
        logs.clear()
        logs.update(ordered)


class History(BaseCallback):
    """Records the epoch logs: ``history`` (``{'loss': [...], 'val_loss': [...]}``),
    ``epoch`` (the epoch indices) and ``params``. ``fit`` returns it.

    >>> h = History(); h.on_train_begin()
    >>> h.on_epoch_end(0, {'loss': 0.5}); h.on_epoch_end(1, {'loss': 0.25})
    >>> h.epoch, h.history
    ([0, 1], {'loss': [0.5, 0.25]})
    """

    def __init__(self) -> None:
        super().__init__()
        self.epoch: list[int] = []
        self.history: dict[str, list[Any]] = {}

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self.epoch = []
        self.history = {}

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self.epoch.append(epoch)
        for key, value in (logs or {}).items():
            self.history.setdefault(key, []).append(value)

    def sync_data(self) -> None:
        """Turns any scalar tensors recorded into numbers (disposing the tensors)."""
        for values in self.history.values():
            for i, value in enumerate(values):
                if isinstance(value, Tensor):
                    values[i] = float(value.data_sync()[0])
                    value.dispose()

    def __repr__(self) -> str:
        return f"History(epoch={self.epoch}, history={self.history})"

    def plot(
        self,
        path: str | os.PathLike | None = None,
        metrics: list[str] | None = None,
        title: str | None = None,
    ) -> Any:
        """Draws each metric per epoch (training and ``val_`` curves together, one panel per
        metric) and saves the figure to ``path`` (PNG unless the extension says otherwise).
        Returns the matplotlib ``Figure``. Needs matplotlib: ``pip install tidytensor[viz]``.

        Args:
            path: where to save the figure (not saved when None).
            metrics: the metrics to draw (default: every key, ``val_`` keys with theirs).
            title: a title for the whole figure.
        """
        try:
            from matplotlib.backends.backend_agg import FigureCanvasAgg
            from matplotlib.figure import Figure
            from matplotlib.ticker import MaxNLocator
        except ImportError as exc:
            raise ImportError(
                "History.plot() draws with matplotlib, which is not installed: "
                "pip install tidytensor[viz]"
            ) from exc
        if not self.history:
            raise LayersValueError("History.plot(): nothing to plot (no epoch has ended yet).")
        if metrics is None:
            metrics = []
            for key in self.history:
                base = key[4:] if key.startswith("val_") else key
                if base not in metrics:
                    metrics.append(base)
        else:
            for m in metrics:
                if m not in self.history and "val_" + m not in self.history:
                    raise LayersValueError(
                        f"History.plot(): no metric {m!r} in the history (it has "
                        f"{', '.join(self.history)})"
                    )
        fig = Figure(figsize=(5.0 * len(metrics), 3.6), layout="constrained")
        FigureCanvasAgg(fig)
        axes = fig.subplots(1, len(metrics), squeeze=False)[0]
        epochs = [e + 1 for e in self.epoch]
        for ax, name in zip(axes, metrics, strict=False):
            for key, label, style in (
                (name, "training", "-o"),
                ("val_" + name, "validation", "--s"),
            ):
                values = self.history.get(key)
                if values:
                    ax.plot(
                        epochs[: len(values)],
                        [_number(v) for v in values],
                        style,
                        label=label,
                        markersize=3,
                    )
            ax.set_title(name)
            ax.set_xlabel("epoch")
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.grid(True, alpha=0.3)
            ax.legend()
        if title:
            fig.suptitle(title)
        if path is not None:
            fig.savefig(os.fspath(path))
        return fig


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
                "yieldEvery is `never` but you provided an `onYield` callback. Either change "
                "`yieldEvery` or remove the callback"
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


# ----------------------------------------------------------------------- monitoring
def _monitor_mode(name: str, mode: str, monitor: str) -> str:
    if mode not in ("auto", "min", "max"):
        warnings.warn(
            f"{name} mode '{mode}' is invalid. Falling back to mode 'auto'.", stacklevel=3
        )
        mode = "auto"
    if mode == "auto":
        mode = "max" if "acc" in monitor else "min"
    return mode


def _monitor_value(name: str, monitor: str, logs: dict[str, Any] | None) -> Any:
    logs = logs or {}
    value = _number(logs.get(monitor))
    if value is None:
        warnings.warn(
            f"Metric for {name} {monitor} is not available. Available metrics are: "
            f"{','.join(logs)}",
            stacklevel=3,
        )
    return value


class EarlyStopping(Callback):
    """Stops training when ``monitor`` stops improving (``tf.callbacks.earlyStopping``).

    Args:
        monitor: the log key to watch (default ``'val_loss'``).
        min_delta: smallest change that counts as an improvement.
        patience: epochs without improvement before stopping.
        verbose: 1 prints the epoch at which training stopped.
        mode: ``'min'``, ``'max'`` or ``'auto'`` (max when ``monitor`` contains ``'acc'``).
        baseline: a value to beat; training stops if it is not beaten within ``patience``.
        restore_best_weights: when stopping, put back the weights of the best epoch (Keras's
            option; TF.js raises NotImplemented). The best weights are kept as host copies,
            so no tensor is held while training.
    """

    def __init__(
        self,
        monitor: str = "val_loss",
        min_delta: float = 0,
        patience: int = 0,
        verbose: int = 0,
        mode: str = "auto",
        baseline: float | None = None,
        restore_best_weights: bool = False,
    ):
        super().__init__()
        self.monitor = monitor or "val_loss"
        self.min_delta = abs(min_delta or 0)
        self.patience = patience or 0
        self.verbose = verbose or 0
        self.mode = _monitor_mode("EarlyStopping", mode or "auto", self.monitor)
        self.baseline = baseline
        self.restore_best_weights = bool(restore_best_weights)
        self.monitor_func: Callable[[float, float], bool] = (
            (lambda a, b: a > b) if self.mode == "max" else (lambda a, b: a < b)
        )
        if self.mode == "min":
            self.min_delta *= -1
        self.wait = 0
        self.stopped_epoch = 0
        self.best: float = math.inf
        self.best_epoch: int | None = None
        self.best_weights: list[Any] | None = None

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self.wait = 0
        self.stopped_epoch = 0
        self.best_epoch = None
        self.best_weights = None
        if self.baseline is not None:
            self.best = self.baseline
        else:
            self.best = math.inf if self.mode == "min" else -math.inf

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        current = _monitor_value("EarlyStopping", self.monitor, logs)
        if current is None:
            return
        if self.monitor_func(current - self.min_delta, self.best):
            self.best = current
            self.wait = 0
            self.best_epoch = epoch
            if self.restore_best_weights:
                self.best_weights = [w.numpy() for w in self.model.get_weights()]
        else:
            self.wait += 1
            if self.wait >= self.patience:
                self.stopped_epoch = epoch
                self.model.stop_training = True
                if self.restore_best_weights and self.best_weights is not None:
                    if self.verbose:
                        print(
                            "Restoring model weights from the end of the best epoch: "
                            f"{self.best_epoch + 1}."
                        )
                    _set_weights_from_arrays(self.model, self.best_weights)

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        if self.stopped_epoch > 0 and self.verbose:
            print(f"Epoch {self.stopped_epoch}: early stopping.")


def _set_weights_from_arrays(model: Any, arrays: list[Any]) -> None:
    from .. import ops

    tensors = [ops.tensor(a) for a in arrays]
    try:
        model.set_weights(tensors)
    finally:
        for t in tensors:
            t.dispose()


def early_stopping(**kwargs: Any) -> EarlyStopping:
    """An :class:`EarlyStopping` callback (``tf.callbacks.earlyStopping``).

    >>> cb = early_stopping(monitor='val_acc', patience=2)
    >>> cb.mode, cb.patience
    ('max', 2)
    """
    if kwargs.get("restore_best_weights") is None:
        kwargs.pop("restore_best_weights", None)
    return EarlyStopping(**kwargs)


class ModelCheckpoint(Callback):
    """Saves the model (``model.save(path)``, TF.js's format) after each epoch, or only when
    ``monitor`` improves with ``save_best_only``.

    Args:
        filepath: where to save; may hold ``{epoch}`` (1-based) and log keys, formatted with
            ``str.format`` (``'ckpt/e{epoch:02d}-{val_loss:.3f}'``).
        monitor: the log key that decides "best" (default ``'val_loss'``).
        verbose: 1 prints a line per save.
        save_best_only: save only when ``monitor`` improves.
        mode: ``'min'``, ``'max'`` or ``'auto'`` (max when ``monitor`` contains ``'acc'``).
        save_freq: ``'epoch'``, or a number of batches between saves.
        include_optimizer: also save the optimizer's state.
    """

    def __init__(
        self,
        filepath: str | os.PathLike,
        monitor: str = "val_loss",
        verbose: int = 0,
        save_best_only: bool = False,
        mode: str = "auto",
        save_freq: Any = "epoch",
        include_optimizer: bool = False,
    ):
        super().__init__()
        self.filepath = os.fspath(filepath)
        self.monitor = monitor
        self.verbose = verbose
        self.save_best_only = bool(save_best_only)
        self.mode = _monitor_mode("ModelCheckpoint", mode, monitor)
        self.include_optimizer = bool(include_optimizer)
        if save_freq != "epoch" and not (
            isinstance(save_freq, int) and not isinstance(save_freq, bool) and save_freq > 0
        ):
            raise LayersValueError(
                f"ModelCheckpoint: save_freq must be 'epoch' or a positive number of batches, "
                f"but got {save_freq!r}"
            )
        self.save_freq = save_freq
        self.best = math.inf if self.mode == "min" else -math.inf
        self.saved: list[str] = []
        self._batches = 0
        self._epoch = 0

    def _better(self, current: float) -> bool:
        return current < self.best if self.mode == "min" else current > self.best

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._batches = 0

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._epoch = epoch

    def on_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        if self.save_freq == "epoch":
            return
        self._batches += 1
        if self._batches % self.save_freq == 0:
            self._save(self._epoch, logs)

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        if self.save_freq == "epoch":
            self._save(epoch, logs)

    def _save(self, epoch: int, logs: dict[str, Any] | None) -> None:
        logs = dict(logs or {})
        try:
            path = self.filepath.format(epoch=epoch + 1, **logs)
        except (KeyError, IndexError, ValueError) as exc:
            raise LayersValueError(
                f"ModelCheckpoint: cannot format filepath {self.filepath!r} with epoch and the "
                f"logs ({', '.join(logs)}): {exc}"
            ) from exc
        if self.save_best_only:
            current = _monitor_value("ModelCheckpoint", self.monitor, logs)
            if current is None:
                return
            if not self._better(current):
                if self.verbose:
                    print(
                        f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {self.best:.5f}"
                    )
                return
            if self.verbose:
                print(
                    f"\nEpoch {epoch + 1}: {self.monitor} improved from {self.best:.5f} to "
                    f"{current:.5f}, saving model to {path}"
                )
            self.best = current
        elif self.verbose:
            print(f"\nEpoch {epoch + 1}: saving model to {path}")
        save = getattr(self.model, "save", None)
        if save is None:
            raise LayersNotImplementedError(
                f"ModelCheckpoint needs model.save(), which {type(self.model).__name__} does "
                "not have"
            )
        if self.include_optimizer:
            save(path, include_optimizer=True)
        else:
            save(path)
        self.saved.append(path)


class ReduceLROnPlateau(Callback):
    """Multiplies the optimizer's learning rate by ``factor`` when ``monitor`` has not
    improved for ``patience`` epochs (Keras's callback). The current rate is added to the
    epoch logs as ``learning_rate``.

    Args:
        monitor: the log key to watch (default ``'val_loss'``).
        factor: the multiplier, below 1.
        patience: epochs without improvement before reducing.
        verbose: 1 prints each reduction.
        mode: ``'min'``, ``'max'`` or ``'auto'``.
        min_delta: smallest change that counts as an improvement.
        cooldown: epochs to wait after a reduction before counting again.
        min_lr: the rate never goes below this.
    """

    def __init__(
        self,
        monitor: str = "val_loss",
        factor: float = 0.1,
        patience: int = 10,
        verbose: int = 0,
        mode: str = "auto",
        min_delta: float = 1e-4,
        cooldown: int = 0,
        min_lr: float = 0.0,
    ):
        super().__init__()
        if factor >= 1.0:
            raise LayersValueError(
                f"ReduceLROnPlateau does not support a factor >= 1.0 (got {factor})."
            )
        self.monitor = monitor
        self.factor = factor
        self.patience = patience
        self.verbose = verbose
        self.mode = _monitor_mode("ReduceLROnPlateau", mode, monitor)
        self.min_delta = min_delta
        self.cooldown = cooldown
        self.min_lr = min_lr
        self._reset()

    def _reset(self) -> None:
        self.best = math.inf if self.mode == "min" else -math.inf
        self.wait = 0
        self.cooldown_counter = 0

    def _improved(self, current: float) -> bool:
        if self.mode == "min":
            return current < self.best - self.min_delta
        return current > self.best + self.min_delta

    def _optimizer(self) -> Any:
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is None or not hasattr(optimizer, "learning_rate"):
            raise LayersRuntimeError(
                "ReduceLROnPlateau needs a compiled model whose optimizer has a learning_rate"
            )
        return optimizer

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._reset()

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        optimizer = self._optimizer()
        if logs is not None:
            logs["learning_rate"] = float(optimizer.learning_rate)
        current = _monitor_value("ReduceLROnPlateau", self.monitor, logs)
        if current is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self._improved(current):
            self.best = current
            self.wait = 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                old_lr = float(optimizer.learning_rate)
                if old_lr > self.min_lr:
                    new_lr = max(old_lr * self.factor, self.min_lr)
                    if hasattr(optimizer, "set_learning_rate"):
                        optimizer.set_learning_rate(new_lr)
                    else:
                        optimizer.learning_rate = new_lr
                    if self.verbose:
                        print(
                            f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning rate "
                            f"to {new_lr}."
                        )
                    self.cooldown_counter = self.cooldown
                    self.wait = 0


class CSVLogger(Callback):
    """Writes one CSV row per epoch: ``epoch`` then the log keys in sorted order.

    Args:
        filename: the CSV file.
        separator: the field separator.
        append: add to an existing file (no second header) instead of overwriting it.
    """

    def __init__(self, filename: str | os.PathLike, separator: str = ",", append: bool = False):
        super().__init__()
        self.filename = os.fspath(filename)
        self.separator = separator
        self.append = append
        self.keys: list[str] | None = None
        self._file: Any = None
        self._writer: Any = None
        self._needs_header = True

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._needs_header = True
        self.keys = None
        if self.append and os.path.exists(self.filename):
            with open(self.filename, encoding="utf-8") as f:
                self._needs_header = not f.read(1)
        self._file = open(self.filename, "a" if self.append else "w", newline="", encoding="utf-8")  # noqa: SIM115
        self._writer = csv.writer(self._file, delimiter=self.separator, lineterminator="\n")

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs)
        if self._needs_header:
            self._writer.writerow(["epoch", *self.keys])
            self._needs_header = False
        self._writer.writerow([epoch, *(_number(logs.get(k, "NA")) for k in self.keys)])
        self._file.flush()

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
            self._writer = None


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
