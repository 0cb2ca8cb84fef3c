"""matrices kernels."""

KERNELS: dict = {}
