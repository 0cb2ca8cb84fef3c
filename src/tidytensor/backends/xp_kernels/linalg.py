"""linalg kernels."""

KERNELS: dict = {}
