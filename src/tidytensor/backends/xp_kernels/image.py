"""image kernels."""

KERNELS: dict = {}
