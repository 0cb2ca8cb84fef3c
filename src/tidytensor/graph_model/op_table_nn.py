"""Op table, part 2: TF.js's converter categories ``convolution``, ``matrices``,
``normalization`` and ``image``, with TF.js's attribute handling: NHWC strides, kernel sizes and
dilations ``[1, h, w, 1]`` read at positions 1 and 2, ``EXPLICIT`` padding from
``explicit_paddings`` as four pairs, and the converter's fused ops (``_FusedConv2D``,
``FusedDepthwiseConv2dNative``, ``_FusedMatMul``: ``fused_ops`` ``[BiasAdd, activation]`` with
``num_args`` extra inputs: bias, then PReLU's alpha).
"""

from __future__ import annotations

from typing import Any

from .. import ops as tf
from ..errors import InvalidArgumentError
from .op_spec import Params, Spec, spec

__all__ = ["CONVOLUTION", "IMAGE", "MATRICES", "NORMALIZATION"]


def _padding(p: Params) -> Any:
    """``pad``: 'same'/'valid', or 'explicit' with four ``[before, after]`` pairs."""
    if p.pad != "explicit":
        return p.pad
    flat = p.explicit_paddings or [0] * 8
    return [[flat[2 * i], flat[2 * i + 1]] for i in range(4)]


def _hw(values: list[int]) -> list[int]:
    return [values[1], values[2]]


def _fused_args(p: Params, what: str) -> dict[str, Any]:
    """Bias, activation and PReLU weights of a fused node, checked as TF.js checks them."""
    fused = list(p.fused_ops or [])
    extra_op = fused[0] if fused else None
    activation = fused[1] if len(fused) > 1 else None
    if extra_op == "fusedbatchnorm":
        raise InvalidArgumentError(f"{what} with FusedBatchNorm is not supported")
    is_bias = extra_op == "biasadd"
    is_prelu = activation == "prelu"
    if is_bias and is_prelu and p.num_args != 2:
        raise InvalidArgumentError(
            f"{what} with BiasAdd and Prelu must have two extra arguments: bias and alpha."
        )
    if is_bias and not is_prelu and p.num_args != 1:
        raise InvalidArgumentError(f"{what} with BiasAdd must have one extra argument: bias.")
    args = list(p.args or [])
    bias = args[0] if args else None
    prelu = args[1] if len(args) > 1 else None
    if not is_bias:
        bias, prelu = None, bias
    return {
        "bias": bias,
        "activation": activation or "linear",
        "prelu_activation_weights": prelu,
        "leakyrelu_alpha": p.leakyrelu_alpha,
    }


def _result_and_indexes(result: Any) -> list[Any]:
    return [result["result"], result["indexes"]]


_CONV_ATTRS = {
    "strides": "strides:number[]",
    "pad": "padding:string",
    "explicit_paddings": "explicit_paddings:number[]=[]",
    "data_format": 'data_format:string="NHWC"',
    "dilations": "dilations:number[]=[1,1,1,1]",
}
_FUSED_ATTRS = {
    **_CONV_ATTRS,
    "num_args": "num_args:number",
    "fused_ops": "fused_ops:string[]=[]",
    "epsilon": "epsilon:number=0.0001",
    "leakyrelu_alpha": "leakyrelu_alpha:number=0.2",
}
_POOL_ATTRS = {
    "strides": "strides:number[]",
    "pad": "padding:string",
    "kernel_size": "ksize:number[]",
}


def _pool(fn: Any) -> Spec:
    return spec(lambda p: fn(p.x, _hw(p.kernel_size), _hw(p.strides), p.pad), "x", **_POOL_ATTRS)


def _pool3d(fn: Any) -> Spec:
    return spec(
        lambda p: fn(p.x, p.kernel_size[1:4], p.strides[1:4], p.pad, None, p.data_format.upper()),
        "x",
        **_POOL_ATTRS,
        data_format='data_format:string="NHWC"',
    )


def _conv2d(p: Params) -> Any:
    return tf.conv2d(
        p.x, p.filter, _hw(p.strides), _padding(p), p.data_format.upper(), _hw(p.dilations)
    )


def _depthwise(p: Params) -> Any:
    return tf.depthwise_conv2d(
        p.input, p.filter, _hw(p.strides), _padding(p), p.data_format.upper(), _hw(p.dilations)
    )


def _fused(fn: Any) -> Any:
    """``_FusedConv2D`` / ``FusedDepthwiseConv2dNative`` run with ``fn``."""

    def run(p: Params) -> Any:
        return fn(
            p.x,
            p.filter,
            _hw(p.strides),
            _padding(p),
            p.data_format.upper(),
            _hw(p.dilations),
            **_fused_args(p, "FusedConv2d and DepthwiseConv2d"),
        )

    return run


CONVOLUTION: dict[str, Spec] = {
    "AvgPool": _pool(tf.avg_pool),
    "MaxPool": _pool(tf.max_pool),
    "MaxPoolWithArgmax": spec(
        lambda p: _result_and_indexes(
            tf.max_pool_with_argmax(
                p.x, _hw(p.kernel_size), _hw(p.strides), p.pad, p.include_batch_in_index
            )
        ),
        "x",
        **_POOL_ATTRS,
        include_batch_in_index="include_batch_in_index:bool",
    ),
    "AvgPool3D": _pool3d(tf.avg_pool3d),
    "MaxPool3D": _pool3d(tf.max_pool3d),
    "Conv1D": spec(
        lambda p: tf.conv1d(p.x, p.filter, p.stride, p.pad, p.data_format.upper(), p.dilation),
        "x filter",
        stride="stride:number",
        pad="padding:string",
        data_format='data_format:string="NWC"',
        dilation="dilation:number=1",
    ),
    "Conv2D": spec(_conv2d, "x filter", **_CONV_ATTRS),
    "_FusedConv2D": spec(_fused(tf.fused.conv2d), "x filter args*@2", **_FUSED_ATTRS),
    "Conv2DBackpropInput": spec(
        lambda p: tf.conv2d_transpose(p.x, p.filter, p.output_shape, _hw(p.strides), _padding(p)),
        "output_shape## filter x",
        **_CONV_ATTRS,
    ),
    "DepthwiseConv2d": spec(_depthwise, "input filter", **_CONV_ATTRS),
    "DepthwiseConv2dNative": spec(_depthwise, "input filter", **_CONV_ATTRS),
    "FusedDepthwiseConv2dNative": spec(
        _fused(tf.fused.depthwise_conv2d), "x filter args*@2", **_FUSED_ATTRS
    ),
    "Conv3D": spec(
        lambda p: tf.conv3d(
            p.x, p.filter, p.strides[1:4], p.pad, p.data_format.upper(), p.dilations[1:4]
        ),
        "x filter",
        strides="strides:number[]",
        pad="padding:string",
        data_format='data_format:string="NHWC"',
        dilations="dilations:number[]=[1,1,1,1,1]",
    ),
    "Dilation2D": spec(
        lambda p: tf.dilation2d(p.x, p.filter, _hw(p.strides), p.pad, _hw(p.dilations), "NHWC"),
        "x filter",
        strides="strides:number[]",
        dilations="rates:number[]",
        pad="padding:string",
    ),
}


def _fused_mat_mul(p: Params) -> Any:
    fused = list(p.fused_ops or [])
    if fused and fused[0] == "biasadd" and fused[1:2] == ["prelu"] and p.num_args != 2:
        raise InvalidArgumentError(
            "Fused MatMul with BiasAdd and Prelu must have two extra arguments: bias and alpha."
        )
    if fused and fused[0] == "biasadd" and fused[1:2] != ["prelu"] and p.num_args != 1:
        raise InvalidArgumentError("Fused MatMul with BiasAdd must have one extra argument: bias.")
    args = list(p.args or [])
    return tf.fused.mat_mul(
        p.a,
        p.b,
        p.transpose_a,
        p.transpose_b,
        bias=args[0] if args else None,
        activation=fused[1] if len(fused) > 1 else "linear",
        prelu_activation_weights=args[1] if len(args) > 1 else None,
        leakyrelu_alpha=p.leakyrelu_alpha,
    )


def _mat_mul(transpose_a: str, transpose_b: str) -> Spec:
    """``MatMul`` (``transpose_a``/``transpose_b``) and ``BatchMatMul`` (``adj_x``/``adj_y``)."""
    return spec(
        lambda p: tf.mat_mul(p.a, p.b, p.transpose_a, p.transpose_b),
        "a b",
        transpose_a=f"{transpose_a}:bool=false",
        transpose_b=f"{transpose_b}:bool=false",
    )


MATRICES: dict[str, Spec] = {
    "_FusedMatMul": spec(
        _fused_mat_mul,
        "a b args*@2",
        num_args="num_args:number",
        fused_ops="fused_ops:string[]=[]",
        epsilon="epsilon:number=0.0001",
        transpose_a="transpose_a:bool=false",
        transpose_b="transpose_b:bool=false",
        leakyrelu_alpha="leakyrelu_alpha:number=0.2",
    ),
    "MatMul": _mat_mul("transpose_a", "transpose_b"),
    "BatchMatMul": _mat_mul("adj_x", "adj_y"),
    "BatchMatMulV2": _mat_mul("adj_x", "adj_y"),
    "Transpose": spec(lambda p: tf.transpose(p.x, p.perm), "x perm##"),
    "Einsum": spec(
        lambda p: tf.einsum(p.equation, *p.tensors), "tensors*", equation="equation:String"
    ),
    # TF.js 4.22's op list reads num_upper from input 1 too (num_lower's): not copied.
    "MatrixBandPart": spec(
        lambda p: tf.linalg.band_part(p.a, p.num_lower, p.num_upper), "a num_lower num_upper"
    ),
}


def _batch_norm(p: Params) -> Any:
    return tf.batch_norm(p.x, p.mean, p.variance, p.offset, p.scale, p.epsilon)


_BATCH_NORM_ATTRS = {
    "epsilon": "epsilon:number=0.001",
    "data_format": "data_format:string",
    "is_training": "is_training:bool",
}

NORMALIZATION: dict[str, Spec] = {
    "EuclideanNorm": spec(
        lambda p: tf.euclidean_norm(p.x, p.axis, p.keep_dims),
        "x axis##",
        keep_dims="keep_dims:bool=false",
    ),
    **{
        name: spec(_batch_norm, "x scale offset mean variance", **_BATCH_NORM_ATTRS)
        for name in ("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3")
    },
    "LRN": spec(
        lambda p: tf.local_response_normalization(p.x, p.radius, p.bias, p.alpha, p.beta),
        "x",
        radius="depth_radius:number=5",
        bias="bias:number=1.0",
        alpha="alpha:number=1.0",
        beta="beta:number=0.5",
    ),
    "Softmax": spec(lambda p: tf.softmax(p.x), "x"),
    "LogSoftmax": spec(lambda p: tf.log_softmax(p.x), "x"),
}

_RESIZE_ATTRS = {
    "align_corners": "align_corners:bool",
    "half_pixel_centers": "half_pixel_centers:bool",
}

IMAGE: dict[str, Spec] = {
    "ResizeBilinear": spec(
        lambda p: tf.image.resize_bilinear(p.images, p.size, p.align_corners, p.half_pixel_centers),
        "images size##",
        **_RESIZE_ATTRS,
    ),
    "ResizeNearestNeighbor": spec(
        lambda p: tf.image.resize_nearest_neighbor(
            p.images, p.size, p.align_corners, p.half_pixel_centers
        ),
        "images size##",
        **_RESIZE_ATTRS,
    ),
    "CropAndResize": spec(
        lambda p: tf.image.crop_and_resize(
            p.image, p.boxes, p.box_ind, p.crop_size, p.method, p.extrapolation_value
        ),
        "image boxes box_ind crop_size##",
        method='method:string="bilinear"',
        extrapolation_value="extrapolation_value:number=0",
    ),
    "ImageProjectiveTransformV3": spec(
        lambda p: tf.image.transform(
            p.images,
            p.transforms,
            p.interpolation.lower(),
            p.fill_mode.lower(),
            p.fill_value,
            p.output_shape,
        ),
        "images transforms output_shape## fill_value#",
        interpolation="interpolation:string",
        fill_mode="fill_mode:string",
    ),
}
