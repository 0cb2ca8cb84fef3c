"""logical kernels."""

KERNELS: dict = {}
