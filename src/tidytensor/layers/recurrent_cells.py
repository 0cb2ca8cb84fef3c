"""Recurrent cells (TF.js's ``layers/recurrent.ts``, split from ``recurrent.py``): RNNCell,
SimpleRNNCell, GRUCell, LSTMCell, StackedRNNCells, and the dropout masks they keep.

A cell computes one time step: ``cell.call([step_input, *states], training=...)`` returns
``[output, *new_states]``; its ``state_size`` is an int or one int per state (the first is
the output's size). The :class:`~.recurrent.RNN` layer runs a cell over the time axis; the
``tf.layers`` factories (``lstm_cell`` ...) are in ``recurrent.py``.

>>> cell = LSTMCell(2)
>>> cell.build([None, 3])
>>> [t.shape for t in cell.call([tf.ones([1, 3]), tf.zeros([1, 2]), tf.zeros([1, 2])])]
[[1, 2], [1, 2], [1, 2]]
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .. import ops
from ..engine import ENGINE
from ..py_strings import py_value
from ..tensor import Tensor
from . import backend as K
from .activations import get_activation, serialize_activation
from .constraints import get_constraint, serialize_constraint
from .engine.serialization import deserialize, normalize_config_keys, register_class
from .engine.state import name_scope
from .engine.topology import Layer
from .engine.variables import batch_get_value, batch_set_value
from .errors import LayersValueError
from .initializers import Initializer, Ones, get_initializer, serialize_initializer
from .regularizers import get_regularizer, serialize_regularizer
from .utils import assert_positive_int, get_exactly_one_shape, is_array_of_shapes

__all__ = [
    "GRUCell",
    "LSTMCell",
    "RNNCell",
    "SimpleRNNCell",
    "StackedRNNCells",
    "generate_dropout_mask",
]

#: The default of arguments whose ``None`` means something (``activation=None``: linear).
_DEFAULT = object()


def _clip01(value: Any, name: str) -> float:
    """A dropout rate clipped to [0, 1], as TF.js's cells clip it (None: 0)."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or value != value:
        raise LayersValueError(f"Expected {name} to be a number, but got {py_value(value)}.")
    return min(1, max(0, value))


def _flag(value: Any, name: str, default: bool) -> bool:
    """A boolean option (None: the default)."""
    if value is None:
        return default
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, int) and value in (0, 1)):
        return bool(value)
    raise LayersValueError(f"Expected {name} to be a boolean, but got {py_value(value)}.")


def _or_default(value: Any, default: Any) -> Any:
    """``value or default`` without asking an array or a tensor for its truth value."""
    if value is None or (isinstance(value, (str, bool, int, float)) and not value):
        return default
    return value


def _state_sizes(cell: Any) -> list[int]:
    size = cell.state_size
    return list(size) if isinstance(size, (list, tuple)) else [size]


def generate_dropout_mask(
    ones: Any, rate: float, training: bool = False, count: int = 1, dropout_func: Any = None
) -> Any:
    """A kept dropout mask (``count`` of them when ``count > 1``): ``ones()`` itself when not
    training, else ``dropout(ones(), rate)`` (or ``dropout_func(ones(), rate)``)."""

    def dropped() -> Tensor:
        return dropout_func(ones(), rate) if dropout_func is not None else K.dropout(ones(), rate)

    def create() -> Tensor:
        return K.in_train_phase(dropped, ones, training)

    if not count or count <= 1:
        return _kept_mask(create)
    return [_kept_mask(create) for _ in range(count)]


def _kept_mask(create: Any) -> Tensor:
    """A mask no tidy disposes: the cell holds it until the layer's next call, which makes
    new ones (so a compiled step's replay, which draws its own, need not hand it out: it is
    marked kept directly, not through ``tf.keep``, whose tensors a trace must return)."""
    mask = ops.clone(create())
    mask.kept = True
    return mask


class _StepShape:
    """Stands for one step's input in ``ones_like`` (the fused path never slices steps)."""

    def __init__(self, batch: int, dim: int, dtype: str):
        self.shape = [batch, dim]
        self.dtype = dtype


def _ones_like(x: Any) -> Tensor:
    if isinstance(x, _StepShape):
        return ops.ones(x.shape, x.dtype)
    return ops.ones_like(x)


# ============================================================================ cells
class RNNCell(Layer):
    """Base class of the cells an :class:`RNN` layer runs at each step.

    A cell's ``call([step_input, *states], training=...)`` returns ``[output, *new_states]``
    and it has ``state_size`` (an int, or a list with one size per state; the first is the
    output size)."""

    state_size: Any = None


class _StandardCell(RNNCell):
    """What SimpleRNNCell, GRUCell and LSTMCell share: arguments, weights and config."""

    DEFAULT_ACTIVATION = "tanh"
    DEFAULT_RECURRENT_ACTIVATION = "hardSigmoid"
    DEFAULT_KERNEL_INITIALIZER = "glorotNormal"
    DEFAULT_RECURRENT_INITIALIZER = "orthogonal"
    DEFAULT_BIAS_INITIALIZER = "zeros"
    #: How many gate blocks the kernels have (1, 3 or 4).
    GATES = 1

    def _init_common(
        self,
        units: int,
        use_bias: Any,
        kernel_initializer: Any,
        recurrent_initializer: Any,
        bias_initializer: Any,
        kernel_regularizer: Any,
        recurrent_regularizer: Any,
        bias_regularizer: Any,
        kernel_constraint: Any,
        recurrent_constraint: Any,
        bias_constraint: Any,
        dropout: Any,
        recurrent_dropout: Any,
        dropout_func: Any,
    ) -> None:
        self.units = assert_positive_int(units, "units")
        self.use_bias = _flag(use_bias, "use_bias", True)
        self.kernel_initializer = get_initializer(
            _or_default(kernel_initializer, self.DEFAULT_KERNEL_INITIALIZER)
        )
        self.recurrent_initializer = get_initializer(
            _or_default(recurrent_initializer, self.DEFAULT_RECURRENT_INITIALIZER)
        )
        self.bias_initializer = get_initializer(
            _or_default(bias_initializer, self.DEFAULT_BIAS_INITIALIZER)
        )
        self.kernel_regularizer = get_regularizer(kernel_regularizer)
        self.recurrent_regularizer = get_regularizer(recurrent_regularizer)
        self.bias_regularizer = get_regularizer(bias_regularizer)
        self.kernel_constraint = get_constraint(kernel_constraint)
        self.recurrent_constraint = get_constraint(recurrent_constraint)
        self.bias_constraint = get_constraint(bias_constraint)
        self.dropout = _clip01(dropout, "dropout")
        self.recurrent_dropout = _clip01(recurrent_dropout, "recurrent_dropout")
        self.dropout_func = dropout_func
        self.dropout_mask: Any = None
        self.recurrent_dropout_mask: Any = None
        self.kernel = None
        self.recurrent_kernel = None
        self.bias = None

    def _init_gate_activations(self, activation: Any, recurrent_activation: Any) -> None:
        """GRUCell's and LSTMCell's ``activation`` and ``recurrent_activation``: ``_DEFAULT``
        gives the class default, ``None`` means linear."""
        self.activation = get_activation(
            self.DEFAULT_ACTIVATION if activation is _DEFAULT else activation
        )
        self.recurrent_activation = get_activation(
            self.DEFAULT_RECURRENT_ACTIVATION
            if recurrent_activation is _DEFAULT
            else recurrent_activation
        )

    def _bias_initializer(self) -> Any:
        return self.bias_initializer

    def build(self, input_shape: Any) -> None:
        input_shape = get_exactly_one_shape(input_shape)
        input_dim = input_shape[-1]
        n = self.units * self.GATES
        self._add_cell_weights([input_dim, n], [self.units, n], [n])

    def _add_cell_weights(
        self, kernel_shape: list[int], recurrent_shape: list[int], bias_shape: list[int]
    ) -> None:
        """Adds ``kernel``, ``recurrent_kernel`` and (with ``use_bias``) ``bias`` of these
        shapes, and marks the cell built."""
        self.kernel = self.add_weight(
            "kernel",
            kernel_shape,
            None,
            self.kernel_initializer,
            self.kernel_regularizer,
            True,
            self.kernel_constraint,
        )
        self.recurrent_kernel = self.add_weight(
            "recurrent_kernel",
            recurrent_shape,
            None,
            self.recurrent_initializer,
            self.recurrent_regularizer,
            True,
            self.recurrent_constraint,
        )
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                bias_shape,
                None,
                self._bias_initializer(),
                self.bias_regularizer,
                True,
                self.bias_constraint,
            )
        else:
            self.bias = None
        self.built = True

    def _dropout_masks(self, inputs: Tensor, state: Tensor, training: bool, count: int) -> None:
        """Creates the cell's dropout masks if they do not exist yet (TF.js keeps them until
        the layer's next call)."""
        if 0 < self.dropout < 1 and self.dropout_mask is None:
            self.dropout_mask = generate_dropout_mask(
                lambda: _ones_like(inputs), self.dropout, training, count, self.dropout_func
            )
        if 0 < self.recurrent_dropout < 1 and self.recurrent_dropout_mask is None:
            self.recurrent_dropout_mask = generate_dropout_mask(
                lambda: _ones_like(state),
                self.recurrent_dropout,
                training,
                count,
                self.dropout_func,
            )

    def _common_config(self) -> dict[str, Any]:
        return {
            "units": self.units,
            "activation": serialize_activation(self.activation),
        }

    def _weights_config(self) -> dict[str, Any]:
        return {
            "kernel_initializer": serialize_initializer(self.kernel_initializer),
            "recurrent_initializer": serialize_initializer(self.recurrent_initializer),
            "bias_initializer": serialize_initializer(self.bias_initializer),
        }

    def _regularization_config(self) -> dict[str, Any]:
        return {
            "kernel_regularizer": serialize_regularizer(self.kernel_regularizer),
            "recurrent_regularizer": serialize_regularizer(self.recurrent_regularizer),
            "bias_regularizer": serialize_regularizer(self.bias_regularizer),
            "activity_regularizer": serialize_regularizer(self.activity_regularizer),
            "kernel_constraint": serialize_constraint(self.kernel_constraint),
            "recurrent_constraint": serialize_constraint(self.recurrent_constraint),
            "bias_constraint": serialize_constraint(self.bias_constraint),
            "dropout": self.dropout,
            "recurrent_dropout": self.recurrent_dropout,
        }


def _mask_of(mask: Any, index: int = 0) -> Any:
    return mask[index] if isinstance(mask, list) else mask


@register_class
class SimpleRNNCell(_StandardCell):
    """``output = activation(x @ kernel + bias + h @ recurrent_kernel)``; one state.

    Args:
        units: output size.
        activation: default ``'tanh'`` (``None`` also means tanh, as in TF.js).
        use_bias: default True.
        kernel_initializer: default ``'glorotNormal'``.
        recurrent_initializer: default ``'orthogonal'``.
        bias_initializer: default ``'zeros'``.
        kernel_regularizer, recurrent_regularizer, bias_regularizer: penalties.
        kernel_constraint, recurrent_constraint, bias_constraint: applied after writes.
        dropout: fraction of the inputs dropped while training (one mask per call).
        recurrent_dropout: fraction of the recurrent state dropped while training.
        dropout_func: ``fn(ones, rate)`` making dropout masks (testing hook, as in TF.js).
    """

    class_name = "SimpleRNNCell"
    GATES = 1

    def __init__(
        self,
        units: int,
        activation: Any = None,
        use_bias: bool | None = None,
        kernel_initializer: Any = None,
        recurrent_initializer: Any = None,
        bias_initializer: Any = None,
        kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None,
        bias_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float | None = None,
        recurrent_dropout: float | None = None,
        dropout_func: Any = None,
        activity_regularizer: Any = None,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        self.activation = get_activation(
            self.DEFAULT_ACTIVATION if activation is None else activation
        )
        self._init_common(
            units,
            use_bias,
            kernel_initializer,
            recurrent_initializer,
            bias_initializer,
            kernel_regularizer,
            recurrent_regularizer,
            bias_regularizer,
            kernel_constraint,
            recurrent_constraint,
            bias_constraint,
            dropout,
            recurrent_dropout,
            dropout_func,
        )
        self.state_size = self.units

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        def body() -> list[Tensor]:
            if len(inputs) != 2:
                raise LayersValueError(f"SimpleRNNCell expects 2 input Tensors, got {len(inputs)}.")
            x, prev_output = inputs[0], inputs[1]
            training = bool(kwargs.get("training") or False)
            self._dropout_masks(x, prev_output, training, 1)
            dp, rdp = self.dropout_mask, self.recurrent_dropout_mask
            h = K.dot(ops.mul(x, dp) if dp is not None else x, self.kernel.read())
            if self.bias is not None:
                h = K.bias_add(h, self.bias.read())
            if rdp is not None:
                prev_output = ops.mul(prev_output, rdp)
            output = ops.add(h, K.dot(prev_output, self.recurrent_kernel.read()))
            if self.activation is not None:
                output = self.activation.apply(output)
            return [output, output]

        return ENGINE.tidy(body)

    def get_config(self) -> dict[str, Any]:
        config = {**super().get_config(), **self._common_config(), "use_bias": self.use_bias}
        config.update(self._weights_config())
        config.update(self._regularization_config())
        return config


@register_class
class GRUCell(_StandardCell):
    """A gated recurrent unit step (TF.js's GRUCell, ``resetAfter`` false):
    ``z, r = recurrent_activation(...)``, ``hh = activation(x W_h + b_h + (r * h) U_h)``,
    ``h' = z * h + (1 - z) * hh``. Kernels ``[input_dim, 3 units]``, gates in the order
    z, r, h.

    With ``reset_after=True`` (Keras 2's and 3's default, which TF.js refuses) the reset gate
    is applied after the recurrent matmul, ``hh = activation(x W_h + b_h + r * (h U_h +
    b'_h))``, and the bias is two vectors, ``[2, 3 units]``: the input bias, then the
    recurrent one (added to ``h U`` for every gate).

    Args: as :class:`SimpleRNNCell`, plus ``recurrent_activation`` (default
    ``'hardSigmoid'``), ``implementation`` (stored; TF.js always computes the same way) and
    ``reset_after`` (default False, as in TF.js). ``activation=None`` means linear.
    """

    class_name = "GRUCell"
    GATES = 3

    def __init__(
        self,
        units: int,
        activation: Any = _DEFAULT,
        recurrent_activation: Any = _DEFAULT,
        use_bias: bool | None = None,
        kernel_initializer: Any = None,
        recurrent_initializer: Any = None,
        bias_initializer: Any = None,
        kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None,
        bias_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float | None = None,
        recurrent_dropout: float | None = None,
        dropout_func: Any = None,
        implementation: int | None = None,
        reset_after: bool | None = None,
        activity_regularizer: Any = None,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        self._init_gate_activations(activation, recurrent_activation)
        self._init_common(
            units,
            use_bias,
            kernel_initializer,
            recurrent_initializer,
            bias_initializer,
            kernel_regularizer,
            recurrent_regularizer,
            bias_regularizer,
            kernel_constraint,
            recurrent_constraint,
            bias_constraint,
            dropout,
            recurrent_dropout,
            dropout_func,
        )
        self.implementation = implementation
        self.reset_after = bool(reset_after)
        self.state_size = self.units

    def build(self, input_shape: Any) -> None:
        if not self.reset_after:
            super().build(input_shape)
            return
        input_dim = get_exactly_one_shape(input_shape)[-1]
        n = self.units * self.GATES
        self._add_cell_weights([input_dim, n], [self.units, n], [2, n])

    def _call_reset_after(self, x: Tensor, h_prev: Tensor) -> Tensor:
        """Keras's step with ``reset_after``: ``r`` multiplies ``h U_h + b'_h``."""
        matrix_x = K.dot(x, self.kernel.read())
        matrix_inner = K.dot(h_prev, self.recurrent_kernel.read())
        if self.use_bias:
            input_bias, recurrent_bias = ops.unstack(self.bias.read(), 0)
            matrix_x = K.bias_add(matrix_x, input_bias)
            matrix_inner = K.bias_add(matrix_inner, recurrent_bias)
        x_z, x_r, x_h = ops.split(matrix_x, 3, matrix_x.rank - 1)
        recurrent_z, recurrent_r, recurrent_h = ops.split(matrix_inner, 3, matrix_inner.rank - 1)
        z = self.recurrent_activation.apply(ops.add(x_z, recurrent_z))
        r = self.recurrent_activation.apply(ops.add(x_r, recurrent_r))
        hh = self.activation.apply(ops.add(x_h, ops.mul(r, recurrent_h)))
        return ops.add(ops.mul(z, h_prev), ops.mul(ops.add(1, ops.neg(z)), hh))

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        def body() -> list[Tensor]:
            if len(inputs) != 2:
                raise LayersValueError(
                    f"GRUCell expects 2 input Tensors (inputs, h, c), got {len(inputs)}."
                )
            training = bool(kwargs.get("training") or False)
            x, h_prev = inputs[0], inputs[1]
            self._dropout_masks(x, h_prev, training, 3)
            if 0 < self.dropout < 1:
                x = ops.mul(x, _mask_of(self.dropout_mask))
            if 0 < self.recurrent_dropout < 1:
                h_prev_dropped = ops.mul(h_prev, _mask_of(self.recurrent_dropout_mask))
            else:
                h_prev_dropped = h_prev
            if self.reset_after:
                h = self._call_reset_after(x, h_prev_dropped)
                return [h, h]
            matrix_x = K.dot(x, self.kernel.read())
            if self.use_bias:
                matrix_x = K.bias_add(matrix_x, self.bias.read())
            h_prev = h_prev_dropped
            rk = self.recurrent_kernel.read()
            rk1, rk2 = ops.split(rk, [2 * self.units, self.units], rk.rank - 1)
            matrix_inner = K.dot(h_prev, rk1)
            x_z, x_r, x_h = ops.split(matrix_x, 3, matrix_x.rank - 1)
            recurrent_z, recurrent_r = ops.split(matrix_inner, 2, matrix_inner.rank - 1)
            z = self.recurrent_activation.apply(ops.add(x_z, recurrent_z))
            r = self.recurrent_activation.apply(ops.add(x_r, recurrent_r))
            recurrent_h = K.dot(ops.mul(r, h_prev), rk2)
            hh = self.activation.apply(ops.add(x_h, recurrent_h))
            h = ops.add(ops.mul(z, h_prev), ops.mul(ops.add(1, ops.neg(z)), hh))
            return [h, h]

        return ENGINE.tidy(body)

    def get_config(self) -> dict[str, Any]:
        config = {
            **super().get_config(),
            **self._common_config(),
            "recurrent_activation": serialize_activation(self.recurrent_activation),
            "use_bias": self.use_bias,
        }
        config.update(self._weights_config())
        config.update(self._regularization_config())
        config["implementation"] = self.implementation
        config["reset_after"] = self.reset_after
        return config


class _UnitForgetBias(Initializer):
    """The LSTM bias with ``unit_forget_bias``: the forget gate's block is ones."""

    class_name = "CustomInit"

    def __init__(self, base: Initializer, units: int):
        self.base = base
        self.units = units

    def apply(self, shape: Any, dtype: str | None = None) -> Tensor:
        def body() -> Tensor:
            b_i = self.base.apply([self.units])
            b_f = Ones().apply([self.units])
            b_c_and_o = self.base.apply([self.units * 2])
            return ops.concat([ops.concat([b_i, b_f], 0), b_c_and_o], 0)

        return ENGINE.tidy(body)


@register_class
class LSTMCell(_StandardCell):
    """A long short-term memory step (TF.js's LSTMCell): gates i, f, c, o from
    ``x @ kernel + h @ recurrent_kernel + bias``, ``c' = f * c + i * activation(z_c)``,
    ``h' = o * activation(c')``. Two states, ``[h, c]``.

    Args: as :class:`GRUCell` (no ``reset_after``), plus ``unit_forget_bias`` (initialize
    the forget gate's bias to ones; off by default, as in TF.js).
    """

    class_name = "LSTMCell"
    GATES = 4

    def __init__(
        self,
        units: int,
        activation: Any = _DEFAULT,
        recurrent_activation: Any = _DEFAULT,
        use_bias: bool | None = None,
        kernel_initializer: Any = None,
        recurrent_initializer: Any = None,
        bias_initializer: Any = None,
        unit_forget_bias: bool | None = None,
        kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None,
        bias_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float | None = None,
        recurrent_dropout: float | None = None,
        dropout_func: Any = None,
        implementation: int | None = None,
        activity_regularizer: Any = None,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        self._init_gate_activations(activation, recurrent_activation)
        self._init_common(
            units,
            use_bias,
            kernel_initializer,
            recurrent_initializer,
            bias_initializer,
            kernel_regularizer,
            recurrent_regularizer,
            bias_regularizer,
            kernel_constraint,
            recurrent_constraint,
            bias_constraint,
            dropout,
            recurrent_dropout,
            dropout_func,
        )
        self.unit_forget_bias = unit_forget_bias
        self.implementation = implementation
        self.state_size = [self.units, self.units]

    def _bias_initializer(self) -> Any:
        if self.unit_forget_bias:
            return _UnitForgetBias(self.bias_initializer, self.units)
        return self.bias_initializer

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        def body() -> list[Tensor]:
            training = bool(kwargs.get("training") or False)
            if len(inputs) != 3:
                raise LayersValueError(
                    f"LSTMCell expects 3 input Tensors (inputs, h, c), got {len(inputs)}."
                )
            x, h_prev, c_prev = inputs[0], inputs[1], inputs[2]
            self._dropout_masks(x, h_prev, training, 4)
            if 0 < self.dropout < 1:
                x = ops.mul(x, _mask_of(self.dropout_mask))
            z = K.dot(x, self.kernel.read())
            if 0 < self.recurrent_dropout < 1:
                h_prev = ops.mul(h_prev, _mask_of(self.recurrent_dropout_mask))
            z = ops.add(z, K.dot(h_prev, self.recurrent_kernel.read()))
            if self.use_bias:
                z = K.bias_add(z, self.bias.read())
            z0, z1, z2, z3 = ops.split(z, 4, z.rank - 1)
            i = self.recurrent_activation.apply(z0)
            f = self.recurrent_activation.apply(z1)
            c = ops.add(ops.mul(f, c_prev), ops.mul(i, self.activation.apply(z2)))
            o = self.recurrent_activation.apply(z3)
            h = ops.mul(o, self.activation.apply(c))
            return [h, h, c]

        return ENGINE.tidy(body)

    def get_config(self) -> dict[str, Any]:
        config = {
            **super().get_config(),
            **self._common_config(),
            "recurrent_activation": serialize_activation(self.recurrent_activation),
            "use_bias": self.use_bias,
        }
        config.update(self._weights_config())
        config["unit_forget_bias"] = self.unit_forget_bias
        config.update(self._regularization_config())
        config["implementation"] = self.implementation
        return config


@register_class
class StackedRNNCells(RNNCell):
    """Several cells run one after the other at each step, as one cell.

    Its states are the cells' states, last cell first (``[h2, c2, h1, c1]`` for two LSTM
    cells), so the first state is the output's.
    """

    class_name = "StackedRNNCells"

    def __init__(self, cells: list[Any], **kwargs: Any):
        super().__init__(**kwargs)
        self.cells = list(cells)

    @property
    def state_size(self) -> list[int]:  # type: ignore[override]
        sizes: list[int] = []
        for cell in reversed(self.cells):
            sizes.extend(_state_sizes(cell))
        return sizes

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        def body() -> list[Tensor]:
            states = list(inputs[1:])
            nested: list[list[Tensor]] = []
            for cell in reversed(self.cells):
                n = len(_state_sizes(cell))
                nested.append(states[:n])
                states = states[n:]
            nested.reverse()
            new_nested: list[list[Tensor]] = []
            call_inputs: list[Tensor] = []
            for i, cell in enumerate(self.cells):
                first = inputs[0] if i == 0 else call_inputs[0]
                call_inputs = list(cell.call([first, *nested[i]], **kwargs))
                new_nested.append(call_inputs[1:])
            flat: list[Tensor] = []
            for cell_states in reversed(new_nested):
                flat.extend(cell_states)
            return [call_inputs[0], *flat]

        return ENGINE.tidy(body)

    def build(self, input_shape: Any) -> None:
        if is_array_of_shapes(input_shape):
            input_shape = input_shape[0]
        input_shape = list(input_shape)
        for i, cell in enumerate(self.cells):
            with name_scope(f"RNNCell_{i}"):
                if not cell.built:
                    cell.build(input_shape)
                    cell.built = True
                output_dim = _state_sizes(cell)[0]
                input_shape = [input_shape[0], output_dim]
        self.built = True

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["cells"] = [
            {"class_name": cell.get_class_name(), "config": cell.get_config()}
            for cell in self.cells
        ]
        return config

    @classmethod
    def from_config(
        cls,
        config: dict[str, Any],
        custom_objects: dict[str, Any] | None = None,
        fast_weight_init: bool = False,
    ) -> Any:
        config = normalize_config_keys(config)
        cells = [deserialize(c, custom_objects) for c in config["cells"]]
        kept = {k: config[k] for k in ("name", "trainable") if k in config}
        return cls(cells=cells, **kept)

    @property
    def trainable_weights(self) -> list:
        if not self.trainable:
            return []
        return [w for cell in self.cells for w in cell.trainable_weights]

    @trainable_weights.setter
    def trainable_weights(self, weights: list) -> None:
        self._trainable_weights = list(weights)

    @property
    def non_trainable_weights(self) -> list:
        weights = [w for cell in self.cells for w in cell.non_trainable_weights]
        if not self.trainable:
            return [w for cell in self.cells for w in cell.trainable_weights] + weights
        return weights

    @non_trainable_weights.setter
    def non_trainable_weights(self, weights: list) -> None:
        self._non_trainable_weights = list(weights)

    @property
    def losses(self) -> list:
        return self._losses + [loss for cell in self.cells for loss in cell.losses]

    def get_weights(self, trainable_only: bool = False) -> list[Tensor]:
        return batch_get_value([w for cell in self.cells for w in cell.weights])

    def set_weights(self, weights: list[Any]) -> None:
        """Sets each cell's weights in turn (``weights`` in :meth:`get_weights` order)."""
        weights = list(weights)
        expected = sum(len(cell.weights) for cell in self.cells)
        if len(weights) != expected:
            raise LayersValueError(
                f'You called set_weights(weights) on layer "{self.name}" with a weight list '
                f"of length {len(weights)}, but the layer was expecting {expected} weights."
            )

        def body() -> None:
            pairs = []
            values = [w if isinstance(w, Tensor) else ops.tensor(w) for w in weights]
            for cell in self.cells:
                for w in cell.weights:
                    pairs.append((w, values.pop(0)))
            batch_set_value(pairs)

        ENGINE.tidy(body)
