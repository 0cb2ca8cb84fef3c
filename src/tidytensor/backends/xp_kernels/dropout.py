"""dropout kernels."""

KERNELS: dict = {}
