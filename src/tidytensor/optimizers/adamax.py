"""Adamax (TF.js's ``AdamaxOptimizer``, ``adamax_optimizer.ts``)."""

from __future__ import annotations

from typing import Any

from ..engine.atomic_update import AtomicUpdate, atomic_update
from ..errors import TidyTensorError
from ..ops.arithmetic import add, div, maximum, mul, sub
from ..ops.basic_math import abs
from ..ops.creation import scalar, zeros_like
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

__all__ = ["AdamaxOptimizer"]


class AdamaxOptimizer(Optimizer):
    """``lr_t = -lr / (iteration * decay + 1)``; ``m <- b1 m + (1 - b1) g``;
    ``u <- max(b2 u, |g|)``; ``w <- w + lr_t / (1 - accB1) * m / (u + eps)``; then
    ``iteration += 1``, ``accB1 *= b1``. The constructor makes the (trainable, as in TF.js)
    scalar variables ``iteration = 0`` and ``accB1 = b1``; slots ``<var>/m`` and ``<var>/v``.
    ``get_weights`` / ``set_weights`` raise, as TF.js's do."""

    class_name = "Adamax"

    def __init__(
        self,
        learning_rate: float,
        beta1: float,
        beta2: float,
        epsilon: float | None = None,
        decay: float = 0.0,
    ):
        for name, number in (
            ("learningRate", learning_rate),
            ("beta1", beta1),
            ("beta2", beta2),
            ("decay", decay),
        ):
            check_number(number, name, "AdamaxOptimizer")
        if epsilon is not None:
            check_number(epsilon, "epsilon", "AdamaxOptimizer")
        self.learning_rate = learning_rate
        self.beta1 = beta1
        self.beta2 = beta2
        self.decay = decay
        self.accumulated_first_moment: list[OptimizerVariable] = []
        self.accumulated_weighted_inf_norm: list[OptimizerVariable] = []

        def make_state() -> None:
            self.iteration = scalar(0).variable()
            self.acc_beta1 = scalar(beta1).variable()

        tidy(make_state)
        self.epsilon = backend_epsilon() if epsilon is None else epsilon

    def apply_gradients(self, variable_gradients: Any) -> None:
        names = gradient_names(variable_gradients, self.class_name)

        def step(update: AtomicUpdate) -> None:
            one_minus_acc_beta1 = sub(1, self.acc_beta1)
            lr = div(-self.learning_rate, add(mul(self.iteration, self.decay), 1))
            for i, name in enumerate(names):
                update.interruption_point()  # a held Ctrl-C stops the step here
                variable = registered_variable(name)
                # Made directly in this step's tidy (TF.js has no inner tidy here).
                if i >= len(self.accumulated_first_moment):
                    update.add_slot(
                        self.accumulated_first_moment,
                        lambda variable=variable, name=name: OptimizerVariable(
                            f"{name}/m", zeros_like(variable).variable(False)
                        ),
                    )
                if i >= len(self.accumulated_weighted_inf_norm):
                    update.add_slot(
                        self.accumulated_weighted_inf_norm,
                        lambda variable=variable, name=name: OptimizerVariable(
                            f"{name}/v", zeros_like(variable).variable(False)
                        ),
                    )
                gradient = gradient_at(variable_gradients, i, name)
                if gradient is None:
                    continue
                gradient = update.read(gradient)  # a variable written earlier in this step
                first_moment = self.accumulated_first_moment[i].variable
                weighted_inf_norm = self.accumulated_weighted_inf_norm[i].variable
                new_first_moment = add(mul(first_moment, self.beta1), mul(gradient, 1 - self.beta1))
                ut0 = mul(weighted_inf_norm, self.beta2)
                ut1 = abs(gradient)
                new_weighted_inf_norm = maximum(ut0, ut1)
                update.assign(first_moment, new_first_moment, temporary=True)
                update.assign(weighted_inf_norm, new_weighted_inf_norm, temporary=True)
                new_value = add(
                    mul(
                        div(lr, one_minus_acc_beta1),
                        div(new_first_moment, add(new_weighted_inf_norm, self.epsilon)),
                    ),
                    update.read(variable),
                )
                update.assign(variable, new_value, temporary=True)
            update.assign(self.iteration, add(self.iteration, 1), temporary=True)
            update.assign(self.acc_beta1, mul(self.acc_beta1, self.beta1), temporary=True)
            update.on_commit(self.increment_iterations)

        with atomic_update() as update:  # all variables, slots and iterations, or nothing
            tidy(lambda: step(update))

    def dispose(self) -> None:
        self.acc_beta1.dispose()
        self.iteration.dispose()
        dispose([v.variable for v in self.accumulated_first_moment])
        dispose([v.variable for v in self.accumulated_weighted_inf_norm])

    def get_weights(self) -> list[dict[str, Any]]:
        raise TidyTensorError("get_weights() is not implemented for Adamax yet.")

    def set_weights(self, weight_values: list[dict[str, Any]]) -> None:
        raise TidyTensorError("set_weights() is not implemented for Adamax yet.")

    def get_config(self) -> dict[str, Any]:
        return {
            "learningRate": self.learning_rate,
            "beta1": self.beta1,
            "beta2": self.beta2,
            "epsilon": self.epsilon,
            "decay": self.decay,
        }

    @classmethod
    def _from_config(cls, config: dict[str, Any]) -> AdamaxOptimizer:
        return cls(
            config.get("learningRate"),
            config.get("beta1"),
            config.get("beta2"),
            config.get("epsilon"),
            config.get("decay", 0.0),
        )
