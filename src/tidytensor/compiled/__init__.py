"""Compiled steps: ``tf.function`` traces a function's kernel calls once per input signature
and replays them as straight-line code (``tracing.py`` records, ``plan.py`` plans the
buffers, ``replay.py`` generates and runs the replay, ``function.py`` is ``tf.function``,
``cache.py`` its traces). The engine reports to the tracer from one place in its dispatch
route, ``KernelWatch.finish`` (``engine/watch.py``)."""

from .function import Function, function
from .tracing import VariableCreationError

__all__ = ["Function", "VariableCreationError", "function"]
