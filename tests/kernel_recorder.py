"""``recorded_kernels()``: the names of the kernels the engine dispatches inside a ``with``
block, in order (for tests that check which kernels an op or a training step runs). A kernel
wrapper (``Engine.kernels_wrapped``): while it is registered every kernel call dispatches,
the fast op path's same-shape shortcuts included."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

import tidytensor as tf


@contextlib.contextmanager
def recorded_kernels() -> Iterator[list[str]]:
    seen: list[str] = []

    def recording(name: str, fn: Callable) -> Callable:
        def kernel(inputs, attrs):
            seen.append(name)
            return fn(inputs, attrs)

        return kernel

    with tf.engine().kernels_wrapped(recording):
        yield seen
