"""Convolution ops (and tf.fused) against TF.js goldens, plus gradient checks over every
differentiable op, fused gradients against TF.js, errors, and properties against NumPy."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tidytensor as tf
from golden_util import case_ids, check_case, load_cases
from tidytensor.kernel_registry import get_gradient

CASES = load_cases("convolution")


@pytest.mark.parametrize(("case", "expected"), CASES, ids=case_ids(CASES))
def test_golden(case, expected):
    dilated = case["op"] == "pool" and len(case["args"]) > 4 and case["args"][4] not in ([1, 1], 1)
    if case.get("grad") and dilated and get_gradient("BatchToSpaceND") is None:
        pytest.skip(
            "dilated pool backprops through BatchToSpaceND, whose gradient is not registered yet"
        )
    check_case(case, expected)


def rand(shape, seed=0, low=-1.0, high=1.0):
    return tf.tensor(np.random.default_rng(seed).uniform(low, high, shape).astype(np.float32))


# ---------------------------------------------------------------------------- gradient checks
@dataclass
class GradSpec:
    name: str
    fn: Any
    shapes: list[list[int]]
    kernels: tuple[str, ...] = ()  # kernels with a registered gradient this spec exercises
    options: dict = field(default_factory=dict)  # check_grads keyword arguments


LINEAR = {"eps": 1e-2}  # linear in each input: a large step only lowers rounding noise

# Average pools are checked with 'valid' windows only: with 'same' padding TF.js's AvgPoolGrad
# divides by the full window size while the forward pass divides by the taps inside the input,
# so its gradient is not the derivative at the border (test_avg_pool_grad_border_quirk).

GRAD_OPS = [
    GradSpec(
        "conv1d",
        lambda x, f: tf.conv1d(x, f, 2, "same"),
        [[2, 7, 3], [3, 3, 2]],
        ("Conv2D",),
        LINEAR,
    ),
    GradSpec(
        "conv2d same",
        lambda x, f: tf.conv2d(x, f, 1, "same"),
        [[2, 5, 4, 3], [3, 3, 3, 2]],
        ("Conv2D",),
        LINEAR,
    ),
    GradSpec(
        "conv2d valid s2",
        lambda x, f: tf.conv2d(x, f, 2, "valid"),
        [[1, 6, 7, 2], [3, 2, 2, 3]],
        (),
        LINEAR,
    ),
    GradSpec(
        "conv2d explicit pad",
        lambda x, f: tf.conv2d(x, f, [1, 2], [[0, 0], [2, 1], [0, 1], [0, 0]]),
        [[1, 4, 5, 2], [2, 3, 2, 2]],
        (),
        LINEAR,
    ),
    GradSpec(
        "conv2d NCHW",
        lambda x, f: tf.conv2d(x, f, 1, "same", "NCHW"),
        [[1, 2, 4, 4], [3, 3, 2, 2]],
        (),
        LINEAR,
    ),
    GradSpec(
        "conv2d_transpose",
        lambda x, f: tf.conv2d_transpose(x, f, [1, 5, 5, 2], 2, "same"),
        [[1, 3, 3, 3], [3, 3, 2, 3]],
        ("Conv2DBackpropInput",),
        LINEAR,
    ),
    GradSpec(
        "conv3d",
        lambda x, f: tf.conv3d(x, f, 1, "same"),
        [[1, 3, 4, 3, 2], [2, 2, 2, 2, 2]],
        ("Conv3D",),
        LINEAR,
    ),
    GradSpec(
        "conv3d s2 valid",
        lambda x, f: tf.conv3d(x, f, 2, "valid"),
        [[1, 5, 4, 5, 1], [3, 2, 3, 1, 2]],
        (),
        LINEAR,
    ),
    GradSpec(
        "depthwise_conv2d",
        lambda x, f: tf.depthwise_conv2d(x, f, 1, "same"),
        [[2, 4, 4, 3], [3, 3, 3, 2]],
        ("DepthwiseConv2dNative",),
        LINEAR,
    ),
    GradSpec(
        "depthwise_conv2d s2",
        lambda x, f: tf.depthwise_conv2d(x, f, 2, "valid"),
        [[1, 5, 5, 2], [2, 2, 2, 1]],
        (),
        LINEAR,
    ),
    GradSpec(
        "separable_conv2d",
        lambda x, d, p: tf.separable_conv2d(x, d, p, 1, "same"),
        [[1, 4, 4, 2], [2, 2, 2, 2], [1, 1, 4, 3]],
        (),
        LINEAR,
    ),
    GradSpec(
        "dilation2d",
        lambda x, f: tf.dilation2d(x, f, 1, "same"),
        [[1, 4, 4, 2], [2, 2, 2]],
        ("Dilation2D",),
    ),
    GradSpec(
        "dilation2d s2 d2",
        lambda x, f: tf.dilation2d(x, f, 2, "valid", 1),
        [[1, 5, 5, 1], [3, 2, 1]],
        (),
    ),
    GradSpec(
        "avg_pool", lambda x: tf.avg_pool(x, 3, 1, "valid"), [[2, 4, 5, 2]], ("AvgPool",), LINEAR
    ),
    GradSpec(
        "avg_pool s2", lambda x: tf.avg_pool(x, [2, 3], 2, "valid"), [[1, 5, 6, 2]], (), LINEAR
    ),
    GradSpec(
        "avg_pool3d",
        lambda x: tf.avg_pool3d(x, 2, 1, "valid"),
        [[1, 3, 3, 4, 2]],
        ("AvgPool3D",),
        LINEAR,
    ),
    GradSpec("max_pool", lambda x: tf.max_pool(x, 2, 2, "valid"), [[2, 4, 4, 2]], ("MaxPool",)),
    GradSpec("max_pool same overlap", lambda x: tf.max_pool(x, 3, 1, "same"), [[1, 4, 5, 2]], ()),
    GradSpec(
        "max_pool3d", lambda x: tf.max_pool3d(x, 2, 2, "valid"), [[1, 4, 4, 4, 1]], ("MaxPool3D",)
    ),
    GradSpec(
        "max_pool3d cubic same", lambda x: tf.max_pool3d(x, 3, 1, "same"), [[1, 3, 3, 3, 2]], ()
    ),
    GradSpec("pool avg", lambda x: tf.pool(x, [2, 2], "avg", "valid"), [[1, 4, 4, 2]], (), LINEAR),
    GradSpec(
        "pool max strides",
        lambda x: tf.pool(x, [2, 2], "max", "valid", None, 2),
        [[1, 4, 4, 2]],
        (),
    ),
    GradSpec(
        "fused.mat_mul bias",
        lambda a, b, c: tf.fused.mat_mul(a, b, bias=c),
        [[3, 4], [4, 2], [2]],
        (),
        LINEAR,
    ),
    GradSpec(
        "fused.mat_mul transposed relu",
        lambda a, b: tf.fused.mat_mul(a, b, True, True, activation="relu"),
        [[4, 3], [2, 4]],
        (),
    ),
    GradSpec(
        "fused.conv2d bias",
        lambda x, f, c: tf.fused.conv2d(x, f, 1, "same", bias=c),
        [[1, 4, 4, 2], [3, 3, 2, 3], [3]],
        (),
        LINEAR,
    ),
    GradSpec(
        "fused.conv2d relu6",
        lambda x, f: tf.fused.conv2d(x, f, 2, "valid", activation="relu6"),
        [[1, 5, 5, 2], [2, 2, 2, 2]],
        (),
    ),
    GradSpec(
        "fused.depthwise_conv2d bias",
        lambda x, f, c: tf.fused.depthwise_conv2d(x, f, 1, "same", bias=c),
        [[1, 4, 4, 2], [2, 2, 2, 2], [4]],
        (),
        LINEAR,
    ),
]


def _needs_activation_grads(fn_name: str) -> None:
    """The relu-family gradients belong to the basic-math family; skip until they exist."""
    needed = {"relu": "Relu", "relu6": "Relu6", "leakyrelu": "LeakyRelu"}
    for key, kernel in needed.items():
        if key in fn_name and get_gradient(kernel) is None:
            pytest.skip(f"{kernel} has no registered gradient yet")


@pytest.mark.parametrize("spec", GRAD_OPS, ids=[s.name for s in GRAD_OPS])
def test_check_grads(spec):
    _needs_activation_grads(spec.name)
    args = [rand(shape, seed=i + 1) for i, shape in enumerate(spec.shapes)]
    tf.testing.check_grads(spec.fn, args, **spec.options)


def test_grad_table_covers_every_convolution_gradient():
    from tidytensor.gradients import convolution as grads_module  # noqa: F401 - registers them

    registered = {
        "Conv2D",
        "Conv2DBackpropInput",
        "Conv3D",
        "DepthwiseConv2dNative",
        "Dilation2D",
        "AvgPool",
        "AvgPool3D",
        "MaxPool",
        "MaxPool3D",
    }
    assert all(get_gradient(name) is not None for name in registered)
    covered = {name for spec in GRAD_OPS for name in spec.kernels}
    assert registered <= covered


def test_grad_table_kernels_are_really_run():
    """Each spec's declared kernels appear in its profile."""
    for spec in GRAD_OPS:
        if not spec.kernels:
            continue
        args = [rand(shape) for shape in spec.shapes]
        names = set(tf.profile(lambda spec=spec, args=args: spec.fn(*args)).kernel_names)
        assert set(spec.kernels) <= names, spec.name
        tf.dispose(args)


def test_avg_pool_grad_border_quirk():
    """TF.js's avgPool gradient spreads dy / (filter size) over every tap, padding included."""
    g = tf.grad(lambda x: tf.avg_pool(x, 2, 1, "same"))(tf.ones([1, 2, 2, 1]))
    # Forward: out[0,0] = mean of 4, out[0,1] = mean of 2, out[1,0] = mean of 2, out[1,1] = x[1,1].
    # TF.js: each output sends 1/4 to every tap inside the input.
    np.testing.assert_allclose(g.data_sync(), [0.25, 0.5, 0.5, 1.0])


# ---------------------------------------------------------------------------- fused gradients vs TF.js
# Values recorded with @tensorflow/tfjs 4.22.0 (cpu backend): tf.grads of the fused op.
MM_A = [[1, -2, 0.5], [0.25, 1, -1]]
MM_B = [[0.5, -1], [2, 0.1], [-0.3, 1]]
MM_BIAS = [0.2, -0.4]
MM_DY = [[1, 2], [-1, 0.5]]
CONV_X = [1, -2, 0.5, 3, 0.25, 1, -1, 2, 0, 1.5, -0.5, 1, 2, -1, 0.5, 0.75, 1, 0.5]
CONV_F = [0.5, -1, 2, 0.1, -0.3, 1, 0.2, 0.4, -0.6, 0.8, 1, -0.2, 0.3, 0.3, -1, 0.9]
CONV_BIAS = [0.1, -0.2]
TFJS_FUSED_GRADS = {
    "matmul linear bias": [
        [-1.5, 2.2, 1.7, -1, -1.95, 0.8],
        [0.75, 2.125, -3, -3.5, 1.5, 0.5],
        [0, 2.5],
    ],
    "matmul relu bias": [[0, 0, 0, -0.5, -2, 0.3], [-0.25, 0, -1, 0, 1, 0], [-1, 0]],
    "matmul tA tB": [[-1.5, -1, 2.2, -1.95, 1.7, 0.8], [0.75, -3, 1.5, 2.125, -3.5, 0.5]],
    "conv2d linear bias": [
        [-0.5, 2.1, 0.2, 2.7, 0.2, 2.7, -0.3, 2.9, 1, 3.4, 1, 3.4, -0.3, 2.9, 1, 3.4, 1, 3.4],
        [3.75, 3.75, 6.75, 6.75, 1.75, 1.75, 7.75, 7.75, 2, 2, 4.75, 4.75, 1, 1, 3.75, 3.75],
        [9, 9],
    ],
    "conv2d relu bias": [
        [-1, 0.1, 0.5, 2.5, 0.7, 0.6, 0.3, 1.9, 0.7, 4.4, 1.3, 0.5, 0.2, 0.8, 0.8, 0.7, 0.6, -0.1],
        [-0.5, 0.5, 6.5, 4.5, -0.25, 0.25, 3.5, 6.5, 2.5, 1.5, 1.25, 3.25, 1, 1, 2.25, 3.75],
        [3, 4],
    ],
    "depthwise linear bias": [
        [0.5, 2, 0.2, 2.2, 0.2, 2.2, -0.1, 3, -0.1, 2.2, -0.1, 2.2, -0.1, 3, -0.1, 2.2, -0.1, 2.2],
        [3.75, 6.75, 1.75, 7.75, 2, 4.75, 1, 3.75],
        [9, 9],
    ],
    "depthwise relu": [
        [0.5, 0.1, 0.2, 2.5, -0.3, 0.6, -1.6, 1.9, 0.2, 4.4, 1, 0.5, 0.8, 0.8, 0.5, 0.7, 0.6, -0.1],
        [1.5, -1, 6.5, 4.5, 0.25, -0.5, 3.5, 6.5, -0.5, 2.5, 1.25, 3.25, 0.5, 1.5, 2.25, 3.75],
    ],
}


def _fused_case(name):
    a, b = tf.tensor(MM_A), tf.tensor(MM_B)
    bias, dy = tf.tensor(MM_BIAS), tf.tensor(MM_DY)
    x = tf.tensor(CONV_X, [1, 3, 3, 2])
    f = tf.tensor(CONV_F, [2, 2, 2, 2])
    cb = tf.tensor(CONV_BIAS)
    f1 = tf.tensor(np.asarray(CONV_F, np.float32).reshape(2, 2, 2, 2)[..., :1])

    def matmul_ta_tb():
        kept = [tf.keep(tf.transpose(a)), tf.keep(tf.transpose(b))]
        matmul_ta_tb.kept = kept  # the test disposes them after its checks
        return tf.grads(
            lambda a, b: tf.fused.mat_mul(a=a, b=b, transpose_a=True, transpose_b=True)
        )(kept, dy)

    return {
        "matmul linear bias": lambda: tf.grads(lambda a, b, c: tf.fused.mat_mul(a=a, b=b, bias=c))(
            [a, b, bias], dy
        ),
        "matmul relu bias": lambda: tf.grads(
            lambda a, b, c: tf.fused.mat_mul(a=a, b=b, bias=c, activation="relu")
        )([a, b, bias], dy),
        "matmul tA tB": matmul_ta_tb,
        "conv2d linear bias": lambda: tf.grads(
            lambda x, f, c: tf.fused.conv2d(x=x, filter=f, strides=1, pad="same", bias=c)
        )([x, f, cb]),
        "conv2d relu bias": lambda: tf.grads(
            lambda x, f, c: tf.fused.conv2d(
                x=x, filter=f, strides=1, pad="valid", bias=c, activation="relu"
            )
        )([x, f, cb]),
        "depthwise linear bias": lambda: tf.grads(
            lambda x, f, c: tf.fused.depthwise_conv2d(x=x, filter=f, strides=1, pad="same", bias=c)
        )([x, f1, cb]),
        "depthwise relu": lambda: tf.grads(
            lambda x, f: tf.fused.depthwise_conv2d(
                x=x, filter=f, strides=1, pad="valid", activation="relu"
            )
        )([x, f]),
    }[name]


@pytest.mark.parametrize("name", list(TFJS_FUSED_GRADS))
def test_fused_grads_match_tfjs(name):
    _needs_activation_grads(name)
    run = _fused_case(name)
    before = tf.memory().num_tensors
    got = run()
    extra = 2 if name == "matmul tA tB" else 0  # the two kept transposed inputs
    assert tf.memory().num_tensors - before == len(got) + extra  # TF.js: only the gradients remain
    for g, want in zip(got, TFJS_FUSED_GRADS[name], strict=True):
        assert g.dtype == "float32"
        np.testing.assert_allclose(np.asarray(g.data_sync()), want, rtol=1e-5, atol=1e-5)
    tf.dispose(getattr(run, "kept", []))


def test_fused_conv2d_rank3_gradient_fails_as_in_tfjs():
    x = tf.tensor(CONV_X, [3, 3, 2])
    f = tf.tensor(CONV_F, [2, 2, 2, 2])
    with pytest.raises(
        tf.ShapeError, match=r"Length of in_shape \(4\) and rank of dy \(3\) must match"
    ):
        tf.grads(lambda x, f: tf.fused.conv2d(x, f, 1, "same"))([x, f])


def test_fused_gradient_errors():
    x, f = rand([1, 5, 5, 2]), rand([2, 2, 2, 2])
    with pytest.raises(tf.TidyTensorError, match="dilation rates greater than 1"):
        tf.grads(lambda x, f: tf.fused.conv2d(x, f, 1, "same", dilations=2))([x, f])
    with pytest.raises(tf.TidyTensorError, match="dilation rates greater than 1"):
        tf.grads(lambda x, f: tf.fused.depthwise_conv2d(x, f, 1, "same", dilations=2))([x, f])
    xc = rand([1, 2, 5, 5])
    with pytest.raises(tf.TidyTensorError, match="only NHWC is currently supported"):
        tf.grads(lambda x, f: tf.fused.conv2d(x, f, 1, "same", "NCHW"))([xc, f])
    with pytest.raises(
        tf.TidyTensorError, match="only NHWC is currently supported for the case of gradient depth"
    ):
        tf.grads(lambda x, f: tf.fused.conv2d(x, f, 1, "same", "NCHW", activation="relu"))([xc, f])
    with pytest.raises(tf.InvalidArgumentError, match="Unknown fused activation swish"):
        tf.grads(lambda a: tf.fused.mat_mul(a, a, activation="swish"))([rand([2, 2])])


def test_fused_equals_unfused_composition():
    x, f, b = rand([2, 5, 5, 3]), rand([3, 3, 3, 4], 1), rand([4], 2)
    for act, fn in [
        ("relu", tf.relu),
        ("elu", tf.elu),
        ("relu6", tf.relu6),
        ("sigmoid", tf.sigmoid),
    ]:
        fused = tf.fused.conv2d(x, f, 2, "same", bias=b, activation=act)
        tf.testing.assert_close(fused, fn(tf.add(tf.conv2d(x, f, 2, "same"), b)))
    alpha = rand([4], 3)
    fused = tf.fused.depthwise_conv2d(
        x,
        rand([2, 2, 3, 1], 4),
        1,
        "valid",
        activation="prelu",
        prelu_activation_weights=tf.tensor([0.1, 0.2, 0.3]),
    )
    assert fused.shape == [2, 4, 4, 3]
    mm = tf.fused.mat_mul(
        rand([3, 5]), rand([5, 4], 1), bias=b, activation="prelu", prelu_activation_weights=alpha
    )
    tf.testing.assert_close(
        mm, tf.prelu(tf.add(tf.mat_mul(rand([3, 5]), rand([5, 4], 1)), b), alpha)
    )


def test_fused_leakyrelu_without_alpha_is_nan_for_negatives_like_tfjs():
    _needs_activation_grads("leakyrelu")
    y = tf.fused.conv2d(
        tf.tensor([[[[-1.0], [2.0]]]]), tf.ones([1, 1, 1, 1]), 1, "valid", activation="leakyrelu"
    )
    assert np.isnan(y.data_sync()[0]) and y.data_sync()[1] == 2
    # ...but the unfused path (while recording gradients) uses leakyRelu's default 0.2.
    g = tf.grad(
        lambda x: tf.fused.conv2d(x, tf.ones([1, 1, 1, 1]), 1, "valid", activation="leakyrelu")
    )(tf.tensor([[[[-1.0], [2.0]]]]))
    np.testing.assert_allclose(g.data_sync(), [0.2, 1.0], rtol=1e-6)


def test_fused_namespace():
    assert tf.fused.conv2d is not tf.conv2d
    assert sorted(tf.fused.__all__) == ["conv2d", "depthwise_conv2d", "mat_mul"]
    assert not hasattr(tf, "mat_mul") or tf.mat_mul is not tf.fused.mat_mul


# ---------------------------------------------------------------------------- errors
def test_argument_errors():
    x = rand([1, 4, 4, 2])
    with pytest.raises(tf.InvalidArgumentError, match="Unknown padding parameter: SAME"):
        tf.conv2d(x, rand([2, 2, 2, 1]), 1, "SAME")
    with pytest.raises(tf.InvalidArgumentError, match="Unknown rounding_mode up"):
        tf.conv2d(x, rand([2, 2, 2, 1]), 1, 1, "NHWC", 1, "up")
    with pytest.raises(tf.InvalidArgumentError, match="strides is required"):
        tf.max_pool3d(rand([1, 2, 2, 2, 1]), 2)
    with pytest.raises(tf.ShapeError, match="Error in max_pool_with_argmax: input must be rank 4"):
        tf.max_pool_with_argmax(rand([4, 4, 1]), 2, 2, "valid")
    with pytest.raises(tf.ShapeError, match="negative size"):
        tf.conv2d(rand([1, 2, 2, 1]), rand([4, 4, 1, 1]), 1, "valid")
    with pytest.raises(tf.ShapeError, match=r"dy has spatial shape \[1,1\]"):
        tf.conv2d_transpose(rand([1, 1, 1, 1]), rand([2, 2, 1, 1]), [1, 4, 4, 1], 1, "valid")
    with pytest.raises(tf.InvalidArgumentError, match="strides must hold integers"):
        tf.conv2d(x, rand([2, 2, 2, 1]), 1.5, "same")
    with pytest.raises(tf.DTypeError, match="must be float32 tensor"):
        tf.depthwise_conv2d(x, tf.ones([2, 2, 2, 1], "int32"), 1, "same")
    with pytest.raises(tf.TensorDisposedError):
        d = rand([1, 2, 2, 1])
        d.dispose()
        tf.max_pool(d, 2, 1, "valid")


# ---------------------------------------------------------------------------- behaviour
def test_chained_methods_and_keywords():
    x, f = rand([1, 4, 4, 2]), rand([3, 3, 2, 3])
    tf.testing.assert_close(x.conv2d(f, 1, "same"), tf.conv2d(x=x, filter=f, strides=1, pad="same"))
    tf.testing.assert_close(
        x.max_pool(2, 2, "valid"), tf.max_pool(x, filter_size=2, strides=2, pad="valid")
    )
    tf.testing.assert_close(
        x.avg_pool(2, 2, "valid"), tf.pool(x, [2, 2], "avg", "valid", strides=2)
    )
    tf.testing.assert_close(
        x.depthwise_conv2d(rand([2, 2, 2, 1]), 1, "same"),
        tf.depthwise_conv2d(x, rand([2, 2, 2, 1]), 1, "same"),
    )


def test_nchw_equals_nhwc():
    x, f = rand([2, 5, 6, 3]), rand([3, 2, 3, 4], 1)
    for strides, pad in [(1, "same"), (2, "valid"), ([2, 1], 1)]:
        a = tf.conv2d(x, f, strides, pad)
        b = tf.conv2d(tf.transpose(x, [0, 3, 1, 2]), f, strides, pad, "NCHW")
        tf.testing.assert_close(tf.transpose(b, [0, 2, 3, 1]), a)


def test_max_pool_with_argmax_result_survives_tidy_and_dispose():
    x = rand([1, 4, 4, 2])
    r = tf.tidy(lambda: tf.max_pool_with_argmax(x, 2, 2, "valid"))
    assert r.result.shape == [1, 2, 2, 2] and r.indexes.dtype == "int32"
    values, indexes = r["result"], r["indexes"]
    flat = np.asarray(x.data_sync())
    np.testing.assert_array_equal(flat[np.asarray(indexes.data_sync())], values.data_sync())
    before = tf.memory().num_tensors
    tf.dispose(r)
    assert tf.memory().num_tensors == before - 2


def test_identity_pools_share_the_input_buffer():
    x = rand([1, 3, 3, 2])
    before = tf.memory()
    y = tf.max_pool(x, 1, 1, "valid")
    z = tf.avg_pool(x, 1, 1, "same")
    after = tf.memory()
    assert after.num_tensors - before.num_tensors == 2
    assert after.num_data_buffers == before.num_data_buffers
    tf.testing.assert_close(y, x)
    tf.testing.assert_close(z, x)


def test_conv_does_not_leak_or_mutate_inputs():
    x, f = rand([2, 4, 4, 3]), rand([3, 3, 3, 2])
    xs, fs = x.numpy().copy(), f.numpy().copy()
    with tf.testing.assert_no_leaks():
        tf.tidy(lambda: tf.grads(lambda a, b: tf.conv2d(a, b, 1, "same"))([x, f]) and None)
    np.testing.assert_array_equal(x.numpy(), xs)
    np.testing.assert_array_equal(f.numpy(), fs)


def test_large_conv_matches_float64_reference():
    """Chunked im2col (several batch chunks) gives the same result as one big product."""
    rng = np.random.default_rng(7)
    xv = rng.standard_normal((9, 20, 20, 16)).astype(np.float32)
    fv = rng.standard_normal((3, 3, 16, 8)).astype(np.float32)
    got = tf.conv2d(tf.tensor(xv), tf.tensor(fv), 1, "same").numpy()
    np.testing.assert_allclose(got, naive_conv2d(xv, fv, 1, 1, 1, 1, 1, 1), rtol=1e-4, atol=1e-4)


# ---------------------------------------------------------------------------- NumPy references
def naive_conv2d(x, f, sh, sw, dh, dw, top, left, out_h=None, out_w=None):
    """Direct loops over outputs in float64 (windows partly outside the input are cut)."""
    n, h, w, c = x.shape
    fh, fw, _, oc = f.shape
    if out_h is None:
        out_h = (h + 2 * top - (fh - 1) * dh - 1) // sh + 1
        out_w = (w + 2 * left - (fw - 1) * dw - 1) // sw + 1
    out = np.zeros((n, out_h, out_w, oc))
    x64, f64 = x.astype(np.float64), f.astype(np.float64)
    for i, j, a, b in itertools.product(range(out_h), range(out_w), range(fh), range(fw)):
        r, q = i * sh - top + a * dh, j * sw - left + b * dw
        if 0 <= r < h and 0 <= q < w:
            out[:, i, j, :] += x64[:, r, q, :] @ f64[a, b]
    return out


def naive_pool(x, fh, fw, sh, sw, top, left, out_h, out_w, kind):
    n, h, w, c = x.shape
    out = np.zeros((n, out_h, out_w, c))
    for i, j in itertools.product(range(out_h), range(out_w)):
        r0, q0 = i * sh - top, j * sw - left
        win = x[:, max(r0, 0) : min(r0 + fh, h), max(q0, 0) : min(q0 + fw, w), :].astype(np.float64)
        out[:, i, j, :] = win.max(axis=(1, 2)) if kind == "max" else win.mean(axis=(1, 2))
    return out


@settings(max_examples=40, deadline=None)
@given(
    h=st.integers(1, 7),
    w=st.integers(1, 7),
    fh=st.integers(1, 3),
    fw=st.integers(1, 3),
    stride=st.integers(1, 3),
    dilation=st.integers(1, 2),
    same=st.booleans(),
    seed=st.integers(0, 1000),
)
def test_conv2d_matches_numpy(h, w, fh, fw, stride, dilation, same, seed):
    if stride > 1 and dilation > 1:
        dilation = 1
    eh, ew = fh + (fh - 1) * (dilation - 1), fw + (fw - 1) * (dilation - 1)
    if not same and (eh > h or ew > w):
        return
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, h, w, 2)).astype(np.float32)
    f = rng.standard_normal((fh, fw, 2, 3)).astype(np.float32)
    got = tf.conv2d(x, f, stride, "same" if same else "valid", "NHWC", dilation).numpy()
    if same:
        oh, ow = math.ceil(h / stride), math.ceil(w / stride)
        top = max(0, (oh - 1) * stride + eh - h) // 2
        left = max(0, (ow - 1) * stride + ew - w) // 2
    else:
        oh, ow = math.ceil((h - eh + 1) / stride), math.ceil((w - ew + 1) / stride)
        top = left = 0
    want = naive_conv2d(x, f, stride, stride, dilation, dilation, top, left, oh, ow)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@settings(max_examples=40, deadline=None)
@given(
    h=st.integers(1, 7),
    w=st.integers(1, 7),
    fh=st.integers(1, 3),
    fw=st.integers(1, 3),
    stride=st.integers(1, 3),
    kind=st.sampled_from(["max", "avg"]),
    seed=st.integers(0, 1000),
)
def test_pool_same_matches_numpy(h, w, fh, fw, stride, kind, seed):
    x = np.random.default_rng(seed).standard_normal((2, h, w, 3)).astype(np.float32)
    op = tf.max_pool if kind == "max" else tf.avg_pool
    got = op(x, [fh, fw], stride, "same").numpy()
    oh, ow = math.ceil(h / stride), math.ceil(w / stride)
    top = max(0, (oh - 1) * stride + fh - h) // 2
    left = max(0, (ow - 1) * stride + fw - w) // 2
    want = naive_pool(x, fh, fw, stride, stride, top, left, oh, ow, kind)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@settings(max_examples=25, deadline=None)
@given(
    h=st.integers(2, 6),
    w=st.integers(2, 6),
    f=st.integers(1, 3),
    stride=st.integers(1, 2),
    seed=st.integers(0, 1000),
)
def test_conv2d_gradients_are_adjoint(h, w, f, stride, seed):
    """<conv(x), dy> == <x, dx(dy)> and == <f, df(dy)>: the backprop kernels are exact adjoints."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((1, h, w, 2)).astype(np.float32)
    fl = rng.standard_normal((f, f, 2, 2)).astype(np.float32)
    y = tf.conv2d(x, fl, stride, "same").numpy()
    dy = rng.standard_normal(y.shape).astype(np.float32)
    dx, df = tf.grads(lambda a, b: tf.conv2d(a, b, stride, "same"))(
        [tf.tensor(x), tf.tensor(fl)], tf.tensor(dy)
    )
    lhs = float(np.sum(y.astype(np.float64) * dy))
    assert math.isclose(
        lhs, float(np.sum(dx.numpy() * x.astype(np.float64))), rel_tol=1e-4, abs_tol=1e-4
    )
    assert math.isclose(
        lhs, float(np.sum(df.numpy() * fl.astype(np.float64))), rel_tol=1e-4, abs_tol=1e-4
    )
