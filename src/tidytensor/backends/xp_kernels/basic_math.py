"""basic_math kernels."""

KERNELS: dict = {}
