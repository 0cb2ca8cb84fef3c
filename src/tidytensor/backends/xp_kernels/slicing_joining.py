"""slicing_joining kernels."""

KERNELS: dict = {}
