"""The short way through a compiled model's ``predict`` and ``predict_on_batch`` (issue 15).

A compiled ``predict`` of one batch is a two-kernel replay for a small model; the argument
checks and batching around the ``tf.function`` call cost several times the kernels. Once a
call with one input tensor has gone the whole way (checked, traced or replayed, its outputs
fresh buffers), ``PredictShortcut`` remembers that an input of this shape and dtype passed the
checks (``check_input_data`` depends on nothing else) with this batch size, and a later call
with that key goes straight to the predict function's own quick route (``Function.replayed_by``
with the ``quick_entry`` it holds: the replay the function remembers under the input's shape
and dtype and the engine's kernel table, which it marks forgotten when it drops it). A model
with one output takes ``Function.replayed_one``, which runs the replay's ``QuickReplay`` (the
per-op core's: bind, kernels, output record and handle in one call) and returns the handle.

Every check of the long way still holds: the model is not disposed, it still compiles its
steps and the predict function is the one the key was remembered with; ``replayed_by``
replays only where its own call would (nothing watches kernels one by one, no
``run_functions_eagerly``, no atomic update). Anything else, or a replay that refuses or
raises, takes the long way, which gives the same errors and the same outputs as before; a
refused key is forgotten until the long way remembers it again. The replay counts every
buffer and handle as the eager call leaves them, and its outputs are new tensors in the
caller's scope.

A ``Sequential`` model's ``predict`` asks its inner model's shortcut directly (one public
call, not two). The outputs' creation site (the user's line, as the eager call notes it) is
worked out by ``creation_site`` at the public call, a frame or two from the user's code,
and handed down: found under the replay, it took a walk through every frame in between
(several µs of a one-row ``predict`` of a 784-128-10 MLP, whose kernels take ~20).
"""

from __future__ import annotations

from typing import Any

from ...engine import ENGINE
from ...engine.site_tracking import call_site
from ...tensor import Tensor

__all__ = ["PredictShortcut", "creation_site"]

#: Keys a model remembers; a model predicting on more shapes than this starts again.
MAX_KEYS = 64


def creation_site(helpers: int = 0) -> Any:
    """The creation site of the outputs of the public ``predict``/``predict_on_batch``
    that calls this (directly, or through ``helpers`` frames): the pinned site of a library
    call, or the innermost user frame, as the eager call notes it; None with sites off.
    Worked out here, where the stack is short, instead of by the handle's maker under the
    replay. The search starts at the frame that called the public method's
    ``short_traceback`` wrapper (this frame, the helpers, the method and the wrapper lie
    between), the user's frame when the user called it: every frame skipped is the
    library's, so the site is ``user_site``'s from here."""
    return call_site(3 + helpers) if ENGINE.track_sites else None


class PredictShortcut:
    """One model's remembered one-batch predict replays (see the module's doc)."""

    __slots__ = ("model", "known")

    def __init__(self, model: Any) -> None:
        self.model = model
        #: (shape, dtype, batch size) -> (predict function, its ``quick_entry`` for them,
        #: whether the call returns its one output alone: ``Function.replayed_one``)
        self.known: dict[tuple, tuple[Any, list, bool]] = {}

    def run(self, x: Tensor, batch_size: Any, site: Any = None) -> Any:
        """The outputs of ``predict`` (``batch_size`` an int) or ``predict_on_batch``
        (``batch_size`` None) of ``x``, or None where the long way must run. ``site``: the
        outputs' creation site (``creation_site``; None: found under the replay)."""
        key = (x._shape, x.dtype, batch_size)
        found = self.known.get(key)
        if found is None:
            return None
        fn, quick, one = found
        model = self.model
        if (
            model._ref_count == 0
            or model.run_eagerly
            or model.compiled_steps.get("predict") is not fn  # set by remember's model
            or ENGINE.state.profiling
        ):
            return None
        if one:  # the one output's handle, with no list around it
            outs = fn.replayed_one(quick, [x], site)
        else:
            outs = fn.replayed_by(quick, ([x],), site)
        if outs is None:
            del self.known[key]  # the long way refuses, retraces or raises as it should
            return None
        return outs if one else outs[0] if len(outs) == 1 else outs

    def remember(self, x: Any, batch_size: Any, outs: Any) -> None:
        """After the long way ran ``predict``/``predict_on_batch`` on the tensor ``x`` alone:
        remembers the key if the predict function replays it with fresh output buffers."""
        model = self.model
        fn = model.__dict__.get("compiled_steps", {}).get("predict")
        if fn is None or type(x) is not Tensor or model.run_eagerly:
            return
        if batch_size is not None and x._shape[0] > batch_size:
            return  # more than one batch: slices and a concat
        quick = fn.quick_entry(([x],))
        replay = None if quick is None else quick[1]
        if replay is None or replay.fresh is None:
            return
        n = len(outs) if isinstance(outs, list) else 1
        if n != len(replay.fresh):
            return
        if len(self.known) >= MAX_KEYS:
            self.known.clear()
        self.known[(x._shape, x.dtype, batch_size)] = (fn, quick, n == 1 and type(outs) is Tensor)
