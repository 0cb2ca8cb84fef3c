"""losses kernels."""

KERNELS: dict = {}
