"""Standardizing the data given to ``fit``, ``evaluate`` and ``train_on_batch`` (TF.js's
``training_utils.ts`` and the checks of ``engine/training.ts``): ``x`` and ``y`` as one tensor
per model input and output, checked against the model's shapes and loss functions, and
``sample_weight`` / ``class_weight`` as one per-sample weight tensor per output.

Tensors made here (rank-1 data expanded to ``[n, 1]``, weights) belong to the caller, which
disposes them with ``_dispose_new`` (or ``dispose`` for weights); on an error nothing made
here is left behind."""

from __future__ import annotations

from typing import Any

from ... import ops
from ...py_strings import py_shape, py_value
from ...scopes import dispose, tidy
from ...tensor import Tensor
from .. import losses as losses_mod
from ..engine.input_data import ensure_tensors, ensure_tensors_rank2_or_higher
from ..errors import LayersRuntimeError, LayersValueError

__all__ = [
    "check_array_lengths",
    "standardize_class_weights",
    "standardize_input_data",
    "standardize_user_data",
    "standardize_user_data_xy",
    "standardize_weights",
]


def _ensure_tensors(x: Any) -> tuple[Any, list[Tensor]]:
    """``x`` with arrays and nested lists made tensors, and the tensors made."""
    return ensure_tensors(x)


def _shape_str(shape: Any) -> str:
    return py_shape(tuple(shape))


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
                f"Error when checking model {exception_prefix or 'input'} expected no data, but got {data}"
            )
        return []
    if data is None:
        return [None for _ in names]
    if isinstance(data, dict):
        arrays = []
        for name in names:
            if data.get(name) is None:
                raise LayersValueError(
                    f'No data provided for "{name}". Need data for each key in: {py_value(names)}'
                )
            arrays.append(data[name])
    elif isinstance(data, (list, tuple)):
        if len(data) != len(names):
            raise LayersValueError(
                f"Error when checking model {exception_prefix or 'input'}: the Array of Tensors that you are "
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
                f"Error when checking {exception_prefix or 'input'}: expected {names[i]} to be a Tensor, a "
                f"NumPy array or a nested list of numbers, but got {type(a).__name__}"
            )
    arrays = ensure_tensors_rank2_or_higher(arrays)
    if shapes is None:
        return arrays
    try:
        for i, name in enumerate(names):
            if shapes[i] is None:
                continue
            array = arrays[i]
            if len(array.shape) != len(shapes[i]):
                raise LayersValueError(
                    f"Error when checking {exception_prefix or 'input'}: expected {name} to have "
                    f"{len(shapes[i])} dimension(s), but got array with shape "
                    f"{_shape_str(array.shape)}"
                )
            for j, ref in enumerate(shapes[i]):
                if j == 0 and not check_batch_axis:
                    continue
                if ref is not None and ref >= 0 and array.shape[j] != ref:
                    raise LayersValueError(
                        f"{exception_prefix} expected a batch of elements where each example has "
                        f"shape {_shape_str(shapes[i][1:])} (i.e., tensor shape "
                        f"{_shape_str([None, *shapes[i][1:]])}) but the {exception_prefix} "
                        f"received an input with {array.shape[0]} examples, each with shape "
                        f"{_shape_str(array.shape[1:])} (tensor shape {_shape_str(array.shape)})"
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
            f"{py_shape([t.shape for t in inputs])}"
        )
    if len(set_y) > 1:
        raise LayersValueError(
            "All target Tensors (y) should have the same number of samples. Got array shapes: "
            f"{py_shape([t.shape for t in targets])}"
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
            "model.compile(optimizer=..., loss=...)."
        )
    # An output left out of a loss dictionary has no loss function: TF.js fails in the
    # middle of the step ("lossFunction is not a function"); say why before anything runs.
    for name, loss_fn in zip(model.output_names, model.loss_functions or [], strict=False):
        if loss_fn is None:
            raise LayersValueError(
                f'Output "{name}" has no loss: it was missing from the loss dictionary given to '
                "compile(), so the model cannot be trained or evaluated. Give every output a loss."
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
        f"with {num_outputs} elements or an object with {py_value(output_names)} keys. "
        f"Provided {kind} not understood: {x_weight!r}"
    )


def standardize_class_weights(class_weight: Any, output_names: list[str]) -> list[Any]:
    """One ``{class_index: weight}`` dict (or None) per output."""
    return _standardize_sample_or_class_weights(class_weight, output_names, "class_weight")


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
        # A label that is not a whole number (0.5) is a class of its own, missing from any
        # dict of integer classes (as in TF.js), not truncated to one.
        indices = [int(v) if float(v).is_integer() else float(v) for v in y_classes.data_sync()]
        y_classes.dispose()
        per_sample = []
        for index in indices:
            w = class_weight.get(index, class_weight.get(str(index)))
            if w is None:
                raise LayersValueError(
                    "class_weight must contain all classes in the training data. The class "
                    f"{index} exists in the data but not in class_weight"
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
                f"but got shape {py_shape(sw.shape)}"
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
            sample_weight, model.output_names, "sample_weight"
        )
        for i, target in enumerate(ys):
            weights.append(standardize_weights(target, sample_weights[i], class_weights[i]))
    except BaseException:
        dispose([w for w in weights if w is not None])
        _dispose_new(xs, x)
        _dispose_new(ys, y)
        raise
    return xs, ys, weights
