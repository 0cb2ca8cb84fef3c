"""Gradients of the fused recurrent kernels (``kernel_names/recurrent.py``).

Each forward kernel saves its inputs and its ``workspace`` output; the gradient runs the
matching ``...Grad`` kernel once, which backpropagates through every time step and returns
the gradients of all inputs together. The per-input callables the tape asks for hand those
tensors out (gradients of inputs that need none are freed with the backward pass's scope).
"""

from __future__ import annotations

from ..engine import ENGINE
from ..kernel_names import recurrent as kr
from ..kernel_registry import GradConfig, register_gradient


def _sequence_grad(grad_kernel: str, num_states: int):
    def grad_func(dys, saved, attrs):

        # dys: d(sequence), d(last h)[, d(last c)], d(workspace) (unused).
        grads = ENGINE.run_kernel(grad_kernel, (*dys[: 1 + num_states], *saved), attrs)
        return [(lambda g=g: g) for g in grads]

    return grad_func


for _config in (
    GradConfig(
        kr.LSTM_SEQUENCE,
        _sequence_grad(kr.LSTM_SEQUENCE_GRAD, 2),
        save_all_inputs=True,
        outputs_to_save=(False, False, False, True),
    ),
    GradConfig(
        kr.GRU_SEQUENCE,
        _sequence_grad(kr.GRU_SEQUENCE_GRAD, 1),
        save_all_inputs=True,
        outputs_to_save=(False, False, True),
    ),
    GradConfig(
        kr.SIMPLE_RNN_SEQUENCE,
        _sequence_grad(kr.SIMPLE_RNN_SEQUENCE_GRAD, 1),
        save_all_inputs=True,
        outputs_to_save=(False, False, True),
    ),
):
    register_gradient(_config)
