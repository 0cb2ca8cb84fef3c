"""Recurrent layers (TF.js's ``layers/recurrent.ts``): RNN, SimpleRNN, GRU, LSTM, the ``rnn``
time loop — and the ``tf.layers`` factories of these and of the cells (SimpleRNNCell, GRUCell,
LSTMCell, StackedRNNCells, defined in ``recurrent_cells.py``).

>>> layer = lstm(units=3, return_sequences=True, input_shape=[5, 2], name='lstm_doc')
>>> layer.apply(tf.ones([4, 5, 2])).shape
[4, 5, 3]
>>> [w.original_name for w in layer.weights]
['lstm_doc/kernel', 'lstm_doc/recurrent_kernel', 'lstm_doc/bias']

Everything TF.js does is here, with its defaults (``glorotNormal`` kernels, ``orthogonal``
recurrent kernels, ``hardSigmoid`` recurrent activation for GRU and LSTM, ``resetAfter``
false for GRU; Keras's ``reset_after=True`` is supported too) and its semantics:
``return_sequences``, ``return_state``, ``go_backwards``, ``stateful`` with ``reset_states`` (old states kept while training, as TF.js keeps them for
backpropagation through time), masks from ``Masking`` or ``Embedding(mask_zero=True)``,
``dropout`` / ``recurrent_dropout`` masks generated once per call and kept on the cell, and
``get_config`` as TF.js serializes it.

How the time loop runs. A SimpleRNN, GRU or LSTM layer (or ``rnn(cell=...)`` with one of
those cells) whose activations are ``linear``, ``relu``, ``sigmoid``, ``hardSigmoid`` or
``tanh`` (LSTM: not ``hardSigmoid`` for ``activation``) runs the whole sequence as one fused
kernel (``backends/xp_kernels/recurrent.py``) and its backward pass as one more, computing
the same values as TF.js's per-step ops. Any other cell (custom cells, stacked cells,
``ConvLSTM2DCell``, other activations, a ``dropout_func``, GRU with ``reset_after``) runs
TF.js's per-step loop, :func:`rnn_loop`, op by op.

``unroll`` is accepted and ignored, as in TF.js (there is no graph to unroll).
"""

from __future__ import annotations

import inspect
import warnings
from typing import Any

from .. import ops
from ..engine import ENGINE
from ..engine.kernel_scratch import ScratchOwner
from ..kernel_names import recurrent as kr
from ..naming import did_you_mean
from ..ops.recurrent import SEQUENCE_OPS
from ..py_strings import py_shape
from ..scopes import dispose, keep
from ..tensor import Tensor
from . import backend as K
from .engine.serialization import deserialize, normalize_config_keys, register_class
from .engine.topology import InputSpec, Layer, SymbolicTensor
from .errors import LayersAttributeError, LayersNotImplementedError, LayersValueError
from .recurrent_cells import (  # noqa: F401 - the cells are part of this module's API
    GRUCell,
    LSTMCell,
    RNNCell,
    SimpleRNNCell,
    StackedRNNCells,
    _mask_of,
    _state_sizes,
    _StepShape,
    generate_dropout_mask,
)
from .utils import assert_positive_int, get_exactly_one_tensor, is_array_of_shapes

__all__ = [
    "RNN",
    "RNNCell",
    "gru",
    "gru_cell",
    "lstm",
    "lstm_cell",
    "rnn",
    "simple_rnn",
    "simple_rnn_cell",
    "stacked_rnn_cells",
]

#: Arguments of the Layer base class that a recurrent layer also gives to the cell it makes
#: (TF.js passes the whole argument object to both).
_CELL_LAYER_ARGS = (
    "input_shape",
    "batch_input_shape",
    "batch_size",
    "dtype",
    "name",
    "trainable",
    "input_dtype",
)


# ===================================================================== argument helpers
def standardize_args(
    inputs: Any, initial_state: Any, constants: Any, num_constants: int | None
) -> tuple[Any, list | None, list | None]:
    """Splits ``[inputs, *initial_state, *constants]`` (how a model loaded from a file
    passes them) into its parts; ``initial_state`` and ``constants`` become lists or None.

    Raises:
        LayersValueError: ``inputs`` is a list and ``initial_state`` or ``constants`` is given.
    """
    if isinstance(inputs, (list, tuple)):
        if initial_state is not None or constants is not None:
            raise LayersValueError(
                "When inputs is an array, neither initial_state or constants should be provided"
            )
        inputs = list(inputs)
        if num_constants is not None:
            constants = inputs[len(inputs) - num_constants :]
            inputs = inputs[: len(inputs) - num_constants]
        if len(inputs) > 1:
            initial_state = inputs[1:]
        inputs = inputs[0]

    def to_list_or_none(x: Any) -> list | None:
        if x is None:
            return None
        return list(x) if isinstance(x, (list, tuple)) else [x]

    return inputs, to_list_or_none(initial_state), to_list_or_none(constants)


def rnn_loop(
    step_function: Any,
    inputs: Tensor,
    initial_states: list[Tensor],
    go_backwards: bool = False,
    mask: Tensor | None = None,
    constants: Any = None,
    unroll: bool = False,
    need_per_step_outputs: bool = False,
) -> list[Any]:
    """Iterates ``step_function(step_input, states) -> [output, new_states]`` over the time
    axis (axis 1) of ``inputs`` (the ``rnn`` function of TF.js's ``recurrent.ts``; the name
    ``rnn`` here is the layer factory).

    Args:
        step_function: called with a ``[samples, ...]`` input and the list of states.
        inputs: ``[samples, time, ...]`` (rank >= 3).
        initial_states: the states at the first step.
        go_backwards: iterate from the last step; outputs come in that (reversed) order.
        mask: ``[samples, time]`` (or ``[samples, time, 1]``); a zero keeps the previous
            output and states at that step.
        constants: not supported (as in TF.js).
        unroll: ignored (warns), as in TF.js.
        need_per_step_outputs: also return every step's output, stacked on axis 1.

    Returns:
        ``[last_output, outputs (or None), new_states]``.
    """

    def body() -> list[Any]:
        ndim = inputs.rank
        if ndim < 3:
            raise LayersValueError(f"Input should be at least 3D, but is {ndim}D.")
        axes = [1, 0, *range(2, ndim)]
        x = ops.transpose(inputs, axes)
        if constants is not None:
            raise LayersNotImplementedError(
                "The rnn() functoin of the deeplearn.js backend does not support constants yet."
            )
        if unroll:
            warnings.warn(
                "Backend rnn(): the unroll=True option is not applicable to the imperative "
                "deeplearn.js backend.",
                stacklevel=3,
            )
        m = mask
        if m is not None:
            m = ops.cast(ops.cast(m, "bool"), "float32")
            if m.rank == ndim - 1:
                m = ops.expand_dims(m, -1)
            m = ops.transpose(m, axes)
        if go_backwards:
            x = ops.reverse(x, 0)
            if m is not None:
                m = ops.reverse(m, 0)
        per_step_outputs: list[Tensor] = []
        last_output = None
        states = initial_states
        per_step_inputs = ops.unstack(x)
        per_step_masks = ops.unstack(m) if m is not None else None
        for t in range(x.shape[0]):
            current = per_step_inputs[t]
            step_outputs = ENGINE.tidy(
                lambda current=current, states=states: step_function(current, states)
            )
            if per_step_masks is None:
                last_output, states = step_outputs[0], step_outputs[1]
            else:
                step_mask = per_step_masks[t]

                def masked(step_outputs=step_outputs, states=states, step_mask=step_mask):
                    neg = ops.sub(ops.ones_like(step_mask), step_mask)
                    output = ops.add(ops.mul(step_outputs[0], step_mask), ops.mul(states[0], neg))
                    new_states = [
                        ops.add(ops.mul(step_outputs[1][i], step_mask), ops.mul(s, neg))
                        for i, s in enumerate(states)
                    ]
                    return [output, new_states]

                last_output, states = ENGINE.tidy(masked)
            if need_per_step_outputs:
                per_step_outputs.append(last_output)
        outputs = ops.stack(per_step_outputs, 1) if need_per_step_outputs else None
        return [last_output, outputs, states]

    return ENGINE.tidy(body)


# =============================================================================== RNN
@register_class
class RNN(Layer):
    """Runs a cell over the time axis of ``[batch, time, features]`` inputs.

    Args:
        cell: an :class:`RNNCell` (or a list of cells, stacked with :class:`StackedRNNCells`).
        return_sequences: output every step's output (``[batch, time, units]``) instead of
            the last one.
        return_state: also output the final states (a list ``[output, *states]``).
        go_backwards: process the sequence from the end (outputs come reversed).
        stateful: carry the final states of a batch into the next call (needs a fixed
            batch size: ``batch_input_shape``); :meth:`reset_states` zeroes them.
        unroll: ignored (as in TF.js).
        input_dim: with ``input_length``, Keras's way to give
            ``input_shape=[input_length, input_dim]``.
        input_length: the number of time steps (see ``input_dim``).

    Call arguments: ``mask`` (``[batch, time]``), ``training``, ``initial_state`` (one tensor
    per state; symbolic ones become extra inputs of the layer).
    """

    class_name = "RNN"

    def __init__(
        self,
        cell: Any = None,
        return_sequences: bool | None = None,
        return_state: bool | None = None,
        go_backwards: bool | None = None,
        stateful: bool | None = None,
        unroll: bool | None = None,
        input_dim: int | None = None,
        input_length: int | None = None,
        num_constants: int | None = None,
        **kwargs: Any,
    ):
        if (
            input_dim is not None
            and kwargs.get("input_shape") is None
            and kwargs.get("batch_input_shape") is None
        ):
            kwargs["input_shape"] = [input_length, input_dim]
        super().__init__(**kwargs)
        if cell is None:
            raise LayersValueError("cell property is missing for the constructor of RNN.")
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cells=list(cell))
        if getattr(cell, "state_size", None) is None:
            raise LayersValueError(
                "The RNN cell should have an attribute `state_size` (tuple of integers, one "
                "integer per RNN state)."
            )
        self.cell = cell
        self.return_sequences = bool(return_sequences)
        self.return_state = bool(return_state)
        self.go_backwards = bool(go_backwards)
        self._stateful = bool(stateful)
        self.unroll = bool(unroll)
        self.supports_masking = True
        self.input_spec = [InputSpec(ndim=3)]
        self.state_spec: list[InputSpec] | None = None
        self.states_: list[Tensor] | None = None
        self.num_constants = num_constants
        self.kept_states: list[list[Tensor]] = []
        #: What the fused sequence kernels' scratch pool belongs to (``kernel_scratch``):
        #: released, with the pool's arrays, when the layer's weights are disposed.
        self._scratch_owner = ScratchOwner(self.name)

    def _dispose_weights(self) -> int:
        self._scratch_owner.release()
        return super()._dispose_weights()

    # ------------------------------------------------------------------ states
    @property
    def states(self) -> list[Tensor | None]:
        """The current state tensors of a stateful layer (Nones before they exist)."""
        if self.states_ is None:
            return [None] * len(_state_sizes(self.cell))
        return self.states_

    @states.setter
    def states(self, states: list[Tensor] | None) -> None:
        self.states_ = states

    def get_states(self) -> list[Tensor | None]:
        return self.states

    def set_states(self, states: list[Tensor] | None) -> None:
        self.states_ = states

    # ---------------------------------------------------------------- weights
    @property
    def trainable_weights(self) -> list:
        if not self.trainable:
            return []
        return self.cell.trainable_weights

    @trainable_weights.setter
    def trainable_weights(self, weights: list) -> None:
        self._trainable_weights = list(weights)

    @property
    def non_trainable_weights(self) -> list:
        if not self.trainable:
            return self.cell.weights
        return self.cell.non_trainable_weights

    @non_trainable_weights.setter
    def non_trainable_weights(self, weights: list) -> None:
        self._non_trainable_weights = list(weights)

    @property
    def losses(self) -> list:
        return self._losses + self.cell.losses

    def set_fast_weight_init_during_build(self, value: bool) -> None:
        super().set_fast_weight_init_during_build(value)
        if self.cell is not None:
            self.cell.set_fast_weight_init_during_build(value)

    # ------------------------------------------------------------------ shapes
    def compute_output_shape(self, input_shape: Any) -> Any:
        if is_array_of_shapes(input_shape):
            input_shape = input_shape[0]
        state_size = _state_sizes(self.cell)
        output_dim = state_size[0]
        if self.return_sequences:
            output_shape = [input_shape[0], input_shape[1], output_dim]
        else:
            output_shape = [input_shape[0], output_dim]
        if self.return_state:
            return [output_shape] + [[input_shape[0], dim] for dim in state_size]
        return output_shape

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if isinstance(mask, (list, tuple)):
            mask = mask[0] if mask else None
        output_mask = mask if self.return_sequences else None
        if self.return_state:
            return [output_mask] + [None for _ in self.states]
        return output_mask

    def build(self, input_shape: Any) -> None:
        if self.num_constants is not None:
            raise LayersNotImplementedError("Constants support is not implemented in RNN yet.")
        if is_array_of_shapes(input_shape):
            input_shape = input_shape[0]
        input_shape = list(input_shape)
        batch_size = input_shape[0] if self.stateful else None
        self.input_spec[0] = InputSpec(shape=[batch_size, None, *input_shape[2:]])
        step_input_shape = [input_shape[0], *input_shape[2:]]
        if not self.cell.built:
            self.cell.build(step_input_shape)
            self.cell.built = True
        state_size = _state_sizes(self.cell)
        if self.state_spec is not None:
            if [spec.shape[-1] for spec in self.state_spec] != state_size:
                raise LayersValueError(
                    f"An initial_state was passed that is not compatible with cell.state_size. "
                    f"Received state_spec={self.state_spec}; However cell.state_size is "
                    f"{self.cell.state_size}"
                )
        else:
            self.state_spec = [InputSpec(shape=[None, dim]) for dim in state_size]
        self.built = True
        if self.stateful:
            self.reset_states()

    def _zeros_state(self, batch_size: int, dim: int) -> Tensor:
        return ops.zeros([batch_size, dim])

    def _state_shape(self, index: int, batch_size: int) -> list[int]:
        return [batch_size, _state_sizes(self.cell)[index]]

    def reset_states(self, states: Any = None, training: bool = False) -> None:
        """Resets a stateful layer's states to zeros, or to ``states`` (one tensor per state,
        ``[batch_size, units]``). With ``training=True`` the old states are kept (not
        disposed) until the next argument-less call, as TF.js keeps them for backprop.

        Raises:
            LayersAttributeError: the layer is not stateful.
            LayersValueError: the batch size is unknown, or ``states`` has the wrong length
                or shapes.
        """

        def body() -> None:
            if not self.stateful:
                raise LayersAttributeError(
                    "Cannot call reset_states() on an RNN Layer that is not stateful."
                )
            batch_size = self.input_spec[0].shape[0] if self.input_spec[0].shape else None
            if batch_size is None:
                raise LayersValueError(
                    "If an RNN is stateful, it needs to know its batch size. Specify the batch "
                    "size of your input tensors: \n- If using a Sequential model, specify the "
                    "batch size by passing a `batch_input_shape` option to your first layer.\n- "
                    "If using the functional API, specify the batch size by passing a "
                    "`batch_shape` option to your Input layer."
                )
            sizes = _state_sizes(self.cell)
            if self.states_ is None:
                self.states_ = [self._state_zeros(i, batch_size) for i in range(len(sizes))]
            elif states is None:
                dispose(self.states_)
                if self.kept_states:
                    dispose(self.kept_states)
                    self.kept_states = []
                self.states_ = [self._state_zeros(i, batch_size) for i in range(len(sizes))]
            else:
                given = list(states) if isinstance(states, (list, tuple)) else [states]
                if len(given) != len(self.states_):
                    raise LayersValueError(
                        f"Layer {self.name} expects {len(self.states_)} state(s), but it "
                        f"received {len(given)} state value(s). Input received: {given}"
                    )
                if training is True:
                    self.kept_states.append(list(self.states_))
                else:
                    dispose(self.states_)
                for index, value in enumerate(given):
                    expected = self._state_shape(index, batch_size)
                    if list(value.shape) != expected:
                        raise LayersValueError(
                            f"State {index} is incompatible with layer {self.name}: expected "
                            f"shape={py_shape(expected)}, received shape={py_shape(value.shape)}"
                        )
                    self.states_[index] = value
            self.states_ = [keep(ops.clone(s)) for s in self.states_]

        ENGINE.tidy(body)

    def _state_zeros(self, index: int, batch_size: int) -> Tensor:
        return ops.zeros(self._state_shape(index, batch_size))

    # ---------------------------------------------------------------- calling
    def apply(self, inputs: Any, kwargs: dict[str, Any] | None = None, **more: Any) -> Any:
        kw = dict(kwargs or {})
        kw.update(more)
        initial_state = kw.pop("initial_state", kw.pop("initialState", None))
        constants = kw.pop("constants", None)
        inputs, initial_state, constants = standardize_args(
            inputs, initial_state, constants, self.num_constants
        )
        for what, values in (("initial_state", initial_state), ("constants", constants)):
            for v in values or []:
                if not isinstance(v, (Tensor, SymbolicTensor)):
                    raise LayersValueError(
                        f"Layer {self.name}: {what} must be Tensors or SymbolicTensors (an "
                        f"array input is split as [inputs, ...initial_state]), but got "
                        f"{type(v).__name__}"
                    )
        additional_inputs: list[Any] = []
        additional_specs: list[InputSpec] = []
        if initial_state is not None:
            kw["initial_state"] = initial_state
            additional_inputs += initial_state
            self.state_spec = [InputSpec(shape=list(s.shape)) for s in initial_state]
            additional_specs += self.state_spec
        if constants is not None:
            kw["constants"] = constants
            additional_inputs += constants
            self.num_constants = len(constants)
        if additional_inputs and isinstance(additional_inputs[0], SymbolicTensor):
            full_input = [inputs, *additional_inputs]
            original_spec = self.input_spec
            self.input_spec = list(original_spec or []) + additional_specs
            try:
                return super().apply(full_input, kw)
            finally:
                self.input_spec = original_spec
        return super().apply(inputs, kw)

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        mask = kwargs.get("mask")
        if isinstance(mask, (list, tuple)):
            mask = mask[0] if mask else None
        training = kwargs.get("training")
        initial_state = kwargs.get("initial_state", kwargs.get("initialState"))
        if isinstance(inputs, (list, tuple)) and len(inputs) > 1:
            inputs, initial_state, _ = standardize_args(inputs, None, None, self.num_constants)
        inputs = get_exactly_one_tensor(inputs)
        if isinstance(initial_state, Tensor):
            initial_state = [initial_state]
        if initial_state is not None and any(isinstance(s, SymbolicTensor) for s in initial_state):
            initial_state = None

        def body() -> Any:
            states = initial_state
            if states is None and self.stateful:
                states = self.states_
            fused = _fused_kind(self, inputs, mask, states)
            if states is None:
                # The fused path needs only zeros; TF.js's loop builds them from the input.
                states = (
                    _zero_states(self.cell, inputs) if fused else self.get_initial_state(inputs)
                )
            num_states = len(_state_sizes(self.cell))
            if len(states) != num_states:
                raise LayersValueError(
                    f"RNN Layer has {num_states} state(s) but was passed {len(states)} initial "
                    f"state(s)."
                )
            if self.unroll:
                warnings.warn(
                    "Ignoring unroll=True for RNN layer, due to imperative backend.",
                    stacklevel=4,
                )
            if inputs.rank >= 2 and inputs.shape[1] == 0:
                raise LayersValueError(
                    f"Layer {self.name} received an input with no time steps (shape "
                    f"{py_shape(inputs.shape)}): an RNN needs at least one step."
                )
            if fused is not None:
                last_output, outputs, new_states = _call_fused(
                    self, fused, inputs, mask, bool(training), states
                )
            else:
                cell_kwargs = {"training": training}

                def step(step_inputs: Tensor, step_states: list[Tensor]) -> list[Any]:
                    outs = self.cell.call([step_inputs, *step_states], **cell_kwargs)
                    return [outs[0], list(outs[1:])]

                last_output, outputs, new_states = rnn_loop(
                    step,
                    inputs,
                    list(states),
                    self.go_backwards,
                    mask,
                    None,
                    self.unroll,
                    self.return_sequences,
                )
            if self.stateful:
                self.reset_states(new_states, training)
            output = outputs if self.return_sequences else last_output
            if self.return_state:
                return [output, *new_states]
            return output

        return ENGINE.tidy(body)

    def get_initial_state(self, inputs: Tensor) -> list[Tensor]:
        """All-zero ``[samples, units]`` states, built from the input as TF.js does."""

        def body() -> list[Tensor]:
            initial = ops.zeros(list(inputs.shape))
            initial = ops.sum(initial, [1, 2])
            initial = K.expand_dims(initial)
            return [
                K.tile(initial, [1, dim]) if dim > 1 else initial for dim in _state_sizes(self.cell)
            ]

        return ENGINE.tidy(body)

    # ----------------------------------------------------------- serialization
    def get_config(self) -> dict[str, Any]:
        base = super().get_config()
        config: dict[str, Any] = {
            "return_sequences": self.return_sequences,
            "return_state": self.return_state,
            "go_backwards": self.go_backwards,
            "stateful": self.stateful,
            "unroll": self.unroll,
        }
        if self.num_constants is not None:
            config["num_constants"] = self.num_constants
        cell_config = self.cell.get_config()
        if self.get_class_name() == RNN.class_name:
            config["cell"] = {"class_name": self.cell.get_class_name(), "config": cell_config}
        return {**cell_config, **base, **config}

    @classmethod
    def from_config(
        cls,
        config: dict[str, Any],
        custom_objects: dict[str, Any] | None = None,
        fast_weight_init: bool = False,
    ) -> Any:
        config = dict(config)
        cell_config = config.get("cell")
        if isinstance(cell_config, dict):
            config["cell"] = deserialize(cell_config, custom_objects)
        elif isinstance(cell_config, list):
            config["cell"] = [deserialize(c, custom_objects) for c in cell_config]
        return super().from_config(config, custom_objects, fast_weight_init)


# ================================================================== the fused path
_FUSED = frozenset(kr.FUSED_ACTIVATIONS)
_LSTM_ACTIVATIONS = _FUSED - {"hardSigmoid"}


def _fused_kind(layer: RNN, inputs: Tensor, mask: Any, states: list[Any]) -> Any:
    """Which fused kernel runs ``layer`` on these arguments, or None for TF.js's loop."""
    cell = layer.cell
    kind = type(cell)
    if kind not in (SimpleRNNCell, GRUCell, LSTMCell):
        return None
    if cell.dropout_func is not None or cell._call_hook is not None:
        return None
    if inputs.dtype != "float32" or inputs.rank != 3 or not cell.built:
        return None
    if states is not None and any(
        not isinstance(s, Tensor) or s.dtype != "float32" or s.rank != 2 for s in states
    ):
        return None
    if mask is not None and not (
        isinstance(mask, Tensor)
        and (mask.rank == 2 or (mask.rank == 3 and mask.shape[2] == 1))
        and mask.shape[:2] == inputs.shape[:2]
    ):
        return None
    act = cell.activation.get_class_name()
    if kind is SimpleRNNCell:
        return kr.SIMPLE_RNN_SEQUENCE if act in _FUSED else None
    rec = cell.recurrent_activation.get_class_name()
    if rec not in _FUSED:
        return None
    if kind is GRUCell:  # the fused kernel is TF.js's GRU; Keras's reset_after runs per step
        return kr.GRU_SEQUENCE if act in _FUSED and not cell.reset_after else None
    return kr.LSTM_SEQUENCE if act in _LSTM_ACTIVATIONS else None


def _zero_states(cell: Any, inputs: Tensor) -> list[Tensor]:
    """All-zero ``[samples, size]`` states (one tensor per distinct size)."""
    made: dict[int, Tensor] = {}
    batch = inputs.shape[0]
    for dim in _state_sizes(cell):
        if dim not in made:
            made[dim] = ops.zeros([batch, dim])
    return [made[dim] for dim in _state_sizes(cell)]


def _call_fused(
    layer: RNN, kernel: str, inputs: Tensor, mask: Any, training: bool, states: list[Tensor]
) -> tuple[Tensor, Tensor | None, list[Tensor]]:
    """The whole sequence in one kernel; returns ``(last_output, outputs, new_states)`` as
    :func:`rnn` would."""
    cell = layer.cell
    batch, _, input_dim = inputs.shape
    count = {kr.LSTM_SEQUENCE: 4, kr.GRU_SEQUENCE: 3}.get(kernel, 1)
    # The masks TF.js's cell makes at its first step (the layer disposed the old ones).
    cell._dropout_masks(_StepShape(batch, input_dim, inputs.dtype), states[0], training, count)
    x = inputs
    if 0 < cell.dropout < 1:
        x = ops.mul(x, ops.expand_dims(_mask_of(cell.dropout_mask), 1))
    args: list[Tensor] = [x, cell.kernel.read(), cell.recurrent_kernel.read(), *states]
    attrs: dict[str, Any] = {
        "activation": cell.activation.get_class_name(),
        "go_backwards": layer.go_backwards,
        "return_sequences": layer.return_sequences,
        "has_bias": cell.bias is not None,
        "has_rec_mask": 0 < cell.recurrent_dropout < 1,
        "has_mask": mask is not None,
        "scratch_owner": layer._scratch_owner,
    }
    if kernel != kr.SIMPLE_RNN_SEQUENCE:
        attrs["recurrent_activation"] = cell.recurrent_activation.get_class_name()
    if cell.bias is not None:
        args.append(cell.bias.read())
    if attrs["has_rec_mask"]:
        args.append(_mask_of(cell.recurrent_dropout_mask))
    if mask is not None:
        m = ops.cast(ops.cast(mask, "bool"), "float32")
        if m.rank == 3:
            m = ops.reshape(m, list(m.shape[:2]))
        args.append(m)
    outs = SEQUENCE_OPS[kernel](tuple(args), attrs)
    sequence, new_states = outs[0], list(outs[1:-1])
    return new_states[0], (sequence if layer.return_sequences else None), new_states


# ========================================================================== layers
def _init_params(cls: type) -> set[str]:
    """Keyword arguments the constructors of ``cls`` and its bases (up to Layer) name."""
    names: set[str] = set()
    for klass in cls.__mro__:
        if klass is Layer:
            break
        if "__init__" in klass.__dict__:
            names |= set(inspect.signature(klass.__dict__["__init__"]).parameters)
    return names - {"self", "kwargs"}


def from_cell_config(cls: type, cell_cls: type, config: dict[str, Any]) -> Any:
    """A SimpleRNN/GRU/LSTM-like layer from its config: the cell's arguments, the RNN's and
    the Layer's (as TF.js's ``new cls(config)``; other keys are ignored)."""
    config = normalize_config_keys(config)
    accepted = _init_params(cell_cls) | set(_RNN_ARGS) | set(_LAYER_ARGS)
    return cls(**{k: v for k, v in config.items() if k in accepted})


class _CellLayer(RNN):
    """SimpleRNN, GRU and LSTM: an RNN around a cell made from the same arguments; each
    call first disposes the dropout masks of the previous call."""

    CELL_CLASS: type = RNNCell

    @classmethod
    def from_config(
        cls,
        config: dict[str, Any],
        custom_objects: dict[str, Any] | None = None,
        fast_weight_init: bool = False,
    ) -> Any:
        return from_cell_config(cls, cls.CELL_CLASS, config)

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        for attr in ("dropout_mask", "recurrent_dropout_mask"):
            if getattr(self.cell, attr) is not None:
                dispose(getattr(self.cell, attr))
                setattr(self.cell, attr, None)
        return super().call(
            inputs,
            mask=kwargs.get("mask"),
            training=kwargs.get("training"),
            initial_state=kwargs.get("initial_state", kwargs.get("initialState")),
        )

    def __getattr__(self, name: str) -> Any:
        # TF.js's layers expose the cell's settings (``lstm.units``, ``lstm.dropout``...).
        if name in _CELL_ATTRIBUTES:
            cell = self.__dict__.get("cell")
            if cell is not None:
                return getattr(cell, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


_CELL_ATTRIBUTES = frozenset(
    {
        "units",
        "activation",
        "recurrent_activation",
        "use_bias",
        "kernel_initializer",
        "recurrent_initializer",
        "bias_initializer",
        "kernel_regularizer",
        "recurrent_regularizer",
        "bias_regularizer",
        "kernel_constraint",
        "recurrent_constraint",
        "bias_constraint",
        "dropout",
        "recurrent_dropout",
        "implementation",
        "unit_forget_bias",
        "dropout_func",
        "reset_after",
    }
)
_RNN_ARGS = (
    "return_sequences",
    "return_state",
    "go_backwards",
    "stateful",
    "unroll",
    "input_dim",
    "input_length",
)
_LAYER_ARGS = (*_CELL_LAYER_ARGS, "weights")


def _make_cell(layer_cls: type, cell_cls: type, units: int, kwargs: dict[str, Any]):
    """Splits a layer's arguments into the cell's, the RNN's and the Layer's; makes the cell
    first (as TF.js does, so the cell's name counter advances first)."""
    if isinstance(units, (list, tuple)):  # one integer (the cell checks a list's items only)
        assert_positive_int(units, "filters" if "Conv" in cell_cls.__name__ else "units")
    rnn_args = {k: kwargs.pop(k) for k in _RNN_ARGS if k in kwargs}
    layer_args = {k: kwargs.pop(k) for k in _LAYER_ARGS if k in kwargs}
    unknown = sorted(set(kwargs) - _init_params(cell_cls))
    if unknown:
        raise LayersValueError(
            f"{layer_cls.__name__} got unexpected argument(s) "
            + ", ".join(
                f"{key!r}"
                + did_you_mean(key, [*_init_params(cell_cls), *_RNN_ARGS, *_LAYER_ARGS, "units"])
                for key in unknown
            )
        )
    if kwargs.get("implementation") == 0 and cell_cls in (GRUCell, LSTMCell):
        warnings.warn(
            "`implementation=0` has been deprecated, and now defaults to `implementation=1`. "
            "Please update your layer call.",
            stacklevel=4,
        )
    cell_layer_args = {k: v for k, v in layer_args.items() if k in _CELL_LAYER_ARGS}
    cell = cell_cls(units, **kwargs, **cell_layer_args)
    return cell, {**rnn_args, **layer_args}


@register_class
class SimpleRNN(_CellLayer):
    """A fully connected RNN (``output = activation(x W + h U + b)``); arguments as
    :class:`SimpleRNNCell` and :class:`RNN`."""

    class_name = "SimpleRNN"
    CELL_CLASS = SimpleRNNCell

    def __init__(self, units: int, **kwargs: Any):
        cell, rest = _make_cell(type(self), SimpleRNNCell, units, dict(kwargs))
        super().__init__(cell, **rest)


@register_class
class GRU(_CellLayer):
    """A gated recurrent unit layer; arguments as :class:`GRUCell` and :class:`RNN`."""

    class_name = "GRU"
    CELL_CLASS = GRUCell

    def __init__(self, units: int, **kwargs: Any):
        cell, rest = _make_cell(type(self), GRUCell, units, dict(kwargs))
        super().__init__(cell, **rest)


@register_class
class LSTM(_CellLayer):
    """A long short-term memory layer; arguments as :class:`LSTMCell` and :class:`RNN`."""

    class_name = "LSTM"
    CELL_CLASS = LSTMCell

    def __init__(self, units: int, **kwargs: Any):
        cell, rest = _make_cell(type(self), LSTMCell, units, dict(kwargs))
        super().__init__(cell, **rest)


# ======================================================================= factories
def rnn(cell: Any, **kwargs: Any) -> RNN:
    """An :class:`RNN` layer around ``cell`` (a cell or a list of cells):
    ``tf.layers.rnn(cell=tf.layers.lstm_cell(units=8), return_sequences=True)``."""
    return RNN(cell, **kwargs)


def simple_rnn(units: int, **kwargs: Any) -> SimpleRNN:
    """A :class:`SimpleRNN` layer:
    ``tf.layers.simple_rnn(units=20, recurrent_initializer='GlorotNormal', input_shape=[80, 4])``."""
    return SimpleRNN(units, **kwargs)


def gru(units: int, **kwargs: Any) -> GRU:
    """A :class:`GRU` layer."""
    return GRU(units, **kwargs)


def lstm(units: int, **kwargs: Any) -> LSTM:
    """An :class:`LSTM` layer: ``tf.layers.lstm(units=64, return_sequences=True)``."""
    return LSTM(units, **kwargs)


def simple_rnn_cell(units: int, **kwargs: Any) -> SimpleRNNCell:
    """A :class:`SimpleRNNCell`, for :func:`rnn` or :func:`stacked_rnn_cells`."""
    return SimpleRNNCell(units, **kwargs)


def gru_cell(units: int, **kwargs: Any) -> GRUCell:
    """A :class:`GRUCell`."""
    return GRUCell(units, **kwargs)


def lstm_cell(units: int, **kwargs: Any) -> LSTMCell:
    """An :class:`LSTMCell`."""
    return LSTMCell(units, **kwargs)


def stacked_rnn_cells(cells: list[Any], **kwargs: Any) -> StackedRNNCells:
    """A :class:`StackedRNNCells` running ``cells`` one after the other at each step."""
    return StackedRNNCells(cells, **kwargs)
