"""Adadelta (TF.js's ``AdadeltaOptimizer``, ``adadelta_optimizer.ts``)."""

from __future__ import annotations

from typing import Any

from ..engine.atomic_update import atomic_update
from ..ops.arithmetic import add, div, mul
from ..ops.basic_math import sqrt, square
from ..ops.creation import zeros_like
from ..scopes import dispose, tidy
from .optimizer import (
    Optimizer,
    OptimizerVariable,
    backend_epsilon,
    check_number,
    gradient_at,
    gradient_names,
    registered_variable,
)

__all__ = ["AdadeltaOptimizer"]


class AdadeltaOptimizer(Optimizer):
    """``accG <- rho accG + (1 - rho) g^2``;
    ``u = sqrt(accU + eps) / sqrt(accG_old + eps) * g`` (the accumulator *before* this
    step, as TF.js); ``accU <- rho accU + (1 - rho) u^2``; ``w <- w - lr u``.
    Slots ``<var>/accum_grad`` then ``<var>/accum_var``."""

    class_name = "Adadelta"

    def __init__(self, learning_rate: float, rho: float, epsilon: float | None = None):
        check_number(learning_rate, "learningRate", "AdadeltaOptimizer")
        check_number(rho, "rho", "AdadeltaOptimizer")
        if epsilon is not None:
            check_number(epsilon, "epsilon", "AdadeltaOptimizer")
        self.learning_rate = learning_rate
        self.rho = rho
        self.epsilon = backend_epsilon() if epsilon is None else epsilon
        self.accumulated_grads: list[OptimizerVariable] = []
        self.accumulated_updates: list[OptimizerVariable] = []

    def apply_gradients(self, variable_gradients: Any) -> None:
        names = gradient_names(variable_gradients, self.class_name)
        with atomic_update() as update:  # all variables, slots and iterations, or nothing
            for i, name in enumerate(names):
                update.interruption_point()  # a held Ctrl-C stops the step here
                variable = registered_variable(name)

                def zeros(variable=variable):
                    return zeros_like(variable)

                if i >= len(self.accumulated_grads):
                    self._add_slot(update, self.accumulated_grads, f"{name}/accum_grad", zeros)
                if i >= len(self.accumulated_updates):
                    self._add_slot(update, self.accumulated_updates, f"{name}/accum_var", zeros)
                gradient = gradient_at(variable_gradients, i, name)
                if gradient is None:
                    continue
                gradient = update.read(gradient)  # a variable written earlier in this step
                accumulated_grad = self.accumulated_grads[i].variable
                accumulated_update = self.accumulated_updates[i].variable

                def step(
                    variable=variable,
                    gradient=gradient,
                    acc_grad=accumulated_grad,
                    acc_update=accumulated_update,
                ) -> None:
                    rho, eps = self.rho, self.epsilon
                    new_acc_grad = add(mul(acc_grad, rho), mul(square(gradient), 1 - rho))
                    updates = mul(
                        div(sqrt(add(acc_update, eps)), sqrt(add(acc_grad, eps))), gradient
                    )
                    new_acc_update = add(mul(acc_update, rho), mul(square(updates), 1 - rho))
                    update.assign(acc_grad, new_acc_grad, temporary=True)
                    update.assign(acc_update, new_acc_update, temporary=True)
                    new_value = add(mul(updates, -self.learning_rate), update.read(variable))
                    update.assign(variable, new_value, temporary=True)

                tidy(step)
            update.on_commit(self.increment_iterations)

    def dispose(self) -> None:
        dispose([v.variable for v in self.accumulated_grads])
        dispose([v.variable for v in self.accumulated_updates])

    def get_weights(self) -> list[dict[str, Any]]:
        state = self.accumulated_grads + self.accumulated_updates
        return [self.save_iterations()] + [
            {"name": v.original_name, "tensor": v.variable} for v in state
        ]

    def set_weights(self, weight_values: list[dict[str, Any]]) -> None:
        self.accumulated_grads, self.accumulated_updates = self._restore_state(weight_values, 2)

    def get_config(self) -> dict[str, Any]:
        return {"learningRate": self.learning_rate, "rho": self.rho, "epsilon": self.epsilon}

    @classmethod
    def _from_config(cls, config: dict[str, Any]) -> AdadeltaOptimizer:
        return cls(config.get("learningRate"), config.get("rho"), config.get("epsilon"))
