"""Every op, re-exported from its family module (each family's ``__all__`` is its op list).

Families TF.js exposes only under a namespace (``tf.image``, ``tf.losses``...) are not
star-imported: the family module itself is that namespace. Family modules are bound to
``_<name>`` aliases because an op may share its family's name (``dropout``, ``signal``).

The op modules of tidytensor's own fused kernels (``layers_dense``, ``layers_losses``,
``recurrent``, ``optimizers``) are internal: the layers and optimizers import them, and
nothing here re-exports them.

Layer: above the engine, ``tensor_util`` and the backends; below ``gradients``, ``scopes``
and ``autodiff`` (see ``docs/architecture.md``). An op reaches its kernel by name through
``Engine.run_kernel``, never by importing a backend's kernel; ops that define their own
gradient use ``custom_grad`` from ``engine.recording``, below them. Op families call each
other's ops (as TF.js's ops do) through module-level imports in one order, bottom first:
``_op``, ``sparse``, ``creation``, ``transformations``, ``logical``, ``arithmetic``,
``basic_math``, ``reduction``, ``matrices``, ``slicing_joining``, then the families and
namespaces built on them; no family imports one above it, so they form no import circle
(``tests/test_architecture.py``; the order is in ``docs/architecture.md``).
"""

from __future__ import annotations

import importlib

from .arithmetic import *  # noqa: F403
from .basic_math import *  # noqa: F403
from .convolution import *  # noqa: F403
from .creation import *  # noqa: F403
from .dropout import *  # noqa: F403
from .evaluation import *  # noqa: F403
from .logical import *  # noqa: F403
from .matrices import *  # noqa: F403
from .moving_average import *  # noqa: F403
from .normalization import *  # noqa: F403
from .pooling import *  # noqa: F403
from .ragged import *  # noqa: F403
from .random import *  # noqa: F403
from .reduction import *  # noqa: F403
from .rnn import *  # noqa: F403
from .scan import *  # noqa: F403
from .segment import *  # noqa: F403
from .signal_util import *  # noqa: F403
from .slicing_joining import *  # noqa: F403
from .transformations import *  # noqa: F403

#: Families whose ops are top-level (``tf.add``), in TF.js's doc order.
FAMILIES = tuple(
    importlib.import_module(f"{__name__}.{name}")
    for name in (
        "creation",
        "random",
        "arithmetic",
        "basic_math",
        "reduction",
        "matrices",
        "logical",
        "transformations",
        "slicing_joining",
        "convolution",
        "pooling",
        "normalization",
        "rnn",
        "scan",
        "segment",
        "evaluation",
        "moving_average",
        "dropout",
        "signal_util",
        "ragged",
    )
)

#: Families TF.js exposes as namespaces: ``tf.<name>.<op>``.
NAMESPACES = {
    name: importlib.import_module(f"{__name__}.{name}")
    for name in ("image", "linalg", "losses", "spectral", "sparse", "string", "fused")
}

__all__ = [name for family in FAMILIES for name in family.__all__]
