"""The ``fit`` and ``evaluate`` loops over in-memory tensors (``model.fit``,
``model.evaluate``): argument checks, validation split or data, per-epoch shuffling, batches
run inside ``tf.tidy``, and callbacks fed with Python numbers."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ... import ops
from ...engine import ENGINE
from ...scopes import dispose, tidy
from ...tensor import Tensor
from .. import backend as K
from ..engine.input_data import (
    check_batch_size,
    make_batches,
    slice_arrays,
    slice_arrays_by_indices,
)
from ..errors import LayersNotImplementedError, LayersRuntimeError, LayersValueError
from ..utils import singleton_or_array
from . import progress as _progress  # noqa: F401 - registers the progress bar for verbose >= 1
from .args import _check_epochs, _check_kwargs, _check_verbose
from .callbacks import BaseCallback, History, configure_callbacks, standardize_callbacks
from .inputs import (
    _dispose_new,
    _ensure_tensors,
    standardize_user_data,
    standardize_user_data_xy,
)
from .progress import format_metrics
from .steps import (
    _numbers,
    _test_loop,
    get_deduped_metrics_names,
    test_function_of,
    train_function_of,
)

__all__ = [
    "evaluate",
    "fit",
]


_FIT_ARGS = [
    "batch_size",
    "epochs",
    "verbose",
    "callbacks",
    "validation_split",
    "validation_data",
    "shuffle",
    "class_weight",
    "sample_weight",
    "initial_epoch",
    "steps_per_epoch",
    "validation_steps",
    "yield_every",
]


def fit(
    model: Any,
    x: Any,
    y: Any,
    batch_size: int | None = None,
    epochs: int | None = None,
    verbose: int | None = None,
    callbacks: Any = None,
    validation_split: float | None = None,
    validation_data: Any = None,
    shuffle: Any = None,
    class_weight: Any = None,
    sample_weight: Any = None,
    initial_epoch: int | None = None,
    steps_per_epoch: int | None = None,
    validation_steps: int | None = None,
    yield_every: Any = None,
    **kwargs: Any,
) -> History:
    """Trains ``model`` on ``x``, ``y`` (``model.fit``); returns a :class:`History`.

    Arguments and errors: :meth:`.trainer.Trainer.fit` (the method that calls this).
    """
    _check_kwargs("fit", kwargs, _FIT_ARGS)
    if model.is_training:
        raise LayersRuntimeError("Cannot start training because another fit() call is ongoing.")
    model.is_training = True
    made: list[Tensor] = []
    inputs = targets = original_inputs = original_targets = None
    val_x = val_y = input_val_x = input_val_y = None
    sample_weights = None
    try:
        batch_size = 32 if batch_size is None else batch_size
        check_batch_size(batch_size)
        epochs = _check_epochs(1 if epochs is None else epochs)
        initial_epoch = _check_epochs(
            0 if initial_epoch is None else initial_epoch, "initial_epoch"
        )
        verbose = _check_verbose(verbose)
        if shuffle == "batch":
            raise LayersNotImplementedError("batch shuffling is not implemented yet")
        shuffle = True if shuffle is None else bool(shuffle)
        if steps_per_epoch is not None:
            raise LayersNotImplementedError("steps_per_epoch mode is not implemented yet.")
        if validation_steps is not None:
            raise LayersValueError(
                "Can only use `validation_steps` when doing step-wise training, i.e., "
                "`steps_per_epoch` must be set."
            )
        if validation_split is not None and not (
            isinstance(validation_split, (int, float)) and 0 <= validation_split < 1
        ):
            raise LayersValueError(
                f"validation_split must be a number in [0, 1), but got {validation_split!r}"
            )
        x, made_x = _ensure_tensors(x)
        y, made_y = _ensure_tensors(y)
        made += made_x + made_y
        inputs, targets, sample_weights = standardize_user_data(
            model, x, y, sample_weight, class_weight, False, batch_size
        )
        do_validation = False
        val_ins: list[Tensor] = []
        if validation_data is not None and len(validation_data) > 0:
            do_validation = True
            if len(validation_data) == 2:
                input_val_x, made_vx = _ensure_tensors(validation_data[0])
                input_val_y, made_vy = _ensure_tensors(validation_data[1])
                made += made_vx + made_vy
            elif len(validation_data) == 3:
                raise LayersNotImplementedError(
                    "validation_data including sample weights is not supported yet."
                )
            else:
                raise LayersValueError(
                    "When passing validation data, it must contain 2 (val_x, val_y) or 3 (val_x, "
                    f"val_y, val_sample_weight) items; {validation_data!r} is invalid."
                )
            val_x, val_y = standardize_user_data_xy(
                model, input_val_x, input_val_y, True, batch_size
            )
            val_ins = val_x + val_y
        elif validation_split is not None and 0 < validation_split < 1:
            do_validation = True
            num = inputs[0].shape[0]
            split_at = int(num * (1 - validation_split))
            original_inputs, original_targets = inputs, targets
            val_x = slice_arrays(inputs, split_at, num)
            inputs = slice_arrays(original_inputs, 0, split_at)
            val_y = slice_arrays(targets, split_at, num)
            targets = slice_arrays(original_targets, 0, split_at)
            val_ins = val_x + val_y
        ins = inputs + targets + (sample_weights or [None] * len(targets))
        model.check_trainable_weights_consistency()
        train_function = train_function_of(model)
        out_labels = get_deduped_metrics_names(model)
        if do_validation:
            val_function = test_function_of(model)
            callback_metrics = out_labels + ["val_" + n for n in out_labels]
        else:
            val_function = None
            callback_metrics = list(out_labels)
        callback_objects = standardize_callbacks(callbacks, yield_every)
        return _fit_loop(
            model,
            train_function,
            ins,
            out_labels,
            batch_size,
            epochs,
            verbose,
            callback_objects,
            val_function,
            val_ins,
            shuffle,
            callback_metrics,
            initial_epoch,
        )
    finally:
        model.is_training = False
        _dispose_new(inputs, x)
        _dispose_new(targets, y)
        _dispose_new(original_inputs, x)
        _dispose_new(original_targets, y)
        _dispose_new(val_x, input_val_x)
        _dispose_new(val_y, input_val_y)
        if sample_weights is not None:
            dispose([w for w in sample_weights if w is not None])
        dispose(made)


def _fit_loop(
    model: Any,
    f: Callable,
    ins: list[Any],
    out_labels: list[str],
    batch_size: int,
    epochs: int,
    verbose: int,
    callbacks: list[BaseCallback],
    val_f: Callable | None,
    val_ins: list[Tensor],
    shuffle: bool,
    callback_metrics: list[str],
    initial_epoch: int,
) -> History:
    do_validation = val_f is not None
    num_samples = ins[0].shape[0]
    index_array = list(range(num_samples))
    callback_list, history = _begin_training(
        model,
        callbacks,
        verbose,
        epochs,
        initial_epoch,
        num_samples,
        None,
        batch_size,
        do_validation,
        callback_metrics,
    )
    batches = make_batches(num_samples, batch_size)
    for epoch in range(initial_epoch, epochs):
        callback_list.on_epoch_begin(epoch)
        epoch_logs: dict[str, Any] = {}
        if shuffle:
            random.shuffle(index_array)
        epoch_index = ops.tensor1d(index_array, "int32")
        try:
            for batch_index, (start, end) in enumerate(batches):
                # As in TF.js, on_batch_begin sees the batch's logs still empty (fit_dataset's
                # already hold batch and size); the same dict then goes to on_batch_end.
                batch_logs: dict[str, Any] = {}
                callback_list.on_batch_begin(batch_index, batch_logs)
                batch_logs["batch"] = batch_index
                batch_logs["size"] = end - start
                last = batch_index == len(batches) - 1

                def step(
                    start: int = start,
                    end: int = end,
                    last: bool = last,
                    index: Tensor = epoch_index,
                ) -> Any:
                    batch_ids = K.slice_along_first_axis(index, start, end - start)
                    outs = f(slice_arrays_by_indices(ins, batch_ids))
                    val_outs = None
                    if last and do_validation:
                        try:
                            val_outs = _test_loop(val_f, val_ins, batch_size)
                        except BaseException:
                            dispose(outs)
                            raise
                    return outs, val_outs

                # The batch's library ops find the user's line once (callbacks run unpinned).
                with ENGINE.pin_site():
                    outs, val_outs = tidy(step)
                    values = _numbers(outs)
                    val_values = None if val_outs is None else _numbers(val_outs)
                for label, value in zip(out_labels, values, strict=False):
                    batch_logs[label] = value
                if val_values is not None:
                    for label, value in zip(out_labels, val_values, strict=False):
                        epoch_logs["val_" + label] = value
                callback_list.on_batch_end(batch_index, batch_logs)
                if model.stop_training:
                    break
        finally:
            epoch_index.dispose()
        callback_list.on_epoch_end(epoch, epoch_logs)
        if model.stop_training:
            break
    callback_list.on_train_end()
    history.sync_data()
    return history


def _callback_model(model: Any) -> Any:
    """The model callbacks see: a ``Sequential``'s wrapper rather than its inner model."""
    return getattr(model, "_outer_model", None) or model


def _begin_training(
    model: Any,
    callbacks: list[BaseCallback] | None,
    verbose: int,
    epochs: int,
    initial_epoch: int | None,
    num_samples: int | None,
    steps_per_epoch: int | None,
    batch_size: int | None,
    do_validation: bool,
    callback_metrics: list[str],
) -> tuple[Any, History]:
    """The start of ``fit`` and ``fitDataset``: configures the callbacks, hands them the
    model, sets ``model.history``, runs ``on_train_begin`` and clears ``stop_training``."""
    callback_list, history = configure_callbacks(
        callbacks,
        verbose,
        epochs,
        initial_epoch,
        num_samples,
        steps_per_epoch,
        batch_size,
        do_validation,
        callback_metrics,
    )
    callback_list.set_model(_callback_model(model))
    model.history = history
    callback_list.on_train_begin()
    model.stop_training = False
    return callback_list, history


def evaluate(
    model: Any,
    x: Any,
    y: Any,
    batch_size: int | None = None,
    verbose: int | None = None,
    sample_weight: Any = None,
    steps: int | None = None,
    **kwargs: Any,
) -> Any:
    """The loss (and metrics) of ``model`` on ``x``, ``y``, computed in batches
    (``model.evaluate``): a scalar tensor, or a list ``[loss, *metrics]`` in
    ``model.metrics_names`` order. The caller disposes them.

    ``verbose=1`` also prints them on one line (TF.js raises for a verbose evaluate).
    """
    _check_kwargs("evaluate", kwargs, ["batch_size", "verbose", "sample_weight", "steps"])
    batch_size = 32 if batch_size is None else batch_size
    check_batch_size(batch_size)
    if sample_weight is not None:
        raise LayersNotImplementedError(
            "evaluate(sample_weight=...) is not supported (TF.js ignores it)."
        )
    if steps is not None:
        raise LayersNotImplementedError("steps mode in test_loop() is not implemented yet")
    x, made_x = _ensure_tensors(x)
    y, made_y = _ensure_tensors(y)
    try:
        xs, ys = standardize_user_data_xy(model, x, y, True, batch_size)
        try:
            f = test_function_of(model)
            outs = _test_loop(f, xs + ys, batch_size)
        finally:
            _dispose_new(xs, x)
            _dispose_new(ys, y)
    finally:
        dispose(made_x + made_y)
    return _evaluation_result(model, outs, verbose)


def _evaluation_result(model: Any, outs: list[Tensor], verbose: int) -> Any:
    """What ``evaluate`` and ``evaluate_dataset`` return (one scalar or a list), printed as
    ``loss: … - acc: …`` first when ``verbose``."""
    if verbose:
        values = {
            name: float(t.data_sync()[0])
            for name, t in zip(model.metrics_names, outs, strict=False)
        }
        print(format_metrics(values, list(values)))
    return singleton_or_array(outs)
