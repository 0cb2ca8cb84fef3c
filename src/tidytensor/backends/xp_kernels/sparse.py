"""sparse kernels."""

KERNELS: dict = {}
