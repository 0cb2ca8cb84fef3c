"""random kernels."""

KERNELS: dict = {}
