"""Momentum (TF.js's ``MomentumOptimizer``, ``momentum_optimizer.ts``)."""

from __future__ import annotations

from typing import Any

from ..engine.atomic_update import atomic_update
from ..ops.arithmetic import add, mul
from ..ops.creation import scalar, zeros_like
from ..scopes import dispose, tidy
from .optimizer import (
    OptimizerVariable,
    check_number,
    gradient_at,
    gradient_names,
    registered_variable,
)
from .sgd import SGDOptimizer

__all__ = ["MomentumOptimizer"]


class MomentumOptimizer(SGDOptimizer):
    """``a <- momentum * a + g``; ``w <- w - lr * a``, or with Nesterov
    ``w <- w - lr * (g + momentum * a)``. One slot per variable, ``<var>/momentum``.

    As in TF.js: ``set_momentum`` changes ``get_config()`` but not the scalar the update
    uses (made once, in the constructor), and ``dispose()`` leaves the kept ``-lr`` scalar.
    """

    class_name = "Momentum"

    def __init__(self, learning_rate: float, momentum: float, use_nesterov: bool = False):
        check_number(momentum, "momentum", "MomentumOptimizer")
        super().__init__(learning_rate)
        self.momentum = momentum
        self.use_nesterov = use_nesterov
        self.accumulations: list[OptimizerVariable] = []
        self.m = scalar(self.momentum)

    def apply_gradients(self, variable_gradients: Any) -> None:
        names = gradient_names(variable_gradients, self.class_name)
        with atomic_update() as update:  # all variables, slots and iterations, or nothing
            for i, name in enumerate(names):
                update.interruption_point()  # a held Ctrl-C stops the step here
                variable = registered_variable(name)
                if i >= len(self.accumulations):
                    self._add_slot(
                        update,
                        self.accumulations,
                        f"{name}/momentum",
                        lambda variable=variable: zeros_like(variable),
                    )
                accumulation = self.accumulations[i].variable
                gradient = gradient_at(variable_gradients, i, name)
                if gradient is None:
                    continue
                gradient = update.read(gradient)  # a variable written earlier in this step

                def step(variable=variable, gradient=gradient, accumulation=accumulation) -> None:
                    value = update.read(variable)
                    new_accumulation = add(mul(self.m, accumulation), gradient)
                    if self.use_nesterov:
                        new_value = add(
                            mul(self.c, add(gradient, mul(new_accumulation, self.m))), value
                        )
                    else:
                        new_value = add(mul(self.c, new_accumulation), value)
                    update.assign(accumulation, new_accumulation, temporary=True)
                    update.assign(variable, new_value, temporary=True)

                tidy(step)
            update.on_commit(self.increment_iterations)

    def dispose(self) -> None:
        self.m.dispose()
        dispose([v.variable for v in self.accumulations])

    def set_momentum(self, momentum: float) -> None:
        """Sets ``momentum`` as reported by ``get_config()`` (the update keeps the old one,
        exactly as in TF.js)."""
        self.momentum = momentum

    def get_weights(self) -> list[dict[str, Any]]:
        return [self.save_iterations()] + [
            {"name": v.original_name, "tensor": v.variable} for v in self.accumulations
        ]

    def set_weights(self, weight_values: list[dict[str, Any]]) -> None:
        (self.accumulations,) = self._restore_state(weight_values, 1)

    def get_config(self) -> dict[str, Any]:
        return {
            "learningRate": self.learning_rate,
            "momentum": self.momentum,
            "useNesterov": self.use_nesterov,
        }

    @classmethod
    def _from_config(cls, config: dict[str, Any]) -> MomentumOptimizer:
        return cls(
            config.get("learningRate"), config.get("momentum"), config.get("useNesterov", False)
        )
