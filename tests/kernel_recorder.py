"""``recorded_kernels()``: the names of the kernels the engine dispatches inside a ``with``
block, in order (for tests that check which kernels an op or a training step runs)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import tidytensor as tf


@contextlib.contextmanager
def recorded_kernels() -> Iterator[list[str]]:
    seen: list[str] = []
    engine = tf.engine()
    engine.backend  # noqa: B018 - the kernel table exists once a backend is active
    kernels = engine._bind_all_kernels()

    def recording(name, fn):
        def kernel(inputs, attrs):
            seen.append(name)
            return fn(inputs, attrs)

        return kernel

    engine._kernels = {name: recording(name, fn) for name, fn in kernels.items()}
    try:
        yield seen
    finally:
        engine._kernels = kernels
