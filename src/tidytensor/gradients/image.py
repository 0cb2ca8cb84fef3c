"""Gradients of the image kernels (TF.js's ResizeBilinear_grad.ts, ResizeNearestNeighbor_grad.ts).

Each runs its backward kernel (ResizeBilinearGrad / ResizeNearestNeighborGrad) on the saved
images and ``dy``, with the forward kernel's attrs.
"""

from __future__ import annotations

from .. import kernel_names as k
from ..kernel_registry import GradConfig, register_gradient
from ..ops import image


def _resize_bilinear_grad(dy, saved, attrs):
    (images,) = saved

    return (lambda: image._resize_bilinear_grad(images, dy, attrs),)


def _resize_nearest_neighbor_grad(dy, saved, attrs):
    (images,) = saved

    return (lambda: image._resize_nearest_neighbor_grad(images, dy, attrs),)


register_gradient(GradConfig(k.RESIZE_BILINEAR, _resize_bilinear_grad, inputs_to_save=(0,)))
register_gradient(
    GradConfig(k.RESIZE_NEAREST_NEIGHBOR, _resize_nearest_neighbor_grad, inputs_to_save=(0,))
)
