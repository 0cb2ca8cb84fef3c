"""rnn kernels."""

KERNELS: dict = {}
