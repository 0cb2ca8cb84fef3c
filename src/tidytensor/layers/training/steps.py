"""One training or test step of a compiled model: ``make_train_function`` (forward pass, loss,
metrics and one optimizer step), ``make_test_function`` (loss and metrics), and the test loop
that averages a test function over batches."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ... import ops
from ...compiled import Function
from ...engine import ENGINE
from ...scopes import dispose, keep, tidy
from ...tensor import Tensor
from .. import backend as K
from ..engine.executor import FeedDict, execute
from ..engine.input_data import make_batches, slice_arrays_by_indices
from ..utils import singleton_or_array
from .inputs import _dispose_new, _ensure_tensors, standardize_user_data, standardize_user_data_xy

__all__ = [
    "get_deduped_metrics_names",
    "make_test_function",
    "make_train_function",
    "predict_function_of",
    "release_compiled_steps",
    "test_function_of",
    "test_on_batch",
    "train_function_of",
    "train_on_batch",
]


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
                # Each output's mean, for its metrics (one output's is the total's, taken
                # once unless someone watches TF.js's kernels one by one).
                if n_out > 1 or not ENGINE.may_fuse(1):
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
                train_function = train_function_of(model)
                outs = train_function(xs + ys + (weights or []))
                return singleton_or_array(_numbers(outs))
            finally:
                if weights is not None:
                    dispose([w for w in weights if w is not None])
                _dispose_new(xs, x)
                _dispose_new(ys, y)
        finally:
            dispose(made_x + made_y)


def test_on_batch(model: Any, x: Any, y: Any) -> Any:
    """The loss, or ``[loss, *metrics]``, of ``model`` on one batch as Python numbers
    (``model.test_on_batch``); changes no weight and adds no tensor."""
    with ENGINE.pin_site():
        x, made_x = _ensure_tensors(x)
        y, made_y = _ensure_tensors(y)
        try:
            xs, ys = standardize_user_data_xy(model, x, y)
            try:
                return singleton_or_array(_numbers(test_function_of(model)(xs + ys)))
            finally:
                _dispose_new(xs, x)
                _dispose_new(ys, y)
        finally:
            dispose(made_x + made_y)


# ---------------------------------------------------------------------- compiled steps
# ``model.compile(..., run_eagerly=False)`` (the default, as in Keras 3) makes each of the
# model's step functions a ``tf.function`` (``tidytensor.compiled``): the first step with a
# batch shape runs eagerly while it is traced, later ones replay its kernels. The train
# step's signature holds the optimizer's hyperparameters and the trainable weights too, so a
# learning rate a callback changes, or a layer made untrainable, traces the step again.
# ``run_eagerly=True`` (or ``tf.config.run_functions_eagerly(True)``) runs every step op by
# op: the reference the replays equal bit for bit. The functions live in
# ``model.compiled_steps`` until the next ``compile``.


def _steps(model: Any) -> dict[str, Function] | None:
    """The model's compiled step functions, or None when it runs eagerly: compiled with
    ``run_eagerly=True``, or holding a stateful RNN layer, whose states live in Python
    attributes that each call replaces (a replay runs no Python)."""
    if getattr(model, "run_eagerly", False) or getattr(model, "stateful", False):
        return None
    steps = model.__dict__.get("compiled_steps")
    if steps is None:
        steps = model.compiled_steps = {}
    return steps


def release_compiled_steps(model: Any) -> None:
    """Frees the scratch arrays of the model's compiled steps (``model.dispose``, and a new
    ``compile``, whose steps trace again): their bytes leave the engine's live bytes now. A
    ``Sequential`` model's steps are its inner model's (``model.model``)."""
    for owner in (model, model.__dict__.get("model")):
        steps = getattr(owner, "__dict__", {}).get("compiled_steps") or {}
        for fn in steps.values():
            fn.release_scratch()


def _hyperparameters(optimizer: Any) -> tuple:
    config = optimizer.get_config() if optimizer is not None else {}
    return tuple((k, v) for k, v in config.items() if isinstance(v, (int, float, str, bool)))


def train_function_of(model: Any) -> Callable[[list[Any]], list[Any]]:
    """``make_train_function(model)``, compiled unless the model runs eagerly."""
    steps = _steps(model)
    if steps is None or getattr(model.optimizer_, "_tidytensor_strategy", None) is not None:
        # A data-parallel optimizer (``strategy.distribute_optimizer``) averages the
        # gradients across workers on the host in the middle of the step: a trace would read
        # them back to Python (and run eagerly with a warning), so the step runs op by op.
        return make_train_function(model)
    fn = steps.get("train")
    if fn is None:
        plain = make_train_function(model)
        fn = steps["train"] = Function(
            lambda data, hyper, weights: plain(data), name=f"{model.name}_train_step"
        )

    def train_function(data: list[Any]) -> list[Any]:
        weights = tuple(id(w) for w in model.collected_trainable_weights or ())
        return fn(data, _hyperparameters(model.optimizer_), weights)

    return train_function


def test_function_of(model: Any) -> Callable[[list[Any]], list[Any]]:
    """``make_test_function(model)``, compiled unless the model runs eagerly."""
    steps = _steps(model)
    plain = make_test_function(model)
    if steps is None:
        return plain
    fn = steps.get("test")
    if fn is None:
        fn = steps["test"] = Function(plain, name=f"{model.name}_test_step")
    return fn


def predict_function_of(model: Any) -> Callable[[list[Any]], list[Any]]:
    """The model's outputs for one batch of inputs, compiled unless it runs eagerly."""

    def predict_step(ins_batch: list[Any]) -> list[Any]:
        feed = FeedDict(list(zip(model.inputs, ins_batch, strict=False)))
        return execute(model.outputs, feed)

    steps = _steps(model)
    if steps is None:
        return predict_step
    fn = steps.get("predict")
    if fn is None:
        fn = steps["predict"] = Function(predict_step, name=f"{model.name}_predict_step")
    return fn
