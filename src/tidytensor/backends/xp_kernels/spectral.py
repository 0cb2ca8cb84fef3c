"""Spectral kernels (TF.js's CPU ``FFT`` and ``IFFT``): a 1-D transform over the innermost
dimension of a complex64 array. The transform runs in complex128 and is rounded to complex64
once; TF.js computes in float32 throughout, so the last digits may differ.

Rows holding NaN or an infinity follow TF.js's algorithms in real arithmetic instead (a
radix-2 split for power-of-two lengths, a direct sum otherwise), so the NaNs spread as there:
``inf * 0`` in a twiddle product is NaN, which a library FFT skips for trivial twiddles.
"""

from __future__ import annotations

import math

from ... import kernel_names as k
from ..xp_compat import errstate


def _radix2(re, im, inverse, xp):
    n = re.shape[-1]
    if n == 1:
        return re, im
    er, ei = _radix2(re[..., 0::2], im[..., 0::2], inverse, xp)
    odr, odi = _radix2(re[..., 1::2], im[..., 1::2], inverse, xp)
    angle = (2.0 if inverse else -2.0) * math.pi * xp.arange(n // 2) / n
    wr, wi = xp.cos(angle), xp.sin(angle)
    tr = odr * wr - odi * wi
    ti = odr * wi + odi * wr
    return (
        xp.concatenate([er + tr, er - tr], axis=-1),
        xp.concatenate([ei + ti, ei - ti], axis=-1),
    )


def _direct(re, im, inverse, xp):
    n = re.shape[-1]
    idx = xp.arange(n)
    angle = (2.0 if inverse else -2.0) * math.pi * ((idx[:, None] * idx[None, :]) / n)
    wr, wi = xp.cos(angle), xp.sin(angle)  # [k, j]
    r, i = re[:, None, :], im[:, None, :]
    return (r * wr - i * wi).sum(-1), (r * wi + i * wr).sum(-1)


def _special_rows(rows, inverse, xp):
    re, im = rows.real.astype(xp.float64), rows.imag.astype(xp.float64)
    n = rows.shape[-1]
    with errstate(xp, invalid="ignore", over="ignore"):
        if n & (n - 1) == 0:
            out_re, out_im = _radix2(re, im, inverse, xp)
        else:
            out_re, out_im = _direct(re, im, inverse, xp)
        if inverse:
            out_re, out_im = out_re / n, out_im / n
    return _pack(out_re, out_im, xp)


def _pack(re, im, xp):
    out = xp.empty(re.shape, dtype=xp.complex64)
    out.real = re
    out.imag = im
    return out


def _transform(x, xp, inverse):
    if x.size == 0:
        return xp.zeros(x.shape, dtype=xp.complex64)
    wide = x.astype(xp.complex128)
    with errstate(xp, invalid="ignore", over="ignore"):
        out = xp.fft.ifft(wide, axis=-1) if inverse else xp.fft.fft(wide, axis=-1)
        out = out.astype(xp.complex64)
    bad = ~(xp.isfinite(x.real) & xp.isfinite(x.imag)).all(axis=-1)
    if bad.any():
        flat_x = x.reshape(-1, x.shape[-1])
        flat_out = out.reshape(-1, x.shape[-1])
        rows = bad.reshape(-1)
        flat_out[rows] = _special_rows(flat_x[rows], inverse, xp)
        out = flat_out.reshape(x.shape)
    return out


def fft(x, *, xp):
    return _transform(x, xp, False)


def ifft(x, *, xp):
    return _transform(x, xp, True)


KERNELS = {k.FFT: fft, k.IFFT: ifft}
