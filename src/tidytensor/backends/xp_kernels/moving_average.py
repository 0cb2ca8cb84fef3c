"""moving_average kernels."""

KERNELS: dict = {}
