"""``Trainer``: the training methods of ``LayersModel`` (TF.js's ``LayersModel.compile``,
``fit``, ``evaluate``, ``trainOnBatch``, ``fitDataset``, ``evaluateDataset``; Keras 3's
``trainers/trainer.py``).

Each method has TF.js's arguments (its ``args`` object's fields, in snake_case and in the same
order, with TF.js's defaults) and forwards them to the function of the same name in
``compile``, ``loops``, ``steps`` or ``dataset_loops``. A misspelled keyword (``batchSize``)
raises ``LayersValueError`` naming the closest argument.

A ``Sequential`` trains the functional model it wraps: :meth:`Trainer._trained_model` is the
one place that says which model the functions receive.
"""

from __future__ import annotations

from typing import Any

from ...errors import short_traceback
from . import compile as compile_module
from . import dataset_loops, loops, steps
from .callbacks import History

__all__ = ["Trainer"]


class Trainer:
    """Mixin of ``LayersModel``: ``compile``, ``fit``, ``evaluate``, ``train_on_batch``,
    ``test_on_batch``, ``fit_dataset`` and ``evaluate_dataset``."""

    def _trained_model(self) -> Any:
        """The model whose weights the training functions read and update (``Sequential``
        overrides it with the functional model it wraps)."""
        return self

    def compile(  # noqa: A003 - TF.js's name
        self, optimizer: Any = None, loss: Any = None, metrics: Any = None, **kwargs: Any
    ) -> None:
        """Configures the model for training (TF.js's ``ModelCompileArgs``).

        Args:
            optimizer: required. An optimizer (``tf.train.adam(0.01)``; the caller keeps
                ownership) or a name (``'adam'``, ``'sgd'``...; the model owns it and
                disposes it with itself).
            loss: required. A loss name (TF.js's ``'categoricalCrossentropy'`` or Keras's
                ``'categorical_crossentropy'``), a function ``(y_true, y_pred) -> Tensor``, a
                list with one per output, or a dict keyed by output name.
            metrics: a name, a function, a list of them, or a dict keyed by output name.
                ``'accuracy'``/``'acc'`` and ``'crossentropy'``/``'ce'`` become the binary,
                sparse or categorical variant from the output's shape and loss; logged as
                ``acc`` / ``ce``.

        Raises:
            LayersValueError: an unknown optimizer, loss or metric, or a loss list/dict that
                does not fit the outputs. The model is left as it was.
        """
        compile_module.compile(self, optimizer=optimizer, loss=loss, metrics=metrics, **kwargs)

    @short_traceback
    def fit(
        self,
        x: Any,
        y: Any,
        batch_size: int = 32,
        epochs: int = 1,
        verbose: int = 1,
        callbacks: Any = None,
        validation_split: float = 0.0,
        validation_data: Any = None,
        shuffle: Any = True,
        class_weight: Any = None,
        sample_weight: Any = None,
        initial_epoch: int = 0,
        steps_per_epoch: int | None = None,
        validation_steps: int | None = None,
        yield_every: Any = "auto",
        **kwargs: Any,
    ) -> History:
        """Trains the model on ``x``, ``y`` for a number of epochs (TF.js's ``ModelFitArgs``);
        returns a :class:`History` (``history.history['loss']``...).

        Args:
            x: a tensor (NumPy arrays and nested lists are accepted), a list with one per
                input, or a dict keyed by input name.
            y: the targets, in the same forms (one per output).
            batch_size: samples per gradient step.
            epochs: the epoch to stop at (with ``initial_epoch``, runs
                ``epochs - initial_epoch`` epochs).
            verbose: 0 silent, 1 a progress bar (one line per epoch when the output is not
                a terminal), 2 one line per epoch.
            callbacks: callback objects, dicts of hooks (``{'on_epoch_end': fn}``), or a
                list of them.
            validation_split: the fraction (0 to 1) of samples held out for validation: the
                *last* samples, taken before shuffling.
            validation_data: ``(x_val, y_val)``, used instead of ``validation_split``.
            shuffle: shuffle the training samples each epoch.
            class_weight: ``{class_index: weight}`` (a list or dict of them per output),
                turned into per-sample weights of the loss.
            sample_weight: per-sample loss weights ``[n]`` (a list or dict per output).
            initial_epoch: the epoch to start from (to resume a previous ``fit``).
            steps_per_epoch: step-wise training; not implemented (as in TF.js).
            validation_steps: only with ``steps_per_epoch`` (as in TF.js).
            yield_every: how often ``on_yield`` hooks run (``'auto'``, ``'batch'``,
                ``'epoch'``, ``'never'`` or milliseconds).

        Raises:
            LayersRuntimeError: the model is not compiled, or another ``fit`` is running on
                it.
            LayersValueError: data that does not fit the model (shapes, counts, x/y
                lengths); raised before any weight changes.
        """
        return loops.fit(
            self._trained_model(),
            x,
            y,
            batch_size=batch_size,
            epochs=epochs,
            verbose=verbose,
            callbacks=callbacks,
            validation_split=validation_split,
            validation_data=validation_data,
            shuffle=shuffle,
            class_weight=class_weight,
            sample_weight=sample_weight,
            initial_epoch=initial_epoch,
            steps_per_epoch=steps_per_epoch,
            validation_steps=validation_steps,
            yield_every=yield_every,
            **kwargs,
        )

    @short_traceback
    def evaluate(
        self,
        x: Any,
        y: Any,
        batch_size: int = 32,
        verbose: int = 0,
        sample_weight: Any = None,
        steps: int | None = None,
        **kwargs: Any,
    ) -> Any:
        """The loss (and metrics) on ``x``, ``y``, computed in batches (TF.js's
        ``ModelEvaluateArgs``): a scalar tensor, or a list ``[loss, *metrics]`` in
        ``model.metrics_names`` order. The caller disposes them.

        Args:
            x, y: as in :meth:`fit`.
            batch_size: samples per batch.
            verbose: 1 also prints ``loss: … - acc: …`` on one line (TF.js raises instead).
            sample_weight: not supported (TF.js ignores it); raises.
            steps: step-wise evaluation; not implemented (as in TF.js).
        """
        return loops.evaluate(
            self._trained_model(),
            x,
            y,
            batch_size=batch_size,
            verbose=verbose,
            sample_weight=sample_weight,
            steps=steps,
            **kwargs,
        )

    @short_traceback
    def train_on_batch(
        self, x: Any, y: Any, sample_weight: Any = None, class_weight: Any = None
    ) -> Any:
        """One optimizer step on one batch ``x``, ``y`` (TF.js's ``trainOnBatch``). Returns
        the loss, or ``[loss, *metrics]``, as Python numbers computed before the step; adds
        no tensor.

        Args:
            x, y: as in :meth:`fit` (one batch).
            sample_weight, class_weight: as in :meth:`fit` (Keras's arguments).
        """
        return steps.train_on_batch(self._trained_model(), x, y, sample_weight, class_weight)

    @short_traceback
    def test_on_batch(self, x: Any, y: Any) -> Any:
        """The loss, or ``[loss, *metrics]``, on one batch ``x``, ``y`` as Python numbers,
        without changing any weight (Keras's ``test_on_batch``; TF.js has no such method:
        it is :meth:`evaluate` with ``batch_size`` the batch's size, as numbers). Adds no
        tensor."""
        return steps.test_on_batch(self._trained_model(), x, y)

    @short_traceback
    def fit_dataset(
        self,
        dataset: Any,
        epochs: int | None = None,
        batches_per_epoch: int | None = None,
        verbose: int = 1,
        callbacks: Any = None,
        validation_data: Any = None,
        validation_batch_size: int = 32,
        validation_batches: int | None = None,
        yield_every: Any = "auto",
        initial_epoch: int = 0,
        class_weight: Any = None,
        **kwargs: Any,
    ) -> History:
        """Trains on the batches of a dataset (TF.js's ``ModelFitDatasetArgs``); returns a
        :class:`History`.

        ``dataset`` is a ``tf.data`` dataset (anything with ``iterator()``) or any iterable
        of batches; each element is ``{'xs': ..., 'ys': ...}`` or a pair ``(xs, ys)``. Each
        batch's tensors are disposed once its step is done. Without ``batches_per_epoch``,
        every epoch iterates the dataset anew; with it, one stream runs across epochs.

        Args:
            epochs: the number of epochs (required, a positive integer).
            batches_per_epoch: batches per epoch (default: until the dataset ends).
            verbose, callbacks, yield_every, initial_epoch, class_weight: as in :meth:`fit`.
            validation_data: ``(x_val, y_val)`` tensors or a dataset.
            validation_batch_size: batch size for tensor validation data.
            validation_batches: batches to take from a validation dataset (default: all).
        """
        return dataset_loops.fit_dataset(
            self._trained_model(),
            dataset,
            epochs=epochs,
            batches_per_epoch=batches_per_epoch,
            verbose=verbose,
            callbacks=callbacks,
            validation_data=validation_data,
            validation_batch_size=validation_batch_size,
            validation_batches=validation_batches,
            yield_every=yield_every,
            initial_epoch=initial_epoch,
            class_weight=class_weight,
            **kwargs,
        )

    @short_traceback
    def evaluate_dataset(self, dataset: Any, batches: int | None = None, verbose: int = 0) -> Any:
        """Loss and metrics over the batches of ``dataset`` (TF.js's
        ``ModelEvaluateDatasetArgs``), weighted by batch size: a scalar tensor or a list
        ``[loss, *metrics]`` the caller disposes. Each batch is disposed after use.

        Args:
            dataset: as in :meth:`fit_dataset`, or an iterator.
            batches: how many batches to read (default: until the dataset ends).
            verbose: 1 also prints the results on one line.
        """
        return dataset_loops.evaluate_dataset(
            self._trained_model(), dataset, batches=batches, verbose=verbose
        )
