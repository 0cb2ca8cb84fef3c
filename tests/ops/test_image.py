"""Image ops (``tf.image``) against TF.js goldens, plus gradient checks, edge cases, errors
and properties vs NumPy references."""

from __future__ import annotations

import math
import zlib
from typing import Any, NamedTuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tidytensor as tf
from golden_util import call_case, case_ids, check_case, load_cases
from tidytensor.kernel_registry import get_gradient

CASES = load_cases("image")


@pytest.mark.parametrize(("case", "expected"), CASES, ids=case_ids(CASES))
def test_golden(case, expected):
    check_case(case, expected)


def _int_values(result: Any) -> list:
    return [int(v) for v in np.asarray(result.data_sync()).reshape(-1)]


EXACT = [(c, e) for c, e in CASES if e.get("dtype") == "int32"]


@pytest.mark.parametrize(("case", "expected"), EXACT, ids=case_ids(EXACT))
def test_golden_int32_exact(case, expected):
    """int32 results (indices, thresholds, int32 resizes) match TF.js exactly."""
    got = call_case(case)
    assert got.dtype == "int32"
    assert _int_values(got) == expected["values"]


def rand(shape, low=-2.0, high=2.0, seed=0):
    rng = np.random.default_rng(seed)
    return tf.tensor(rng.uniform(low, high, shape).astype(np.float32), list(shape))


# ---------------------------------------------------------------------------- gradient checks
class GradSpec(NamedTuple):
    name: str
    fn: Any
    shapes: list
    low: float = -2.0
    high: float = 2.0
    kernels: tuple = ()  # the kernels whose registered gradient this case exercises


RB, RN = "ResizeBilinear", "ResizeNearestNeighbor"
GRAD_OPS = [
    GradSpec(
        "resize_bilinear",
        lambda x: tf.image.resize_bilinear(x, [5, 4]),
        [[1, 3, 3, 2]],
        kernels=(RB,),
    ),
    GradSpec(
        "resize_bilinear_align_corners",
        lambda x: tf.image.resize_bilinear(x, [4, 7], True),
        [[2, 3, 4, 1]],
        kernels=(RB,),
    ),
    GradSpec(
        "resize_bilinear_half_pixel_centers",
        lambda x: tf.image.resize_bilinear(x, [7, 3], False, True),
        [[1, 4, 5, 2]],
        kernels=(RB,),
    ),
    GradSpec(
        "resize_bilinear_down_half_pixel_centers",
        lambda x: tf.image.resize_bilinear(x, [2, 3], half_pixel_centers=True),
        [[2, 5, 7, 1]],
        kernels=(RB,),
    ),
    GradSpec(
        "resize_bilinear_rank3_non_square",
        lambda x: tf.image.resize_bilinear(x, [3, 5]),
        [[2, 3, 2]],
        kernels=(RB,),
    ),
    GradSpec(
        "resize_bilinear_to_1x1_align",
        lambda x: tf.image.resize_bilinear(x, [1, 1], True),
        [[1, 3, 2, 2]],
        kernels=(RB,),
    ),
    GradSpec(
        "resize_nearest_neighbor",
        lambda x: tf.image.resize_nearest_neighbor(x, [5, 4]),
        [[1, 3, 3, 2]],
        kernels=(RN,),
    ),
    GradSpec(
        "resize_nearest_neighbor_align_corners",
        lambda x: tf.image.resize_nearest_neighbor(x, [5, 2], True),
        [[2, 3, 4, 1]],
        kernels=(RN,),
    ),
    GradSpec(
        "resize_nearest_neighbor_half_pixel_centers",
        lambda x: tf.image.resize_nearest_neighbor(x, [2, 5], False, True),
        [[1, 3, 3, 2]],
        kernels=(RN,),
    ),
    GradSpec(
        "resize_nearest_neighbor_batch_down",
        lambda x: tf.image.resize_nearest_neighbor(x, [2, 3]),
        [[3, 5, 6, 1]],
        kernels=(RN,),
    ),
    GradSpec(
        "resize_nearest_neighbor_rank3",
        lambda x: tf.image.resize_nearest_neighbor(x, [4, 1]),
        [[2, 3, 2]],
        kernels=(RN,),
    ),
    GradSpec("grayscale_to_rgb", lambda x: tf.image.grayscale_to_rgb(x), [[2, 3, 1]]),
    GradSpec("grayscale_to_rgb_rank4", lambda x: tf.image.grayscale_to_rgb(x), [[2, 1, 2, 1]]),
]


@pytest.mark.parametrize("spec", GRAD_OPS, ids=[s.name for s in GRAD_OPS])
def test_check_grads(spec):
    rng = np.random.default_rng(zlib.crc32(spec.name.encode()))
    args = [
        tf.tensor(rng.uniform(spec.low, spec.high, s).astype(np.float32), list(s))
        for s in spec.shapes
    ]
    tf.testing.check_grads(spec.fn, args)


def test_grad_table_covers_registered_gradients():
    """Every kernel of this family with a registered gradient is exercised above, and every
    differentiable op of the family appears in the table."""
    covered = {kernel for spec in GRAD_OPS for kernel in spec.kernels}
    for kernel in (RB, RN):
        assert get_gradient(kernel) is not None, kernel
        assert kernel in covered, kernel
    names = {s.name for s in GRAD_OPS}
    for op_name in ("resize_bilinear", "resize_nearest_neighbor", "grayscale_to_rgb"):
        assert any(n == op_name or n.startswith(op_name + "_") for n in names), op_name


def test_grad_runs_the_backward_kernels():
    x = rand([1, 3, 3, 1])
    for fn, kernel in (
        (lambda a: tf.image.resize_bilinear(a, [4, 4]), "ResizeBilinearGrad"),
        (lambda a: tf.image.resize_nearest_neighbor(a, [4, 4]), "ResizeNearestNeighborGrad"),
    ):
        prof = tf.profile(lambda fn=fn: tf.grad(fn)(x))
        assert kernel in prof.kernel_names


def test_bilinear_grad_of_non_square_images_has_their_shape():
    # TF.js 4.22's CPU kernel labels this gradient [1, 3, 2, 1] (width and height swapped),
    # so its tape throws; the values (in memory order) are the ones computed here.
    x = tf.tensor4d([1, 2, 3, 4, 5, 6], [1, 2, 3, 1])
    g = tf.grad(lambda a: tf.image.resize_bilinear(a, [3, 4]))(x)
    assert g.shape == [1, 2, 3, 1]
    np.testing.assert_allclose(
        g.data_sync(), [5 / 3, 5 / 3, 2, 2.0833333, 2.0833333, 2.5], rtol=1e-6
    )


def test_half_pixel_center_grads_are_the_adjoint_of_the_forward_pass():
    # TF.js 4.22's backward kernels ignore halfPixelCenters (it gives [1, .5, .5, .5, .25,
    # .25, .5, .25, .25] and [1, 1, 0, 1, 1, 0, 0, 0, 0] here), so its gradient is not the
    # forward pass's; tidytensor's is (rows 3 -> 2 sample at 0.25 and 1.75, or 0 and 2).
    sq = tf.tensor4d(list(range(1, 10)), [1, 3, 3, 1])
    g = tf.grad(lambda a: tf.image.resize_bilinear(a, [2, 2], False, True))(sq)
    w = np.array([0.75, 0.5, 0.75])
    np.testing.assert_allclose(g.data_sync(), np.outer(w, w).reshape(-1), rtol=1e-6)
    g = tf.grad(lambda a: tf.image.resize_nearest_neighbor(a, [2, 2], False, True))(sq)
    assert g.data_sync().tolist() == [1, 0, 1, 0, 0, 0, 1, 0, 1]


def test_nearest_grad_reads_each_batch_entry_of_dy():
    # TF.js 4.22 reads dy with the images' batch stride (here [.., 24, 15, 21, 12]).
    x = tf.tensor4d([1, 2, 3, 4, 5, 6, 7, 8], [2, 2, 2, 1])
    dy = tf.range(0, 18).reshape([2, 3, 3, 1])
    g = tf.grad(lambda a: tf.image.resize_nearest_neighbor(a, [3, 3]))(x, dy)
    assert g.data_sync().tolist() == [8, 7, 13, 8, 44, 25, 31, 17]


def test_nearest_grad_of_int32_images_is_refused_as_in_tfjs():
    # The backward kernel keeps the images' dtype, so the tape refuses an int32 gradient.
    x = tf.tensor4d([1, 2, 3, 4], [1, 2, 2, 1], "int32")
    with pytest.raises(tf.TidyTensorError, match="must have 'float32' dtype"):
        tf.grad(lambda a: tf.image.resize_nearest_neighbor(a, [3, 3]))(x)


def test_grads_leave_no_tensors_behind():
    x = rand([1, 3, 4, 2])
    with tf.testing.assert_no_leaks(1):
        g = tf.grad(lambda a: tf.image.resize_bilinear(a, [5, 2], True))(x)
    g.dispose()
    with tf.testing.assert_no_leaks(1):
        g = tf.grad(lambda a: tf.image.resize_nearest_neighbor(a, [5, 2]))(x)
    g.dispose()


# ---------------------------------------------------------------------------- resizing
def _nearest_reference(x, new_h, new_w):
    _, h, w, _ = x.shape
    rows = np.minimum(h - 1, np.floor(np.arange(new_h) * (h / new_h))).astype(int)
    cols = np.minimum(w - 1, np.floor(np.arange(new_w) * (w / new_w))).astype(int)
    return x[:, rows][:, :, cols]


def _bilinear_reference(x, new_h, new_w):
    _, h, w, _ = x.shape
    out = np.zeros((x.shape[0], new_h, new_w, x.shape[3]))
    for r in range(new_h):
        fy = r * h / new_h
        y0, y1 = int(math.floor(fy)), min(h - 1, int(math.ceil(fy)))
        for c in range(new_w):
            fx = c * w / new_w
            x0, x1 = int(math.floor(fx)), min(w - 1, int(math.ceil(fx)))
            top = x[:, y0, x0] * (1 - (fx - x0)) + x[:, y0, x1] * (fx - x0)
            bottom = x[:, y1, x0] * (1 - (fx - x0)) + x[:, y1, x1] * (fx - x0)
            out[:, r, c] = top * (1 - (fy - y0)) + bottom * (fy - y0)
    return out


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 2),
    st.integers(1, 6),
    st.integers(1, 6),
    st.integers(1, 3),
    st.integers(1, 9),
    st.integers(1, 9),
    st.integers(0, 2**31 - 1),
)
def test_resizes_match_numpy_references(b, h, w, c, new_h, new_w, seed):
    x = np.random.default_rng(seed).uniform(-5, 5, (b, h, w, c)).astype(np.float32)
    t = tf.tensor(x, [b, h, w, c])
    got = tf.image.resize_nearest_neighbor(t, [new_h, new_w]).numpy()
    np.testing.assert_array_equal(got, _nearest_reference(x, new_h, new_w))
    got = tf.image.resize_bilinear(t, [new_h, new_w]).numpy()
    np.testing.assert_allclose(got, _bilinear_reference(x, new_h, new_w), rtol=1e-5, atol=1e-5)


def test_resize_to_the_same_size_copies():
    x = rand([2, 3, 4, 2])
    for align in (False, True):
        tf.testing.assert_close(tf.image.resize_bilinear(x, [3, 4], align), x)
        tf.testing.assert_close(tf.image.resize_nearest_neighbor(x, [3, 4], align), x)
    tf.testing.assert_close(tf.image.resize_bilinear(x, [3, 4], False, True), x)


def test_resize_align_corners_keeps_corners():
    x = rand([1, 3, 5, 2])
    for fn in (tf.image.resize_bilinear, tf.image.resize_nearest_neighbor):
        y = fn(x, [7, 9], True).numpy()
        xs = x.numpy()
        for r, c, rr, cc in ((0, 0, 0, 0), (0, 8, 0, 4), (6, 0, 2, 0), (6, 8, 2, 4)):
            np.testing.assert_allclose(y[0, r, c], xs[0, rr, cc], rtol=1e-6)


def test_nearest_align_corners_rounds_halves_up():
    # 3 -> 5 with aligned corners samples at 0, .5, 1, 1.5, 2: JS's Math.round takes .5 up.
    x = tf.tensor4d([10, 20, 30], [1, 1, 3, 1])
    got = tf.image.resize_nearest_neighbor(x, [1, 5], True).data_sync().tolist()
    assert got == [10, 20, 20, 30, 30]


def test_resize_zero_size_output_and_rank3_shape():
    x = rand([2, 3, 1])
    assert tf.image.resize_bilinear(x, [0, 4]).shape == [0, 4, 1]
    assert tf.image.resize_nearest_neighbor(x, [5, 0]).shape == [5, 0, 1]
    assert tf.image.resize_bilinear(x, (4, 6)).shape == [4, 6, 1]


def test_resize_keywords_dtypes_and_kernels():
    x = tf.tensor3d([[[1], [2]], [[3], [4]]], dtype="int32")
    a = tf.image.resize_bilinear(x, size=[3, 3], align_corners=True)
    b = tf.image.resize_bilinear(x, [3, 3], True, False)
    tf.testing.assert_close(a, b)
    assert a.dtype == "float32"
    assert tf.image.resize_nearest_neighbor(x, [3, 3]).dtype == "int32"
    prof = tf.profile(lambda: tf.image.resize_bilinear(x, [3, 3]))
    assert [kp.name for kp in prof.kernels] == ["Reshape", "ResizeBilinear", "Reshape"]
    with tf.testing.assert_no_leaks(1):
        tf.image.resize_nearest_neighbor(x, [1, 1], half_pixel_centers=True)


@pytest.mark.parametrize(
    ("fn", "args", "error", "match"),
    [
        (tf.image.resize_bilinear, ([[1.0]], [2, 2]), tf.errors.ShapeError, "rank 3 or 4"),
        (tf.image.resize_bilinear, (np.ones((1, 2, 2, 1)), 4), tf.errors.ShapeError, "shape 4"),
        (
            tf.image.resize_bilinear,
            (np.ones((1, 2, 2, 1)), [2.5, 2]),
            tf.errors.InvalidArgumentError,
            "size must hold non-negative integers, but got 2.5,2",
        ),
        (
            tf.image.resize_nearest_neighbor,
            (np.ones((1, 2, 2, 1)), [-1, 2]),
            tf.errors.InvalidArgumentError,
            "non-negative integers",
        ),
        (
            tf.image.resize_nearest_neighbor,
            (tf.ones([1, 2, 2, 1], "bool"), [2, 2]),
            tf.errors.DTypeError,
            "`images` must have `int32` or `float32` as dtype",
        ),
        (
            tf.image.resize_nearest_neighbor,
            (np.ones((2, 2, 1)), [2, 2], True, True),
            tf.errors.InvalidArgumentError,
            "align_corners must be False",
        ),
    ],
)
def test_resize_errors(fn, args, error, match):
    with pytest.raises(error, match=match):
        fn(*args)


# ---------------------------------------------------------------------------- crop and resize
def test_crop_and_resize_full_box_equals_align_corners_resize():
    x = rand([2, 4, 5, 3])
    boxes = tf.tensor2d([[0, 0, 1, 1], [0, 0, 1, 1]])
    got = tf.image.crop_and_resize(x, boxes, tf.tensor1d([1, 0], "int32"), [6, 7])
    want = tf.image.resize_bilinear(x, [6, 7], True).numpy()[[1, 0]]
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)


def test_crop_and_resize_unread_pixels():
    # A negative box index reads outside TF.js's typed array (NaN); an index past the batch
    # leaves the crop at 0; points outside the image take the extrapolation value.
    img = tf.tensor4d([1, 2, 3, 4], [1, 2, 2, 1])
    got = tf.image.crop_and_resize(
        img, [[0, 0, 1, 1], [-0.5, 0, 1, 1]], [-1, -1], [2, 2], "bilinear", 7
    )
    np.testing.assert_array_equal(got.data_sync(), [np.nan] * 4 + [7, 7, np.nan, np.nan])
    got = tf.image.crop_and_resize(img, [[0, 0, 1, 1]], [1], [2, 2])
    assert got.data_sync().tolist() == [0, 0, 0, 0]
    got = tf.image.crop_and_resize(img, [[math.nan, 0, 1, 1]], [0], [2, 2], "nearest", 7)
    assert np.isnan(got.data_sync()).all()


def test_crop_and_resize_empty_and_memory():
    img = rand([1, 3, 3, 2])
    empty = tf.image.crop_and_resize(img, tf.zeros([0, 4]), tf.zeros([0], "int32"), [2, 2])
    assert empty.shape == [0, 2, 2, 2]
    with tf.testing.assert_no_leaks(1):
        tf.image.crop_and_resize(img, [[0, 0, 1, 1]], [0], [2, 2], extrapolation_value=1)
    prof = tf.profile(lambda: tf.image.crop_and_resize(img, [[0, 0, 1, 1]], [0], [2, 2]))
    assert prof.kernel_names == ["CropAndResize"]


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        (([1, 2], [[0, 0, 1, 1]], [0], [2, 2]), tf.errors.ShapeError, "image must be rank 4"),
        (
            (np.ones((1, 2, 2, 1)), [0, 0, 1, 1], [0], [2, 2]),
            tf.errors.ShapeError,
            r"boxes must have size \[4,4\] but had shape 4",
        ),
        (
            (np.ones((1, 2, 2, 1)), [[0, 0, 1, 1]], [[0]], [2, 2]),
            tf.errors.ShapeError,
            r"box_ind must have size \[1\] but had shape 1,1",
        ),
        (
            (np.ones((1, 2, 2, 1)), [[0, 0, 1, 1]], [0], [2]),
            tf.errors.InvalidArgumentError,
            "crop_size must be of length 2, but got length 1",
        ),
        (
            (np.ones((1, 2, 2, 1)), [[0, 0, 1, 1]], [0], 2),
            tf.errors.InvalidArgumentError,
            "crop_size must be of length 2, but got length None",
        ),
        (
            (np.ones((1, 2, 2, 1)), [[0, 0, 1, 1]], [0], [2, 0.5]),
            tf.errors.InvalidArgumentError,
            r"crop_size must be at least \[1,1\], but was 2,0.5",
        ),
        (
            (np.ones((1, 2, 2, 1)), [[0, 0, 1, 1]], [0], [2, 1.5]),
            tf.errors.InvalidArgumentError,
            "crop_size must hold non-negative integers",
        ),
        (
            (np.ones((1, 2, 2, 1)), [[0, 0, 1, 1]], [0], [2, 2], "area"),
            tf.errors.InvalidArgumentError,
            "method must be bilinear or nearest, but was area",
        ),
    ],
)
def test_crop_and_resize_errors(args, error, match):
    with pytest.raises(error, match=match):
        tf.image.crop_and_resize(*args)


# ---------------------------------------------------------------------------- flips, rotations
@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=4, max_size=4), st.integers(0, 2**31 - 1))
def test_flip_left_right_matches_numpy(shape, seed):
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    got = tf.image.flip_left_right(tf.tensor(x, shape)).numpy()
    np.testing.assert_array_equal(got, x[:, :, ::-1, :])


def test_flip_left_right_twice_is_identity_and_one_kernel():
    x = rand([2, 3, 4, 2])
    tf.testing.assert_close(tf.image.flip_left_right(tf.image.flip_left_right(x)), x)
    prof = tf.profile(lambda: tf.image.flip_left_right(x))
    assert prof.kernel_names == ["FlipLeftRight"]


def test_rotate_full_turn_and_fill_channels():
    x = rand([2, 4, 4, 3])
    tf.testing.assert_close(tf.image.rotate_with_offset(x, 2 * math.pi, 0, [3 / 8, 3 / 8]), x)
    # [r, g, b] fills channels 0-2, alpha 255 in channel 3, nothing (NaN) past it.
    got = tf.image.rotate_with_offset(tf.ones([1, 2, 2, 5]), 2.0, [10, 20, 30]).numpy()
    np.testing.assert_array_equal(got[0, 0, 0], [10, 20, 30, 255, np.nan])
    np.testing.assert_array_equal(got[0, 1, 1], [1, 1, 1, 1, 1])


def test_rotate_keywords_and_memory():
    x = rand([1, 3, 3, 1])
    a = tf.image.rotate_with_offset(x, 0.7, fill_value=2, center=[0.4, 0.6])
    b = tf.image.rotate_with_offset(x, 0.7, 2, (0.4, 0.6))
    tf.testing.assert_close(a, b)
    with tf.testing.assert_no_leaks(1):
        tf.image.rotate_with_offset([[[[1], [2]], [[3], [4]]]], 1.0)


@pytest.mark.parametrize(
    ("fn", "args", "error", "match"),
    [
        (
            tf.image.flip_left_right,
            (np.ones((2, 2, 2)),),
            tf.errors.ShapeError,
            "rank 4, but got rank 3",
        ),
        (
            tf.image.flip_left_right,
            (tf.ones([1, 1, 1, 1], "int32"),),
            tf.errors.DTypeError,
            "must be float32 tensor, but got int32 tensor",
        ),
        (tf.image.rotate_with_offset, (np.ones((2, 2)), 1), tf.errors.ShapeError, "rank 4"),
        (
            tf.image.rotate_with_offset,
            (tf.ones([1, 1, 1, 1], "bool"), 1),
            tf.errors.DTypeError,
            "must be float32 tensor, but got bool tensor",
        ),
    ],
)
def test_flip_and_rotate_errors(fn, args, error, match):
    with pytest.raises(error, match=match):
        fn(*args)


# ---------------------------------------------------------------------------- transform
def test_transform_applies_each_batch_entry():
    # TF.js 4.22's CPU kernel returns after the first image (the others stay filled).
    x = tf.tensor4d([1, 2, 3, 4, 5, 6, 7, 8], [2, 2, 2, 1])
    assert tf.image.transform(x, [[1, 0, 0, 0, 1, 0, 0, 0]]).data_sync().tolist() == list(
        range(1, 9)
    )
    shifts = [[1, 0, 1, 0, 1, 0, 0, 0], [1, 0, 0, 0, 1, 1, 0, 0]]
    got = tf.image.transform(x, shifts, "nearest", "constant", -1).data_sync().tolist()
    assert got == [2, -1, 4, -1, 7, 8, -1, -1]


def test_transform_identity_and_integer_shift_match_numpy():
    x = rand([1, 4, 5, 2])
    for interpolation in ("nearest", "bilinear"):
        tf.testing.assert_close(tf.image.transform(x, [[1, 0, 0, 0, 1, 0, 0, 0]], interpolation), x)
    got = tf.image.transform(x, [[1, 0, 2, 0, 1, 1, 0, 0]], "bilinear", "wrap").numpy()
    np.testing.assert_allclose(got, np.roll(x.numpy(), (-1, -2), axis=(1, 2)), rtol=1e-6)


def test_transform_output_shape_and_memory():
    x = rand([1, 3, 3, 1])
    assert tf.image.transform(x, [[1, 0, 0, 0, 1, 0, 0, 0]], output_shape=[2, 5]).shape == [
        1,
        2,
        5,
        1,
    ]
    empty = tf.image.transform(x, [[1, 0, 0, 0, 1, 0, 0, 0]], "cubic", output_shape=[0, 5])
    assert empty.shape == [1, 0, 5, 1]  # nothing sampled: TF.js never reaches its check
    with tf.testing.assert_no_leaks(1):
        tf.image.transform(x, [[1, 0, 0, 0, 1, 0, 0, 0]], fill_mode="reflect")


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        ((np.ones((3, 3, 1)), [[1, 0, 0, 0, 1, 0, 0, 0]]), {}, tf.errors.ShapeError, "rank 4"),
        (
            (np.ones((1, 3, 3, 1)), [1, 0, 0, 0, 1, 0, 0, 0]),
            {},
            tf.errors.ShapeError,
            "batch x 8 or 1 x 8",
        ),
        (
            (np.ones((1, 3, 3, 1)), [[1, 0, 0, 0, 1, 0, 0, 0]]),
            {"output_shape": [3]},
            tf.errors.ShapeError,
            r"output_shape must be \[height, width\] or None, but got 3\.",
        ),
        (
            (np.ones((1, 3, 3, 1)), [[1, 0, 0, 0, 1, 0, 0, 0]]),
            {"interpolation": "area"},
            tf.errors.InvalidArgumentError,
            "Expect 'nearest' or 'bilinear', but got area",
        ),
        (
            (np.ones((1, 3, 3, 1)), tf.ones([1, 8], "int32")),
            {},
            tf.errors.DTypeError,
            "'transforms' passed to 'transform' must be float32",
        ),
    ],
)
def test_transform_errors(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        tf.image.transform(*args, **kwargs)


# ---------------------------------------------------------------------------- color
def test_grayscale_rgb_round_trip_and_kernels():
    g = rand([2, 3, 1], 0, 255)
    rgb = tf.image.grayscale_to_rgb(g)
    np.testing.assert_array_equal(rgb.numpy(), np.tile(g.numpy(), (1, 1, 3)))
    back = tf.image.rgb_to_grayscale(rgb)
    np.testing.assert_allclose(back.numpy(), g.numpy() * 0.9999, rtol=1e-5)
    assert tf.profile(lambda: tf.image.grayscale_to_rgb(g)).kernel_names == ["Tile"]
    prof = tf.profile(lambda: tf.image.rgb_to_grayscale(rgb))
    assert "Einsum" in prof.kernel_names
    with tf.testing.assert_no_leaks(1):
        tf.image.rgb_to_grayscale(rgb)


def test_rgb_to_grayscale_keeps_dtype():
    x = tf.tensor2d([[255, 255, 255], [10, 20, 30]], dtype="int32")
    got = tf.image.rgb_to_grayscale(x)
    assert got.dtype == "int32"
    assert got.array_sync() == [[254], [18]]


@pytest.mark.parametrize(
    ("fn", "arg", "match"),
    [
        (tf.image.grayscale_to_rgb, 3.0, "at least rank 2, but got rank 0"),
        (tf.image.grayscale_to_rgb, np.ones((2, 2)), "should be size 1, but got size 2"),
        (tf.image.rgb_to_grayscale, [1, 2, 3], "at least rank 2, but got rank 1"),
        (tf.image.rgb_to_grayscale, np.ones((2, 1)), "should be size 3, but got size 1"),
        (tf.image.rgb_to_grayscale, np.ones((1,) * 7 + (3,)), "Not a valid tensor rank."),
    ],
)
def test_color_errors(fn, arg, match):
    with pytest.raises(tf.errors.ShapeError, match=match):
        fn(arg)


# ---------------------------------------------------------------------------- threshold
def test_threshold_binary_against_numpy():
    rgb = np.random.default_rng(3).integers(0, 256, (4, 5, 3)).astype(np.int32)
    gray = rgb[..., :1] * 0.2989 + rgb[..., 1:2] * 0.5870 + rgb[..., 2:] * 0.1140
    for inverted in (False, True):
        got = tf.image.threshold(tf.tensor(rgb, list(rgb.shape), "int32"), inverted=inverted)
        want = (gray <= 127.5) if inverted else (gray > 127.5)  # thresh_value 0.5 * 255
        assert got.dtype == "int32"
        np.testing.assert_array_equal(got.numpy(), want.astype(np.int32) * 255)


def test_threshold_otsu_splits_two_clusters_and_frees_its_temporaries():
    values = [5, 8, 12, 7, 200, 210, 190, 205, 9, 199, 6, 215]
    img = tf.tensor(values, [3, 4, 1], "int32")
    with tf.testing.assert_no_leaks(1):
        got = tf.image.threshold(img, "otsu")
    assert got.data_sync().tolist() == [0 if v < 100 else 255 for v in values]


def _otsu_by_the_loop(histogram: np.ndarray, total: int) -> float:
    """TF.js's Otsu loop (``threshold``'s ``otsu``), split by split, in float32 NumPy: each
    class's sums accumulate in doubles (the ``sum`` kernel's), then every step rounds to
    float32 as TF.js's ops do."""
    h = np.asarray(histogram, np.float32)
    bins = np.arange(h.size, dtype=np.float32)
    total32 = np.float32(total)
    best_thresh, best_var = -1, np.float32(0)
    with np.errstate(all="ignore"):
        for index in range(h.size - 1):
            first, second = h[: index + 1], h[index + 1 :]
            count_first = np.float32(first.sum(dtype=np.float64))
            count_second = np.float32(second.sum(dtype=np.float64))
            weight_fg, weight_bg = count_first / total32, count_second / total32
            sum_first = np.float32((first * bins[: index + 1]).sum(dtype=np.float64))
            sum_second = np.float32((second * bins[index + 1 :]).sum(dtype=np.float64))
            diff = sum_first / count_first - sum_second / count_second
            between = weight_fg * weight_bg * diff * diff
            if between > best_var:
                best_thresh, best_var = index, between
    return float(best_thresh)


def _histogram(seed: int, size: int, regime: str) -> np.ndarray:
    rng = np.random.default_rng(seed)
    high = {"small": 40, "huge": 2**26, "mixed": 2**26}[regime.removeprefix("sparse ")]
    counts = rng.integers(0, high, size, endpoint=True)
    if regime == "mixed":  # past 2**24 some, small the others
        counts = np.where(rng.random(size) < 0.5, counts % 41, counts)
    if regime.startswith("sparse"):
        counts = np.where(rng.random(size) < 0.9, 0, counts)
    return counts.astype(np.float32)  # float32 counts past 2**24 round, as bincount's do


@settings(max_examples=40)
@given(
    seed=st.integers(0, 2**32 - 1),
    size=st.sampled_from([256, 2, 3, 12]),
    regime=st.sampled_from(["small", "huge", "mixed", "sparse small", "sparse huge"]),
    extra=st.one_of(st.just(0), st.integers(0, 2**30)),
)
def test_otsu_takes_the_split_tfjs_loop_takes(seed, size, regime, extra):
    """All splits at once (``_otsu``) against TF.js's loop, split by split; ``extra``: pixels
    outside 0-255, which the histogram drops but the total counts."""
    from tidytensor.ops.image import _otsu

    histogram = _histogram(seed, size, regime)
    total = int(histogram.sum(dtype=np.float64)) + extra
    x = tf.tensor(histogram)
    got = tf.tidy(lambda: _otsu(x, total))
    assert got.shape == [1] and got.dtype == "float32"
    assert got.data_sync().tolist() == [_otsu_by_the_loop(histogram, total)]
    tf.dispose([x, got])


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        ((np.ones((2, 2)),), tf.errors.ShapeError, "rank 3, but got rank 2"),
        ((np.ones((2, 2, 4)),), tf.errors.ShapeError, "equal to 3 or 1but got 4"),
        (
            (tf.ones([1, 1, 1], "bool"),),
            tf.errors.DTypeError,
            "int32 or float32, but got dtype bool",
        ),
        ((np.ones((2, 2, 1)), "triangle"), tf.errors.InvalidArgumentError, "binary or otsu"),
    ],
)
def test_threshold_errors(args, error, match):
    with pytest.raises(error, match=match):
        tf.image.threshold(*args)


# ---------------------------------------------------------------------------- non-max suppression
def _iou(a, b):
    ya0, xa0, ya1, xa1 = min(a[0], a[2]), min(a[1], a[3]), max(a[0], a[2]), max(a[1], a[3])
    yb0, xb0, yb1, xb1 = min(b[0], b[2]), min(b[1], b[3]), max(b[0], b[2]), max(b[1], b[3])
    area_a, area_b = (ya1 - ya0) * (xa1 - xa0), (yb1 - yb0) * (xb1 - xb0)
    if area_a <= 0 or area_b <= 0:
        return 0.0
    inter = max(min(ya1, yb1) - max(ya0, yb0), 0) * max(min(xa1, xb1) - max(xa0, xb0), 0)
    return inter / (area_a + area_b - inter)


def _hard_nms_reference(boxes, scores, max_out, iou_t, score_t):
    order = sorted(
        (i for i in range(len(scores)) if scores[i] > score_t), key=lambda i: (-scores[i], i)
    )
    keep = []
    for i in order:
        if len(keep) >= max_out:
            break
        if all(_iou(boxes[i], boxes[j]) < iou_t for j in keep):
            keep.append(i)
    return keep


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 12),
    st.integers(0, 14),
    st.floats(0, 1),
    st.floats(-0.1, 0.9),
    st.integers(0, 2**31 - 1),
)
def test_hard_nms_matches_reference(n, max_out, iou_t, score_t, seed):
    rng = np.random.default_rng(seed)
    corners = rng.uniform(0, 4, (n, 4)).astype(np.float32)
    scores = rng.choice(np.float32([0.1, 0.3, 0.5, 0.7, 0.9]), n)  # with ties
    boxes_l = corners.astype(np.float64).tolist()
    scores_l = scores.astype(np.float64).tolist()
    want = _hard_nms_reference(boxes_l, scores_l, max_out, iou_t, score_t)
    b, s = tf.tensor(corners, [n, 4]), tf.tensor(scores, [n])
    assert tf.image.non_max_suppression(b, s, max_out, iou_t, score_t).data_sync().tolist() == want
    assert (
        tf.image.non_max_suppression_async(b, s, max_out, iou_t, score_t).data_sync().tolist()
        == want
    )
    r = tf.image.non_max_suppression_with_score(b, s, max_out, iou_t, score_t)
    assert r.selected_indices.data_sync().tolist() == want
    np.testing.assert_array_equal(r.selected_scores.data_sync(), scores[want])
    p = tf.image.non_max_suppression_padded(b, s, max_out, iou_t, score_t, True)
    cap = min(max_out, n)
    assert p.selected_indices.data_sync().tolist() == want + [0] * (cap - len(want))
    assert p.valid_outputs.array_sync() == len(want)


def test_soft_nms_decays_overlapping_scores():
    boxes = [[0, 0, 1, 1], [0, 0.5, 1, 1.5], [0, 5, 1, 6]]
    r = tf.image.non_max_suppression_with_score(boxes, [0.9, 0.8, 0.7], 3, 1.0, 0.0, 0.5)
    iou = 1 / 3
    decayed = np.float32(0.8) * math.exp(-0.5 / 0.5 * iou * iou)
    assert r.selected_indices.data_sync().tolist() == [0, 1, 2]
    np.testing.assert_allclose(r.selected_scores.data_sync(), [0.9, decayed, 0.7], rtol=1e-6)
    # A decayed score that falls to the threshold drops the box.
    r = tf.image.non_max_suppression_with_score(boxes, [0.9, 0.8, 0.7], 3, 1.0, 0.75, 0.5)
    assert r.selected_indices.data_sync().tolist() == [0]


def test_nms_results_are_records_and_async_matches_sync():
    rng = np.random.default_rng(7)
    corners = rng.uniform(0, 5, (15, 4)).astype(np.float32)
    scores = rng.uniform(0, 1, 15).astype(np.float32)
    for sync, async_, extra in (
        (
            tf.image.non_max_suppression_with_score,
            tf.image.non_max_suppression_with_score_async,
            (0.4, 0.1, 0.3),
        ),
        (
            tf.image.non_max_suppression_padded,
            tf.image.non_max_suppression_padded_async,
            (0.4, 0.1, True),
        ),
    ):
        a, b = sync(corners, scores, 10, *extra), async_(corners, scores, 10, *extra)
        assert type(a) is type(b) and list(a) == list(b)
        for key in a:
            assert getattr(a, key) is a[key]
            tf.testing.assert_close(a[key], b[key])
            assert a[key].dtype == b[key].dtype
    r = tf.image.non_max_suppression_padded(corners, scores, 4)
    assert sorted(r) == ["selected_indices", "valid_outputs"] and r.valid_outputs.shape == []
    assert "valid_outputs=" in repr(r)
    with pytest.raises(AttributeError, match="no field 'scores'"):
        _ = r.scores


def test_nms_results_survive_tidy_and_dispose():
    boxes, scores = [[0, 0, 1, 1], [0, 0, 1, 1]], [0.5, 0.6]
    before = tf.memory().num_tensors
    r = tf.tidy(lambda: tf.image.non_max_suppression_with_score(boxes, scores, 2))
    assert tf.memory().num_tensors == before + 2
    assert r.selected_indices.data_sync().tolist() == [1]
    tf.dispose(r)
    assert tf.memory().num_tensors == before


def test_nms_kernels_and_memory():
    b, s = tf.tensor2d([[0, 0, 1, 1], [0, 0.1, 1, 1.1]]), tf.tensor1d([0.9, 0.8])
    cases = [
        (lambda: tf.image.non_max_suppression(b, s, 2), ["NonMaxSuppressionV3"], 1),
        (lambda: tf.image.non_max_suppression_with_score(b, s, 2), ["NonMaxSuppressionV5"], 2),
        (lambda: tf.image.non_max_suppression_padded(b, s, 2), ["NonMaxSuppressionV4"], 2),
        # The async forms run no kernel: TF.js calls the CPU implementation on read-back data.
        (lambda: tf.image.non_max_suppression_async(b, s, 2), [], 1),
        (lambda: tf.image.non_max_suppression_with_score_async(b, s, 2), [], 2),
        (lambda: tf.image.non_max_suppression_padded_async(b, s, 2), [], 2),
    ]
    for fn, kernels, new in cases:
        prof = tf.profile(fn)
        assert prof.kernel_names == kernels
        with tf.testing.assert_no_leaks(new):
            fn()


def test_nms_keywords_and_none_defaults():
    boxes = [[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 2, 1, 3]]
    a = tf.image.non_max_suppression(
        boxes, [0.9, 0.8, 0.7], max_output_size=3, score_threshold=0.75
    )
    assert a.data_sync().tolist() == [0]
    b = tf.image.non_max_suppression(boxes, [0.9, 0.8, 0.7], 3, None, None)
    assert b.data_sync().tolist() == [0, 2]
    c = tf.image.non_max_suppression_padded_async(
        boxes, [0.9, 0.8, 0.7], 3, pad_to_max_output_size=True
    )
    assert c.selected_indices.data_sync().tolist() == [0, 2, 0]
    d = tf.image.non_max_suppression_with_score_async(
        boxes, [0.9, 0.8, 0.7], 3, soft_nms_sigma=None
    )
    assert d.selected_indices.data_sync().tolist() == [0, 2]


@pytest.mark.parametrize(
    "fn",
    [
        tf.image.non_max_suppression,
        tf.image.non_max_suppression_async,
        tf.image.non_max_suppression_with_score,
        tf.image.non_max_suppression_with_score_async,
        tf.image.non_max_suppression_padded,
        tf.image.non_max_suppression_padded_async,
    ],
)
def test_nms_errors(fn):
    boxes, scores = np.zeros((3, 4), np.float32), np.ones(3, np.float32)
    with pytest.raises(
        tf.errors.InvalidArgumentError, match="iou_threshold must be in \\[0, 1\\], but was 'nan'"
    ):
        fn(boxes, scores, 2, math.nan)
    with pytest.raises(
        tf.errors.ShapeError, match="boxes must be a 2D tensor, but was of rank '3'"
    ):
        fn(np.zeros((1, 3, 4)), scores, 2)
    with pytest.raises(
        tf.errors.ShapeError, match="boxes must have 4 columns, but 2nd dimension was 5"
    ):
        fn(np.zeros((3, 5)), scores, 2)
    with pytest.raises(tf.errors.ShapeError, match="scores must be a 1D tensor"):
        fn(boxes, 1.0, 2)
    with pytest.raises(tf.errors.ShapeError, match="Expected 3, but was 4"):
        fn(boxes, np.ones(4), 2)


def test_nms_sigma_and_dtype_errors():
    boxes, scores = np.zeros((3, 4), np.float32), np.ones(3, np.float32)
    for fn in (
        tf.image.non_max_suppression_with_score,
        tf.image.non_max_suppression_with_score_async,
    ):
        with pytest.raises(
            tf.errors.InvalidArgumentError,
            match="soft_nms_sigma must be in \\[0, 1\\], but was '-1'",
        ):
            fn(boxes, scores, 2, 0.5, 0, -1)
    with pytest.raises(
        tf.errors.DTypeError, match="'scores' passed to 'non_max_suppression' must be float32"
    ):
        tf.image.non_max_suppression(boxes, tf.ones([3], "int32"), 2)
    with pytest.raises(
        tf.errors.DTypeError, match="'boxes' passed to 'non_max_suppression_async' must be numeric"
    ):
        tf.image.non_max_suppression_async(tf.tensor([["a"] * 4]), [1.0], 1)


# ---------------------------------------------------------------------------- namespace
def test_namespace_lists_the_fifteen_ops():
    assert sorted(tf.image.__all__) == sorted(
        """crop_and_resize flip_left_right grayscale_to_rgb rgb_to_grayscale rotate_with_offset
        non_max_suppression non_max_suppression_async non_max_suppression_with_score
        non_max_suppression_with_score_async non_max_suppression_padded
        non_max_suppression_padded_async resize_bilinear resize_nearest_neighbor threshold
        transform""".split()
    )
    for name in tf.image.__all__:
        assert callable(getattr(tf.image, name)), name


def test_sizes_may_be_numpy_values():
    x = tf.ones([1, 2, 2, 1])
    assert tf.image.resize_bilinear(x, np.array([3, 4])).shape == [1, 3, 4, 1]
    assert tf.image.resize_nearest_neighbor(x, (np.int64(1), 5)).shape == [1, 1, 5, 1]
    assert tf.image.crop_and_resize(x, [[0, 0, 1, 1]], [0], np.array([2, 3])).shape == [1, 2, 3, 1]
    assert tf.image.transform(
        x, [[1, 0, 0, 0, 1, 0, 0, 0]], output_shape=np.array([3, 1])
    ).shape == [
        1,
        3,
        1,
        1,
    ]
    with pytest.raises(tf.errors.ShapeError, match="new shape must be 2D, but got shape 3,3,3"):
        tf.image.resize_bilinear(x, np.array([3, 3, 3]))
