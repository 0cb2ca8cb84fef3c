"""Test cleanup helpers: dispose what a test made that outlives its scope, so the suite
passes with the leak check on (``--tidytensor-leaks``, issue 6).

Recurrent layers keep tensors (dropout masks, stateful states) that the per-test scope does
not free and ``model.dispose()`` leaves alone, as in TF.js; ``release_rnn_tensors`` frees them.
"""

from __future__ import annotations

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
