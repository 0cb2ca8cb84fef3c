"""RNN (TF.js doc subheading 'Operations / RNN'): one step of an LSTM cell, and of a stack of
cells. Both are composites of other ops, so they are differentiable.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..errors import ArgumentTypeError, ShapeError
from ..tensor import Tensor
from ._op import convert_to_tensor, convert_to_tensor_array, op
from .arithmetic import add, mul
from .basic_math import sigmoid, tanh
from .matrices import mat_mul
from .slicing_joining import concat
from .slicing_joining import slice as slice_

__all__ = ["basic_lstm_cell", "multi_rnn_cell"]


@op
def basic_lstm_cell(
    forget_bias: Any, lstm_kernel: Any, lstm_bias: Any, data: Any, c: Any, h: Any
) -> list[Tensor]:
    """One step of a basic LSTM cell: returns ``[new_c, new_h]``.

    ``lstm_kernel`` has shape ``[input + units, 4 * units]`` and ``lstm_bias`` ``[4 * units]``;
    the gate columns are, in order, input, new input, forget and output.

    >>> units, inp = 1, 1
    >>> kernel = tf.ones([inp + units, 4 * units])
    >>> c, h = tf.basic_lstm_cell(1.0, kernel, tf.zeros([4]), tf.ones([1, 1]), tf.zeros([1, 1]),
    ...                           tf.zeros([1, 1]))
    >>> [round(v, 4) for v in c.data_sync().tolist() + h.data_sync().tolist()]
    [0.5568, 0.3696]
    """

    forget_bias = convert_to_tensor(forget_bias, "forgetBias", "basicLSTMCell")
    lstm_kernel = convert_to_tensor(lstm_kernel, "lstmKernel", "basicLSTMCell")
    lstm_bias = convert_to_tensor(lstm_bias, "lstmBias", "basicLSTMCell")
    data = convert_to_tensor(data, "data", "basicLSTMCell")
    c = convert_to_tensor(c, "c", "basicLSTMCell")
    h = convert_to_tensor(h, "h", "basicLSTMCell")

    combined = concat([data, h], 1)
    weighted = mat_mul(combined, lstm_kernel)
    res = add(weighted, lstm_bias)
    batch_size, width = res._shape[0], res._shape[1]
    if width % 4:
        raise ShapeError(
            "Error in basic_lstm_cell: the kernel's output width must be a multiple of 4 (the "
            f"four gates), but got {width}"
        )
    cols = width // 4
    size = [batch_size, cols]
    i = slice_(res, [0, 0], size)  # input gate
    j = slice_(res, [0, cols], size)  # new input
    f = slice_(res, [0, cols * 2], size)  # forget gate
    o = slice_(res, [0, cols * 3], size)  # output gate
    new_c = add(mul(sigmoid(i), tanh(j)), mul(c, sigmoid(add(forget_bias, f))))
    new_h = mul(tanh(new_c), sigmoid(o))
    return [new_c, new_h]


LSTMCellFunc = Callable[[Tensor, Tensor, Tensor], Sequence[Tensor]]


@op
def multi_rnn_cell(
    lstm_cells: Sequence[LSTMCellFunc], data: Any, c: Any, h: Any
) -> list[list[Tensor]]:
    """One step of a stack of cells: cell ``i`` gets the previous cell's new ``h`` (the first
    gets ``data``) with ``c[i]`` and ``h[i]``. Returns ``[new_cs, new_hs]``.

    >>> cell = lambda x, c, h: tf.basic_lstm_cell(1.0, tf.ones([2, 4]), tf.zeros([4]), x, c, h)
    >>> cs, hs = tf.multi_rnn_cell([cell, cell], tf.ones([1, 1]), [tf.zeros([1, 1])] * 2,
    ...                            [tf.zeros([1, 1])] * 2)
    >>> len(cs), hs[1].shape
    (2, [1, 1])
    """
    data = convert_to_tensor(data, "data", "multiRNNCell")
    cs = convert_to_tensor_array(c, "c", "multiRNNCell")
    hs = convert_to_tensor_array(h, "h", "multiRNNCell")
    if not isinstance(lstm_cells, (list, tuple)) or not all(callable(f) for f in lstm_cells):
        raise ArgumentTypeError(
            "Error in multi_rnn_cell: lstm_cells must be a list of functions (data, c, h) -> [c, h]"
        )
    if len(cs) < len(lstm_cells) or len(hs) < len(lstm_cells):
        raise ShapeError(
            f"Error in multi_rnn_cell: got {len(lstm_cells)} cells but {len(cs)} c and {len(hs)} h "
            "states; each cell needs one of each"
        )
    inp = data
    new_cs: list[Tensor] = []
    new_hs: list[Tensor] = []
    for i, cell in enumerate(lstm_cells):
        out = cell(inp, cs[i], hs[i])
        new_cs.append(out[0])
        new_hs.append(out[1])
        inp = out[1]
    return [new_cs, new_hs]
