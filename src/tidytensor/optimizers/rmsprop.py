"""RMSProp (TF.js's ``RMSPropOptimizer``, ``rmsprop_optimizer.ts``)."""

from __future__ import annotations

from typing import Any

from ..engine.atomic_update import atomic_update
from ..errors import InvalidArgumentError
from ..ops.arithmetic import add, div, mul, sub
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

__all__ = ["RMSPropOptimizer"]


class RMSPropOptimizer(Optimizer):
    """``ms <- decay ms + (1 - decay) g^2``; ``mom <- momentum mom + lr g / sqrt(ms + eps)``;
    ``w <- w - mom``. Centered: also ``mg <- decay mg + (1 - decay) g`` and the denominator is
    ``sqrt(ms - (mg^2 + eps))``. Slots ``<var>/rms``, ``<var>/momentum`` and, when centered,
    ``<var>/mg``."""

    class_name = "RMSProp"

    def __init__(
        self,
        learning_rate: float,
        decay: float = 0.9,
        momentum: float = 0.0,
        epsilon: float | None = None,
        centered: bool = False,
    ):
        if learning_rate is None:
            raise InvalidArgumentError("learning_rate for RMSPropOptimizer must be defined.")
        for name, number in (
            ("learningRate", learning_rate),
            ("decay", decay),
            ("momentum", momentum),
        ):
            check_number(number, name, "RMSPropOptimizer")
        if epsilon is not None:
            check_number(epsilon, "epsilon", "RMSPropOptimizer")
        self.learning_rate = learning_rate
        self.decay = decay
        self.momentum = momentum
        self.epsilon = backend_epsilon() if epsilon is None else epsilon
        self.centered = centered
        self.accumulated_mean_squares: list[OptimizerVariable] = []
        self.accumulated_moments: list[OptimizerVariable] = []
        self.accumulated_mean_grads: list[OptimizerVariable] = []

    def apply_gradients(self, variable_gradients: Any) -> None:
        names = gradient_names(variable_gradients, self.class_name)
        with atomic_update() as update:  # all variables, slots and iterations, or nothing
            for i, name in enumerate(names):
                update.interruption_point()  # a held Ctrl-C stops the step here
                variable = registered_variable(name)

                def zeros(variable=variable):
                    return zeros_like(variable)

                if i >= len(self.accumulated_mean_squares):
                    self._add_slot(update, self.accumulated_mean_squares, f"{name}/rms", zeros)
                if i >= len(self.accumulated_moments):
                    self._add_slot(update, self.accumulated_moments, f"{name}/momentum", zeros)
                if self.centered and i >= len(self.accumulated_mean_grads):
                    self._add_slot(update, self.accumulated_mean_grads, f"{name}/mg", zeros)
                gradient = gradient_at(variable_gradients, i, name)
                if gradient is None:
                    continue
                gradient = update.read(gradient)  # a variable written earlier in this step
                mean_square = self.accumulated_mean_squares[i].variable
                moments = self.accumulated_moments[i].variable
                mean_grad = self.accumulated_mean_grads[i].variable if self.centered else None

                def step(
                    variable=variable,
                    gradient=gradient,
                    mean_square=mean_square,
                    moments=moments,
                    mean_grad=mean_grad,
                ):
                    decay, lr, eps = self.decay, self.learning_rate, self.epsilon
                    new_mean_square = add(mul(mean_square, decay), mul(square(gradient), 1 - decay))
                    if self.centered:
                        new_mean_grad = add(mul(mean_grad, decay), mul(gradient, 1 - decay))
                        grad_contribution = div(
                            mul(gradient, lr),
                            sqrt(sub(new_mean_square, add(square(new_mean_grad), eps))),
                        )
                        new_moments = add(mul(moments, self.momentum), grad_contribution)
                        update.assign(mean_square, new_mean_square, temporary=True)
                        update.assign(mean_grad, new_mean_grad, temporary=True)
                        update.assign(moments, new_moments, temporary=True)
                    else:
                        # TF.js computes the new mean square a second time on this path; so do
                        # we, so that the kernels run (and tf.profile's record) are the same.
                        new_mean_square = add(
                            mul(mean_square, decay), mul(square(gradient), 1 - decay)
                        )
                        new_moments = add(
                            mul(moments, self.momentum),
                            div(mul(gradient, lr), sqrt(add(new_mean_square, eps))),
                        )
                        update.assign(mean_square, new_mean_square, temporary=True)
                        update.assign(moments, new_moments, temporary=True)
                    update.assign(variable, sub(update.read(variable), new_moments), temporary=True)

                tidy(step)
            update.on_commit(self.increment_iterations)

    def dispose(self) -> None:
        dispose([v.variable for v in self.accumulated_mean_squares])
        if self.centered:
            dispose([v.variable for v in self.accumulated_mean_grads])
        dispose([v.variable for v in self.accumulated_moments])

    def get_weights(self) -> list[dict[str, Any]]:
        state = self.accumulated_mean_squares + self.accumulated_moments
        if self.centered:
            state = state + self.accumulated_mean_grads
        return [self.save_iterations()] + [
            {"name": v.original_name, "tensor": v.variable} for v in state
        ]

    def set_weights(self, weight_values: list[dict[str, Any]]) -> None:
        runs = self._restore_state(weight_values, 3 if self.centered else 2)
        self.accumulated_mean_squares = runs[0]
        self.accumulated_moments = runs[1]
        if self.centered:
            self.accumulated_mean_grads = runs[2]

    def get_config(self) -> dict[str, Any]:
        return {
            "learningRate": self.learning_rate,
            "decay": self.decay,
            "momentum": self.momentum,
            "epsilon": self.epsilon,
            "centered": self.centered,
        }

    @classmethod
    def _from_config(cls, config: dict[str, Any]) -> RMSPropOptimizer:
        return cls(
            config.get("learningRate"),
            config.get("decay", 0.9),
            config.get("momentum", 0.0),
            config.get("epsilon"),
            config.get("centered", False),
        )
