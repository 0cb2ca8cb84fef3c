"""Image kernels: resizing (and its backward kernels), crop-and-resize, flips, rotations,
projective transforms and non-max suppression.

Coordinates are computed in float64, as TF.js's CPU kernels compute them in JS doubles, and
results are stored as TF.js stores them (float32 unless a kernel keeps the image's dtype).
``js_round`` is JavaScript's ``Math.round`` (halves go up), which the nearest-neighbour paths
use. The backward kernels are the exact adjoints of the forward ones (TF.js's CPU kernels
compute the same sums, but ignore ``half_pixel_centers``; see ``resize_bilinear_grad``).

Non-max suppression is a greedy loop over boxes on the host (``non_max_suppression_impl``),
also called directly by the ``*_async`` ops, as TF.js calls its CPU implementation.
"""

from __future__ import annotations

import bisect
import math

import numpy as np

from ... import kernel_names as k


def _host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


def js_round(v, xp):
    """JavaScript's ``Math.round`` on a float64 array: the nearest integer, halves up."""
    f = xp.floor(v)
    return xp.where(v - f >= 0.5, f + 1, f)


# ---------------------------------------------------------------------------- resize
def _ratio(new: int, old: int, align_corners: bool) -> float:
    eff_in = old - 1 if (align_corners and new > 1) else old
    eff_out = new - 1 if (align_corners and new > 1) else new
    return eff_in / eff_out if eff_out else 0.0


def _bilinear_axis(new: int, old: int, align_corners: bool, half_pixel_centers: bool, xp):
    """Per output row (or column): the lower and upper source index and the lerp weight."""
    ratio = _ratio(new, old, align_corners)
    r = xp.arange(new, dtype=xp.float64)
    src = ratio * (r + 0.5) - 0.5 if half_pixel_centers else ratio * r
    lo = xp.maximum(0.0, xp.floor(src))
    frac = src - lo
    hi = xp.minimum(float(old - 1), xp.ceil(src))
    return lo.astype(xp.int64), hi.astype(xp.int64), frac


def _nearest_axis(new: int, old: int, align_corners: bool, half_pixel_centers: bool, xp):
    ratio = _ratio(new, old, align_corners)
    r = xp.arange(new, dtype=xp.float64)
    src = ratio * (r + 0.5) if half_pixel_centers else ratio * r
    idx = xp.minimum(float(old - 1), js_round(src, xp) if align_corners else xp.floor(src))
    if half_pixel_centers:
        idx = xp.maximum(0.0, idx)
    return idx.astype(xp.int64)


def resize_bilinear(images, *, xp, align_corners, half_pixel_centers, size):
    batch, old_h, old_w, channels = images.shape
    new_h, new_w = int(size[0]), int(size[1])
    out_shape = (batch, new_h, new_w, channels)
    if batch * new_h * new_w * channels == 0:
        return xp.zeros(out_shape, dtype=xp.float32)
    if old_h == 0 or old_w == 0:  # TF.js reads past the (empty) image: NaN
        return xp.full(out_shape, xp.nan, dtype=xp.float32)
    top, bottom, row_frac = _bilinear_axis(new_h, old_h, align_corners, half_pixel_centers, xp)
    left, right, col_frac = _bilinear_axis(new_w, old_w, align_corners, half_pixel_centers, xp)
    x = images.astype(xp.float64)
    top_rows, bottom_rows = x[:, top], x[:, bottom]
    cf = col_frac[None, None, :, None]
    rf = row_frac[None, :, None, None]
    tl, tr = top_rows[:, :, left], top_rows[:, :, right]
    upper = tl + (tr - tl) * cf
    bl, br = bottom_rows[:, :, left], bottom_rows[:, :, right]
    lower = bl + (br - bl) * cf
    return (upper + (lower - upper) * rf).astype(xp.float32)


def _lerp_matrix(lo, hi, frac, old: int, xp):
    """``m[r, i]``: the weight of source index ``i`` in output index ``r``."""
    cols = xp.arange(old)[None, :]
    return (lo[:, None] == cols) * (1.0 - frac)[:, None] + (hi[:, None] == cols) * frac[:, None]


def _adjoint(dy, rows, cols, xp):
    """``dx[b, h, w, d] = sum_{r, c} rows[r, h] * dy[b, r, c, d] * cols[c, w]``."""
    t = xp.tensordot(dy.astype(xp.float64), rows, axes=([1], [0]))  # b, c, d, h
    t = xp.tensordot(t, cols, axes=([1], [0]))  # b, d, h, w
    return xp.transpose(t, (0, 2, 3, 1))


def resize_bilinear_grad(images, dy, *, xp, align_corners, half_pixel_centers=False, **_):
    """The gradient of ``resize_bilinear`` for its images: each output pixel's upstream value
    is spread back onto the (up to) four source pixels with the forward pass's weights.

    TF.js's CPU kernel computes these sums for ``half_pixel_centers=False`` but ignores the
    flag (so its gradient does not match its forward pass when the flag is set) and labels the
    result ``[batch, width, height, depth]``; here it is the true adjoint, of the input's shape.
    """
    batch, x_h, x_w, depth = images.shape
    y_h, y_w = dy.shape[1], dy.shape[2]
    if images.size == 0 or dy.size == 0:
        return xp.zeros(images.shape, dtype=xp.float32)
    top, bottom, row_frac = _bilinear_axis(y_h, x_h, align_corners, half_pixel_centers, xp)
    left, right, col_frac = _bilinear_axis(y_w, x_w, align_corners, half_pixel_centers, xp)
    rows = _lerp_matrix(top, bottom, row_frac, x_h, xp)
    cols = _lerp_matrix(left, right, col_frac, x_w, xp)
    return _adjoint(dy, rows, cols, xp).astype(xp.float32)


def resize_nearest_neighbor(images, *, xp, align_corners, half_pixel_centers, size):
    batch, old_h, old_w, channels = images.shape
    new_h, new_w = int(size[0]), int(size[1])
    out_shape = (batch, new_h, new_w, channels)
    if batch * new_h * new_w * channels == 0:
        return xp.zeros(out_shape, dtype=images.dtype)
    if old_h == 0 or old_w == 0:
        return xp.full(out_shape, xp.nan if images.dtype.kind == "f" else 0, dtype=images.dtype)
    rows = _nearest_axis(new_h, old_h, align_corners, half_pixel_centers, xp)
    cols = _nearest_axis(new_w, old_w, align_corners, half_pixel_centers, xp)
    return images[:, rows][:, :, cols]


def resize_nearest_neighbor_grad(images, dy, *, xp, align_corners, half_pixel_centers=False, **_):
    """The gradient of ``resize_nearest_neighbor`` for its images: each source pixel collects
    the upstream values of the output pixels that copied it. The result has the images' dtype,
    as in TF.js (whose CPU kernel ignores ``half_pixel_centers`` and, for a batch of more
    than one, reads ``dy`` with the images' batch stride; neither is copied here)."""
    batch, x_h, x_w, depth = images.shape
    y_h, y_w = dy.shape[1], dy.shape[2]
    if images.size == 0 or dy.size == 0:
        return xp.zeros(images.shape, dtype=images.dtype)
    r = _nearest_axis(y_h, x_h, align_corners, half_pixel_centers, xp)
    c = _nearest_axis(y_w, x_w, align_corners, half_pixel_centers, xp)
    rows = (r[:, None] == xp.arange(x_h)[None, :]).astype(xp.float64)
    cols = (c[:, None] == xp.arange(x_w)[None, :]).astype(xp.float64)
    return _adjoint(dy, rows, cols, xp).astype(images.dtype)


# ---------------------------------------------------------------------------- crop and resize
def crop_and_resize(image, boxes, box_ind, *, xp, crop_size, method, extrapolation_value):
    batch, height, width, channels = image.shape
    num_boxes = boxes.shape[0]
    crop_h, crop_w = int(crop_size[0]), int(crop_size[1])
    out_shape = (num_boxes, crop_h, crop_w, channels)
    if num_boxes * crop_h * crop_w * channels == 0:
        return xp.zeros(out_shape, dtype=xp.float32)
    b = boxes.astype(xp.float64)
    y1, x1, y2, x2 = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
    ind = box_ind.astype(xp.int64)
    if crop_h > 1:
        h_scale = (y2 - y1) * (height - 1) / (crop_h - 1)
        ys = xp.arange(crop_h, dtype=xp.float64)
        y_in = (y1 * (height - 1))[:, None] + ys[None, :] * h_scale[:, None]
    else:
        y_in = (0.5 * (y1 + y2) * (height - 1))[:, None]
    if crop_w > 1:
        w_scale = (x2 - x1) * (width - 1) / (crop_w - 1)
        xs = xp.arange(crop_w, dtype=xp.float64)
        x_in = (x1 * (width - 1))[:, None] + xs[None, :] * w_scale[:, None]
    else:
        x_in = (0.5 * (x1 + x2) * (width - 1))[:, None]
    # Out-of-image sample points take the extrapolation value; NaN points and negative box
    # indices read outside TF.js's typed array (undefined, stored as NaN).
    y_out = (y_in < 0) | (y_in > height - 1)
    x_out = (x_in < 0) | (x_in > width - 1)
    unread = (xp.isnan(y_in)[:, :, None] | xp.isnan(x_in)[:, None, :]) | (ind < 0)[:, None, None]
    if image.size == 0:
        values = xp.full(out_shape, xp.nan, dtype=xp.float64)
    else:
        img = image.astype(xp.float64)
        bi = xp.clip(ind, 0, batch - 1)[:, None, None]

        def idx(v, size):
            v = xp.where(xp.isnan(v), 0.0, v)
            return xp.clip(v, 0, size - 1).astype(xp.int64)

        def at(yi, xi):
            return img[bi, yi[:, :, None], xi[:, None, :]]

        if method == "bilinear":
            top, bottom = xp.floor(y_in), xp.ceil(y_in)
            left, right = xp.floor(x_in), xp.ceil(x_in)
            y_lerp = (y_in - top)[:, :, None, None]
            x_lerp = (x_in - left)[:, None, :, None]
            t, bm = idx(top, height), idx(bottom, height)
            lf, rt = idx(left, width), idx(right, width)
            tl, tr, bl, br = at(t, lf), at(t, rt), at(bm, lf), at(bm, rt)
            upper = tl + (tr - tl) * x_lerp
            lower = bl + (br - bl) * x_lerp
            values = upper + (lower - upper) * y_lerp
        else:
            values = at(idx(js_round(y_in, xp), height), idx(js_round(x_in, xp), width))
    values = xp.where(unread[..., None], xp.nan, values)
    outside = (y_out[:, :, None] | x_out[:, None, :])[..., None]
    values = xp.where(outside, float(np.float32(extrapolation_value)), values)
    values = xp.where((ind >= batch)[:, None, None, None], 0.0, values)
    return values.astype(xp.float32)


# ---------------------------------------------------------------------------- flips, rotations
def flip_left_right(image, *, xp):
    return image[:, :, ::-1, :].copy()


def _channel_fill(fill_value, channels: int, xp):
    """The per-channel fill of ``rotate_with_offset``: a number for every channel, or
    ``[r, g, b]`` with an opaque alpha (255) in channel 3 and NaN past the list."""
    if isinstance(fill_value, (list, tuple)):
        values = []
        for ch in range(channels):
            if ch == 3:
                values.append(255.0)
            else:
                values.append(float(fill_value[ch]) if ch < len(fill_value) else math.nan)
        return xp.asarray(values, dtype=xp.float64)
    return xp.full((channels,), float(fill_value), dtype=xp.float64)


def rotate_with_offset(image, *, xp, radians, fill_value, center):
    batch, height, width, channels = image.shape
    if image.size == 0:
        return image.copy()
    cx_f = center if not isinstance(center, (list, tuple)) else center[0]
    cy_f = center if not isinstance(center, (list, tuple)) else center[1]
    center_x, center_y = width * cx_f, height * cy_f
    sin_f, cos_f = math.sin(radians), math.cos(radians)
    x = xp.arange(width, dtype=xp.float64)[None, :]
    y = xp.arange(height, dtype=xp.float64)[:, None]
    coord_x = (x - center_x) * cos_f - (y - center_y) * sin_f
    coord_y = (x - center_x) * sin_f + (y - center_y) * cos_f
    coord_x = js_round(coord_x + center_x, xp)
    coord_y = js_round(coord_y + center_y, xp)
    inside = (coord_x >= 0) & (coord_x < width) & (coord_y >= 0) & (coord_y < height)
    ys = xp.where(inside, coord_y, 0).astype(xp.int64)
    xs = xp.where(inside, coord_x, 0).astype(xp.int64)
    moved = image[:, ys, xs, :]
    fill = _channel_fill(fill_value, channels, xp).astype(image.dtype)
    return xp.where(inside[None, :, :, None], moved, fill[None, None, None, :])


# ---------------------------------------------------------------------------- transform
def _map_coord(c, size: int, fill_mode: str, xp):
    """Where an output pixel's source coordinate lands for each fill mode (TF's image_ops)."""
    if fill_mode == "reflect":
        if size <= 1:
            c = xp.where((c < 0) | (c > size - 1), 0.0, c)
        else:
            sz2 = 2.0 * size
            neg = c < 0
            cn = sz2 * xp.trunc(-c / sz2) + c
            cn = xp.where(cn < -size, cn + sz2, -cn - 1)
            big = c > size - 1
            cb = c - sz2 * xp.trunc(c / sz2)
            cb = xp.where(cb >= size, sz2 - cb - 1, cb)
            c = xp.where(neg, cn, xp.where(big, cb, c))
        return xp.maximum(0.0, xp.minimum(c, size - 1.0))
    if fill_mode == "wrap":
        if size <= 1:
            c = xp.where((c < 0) | (c > size - 1), 0.0, c)
        else:
            sz = size - 1.0
            cn = c + size * (xp.trunc(-c / sz) + 1)
            cb = c - size * xp.trunc(c / sz)
            c = xp.where(c < 0, cn, xp.where(c > size - 1, cb, c))
        return xp.maximum(0.0, xp.minimum(c, size - 1.0))
    if fill_mode == "nearest":
        return xp.maximum(0.0, xp.minimum(c, size - 1.0))
    return c  # 'constant' (and any other mode)


def transform(image, transforms, *, xp, interpolation, fill_mode, fill_value, output_shape):
    """Projective transforms of each image (TF.js's CPU kernel, for every batch entry: TF.js
    4.22 returns after the first one and leaves the others filled with ``fill_value``)."""
    batch, height, width, channels = image.shape
    out_h, out_w = (height, width) if output_shape is None else map(int, output_shape)
    out_shape = (batch, out_h, out_w, channels)
    fill = float(np.float32(fill_value))
    if batch * out_h * out_w * channels == 0:
        return xp.full(out_shape, fill, dtype=image.dtype)
    t = transforms.astype(xp.float64)
    if t.shape[0] == 1:
        t = xp.broadcast_to(t, (batch, 8))
    t = t[:, :, None, None]
    ox = xp.arange(out_w, dtype=xp.float64)[None, None, :]
    oy = xp.arange(out_h, dtype=xp.float64)[None, :, None]
    with np.errstate(all="ignore"):
        projection = t[:, 6] * ox + t[:, 7] * oy + 1
        in_x = (t[:, 0] * ox + t[:, 1] * oy + t[:, 2]) / projection
        in_y = (t[:, 3] * ox + t[:, 4] * oy + t[:, 5]) / projection
        x = _map_coord(in_x, width, fill_mode, xp)
        y = _map_coord(in_y, height, fill_mode, xp)
    img = image.astype(xp.float64)
    b = xp.arange(batch)[:, None, None]

    def read(yi, xi):
        ok = (yi >= 0) & (yi < height) & (xi >= 0) & (xi < width)
        ys = xp.where(ok, yi, 0).astype(xp.int64)
        xs = xp.where(ok, xi, 0).astype(xp.int64)
        if image.size == 0:
            return xp.full(out_shape, fill, dtype=xp.float64)
        return xp.where(ok[..., None], img[b, ys, xs], fill)

    with np.errstate(all="ignore"):
        if interpolation == "nearest":
            values = read(js_round(y, xp), js_round(x, xp))
        else:
            y0, x0 = xp.floor(y), xp.floor(x)
            y1, x1 = y0 + 1, x0 + 1
            wx1, wx0 = (x1 - x)[..., None], (x - x0)[..., None]
            wy1, wy0 = (y1 - y)[..., None], (y - y0)[..., None]
            upper = wx1 * read(y0, x0) + wx0 * read(y0, x1)
            lower = wx1 * read(y1, x0) + wx0 * read(y1, x1)
            values = wy1 * upper + wy0 * lower
    values = xp.where((projection == 0)[..., None], fill, values)
    return values.astype(image.dtype)


# ---------------------------------------------------------------------------- non-max suppression
def _iou(boxes: list, i: int, j: int) -> float:
    bi, bj = boxes[4 * i : 4 * i + 4], boxes[4 * j : 4 * j + 4]
    ymin_i, xmin_i = min(bi[0], bi[2]), min(bi[1], bi[3])
    ymax_i, xmax_i = max(bi[0], bi[2]), max(bi[1], bi[3])
    ymin_j, xmin_j = min(bj[0], bj[2]), min(bj[1], bj[3])
    ymax_j, xmax_j = max(bj[0], bj[2]), max(bj[1], bj[3])
    area_i = (ymax_i - ymin_i) * (xmax_i - xmin_i)
    area_j = (ymax_j - ymin_j) * (xmax_j - xmin_j)
    if area_i <= 0 or area_j <= 0:
        return 0.0
    inter = max(min(ymax_i, ymax_j) - max(ymin_i, ymin_j), 0.0) * max(
        min(xmax_i, xmax_j) - max(xmin_i, xmin_j), 0.0
    )
    return inter / (area_i + area_j - inter)


def non_max_suppression_impl(
    boxes,
    scores,
    max_output_size,
    iou_threshold,
    score_threshold,
    soft_nms_sigma=0.0,
    pad_to_max_output_size=False,
):
    """Greedy (soft-)NMS on host values, TF.js's ``nonMaxSuppressionImpl_``.

    Candidates above ``score_threshold`` are taken by descending score (ties: lower index
    first); one is dropped when its IoU with a selected box reaches ``iou_threshold``. With
    ``soft_nms_sigma > 0`` the overlaps decay a candidate's score by ``exp(-iou^2 / (2 sigma))``
    instead, and a decayed candidate goes back in line. Returns ``(indices, scores, valid)``.
    """
    boxes = [float(v) for v in _host(boxes).reshape(-1).tolist()]
    scores = [float(v) for v in _host(scores).reshape(-1).tolist()]
    # Ascending by (score, -index): popping from the end gives the best, lowest-index first.
    cands = sorted((s, -i, 0) for i, s in enumerate(scores) if s > score_threshold)
    scale = -0.5 / soft_nms_sigma if soft_nms_sigma > 0 else 0.0
    selected: list[int] = []
    selected_scores: list[float] = []
    while len(selected) < max_output_size and cands:
        original, neg_index, begin = cands.pop()
        index = -neg_index
        if original < score_threshold:
            break
        score = original
        ignore = False
        for j in range(len(selected) - 1, begin - 1, -1):
            iou = _iou(boxes, index, selected[j])
            if iou >= iou_threshold:
                ignore = True
                break
            score *= math.exp(scale * iou * iou) if iou <= iou_threshold else 0.0
            if score <= score_threshold:
                break
        if not ignore:
            if score == original:
                selected.append(index)
                selected_scores.append(score)
            elif score > score_threshold:
                bisect.insort_left(cands, (score, neg_index, len(selected)))
    valid = len(selected)
    if pad_to_max_output_size and max_output_size > valid:
        pad = int(max_output_size) - valid
        selected += [0] * pad
        selected_scores += [0.0] * pad
    return selected, selected_scores, valid


def non_max_suppression_v3(boxes, scores, *, xp, max_output_size, iou_threshold, score_threshold):
    indices, _, _ = non_max_suppression_impl(
        boxes, scores, max_output_size, iou_threshold, score_threshold
    )
    return xp.asarray(np.asarray(indices, dtype=np.int32))


def non_max_suppression_v4(
    boxes, scores, *, xp, max_output_size, iou_threshold, score_threshold, pad_to_max_output_size
):
    indices, _, valid = non_max_suppression_impl(
        boxes,
        scores,
        max_output_size,
        iou_threshold,
        score_threshold,
        0.0,
        pad_to_max_output_size,
    )
    return (
        xp.asarray(np.asarray(indices, dtype=np.int32)),
        xp.asarray(np.asarray(valid, dtype=np.int32)),
    )


def non_max_suppression_v5(
    boxes, scores, *, xp, max_output_size, iou_threshold, score_threshold, soft_nms_sigma
):
    indices, selected_scores, _ = non_max_suppression_impl(
        boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma
    )
    return (
        xp.asarray(np.asarray(indices, dtype=np.int32)),
        xp.asarray(np.asarray(selected_scores, dtype=np.float32)),
    )


KERNELS = {
    k.RESIZE_BILINEAR: resize_bilinear,
    k.RESIZE_BILINEAR_GRAD: resize_bilinear_grad,
    k.RESIZE_NEAREST_NEIGHBOR: resize_nearest_neighbor,
    k.RESIZE_NEAREST_NEIGHBOR_GRAD: resize_nearest_neighbor_grad,
    k.CROP_AND_RESIZE: crop_and_resize,
    k.FLIP_LEFT_RIGHT: flip_left_right,
    k.ROTATE_WITH_OFFSET: rotate_with_offset,
    k.TRANSFORM: transform,
    k.NON_MAX_SUPPRESSION_V3: non_max_suppression_v3,
    k.NON_MAX_SUPPRESSION_V4: non_max_suppression_v4,
    k.NON_MAX_SUPPRESSION_V5: non_max_suppression_v5,
}
