"""reduction kernels."""

KERNELS: dict = {}
