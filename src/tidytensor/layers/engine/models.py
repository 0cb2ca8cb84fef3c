"""Models: functional ``LayersModel`` (``tf.model``) and ``Sequential`` (``tf.sequential``)
(TF.js's ``engine/training.ts`` and ``models.ts``).

>>> import tidytensor.layers as layers
>>> m = sequential([layers.dense(units=2, input_shape=[3], kernel_initializer='ones')])
>>> y = m.predict(tf.ones([1, 3]))
>>> y.array_sync()
[[3.0, 3.0]]
>>> m.count_params()
8

Training (``compile``, ``fit``, ``evaluate``, ``train_on_batch``, ``test_on_batch``,
``fit_dataset``, ``evaluate_dataset``) comes from :class:`~..training.trainer.Trainer`, which
``LayersModel`` mixes in (Keras 3's ``Model(Trainer, Layer)``). The attributes it uses are created (empty) in :class:`LayersModel`'s constructor: ``optimizer_``,
``is_optimizer_owned``, ``loss``, ``loss_functions``, ``feed_output_names``,
``feed_output_shapes``, ``feed_loss_fns``, ``collected_trainable_weights``, ``metrics``,
``metrics_names``, ``metrics_tensors``, ``history``, ``is_training``.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Callable
from typing import Any

from ... import ops
from ...engine import ENGINE
from ...errors import short_traceback
from ...js_strings import js_json
from ...py_strings import py_shape, py_value
from ...runtime import memory
from ...tensor import Tensor
from ..errors import LayersNotImplementedError, LayersRuntimeError, LayersValueError
from ..training.steps import predict_function_of, release_compiled_steps
from ..training.trainer import Trainer
from ..utils import convert_ts_to_pythonic, get_exactly_one_shape, singleton_or_array
from .container import Container
from .executor import FeedDict, execute
from .input_data import (
    check_batch_size,
    check_input_data,
    dispose_new_tensors,
    ensure_tensors,
    ensure_tensors_rank2_or_higher,
    make_batches,
    slice_arrays,
)
from .input_layer import input as _input
from .keras_files import is_keras_file, load_keras_weights, model_from_json, save_keras_weights
from .predict_fast import PredictShortcut, creation_site
from .saving import LAYERS_VERSION, save_model
from .serialization import deserialize, register_class
from .state import get_uid
from .summary import print_summary
from .topology import DisposeResult, Layer, Node, SymbolicTensor, get_source_inputs
from .weight_checkpoints import load_weights_file, save_weights_file

__all__ = ["Functional", "LayersModel", "Sequential", "model", "model_from_json", "sequential"]


@register_class
class LayersModel(Trainer, Container):
    """A functional model: a graph of layers from ``inputs`` to ``outputs``
    (``tf.model(inputs=..., outputs=...)``).

    Args:
        inputs: input symbolic tensor(s), from ``tf.input``.
        outputs: output symbolic tensor(s).
        name: default ``model1``, ``model2``...
    """

    class_name = "Model"

    def __init__(self, inputs: Any = None, outputs: Any = None, name: str | None = None):
        super().__init__(inputs=inputs, outputs=outputs, name=name)
        self.is_training = False
        self.optimizer_: Any = None
        self.is_optimizer_owned = False
        self.loss: Any = None
        self.loss_functions: list[Any] | None = None
        self.feed_output_shapes: list[Any] | None = None
        self.feed_loss_fns: list[Any] | None = None
        self.collected_trainable_weights: list[Any] | None = None
        self.test_function: Callable | None = None
        #: Keras 3's ``compile(run_eagerly=...)``: False runs fit/evaluate/predict and the
        #: ``*_on_batch`` calls as compiled steps (``training/steps.py``).
        self.run_eagerly = False
        self.jit_compile: bool | None = None
        self.compiled_steps: dict[str, Any] = {}
        self.history: Any = None
        self._stop_training = False
        self.metrics: Any = None
        self.metrics_names: list[str] | None = None
        self.metrics_tensors: list[Any] | None = None
        self._user_defined_metadata: dict[str, Any] | None = None

    # ------------------------------------------------------------------ summary
    def summary(
        self,
        line_length: int | None = None,
        positions: list[float] | None = None,
        print_fn: Callable[[str], Any] | None = None,
    ) -> None:
        """Prints the layer table: ``Layer (type)``, ``Input Shape``, ``Output shape``,
        ``Param #`` and the totals, one ``print_fn`` call per line (default ``print``)."""
        if not self.built:
            raise LayersValueError(
                "This model has never been called, thus its weights have not been created yet. "
                "So no summary can be displayed. Build the model first (e.g., by calling it on "
                "some test data)."
            )
        print_summary(self, line_length, positions, print_fn)

    def check_trainable_weights_consistency(self) -> None:
        if self.collected_trainable_weights is None:
            return
        if len(self.trainable_weights) != len(self.collected_trainable_weights):
            warnings.warn(
                "Discrepancy between trainableweights and collected trainable weights. Did you "
                "set `model.trainable` without calling `model.compile()` afterwards?",
                stacklevel=3,
            )

    # ----------------------------------------------------------------- predict
    @short_traceback
    def execute(self, inputs: Any, outputs: str | list[str]) -> Any:
        """Computes the named symbolic tensors (``layer.output.name``, e.g.
        ``'dense_Dense1/dense_Dense1'``) from ``inputs`` (a tensor, a list, or a dict by
        input name). Returns a tensor, or a list when ``outputs`` is a list."""
        if isinstance(outputs, (list, tuple)) and len(outputs) == 0:
            raise LayersValueError("`outputs` is an empty Array, which is not allowed.")
        outputs_is_array = isinstance(outputs, (list, tuple))
        names = list(outputs) if outputs_is_array else [outputs]
        symbolic = self._retrieve_symbolic_tensors(names)
        feed = FeedDict()
        if isinstance(inputs, Tensor):
            inputs = [inputs]
        if isinstance(inputs, (list, tuple)):
            if len(inputs) != len(self.inputs):
                raise LayersValueError(
                    f"The number of inputs provided ({len(inputs)}) does not match the number of "
                    f"inputs of this model ({len(self.inputs)})."
                )
            for key, value in zip(self.inputs, inputs, strict=False):
                feed.add(key, value)
        else:
            for key in self.inputs:
                value = inputs.get(key.name)
                if value is None:
                    raise LayersValueError(f"No value is provided for the model's input {key.name}")
                feed.add(key, value)
        result = execute(symbolic, feed)
        return result if outputs_is_array else result[0]

    def _retrieve_symbolic_tensors(self, names: list[str]) -> list[SymbolicTensor]:
        """The symbolic tensors named ``names`` among the outputs of this model's layers
        (every call of a shared layer counts; TF.js only looks at layers called once)."""
        by_name: dict[str, SymbolicTensor] = {}
        for layer in self.layers:
            for node_index, node in enumerate(layer.inbound_nodes):
                if Container.node_key(layer, node_index) in self.container_nodes:
                    for out in node.output_tensors:
                        by_name.setdefault(out.name, out)
        missing = [n for n in names if n not in by_name]
        if missing:
            raise LayersValueError(
                f"Cannot find SymbolicTensors for output name(s): {py_value(missing)}"
            )
        return [by_name[n] for n in names]

    def _predict_loop(self, ins: list[Tensor], batch_size: int = 32) -> Any:
        def body() -> Any:
            num_samples = ins[0].shape[0]
            outs_batches: list[list[Tensor]] = [[] for _ in self.outputs]
            predict_step = predict_function_of(self)
            if (
                num_samples <= batch_size
                and not self.run_eagerly
                and not ENGINE.run_functions_eagerly
                and not ENGINE.state.profiling
            ):
                # One batch, compiled: its replay's outputs are already new tensors (TF.js's
                # slice and one-tensor concat would only copy them; tf.profile lists those).
                outs = predict_step(list(ins))
                inputs = {id(t.data_id) for t in ins}
                if len({id(o) for o in outs}) == len(outs) and all(
                    id(o.data_id) not in inputs for o in outs
                ):
                    return singleton_or_array(outs)
                # An output repeated, or viewing an input's buffer (reshape, an identity
                # layer): TF.js's slice and concat give it a buffer and a handle of its own,
                # so the batch loop below runs (this tidy frees what the replay made).
            for start, end in make_batches(num_samples, batch_size):

                def batch(start: int = start, end: int = end) -> list[Tensor]:
                    return predict_step(slice_arrays(ins, start, end))

                for i, out in enumerate(ENGINE.tidy(batch)):
                    outs_batches[i].append(out)
            return singleton_or_array([ops.concat(b, 0) for b in outs_batches])

        return ENGINE.tidy(body)

    def _inputs_by_name(self, x: Any) -> Any:
        """A dict of inputs by input name as the list the model takes (a Keras habit)."""
        if not isinstance(x, dict):
            return x
        missing = [name for name in self.input_names if name not in x]
        if missing:
            raise LayersValueError(
                f"No data provided for {py_value(missing)}. Need data for each key in: "
                f"{py_value(self.input_names)}"
            )
        return [x[name] for name in self.input_names]

    @short_traceback
    def predict(self, x: Any, batch_size: int = 32, verbose: bool = False) -> Any:
        """Runs the model on ``x`` in batches and returns the output(s): exactly one new
        tensor per output (every temporary is freed).

        Args:
            x: a tensor (NumPy arrays and nested lists are accepted), or a list of them, one
                per input, or a dict of them by input name.
            batch_size: samples per batch.
            verbose: ignored (as in TF.js).

        Raises:
            LayersValueError: wrong number of inputs, or an input of the wrong shape.
        """
        shortcut = self.__dict__.get("_predict_shortcut")
        if shortcut is not None and type(x) is Tensor and type(batch_size) is int:
            outs = shortcut.run(x, batch_size, creation_site())
            if outs is not None:
                return outs
        self._assert_not_disposed()
        x, made = ensure_tensors(self._inputs_by_name(x))
        try:
            xs = ensure_tensors_rank2_or_higher(x)
            try:
                check_input_data(xs, self.input_names, self.feed_input_shapes, False)
                batch_size = 32 if batch_size is None else batch_size
                check_batch_size(batch_size)
                outs = self._predict_loop(xs, batch_size)
                if type(x) is Tensor and len(xs) == 1 and xs[0] is x:
                    self._remember_predict(x, batch_size, outs)
                return outs
            finally:
                dispose_new_tensors(xs, x)
        finally:
            for t in made:
                t.dispose()

    @short_traceback
    def predict_on_batch(self, x: Any) -> Any:
        """Runs the model on one batch ``x`` (TF.js's ``predictOnBatch``): one new tensor per
        output. ``x`` takes the forms of :meth:`predict`; every input's batch size must match.
        """
        shortcut = self.__dict__.get("_predict_shortcut")
        if shortcut is not None and type(x) is Tensor:
            outs = shortcut.run(x, None, creation_site())
            if outs is not None:
                return outs
        self._assert_not_disposed()
        x, made = ensure_tensors(self._inputs_by_name(x))
        try:
            check_input_data(x, self.input_names, self.feed_input_shapes, True)
            batch_size = (x[0] if isinstance(x, (list, tuple)) else x).shape[0]
            outs = self._predict_loop(list(x) if isinstance(x, (list, tuple)) else [x], batch_size)
            if type(x) is Tensor and not made:
                self._remember_predict(x, None, outs)
            return outs
        finally:
            for t in made:
                t.dispose()

    def _remember_predict(self, x: Tensor, batch_size: int | None, outs: Any) -> None:
        """Lets the next ``predict``/``predict_on_batch`` of a tensor like ``x`` replay
        directly (``predict_fast.py``)."""
        if self.run_eagerly or not self.__dict__.get("compiled_steps"):
            return
        shortcut = self.__dict__.get("_predict_shortcut")
        if shortcut is None:
            shortcut = self._predict_shortcut = PredictShortcut(self)
        shortcut.remember(x, batch_size, outs)

    # ---------------------------------------------------------------- saving
    def save(
        self,
        handler_or_url: Any,
        include_optimizer: bool = False,
        quantize: str | None = None,
        shard_size_bytes: int = 4194304,
        trainable_only: bool = False,
    ) -> Any:
        """Saves topology and weights in TF.js's format (``tidytensor.io.save_model``):
        a directory or ``file://``, ``http(s)://``, ``localstorage://``/``indexeddb://``
        (a local model store) or an IO handler; returns TF.js's SaveResult."""
        return save_model(
            self, handler_or_url, include_optimizer, quantize, shard_size_bytes, trainable_only
        )

    def save_weights(self, filepath: Any, overwrite: bool = True) -> str:
        """Saves the weights to the checkpoint ``filepath`` (``'training/cp-0001.ckpt'``,
        Keras's and TF 2's ``save_weights``), atomically, and names it in the directory's
        ``checkpoint`` file (``tf.train.latest_checkpoint``); a ``.weights.h5`` path is
        written in Keras 3's layout instead (needs the extra ``keras``). Returns the path."""
        if is_keras_file(filepath):
            if os.fspath(filepath).lower().endswith(".keras"):
                raise LayersValueError(
                    f"save_weights: {os.fspath(filepath)!r} names a whole-model .keras file; "
                    "save weights to a '.weights.h5' path (or a checkpoint path such as "
                    "'training/cp-0001.ckpt')"
                )
            if not overwrite and os.path.exists(filepath):
                raise LayersValueError(f"save_weights: {filepath!r} exists and overwrite=False")
            return save_keras_weights(self, os.fspath(filepath))
        return save_weights_file(self, filepath, overwrite)

    def load_weights(self, weights: Any, strict: bool = True) -> None:
        """Sets the weights from a checkpoint path (``model.save_weights``, ModelCheckpoint,
        ``tf.train.latest_checkpoint``), a Keras ``.weights.h5``/``.h5`` file, or, as TF.js's
        ``loadWeights``, a ``{original_name: tensor}`` dict. A path whose weights do not fit
        the model's architecture raises ``ModelFormatError`` and changes nothing."""
        if is_keras_file(weights):
            load_keras_weights(self, weights)
            return
        if isinstance(weights, (str, os.PathLike)):
            load_weights_file(self, weights)
            return
        super().load_weights(weights, strict)

    @property
    def stop_training(self) -> bool:
        return self._stop_training

    @stop_training.setter
    def stop_training(self, stop: bool) -> None:
        self._stop_training = bool(stop)

    @property
    def optimizer(self) -> Any:
        return self.optimizer_

    @optimizer.setter
    def optimizer(self, optimizer: Any) -> None:
        if self.optimizer_ is not optimizer:
            self.optimizer_ = optimizer
            self.is_optimizer_owned = False

    # ------------------------------------------------------------------ dispose
    def dispose(self) -> DisposeResult:
        """Disposes the layers (at reference count 0) and an optimizer given by name to
        ``compile``; ``num_disposed_variables`` counts both."""
        result = super().dispose()
        if result.ref_count_after_dispose == 0:
            release_compiled_steps(self)
        if (
            result.ref_count_after_dispose == 0
            and self.optimizer is not None
            and self.is_optimizer_owned
        ):
            before = memory().num_tensors
            self.optimizer_.dispose()
            result.num_disposed_variables += before - memory().num_tensors
        return result

    # ------------------------------------------------------------ serialization
    def get_named_weights(self, trainable_only: bool = False) -> list[dict[str, Any]]:
        """``[{'name': original_name, 'tensor': variable}]`` for saving."""
        weights = self.trainable_weights if trainable_only else self.weights
        values = self.get_weights(trainable_only)
        return [
            {"name": w.original_name, "tensor": v}
            for w, v in zip(weights, values, strict=False)
            if not trainable_only or w.trainable
        ]

    def updated_config(self) -> dict[str, Any]:
        """``{class_name, config, keras_version, backend}`` (``model.json``'s
        ``modelTopology``)."""
        return {
            "class_name": self.get_class_name(),
            "config": self.get_config(),
            "keras_version": f"tfjs-layers {LAYERS_VERSION}",
            "backend": "tensor_flow.js",
        }

    def to_json(self, unused: Any = None, return_string: bool = True) -> Any:
        """The topology as ``model.json`` writes it (a JSON string, or a dict)."""
        config = convert_ts_to_pythonic(self.updated_config())
        return js_json(config) if return_string else config

    def set_user_defined_metadata(self, user_defined_metadata: dict[str, Any]) -> None:
        """Metadata saved with the model (a JSON-serializable dict)."""
        if not isinstance(user_defined_metadata, dict):
            raise LayersValueError(
                f"User-defined metadata is expected to be a JSON object, but is not: "
                f"{user_defined_metadata!r}"
            )
        json.dumps(user_defined_metadata)
        self._user_defined_metadata = user_defined_metadata

    def get_user_defined_metadata(self) -> dict[str, Any] | None:
        return self._user_defined_metadata


@register_class
class Functional(LayersModel):
    """An alias of :class:`LayersModel` (serialized as ``Functional``)."""

    class_name = "Functional"


@register_class
class Sequential(LayersModel):
    """A linear stack of layers (``tf.sequential``). The first layer needs ``input_shape``
    (or ``batch_input_shape``).

    Args:
        layers: layers to :meth:`add` in order.
        name: default ``sequential_1``, ``sequential_2``...
    """

    class_name = "Sequential"

    def __init__(self, layers: list[Layer] | None = None, name: str | None = None):
        super().__init__(inputs=[], outputs=[])
        self.model: LayersModel | None = None
        self.trainable = True
        self.built = False
        self.name = name if name is not None else get_uid("sequential_")
        for layer in layers or []:
            self.add(layer)

    def _check_shape(self, layer: Layer) -> None:
        shape = layer.inbound_nodes[0].output_tensors[0].shape
        if any(d is not None and d < 0 for d in shape):
            raise LayersValueError(
                f"Negative dimension size caused by adding layer {layer.name} with input shape "
                f"{py_shape(layer.inbound_nodes[0].input_tensors[0].shape)}"
            )

    def add(self, layer: Layer) -> None:
        """Appends ``layer`` (a layer or a single-input, single-output model). Predicting
        afterwards uses the new stack (recompile before training again)."""
        if not isinstance(layer, Layer):
            raise LayersValueError(
                f"Sequential.add() expects a Layer, but got {type(layer).__name__}"
            )
        is_model = isinstance(layer, LayersModel)
        if is_model:
            if len(layer.outputs) != 1:
                raise LayersValueError(
                    "All layers in a Sequential model should have a single output tensor. For "
                    "multi-output layers, use the functional API."
                )
            if len(layer.inputs) != 1:
                raise LayersValueError(
                    "All layers in a Sequential model should have a single input tensor. For "
                    "multi-input layers, use the functional API."
                )
        if not self.outputs:
            if not layer.inbound_nodes:
                if layer.batch_input_shape is None:
                    raise LayersValueError(
                        "The first layer in a Sequential model must get an `input_shape` or "
                        f"`batch_input_shape` argument (layer {layer.name} has neither)."
                    )
                x = _input(
                    batch_shape=layer.batch_input_shape,
                    dtype=layer.dtype,
                    name=layer.name + "_input",
                )
                layer.apply(x)
            if is_model:
                self.outputs = layer.outputs
                self.inputs = layer.inputs
            else:
                if len(layer.inbound_nodes) != 1:
                    raise LayersValueError(
                        f"A layer added to a Sequential model must not already be connected "
                        f"somewhere else. LayersModel received layer {layer.name} which has "
                        f"{len(layer.inbound_nodes)} pre-existing inbound connections."
                    )
                if len(layer.inbound_nodes[0].output_tensors) != 1:
                    raise LayersValueError(
                        "All layers in a Sequential model should have a single output tensor. "
                        "For multi-output layers, use the functional API."
                    )
                self._check_shape(layer)
                self.outputs = [layer.inbound_nodes[0].output_tensors[0]]
                self.inputs = get_source_inputs(self.outputs[0])
            self.inbound_nodes = []
            Node(
                outbound_layer=self,
                inbound_layers=[],
                node_indices=[],
                tensor_indices=[],
                input_tensors=self.inputs,
                output_tensors=self.outputs,
                input_masks=[None for _ in self.inputs],
                output_masks=[None],
                input_shapes=[x.shape for x in self.inputs],
                output_shapes=self.outputs[0].shape,
            )
        else:
            output = layer.apply(self.outputs[0])
            if isinstance(output, list):
                raise LayersValueError(
                    "All layers in a Sequential model should have a single output tensor. For "
                    "multi-output layers, use the functional API."
                )
            self._check_shape(layer)
            self.outputs = [output]
            self.inbound_nodes[0].output_tensors = self.outputs
            self.inbound_nodes[0].output_shapes = [self.outputs[0].shape]
        self.layers.append(layer)
        self.built = False

    def pop(self) -> None:
        """Removes the last layer."""
        if not self.layers:
            raise LayersValueError("There are no layers in the model.")
        self.layers.pop()
        if not self.layers:
            self.outputs = []
            self.inbound_nodes = []
            self.outbound_nodes = []
        else:
            last = self.layers[-1]
            last.outbound_nodes = []
            self.outputs = [last.output]
            self.inbound_nodes[0].output_tensors = self.outputs
            self.inbound_nodes[0].output_shapes = [self.outputs[0].shape]
        self.built = False  # the inner model is rebuilt on next use (TF.js would keep it)

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        if self.model is None or not self.built:
            self.build()
        return self.model.call(inputs, **kwargs)

    def build(self, input_shape: Any = None) -> None:
        """Makes the inner functional model (done automatically when needed)."""
        get_exactly_one_shape(input_shape)
        if not self.inputs or not self.outputs:
            raise LayersValueError(
                "Sequential model cannot be built: model is empty. Add some layers first."
            )
        self.model = LayersModel(
            inputs=self.inputs, outputs=self.outputs[0], name=self.name + "_model"
        )
        self.model.trainable = self.trainable
        self.model._outer_model = self  # callbacks and checkpoints see the Sequential
        self.supports_masking = self.model.supports_masking
        self.input_layers = self.model.input_layers
        self.input_layers_node_indices = self.model.input_layers_node_indices
        self.input_layers_tensor_indices = self.model.input_layers_tensor_indices
        self.output_layers = self.model.output_layers
        self.output_layers_node_indices = self.model.output_layers_node_indices
        self.output_layers_tensor_indices = self.model.output_layers_tensor_indices
        self.nodes_by_depth = self.model.nodes_by_depth
        self.container_nodes = self.model.container_nodes
        self.output_names = self.model.output_names
        self.input_names = self.model.input_names
        self.built = True

    def count_params(self) -> int:
        if not self.built:
            self.build()
        return super().count_params()

    def summary(
        self,
        line_length: int | None = None,
        positions: list[float] | None = None,
        print_fn: Callable[[str], Any] | None = None,
    ) -> None:
        if not self.built:
            self.build()
        super().summary(line_length, positions, print_fn)

    def _short_way(self, x: Any, batch_size: int | None) -> Any:
        """The inner model's remembered replay of ``predict`` (``batch_size`` an int) or
        ``predict_on_batch`` (None) of the tensor ``x`` (``predict_fast.py``), straight from
        this model's call; None where the long way runs."""
        model = self.model
        if model is None or not self._built or not self._ref_count or type(x) is not Tensor:
            return None
        shortcut = model.__dict__.get("_predict_shortcut")
        return None if shortcut is None else shortcut.run(x, batch_size, creation_site(1))

    def set_weights(self, weights: list[Any]) -> None:
        if self.model is None:
            self.build()
        self.model.set_weights(weights)

    @short_traceback
    def predict(self, x: Any, batch_size: int = 32, verbose: bool = False) -> Any:
        if type(batch_size) is int:
            outs = self._short_way(x, batch_size)
            if outs is not None:
                return outs
        if self.model is None or not self.built:
            self.build()
        self._assert_not_disposed()
        return self.model.predict(x, batch_size, verbose)

    @short_traceback
    def predict_on_batch(self, x: Any) -> Any:
        outs = self._short_way(x, None)
        if outs is not None:
            return outs
        if self.model is None or not self.built:
            self.build()
        self._assert_not_disposed()
        return self.model.predict_on_batch(x)

    @short_traceback
    def execute(self, inputs: Any, outputs: str | list[str]) -> Any:
        if self.model is None or not self.built:
            self.build()
        return self.model.execute(inputs, outputs)

    def compile(  # noqa: A003 - TF.js's name
        self, optimizer: Any = None, loss: Any = None, metrics: Any = None, **kwargs: Any
    ) -> None:
        # Builds the wrapped functional model and compiles it; the docstring is Trainer's.
        old = self.model
        self.build()
        try:
            self.model.compile(optimizer=optimizer, loss=loss, metrics=metrics, **kwargs)
        except BaseException:
            self.model = old  # a failed compile leaves the model as it was
            raise
        if old is not None and old is not self.model:
            release_compiled_steps(old)  # its steps trace no more
        if (
            old is not None
            and old.is_optimizer_owned
            and old.optimizer_ is not None
            and old.optimizer_ is not self.model.optimizer_
        ):
            old.optimizer_.dispose()  # TF.js leaks the optimizer it owned
        self.optimizer_ = self.model.optimizer
        self.is_optimizer_owned = self.model.is_optimizer_owned
        self.loss = self.model.loss
        self.metrics = self.model.metrics
        self.metrics_tensors = self.model.metrics_tensors
        self.metrics_names = self.model.metrics_names

    @property
    def optimizer(self) -> Any:
        return None if self.model is None else self.model.optimizer

    @optimizer.setter
    def optimizer(self, optimizer: Any) -> None:
        self.model.optimizer = optimizer

    def _require_built(self) -> None:
        if not self.built:
            raise LayersRuntimeError("The model needs to be compiled before being used.")

    def _trained_model(self) -> LayersModel:
        self._require_built()
        return self.model

    @property
    def stop_training(self) -> bool:
        if self.model is None:
            raise LayersValueError(
                "Cannot get the stop_training property of a sequential model before it is compiled."
            )
        return self.model.stop_training

    @stop_training.setter
    def stop_training(self, stop: bool) -> None:
        if self.model is None:
            raise LayersValueError(
                "Cannot set the stop_training property of a sequential model before it is compiled."
            )
        self.model.stop_training = stop

    def get_config(self) -> dict[str, Any]:
        """``{name, layers: [{class_name, config}]}``."""
        return {
            "name": self.name,
            "layers": [
                {"class_name": layer.get_class_name(), "config": layer.get_config()}
                for layer in self.layers
            ],
        }

    @classmethod
    def from_config(
        cls,
        config: Any,
        custom_objects: dict[str, Any] | None = None,
        fast_weight_init: bool = False,
    ) -> Sequential:
        """A Sequential from ``{name, layers}`` (or the legacy bare list of layers)."""
        if isinstance(config, list):
            if not config or config[0].get("class_name", config[0].get("className")) in (
                None,
                "Merge",
            ):
                raise LayersValueError("Legacy serialization format not supported yet.")
            layer_configs, extra = config, {}
        else:
            if "layers" not in config:
                raise LayersValueError(
                    "When the config data for a Sequential model is not an Array, it must be an "
                    "Object that contains the 'layers' field."
                )
            layer_configs = config["layers"]
            extra = {k: v for k, v in config.items() if k == "name"}
        result = cls(**extra)
        if not isinstance(result, Sequential):
            raise LayersNotImplementedError(
                f"Sequential.from_config called on non-Sequential input: {result}"
            )
        for conf in layer_configs:
            layer = deserialize(conf, custom_objects, fast_weight_init)
            if fast_weight_init:
                layer.set_fast_weight_init_during_build(True)
            result.add(layer)
        return result


def model(inputs: Any = None, outputs: Any = None, name: str | None = None) -> LayersModel:
    """A functional model from input and output symbolic tensors (``tf.model``).

    >>> import tidytensor.layers as layers
    >>> a = layers.input(shape=[2]); b = layers.input(shape=[3])
    >>> m = model(inputs=[a, b], outputs=[layers.dense(units=1).apply(a), layers.dense(units=2).apply(b)])
    >>> [y.shape for y in m.predict([tf.ones([4, 2]), tf.ones([4, 3])])]
    [[4, 1], [4, 2]]
    """
    return LayersModel(inputs=inputs, outputs=outputs, name=name)


def sequential(layers: list[Layer] | None = None, name: str | None = None) -> Sequential:
    """A :class:`Sequential` model (``tf.sequential``), optionally with its layers."""
    return Sequential(layers=layers, name=name)
