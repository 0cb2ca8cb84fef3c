"""Every kernel name: ops, gradients and backend kernels meet only through these names.

Layer: the bottom of the package (imports nothing), beside ``kernel_registry``.

- ``tfjs``: TF.js's kernel names, spelled as TF and TF.js spell them, each with a comment
  listing its inputs in ``run_kernel``'s order, then its attrs. They are re-exported here:
  ``from tidytensor.kernel_names import ADD`` or ``from tidytensor import kernel_names as k``.
- ``layers_dense``, ``layers_losses``, ``losses``, ``optimizers``, ``recurrent``: tidytensor's
  fused kernels (``Tidy...`` names, no TF.js equivalent), one module per family:
  ``from tidytensor.kernel_names import losses as kl``.
"""

from .tfjs import *  # noqa: F403 - the TF.js names are the package's own
