"""Kernel names of tidytensor's fused Layers losses (no TF.js equivalent).

TF.js computes a Layers loss such as ``categoricalCrossentropy`` from a dozen small ops, and
its gradient from two dozen more. When nothing watches kernels one by one (no
``tf.profile``, no nested gradient call that would differentiate the gradient itself),
tidytensor runs the same arithmetic, in the same order and precision, as one forward
kernel and one gradient kernel: bit-identical results with far less per-op work. Names
carry a ``Tidy`` prefix so they never collide with TF.js's kernel names in
``kernel_names/tfjs.py``. Family ``layers_losses``: op ``ops/layers_losses.py``, kernels
``backends/xp_kernels/layers_losses.py``, gradients ``gradients/layers_losses.py``.
"""

from __future__ import annotations

#: inputs: target, output (float32, same shape); attrs: epsilon -> loss (shape without the
#: last axis)
CATEGORICAL_CROSSENTROPY = "TidyCategoricalCrossentropy"
#: inputs: dy, target, output; attrs: epsilon, wrt ("output" or "target") -> that input's
#: gradient
CATEGORICAL_CROSSENTROPY_GRAD = "TidyCategoricalCrossentropyGrad"
#: inputs: target, output (float32, same shape); attrs: epsilon -> loss (shape without the
#: last axis)
BINARY_CROSSENTROPY = "TidyBinaryCrossentropy"
#: inputs: dy, target, output; attrs: epsilon, wrt ("output" or "target") -> that input's
#: gradient
BINARY_CROSSENTROPY_GRAD = "TidyBinaryCrossentropyGrad"
