"""RNN kernels: none. TF.js's ``basicLSTMCell`` and ``multiRNNCell`` are composites of other
ops (concat, matMul, slice, sigmoid, tanh...), so they run those ops' kernels."""

KERNELS: dict = {}
