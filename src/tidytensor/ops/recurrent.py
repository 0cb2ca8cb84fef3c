"""The fused recurrent layers' ops (family ``recurrent``): kernel names in
``kernel_names/recurrent.py``, kernels in ``backends/xp_kernels/recurrent.py``, gradients in
``gradients/recurrent.py``.

Internal ops, not exported as ``tf.*``: ``layers/recurrent.py`` calls one when its cell can
run the whole sequence as one kernel. Each takes the kernel's inputs and attrs as that
module lists them and returns its outputs (the sequence, the last states, the workspace the
gradient reads), in its own ``<kernel>__op`` scope.
"""

from __future__ import annotations

from typing import Any

from ..kernel_names import recurrent as kr
from ..tensor import Tensor
from ._op import op, run_kernel

__all__ = ["SEQUENCE_OPS", "gru_sequence", "lstm_sequence", "simple_rnn_sequence"]


@op(name="tidyLSTMSequence")
def lstm_sequence(inputs: tuple[Tensor, ...], attrs: dict[str, Any]) -> list[Tensor]:
    """A standard LSTM layer over the whole sequence (``TidyLSTMSequence``)."""
    return run_kernel(kr.LSTM_SEQUENCE, inputs, attrs)


@op(name="tidyGRUSequence")
def gru_sequence(inputs: tuple[Tensor, ...], attrs: dict[str, Any]) -> list[Tensor]:
    """A standard GRU layer over the whole sequence (``TidyGRUSequence``)."""
    return run_kernel(kr.GRU_SEQUENCE, inputs, attrs)


@op(name="tidySimpleRNNSequence")
def simple_rnn_sequence(inputs: tuple[Tensor, ...], attrs: dict[str, Any]) -> list[Tensor]:
    """A standard SimpleRNN layer over the whole sequence (``TidySimpleRNNSequence``)."""
    return run_kernel(kr.SIMPLE_RNN_SEQUENCE, inputs, attrs)


#: The op that runs each forward kernel, by kernel name.
SEQUENCE_OPS = {
    kr.LSTM_SEQUENCE: lstm_sequence,
    kr.GRU_SEQUENCE: gru_sequence,
    kr.SIMPLE_RNN_SEQUENCE: simple_rnn_sequence,
}
