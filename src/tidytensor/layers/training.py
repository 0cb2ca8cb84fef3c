"""Training a ``LayersModel``: ``compile``, ``fit``, ``evaluate``, ``train_on_batch``,
``fit_dataset`` and ``evaluate_dataset`` (TF.js's ``engine/training.ts``,
``training_tensors.ts``, ``training_utils.ts`` and ``training_dataset.ts``).

Each function takes the model first; the ``LayersModel`` methods of the same names call them.

Memory, as in TF.js: ``fit`` and ``evaluate`` run every batch inside ``tf.tidy``; repeated
``fit`` calls leave no tensor behind (with validation, metrics and callbacks); the first step
of an optimizer creates its state (Adam: two tensors per trainable weight);
``train_on_batch`` returns plain numbers and adds no tensor; ``evaluate`` returns new scalars
(the caller disposes them). Logs handed to callbacks hold Python numbers.

>>> import tidytensor.layers as layers
>>> model = layers.models.sequential([layers.dense(units=1, input_shape=[1], kernel_initializer='zeros')])
>>> model.compile(optimizer=tf.train.sgd(0.1), loss='meanSquaredError')
>>> xs, ys = tf.tensor2d([[1], [2], [3]]), tf.tensor2d([[2], [4], [6]])
>>> before = tf.memory().num_tensors
>>> history = model.fit(xs, ys, epochs=3, batch_size=3, shuffle=False, verbose=0)
>>> [round(v, 4) for v in history.history['loss']]
[18.6667, 0.2963, 0.0734]
>>> tf.memory().num_tensors - before
0
"""

from __future__ import annotations

import difflib
import random
import warnings
from collections.abc import Callable
from typing import Any

from .. import ops
from ..engine import ENGINE
from ..optimizers import Optimizer
from ..optimizers import train as _train
from ..scopes import dispose, keep, tidy
from ..tensor import Tensor
from . import backend as K
from . import losses as losses_mod
from . import metrics as metrics_mod
from . import progress as _progress  # noqa: F401 - registers the progress bar for verbose >= 1
from .callbacks import BaseCallback, History, configure_callbacks, standardize_callbacks
from .data import check_batch_size, make_batches, slice_arrays, slice_arrays_by_indices
from .errors import LayersNotImplementedError, LayersRuntimeError, LayersValueError
from .executor import FeedDict, execute
from .progress import format_metrics
from .utils import js_array_str, js_json, singleton_or_array

__all__ = [
    "check_array_lengths",
    "collect_metrics",
    "compile",
    "evaluate",
    "evaluate_dataset",
    "fit",
    "fit_dataset",
    "get_deduped_metrics_names",
    "get_optimizer",
    "make_test_function",
    "make_train_function",
    "standardize_class_weights",
    "standardize_input_data",
    "standardize_user_data",
    "standardize_weights",
    "train_on_batch",
]


# =============================================================================== compile
def _optimizer_factories() -> dict[str, Callable[[], Optimizer]]:
    table: dict[str, Callable[[], Optimizer]] = {
        "Adagrad": lambda: _train.adagrad(0.01),
        "Adadelta": lambda: _train.adadelta(1, 0.95, K.epsilon()),
        "Adam": lambda: _train.adam(0.001, 0.9, 0.999, K.epsilon()),
        "Adamax": lambda: _train.adamax(0.002, 0.9, 0.999, K.epsilon(), 0),
        "RMSProp": lambda: _train.rmsprop(0.001, 0.9, 0, K.epsilon()),
        "SGD": lambda: _train.sgd(0.01),
    }
    for name in list(table):
        table[name.lower()] = table[name]
    table["RMSprop"] = table["RMSProp"]  # Keras's class name
    return table


_OPTIMIZERS = _optimizer_factories()


def get_optimizer(identifier: str) -> Optimizer:
    """A new optimizer with TF.js's defaults for a name: ``'sgd'`` (lr 0.01), ``'adam'``
    (0.001), ``'rmsprop'`` (0.001), ``'adagrad'`` (0.01), ``'adadelta'`` (1), ``'adamax'``
    (0.002); the capitalized class names too (``'Adam'``, ``'RMSProp'``)."""
    factory = _OPTIMIZERS.get(identifier) if isinstance(identifier, str) else None
    if factory is None:
        raise LayersValueError(
            f"Unknown Optimizer {identifier} (known: sgd, adam, rmsprop, adagrad, adadelta, "
            "adamax, or their class names SGD, Adam, RMSProp, Adagrad, Adadelta, Adamax)"
        )
    return factory()


def _check_kwargs(fn_name: str, kwargs: dict[str, Any], known: list[str]) -> None:
    if not kwargs:
        return
    parts = []
    for key in kwargs:
        snake = "".join("_" + c.lower() if c.isupper() else c for c in key)
        guess = [snake] if snake in known else difflib.get_close_matches(key, known, 1)
        parts.append(f"{key!r}" + (f" (did you mean {guess[0]!r}?)" if guess else ""))
    raise LayersValueError(
        f"{fn_name}() got unexpected argument(s) {', '.join(parts)}; it takes {', '.join(known)}"
    )


def collect_metrics(metrics: Any, output_names: list[str]) -> list[list[Any]]:
    """One list of metrics per output, from a name, a function, a list (applied to every
    output) or a dict keyed by output name."""
    if metrics is None or (isinstance(metrics, (list, tuple)) and len(metrics) == 0):
        return [[] for _ in output_names]
    if isinstance(metrics, str) or callable(metrics):
        wrapped: Any = [metrics]
    elif isinstance(metrics, (list, tuple, dict)):
        wrapped = metrics
    else:
        raise LayersValueError(
            "Type of metrics argument not understood. Expected an string,function, Array, or "
            f"Object, found: {metrics!r}"
        )
    if isinstance(wrapped, (list, tuple)):
        return [list(wrapped) for _ in output_names]
    for name in wrapped:
        if name not in output_names:
            raise LayersValueError(
                f'Unknown entry in metrics dictionary: "{name}". Only expected the following '
                f"keys: {js_array_str(output_names)}"
            )
    nested = []
    for name in output_names:
        output_metrics = wrapped.get(name, [])
        nested.append(
            list(output_metrics) if isinstance(output_metrics, (list, tuple)) else [output_metrics]
        )
    return nested


def _resolve_losses(model: Any, loss: Any) -> list[Any]:
    if isinstance(loss, dict):
        for name in loss:
            if name not in model.output_names:
                raise LayersValueError(
                    f'Unknown entry in loss dictionary: "{name}". Only expected the following '
                    f"keys: {js_array_str(model.output_names)}"
                )
        functions = []
        for name in model.output_names:
            if loss.get(name) is None:
                warnings.warn(
                    f'Output "{name}" is missing from loss dictionary. We assume this was done '
                    f"on purpose, and we will not be expecting data to be passed to {name} during "
                    "training",
                    stacklevel=4,
                )
            functions.append(losses_mod.get(loss.get(name)))
        return functions
    if isinstance(loss, (list, tuple)):
        if len(loss) != len(model.outputs):
            shown = ",".join(
                str(v) if isinstance(v, str) else getattr(v, "__name__", repr(v)) for v in loss
            )
            raise LayersValueError(
                "When passing an Array as loss, it should have one entry per model output. The "
                f"model has {len(model.outputs)} output(s), but you passed loss={shown}."
            )
        return [losses_mod.get(v) for v in loss]
    fn = losses_mod.get(loss)
    return [fn for _ in model.outputs]


def _resolve_metrics(
    model: Any, metrics: Any, loss_functions: list[Any]
) -> tuple[list[str], list[tuple[Callable, int]]]:
    names = ["loss"]
    tensors: list[tuple[Callable, int]] = []
    multi = len(model.outputs) > 1
    if multi:
        for i, fn in enumerate(loss_functions):
            tensors.append((fn, i))
            names.append(model.output_names[i] + "_loss")
    nested = collect_metrics(metrics, model.output_names)
    for i, output_metrics in enumerate(nested):
        for metric in output_metrics:
            if (
                isinstance(metric, str)
                and metric in metrics_mod.ACCURACY_NAMES + metrics_mod.CROSSENTROPY_NAMES
            ):
                accuracy = metric in metrics_mod.ACCURACY_NAMES
                shape = model.internal_output_shapes[i]
                loss_fn = loss_functions[i]
                if shape[-1] == 1 or loss_fn is losses_mod.binary_crossentropy:
                    fn = (
                        metrics_mod.binary_accuracy if accuracy else metrics_mod.binary_crossentropy
                    )
                elif loss_fn is losses_mod.sparse_categorical_crossentropy:
                    fn = (
                        metrics_mod.sparse_categorical_accuracy
                        if accuracy
                        else metrics_mod.sparse_categorical_crossentropy
                    )
                else:
                    fn = (
                        metrics_mod.categorical_accuracy
                        if accuracy
                        else metrics_mod.categorical_crossentropy
                    )
                name = "acc" if accuracy else "ce"
            else:
                fn = metrics_mod.get(metric)
                name = metrics_mod.get_loss_or_metric_name(metric)
            if multi:
                name = model.output_names[i] + "_" + name
            names.append(name)
            tensors.append((fn, i))
    return names, tensors


def compile(  # noqa: A001 - TF.js's name
    model: Any, optimizer: Any = None, loss: Any = None, metrics: Any = None, **kwargs: Any
) -> None:
    """Configures ``model`` for training (``model.compile``).

    Args:
        optimizer: an optimizer (``tf.train.adam(0.01)``; the caller keeps ownership) or a
            name (``'adam'``, ``'sgd'``...; the model owns it and disposes it with itself).
        loss: a loss name (TF.js's ``'categoricalCrossentropy'`` or Keras's
            ``'categorical_crossentropy'``), a function ``(y_true, y_pred) -> Tensor``, a list
            with one per output, or a dict keyed by output name.
        metrics: a name, a function, a list of them, or a dict keyed by output name.
            ``'accuracy'``/``'acc'`` and ``'crossentropy'``/``'ce'`` become the binary,
            sparse or categorical variant from the output's shape and loss; logged as ``acc``
            / ``ce``.

    Raises:
        LayersValueError: an unknown optimizer, loss or metric, or a loss list/dict that
            does not fit the outputs. The model is left as it was.
    """
    _check_kwargs("compile", kwargs, ["optimizer", "loss", "metrics"])
    if loss is None:
        loss = []
    if isinstance(optimizer, str):
        if optimizer not in _OPTIMIZERS:
            get_optimizer(optimizer)  # raises "Unknown Optimizer"
    elif not isinstance(optimizer, Optimizer):
        raise LayersValueError("User-defined optimizer must be an instance of tf.Optimizer.")
    loss_functions = _resolve_losses(model, loss)
    metrics_names, metrics_tensors = _resolve_metrics(model, metrics, loss_functions)

    old_optimizer, old_owned = model.optimizer_, model.is_optimizer_owned
    if isinstance(optimizer, str):
        new_optimizer, owned = get_optimizer(optimizer), True
    else:
        new_optimizer = optimizer
        owned = old_owned and new_optimizer is old_optimizer
    if old_owned and old_optimizer is not None and old_optimizer is not new_optimizer:
        old_optimizer.dispose()  # TF.js leaks an owned optimizer replaced by a new compile
    model.loss = loss
    model.optimizer_ = new_optimizer
    model.is_optimizer_owned = owned
    model.loss_functions = loss_functions
    model.feed_output_names = list(model.output_names)
    model.feed_output_shapes = list(model.internal_output_shapes)
    model.feed_loss_fns = list(loss_functions)
    model.metrics = metrics
    model.metrics_names = metrics_names
    model.metrics_tensors = metrics_tensors
    model.test_function = None
    model.collected_trainable_weights = model.trainable_weights


# ============================================================================ input data
def _ensure_tensors(x: Any) -> tuple[Any, list[Tensor]]:
    """``x`` with arrays and nested lists made tensors, and the tensors made."""
    from .data import ensure_tensors

    return ensure_tensors(x)


def _shape_str(shape: Any) -> str:
    return js_array_str(list(shape))


def _ensure_rank2(arrays: list[Tensor]) -> list[Tensor]:
    out = []
    for t in arrays:
        if t.rank == 1:
            out.append(K.expand_dims(t, 1))
        elif t.rank == 0:
            raise LayersValueError(
                "Expected tensor to be at least 1D, but received a 0D tensor (scalar)."
            )
        else:
            out.append(t)
    return out


def standardize_input_data(
    data: Any,
    names: list[str],
    shapes: list[Any] | None = None,
    check_batch_axis: bool = True,
    exception_prefix: str = "",
) -> list[Tensor]:
    """One tensor per name from a tensor, a list, or a dict keyed by name; rank-1 tensors
    become ``[n, 1]`` (new tensors the caller disposes). Checks ranks and shapes."""
    if not names:
        if data is not None and not (isinstance(data, (list, tuple, dict)) and len(data) == 0):
            raise LayersValueError(
                f"Error when checking model {exception_prefix} expected no data, but got {data}"
            )
        return []
    if data is None:
        return [None for _ in names]
    if isinstance(data, dict):
        arrays = []
        for name in names:
            if data.get(name) is None:
                raise LayersValueError(
                    f'No data provided for "{name}". Need data for each key in: '
                    f"{js_array_str(names)}"
                )
            arrays.append(data[name])
    elif isinstance(data, (list, tuple)):
        if len(data) != len(names):
            raise LayersValueError(
                f"Error when checking model {exception_prefix}: the Array of Tensors that you are "
                f"passing to your model is not the size the model expected. Expected to see "
                f"{len(names)} Tensor(s), but instead got {len(data)} Tensor(s)."
            )
        arrays = list(data)
    else:
        if len(names) > 1:
            raise LayersValueError(
                f"The model {exception_prefix} expects {len(names)} Tensor(s), but only received "
                f"one Tensor. Found: Tensor with shape {_shape_str(data.shape)}"
            )
        arrays = [data]
    for i, a in enumerate(arrays):
        if not isinstance(a, Tensor):
            raise LayersValueError(
                f"Error when checking {exception_prefix}: expected {names[i]} to be a Tensor, a "
                f"NumPy array or a nested list of numbers, but got {type(a).__name__}"
            )
    arrays = _ensure_rank2(arrays)
    if shapes is None:
        return arrays
    try:
        for i, name in enumerate(names):
            if shapes[i] is None:
                continue
            array = arrays[i]
            if len(array.shape) != len(shapes[i]):
                raise LayersValueError(
                    f"Error when checking {exception_prefix}: expected {name} to have "
                    f"{len(shapes[i])} dimension(s). but got array with shape "
                    f"{_shape_str(array.shape)}"
                )
            for j, ref in enumerate(shapes[i]):
                if j == 0 and not check_batch_axis:
                    continue
                if ref is not None and ref >= 0 and array.shape[j] != ref:
                    inner = _shape_str(shapes[i][1:])
                    raise LayersValueError(
                        f"{exception_prefix} expected a batch of elements where each example has "
                        f"shape [{inner}] (i.e.,tensor shape [*,{inner}]) but the "
                        f"{exception_prefix} received an input with {array.shape[0]} examples, "
                        f"each with shape [{_shape_str(array.shape[1:])}] (tensor shape "
                        f"[{_shape_str(array.shape)}])"
                    )
    except BaseException:
        _dispose_new(arrays, data)
        raise
    return arrays


def _dispose_new(tensors: Any, original: Any) -> None:
    """Disposes the tensors of ``tensors`` that are not among ``original``'s."""
    if tensors is None:
        return
    if isinstance(original, Tensor):
        keep_ids = {original.id}
    elif isinstance(original, dict):
        keep_ids = {t.id for t in original.values() if isinstance(t, Tensor)}
    elif isinstance(original, (list, tuple)):
        keep_ids = {t.id for t in original if isinstance(t, Tensor)}
    else:
        keep_ids = set()
    items = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    for t in items:
        if isinstance(t, Tensor) and t.id not in keep_ids and not t.is_disposed:
            t.dispose()


def check_array_lengths(inputs: list[Tensor], targets: list[Tensor], weights: Any = None) -> None:
    """Every input and target must have the same number of samples."""
    set_x = sorted({t.shape[0] for t in inputs})
    set_y = sorted({t.shape[0] for t in targets})
    if len(set_x) > 1:
        raise LayersValueError(
            "All input Tensors (x) should have the same number of samples. Got array shapes: "
            f"{js_json([t.shape for t in inputs])}"
        )
    if len(set_y) > 1:
        raise LayersValueError(
            "All target Tensors (y) should have the same number of samples. Got array shapes: "
            f"{js_json([t.shape for t in targets])}"
        )
    if set_x and set_y and set_x != set_y:
        raise LayersValueError(
            "Input Tensors should have the same number of samples as target Tensors. Found "
            f"{set_x[0]} input sample(s) and {set_y[0]} target sample(s)."
        )


def _check_loss_and_target_compatibility(
    targets: list[Tensor], loss_fns: list[Any], output_shapes: list[Any]
) -> None:
    key_losses = (
        losses_mod.mean_squared_error,
        losses_mod.binary_crossentropy,
        losses_mod.categorical_crossentropy,
    )
    for y, loss, shape in zip(targets, loss_fns, output_shapes, strict=False):
        if loss is None:
            continue
        if loss is losses_mod.categorical_crossentropy and y.shape[-1] == 1:
            raise LayersValueError(
                f"You are passing a target array of shape {_shape_str(y.shape)} while using a "
                "loss 'categorical_crossentropy'. 'categorical_crossentropy'expects targets to be "
                "binary matrices (1s and 0s) of shape [samples, classes]."
            )
        if any(loss is k for k in key_losses):
            for target_dim, out_dim in zip(y.shape[1:], shape[1:], strict=False):
                if out_dim is not None and target_dim != out_dim:
                    raise LayersValueError(
                        f"A target Tensor with shape {_shape_str(y.shape)} was passed for an "
                        f"output of shape {_shape_str(shape)}, while using a loss function that "
                        "expects targets to have the same shape as the output."
                    )


def _require_compiled(model: Any) -> None:
    if model.optimizer_ is None:
        raise LayersRuntimeError(
            "You must compile a model before training/testing. Use "
            "LayersModel.compile(modelCompileArgs)."
        )


def standardize_user_data_xy(
    model: Any, x: Any, y: Any, check_batch_axis: bool = True, batch_size: int | None = None
) -> tuple[list[Tensor], list[Tensor]]:
    """Checks ``x`` and ``y`` against the model's inputs and outputs; returns tensor lists
    (with new tensors for rank-1 data, which the caller disposes)."""
    _require_compiled(model)
    output_shapes = []
    for shape, loss_fn in zip(model.feed_output_shapes, model.feed_loss_fns, strict=False):
        if loss_fn is losses_mod.sparse_categorical_crossentropy:
            output_shapes.append(list(shape[:-1]) + [1])
        else:
            output_shapes.append(shape)
    xs = standardize_input_data(x, model.feed_input_names, model.feed_input_shapes, False, "input")
    try:
        ys = standardize_input_data(y, model.feed_output_names, output_shapes, False, "target")
    except BaseException:
        _dispose_new(xs, x)
        raise
    try:
        check_array_lengths(xs, ys)
        _check_loss_and_target_compatibility(ys, model.feed_loss_fns, model.feed_output_shapes)
        if model.stateful and batch_size is not None and batch_size > 0:
            if xs[0].shape[0] % batch_size != 0:
                raise LayersValueError(
                    "In a stateful network, you should only pass inputs with a number of samples "
                    f"that is divisible by the batch size {batch_size}. Found: {xs[0].shape[0]} "
                    "sample(s)."
                )
    except BaseException:
        _dispose_new(xs, x)
        _dispose_new(ys, y)
        raise
    return xs, ys


def _standardize_sample_or_class_weights(
    x_weight: Any, output_names: list[str], kind: str
) -> list[Any]:
    num_outputs = len(output_names)
    if x_weight is None or (isinstance(x_weight, (list, tuple)) and len(x_weight) == 0):
        return [None for _ in output_names]
    if num_outputs == 1:
        if isinstance(x_weight, (list, tuple)) and len(x_weight) == 1:
            return list(x_weight)
        if isinstance(x_weight, dict) and output_names[0] in x_weight:
            return [x_weight[output_names[0]]]
        return [x_weight]
    if isinstance(x_weight, (list, tuple)):
        if len(x_weight) != num_outputs:
            raise LayersValueError(
                f"Provided {kind} is an array of {len(x_weight)} element(s), but the model has "
                f"{num_outputs} outputs. Make sure a set of weights is provided for each model "
                "output."
            )
        return list(x_weight)
    if (
        isinstance(x_weight, dict)
        and x_weight
        and all(not isinstance(v, (int, float)) for v in x_weight.values())
    ):
        return [x_weight.get(name) for name in output_names]
    raise LayersValueError(
        f"The model has multiple ({num_outputs}) outputs, so {kind} must be either an array "
        f"with {num_outputs} elements or an object with {js_array_str(output_names)} keys. "
        f"Provided {kind} not understood: {x_weight!r}"
    )


def standardize_class_weights(class_weight: Any, output_names: list[str]) -> list[Any]:
    """One ``{class_index: weight}`` dict (or None) per output."""
    return _standardize_sample_or_class_weights(class_weight, output_names, "classWeight")


def standardize_weights(
    y: Tensor, sample_weight: Any = None, class_weight: Any = None
) -> Tensor | None:
    """Per-sample weights ``[n]`` for the targets ``y``: from ``class_weight`` (class indices
    read from ``y``: integers ``[n]`` or ``[n, 1]``, or one-hot ``[n, classes]``), times
    ``sample_weight`` when both are given. A new tensor, or None."""
    weights: Tensor | None = None
    if class_weight is not None:

        def classes() -> Tensor:
            if y.rank == 1:
                return ops.clone(y)
            if y.rank == 2:
                if y.shape[1] > 1:
                    return ops.arg_max(y, 1)
                if y.shape[1] == 1:
                    return ops.reshape(y, [y.shape[0]])
                raise LayersValueError(
                    f"Encountered unexpected last-dimension size ({y.shape[1]}) during handling "
                    "of class weights. The size is expected to be >= 1."
                )
            raise LayersValueError(
                f"Unexpected rank of target (y) tensor ({y.rank}) during handling of class "
                "weights. The rank is expected to be 1 or 2."
            )

        y_classes = tidy(classes)
        indices = [int(v) for v in y_classes.data_sync()]
        y_classes.dispose()
        per_sample = []
        for index in indices:
            w = class_weight.get(index, class_weight.get(str(index)))
            if w is None:
                raise LayersValueError(
                    "classWeight must contain all classes in the training data. The class "
                    f"{index} exists in the data but not in classWeight"
                )
            per_sample.append(w)
        weights = ops.tensor1d(per_sample, "float32")
    if sample_weight is not None:
        sw = sample_weight if isinstance(sample_weight, Tensor) else ops.tensor(sample_weight)
        made_here = sw is not sample_weight
        if sw.rank != 1 or sw.shape[0] != y.shape[0]:
            if made_here:
                sw.dispose()
            if weights is not None:
                weights.dispose()
            raise LayersValueError(
                f"sample_weight must be a 1D tensor with one weight per sample ({y.shape[0]}), "
                f"but got shape {js_json(sw.shape)}"
            )
        if weights is None:
            weights = ops.cast(sw, "float32") if (sw.dtype != "float32" or not made_here) else sw
            if weights is not sw and made_here:
                sw.dispose()
        else:
            combined = ops.mul(weights, sw)
            weights.dispose()
            if made_here:
                sw.dispose()
            weights = combined
    return weights


def standardize_user_data(
    model: Any,
    x: Any,
    y: Any,
    sample_weight: Any = None,
    class_weight: Any = None,
    check_batch_axis: bool = True,
    batch_size: int | None = None,
) -> tuple[list[Tensor], list[Tensor], list[Tensor | None] | None]:
    """``standardize_user_data_xy`` plus one per-sample weight tensor per output (or None)."""
    xs, ys = standardize_user_data_xy(model, x, y, check_batch_axis, batch_size)
    if sample_weight is None and class_weight is None:
        return xs, ys, None
    weights: list[Tensor | None] = []
    try:
        class_weights = standardize_class_weights(class_weight, model.output_names)
        sample_weights = _standardize_sample_or_class_weights(
            sample_weight, model.output_names, "sampleWeight"
        )
        for i, target in enumerate(ys):
            weights.append(standardize_weights(target, sample_weights[i], class_weights[i]))
    except BaseException:
        dispose([w for w in weights if w is not None])
        _dispose_new(xs, x)
        _dispose_new(ys, y)
        raise
    return xs, ys, weights


# ================================================================= train/test functions
def make_train_function(model: Any) -> Callable[[list[Any]], list[Tensor]]:
    """A function of ``inputs + targets + sample_weights`` that runs one optimizer step and
    returns ``[total_loss, *metrics]`` (scalars the caller disposes)."""
    n_in, n_out = len(model.inputs), len(model.outputs)

    def train_function(data: list[Any]) -> list[Tensor]:
        inputs = data[:n_in]
        targets = data[n_in : n_in + n_out]
        sample_weights = data[n_in + n_out : n_in + 2 * n_out]
        loss_values: list[Tensor] = []
        metrics_values: list[Tensor] = []

        def total_loss_function() -> Tensor:
            feed = FeedDict([(model.inputs[i], inputs[i]) for i in range(n_in)])
            outputs = execute(model.outputs, feed, {"training": True})
            total = None
            for i, loss_fn in enumerate(model.loss_functions):
                loss = loss_fn(targets[i], outputs[i])
                if i < len(sample_weights) and sample_weights[i] is not None:
                    loss = ops.mul(loss, sample_weights[i])
                loss_values.append(ops.mean(loss))
                total = loss if i == 0 else ops.add(total, loss)
            for i, (metric, output_index) in enumerate(model.metrics_tensors):
                if n_out > 1 and i < n_out:
                    value = loss_values[i]
                else:
                    value = ops.mean(metric(targets[output_index], outputs[output_index]))
                keep(value)
                metrics_values.append(value)
            total = ops.mean(total)
            for regularizer_loss in model.calculate_losses():
                total = ops.add(total, regularizer_loss)
            return total

        variables = [w.read() for w in model.collected_trainable_weights]
        try:
            total_loss_value = model.optimizer_.minimize(total_loss_function, True, variables)
        except BaseException:
            dispose(metrics_values)
            raise
        return [total_loss_value, *metrics_values]

    return train_function


def make_test_function(model: Any) -> Callable[[list[Any]], list[Tensor]]:
    """Sets and returns ``model.test_function``: ``inputs + targets`` → ``[total_loss,
    *metrics]`` (per-output losses come first among the metrics of a multi-output model)."""
    n_in, n_out = len(model.inputs), len(model.outputs)

    def test_function(data: list[Any]) -> list[Tensor]:
        def body() -> list[Tensor]:
            inputs = data[:n_in]
            targets = data[n_in : n_in + n_out]
            feed = FeedDict([(model.inputs[i], inputs[i]) for i in range(n_in)])
            outputs = execute(model.outputs, feed)
            total = None
            for i, loss_fn in enumerate(model.loss_functions):
                loss = ops.mean(loss_fn(targets[i], outputs[i]))
                total = loss if i == 0 else ops.add(total, loss)
            values = [total]
            for metric, output_index in model.metrics_tensors:
                values.append(ops.mean(metric(targets[output_index], outputs[output_index])))
            return values

        return tidy(body)

    model.test_function = test_function
    return test_function


def get_deduped_metrics_names(model: Any) -> list[str]:
    """``metrics_names`` with repeated names suffixed ``_1``, ``_2``..."""
    labels = model.metrics_names
    out = []
    for i, label in enumerate(labels):
        if labels.count(label) > 1:
            label = f"{label}_{labels[:i].count(label)}"
        out.append(label)
    return out


def _test_loop(f: Callable, ins: list[Tensor], batch_size: int) -> list[Tensor]:
    def body() -> list[Tensor]:
        num_samples = ins[0].shape[0]
        outs: list[Tensor] = []
        index_array = ops.tensor1d(list(range(num_samples)), "int32")
        for batch_index, (start, end) in enumerate(make_batches(num_samples, batch_size)):
            batch_ids = K.slice_along_first_axis(index_array, start, end - start)
            batch_outs = f(slice_arrays_by_indices(ins, batch_ids))
            if batch_index == 0:
                outs = [ops.scalar(0) for _ in batch_outs]
            for i, batch_out in enumerate(batch_outs):
                outs[i] = ops.add(outs[i], ops.mul(end - start, batch_out))
        return [ops.div(o, num_samples) for o in outs]

    return tidy(body)


def _numbers(tensors: list[Tensor]) -> list[float]:
    """Reads scalar tensors as Python floats and disposes them."""
    values = [float(t.data_sync()[0]) for t in tensors]
    dispose(tensors)
    return values


def _callback_model(model: Any) -> Any:
    """The model callbacks see: a ``Sequential``'s wrapper rather than its inner model."""
    return getattr(model, "_outer_model", None) or model


def _check_verbose(verbose: Any) -> int:
    if verbose is None:
        return 1
    if isinstance(verbose, bool):
        return int(verbose)
    if not isinstance(verbose, int) or verbose < 0:
        raise LayersValueError(f"verbose must be 0, 1 or 2, but got {verbose!r}")
    return verbose


def _check_epochs(epochs: Any, name: str = "epochs") -> int:
    if (
        isinstance(epochs, bool)
        or not isinstance(epochs, (int, float))
        or epochs != int(epochs)
        or epochs < 0
    ):
        raise LayersValueError(f"{name} must be a non-negative integer, but got {epochs!r}")
    return int(epochs)


# ==================================================================================== fit
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

    Args:
        x: a tensor (NumPy arrays and nested lists are accepted), a list with one per input,
            or a dict keyed by input name.
        y: the targets, in the same forms (one per output).
        batch_size: samples per gradient step (default 32).
        epochs: the epoch to stop at (default 1; with ``initial_epoch``, runs
            ``epochs - initial_epoch`` epochs).
        verbose: 0 silent, 1 a progress bar (one line per epoch when the output is not a
            terminal), 2 one line per epoch. Default 1.
        callbacks: callback objects, dicts of hooks (``{'on_epoch_end': fn}``), or a list.
        validation_split: the fraction (0 to 1) of samples held out for validation: the
            *last* samples, taken before shuffling.
        validation_data: ``(x_val, y_val)``, used instead of ``validation_split``.
        shuffle: shuffle the training samples each epoch (default True).
        class_weight: ``{class_index: weight}`` (a list or dict of them per output), turned
            into per-sample weights of the loss.
        sample_weight: per-sample loss weights ``[n]`` (a list or dict per output).
        initial_epoch: the epoch to start from.
        yield_every: how often ``on_yield`` hooks run (``'auto'``, ``'batch'``, ``'epoch'``,
            ``'never'`` or milliseconds).

    Raises:
        LayersRuntimeError: the model is not compiled, or another ``fit`` is running on it.
        LayersValueError: data that does not fit the model (shapes, counts, x/y lengths);
            raised before any weight changes.
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
            raise LayersNotImplementedError("stepsPerEpoch mode is not implemented yet.")
        if validation_steps is not None:
            raise LayersValueError(
                "Can only use `validationSteps` when doing step-wise training, i.e., "
                "`stepsPerEpoch` must be set."
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
                    "validationData including sample weights is not supported yet."
                )
            else:
                raise LayersValueError(
                    "When passing validation data, it must contain 2 (valX, valY) or 3 (valX, "
                    f"valY, valSampleWeight) items; {validation_data!r} is invalid."
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
        train_function = make_train_function(model)
        out_labels = get_deduped_metrics_names(model)
        if do_validation:
            val_function = make_test_function(model)
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
    callback_list, history = configure_callbacks(
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
    callback_list.set_model(_callback_model(model))
    model.history = history
    callback_list.on_train_begin()
    model.stop_training = False
    batches = make_batches(num_samples, batch_size)
    for epoch in range(initial_epoch, epochs):
        callback_list.on_epoch_begin(epoch)
        epoch_logs: dict[str, Any] = {}
        if shuffle:
            random.shuffle(index_array)
        epoch_index = ops.tensor1d(index_array, "int32")
        try:
            for batch_index, (start, end) in enumerate(batches):
                batch_logs: dict[str, Any] = {"batch": batch_index, "size": end - start}
                callback_list.on_batch_begin(batch_index, batch_logs)
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


# ============================================================================= evaluate
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
        raise LayersNotImplementedError("steps mode in testLoop() is not implemented yet")
    x, made_x = _ensure_tensors(x)
    y, made_y = _ensure_tensors(y)
    try:
        xs, ys = standardize_user_data_xy(model, x, y, True, batch_size)
        try:
            f = make_test_function(model)
            outs = _test_loop(f, xs + ys, batch_size)
        finally:
            _dispose_new(xs, x)
            _dispose_new(ys, y)
    finally:
        dispose(made_x + made_y)
    if verbose:
        values = {
            name: float(t.data_sync()[0])
            for name, t in zip(model.metrics_names, outs, strict=False)
        }
        print(format_metrics(values, list(values)))
    return singleton_or_array(outs)


# ========================================================================= train_on_batch
def train_on_batch(
    model: Any, x: Any, y: Any, sample_weight: Any = None, class_weight: Any = None
) -> Any:
    """One optimizer step on one batch (``model.train_on_batch``). Returns the loss, or
    ``[loss, *metrics]``, as Python numbers (computed before the step); adds no tensor."""
    with ENGINE.pin_site():  # every tensor of the step is created on the caller's line
        x, made_x = _ensure_tensors(x)
        y, made_y = _ensure_tensors(y)
        try:
            xs, ys, weights = standardize_user_data(model, x, y, sample_weight, class_weight)
            try:
                train_function = make_train_function(model)
                outs = train_function(xs + ys + (weights or []))
                return singleton_or_array(_numbers(outs))
            finally:
                if weights is not None:
                    dispose([w for w in weights if w is not None])
                _dispose_new(xs, x)
                _dispose_new(ys, y)
        finally:
            dispose(made_x + made_y)


# ============================================================================== datasets
def fit_dataset(model: Any, dataset: Any, **kwargs: Any) -> History:
    """Trains on the batches of a dataset (``model.fit_dataset``); see
    :func:`tidytensor.layers.training_dataset.fit_dataset`."""
    from .training_dataset import fit_dataset as run

    return run(model, dataset, **kwargs)


def evaluate_dataset(model: Any, dataset: Any, **kwargs: Any) -> Any:
    """Loss and metrics over the batches of a dataset (``model.evaluate_dataset``); see
    :func:`tidytensor.layers.training_dataset.evaluate_dataset`."""
    from .training_dataset import evaluate_dataset as run

    return run(model, dataset, **kwargs)
