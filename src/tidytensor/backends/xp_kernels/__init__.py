"""Kernels written once against an array module ``xp``; one module per op family."""
