"""Kernel names of tidytensor's fused optimizer updates (no TF.js equivalent).

TF.js's optimizers update each variable with a dozen elementwise ops. When nothing observes
the kernels one by one (no ``tf.profile`` running, no gradient tape recording), tidytensor
runs the same arithmetic, in the same order and precision, as one kernel over all of Adam's
variables (one flat update): the results are bit-identical and the tensor counts after the step are the same, with far fewer
temporaries during it. Under ``tf.profile`` the optimizers run TF.js's kernels, so the
profile lists what TF.js's would. Names carry a ``Tidy`` prefix so they never collide with
TF.js's kernel names in ``kernel_names/tfjs.py``. Family ``optimizers``: op ``ops/optimizers.py``,
kernel ``backends/xp_kernels/optimizers.py`` (no gradient).
"""

from __future__ import annotations

#: inputs: values, gradients, ms, vs (``count`` of each), accBeta1, accBeta2 (float32
#: scalars); attrs: beta1, beta2, epsilon, learning_rate (numbers), count (how many
#: variables, default 1) -> newMs, newVs, newValues (``count`` of each)
ADAM_UPDATE = "TidyAdamUpdate"
