"""spectral kernels."""

KERNELS: dict = {}
