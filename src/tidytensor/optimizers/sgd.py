"""Stochastic gradient descent (TF.js's ``SGDOptimizer``, ``sgd_optimizer.ts``)."""

from __future__ import annotations

from typing import Any

from ..engine.atomic_update import atomic_update
from ..errors import InvalidArgumentError
from ..ops.arithmetic import add, mul
from ..ops.creation import scalar
from ..scopes import keep, tidy
from .optimizer import (
    Optimizer,
    check_number,
    gradient_at,
    gradient_names,
    registered_variable,
)

__all__ = ["SGDOptimizer"]


class SGDOptimizer(Optimizer):
    """``w <- w + (-learning_rate) * g``. Keeps one scalar, ``-learning_rate``, until
    :meth:`dispose`.

    >>> x = tf.variable(tf.tensor1d([1, 2]), name='sgd_doc_x')
    >>> opt = tf.train.sgd(0.5)
    >>> opt.apply_gradients({'sgd_doc_x': tf.tensor1d([1, 1])})
    >>> x.array_sync()
    [0.5, 1.5]
    >>> opt.dispose(); x.dispose()
    """

    class_name = "SGD"

    def __init__(self, learning_rate: float):
        self.c = None
        self.set_learning_rate(learning_rate)

    def apply_gradients(self, variable_gradients: Any) -> None:
        names = gradient_names(variable_gradients, self.class_name)
        with atomic_update() as update:  # all variables and iterations, or nothing
            for i, name in enumerate(names):
                update.interruption_point()  # a held Ctrl-C stops the step here
                gradient = gradient_at(variable_gradients, i, name)
                if gradient is None:
                    continue
                gradient = update.read(gradient)  # a variable written earlier in this step
                variable = registered_variable(name)

                def step(variable=variable, gradient=gradient) -> None:
                    value = update.read(variable)
                    update.assign(variable, add(mul(self.c, gradient), value), temporary=True)

                tidy(step)
            update.on_commit(self.increment_iterations)

    def set_learning_rate(self, learning_rate: float) -> None:
        """Sets the learning rate (replacing the kept ``-learning_rate`` scalar)."""
        check_number(learning_rate, "learningRate", "SGDOptimizer")
        self.learning_rate = learning_rate
        if self.c is not None:
            self.c.dispose()
        self.c = keep(scalar(-learning_rate))

    def dispose(self) -> None:
        self.c.dispose()

    def get_weights(self) -> list[dict[str, Any]]:
        return [self.save_iterations()]

    def set_weights(self, weight_values: list[dict[str, Any]]) -> None:
        if self.extract_iterations(weight_values):
            raise InvalidArgumentError("SGD optimizer does not have settable weights.")

    def get_config(self) -> dict[str, Any]:
        return {"learningRate": self.learning_rate}

    @classmethod
    def _from_config(cls, config: dict[str, Any]) -> SGDOptimizer:
        return cls(config.get("learningRate"))
