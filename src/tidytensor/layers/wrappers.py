"""Layer wrappers (TF.js's ``layers/wrappers.ts``): TimeDistributed and Bidirectional — and
their ``tf.layers`` factories.

>>> from tidytensor.layers.core import dense
>>> from tidytensor.layers.recurrent import lstm
>>> td = time_distributed(layer=dense(units=2), input_shape=[3, 4])
>>> td.apply(tf.ones([5, 3, 4])).shape
[5, 3, 2]
>>> bi = bidirectional(layer=lstm(units=3), input_shape=[4, 2])
>>> bi.apply(tf.ones([1, 4, 2])).shape
[1, 6]

Differences from TF.js 4.22 (fixed here): a Bidirectional layer reports the regularization
losses of its two inner layers (TF.js reports those of the unused template layer, none).
"""

from __future__ import annotations

from typing import Any

from .. import ops
from ..engine import ENGINE
from ..py_strings import py_shape
from ..tensor import Tensor
from . import backend as K
from .core import Activation, Dense
from .engine.serialization import deserialize, register_class
from .engine.state import name_scope
from .engine.topology import InputSpec, Layer, SymbolicTensor
from .errors import LayersNotImplementedError, LayersValueError
from .recurrent import rnn_loop, standardize_args
from .utils import get_exactly_one_shape, get_exactly_one_tensor, singleton_or_array

__all__ = ["bidirectional", "time_distributed"]

VALID_BIDIRECTIONAL_MERGE_MODES = ("sum", "mul", "concat", "ave")
DEFAULT_BIDIRECTIONAL_MERGE_MODE = "concat"
_UNSET = object()


class Wrapper(Layer):
    """Base class of layers that wrap another layer (``layer``)."""

    def __init__(self, layer: Layer, **kwargs: Any):
        if not isinstance(layer, Layer):
            raise LayersValueError(
                f"{type(self).__name__} expects a Layer as its `layer` argument, but got "
                f"{type(layer).__name__}"
            )
        self.layer = layer
        super().__init__(**kwargs)

    def build(self, input_shape: Any) -> None:
        self.built = True

    def _dispose_weights(self) -> int:
        # The wrapped layers' weights are disposed here, not by their own dispose: their
        # kernels' scratch pools (recurrent layers: ``RNN._scratch_owner``) go with them.
        for name in ("layer", "forward_layer", "backward_layer"):
            owner = getattr(self.__dict__.get(name), "_scratch_owner", None)
            if owner is not None:
                owner.release()
        return super()._dispose_weights()

    @property
    def trainable(self) -> bool:
        layer = self.__dict__.get("layer")
        return layer.trainable if layer is not None else False

    @trainable.setter
    def trainable(self, value: bool) -> None:
        layer = self.__dict__.get("layer")
        if layer is not None:
            layer.trainable = value

    @property
    def trainable_weights(self) -> list:
        return self.layer.trainable_weights

    @trainable_weights.setter
    def trainable_weights(self, weights: list) -> None:
        self._trainable_weights = list(weights)

    @property
    def non_trainable_weights(self) -> list:
        return self.layer.non_trainable_weights

    @non_trainable_weights.setter
    def non_trainable_weights(self, weights: list) -> None:
        self._non_trainable_weights = list(weights)

    @property
    def updates(self) -> list:
        return self.layer._updates

    @property
    def losses(self) -> list:
        return self.layer.losses

    def get_weights(self, trainable_only: bool = False) -> list[Tensor]:
        return self.layer.get_weights()

    def set_weights(self, weights: list[Any]) -> None:
        self.layer.set_weights(weights)

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {
            "layer": {"class_name": self.layer.get_class_name(), "config": self.layer.get_config()}
        }
        config.update(super().get_config())
        return config

    def set_fast_weight_init_during_build(self, value: bool) -> None:
        super().set_fast_weight_init_during_build(value)
        layer = self.__dict__.get("layer")
        if layer is not None:
            layer.set_fast_weight_init_during_build(value)

    @classmethod
    def from_config(
        cls,
        config: dict[str, Any],
        custom_objects: dict[str, Any] | None = None,
        fast_weight_init: bool = False,
    ) -> Any:
        config = dict(config)
        layer = deserialize(config.pop("layer"), custom_objects)
        config["layer"] = layer
        return super().from_config(config, custom_objects, fast_weight_init)


def _rowwise_classes() -> tuple[type, ...]:
    """Layers whose ``call`` treats every example (row of the first axis) on its own, so one
    call on ``[batch * time, ...]`` gives what TF.js's one call per step gives."""
    return (Dense, Activation)


@register_class
class TimeDistributed(Wrapper):
    """Applies ``layer`` to every time step (axis 1) of a ``[batch, time, ...]`` input.

    Args:
        layer: the layer to apply; it is built for ``[batch, ...]`` step inputs.
    """

    class_name = "TimeDistributed"

    def __init__(self, layer: Layer, **kwargs: Any):
        super().__init__(layer, **kwargs)
        self.supports_masking = True

    def build(self, input_shape: Any) -> None:
        input_shape = get_exactly_one_shape(input_shape)
        if len(input_shape) < 3:
            raise LayersValueError(
                f"TimeDistributed layer expects an input shape >= 3D, but received input "
                f"shape {py_shape(input_shape)}"
            )
        self.input_spec = [InputSpec(shape=input_shape)]
        child_input_shape = [input_shape[0], *input_shape[2:]]
        if not self.layer.built:
            self.layer.build(child_input_shape)
            self.layer.built = True
        super().build(input_shape)

    def compute_output_shape(self, input_shape: Any) -> Any:
        input_shape = get_exactly_one_shape(input_shape)
        child_input_shape = [input_shape[0], *input_shape[2:]]
        child_output_shape = self.layer.compute_output_shape(child_input_shape)
        return [child_output_shape[0], input_shape[1], *child_output_shape[1:]]

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        def body() -> Tensor:
            x = get_exactly_one_tensor(inputs)
            if type(self.layer) in _rowwise_classes():
                shape = list(x.shape)
                flat = ops.reshape(x, [shape[0] * shape[1], *shape[2:]])
                y = get_exactly_one_tensor(self.layer.call(flat, **kwargs))
                return ops.reshape(y, [shape[0], shape[1], *y.shape[1:]])

            def step(step_inputs: Tensor, states: list[Tensor]) -> list[Any]:
                output = get_exactly_one_tensor(self.layer.call(step_inputs, **kwargs))
                return [output, []]

            return rnn_loop(step, x, [], False, None, None, False, True)[1]

        return ENGINE.tidy(body)


def check_bidirectional_merge_mode(value: Any) -> None:
    if value is None:
        return
    if value not in VALID_BIDIRECTIONAL_MERGE_MODES:
        raise LayersValueError(
            f"{value} is not a valid BidirectionalMergeMode.  Valid values are "
            f"{','.join(VALID_BIDIRECTIONAL_MERGE_MODES)} or None."
        )


@register_class
class Bidirectional(Wrapper):
    """Runs a recurrent ``layer`` forwards and a copy of it backwards over the sequence and
    merges the two outputs.

    Args:
        layer: an RNN layer (its config is cloned into ``forward_<name>`` and, with
            ``go_backwards`` flipped, ``backward_<name>``).
        merge_mode: ``'concat'`` (default), ``'sum'``, ``'mul'``, ``'ave'``, or ``None`` for
            the list ``[forward, backward]``.

    With ``return_state`` the output is ``[merged, *forward_states, *backward_states]``; an
    ``initial_state`` call argument holds the forward states then the backward ones.
    """

    class_name = "Bidirectional"

    def __init__(self, layer: Layer, merge_mode: Any = _UNSET, **kwargs: Any):
        weights = kwargs.pop("weights", None)
        super().__init__(layer, **kwargs)
        layer_config = layer.get_config()
        self.forward_layer = deserialize(
            {"class_name": layer.get_class_name(), "config": dict(layer_config)}
        )
        backward_config = dict(layer_config)
        backward_config["go_backwards"] = backward_config.get("go_backwards") is not True
        self.backward_layer = deserialize(
            {"class_name": layer.get_class_name(), "config": backward_config}
        )
        self.forward_layer.name = "forward_" + self.forward_layer.name
        self.backward_layer.name = "backward_" + self.backward_layer.name
        self.merge_mode = DEFAULT_BIDIRECTIONAL_MERGE_MODE if merge_mode is _UNSET else merge_mode
        check_bidirectional_merge_mode(self.merge_mode)
        if weights:
            raise LayersNotImplementedError(
                "weights support is not implemented for Bidirectional layer yet."
            )
        self._stateful = layer.stateful
        self.return_sequences = getattr(layer, "return_sequences", False)
        self.return_state = getattr(layer, "return_state", False)
        self.supports_masking = True
        self._trainable_flag = True
        self.input_spec = layer.input_spec
        self.num_constants = None

    @property
    def trainable(self) -> bool:
        return self.__dict__.get("_trainable_flag", True)

    @trainable.setter
    def trainable(self, value: bool) -> None:
        self._trainable_flag = bool(value)
        for attr in ("forward_layer", "backward_layer"):
            inner = self.__dict__.get(attr)
            if inner is not None:
                inner.trainable = value

    @property
    def trainable_weights(self) -> list:
        return self.forward_layer.trainable_weights + self.backward_layer.trainable_weights

    @trainable_weights.setter
    def trainable_weights(self, weights: list) -> None:
        self._trainable_weights = list(weights)

    @property
    def non_trainable_weights(self) -> list:
        return self.forward_layer.non_trainable_weights + self.backward_layer.non_trainable_weights

    @non_trainable_weights.setter
    def non_trainable_weights(self, weights: list) -> None:
        self._non_trainable_weights = list(weights)

    @property
    def losses(self) -> list:
        return self.forward_layer.losses + self.backward_layer.losses

    def get_weights(self, trainable_only: bool = False) -> list[Tensor]:
        return self.forward_layer.get_weights() + self.backward_layer.get_weights()

    def set_weights(self, weights: list[Any]) -> None:
        """The forward layer's weights, then the backward layer's."""
        weights = list(weights)
        half = len(weights) // 2
        self.forward_layer.set_weights(weights[:half])
        self.backward_layer.set_weights(weights[half:])

    def compute_output_shape(self, input_shape: Any) -> Any:
        layer_shapes = self.forward_layer.compute_output_shape(input_shape)
        if not (
            isinstance(layer_shapes, list) and layer_shapes and isinstance(layer_shapes[0], list)
        ):
            layer_shapes = [layer_shapes]
        output_shape = list(layer_shapes[0])
        state_shape = [list(s) for s in layer_shapes[1:]] if self.return_state else []
        if self.merge_mode == "concat":
            output_shape[-1] *= 2
            output_shapes = [output_shape]
        elif self.merge_mode is None:
            output_shapes = [output_shape, list(output_shape)]
        else:
            output_shapes = [output_shape]
        if self.return_state:
            if self.merge_mode is None:
                return output_shapes + state_shape + [list(s) for s in state_shape]
            return [output_shape] + state_shape + [list(s) for s in state_shape]
        return singleton_or_array(output_shapes)

    def apply(self, inputs: Any, kwargs: dict[str, Any] | None = None, **more: Any) -> Any:
        kw = dict(kwargs or {})
        kw.update(more)
        initial_state = kw.pop("initial_state", kw.pop("initialState", None))
        constants = kw.pop("constants", None)
        inputs, initial_state, constants = standardize_args(
            inputs, initial_state, constants, self.num_constants
        )
        if not initial_state and constants is None:
            return super().apply(inputs, kw)
        additional_inputs: list[Any] = []
        additional_specs: list[InputSpec] = []
        if initial_state is not None:
            num_states = len(initial_state)
            if num_states % 2 > 0:
                raise LayersValueError(
                    "When passing `initial_state` to a Bidirectional RNN, the state should be an "
                    "Array containing the states of the underlying RNNs."
                )
            kw["initial_state"] = initial_state
            additional_inputs += initial_state
            state_specs = [InputSpec(shape=list(s.shape)) for s in initial_state]
            self.forward_layer.state_spec = state_specs[: num_states // 2]
            self.backward_layer.state_spec = state_specs[num_states // 2 :]
            additional_specs += state_specs
        if constants is not None:
            raise LayersNotImplementedError(
                "Support for constants in Bidirectional layers is not implemented yet."
            )
        is_symbolic = isinstance(additional_inputs[0], SymbolicTensor)
        for t in additional_inputs:
            if isinstance(t, SymbolicTensor) != is_symbolic:
                raise LayersValueError(
                    "The initial state of a Bidirectional layer cannot be specified as a mix of "
                    "symbolic and non-symbolic tensors"
                )
        if is_symbolic:
            original_spec = self.input_spec
            self.input_spec = list(original_spec or []) + additional_specs
            try:
                return super().apply([inputs, *additional_inputs], kw)
            finally:
                self.input_spec = original_spec
        return super().apply(inputs, kw)

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        initial_state = kwargs.pop("initial_state", kwargs.pop("initialState", None))
        if isinstance(inputs, (list, tuple)) and len(inputs) > 1:
            inputs, initial_state, _ = standardize_args(inputs, None, None, None)
        if initial_state is not None and any(isinstance(s, SymbolicTensor) for s in initial_state):
            initial_state = None

        def body() -> Any:
            if initial_state is None:
                y = self.forward_layer.call(inputs, **kwargs)
                y_rev = self.backward_layer.call(inputs, **kwargs)
            else:
                half = len(initial_state) // 2
                y = self.forward_layer.call(inputs, **kwargs, initial_state=initial_state[:half])
                y_rev = self.backward_layer.call(
                    inputs, **kwargs, initial_state=initial_state[half:]
                )
            states: list[Tensor] = []
            if self.return_state:
                states = list(y[1:]) + list(y_rev[1:])
                y, y_rev = y[0], y_rev[0]
            if self.return_sequences:
                y_rev = ops.reverse(y_rev, 1)
            if self.merge_mode == "concat":
                output: Any = K.concatenate([y, y_rev])
            elif self.merge_mode == "sum":
                output = ops.add(y, y_rev)
            elif self.merge_mode == "ave":
                output = ops.mul(0.5, ops.add(y, y_rev))
            elif self.merge_mode == "mul":
                output = ops.mul(y, y_rev)
            else:
                output = [y, y_rev]
            if self.return_state:
                if self.merge_mode is None:
                    return output + states
                return [output, *states]
            return output

        return ENGINE.tidy(body)

    def reset_states(self, states: Any = None) -> None:
        self.forward_layer.reset_states()
        self.backward_layer.reset_states()

    def build(self, input_shape: Any) -> None:
        with name_scope(self.forward_layer.name):
            self.forward_layer.build(input_shape)
        with name_scope(self.backward_layer.name):
            self.backward_layer.build(input_shape)
        self.built = True

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if isinstance(mask, (list, tuple)):
            mask = mask[0] if mask else None
        if self.return_sequences:
            output_mask: Any = [mask, mask] if self.merge_mode is None else mask
        else:
            output_mask = [None, None] if self.merge_mode is None else None
        if self.return_state:
            state_mask = [None for _ in self.forward_layer.states]
            head = output_mask if isinstance(output_mask, list) else [output_mask]
            return head + state_mask + state_mask
        return output_mask

    def set_fast_weight_init_during_build(self, value: bool) -> None:
        super().set_fast_weight_init_during_build(value)
        for attr in ("forward_layer", "backward_layer"):
            inner = self.__dict__.get(attr)
            if inner is not None:
                inner.set_fast_weight_init_during_build(value)

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"merge_mode": self.merge_mode}
        config.update(super().get_config())
        return config

    @classmethod
    def from_config(
        cls,
        config: dict[str, Any],
        custom_objects: dict[str, Any] | None = None,
        fast_weight_init: bool = False,
    ) -> Any:
        config = dict(config)
        if config.get("num_constants", config.get("numConstants")) is not None:
            raise LayersNotImplementedError(
                "Deserialization of a Bidirectional layer with num_constants present is not "
                "supported yet."
            )
        return super().from_config(config, custom_objects, fast_weight_init)


# ======================================================================= factories
def time_distributed(layer: Layer, **kwargs: Any) -> TimeDistributed:
    """A :class:`TimeDistributed` wrapper:
    ``tf.layers.time_distributed(layer=tf.layers.dense(units=8), input_shape=[10, 16])``."""
    return TimeDistributed(layer, **kwargs)


def bidirectional(layer: Layer, **kwargs: Any) -> Bidirectional:
    """A :class:`Bidirectional` wrapper:
    ``tf.layers.bidirectional(layer=tf.layers.lstm(units=8), merge_mode='sum')``."""
    return Bidirectional(layer, **kwargs)
