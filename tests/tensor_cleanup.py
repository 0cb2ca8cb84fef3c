"""Test cleanup helpers: dispose what a test made that outlives its scope, so the suite
passes with the leak check on (``--tidytensor-leaks``, issue 6).

Models and optimizers (and their recurrent layers) keep tensors (kept scalars, state variables, dropout
masks, stateful states) that the per-test scope does not free. ``owned_objects()`` records
every ``LayersModel`` and optimizer made while it is open and disposes them,
through their public ``dispose()``, when it closes (tests/conftest.py opens one per test).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import tidytensor as tf


def release_rnn_tensors(*roots: Any) -> None:
    """Disposes what recurrent layers keep between calls and their ``dispose()`` leaves
    alive, as in TF.js: the cells' dropout masks and a stateful layer's states (current and
    kept old ones). Takes models, layers or cells; walks sub-layers, wrapped layers and
    stacked cells."""
    seen: set[int] = set()

    def walk(obj: Any) -> None:
        if obj is None or id(obj) in seen:
            return
        seen.add(id(obj))
        d = getattr(obj, "__dict__", {})
        for attr in ("dropout_mask", "recurrent_dropout_mask"):
            if d.get(attr) is not None:
                tf.dispose(d[attr])
                d[attr] = None
        if d.get("states_") is not None:
            tf.dispose(d["states_"])
            d["states_"] = None
        if d.get("kept_states"):
            tf.dispose(d["kept_states"])
            d["kept_states"] = []
        for attr in ("cell", "layer", "forward_layer", "backward_layer"):
            walk(d.get(attr))
        for attr in ("cells", "layers", "_layers"):
            for child in d.get(attr) or []:
                walk(child)

    for root in roots:
        walk(root)


@contextmanager
def owned_objects() -> Iterator[None]:
    """Records the models and optimizers made inside; disposes them at exit
    (a model or optimizer the test already disposed is left as it is)."""
    from tidytensor.layers.errors import LayersRuntimeError
    from tidytensor.layers.models import LayersModel
    from tidytensor.optimizers.optimizer import _OptimizerMeta

    models: list[Any] = []
    optimizers: list[Any] = []
    model_init = LayersModel.__init__
    old_call = _OptimizerMeta.__dict__.get("__call__")

    def record_model(self: Any, *args: Any, **kwargs: Any) -> None:
        model_init(self, *args, **kwargs)
        models.append(self)

    def record_optimizer(cls: Any, *args: Any, **kwargs: Any) -> Any:
        opt = type.__call__(cls, *args, **kwargs)
        optimizers.append(opt)
        return opt

    LayersModel.__init__ = record_model  # type: ignore[method-assign]
    _OptimizerMeta.__call__ = record_optimizer  # type: ignore[method-assign]
    try:
        yield
    finally:
        LayersModel.__init__ = model_init  # type: ignore[method-assign]
        if old_call is None:
            del _OptimizerMeta.__call__
        else:
            _OptimizerMeta.__call__ = old_call  # type: ignore[method-assign]
        release_rnn_tensors(*models)
        for model in reversed(models):  # outer models first
            if getattr(model, "_ref_count", None) is None:  # never built: owns no weights
                continue
            try:
                model.dispose()
            except LayersRuntimeError:  # the test disposed it already
                pass
        for opt in optimizers:
            opt.dispose()
