"""Linear algebra kernels: none. TF.js builds ``tf.linalg.bandPart``, ``gramSchmidt`` and ``qr``
from other ops, so they run those ops' kernels."""

KERNELS: dict = {}
