"""Image ops, TF.js's ``tf.image`` namespace (``tfjs-core/src/ops/image/``).

Images are NHWC: ``[batch, height, width, channels]`` (the resize ops also take one image,
``[height, width, channels]``). ``resize_bilinear`` and ``resize_nearest_neighbor`` have
gradients (their backward kernels are ``ResizeBilinearGrad`` / ``ResizeNearestNeighborGrad``);
``grayscale_to_rgb`` is a ``tile`` and differentiates through it.

The non-max-suppression ops that TF.js answers with an object return a :class:`Record`: a dict
(so ``tidy`` and ``tf.dispose`` find its tensors) whose fields also read as attributes
(``result.selected_indices``). The ``*_async`` variants are plain synchronous calls that, like
TF.js's, read the boxes and scores back and run the suppression on the host, with no kernel.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from .. import kernel_names as k
from ..backends.xp_kernels.image import non_max_suppression_impl
from ..errors import ArgumentTypeError, DTypeError, InvalidArgumentError, ShapeError
from ..naming import snake_case
from ..tensor import Tensor
from ._op import (
    bool_arg,
    checked_shape,
    convert_to_tensor,
    describe,
    float_arg,
    js_str,
    op,
    real_number,
    run_kernel,
)
from .arithmetic import add, div, mul, sub
from .basic_math import is_nan
from .basic_math import round as round_
from .creation import fill, scalar, tensor, tensor1d
from .creation import range as range_
from .logical import greater, less_equal, where
from .matrices import einsum
from .reduction import arg_max, bincount
from .reduction import max as max_
from .reduction import sum as sum_
from .slicing_joining import split, tile
from .sparse import Record
from .transformations import cast, expand_dims, reshape

__all__ = [
    "crop_and_resize",
    "flip_left_right",
    "grayscale_to_rgb",
    "non_max_suppression",
    "non_max_suppression_async",
    "non_max_suppression_padded",
    "non_max_suppression_padded_async",
    "non_max_suppression_with_score",
    "non_max_suppression_with_score_async",
    "resize_bilinear",
    "resize_nearest_neighbor",
    "rgb_to_grayscale",
    "rotate_with_offset",
    "threshold",
    "transform",
]


class NonMaxSuppressionWithScoreResult(Record):
    """``non_max_suppression_with_score``'s result: ``selected_indices`` (int32) and
    ``selected_scores`` (float32, the scores after any soft-NMS decay)."""

    __slots__ = ()


class NonMaxSuppressionPaddedResult(Record):
    """``non_max_suppression_padded``'s result: ``selected_indices`` (int32, padded with 0 to
    ``max_output_size`` if asked) and ``valid_outputs`` (an int32 scalar)."""

    __slots__ = ()


# ---------------------------------------------------------------------------- helpers
def _assert(cond: bool, message: str, error: type = InvalidArgumentError) -> None:
    if not cond:
        raise error(message)


def _is_number(v: Any) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _pair(value: Any, what: str, op_name: str) -> tuple[int, int]:
    """Two non-negative integer sizes (an output or crop size) as a tuple."""
    out = []
    for v in value:
        if not _is_number(v) or not math.isfinite(v) or v % 1 != 0 or v < 0:
            raise InvalidArgumentError(
                f"Error in {snake_case(op_name)}: {what} must hold non-negative integers, but got {_js(value)}."
            )
        out.append(int(v))
    return out[0], out[1]


def _number(value: Any, op_name: str, name: str, default: float) -> float:
    """An optional number attr: None is TF.js's ``undefined`` (the default)."""
    return default if value is None else float_arg(value, op_name, name)


def _mode(value: Any, choices: tuple[str, ...]) -> bool:
    """True when ``value`` is one of the strings ``choices`` (False for a NumPy array or a
    list, which ``in`` would compare element by element)."""
    return isinstance(value, str) and value in choices


def _length(value: Any) -> int | None:
    """JS's ``value.length`` for an array-like (None where JS would give undefined)."""
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__len__"):
        return None
    return len(value)


def _js(value: Any) -> str:
    """``value`` as a JS template string prints it (arrays joined by commas)."""
    return js_str(list(value) if _length(value) is not None else value)


def _shown(value: Any) -> str:
    """A mode string as TF.js's message prints it; anything else as ``describe`` does."""
    if isinstance(value, (str, list, tuple)) or value is None:
        return js_str(value)
    return describe(value)


#: The ``fill_mode`` values ``transform`` knows.
_FILL_MODES = ("constant", "reflect", "wrap", "nearest")


def _dim0(t: Tensor) -> Any:
    return t._shape[0] if t.rank > 0 else None


def _check_image_rank(op_name: str, img: Tensor, rank: int = 4) -> None:
    _assert(
        img.rank == rank,
        f"Error in {snake_case(op_name)}: image must be rank {rank}, but got rank {img.rank}.",
        ShapeError,
    )


# ---------------------------------------------------------------------------- resizing
def _resize(
    kernel: str, op_name: str, images: Any, size: Any, align_corners: bool, half_pixel_centers: bool
) -> Tensor:
    x = convert_to_tensor(images, "images", op_name)
    align_corners = bool_arg(align_corners, op_name, "alignCorners")
    half_pixel_centers = bool_arg(half_pixel_centers, op_name, "halfPixelCenters")
    _assert(
        x.rank in (3, 4),
        f"Error in {snake_case(op_name)}: x must be rank 3 or 4, but got rank {x.rank}.",
        ShapeError,
    )
    _assert(
        _length(size) == 2,
        f"Error in {snake_case(op_name)}: new shape must be 2D, but got shape {_js(size)}.",
        ShapeError,
    )
    if kernel == k.RESIZE_NEAREST_NEIGHBOR:
        _assert(
            x.dtype in ("float32", "int32"),
            "`images` must have `int32` or `float32` as dtype",
            DTypeError,
        )
    _assert(
        not half_pixel_centers or not align_corners,
        f"Error in {snake_case(op_name)}: If half_pixel_centers is True, align_corners must be False.",
    )
    new_size = _pair(size, "size", op_name)
    batch = x._shape[0] if x.rank == 4 else 1
    checked_shape([batch, *new_size, x._shape[-1]], op_name)
    batched = x if x.rank == 4 else reshape(x, [1, *x._shape])
    attrs = {
        "align_corners": align_corners,
        "half_pixel_centers": half_pixel_centers,
        "size": new_size,
    }
    res = run_kernel(kernel, (batched,), attrs)
    if x.rank == 3:
        return reshape(res, list(res._shape[1:]))
    return res


@op(name="resizeBilinear")
def resize_bilinear(
    images: Any, size: Any, align_corners: bool = False, half_pixel_centers: bool = False
) -> Tensor:
    """Resizes images (``[batch, h, w, c]`` or ``[h, w, c]``) to ``size = [new_h, new_w]`` by
    bilinear interpolation; float32 result.

    ``align_corners`` maps the corner pixels of input and output onto each other;
    ``half_pixel_centers`` samples at pixel centers (the two cannot both be true).

    >>> tf.image.resize_bilinear(tf.tensor3d([[[1], [3]]]), [1, 4]).array_sync()
    [[[1.0], [2.0], [3.0], [3.0]]]
    """
    return _resize(
        k.RESIZE_BILINEAR, "resizeBilinear", images, size, align_corners, half_pixel_centers
    )


@op(name="resizeNearestNeighbor")
def resize_nearest_neighbor(
    images: Any, size: Any, align_corners: bool = False, half_pixel_centers: bool = False
) -> Tensor:
    """Resizes images (``[batch, h, w, c]`` or ``[h, w, c]``, float32 or int32) to
    ``size = [new_h, new_w]`` by copying the nearest source pixel; keeps the dtype.

    >>> tf.image.resize_nearest_neighbor(tf.tensor3d([[[1], [3]]]), [1, 4]).array_sync()
    [[[1.0], [1.0], [3.0], [3.0]]]
    """
    return _resize(
        k.RESIZE_NEAREST_NEIGHBOR,
        "resizeNearestNeighbor",
        images,
        size,
        align_corners,
        half_pixel_centers,
    )


@op(name="resizeBilinearGrad")
def _resize_bilinear_grad(images: Tensor, dy: Tensor, attrs: dict) -> Tensor:
    """The backward kernel of ``resize_bilinear`` (its gradient for ``images``)."""
    return run_kernel(k.RESIZE_BILINEAR_GRAD, (images, dy), dict(attrs))


@op(name="resizeNearestNeighborGrad")
def _resize_nearest_neighbor_grad(images: Tensor, dy: Tensor, attrs: dict) -> Tensor:
    """The backward kernel of ``resize_nearest_neighbor`` (its gradient for ``images``)."""
    return run_kernel(k.RESIZE_NEAREST_NEIGHBOR_GRAD, (images, dy), dict(attrs))


# ---------------------------------------------------------------------------- crops, flips
@op(name="cropAndResize")
def crop_and_resize(
    image: Any,
    boxes: Any,
    box_ind: Any,
    crop_size: Any,
    method: str = "bilinear",
    extrapolation_value: float = 0,
) -> Tensor:
    """Crops ``boxes`` (``[num_boxes, 4]`` of normalized ``[y1, x1, y2, x2]``) out of the
    images ``box_ind`` picks from ``image`` (``[batch, h, w, c]``) and resizes each crop to
    ``crop_size = [crop_h, crop_w]`` (``method`` ``'bilinear'`` or ``'nearest'``). Sample
    points outside an image take ``extrapolation_value``. Float32 ``[num_boxes, crop_h,
    crop_w, c]``.

    >>> img = tf.tensor4d([1, 2, 3, 4], [1, 2, 2, 1])
    >>> tf.image.crop_and_resize(img, [[0, 0, 1, 1]], [0], [3, 3]).reshape([9]).array_sync()
    [1.0, 1.5, 2.0, 2.0, 2.5, 3.0, 3.0, 3.5, 4.0]
    """
    img = convert_to_tensor(image, "image", "cropAndResize")
    bx = convert_to_tensor(boxes, "boxes", "cropAndResize", "float32")
    ind = convert_to_tensor(box_ind, "boxInd", "cropAndResize", "int32")
    num_boxes = _dim0(bx)
    _check_image_rank("cropAndResize", img)
    _assert(
        bx.rank == 2 and bx._shape[1] == 4,
        f"Error in crop_and_resize: boxes must have size [{num_boxes},4] but had shape "
        f"{js_str(bx.shape)}.",
        ShapeError,
    )
    # TF.js prints the boxes' shape here; the box indices' shape is the one that is wrong.
    _assert(
        ind.rank == 1 and ind._shape[0] == num_boxes,
        f"Error in crop_and_resize: box_ind must have size [{num_boxes}] but had shape "
        f"{js_str(ind.shape)}.",
        ShapeError,
    )
    n = _length(crop_size)
    _assert(
        n == 2,
        f"Error in crop_and_resize: crop_size must be of length 2, but got length {n}.",
    )
    _assert(
        _is_number(crop_size[0])
        and _is_number(crop_size[1])
        and crop_size[0] >= 1
        and crop_size[1] >= 1,
        f"crop_size must be at least [1,1], but was {_js(crop_size)}",
    )
    _assert(
        _mode(method, ("bilinear", "nearest")),
        f"method must be bilinear or nearest, but was {_shown(method)}",
    )
    crop = _pair(crop_size, "crop_size", "cropAndResize")
    checked_shape([num_boxes, *crop, img._shape[3]], "cropAndResize")
    attrs = {
        "method": method,
        "extrapolation_value": _number(
            extrapolation_value, "cropAndResize", "extrapolationValue", 0.0
        ),
        "crop_size": crop,
    }
    return run_kernel(k.CROP_AND_RESIZE, (img, bx, ind), attrs)


@op(name="flipLeftRight")
def flip_left_right(image: Any) -> Tensor:
    """Mirrors each image of a float32 ``[batch, h, w, c]`` batch left to right.

    >>> tf.image.flip_left_right(tf.tensor4d([1, 2, 3], [1, 1, 3, 1])).reshape([3]).array_sync()
    [3.0, 2.0, 1.0]
    """
    img = convert_to_tensor(image, "image", "flipLeftRight", "float32")
    _check_image_rank("flipLeftRight", img)
    return run_kernel(k.FLIP_LEFT_RIGHT, (img,))


@op(name="rotateWithOffset")
def rotate_with_offset(
    image: Any, radians: float, fill_value: Any = 0, center: Any = 0.5
) -> Tensor:
    """Rotates each image of a float32 ``[batch, h, w, c]`` batch counter-clockwise by
    ``radians`` about ``center`` (a fraction of the size, or ``[cx, cy]``), sampling the
    nearest pixel. Uncovered pixels take ``fill_value``: a number, or ``[r, g, b]`` (with
    alpha 255 in a fourth channel).

    >>> img = tf.tensor4d([1, 2, 3, 4], [1, 2, 2, 1])
    >>> tf.image.rotate_with_offset(img, 3.141592653589793, -1).reshape([4]).array_sync()
    [-1.0, -1.0, -1.0, 4.0]
    >>> img = tf.range(1, 10).reshape([1, 3, 3, 1])  # rotate about pixel (1, 1):
    >>> tf.image.rotate_with_offset(img, 3.141592653589793, 0, 1 / 3).reshape([9]).array_sync()
    [9.0, 8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0]
    """
    img = convert_to_tensor(image, "image", "rotateWithOffset", "float32")
    _check_image_rank("rotateWithOffset", img)
    angle = float_arg(radians, "rotateWithOffset", "radians")
    # TF.js's sin/cos of an infinite angle are NaN: every pixel takes the fill value.
    angle = angle if math.isfinite(angle) else math.nan
    if isinstance(fill_value, np.ndarray) and fill_value.ndim == 1:
        fill_value = fill_value.tolist()
    if isinstance(center, np.ndarray) and center.ndim == 1:
        center = center.tolist()
    if isinstance(fill_value, (list, tuple)):
        fill: Any = tuple(float_arg(v, "rotateWithOffset", "fillValue") for v in fill_value)
    else:
        fill = _number(fill_value, "rotateWithOffset", "fillValue", 0.0)
    if isinstance(center, (list, tuple)):
        if len(center) != 2:
            raise InvalidArgumentError(
                "Argument 'center' passed to 'rotate_with_offset' must be a number or an array "
                f"of 2 numbers [x, y], but got {describe(center)}"
            )
        where: Any = tuple(float_arg(v, "rotateWithOffset", "center") for v in center)
    else:
        where = _number(center, "rotateWithOffset", "center", 0.5)
    attrs = {"radians": angle, "fill_value": fill, "center": where}
    return run_kernel(k.ROTATE_WITH_OFFSET, (img,), attrs)


@op
def transform(
    image: Any,
    transforms: Any,
    interpolation: str = "nearest",
    fill_mode: str = "constant",
    fill_value: float = 0,
    output_shape: Any = None,
) -> Tensor:
    """Applies projective transforms to a float32 ``[batch, h, w, c]`` batch.

    Each row ``[a0, a1, a2, b0, b1, b2, c0, c1]`` of ``transforms`` (``[batch, 8]`` or
    ``[1, 8]``) maps output ``(x, y)`` to input ``((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2)
    / k)`` with ``k = c0 x + c1 y + 1``. ``interpolation``: ``'nearest'`` or ``'bilinear'``;
    ``fill_mode`` (``'constant'``, ``'reflect'``, ``'wrap'``, ``'nearest'``) says what points
    outside the image read; ``output_shape``: ``[h, w]`` (default: the input's).

    >>> img = tf.tensor4d([1, 2, 3, 4], [1, 2, 2, 1])
    >>> shift = [[1, 0, 1, 0, 1, 0, 0, 0]]  # each output pixel reads one to its right
    >>> tf.image.transform(img, shift).reshape([4]).array_sync()
    [2.0, 0.0, 4.0, 0.0]
    """
    img = convert_to_tensor(image, "image", "transform", "float32")
    tr = convert_to_tensor(transforms, "transforms", "transform", "float32")
    _check_image_rank("transform", img)
    _assert(
        _mode(fill_mode, _FILL_MODES),
        "Error in transform: fill_mode must be one of "
        f"{', '.join(repr(m) for m in _FILL_MODES)}, but got {_shown(fill_mode)}",
    )
    _assert(
        tr.rank == 2 and tr._shape[0] in (img._shape[0], 1) and tr._shape[1] == 8,
        "Error in transform: Input transform should be batch x 8 or 1 x 8",
        ShapeError,
    )
    _assert(
        output_shape is None or _length(output_shape) == 2,
        "Error in transform: output_shape must be [height, width] or None, but got "
        f"{_js(output_shape)}.",
        ShapeError,
    )
    out_hw = (
        tuple(img._shape[1:3])
        if output_shape is None
        else _pair(output_shape, "outputShape", "transform")
    )
    checked_shape([img._shape[0], *out_hw, img._shape[3]], "transform")
    # TF.js's kernel throws at the first output pixel (whose projection is always 1).
    if img._shape[0] * out_hw[0] * out_hw[1] * img._shape[3] > 0:
        _assert(
            _mode(interpolation, ("nearest", "bilinear")),
            f"Error in Transform: Expect 'nearest' or 'bilinear', but got {_shown(interpolation)}",
        )
    attrs = {
        "interpolation": interpolation,
        "fill_mode": fill_mode,
        "fill_value": _number(fill_value, "transform", "fillValue", 0.0),
        "output_shape": None if output_shape is None else out_hw,
    }
    return run_kernel(k.TRANSFORM, (img, tr), attrs)


# ---------------------------------------------------------------------------- color
@op(name="grayscaleToRGB")
def grayscale_to_rgb(image: Any) -> Tensor:
    """Repeats the single channel of a grayscale image (rank >= 2, last dimension 1) three
    times.

    >>> tf.image.grayscale_to_rgb(tf.tensor2d([[1], [2]])).array_sync()
    [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]]
    """

    img = convert_to_tensor(image, "image", "grayscaleToRGB")
    last = img._shape[-1] if img.rank > 0 else None
    _assert(
        img.rank >= 2,
        f"Error in grayscale_to_rgb: images must be at least rank 2, but got rank {img.rank}.",
        ShapeError,
    )
    _assert(
        last == 1,
        "Error in grayscale_to_rgb: last dimension of a grayscale image should be size 1, but "
        f"got size {last}.",
        ShapeError,
    )
    return tile(img, [1] * (img.rank - 1) + [3])


_GRAY_EQUATIONS = {
    2: "ij,j->i",
    3: "ijk,k->ij",
    4: "ijkl,l->ijk",
    5: "ijklm,m->ijkl",
    6: "ijklmn,n->ijklm",
}


@op(name="rgbToGrayscale")
def rgb_to_grayscale(image: Any) -> Tensor:
    """Converts RGB images (rank 2 to 6, last dimension 3) to grayscale with the luma weights
    ``[0.2989, 0.587, 0.114]``; the last dimension becomes 1 and the dtype is kept.

    >>> tf.image.rgb_to_grayscale(tf.tensor2d([[255, 255, 255]])).array_sync()
    [[254.97450256347656]]
    """

    img = convert_to_tensor(image, "image", "RGBToGrayscale")
    last = img._shape[-1] if img.rank > 0 else None
    _assert(
        img.rank >= 2,
        f"Error in RGBToGrayscale: images must be at least rank 2, but got rank {img.rank}.",
        ShapeError,
    )
    _assert(
        last == 3,
        "Error in RGBToGrayscale: last dimension of an RGB image should be size 3, but got "
        f"size {last}.",
        ShapeError,
    )
    orig_dtype = img.dtype
    flt = cast(img, "float32")
    weights = tensor1d([0.2989, 0.5870, 0.1140])
    equation = _GRAY_EQUATIONS.get(img.rank)
    _assert(equation is not None, "Not a valid tensor rank.", ShapeError)
    gray = expand_dims(einsum(equation, flt, weights), -1)
    return cast(gray, orig_dtype)


# ---------------------------------------------------------------------------- threshold
@op
def threshold(
    image: Any, method: str = "binary", inverted: bool = False, thresh_value: float = 0.5
) -> Tensor:
    """Binarizes a ``[h, w, 3]`` RGB or ``[h, w, 1]`` grayscale image: int32 255 where the
    gray level is above ``thresh_value * 255`` (at or below it if ``inverted``), else 0.
    ``method='otsu'`` picks the threshold from the image's histogram instead.

    >>> tf.image.threshold(tf.tensor3d([[[10], [200]]])).reshape([2]).array_sync()
    [0, 255]
    """

    img = convert_to_tensor(image, "image", "threshold")
    inverted = bool_arg(inverted, "threshold", "inverted")
    thresh = mul(tensor1d([_number(thresh_value, "threshold", "threshValue", 0.5)]), 255)
    _check_image_rank("threshold", img, 3)
    _assert(
        img._shape[2] in (3, 1),
        f"Error in threshold: image color channel must be equal to 3 or 1but got {img._shape[2]}.",
        ShapeError,
    )
    _assert(
        img.dtype in ("int32", "float32"),
        f"Error in dtype: image dtype must be int32 or float32, but got dtype {img.dtype}.",
        DTypeError,
    )
    _assert(
        _mode(method, ("otsu", "binary")),
        f"Method must be binary or otsu, but was {_shown(method)}",
    )
    if img._shape[2] == 3:
        r, g, b = split(img, [1, 1, 1], -1)
        grayscale = add(add(mul(r, 0.2989), mul(g, 0.5870)), mul(b, 0.1140))
    else:
        grayscale = image  # TF.js uses the argument itself here
    if method == "otsu":
        histogram = bincount(cast(round_(grayscale), "int32"), tensor([]), 256)
        thresh = _otsu(histogram, img._shape[0] * img._shape[1])
    condition = less_equal(grayscale, thresh) if inverted else greater(grayscale, thresh)
    return cast(mul(condition, 255), "int32")


def _otsu(histogram: Tensor, total: int) -> Tensor:
    """Otsu's threshold: the histogram split that maximizes the between-class variance.

    TF.js tries the 255 splits in a loop of about twenty ops each (110 ms here); this tries
    them all at once with the same float32 operations. Split ``k`` puts bins ``0..k`` in the
    first class. A class's count and its bins' weighted count are a ``sum`` over the
    histogram's row with the other class's bins zeroed: the same values summed as the loop's
    slice sums (the zeros change nothing, and ``sum`` accumulates in doubles, exactly for
    these whole numbers). The loop keeps a split only when its variance beats every earlier
    one's, starting from 0 (NaN never does): the first split of the largest variance, if
    that is above 0, else -1.
    """

    n = histogram.size
    bins = range_(0, n)  # float32, as the loop's ranges
    in_first = less_equal(bins, expand_dims(range_(0, n - 1), 1))  # [split, bin]
    weighted = mul(histogram, bins)
    zeros = fill([1, n], 0)
    count_first = sum_(where(in_first, histogram, zeros), 1)
    count_second = sum_(where(in_first, zeros, histogram), 1)
    weight_fg = div(count_first, total)
    weight_bg = div(count_second, total)
    mean_first = div(sum_(where(in_first, weighted, zeros), 1), count_first)
    mean_sec = div(sum_(where(in_first, zeros, weighted), 1), count_second)
    diff = sub(mean_first, mean_sec)
    between = mul(mul(mul(weight_fg, weight_bg), diff), diff)
    between = where(is_nan(between), fill([n - 1], 0), between)
    best = cast(arg_max(between), "float32")
    return reshape(where(greater(max_(between), 0), best, scalar(-1)), [1])


# ---------------------------------------------------------------------------- non-max suppression
def _nms_sanity(
    op_name: str,
    boxes: Tensor,
    scores: Tensor,
    max_output_size: Any,
    iou_threshold: Any,
    score_threshold: Any,
    soft_nms_sigma: Any = None,
) -> tuple[int, float, float, float]:
    """TF.js's ``nonMaxSuppSanityCheck``: defaults, ``max_output_size`` capped at the number
    of boxes, and the argument checks (with TF.js's messages where it has them)."""
    max_size = _max_output_size(max_output_size, op_name)
    iou = _unit_interval(iou_threshold, "iou_threshold", 0.5)
    score = _number(score_threshold, op_name, "scoreThreshold", -math.inf)
    num_boxes = boxes._shape[0] if boxes.rank > 0 else None
    if num_boxes is not None:
        max_size = min(max_size, num_boxes)
    _assert(
        boxes.rank == 2,
        f"boxes must be a 2D tensor, but was of rank '{boxes.rank}'",
        ShapeError,
    )
    _assert(
        boxes._shape[1] == 4,
        f"boxes must have 4 columns, but 2nd dimension was {boxes._shape[1]}",
        ShapeError,
    )
    _assert(scores.rank == 1, "scores must be a 1D tensor", ShapeError)
    _assert(
        scores._shape[0] == num_boxes,
        f"scores has incompatible shape with boxes. Expected {num_boxes}, but was "
        f"{scores._shape[0]}",
        ShapeError,
    )
    sigma = _unit_interval(soft_nms_sigma, "soft_nms_sigma", 0.0)
    # A negative count selects nothing, as in TF.js (+Infinity: every box).
    return int(max(0.0, max_size)), iou, score, sigma


def _max_output_size(value: Any, op_name: str) -> float:
    """``maxOutputSize``: an integer (a negative one selects nothing; +Infinity or a count
    past the number of boxes, every box)."""
    f = real_number(value)
    if f is None or f != f or (math.isfinite(f) and not f.is_integer()):
        raise (ArgumentTypeError if f is None else InvalidArgumentError)(
            f"Argument 'max_output_size' passed to '{snake_case(op_name)}' must be an integer, but got "
            f"{describe(value)}"
        )
    return f


def _unit_interval(value: Any, name: str, default: float) -> float:
    """``iouThreshold`` / ``softNmsSigma``: a number in [0, 1], with TF.js's message."""
    if value is None:
        return default
    f = real_number(value)
    if f is None or not 0 <= f <= 1:
        shown = f"'{js_str(value)}'" if isinstance(value, (str, int, float)) else describe(value)
        raise (ArgumentTypeError if f is None else InvalidArgumentError)(
            f"{name} must be in [0, 1], but was {shown}"
        )
    return f


def _nms_args(
    op_name: str,
    boxes: Any,
    scores: Any,
    max_output_size: Any,
    iou_threshold: Any,
    score_threshold: Any,
    soft_nms_sigma: Any = None,
    dtype: str = "numeric",
) -> tuple[Tensor, Tensor, Any, float, float, float]:
    """``boxes`` and ``scores`` as tensors, then ``_nms_sanity``'s ``(max_output_size,
    iou_threshold, score_threshold, soft_nms_sigma)``."""
    bx = convert_to_tensor(boxes, "boxes", op_name, dtype)
    sc = convert_to_tensor(scores, "scores", op_name, dtype)
    checked = _nms_sanity(
        op_name, bx, sc, max_output_size, iou_threshold, score_threshold, soft_nms_sigma
    )
    return (bx, sc, *checked)


def _nms_attrs(max_output_size: int, iou: float, score: float, **attrs: Any) -> dict[str, Any]:
    return {
        "max_output_size": max_output_size,
        "iou_threshold": iou,
        "score_threshold": score,
        **attrs,
    }


def _nms_on_host(
    bx: Tensor,
    sc: Tensor,
    max_output_size: Any,
    iou: float,
    score: float,
    sigma: float,
    pad_to_max_output_size: bool = False,
) -> tuple[list[int], list[float], int]:
    """The suppression run on the read-back values, as TF.js's ``*Async`` ops do."""
    return non_max_suppression_impl(
        bx.data_sync(), sc.data_sync(), max_output_size, iou, score, sigma, pad_to_max_output_size
    )


@op(name="nonMaxSuppression")
def non_max_suppression(
    boxes: Any,
    scores: Any,
    max_output_size: int,
    iou_threshold: float = 0.5,
    score_threshold: float = -math.inf,
) -> Tensor:
    """Greedily selects up to ``max_output_size`` boxes (``[n, 4]`` of ``[y1, x1, y2, x2]``)
    by descending score, dropping any whose IoU with a selected box reaches
    ``iou_threshold`` and any scoring at or below ``score_threshold``. int32 indices.

    >>> boxes = [[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 2, 1, 3]]
    >>> tf.image.non_max_suppression(boxes, [0.9, 0.8, 0.7], 3).array_sync()
    [0, 2]
    """
    bx, sc, max_out, iou, score_t, _ = _nms_args(
        "nonMaxSuppression",
        boxes,
        scores,
        max_output_size,
        iou_threshold,
        score_threshold,
        dtype="float32",
    )
    return run_kernel(k.NON_MAX_SUPPRESSION_V3, (bx, sc), _nms_attrs(max_out, iou, score_t))


@op(name="nonMaxSuppressionWithScore")
def non_max_suppression_with_score(
    boxes: Any,
    scores: Any,
    max_output_size: int,
    iou_threshold: float = 0.5,
    score_threshold: float = -math.inf,
    soft_nms_sigma: float = 0.0,
) -> NonMaxSuppressionWithScoreResult:
    """``non_max_suppression`` that also returns the selected scores; with
    ``soft_nms_sigma > 0`` (soft-NMS) overlapping boxes have their scores decayed by
    ``exp(-iou^2 / (2 sigma))`` instead of being dropped outright. Returns
    ``selected_indices`` and ``selected_scores``.

    >>> boxes = [[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 2, 1, 3]]
    >>> r = tf.image.non_max_suppression_with_score(boxes, [0.9, 0.8, 0.7], 3)
    >>> r.selected_indices.array_sync(), r['selected_scores'].shape
    ([0, 2], [2])
    """
    bx, sc, max_out, iou, score_t, sigma = _nms_args(
        "nonMaxSuppression",
        boxes,
        scores,
        max_output_size,
        iou_threshold,
        score_threshold,
        soft_nms_sigma,
    )
    attrs = _nms_attrs(max_out, iou, score_t, soft_nms_sigma=sigma)
    indices, selected = run_kernel(k.NON_MAX_SUPPRESSION_V5, (bx, sc), attrs)
    return NonMaxSuppressionWithScoreResult(selected_indices=indices, selected_scores=selected)


@op(name="nonMaxSuppressionPadded")
def non_max_suppression_padded(
    boxes: Any,
    scores: Any,
    max_output_size: int,
    iou_threshold: float = 0.5,
    score_threshold: float = -math.inf,
    pad_to_max_output_size: bool = False,
) -> NonMaxSuppressionPaddedResult:
    """``non_max_suppression`` that also returns how many boxes were selected
    (``valid_outputs``) and, with ``pad_to_max_output_size``, pads ``selected_indices`` with
    zeros to ``max_output_size`` (capped at the number of boxes).

    >>> boxes = [[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 2, 1, 3]]
    >>> r = tf.image.non_max_suppression_padded(boxes, [0.9, 0.8, 0.7], 3, 0.5, 0, True)
    >>> r.selected_indices.array_sync(), r.valid_outputs.array_sync()
    ([0, 2, 0], 2)
    """
    bx, sc, max_out, iou, score_t, _ = _nms_args(
        "nonMaxSuppression", boxes, scores, max_output_size, iou_threshold, score_threshold
    )
    pad = bool_arg(pad_to_max_output_size, "nonMaxSuppressionPadded", "padToMaxOutputSize")
    attrs = _nms_attrs(max_out, iou, score_t, pad_to_max_output_size=pad)
    indices, valid = run_kernel(k.NON_MAX_SUPPRESSION_V4, (bx, sc), attrs)
    return NonMaxSuppressionPaddedResult(selected_indices=indices, valid_outputs=valid)


@op(name="nonMaxSuppressionAsync")
def non_max_suppression_async(
    boxes: Any,
    scores: Any,
    max_output_size: int,
    iou_threshold: float = 0.5,
    score_threshold: float = -math.inf,
) -> Tensor:
    """``non_max_suppression`` computed on the host from the read-back boxes and scores (a
    plain synchronous call; TF.js's returns a Promise). Boxes and scores may be int32.

    >>> boxes = [[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 2, 1, 3]]
    >>> tf.image.non_max_suppression_async(boxes, [0.9, 0.8, 0.7], 3).array_sync()
    [0, 2]
    """

    bx, sc, *args = _nms_args(
        "nonMaxSuppressionAsync", boxes, scores, max_output_size, iou_threshold, score_threshold
    )
    indices, _, _ = _nms_on_host(bx, sc, *args)
    return tensor1d(indices, "int32")


@op(name="nonMaxSuppressionWithScoreAsync")
def non_max_suppression_with_score_async(
    boxes: Any,
    scores: Any,
    max_output_size: int,
    iou_threshold: float = 0.5,
    score_threshold: float = -math.inf,
    soft_nms_sigma: float = 0.0,
) -> NonMaxSuppressionWithScoreResult:
    """``non_max_suppression_with_score`` computed on the host (a plain synchronous call).

    >>> boxes = [[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 2, 1, 3]]
    >>> r = tf.image.non_max_suppression_with_score_async(boxes, [0.9, 0.8, 0.7], 3, 1, 0, 0.5)
    >>> r.selected_indices.array_sync()  # soft-NMS: box 1 is decayed below box 2
    [0, 2, 1]
    """

    bx, sc, *args = _nms_args(
        "nonMaxSuppressionAsync",
        boxes,
        scores,
        max_output_size,
        iou_threshold,
        score_threshold,
        soft_nms_sigma,
    )
    indices, selected, _ = _nms_on_host(bx, sc, *args)
    return NonMaxSuppressionWithScoreResult(
        selected_indices=tensor1d(indices, "int32"), selected_scores=tensor1d(selected)
    )


@op(name="nonMaxSuppressionPaddedAsync")
def non_max_suppression_padded_async(
    boxes: Any,
    scores: Any,
    max_output_size: int,
    iou_threshold: float = 0.5,
    score_threshold: float = -math.inf,
    pad_to_max_output_size: bool = False,
) -> NonMaxSuppressionPaddedResult:
    """``non_max_suppression_padded`` computed on the host (a plain synchronous call).

    >>> boxes = [[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 2, 1, 3]]
    >>> r = tf.image.non_max_suppression_padded_async(boxes, [0.9, 0.8, 0.7], 2)
    >>> r.selected_indices.array_sync(), r.valid_outputs.array_sync()
    ([0, 2], 2)
    """

    bx, sc, *args = _nms_args(
        "nonMaxSuppressionAsync", boxes, scores, max_output_size, iou_threshold, score_threshold
    )
    pad = bool_arg(pad_to_max_output_size, "nonMaxSuppressionPaddedAsync", "padToMaxOutputSize")
    indices, _, valid = _nms_on_host(bx, sc, *args, pad)
    return NonMaxSuppressionPaddedResult(
        selected_indices=tensor1d(indices, "int32"), valid_outputs=scalar(valid, "int32")
    )
