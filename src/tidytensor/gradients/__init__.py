"""Gradient configs, one module per op family (same names as ops/ and xp_kernels/).

Importing this package registers every GradConfig; the list is explicit, not discovered.

Layer: above ``ops`` (gradient functions are written with ops, imported at module level)
and below ``autodiff``, which imports this package so that every gradient is registered
before a gradient call runs. The engine finds a kernel's gradient in ``kernel_registry``.
"""

from __future__ import annotations

from . import (  # noqa: F401
    arithmetic,
    basic_math,
    convolution,
    creation,
    image,
    layers_dense,
    layers_losses,
    logical,
    losses,
    matrices,
    normalization,
    pooling,
    recurrent,
    reduction,
    scan,
    segment,
    slicing_joining,
    transformations,
)
