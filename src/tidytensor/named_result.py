"""Indexing for the NamedTuple results ops return: by position, and by field name as well.

TF.js returns plain objects such as ``{values, indices}`` or ``{value, grads}``; their Python
results are NamedTuples, so they unpack as a tuple, read as ``r.values``, index as
``r['values']``, and, being tuples, are walked by ``tf.tidy`` and ``tf.dispose``.
"""

from __future__ import annotations

from typing import Any


def getitem_by_name_or_index(result: tuple, key: Any) -> Any:
    """``result[key]``: a field by name (``KeyError`` for an unknown one), else by position."""
    if isinstance(key, str):
        if key not in result._fields:  # type: ignore[attr-defined]
            raise KeyError(key)
        return getattr(result, key)
    return tuple.__getitem__(result, key)
