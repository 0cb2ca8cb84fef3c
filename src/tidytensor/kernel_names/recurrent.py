"""Kernel names of tidytensor's fused recurrent layers (no TF.js equivalent).

TF.js runs an LSTM, GRU or SimpleRNN layer as dozens of small kernels per time step. The
Layers API here runs the whole sequence of a standard cell as one kernel (input projection,
time loop, masking and recurrent dropout included) and its backward pass as one more, so the
gradient tape holds one node per layer call. The names carry a ``Tidy`` prefix so they never
collide with TF.js's kernel names in ``kernel_names/tfjs.py``. Family ``recurrent``: ops
``ops/recurrent.py``, kernels ``backends/xp_kernels/recurrent.py``, gradients
``gradients/recurrent.py``.

Inputs come in this order; the bracketed ones are present only when the matching attr
(``has_bias``, ``has_rec_mask``, ``has_mask``) is true:

- forward: ``x [B, T, D], kernel [D, G], recurrentKernel [U, G], h0 [B, U], (c0 [B, U] for
  LSTM), [bias [G]], [recurrentMask [B, U]], [mask [B, T]]``
  → ``sequence [B, T or 0, U], hLast [B, U], (cLast [B, U] for LSTM), workspace [n]``
- gradient: ``dSequence, dhLast, (dcLast), <the forward inputs>, workspace``
  → one gradient per forward input, in the forward input order.
"""

from __future__ import annotations

LSTM_SEQUENCE = (
    "TidyLSTMSequence"  # inputs: x, kernel, recurrentKernel, h0, c0; [bias, recurrentMask, mask]
)
LSTM_SEQUENCE_GRAD = "TidyLSTMSequenceGrad"
GRU_SEQUENCE = (
    "TidyGRUSequence"  # inputs: x, kernel, recurrentKernel, h0; [bias, recurrentMask, mask]
)
GRU_SEQUENCE_GRAD = "TidyGRUSequenceGrad"
SIMPLE_RNN_SEQUENCE = (
    "TidySimpleRNNSequence"  # inputs: x, kernel, recurrentKernel, h0; [bias, recurrentMask, mask]
)
SIMPLE_RNN_SEQUENCE_GRAD = "TidySimpleRNNSequenceGrad"

#: Activations the fused kernels compute themselves (TF.js names); layers with other
#: activations run TF.js's per-step ops instead.
FUSED_ACTIVATIONS = ("linear", "relu", "sigmoid", "hardSigmoid", "tanh")
