"""The ``tf.signal`` namespace (TF.js's ``ops/signal/``): ``frame``, ``hann_window``,
``hamming_window`` and ``stft``, built from other ops exactly as TF.js builds them.

The helpers TF.js also exports at the top level (``enclosing_power_of_two``,
``cosine_window``) live in :mod:`.signal_util`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import ArgumentTypeError, InvalidArgumentError
from ..tensor import Tensor
from ._op import bool_arg, convert_to_tensor, describe, float_arg, int_arg, op
from .arithmetic import mul
from .creation import fill, tensor2d
from .signal_util import cosine_window, enclosing_power_of_two
from .slicing_joining import concat
from .slicing_joining import slice as slice_
from .spectral import rfft
from .transformations import reshape

__all__ = ["frame", "hamming_window", "hann_window", "stft"]


@op(name="hammingWindow")
def hamming_window(window_length: int) -> Tensor:
    """A Hamming window (``0.54 - 0.46 cos``) of ``window_length`` float32 values.

    >>> [round(v, 2) for v in tf.signal.hamming_window(3).array_sync()]
    [0.08, 1.0, 0.08]
    """
    return cosine_window(window_length, 0.54, 0.46)


@op(name="hannWindow")
def hann_window(window_length: int) -> Tensor:
    """A Hann window (``0.5 - 0.5 cos``) of ``window_length`` float32 values.

    >>> tf.signal.hann_window(7).array_sync()
    [0.0, 0.25, 0.75, 1.0, 0.75, 0.25, 0.0]
    """
    return cosine_window(window_length, 0.5, 0.5)


@op
def frame(
    signal: Any, frame_length: int, frame_step: int, pad_end: bool = False, pad_value: float = 0
) -> Tensor:
    """Splits a 1-D signal into frames of ``frame_length`` values, one every ``frame_step``
    values: a ``[frames, frame_length]`` tensor. With ``pad_end``, the frames that run past
    the end are kept, padded with ``pad_value``.

    >>> tf.signal.frame(tf.tensor1d([1, 2, 3, 4, 5]), 3, 2).array_sync()
    [[1.0, 2.0, 3.0], [3.0, 4.0, 5.0]]
    """

    x = convert_to_tensor(signal, "signal", "frame", "string_or_numeric")
    frame_length = int_arg(frame_length, "frame", "frameLength", minimum=0)
    frame_step = int_arg(frame_step, "frame", "frameStep", minimum=0)
    pad_end = bool_arg(pad_end, "frame", "padEnd")
    if pad_value is None:  # undefined: the default
        pad_value = 0
    if not isinstance(pad_value, str):  # a string signal pads with a string
        pad_value = float_arg(pad_value, "frame", "padValue")
    size = x.size
    if frame_step == 0 and (frame_length <= size or (pad_end and size > 0)):
        raise InvalidArgumentError(
            f"frame: frame_step 0 with frame_length {frame_length} on a signal of {size} values "
            "would make frames forever (TF.js never returns); pass frame_step >= 1"
        )
    start = 0
    frames = []
    while start + frame_length <= size:
        frames.append(slice_(x, start, frame_length))
        start += frame_step
    if pad_end:
        while start < size:
            pad_len = start + frame_length - size
            piece = slice_(x, start, frame_length - pad_len)
            frames.append(concat([piece, fill([pad_len], pad_value)]))
            start += frame_step
    if not frames:
        return tensor2d([], [0, frame_length])
    return reshape(concat(frames), [len(frames), frame_length])


@op
def stft(
    signal: Any,
    frame_length: int,
    frame_step: int,
    fft_length: int | None = None,
    window_fn: Callable[[int], Tensor] = hann_window,
) -> Tensor:
    """The short-time Fourier transform: ``rfft(frame(signal) * window_fn(frame_length),
    fft_length)``; ``fft_length`` defaults to the smallest power of two >= ``frame_length``.

    >>> tf.signal.stft(tf.tensor1d([1, 1, 1, 1, 1]), 3, 2).shape
    [2, 3]
    """

    frame_length = int_arg(frame_length, "stft", "frameLength", minimum=0)
    if fft_length is None:
        fft_length = enclosing_power_of_two(frame_length)
    if not callable(window_fn):
        raise ArgumentTypeError(
            f"Argument 'window_fn' passed to 'stft' must be a function, but got "
            f"{describe(window_fn)}"
        )
    framed = frame(signal, frame_length, frame_step)
    windowed = mul(framed, window_fn(frame_length))
    return rfft(windowed, fft_length)
