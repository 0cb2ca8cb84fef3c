"""signal kernels."""

KERNELS: dict = {}
