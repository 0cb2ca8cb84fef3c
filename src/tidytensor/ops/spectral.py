"""Spectral ops, the ``tf.spectral`` namespace (TF.js's ``ops/spectral/``).

``fft`` and ``ifft`` are kernels over the innermost dimension of a complex64 tensor;
``rfft`` and ``irfft`` are built from other ops exactly as TF.js builds them, so their kernels
and memory counts match (complex64 tensors count 0 bytes, as in TF.js). As in TF.js,
``irfft`` returns a 2-D ``[batch, n]`` tensor except for rank-3 input, which it reshapes to
``[d0, d1, n]``. Unlike TF.js (which reads ``input.dtype`` before any conversion), these
ops also take nested lists.
"""

from __future__ import annotations

import math
from typing import Any

from .. import kernel_names as k
from ..dtypes import COMPLEX64, FLOAT32
from ..errors import DTypeError, InvalidArgumentError, ShapeError
from ..tensor import Tensor
from ._op import MAX_DIM, convert_to_tensor, op, real_number, run_kernel
from .arithmetic import mul
from .creation import complex as complex_
from .creation import imag, real, scalar, zeros, zeros_like
from .slicing_joining import concat, reverse, split
from .slicing_joining import slice as slice_
from .transformations import reshape

__all__ = ["fft", "ifft", "irfft", "rfft"]


def _complex_input(input: Any, name: str) -> Tensor:  # noqa: A002 - TF.js name
    x = convert_to_tensor(input, "input", name, "string_or_numeric")
    if x.dtype != COMPLEX64:
        raise DTypeError(f"The dtype for tf.spectral.{name}() must be complex64 but got {x.dtype}.")
    _check_inner(x, name)
    return x


def _check_inner(x: Tensor, name: str) -> None:
    """TF.js reshapes to ``[size / n, n]`` with ``n`` the innermost dimension, and fails
    for a scalar or an empty innermost dimension (``size / n`` is NaN)."""
    if x._shape and x._shape[-1] != 0:
        return
    inner = "" if not x._shape else str(x._shape[-1])
    old = ",".join(str(d) for d in x._shape)
    raise ShapeError(
        f"The new shape (NaN,{inner}) has NaN elements and the old shape ({old}) has {x.size} "
        "elements. The new shape and old shape must have the same number of elements. "
        f"(tf.spectral.{name}() transforms the innermost dimension: it needs rank >= 1 and a "
        f"non-empty last dimension, but got shape {list(x._shape)})"
    )


@op
def fft(input: Any) -> Tensor:  # noqa: A002 - TF.js name
    """The 1-D discrete Fourier transform over the innermost dimension of a complex64 tensor.

    >>> x = tf.complex(tf.tensor1d([1, 2, 3]), tf.tensor1d([1, 2, 3]))
    >>> [round(v, 4) for v in tf.spectral.fft(x).data_sync().tolist()]
    [6.0, 6.0, -2.366, -0.634, -0.634, -2.366]
    """
    return run_kernel(k.FFT, (_complex_input(input, "fft"),))


@op
def ifft(input: Any) -> Tensor:  # noqa: A002 - TF.js name
    """The inverse 1-D discrete Fourier transform over the innermost dimension (complex64).

    >>> x = tf.complex(tf.tensor1d([6, -2]), tf.tensor1d([0, 0]))
    >>> tf.spectral.ifft(x).data_sync().tolist()
    [2.0, 0.0, 4.0, 0.0]
    """
    return run_kernel(k.IFFT, (_complex_input(input, "ifft"),))


def _inner(x: Tensor) -> tuple[int, int]:
    """The innermost dimension and the number of rows above it (TF.js's ``batch``)."""
    inner = x._shape[-1]
    return inner, x.size // inner


@op
def rfft(input: Any, fft_length: int | None = None) -> Tensor:  # noqa: A002 - TF.js name
    """The Fourier transform of a real (float32) signal over its innermost dimension: the
    ``floor(n / 2) + 1`` non-redundant complex64 components. ``fft_length`` crops or
    zero-pads the signal first.

    >>> [round(v, 4) for v in tf.spectral.rfft(tf.tensor1d([1, 2, 3])).data_sync().tolist()]
    [6.0, 0.0, -1.5, 0.866]
    """

    x = convert_to_tensor(input, "input", "rfft", "string_or_numeric")
    if x.dtype != FLOAT32:
        raise DTypeError(f"The dtype for rfft() must be real value but got {x.dtype}")
    _check_inner(x, "rfft")
    if fft_length is not None and (
        real_number(fft_length) is None
        or not math.isfinite(fft_length)
        or not float(fft_length).is_integer()
        or not 1 <= fft_length <= MAX_DIM
    ):
        raise InvalidArgumentError(
            f"fft_length passed to tf.spectral.rfft() must be a positive integer, but got "
            f"{fft_length}"
        )
    inner, batch = _inner(x)
    rank = len(x._shape)
    if fft_length is not None:
        fft_length = int(fft_length)
    if fft_length is not None and fft_length < inner:
        adjusted = slice_(x, [0] * rank, [*x._shape[:-1], fft_length])
        inner = fft_length
    elif fft_length is not None and fft_length > inner:
        pad = zeros([*x._shape[:-1], fft_length - inner])
        adjusted = concat([x, pad], rank - 1)
        inner = fft_length
    else:
        adjusted = x
    spectrum = fft(reshape(complex_(adjusted, zeros_like(adjusted)), [batch, inner]))
    half = math.floor(inner / 2) + 1
    re, im = real(spectrum), imag(spectrum)
    re_half = split(re, [half, inner - half], len(re._shape) - 1)[0]
    im_half = split(im, [half, inner - half], len(im._shape) - 1)[0]
    return reshape(complex_(re_half, im_half), [*adjusted._shape[:-1], half])


@op
def irfft(input: Any) -> Tensor:  # noqa: A002 - TF.js name
    """The inverse of ``rfft``: a real signal of length ``2 * (n - 1)`` from ``n`` complex
    components (for ``n <= 2``, the plain inverse FFT of the ``n`` components).

    >>> x = tf.complex(tf.tensor1d([1, 2, 3]), tf.tensor1d([0, 0, 0]))
    >>> tf.spectral.irfft(x).array_sync()
    [[2.0, -0.5, 0.0, -0.5]]
    """

    x = convert_to_tensor(input, "input", "irfft", "string_or_numeric")
    _check_inner(x, "irfft")
    inner, batch = _inner(x)
    if inner <= 2:
        out = ifft(reshape(x, [batch, inner]))
    else:
        re = reshape(real(x), [batch, inner])
        im = reshape(imag(x), [batch, inner])
        re_conj = reverse(slice_(re, [0, 1], [batch, inner - 2]), 1)
        im_conj = mul(reverse(slice_(im, [0, 1], [batch, inner - 2]), 1), scalar(-1))
        full_re = concat([re, re_conj], 1)
        full_im = concat([im, im_conj], 1)
        out = ifft(reshape(complex_(full_re, full_im), [batch, 2 * (inner - 1)]))
    out = real(out)
    if len(x._shape) == 3 and x._shape[0] != 0:
        d0 = x._shape[0]
        out = reshape(out, [d0, out._shape[0] // d0, out._shape[1]])
    return out
