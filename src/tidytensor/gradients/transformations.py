"""Gradients of the transformation kernels (TF.js's Cast_grad.ts, Reshape_grad.ts,
ExpandDims_grad.ts, PadV2_grad.ts, MirrorPad_grad.ts, BatchToSpaceND_grad.ts,
SpaceToBatchND_grad.ts).

``broadcast_to`` runs the Tile kernel (its gradient is in slicing_joining.py). The BroadcastTo
gradient is registered as in TF.js, for a backend or custom op that runs that kernel.
"""

from __future__ import annotations

from .. import kernel_names as k
from ..kernel_registry import GradConfig, register_gradient
from ..ops.arithmetic import add
from ..ops.creation import clone
from ..ops.reduction import sum as sum_
from ..ops.slicing_joining import reverse
from ..ops.slicing_joining import slice as slice_
from ..ops.transformations import batch_to_space_nd, pad, reshape, space_to_batch_nd


def _cast_grad(dy, saved, attrs):

    return (lambda: clone(dy),)


def _reshape_grad(dy, saved, attrs):
    """Reshape and ExpandDims: back to the input's shape."""

    (x,) = saved
    return (lambda: reshape(dy, list(x._shape)),)


def _pad_grad(dy, saved, attrs):
    """PadV2 and MirrorPad: the input's part of dy, sliced out."""

    (x,) = saved
    begin = [p[0] for p in attrs["paddings"]]
    return (lambda: slice_(dy, begin, list(x._shape)),)


def _mirror_pad_grad(dy, saved, attrs):
    """The true gradient of a mirror pad: each padded border is reflected back onto the input
    elements it copied and added in. (TF.js 4.22.0 only slices dy's centre out, dropping the
    borders' contributions; that is not reproduced.)"""

    (x,) = saved
    offset = 1 if attrs["mode"] == "reflect" else 0

    def part(g, axis, start, length):
        begin = [0] * g.rank
        size = list(g._shape)
        begin[axis], size[axis] = start, length
        return slice_(g, begin, size)

    def along(g, axis, before, after):
        pads = [[0, 0] for _ in range(g.rank)]
        pads[axis] = [before, after]
        return pad(g, pads)

    def der_x():
        g = dy
        for axis, (before, after) in enumerate(attrs["paddings"]):
            if before == 0 and after == 0:
                continue
            n = x._shape[axis]
            total = part(g, axis, before, n)
            if before:
                left = reverse(part(g, axis, 0, before), axis)
                total = add(total, along(left, axis, offset, n - offset - before))
            if after:
                right = reverse(part(g, axis, before + n, after), axis)
                total = add(total, along(right, axis, n - offset - after, offset))
            g = total
        return g

    return (der_x,)


def _broadcast_to_grad(dy, saved, attrs):
    """Sums dy over the axes the input was broadcast along (keeping them)."""

    in_shape = list(attrs["input_shape"])
    out_shape = list(attrs["shape"])
    in_shape = [1] * (len(out_shape) - len(in_shape)) + in_shape
    axes = [i for i, (a, b) in enumerate(zip(in_shape, out_shape, strict=True)) if a != b]
    return (lambda: sum_(dy, axes, True) if axes else dy.clone(),)


def _batch_to_space_nd_grad(dy, saved, attrs):

    return (lambda: space_to_batch_nd(dy, attrs["block_shape"], attrs["crops"]),)


def _space_to_batch_nd_grad(dy, saved, attrs):

    return (lambda: batch_to_space_nd(dy, attrs["block_shape"], attrs["paddings"]),)


for _config in (
    GradConfig(k.CAST, _cast_grad),
    GradConfig(k.RESHAPE, _reshape_grad, inputs_to_save=(0,)),
    GradConfig(k.EXPAND_DIMS, _reshape_grad, inputs_to_save=(0,)),
    GradConfig(k.PAD_V2, _pad_grad, inputs_to_save=(0,)),
    GradConfig(k.MIRROR_PAD, _mirror_pad_grad, inputs_to_save=(0,)),
    GradConfig(k.BATCH_TO_SPACE_ND, _batch_to_space_nd_grad),
    GradConfig(k.BROADCAST_TO, _broadcast_to_grad),
    GradConfig(k.SPACE_TO_BATCH_ND, _space_to_batch_nd_grad),
):
    register_gradient(_config)
