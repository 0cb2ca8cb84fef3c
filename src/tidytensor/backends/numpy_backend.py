"""The default ``'cpu'`` backend: NumPy arrays, every xp kernel bound to ``xp=numpy``."""

from __future__ import annotations

import numpy

from .array_backend import ArrayBackend


class NumpyBackend(ArrayBackend):
    name = "cpu"
    xp = numpy


def register(engine) -> None:
    """Registers the backend (priority 1, as TF.js's cpu) and its kernels."""
    NumpyBackend.register_kernels(NumpyBackend.name)
    engine.register_backend(NumpyBackend.name, NumpyBackend, 1)
