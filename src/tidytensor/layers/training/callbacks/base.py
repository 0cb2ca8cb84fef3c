"""The callback machinery of ``fit``: the :class:`BaseCallback` interface, :class:`Callback`
(which keeps the model), :class:`CallbackList`, and the two callbacks every ``fit`` adds,
:class:`BaseLogger` (epoch averages) and :class:`History` (what ``fit`` returns)."""

from __future__ import annotations

import contextvars
import inspect
import os
import threading
from typing import Any

from ....tensor import Tensor
from ...engine.container import Container
from ...errors import LayersRuntimeError, LayersValueError

__all__ = ["BaseCallback", "BaseLogger", "Callback", "CallbackList", "History"]


# ----------------------------------------------------------------------------- helpers
def _run_awaitable(aw: Any) -> Any:
    """Runs a coroutine/awaitable to completion from synchronous code (on this thread when
    no event loop runs here, else on a helper thread)."""
    import asyncio  # here, not at import: 26 ms of ``import tidytensor``, for async callbacks

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
        # Every Container is a LayersModel (TF.js checks for LayersModel); importing the
        # models module here would close a circle (models -> trainer -> loops -> callbacks).
        if not isinstance(model, Container):
            raise LayersRuntimeError(
                f"model must be a LayersModel (tf.model or tf.sequential), not a "
                f"{type(model).__name__}"
            )
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
        # The averages go after what the epoch's logs already hold, as in TF.js: with
        # validation, ``val_loss, val_acc, loss, acc`` (the progress bar shows its own order).
        for key in self.params.get("metrics") or []:
            if key in self.totals and self.seen:
                logs[key] = self.totals[key] / self.seen


class History(BaseCallback):
    """Records the epoch logs: ``history`` (``{'val_loss': [...], 'loss': [...]}``, in TF.js's
    key order), ``epoch`` (the epoch indices) and ``params``. ``fit`` returns it.

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
