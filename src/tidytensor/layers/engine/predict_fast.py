"""The short way through a compiled model's ``predict`` and ``predict_on_batch`` (issue 15).

A compiled ``predict`` of one batch is a two-kernel replay for a small model; the argument
checks, the ``tidy`` and the signature of the ``tf.function`` call around it cost several
times the kernels. Once a call with one input tensor has gone the whole way (checked, traced
or replayed, its outputs fresh buffers), ``PredictShortcut`` remembers its replay under a
cheap key: the input's shape and dtype, the batch size, and the engine's kernel table and
fusion switch (what the function's own signature holds besides). A later call with that key
replays directly.

Every check of the long way still holds: the model is not disposed, an input of this shape
and dtype passed ``check_input_data`` (it depends on nothing else), the model still compiles
its steps and the remembered replay is its current predict function's; and the function would
replay (nothing watches kernels one by one, no ``run_functions_eagerly``, no atomic update).
Anything else, or a replay that refuses or raises, takes the long way, which gives the same
errors and the same outputs as before; a refused key is forgotten until the long way
remembers it again. The replay itself counts every buffer and handle as the eager call leaves
them (``Replay._commit_fresh``), and its outputs are new tensors in the caller's scope.
"""

from __future__ import annotations

from typing import Any

from ...compiled.function import _signature, _watched
from ...compiled.replay import Replay
from ...engine import ENGINE
from ...engine.atomic_update import active_update
from ...tensor import Tensor

__all__ = ["PredictShortcut"]

#: Keys a model remembers; a model predicting on more shapes than this starts again.
MAX_KEYS = 64


class PredictShortcut:
    """One model's remembered one-batch predict replays (see the module's doc)."""

    __slots__ = ("model", "known")

    def __init__(self, model: Any) -> None:
        self.model = model
        self.known: dict[tuple, tuple[Any, Replay]] = {}

    def run(self, x: Tensor, batch_size: Any) -> Any:
        """The outputs of ``predict`` (``batch_size`` an int) or ``predict_on_batch``
        (``batch_size`` None) of ``x``, or None where the long way must run."""
        engine = ENGINE
        key = (x._shape, x.dtype, batch_size, id(engine._kernels), engine.fuse_kernels)
        entry = self.known.get(key)
        if entry is None:
            return None
        fn, replay = entry
        model = self.model
        if (
            model._ref_count == 0
            or model.run_eagerly
            or model.__dict__.get("compiled_steps", {}).get("predict") is not fn
            or (engine._slow and _watched(engine))
            or engine.run_functions_eagerly
            or engine.state.profiling
            or fn._busy
            or active_update()
        ):
            return None
        try:
            handles = replay([x])
        except Exception:
            del self.known[key]  # the long way refuses, retraces or raises as it should
            return None
        return handles[0] if len(handles) == 1 else handles

    def remember(self, x: Any, batch_size: Any, outs: Any) -> None:
        """After the long way ran ``predict``/``predict_on_batch`` on the tensor ``x`` alone:
        keeps its replay if it was one replay whose outputs are ``outs``' fresh buffers."""
        model = self.model
        fn = model.__dict__.get("compiled_steps", {}).get("predict")
        if fn is None or type(x) is not Tensor or model.run_eagerly:
            return
        if batch_size is not None and x._shape[0] > batch_size:
            return  # more than one batch: slices and a concat
        replay = fn._cache._entries.get(_signature(([x],), {}, []))
        if not isinstance(replay, Replay) or replay.fresh is None:
            return
        n = len(outs) if isinstance(outs, list) else 1
        if n != len(replay.fresh):
            return
        if len(self.known) >= MAX_KEYS:
            self.known.clear()
        engine = ENGINE
        key = (x._shape, x.dtype, batch_size, id(engine._kernels), engine.fuse_kernels)
        self.known[key] = (fn, replay)
