"""Adagrad (TF.js's ``AdagradOptimizer``, ``adagrad_optimizer.ts``)."""

from __future__ import annotations

from typing import Any

from ..engine.atomic_update import atomic_update
from ..ops.arithmetic import add, div, mul
from ..ops.basic_math import sqrt, square
from ..ops.creation import fill
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

__all__ = ["AdagradOptimizer"]


class AdagradOptimizer(Optimizer):
    """``acc <- acc + g^2``; ``w <- w - lr * g / sqrt(acc + epsilon)`` (the backend's
    epsilon). One slot per variable, ``<var>/accumulator``, starting at
    ``initial_accumulator_value``."""

    class_name = "Adagrad"

    def __init__(self, learning_rate: float, initial_accumulator_value: float = 0.1):
        check_number(learning_rate, "learningRate", "AdagradOptimizer")
        check_number(initial_accumulator_value, "initialAccumulatorValue", "AdagradOptimizer")
        self.learning_rate = learning_rate
        self.initial_accumulator_value = initial_accumulator_value
        self.accumulated_grads: list[OptimizerVariable] = []

    def apply_gradients(self, variable_gradients: Any) -> None:
        names = gradient_names(variable_gradients, self.class_name)
        with atomic_update() as update:  # all variables, slots and iterations, or nothing
            for i, name in enumerate(names):
                update.interruption_point()  # a held Ctrl-C stops the step here
                variable = registered_variable(name)
                if i >= len(self.accumulated_grads):
                    self._add_slot(
                        update,
                        self.accumulated_grads,
                        f"{name}/accumulator",
                        lambda variable=variable: fill(
                            variable.shape, self.initial_accumulator_value
                        ),
                    )
                gradient = gradient_at(variable_gradients, i, name)
                if gradient is None:
                    continue
                gradient = update.read(gradient)  # a variable written earlier in this step
                accumulated_grad = self.accumulated_grads[i].variable

                def step(variable=variable, gradient=gradient, accumulated=accumulated_grad):
                    new_accumulated_grad = add(accumulated, square(gradient))
                    update.assign(accumulated, new_accumulated_grad, temporary=True)
                    delta = div(gradient, sqrt(add(new_accumulated_grad, backend_epsilon())))
                    new_value = add(mul(delta, -self.learning_rate), update.read(variable))
                    update.assign(variable, new_value, temporary=True)

                tidy(step)
            update.on_commit(self.increment_iterations)

    def dispose(self) -> None:
        dispose([v.variable for v in self.accumulated_grads])

    def get_weights(self) -> list[dict[str, Any]]:
        return [self.save_iterations()] + [
            {"name": v.original_name, "tensor": v.variable} for v in self.accumulated_grads
        ]

    def set_weights(self, weight_values: list[dict[str, Any]]) -> None:
        (self.accumulated_grads,) = self._restore_state(weight_values, 1)

    def get_config(self) -> dict[str, Any]:
        return {
            "learningRate": self.learning_rate,
            "initialAccumulatorValue": self.initial_accumulator_value,
        }

    @classmethod
    def _from_config(cls, config: dict[str, Any]) -> AdagradOptimizer:
        return cls(config.get("learningRate"), config.get("initialAccumulatorValue", 0.1))
