"""The engine's variables: making, naming, assigning and disposing ``tf.Variable`` handles.

``VariableRegistry`` is mixed into ``Engine`` (``engine.py``). A variable is one more handle
on a buffer, counted like a tensor but never tracked by a scope; the engine's
``state.registered_variables`` maps names to the live variables.
"""

from __future__ import annotations

import itertools
from typing import Any

from .. import sites
from ..dtypes import COMPLEX64, STRING
from ..errors import ArgumentTypeError, DTypeError, VariableExistsError
from ..kernel_names import CAST
from ..tensor import Tensor, Variable, disposed_error, new_handle
from .state import _logical_bytes

#: Names of variables made without one.
_variable_ids = itertools.count()


class VariableRegistry:
    """Variable creation, assignment and disposal (mixed into ``Engine``)."""

    def make_variable(
        self,
        initial_value: Tensor,
        trainable: bool = True,
        name: str | None = None,
        dtype: str | None = None,
    ) -> Variable:
        if name is None:
            name = str(next(_variable_ids))
        elif not isinstance(name, str):
            raise ArgumentTypeError(f"Variable name must be a string, got {type(name).__name__}")
        registered = self.state.registered_variables
        if self.tracer is not None:  # a tf.function being traced (compiled/tracing.py)
            self.tracer.on_new_variable(name)
        if name in registered:
            raise VariableExistsError(f"Variable with name {name} was already registered")
        if dtype is not None and dtype != initial_value.dtype:
            # tf.cast's kernel, run here (the engine sits below the ops): the cast handle is
            # a temporary of the active scope, as it is inside the op.
            if (dtype == STRING) != (initial_value.dtype == STRING):
                raise DTypeError("Only strings can be casted to strings")
            initial_value = self.run_kernel(CAST, (initial_value,), {"dtype": dtype})
        v = new_handle(
            Variable, initial_value.data_id, initial_value._shape, initial_value.dtype, None, None
        )
        v.name = name
        v.trainable = trainable
        registered[name] = v
        self._inc_ref(v)
        return v

    def _inc_ref(self, v: Tensor, site: bool = True) -> None:
        """Counts a variable as a new handle on its (existing) buffer. Variables are never tracked."""
        data_id = v.data_id
        if data_id.refs <= 0 or not data_id.backend.alive:
            raise disposed_error(v, "variable")
        state = self.state
        state.num_tensors += 1
        if v.dtype != COMPLEX64:
            state.num_bytes += (
                data_id.nbytes if v.dtype == data_id.dtype else _logical_bytes(v._shape, v.dtype)
            )
            if v.dtype == STRING:
                state.num_string_tensors += 1
        data_id.backend.inc_ref(data_id)
        if site and self.track_sites and v._site is None:
            v._site = sites.user_site(2)

    def hold_handle(self, t: Tensor) -> Tensor:
        """A new handle on ``t``'s buffer that no scope tracks (it outlives ``t`` and every
        tidy): an ``AtomicUpdate`` holds pending values with it. Counted like any handle;
        dispose it when done."""
        t.throw_if_disposed("hold")
        held = new_handle(Tensor, t.data_id, t._shape, t.dtype, None, t._site)
        held.kept = True
        self._inc_ref(held, site=False)  # t's site: no stack walk for a handle this short-lived
        return held

    def assign_variable(self, v: Variable, new_value: Tensor) -> None:
        # Validated by Variable.assign; from here nothing can fail.
        if self.tracer is not None:  # a tf.function being traced (compiled/tracing.py)
            self.tracer.on_assign(v, new_value)
        if new_value.data_id is v.data_id:
            return  # already aliased: dropping the old handle first would free the buffer
        self.dispose_tensor(v)
        v._disposed = False
        v._dispose_site = None
        v.data_id = new_value.data_id
        self._inc_ref(v)

    def dispose_variable(self, v: Variable, site: Any = None) -> None:
        self.dispose_tensor(v, site)
        if self.state.registered_variables.get(v.name) is v:
            del self.state.registered_variables[v.name]

    def dispose_variables(self) -> None:
        for v in list(self.state.registered_variables.values()):
            v.dispose()
