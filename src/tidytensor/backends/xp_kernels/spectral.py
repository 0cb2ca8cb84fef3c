"""Spectral kernels (TF.js's CPU ``FFT`` and ``IFFT``): a 1-D transform over the innermost
dimension of a complex64 array. The transform runs in complex128 and is rounded to complex64
once; TF.js computes in float32 throughout, so the last digits may differ."""

from __future__ import annotations

from ... import kernel_names as k


def _transform(x, xp, inverse):
    if x.size == 0:
        return xp.zeros(x.shape, dtype=xp.complex64)
    wide = x.astype(xp.complex128)
    out = xp.fft.ifft(wide, axis=-1) if inverse else xp.fft.fft(wide, axis=-1)
    return out.astype(xp.complex64)


def fft(x, *, xp):
    return _transform(x, xp, False)


def ifft(x, *, xp):
    return _transform(x, xp, True)


KERNELS = {k.FFT: fft, k.IFFT: ifft}
