"""The convolution kernels' GEMM paths (backends/xp_kernels/conv_gemm.py) against direct loops.

conv_gemm picks between im2col and row bands, cuts work into image chunks or bands of output
rows, and GEMMs into blocks with ragged tails, all from size thresholds that the golden cases'
small shapes never cross. These tests lower the thresholds so that tiny shapes take every
path, and compare the forward pass, the input gradient and the filter gradient of conv2d
(NHWC and NCHW, 'same' / 'valid' / explicit padding, strides, dilations) and conv3d with a
float64 reference written with plain loops over output positions and filter taps.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import threading

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import tidytensor as tf
from tidytensor.backends.xp_kernels import conv_gemm as G
from tidytensor.backends.xp_kernels import convolution as C

#: Threshold settings: the defaults, row bands everywhere with tiny chunks and GEMM blocks
#: (ragged tails included), and im2col everywhere with tiny chunks.
CONFIGS = {
    "default": {},
    "bands": {
        "MIN_BAND_ROWS": 1,
        "MIN_BAND_K": 1,
        "BAND_ELEMS": 40,
        "SMALL_GEMM": 300,
        "SMALL_GEMM_TN": 200,
        "MIN_BLOCK_ROWS": 2,
    },
    "im2col": {
        "MIN_BAND_ROWS": 1 << 40,
        "BAND_ELEMS": 60,
        "SMALL_GEMM": 250,
        "SMALL_GEMM_TN": 250,
        "MIN_BLOCK_ROWS": 2,
    },
}


@contextlib.contextmanager
def thresholds(name):
    values = CONFIGS[name]
    old = {k: getattr(G, k) for k in values}
    for k, v in values.items():
        setattr(G, k, v)
    G._plan.cache_clear()  # plans read the thresholds when they are built
    try:
        yield
    finally:
        for k, v in old.items():
            setattr(G, k, v)
        G._plan.cache_clear()


# ---------------------------------------------------------------------------- references
def out_geometry(size, f, s, d, pad):
    """(output size, padding before) along one dim, as TF.js's conv_util computes them."""
    e = (f - 1) * d + 1
    if pad == "same":
        out = math.ceil(size / s)
        return out, max(0, (out - 1) * s + e - size) // 2
    if pad == "valid":
        return math.ceil((size - e + 1) / s), 0
    before, after = pad
    return (size + before + after - e) // s + 1, before


def taps_and_rows(out_sizes, in_sizes, filter_sizes, strides, dilations, befores):
    """Every (output index, filter tap, input index) with the input index inside the input."""
    for o in itertools.product(*(range(v) for v in out_sizes)):
        for t in itertools.product(*(range(v) for v in filter_sizes)):
            i = tuple(
                oo * s - b + tt * d
                for oo, s, b, tt, d in zip(o, strides, befores, t, dilations, strict=True)
            )
            if all(0 <= ii < n for ii, n in zip(i, in_sizes, strict=True)):
                yield o, t, i


def ref_conv(x, w, out_sizes, strides, dilations, befores):
    """Channels-last forward pass, input gradient and filter gradient maker, in float64."""
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    n, in_sizes = x.shape[0], x.shape[1:-1]
    geometry = (out_sizes, in_sizes, w.shape[:-2], strides, dilations, befores)
    y = np.zeros((n, *out_sizes, w.shape[-1]))
    for o, t, i in taps_and_rows(*geometry):
        y[(slice(None), *o)] += x64[(slice(None), *i)] @ w64[t]

    def grads(dy):
        dy64 = dy.astype(np.float64)
        dx, dw = np.zeros(x.shape), np.zeros(w.shape)
        for o, t, i in taps_and_rows(*geometry):
            g = dy64[(slice(None), *o)]
            dx[(slice(None), *i)] += g @ w64[t].T
            dw[t] += x64[(slice(None), *i)].T @ g
        return dx, dw

    return y, grads


def close(got, want, scale=1.0):
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * max(scale, 1.0))


def nchw(a):
    return np.ascontiguousarray(np.moveaxis(a, -1, 1))


def nhwc(a):
    return np.moveaxis(a, 1, -1)


# ---------------------------------------------------------------------------- conv2d
STRIDES = st.sampled_from([1, 1, 2, 3])  # stride 1 in the outer dim is what row bands need


@pytest.mark.parametrize("config", sorted(CONFIGS))
@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 3),
    h=st.integers(1, 8),
    w=st.integers(1, 8),
    cin=st.integers(1, 4),
    cout=st.integers(1, 5),
    fh=st.integers(1, 3),
    fw=st.integers(1, 3),
    sh=STRIDES,
    sw=STRIDES,
    dilation=st.integers(1, 2),
    pad_kind=st.sampled_from(["same", "valid", "explicit"]),
    explicit=st.tuples(*(st.integers(0, 2) for _ in range(4))),
    channels_first=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_conv2d_paths_match_loops(
    config, n, h, w, cin, cout, fh, fw, sh, sw, dilation, pad_kind, explicit, channels_first, seed
):
    if dilation > 1:
        sh = sw = 1  # TF.js: either the strides or the dilations are 1
    t, b, left, r = explicit
    pads = {"same": ("same", "same"), "valid": ("valid", "valid")}.get(
        pad_kind, ((t, b), (left, r))
    )
    oh, top = out_geometry(h, fh, sh, dilation, pads[0])
    ow, lft = out_geometry(w, fw, sw, dilation, pads[1])
    assume(oh > 0 and ow > 0)
    if pad_kind == "explicit":
        pad = [[0, 0], [t, b], [left, r], [0, 0]]
        if channels_first:
            pad = [[0, 0], [0, 0], [t, b], [left, r]]
    else:
        pad = pad_kind
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, h, w, cin)).astype(np.float32)
    f = rng.standard_normal((fh, fw, cin, cout)).astype(np.float32)
    dy = rng.standard_normal((n, oh, ow, cout)).astype(np.float32)
    want_y, grads = ref_conv(x, f, (oh, ow), (sh, sw), (dilation, dilation), (top, lft))
    fmt = "NCHW" if channels_first else "NHWC"
    to, back = (nchw, nhwc) if channels_first else (lambda a: a, lambda a: a)
    strides = [sh, sw]
    with thresholds(config):
        y = C.conv2d(to(x), f, xp=np, strides=strides, pad=pad, data_format=fmt, dilations=dilation)
        assert y.dtype == np.float32
        close(back(y), want_y, np.abs(want_y).max(initial=0))
        if dilation > 1:
            return  # TF.js's backprop kernels have no dilations
        want_dx, want_dw = grads(dy)
        in_shape = to(x).shape
        dx = C.conv2d_backprop_input(
            to(dy), f, xp=np, strides=strides, pad=pad, input_shape=in_shape, data_format=fmt
        )
        dw = C.conv2d_backprop_filter(
            to(x), to(dy), xp=np, strides=strides, pad=pad, filter_shape=f.shape, data_format=fmt
        )
    close(back(dx), want_dx, np.abs(want_dx).max(initial=0))
    close(dw, want_dw, np.abs(want_dw).max(initial=0))


# ---------------------------------------------------------------------------- conv3d
@pytest.mark.parametrize("config", sorted(CONFIGS))
@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(1, 2),
    size=st.tuples(st.integers(1, 5), st.integers(1, 5), st.integers(1, 5)),
    fsize=st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(1, 3)),
    cin=st.integers(1, 3),
    cout=st.integers(1, 3),
    stride=STRIDES,
    same=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_conv3d_paths_match_loops(config, n, size, fsize, cin, cout, stride, same, seed):
    outs, befores = [], []
    for i, f in zip(size, fsize, strict=True):
        if same:  # TF.js's 3-D 'same' padding is not clamped at 0
            o = math.ceil(i / stride)
            outs.append(o)
            befores.append(((o - 1) * stride + f - i) // 2)
        else:
            outs.append((i - f) // stride + 1 if i >= f else 0)
            befores.append(0)
    assume(all(o > 0 for o in outs))
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, *size, cin)).astype(np.float32)
    f = rng.standard_normal((*fsize, cin, cout)).astype(np.float32)
    dy = rng.standard_normal((n, *outs, cout)).astype(np.float32)
    want_y, grads = ref_conv(x, f, outs, (stride,) * 3, (1, 1, 1), befores)
    want_dx, want_dw = grads(dy)
    pad = "same" if same else "valid"
    with thresholds(config):
        y = C.conv3d(x, f, xp=np, strides=stride, pad=pad)
        dx = C.conv3d_backprop_input(dy, f, xp=np, strides=stride, pad=pad, input_shape=x.shape)
        dw = C.conv3d_backprop_filter(x, dy, xp=np, strides=stride, pad=pad, filter_shape=f.shape)
    close(y, want_y, np.abs(want_y).max(initial=0))
    close(dx, want_dx, np.abs(want_dx).max(initial=0))
    close(dw, want_dw, np.abs(want_dw).max(initial=0))


# ---------------------------------------------------------------------------- ops and tape
@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
@pytest.mark.parametrize(("cin", "cout"), [(16, 32), (32, 16), (3, 8)])
def test_conv2d_grads_at_band_sizes(data_format, cin, cout):
    """Default thresholds, shapes big enough for row bands (16 and 32 channels) or im2col (3):
    tf.conv2d and its tape gradient (Conv2DBackpropInput, Conv2DBackpropFilter)."""
    rng = np.random.default_rng(cin)
    x = rng.standard_normal((2, 17, 15, cin)).astype(np.float32)
    f = rng.standard_normal((3, 3, cin, cout)).astype(np.float32)
    dy = rng.standard_normal((2, 17, 15, cout)).astype(np.float32)
    want_y, grads = ref_conv(x, f, (17, 15), (1, 1), (1, 1), (1, 1))
    want_dx, want_dw = grads(dy)
    to, back = (nchw, nhwc) if data_format == "NCHW" else (lambda a: a, lambda a: a)
    xt, ft, dyt = tf.tensor(to(x)), tf.tensor(f), tf.tensor(to(dy))
    y = tf.conv2d(xt, ft, 1, "same", data_format)
    dx, dw = tf.grads(lambda a, b: tf.conv2d(a, b, 1, "same", data_format))([xt, ft], dyt)
    close(back(y.numpy()), want_y, np.abs(want_y).max())
    close(back(dx.numpy()), want_dx, np.abs(want_dx).max())
    close(dw.numpy(), want_dw, np.abs(want_dw).max())
    tf.dispose([xt, ft, dyt, y, dx, dw])


def test_integer_conv_in_bands_is_exact():
    """Integer inputs accumulate in float64 scratch and come back in the input's dtype."""
    rng = np.random.default_rng(3)
    x = rng.integers(-5, 6, (2, 16, 16, 16)).astype(np.int32)
    f = rng.integers(-3, 4, (3, 3, 16, 32)).astype(np.int32)
    got = C.conv2d(x, f, xp=np, strides=1, pad="same")
    want, _ = ref_conv(x, f, (16, 16), (1, 1), (1, 1), (1, 1))
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, want.astype(np.int32))


def test_results_never_alias_the_workspaces():
    """A second call (same shapes, other values) leaves the first call's results intact."""
    rng = np.random.default_rng(4)
    xs = [rng.standard_normal((2, 16, 16, 16)).astype(np.float32) for _ in range(2)]
    f = rng.standard_normal((3, 3, 16, 32)).astype(np.float32)
    dy = rng.standard_normal((2, 16, 16, 32)).astype(np.float32)
    kw = {"xp": np, "strides": 1, "pad": "same"}
    first = [
        C.conv2d(xs[0], f, **kw),
        C.conv2d_backprop_input(dy, f, input_shape=xs[0].shape, **kw),
        C.conv2d_backprop_filter(xs[0], dy, filter_shape=f.shape, **kw),
    ]
    kept = [a.copy() for a in first]
    C.conv2d(xs[1], f, **kw)
    C.conv2d_backprop_input(dy * 2, f, input_shape=xs[1].shape, **kw)
    C.conv2d_backprop_filter(xs[1], dy * 3, filter_shape=f.shape, **kw)
    for a, b in zip(first, kept, strict=True):
        np.testing.assert_array_equal(a, b)


def test_threads_keep_their_own_workspaces():
    """Threads (e.g. data prefetchers) convolving at once get the single-threaded results."""
    rng = np.random.default_rng(5)
    jobs = []
    for i in range(6):
        c = 8 * (1 + i % 3)
        x = rng.standard_normal((2, 12 + i, 12, c)).astype(np.float32)
        f = rng.standard_normal((3, 3, c, 16)).astype(np.float32)
        jobs.append((x, f))
    want = [C.conv2d(x, f, xp=np, strides=1, pad="same") for x, f in jobs]
    wrong = []

    def work(k):
        for _ in range(15):
            for j in range(k, k + len(jobs)):
                x, f = jobs[j % len(jobs)]
                got = C.conv2d(x, f, xp=np, strides=1, pad="same")
                if not np.array_equal(got, want[j % len(jobs)]):
                    wrong.append(j)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not wrong
