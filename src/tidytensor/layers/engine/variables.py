"""``LayerVariable``: a layer's weight (TF.js's ``tfjs-layers/src/variables.ts``).

A ``LayerVariable`` wraps one ``tf.Variable`` (``val``). Its ``original_name`` is the scoped
name the layer asked for (``dense_Dense1/kernel``); its ``name`` is that name made unique for
the process (``dense_Dense1/kernel_1`` the second time), which is also the name of the
underlying ``tf.Variable``. Models save and load weights by ``original_name``.

>>> w = LayerVariable(tf.zeros([2]), name='w_demo')
>>> w2 = LayerVariable(tf.ones([2]), name='w_demo')
>>> w.name, w2.name, w2.original_name
('w_demo', 'w_demo_1', 'w_demo')
>>> w.write(tf.tensor1d([3, 4])).read().array_sync()
[3.0, 4.0]
>>> w.dispose(); w2.dispose()
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...autodiff import variable_grads
from ...engine import ENGINE
from ...engine.atomic_update import active_update
from ...py_strings import py_shape
from ...scopes import variable
from ...tensor import Tensor, Variable
from ..errors import LayersRuntimeError, LayersValueError
from .state import (
    get_next_unique_tensor_id,
    get_scoped_tensor_name,
    get_unique_tensor_name,
    release_tensor_name,
)

__all__ = ["LayerVariable", "batch_get_value", "batch_set_value", "gradients"]

DEFAULT_VARIABLE_NAME_PREFIX = "Variable"


class LayerVariable:
    """A named, optionally constrained weight of a layer.

    Args:
        val: initial value; the variable shares its buffer (the caller may dispose ``val``).
        dtype: the variable's dtype (default ``'float32'``).
        name: the name asked for, scoped by the enclosing :func:`~.state.name_scope`.
        trainable: whether optimizers update it.
        constraint: applied after every :meth:`write`.
    """

    def __init__(
        self,
        val: Tensor,
        dtype: str | None = "float32",
        name: str | None = DEFAULT_VARIABLE_NAME_PREFIX,
        trainable: bool = True,
        constraint: Any = None,
    ):
        self.dtype = dtype or "float32"
        self.shape = list(val.shape)
        self.id = get_next_unique_tensor_id()
        self.original_name = get_scoped_tensor_name(name or DEFAULT_VARIABLE_NAME_PREFIX)
        self.name = get_unique_tensor_name(self.original_name, self.id)
        self._trainable = bool(trainable)
        self.constraint = constraint
        self.val: Variable = variable(val, self._trainable, self.name, self.dtype)

    def __repr__(self) -> str:
        state = "disposed" if self.val.is_disposed else py_shape(self.shape)
        return f"LayerVariable({self.name!r}, {state}, {self.dtype})"

    def read(self) -> Variable:
        """The live ``tf.Variable`` (not a copy: disposing it destroys the weight)."""
        self._assert_not_disposed()
        return self.val

    def write(self, new_val: Tensor) -> LayerVariable:
        """Points the variable at ``new_val``'s buffer (same shape), then applies the
        constraint, if any. Returns ``self``."""
        self._assert_not_disposed()
        if not isinstance(new_val, Tensor):
            raise LayersValueError(
                f"LayersVariable {self.name}: write() expects a Tensor, but got "
                f"{type(new_val).__name__}"
            )
        if list(new_val.shape) != list(self.val.shape):
            raise LayersValueError(
                f"Shape mismatch: {py_shape(self.val.shape)} vs. {py_shape(new_val.shape)} "
                f"(writing to LayersVariable {self.name})"
            )
        if self.val.id != new_val.id:
            update = active_update()
            if update is not None:  # inside a training step: applied with the step, or never
                update.assign(self.val, new_val)
                if self.constraint is not None:
                    ENGINE.tidy(
                        lambda: update.assign(
                            self.val, self.constraint.apply(update.read(self.val))
                        )
                    )
                return self
            self.val.assign(new_val)
            if self.constraint is not None:
                ENGINE.tidy(lambda: self.val.assign(self.constraint.apply(self.val)))
        return self

    def dispose(self) -> None:
        """Frees the underlying variable and gives its name back; a second call raises."""
        self._assert_not_disposed()
        self.val.dispose()
        release_tensor_name(self.id)

    @property
    def is_disposed(self) -> bool:
        return self.val.is_disposed

    def _assert_not_disposed(self) -> None:
        if self.val.is_disposed:
            raise LayersRuntimeError(f"LayersVariable {self.name} is already disposed.")

    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, trainable: bool) -> None:
        self._trainable = bool(trainable)
        self.val.trainable = bool(trainable)


def batch_get_value(xs: list[LayerVariable]) -> list[Variable]:
    """The live variables of ``xs``."""
    return [x.read() for x in xs]


def batch_set_value(variables_and_values: list[tuple[LayerVariable, Tensor]]) -> None:
    """Writes each value into its variable."""
    for var, value in variables_and_values:
        var.write(value)


def gradients(loss_fn: Callable[[], Tensor], variables: list[LayerVariable]) -> list[Tensor]:
    """Gradients of ``loss_fn()`` with respect to each of ``variables``, in order."""
    result = variable_grads(loss_fn, [v.read() for v in variables])
    return [result.grads[v.name] for v in variables]
