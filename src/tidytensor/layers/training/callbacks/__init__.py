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

from .base import BaseCallback, BaseLogger, Callback, CallbackList, History
from .configure import (
    CallbackConstructorRegistry,
    ModelLoggingVerbosity,
    configure_callbacks,
    register_callback_constructor,
    standardize_callbacks,
)
from .hooks import DEFAULT_YIELD_EVERY_MS, CustomCallback, LambdaCallback
from .keras import (
    CSVLogger,
    EarlyStopping,
    ModelCheckpoint,
    ReduceLROnPlateau,
    early_stopping,
    model_checkpoint,
)

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
    "model_checkpoint",
    "register_callback_constructor",
    "standardize_callbacks",
]
