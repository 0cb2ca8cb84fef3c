"""The out forms compiled replays write scratch arrays with (``backends/xp_kernels/out_forms.py``):
each gives its kernel's bits, written into the array given (also over an input, where it
says ``IN_PLACE``), for every input its ``accepts`` takes; NaN, infinities and broadcasting
included."""

from __future__ import annotations

import numpy as np
import pytest

from tidytensor.backends.xp_kernels import arithmetic, basic_math, layers_dense, losses, reduction
from tidytensor.backends.xp_kernels.out_forms import FRESH_OUTPUTS, IN_PLACE, OUT, OUT_FORMS

RNG = np.random.default_rng(1515)
F32 = np.dtype("float32")


def f32(*shape, special=True):
    a = RNG.normal(size=shape).astype("float32")
    if special and a.size >= 4:
        flat = a.reshape(-1)
        flat[:4] = [np.nan, np.inf, -np.inf, 0.0]
    return a


def spec(*arrays):
    return tuple((a.shape, a.dtype) for a in arrays)


def check(kernel, arrays, attrs, in_place_input=None):
    """The form of ``kernel`` into a fresh array (and over input ``in_place_input``) equals
    the kernel's result bit for bit; returns the mode ``accepts`` gave."""
    form, accepts = OUT_FORMS[kernel]
    with np.errstate(all="ignore"):
        expected = np.asarray(kernel(*arrays, xp=np, **attrs))
        mode = accepts(spec(*arrays), (expected.shape, expected.dtype), attrs)
        assert mode in (OUT, IN_PLACE)
        out = np.full(expected.shape, 7.0, dtype=expected.dtype)
        got = form(*arrays, out=out, xp=np, **attrs)
        assert got is out and out.tobytes() == expected.tobytes()
        if in_place_input is not None:
            assert mode == IN_PLACE
            inputs = [a.copy() for a in arrays]
            target = inputs[in_place_input]
            assert form(*inputs, out=target, xp=np, **attrs) is target
            assert target.tobytes() == expected.tobytes()
    return mode


@pytest.mark.parametrize("kernel", [arithmetic.add, arithmetic.sub, arithmetic.multiply])
@pytest.mark.parametrize(("a", "b"), [((5, 7), (5, 7)), ((5, 7), (7,)), ((5, 1), (1, 7)), ((), ())])
def test_binary_forms_give_the_kernels_bits(kernel, a, b):
    x, y = f32(*a), f32(*b)
    same = x.shape == np.broadcast_shapes(x.shape, y.shape) and x.ndim
    check(kernel, (x, y), {}, in_place_input=0 if same else None)


def test_real_div_by_zero_and_in_place_gives_the_kernels_bits():
    x, y = f32(6, 4), f32(6, 4)
    y[1, :] = 0.0
    check(arithmetic.real_div, (x, y), {}, in_place_input=1)


def test_relu_gives_the_kernels_bits_in_place():
    check(basic_math.relu, (f32(9, 3),), {}, in_place_input=0)


@pytest.mark.parametrize("activation", ["relu", "linear"])
@pytest.mark.parametrize("rows", [1, 5])
def test_dense_gives_the_kernels_bits(activation, rows):
    x, kernel, bias = f32(rows, 33, special=False), f32(33, 17), f32(17)
    x[0, 0] = np.nan
    attrs = {"activation": activation, "has_bias": True}
    assert check(layers_dense.dense, (x, kernel, bias), attrs) == OUT
    assert check(layers_dense.dense, (x, kernel), {**attrs, "has_bias": False}) == OUT


@pytest.mark.parametrize("activation", ["relu", "linear"])
@pytest.mark.parametrize("wrt", ["dy", "x", "kernel", "bias"])
def test_dense_grad_gives_the_kernels_bits(activation, wrt):
    dy, x, kernel, y = f32(8, 6), f32(8, 5), f32(5, 6), f32(8, 6)
    attrs = {"activation": activation, "wrt": wrt}
    mode = check(layers_dense.dense_grad, (dy, x, kernel, y), attrs)
    assert mode == (IN_PLACE if wrt == "dy" else OUT)
    if wrt == "dy":
        check(layers_dense.dense_grad, (dy, x, kernel, y), attrs, in_place_input=0)
        check(layers_dense.dense_grad, (dy, x, kernel, y), attrs, in_place_input=3)


@pytest.mark.parametrize("kernel", [reduction.sum_, reduction.mean])
@pytest.mark.parametrize(("shape", "axis", "keep"), [((6, 5), [1], False), ((6, 5), [0, 1], True)])
def test_reduction_forms_give_the_kernels_bits(kernel, shape, axis, keep):
    check(kernel, (f32(*shape),), {"axis": axis, "keep_dims": keep})


@pytest.mark.parametrize("wrt", ["logits", "labels"])
def test_softmax_cross_entropy_forms_give_the_kernels_bits(wrt):
    logits = f32(7, 10, special=False) * 30
    labels = np.eye(10, dtype="float32")[RNG.integers(0, 10, 7)]
    check(losses.softmax_cross_entropy, (labels, logits), {})
    check(losses.softmax_cross_entropy_grad, (f32(7, special=False), labels, logits), {"wrt": wrt})


def test_forms_refuse_what_their_kernel_computes_otherwise():
    ints = ((5, 7), np.dtype("int32"))
    floats = ((5, 7), F32)
    _, accepts = OUT_FORMS[arithmetic.add]
    assert accepts((ints, ints), ints, {}) is None  # int32 arithmetic wraps as TF.js's
    _, accepts = OUT_FORMS[layers_dense.dense]
    batched = ((2, 5, 7), F32)
    assert accepts((batched, ((7, 3), F32)), ((2, 5, 3), F32), {}) is None  # BatchMatMul's
    assert accepts((floats, ((7, 3), F32)), ((5, 3), F32), {}) == OUT


def test_every_form_is_known_to_return_arrays_of_its_own():
    assert set(OUT_FORMS) <= FRESH_OUTPUTS
