"""string kernels."""

KERNELS: dict = {}
