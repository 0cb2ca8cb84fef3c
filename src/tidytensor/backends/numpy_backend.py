"""The default ``'cpu'`` backend: NumPy arrays, every xp kernel bound to ``xp=numpy``."""

from __future__ import annotations

import numpy

from .array_backend import ArrayBackend


class NumpyBackend(ArrayBackend):
    name = "cpu"
    xp = numpy

    def upload(self, values):
        """Keeps rank-0 values as NumPy scalars: their arithmetic is ten times faster than
        0-d arrays' (26 ns against 250 ns for an add)."""
        if type(values) is numpy.ndarray and values.shape == () and values.dtype != object:
            return values[()]
        return values


def register(engine) -> None:
    """Registers the backend (priority 1, as TF.js's cpu) and its kernels."""
    NumpyBackend.register_kernels(NumpyBackend.name)
    engine.register_backend(NumpyBackend.name, NumpyBackend, 1)
