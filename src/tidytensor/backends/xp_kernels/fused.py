"""fused kernels."""

KERNELS: dict = {}
