"""Keras's classic callbacks: :class:`EarlyStopping` (also TF.js's
``tf.callbacks.earlyStopping``), :class:`ModelCheckpoint`, :class:`ReduceLROnPlateau` and
:class:`CSVLogger`."""

from __future__ import annotations

import csv
import math
import os
import warnings
from collections.abc import Callable
from typing import Any

from .... import ops
from ...errors import LayersNotImplementedError, LayersRuntimeError, LayersValueError
from .base import Callback, _number

__all__ = [
    "CSVLogger",
    "EarlyStopping",
    "ModelCheckpoint",
    "ReduceLROnPlateau",
    "early_stopping",
    "model_checkpoint",
]


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
    """Saves the model (``model.save(path)``, TF.js's format) or, with ``save_weights_only``,
    its weights (``model.save_weights(path)``, a checkpoint ``tf.train.latest_checkpoint``
    finds) after each epoch, or only when ``monitor`` improves with ``save_best_only``
    (Keras's callback; ``tf.callbacks.model_checkpoint(...)`` makes one).

    Args:
        filepath: where to save; may hold ``{epoch}`` (1-based) and log keys, formatted with
            ``str.format`` (``'ckpt/e{epoch:02d}-{val_loss:.3f}'``).
        monitor: the log key that decides "best" (default ``'val_loss'``).
        verbose: 1 prints a line per save.
        save_best_only: save only when ``monitor`` improves.
        mode: ``'min'``, ``'max'`` or ``'auto'`` (max when ``monitor`` contains ``'acc'``).
        save_freq: ``'epoch'``, or a number of batches between saves.
        include_optimizer: also save the optimizer's state (whole-model saves).
        save_weights_only: save the weights only (``model.save_weights``): a checkpoint
            (``'training/cp-{epoch:04d}.ckpt'``, found by ``tf.train.latest_checkpoint``) or,
            for a ``'.weights.h5'`` path, Keras 3's weights file.
        initial_value_threshold: the value of ``monitor`` a first save must beat
            (``save_best_only``).
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
        save_weights_only: bool = False,
        initial_value_threshold: float | None = None,
    ):
        super().__init__()
        self.filepath = os.fspath(filepath)
        self.monitor = monitor
        self.verbose = verbose
        self.save_best_only = bool(save_best_only)
        self.mode = _monitor_mode("ModelCheckpoint", mode, monitor)
        self.include_optimizer = bool(include_optimizer)
        self.save_weights_only = bool(save_weights_only)
        if save_freq != "epoch" and not (
            isinstance(save_freq, int) and not isinstance(save_freq, bool) and save_freq > 0
        ):
            raise LayersValueError(
                f"ModelCheckpoint: save_freq must be 'epoch' or a positive number of batches, "
                f"but got {save_freq!r}"
            )
        self.save_freq = save_freq
        self.best = math.inf if self.mode == "min" else -math.inf
        if initial_value_threshold is not None:
            self.best = float(initial_value_threshold)
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
        method = "save_weights" if self.save_weights_only else "save"
        save = getattr(self.model, method, None)
        if save is None:
            raise LayersNotImplementedError(
                f"ModelCheckpoint needs model.{method}(), which {type(self.model).__name__} "
                "does not have"
            )
        if self.save_weights_only:
            save(path)
        elif self.include_optimizer:
            save(path, include_optimizer=True)
        else:
            save(path)
        self.saved.append(path)


def model_checkpoint(**kwargs: Any) -> ModelCheckpoint:
    """A :class:`ModelCheckpoint` callback (Keras's arguments; the seeds' checkpoint workflow).

    >>> cb = model_checkpoint(filepath='training/cp-{epoch:04d}.ckpt', save_weights_only=True)
    >>> cb.save_weights_only, cb.monitor
    (True, 'val_loss')
    """
    return ModelCheckpoint(**kwargs)


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
