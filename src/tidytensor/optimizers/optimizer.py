"""The ``Optimizer`` base class (TF.js's ``optimizers/optimizer.ts``).

An optimizer minimizes a scalar loss: ``minimize(f)`` computes the gradient of ``f()`` for
each trainable variable (``variable_grads``) and hands them to ``apply_gradients``, which each
subclass implements. Optimizer state lives in non-trainable variables made lazily on the first
``apply_gradients``, named ``<variable name>/<slot>`` in ``get_weights()``.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable
from typing import Any

from ..autodiff import VariableGrads, variable_grads
from ..engine import ENGINE
from ..engine.atomic_update import AtomicUpdate, atomic_update
from ..errors import ArgumentTypeError, InvalidArgumentError, TidyTensorError
from ..naming import snake_case
from ..ops.creation import scalar
from ..scopes import dispose, tidy
from ..tensor import Tensor, Variable
from ..tensor_util import scalar_tensor

__all__ = ["Optimizer", "OptimizerVariable"]


class OptimizerVariable:
    """One state variable of an optimizer, with the name it is saved under
    (TF.js's ``{originalName, variable}``, e.g. ``'dense/kernel/m'``)."""

    __slots__ = ("original_name", "variable")

    def __init__(self, original_name: str, variable: Variable):
        self.original_name = original_name
        self.variable = variable

    def __repr__(self) -> str:
        return f"OptimizerVariable({self.original_name!r})"


class _OptimizerMeta(type):
    """``isinstance(x, Optimizer)`` is duck-typed, as TF.js's ``Symbol.hasInstance``: any
    object with ``minimize``, ``compute_gradients`` and ``apply_gradients`` qualifies."""

    def __instancecheck__(cls, instance: Any) -> bool:
        if cls.__dict__.get("_duck_typed", False):
            return all(
                callable(getattr(instance, name, None))
                for name in ("minimize", "compute_gradients", "apply_gradients")
            )
        return super().__instancecheck__(instance)


def _is_array_index(key: str) -> bool:
    """Whether ``key`` is a JS array index (``'0'``, ``'17'``; not ``'01'`` or ``'-1'``)."""
    return (
        isinstance(key, str)
        and key.isdigit()
        and key.isascii()
        and (key == "0" or key[0] != "0")
        and int(key) < 2**32 - 1
    )


def js_key_order(keys: Iterable[str]) -> list[str]:
    """The order in which JS's ``Object.keys`` lists an object's keys: array-index keys
    ascending, then the others in insertion order. TF.js walks gradient maps this way, and
    an optimizer's state slots follow that order."""
    keys = list(keys)
    index_keys = sorted((k for k in keys if _is_array_index(k)), key=int)
    return index_keys + [k for k in keys if not _is_array_index(k)]


def check_number(value: Any, name: str, class_name: str) -> None:
    """Hyperparameters must be real numbers (a clear error instead of a failure mid-step)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ArgumentTypeError(
            f"{snake_case(name)} for {class_name} must be a number, but got {value!r} ({type(value).__name__})"
        )


class Optimizer(metaclass=_OptimizerMeta):
    """Base class of every optimizer: ``minimize``, ``compute_gradients``,
    ``apply_gradients`` (abstract), ``iterations``, ``get_weights`` / ``set_weights``,
    ``get_config`` / ``from_config``, ``dispose``."""

    #: The table of ``tf.serialization.SerializationMap`` the optimizers are registered in.
    serialization_kind = "optimizer"
    #: The serialization name (TF.js's static ``className``).
    class_name = "Optimizer"
    _duck_typed = True

    _iterations: Any = None

    # ------------------------------------------------------------ training
    def minimize(
        self,
        f: Callable[[], Tensor],
        return_cost: bool = False,
        var_list: list[Variable] | None = None,
    ) -> Tensor | None:
        """Runs ``f()`` and updates the trainable variables (those in ``var_list`` when given)
        to decrease its scalar result. Returns the cost (a scalar the caller must dispose) when
        ``return_cost``, else disposes it and returns ``None``.

        >>> x = tf.variable(tf.scalar(4), name='opt_doc_x')
        >>> opt = tf.train.sgd(0.1)
        >>> opt.minimize(lambda: x.square()) is None
        True
        >>> round(x.array_sync(), 4)
        3.2
        >>> opt.dispose(); x.dispose()
        """
        value = None
        try:
            # One atomic update for the whole step: writes made by f (BatchNormalization's
            # moving statistics) and the optimizer's are applied together, or none of them.
            with atomic_update() as update, ENGINE.pin_site():  # ops: the caller's line
                result = self.compute_gradients(f, var_list)
                value, grads = result.value, result.grads
                try:
                    update.interruption_point()
                    if var_list is not None:
                        self.apply_gradients(
                            [{"name": v.name, "tensor": grads.get(v.name)} for v in var_list]
                        )
                    else:
                        self.apply_gradients(grads)
                finally:
                    dispose(grads)
                if not return_cost:  # inside the block, where Ctrl-C cannot split it
                    value.dispose()
                    value = None
        except BaseException:
            if value is not None:
                value.dispose()
            raise
        return value

    def compute_gradients(
        self, f: Callable[[], Tensor], var_list: list[Variable] | None = None
    ) -> VariableGrads:
        """``variable_grads(f, var_list)``: ``.value`` (the scalar ``f()``) and ``.grads``, a
        dict from variable name to gradient."""
        return variable_grads(f, var_list)

    def apply_gradients(self, variable_gradients: Any) -> None:
        """Updates each named variable from its gradient: a dict ``{name: tensor}`` or a list
        of ``{'name': ..., 'tensor': ...}`` dicts. Implemented by each optimizer, atomically:
        if it raises, every variable, slot and ``iterations`` is as before."""
        raise TidyTensorError(f"apply_gradients() is not implemented by {type(self).__name__}")

    @property
    def iterations(self) -> Any:
        """How many times ``apply_gradients`` has run (0 at first)."""
        if self._iterations is None:
            self._iterations = 0
        return self._iterations

    def increment_iterations(self) -> None:
        self._iterations = self.iterations + 1

    def _add_slot(
        self, update: AtomicUpdate, slots: list[OptimizerVariable], name: str, make: Callable
    ) -> Variable:
        """A new state variable ``make()`` (made in its own tidy) saved as ``name``, appended
        to ``slots``; removed and disposed again if the step fails."""
        return update.add_slot(
            slots, lambda: OptimizerVariable(name, tidy(lambda: make().variable(False)))
        ).variable

    def dispose(self) -> None:
        """Disposes the variables and tensors this optimizer owns."""

    # ------------------------------------------------------------ weights
    def save_iterations(self) -> dict[str, Any]:
        """``{'name': 'iter', 'tensor': <int32 scalar>}``: a new tensor on each call."""
        if self._iterations is None:
            self._iterations = 0
        return {"name": "iter", "tensor": scalar(self._iterations, "int32")}

    def get_weights(self) -> list[dict[str, Any]]:
        """``[{'name': 'iter', 'tensor': ...}, {'name': '<var>/<slot>', 'tensor': ...}, ...]``:
        the iteration count (a new int32 scalar) then the state variables themselves."""
        raise TidyTensorError("get_weights() is not implemented for this optimizer yet.")

    def set_weights(self, weight_values: list[dict[str, Any]]) -> None:
        """Restores ``get_weights()``'s list: ``iter`` first, then the state, in the same order.
        Each state tensor becomes a new non-trainable variable sharing its buffer."""
        raise TidyTensorError(
            f"set_weights() is not implemented for this optimizer class {self.get_class_name()}"
        )

    def extract_iterations(self, weight_values: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Sets ``iterations`` from the first entry of ``weight_values`` and returns the rest."""
        weight_values = _check_weight_list(weight_values, self.get_class_name())
        value = weight_values[0]["tensor"].data_sync()[0]
        number = float(value)
        self._iterations = int(number) if number.is_integer() else number
        return weight_values[1:]

    def _restore_state(self, weight_values: Any, slots: int) -> list[list[OptimizerVariable]]:
        """For ``set_weights``: checks ``weight_values`` (``iter``, then ``slots`` equal runs of
        state tensors), sets ``iterations`` and returns, per slot, new non-trainable variables
        sharing the given tensors' buffers. Nothing changes when the list is malformed."""
        class_name = self.get_class_name()
        weight_values = _check_weight_list(weight_values, class_name)
        state = weight_values[1:]
        if len(state) % slots != 0:
            raise InvalidArgumentError(
                f"set_weights() of {class_name} expects 'iter' followed by {slots} state tensors "
                f"per variable, but got {len(state)} state tensors (not a multiple of {slots})"
            )
        self.extract_iterations(weight_values)
        n = len(state) // slots
        return [
            [
                OptimizerVariable(w["name"], w["tensor"].variable(False))
                for w in state[i * n : (i + 1) * n]
            ]
            for i in range(slots)
        ]

    # ------------------------------------------------------------ serialization
    def get_class_name(self) -> str:
        return type(self).class_name

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments, keyed by TF.js's (camelCase) names."""
        raise TidyTensorError(f"get_config() is not implemented by {type(self).__name__}")

    @classmethod
    def _from_config(cls, config: dict[str, Any]) -> Optimizer:
        raise TidyTensorError(f"from_config() is not implemented by {cls.__name__}")

    @classmethod
    def from_config(cls, cls_or_config: Any, config: dict[str, Any] | None = None) -> Optimizer:
        """A new optimizer from ``get_config()``'s dict. Both TF.js's form
        ``SGDOptimizer.from_config(SGDOptimizer, config)`` and ``SGDOptimizer.from_config(config)``
        work; snake_case keys (``learning_rate``) are accepted as well as camelCase ones."""
        if config is None:
            target, config = cls, cls_or_config
        else:
            target = cls_or_config
        if not isinstance(target, type) or not issubclass(target, Optimizer):
            raise ArgumentTypeError(f"from_config() needs an Optimizer class, but got {target!r}")
        if not isinstance(config, dict):
            raise ArgumentTypeError(
                f"from_config() needs a config dict, but got {type(config).__name__}"
            )
        return target._from_config(_camel_keys(config))


def _camel_keys(config: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for key, value in config.items():
        parts = str(key).split("_")
        camel = parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:])
        out.setdefault(camel, value)
        out[key] = value
    return out


def _check_weight_list(weight_values: Any, class_name: str) -> list[dict[str, Any]]:
    if not isinstance(weight_values, (list, tuple)):
        raise ArgumentTypeError(
            f"set_weights() of {class_name} expects a list of {{'name': ..., 'tensor': ...}} dicts, "
            f"but got {type(weight_values).__name__}"
        )
    for i, w in enumerate(weight_values):
        if not isinstance(w, dict) or "name" not in w or not isinstance(w.get("tensor"), Tensor):
            raise ArgumentTypeError(
                f"set_weights() of {class_name}: entry {i} must be a dict with 'name' and a "
                f"'tensor' Tensor, but got {w!r}"
            )
    if not weight_values:
        raise InvalidArgumentError(
            f"set_weights() of {class_name} expects the 'iter' weight first, but got an empty list"
        )
    return list(weight_values)


# ---------------------------------------------------------------- helpers for apply_gradients
def gradient_names(variable_gradients: Any, class_name: str) -> list[str]:
    """The variable names of a gradient map or list, in TF.js's order, after checking that
    each names a registered variable and carries a tensor (or None)."""
    if isinstance(variable_gradients, dict):
        names = js_key_order(variable_gradients)
        grads = [variable_gradients[n] for n in names]
    elif isinstance(variable_gradients, (list, tuple)):
        names, grads = [], []
        for i, item in enumerate(variable_gradients):
            if not isinstance(item, dict) or "name" not in item:
                raise ArgumentTypeError(
                    f"apply_gradients() of {class_name}: entry {i} must be a dict with 'name' and "
                    f"'tensor', but got {item!r}"
                )
            names.append(item["name"])
            grads.append(item.get("tensor"))
    else:
        raise ArgumentTypeError(
            f"apply_gradients() of {class_name} expects a dict {{name: tensor}} or a list of "
            f"{{'name': ..., 'tensor': ...}} dicts, but got {type(variable_gradients).__name__}"
        )
    registered = ENGINE.state.registered_variables
    for name, g in zip(names, grads, strict=True):
        if name not in registered:
            raise InvalidArgumentError(
                f"apply_gradients() of {class_name}: no variable named {name!r} is registered"
            )
        if g is not None and not isinstance(g, Tensor):
            raise ArgumentTypeError(
                f"apply_gradients() of {class_name}: the gradient of {name!r} must be a Tensor or "
                f"None, but got {type(g).__name__}"
            )
    return names


def gradient_at(variable_gradients: Any, i: int, name: str) -> Tensor | None:
    if isinstance(variable_gradients, dict):
        return variable_gradients.get(name)
    return variable_gradients[i].get("tensor")


def registered_variable(name: str) -> Variable:
    return ENGINE.state.registered_variables[name]


def backend_epsilon() -> float:
    return ENGINE.backend.epsilon()


def plain_float32(first: Tensor, *others: Tensor) -> bool:
    """Whether live float32 tensors all have ``first``'s shape: then an update's ops would only
    pass them to their kernels (no conversion, cast or broadcast), so it may run the kernels
    directly (``ENGINE.run_kernel``), in the same order, with the same results and counts."""
    shape = first._shape
    if first.dtype != "float32" or first._disposed:
        return False
    for t in others:
        if not isinstance(t, Tensor) or t.dtype != "float32" or t._shape != shape or t._disposed:
            return False
    return True


def float32_scalars(*values: float) -> list[Tensor]:
    """Python numbers as float32 scalars, as ``convert_to_tensor`` makes them for an op."""
    return [scalar_tensor(v, "float32") for v in values]
