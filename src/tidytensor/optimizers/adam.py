"""Adam (TF.js's ``AdamOptimizer``, ``adam_optimizer.ts``)."""

from __future__ import annotations

from typing import Any

from .. import kernel_names as k
from ..engine import ENGINE, kernel_scratch
from ..engine.atomic_update import AtomicUpdate, atomic_update
from ..ops.arithmetic import add, div, mul, pow, sub
from ..ops.basic_math import sqrt, square
from ..ops.creation import scalar, zeros_like
from ..ops.optimizers import adam_update
from ..scopes import dispose, tidy
from ..tensor import Variable
from .optimizer import (
    Optimizer,
    OptimizerVariable,
    backend_epsilon,
    check_number,
    float32_scalars,
    gradient_at,
    gradient_names,
    plain_float32,
    registered_variable,
)

__all__ = ["AdamOptimizer"]


class AdamOptimizer(Optimizer):
    """``m <- b1 m + (1 - b1) g``; ``v <- b2 v + (1 - b2) g^2``;
    ``w <- w - lr (m / (1 - accB1)) / (sqrt(v / (1 - accB2)) + eps)``; then
    ``accB1 *= b1``, ``accB2 *= b2``. The constructor makes the two (trainable, as in TF.js)
    scalar variables ``accB1 = b1`` and ``accB2 = b2``; slots ``<var>/m`` then ``<var>/v``.

    >>> x = tf.variable(tf.tensor1d([2, 4]), name='adam_doc_x')
    >>> opt = tf.train.adam(0.1, 0.8, 0.9)
    >>> opt.minimize(lambda: x.square().sum())
    >>> [round(v, 4) for v in x.array_sync()]
    [1.9, 3.9]
    >>> [w['name'] for w in opt.get_weights()]
    ['iter', 'adam_doc_x/m', 'adam_doc_x/v']
    >>> opt.dispose(); x.dispose()
    """

    class_name = "Adam"

    def __init__(
        self, learning_rate: float, beta1: float, beta2: float, epsilon: float | None = None
    ):
        for name, number in (("learningRate", learning_rate), ("beta1", beta1), ("beta2", beta2)):
            check_number(number, name, "AdamOptimizer")
        if epsilon is not None:
            check_number(epsilon, "epsilon", "AdamOptimizer")
        self.learning_rate = learning_rate
        self.beta1 = beta1
        self.beta2 = beta2
        self.accumulated_first_moment: list[OptimizerVariable] = []
        self.accumulated_second_moment: list[OptimizerVariable] = []

        def make_acc_betas() -> None:
            self.acc_beta1 = scalar(beta1).variable()
            self.acc_beta2 = scalar(beta2).variable()

        tidy(make_acc_betas)
        self.epsilon = backend_epsilon() if epsilon is None else epsilon

    def apply_gradients(self, variable_gradients: Any) -> None:
        names = gradient_names(variable_gradients, self.class_name)

        def step(update: AtomicUpdate) -> None:
            # One fused kernel for all variables unless someone watches kernels one by one.
            fused = ENGINE.may_fuse()
            one_minus_acc_beta1 = one_minus_acc_beta2 = consts = None
            # The variables the fused kernel takes, updated together by one flat kernel.
            batch: list[tuple] = []
            if not fused:
                one_minus_acc_beta1 = sub(1, self.acc_beta1)
                one_minus_acc_beta2 = sub(1, self.acc_beta2)
            for i, name in enumerate(names):
                update.interruption_point()  # a held Ctrl-C stops the step here
                variable = registered_variable(name)
                if i >= len(self.accumulated_first_moment):
                    self._add_slot(
                        update,
                        self.accumulated_first_moment,
                        f"{name}/m",
                        lambda variable=variable: zeros_like(variable),
                    )
                if i >= len(self.accumulated_second_moment):
                    self._add_slot(
                        update,
                        self.accumulated_second_moment,
                        f"{name}/v",
                        lambda variable=variable: zeros_like(variable),
                    )
                gradient = gradient_at(variable_gradients, i, name)
                if gradient is None:
                    continue
                if batch and (
                    isinstance(gradient, Variable) or any(b[0] is variable for b in batch)
                ):  # a batched variable's new value is read: update the batch first
                    self._fused_update(update, batch)
                gradient = update.read(gradient)  # a variable written earlier in this step
                value = update.read(variable)
                first_moment = self.accumulated_first_moment[i].variable
                second_moment = self.accumulated_second_moment[i].variable
                plain = plain_float32(value, gradient, first_moment, second_moment)
                if plain and fused:
                    batch.append((variable, value, gradient, first_moment, second_moment))
                    continue
                if one_minus_acc_beta1 is None:  # a variable the fused kernel cannot take
                    one_minus_acc_beta1 = sub(1, self.acc_beta1)
                    one_minus_acc_beta2 = sub(1, self.acc_beta2)
                if plain:
                    if consts is None:  # made once per step, not once per op
                        consts = float32_scalars(
                            self.beta1,
                            1 - self.beta1,
                            self.beta2,
                            1 - self.beta2,
                            self.epsilon,
                            -self.learning_rate,
                        )
                    moments = (first_moment, second_moment)
                    one_minus_acc_betas = (one_minus_acc_beta1, one_minus_acc_beta2)
                    self._update(
                        update, variable, value, gradient, moments, one_minus_acc_betas, consts
                    )
                    continue
                new_first_moment = add(mul(first_moment, self.beta1), mul(gradient, 1 - self.beta1))
                new_second_moment = add(
                    mul(second_moment, self.beta2), mul(square(gradient), 1 - self.beta2)
                )
                bias_corrected_first = div(new_first_moment, one_minus_acc_beta1)
                bias_corrected_second = div(new_second_moment, one_minus_acc_beta2)
                update.assign(first_moment, new_first_moment, temporary=True)
                update.assign(second_moment, new_second_moment, temporary=True)
                delta = div(bias_corrected_first, add(sqrt(bias_corrected_second), self.epsilon))
                update.assign(variable, add(mul(delta, -self.learning_rate), value), temporary=True)
            if batch:
                self._fused_update(update, batch)
            update.assign(self.acc_beta1, mul(self.acc_beta1, self.beta1), temporary=True)
            update.assign(self.acc_beta2, mul(self.acc_beta2, self.beta2), temporary=True)
            update.on_commit(self.increment_iterations)

        # All variables, slots, accumulated betas and iterations, or nothing.
        with atomic_update() as update, ENGINE.pin_site():
            tidy(lambda: step(update))

    @staticmethod
    def _update(update, variable, value, gradient, moments, one_minus_acc_betas, consts) -> None:
        """The loop body of ``step`` for float32 tensors of one shape: the same kernels in the
        same order as the ops above (which would only pass these tensors through)."""
        run = ENGINE.run_kernel
        m, v = moments
        one_minus_acc_beta1, one_minus_acc_beta2 = one_minus_acc_betas
        beta1, one_minus_beta1, beta2, one_minus_beta2, epsilon, neg_lr = consts
        new_m = run(
            k.ADD,
            (run(k.MULTIPLY, (m, beta1)), run(k.MULTIPLY, (gradient, one_minus_beta1))),
        )
        decayed_v = run(k.MULTIPLY, (v, beta2))
        new_v = run(
            k.ADD,
            (decayed_v, run(k.MULTIPLY, (run(k.SQUARE, (gradient,)), one_minus_beta2))),
        )
        corrected_m = run(k.REAL_DIV, (new_m, one_minus_acc_beta1))
        corrected_v = run(k.REAL_DIV, (new_v, one_minus_acc_beta2))
        update.assign(m, new_m, temporary=True)
        update.assign(v, new_v, temporary=True)
        denominator = run(k.ADD, (run(k.SQRT, (corrected_v,)), epsilon))
        delta = run(k.REAL_DIV, (corrected_m, denominator))
        update.assign(
            variable, run(k.ADD, (run(k.MULTIPLY, (delta, neg_lr)), value)), temporary=True
        )

    def _fused_update(self, update, batch: list[tuple]) -> None:
        """``_update`` for every (variable, value, gradient, m, v) of ``batch`` as one kernel
        (``TidyAdamUpdate``, one flat update over all of them): the same arithmetic in the
        same order and precision, so the same bits, without its eleven temporaries per
        variable (nor the scalars ``1 - accBeta`` and the constants: the kernel takes them as
        attributes). Empties ``batch``."""
        variables, values, gradients, ms, vs = zip(*batch, strict=True)
        new_ms, new_vs, new_values = adam_update(
            list(values),
            list(gradients),
            list(ms),
            list(vs),
            self.acc_beta1,
            self.acc_beta2,
            beta1=self.beta1,
            beta2=self.beta2,
            epsilon=self.epsilon,
            learning_rate=self.learning_rate,
        )
        for variable, m, v, new_m, new_v, new_value in zip(
            variables, ms, vs, new_ms, new_vs, new_values, strict=True
        ):
            update.assign(m, new_m, temporary=True)
            update.assign(v, new_v, temporary=True)
            update.assign(variable, new_value, temporary=True)
        batch.clear()

    def dispose(self) -> None:
        self.acc_beta1.dispose()
        self.acc_beta2.dispose()
        dispose([v.variable for v in self.accumulated_first_moment])
        dispose([v.variable for v in self.accumulated_second_moment])
        # The flat update's pooled arrays (counted in the engine's live bytes) go too.
        kernel_scratch.release("adam")

    def get_weights(self) -> list[dict[str, Any]]:
        state = self.accumulated_first_moment + self.accumulated_second_moment
        return [self.save_iterations()] + [
            {"name": v.original_name, "tensor": v.variable} for v in state
        ]

    def set_weights(self, weight_values: list[dict[str, Any]]) -> None:
        first, second = self._restore_state(weight_values, 2)

        def reset_acc_betas() -> None:
            self.acc_beta1.assign(pow(self.beta1, self._iterations + 1))
            self.acc_beta2.assign(pow(self.beta2, self._iterations + 1))

        tidy(reset_acc_betas)
        self.accumulated_first_moment = first
        self.accumulated_second_moment = second

    def get_config(self) -> dict[str, Any]:
        return {
            "learningRate": self.learning_rate,
            "beta1": self.beta1,
            "beta2": self.beta2,
            "epsilon": self.epsilon,
        }

    @classmethod
    def _from_config(cls, config: dict[str, Any]) -> AdamOptimizer:
        return cls(
            config.get("learningRate"),
            config.get("beta1"),
            config.get("beta2"),
            config.get("epsilon"),
        )
