"""Kernel names of tidytensor's fused Dense layer (no TF.js equivalent).

TF.js's ``dense`` layer runs ``matMul``, the bias ``add`` and its activation as separate
ops whenever a gradient tape records (and as ``_FusedMatMul`` between three ``reshape``\\s
otherwise); under a tape their gradients are a dozen more kernels. When nothing watches
kernels one by one (no ``tf.profile``, no nested gradient call), tidytensor runs the same
float32 arithmetic in the same order as one forward kernel and one gradient kernel per
input: bit-identical values and gradients with far less per-op work. Names carry a ``Tidy``
prefix so they never collide with TF.js's kernel names in ``kernel_names/tfjs.py``. Family
``layers_dense``: op ``ops/layers_dense.py``, kernels ``backends/xp_kernels/layers_dense.py``,
gradients ``gradients/layers_dense.py``.
"""

from __future__ import annotations

#: inputs: x [batch, in], kernel [in, units], bias [units] (when has_bias); attrs:
#: activation ('linear' or 'relu'), has_bias -> y [batch, units]
DENSE = "TidyDense"
#: inputs: dy, x, kernel, y (the forward output); attrs: activation, wrt ('x', 'kernel' or
#: 'bias': that input's gradient; 'dy': the activation's gradient ``dy * act'``, which the
#: gradient works out once and passes to the three with activation 'linear')
DENSE_GRAD = "TidyDenseGrad"
