"""ragged kernels."""

KERNELS: dict = {}
