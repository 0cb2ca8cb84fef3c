"""Values in error messages, spelled as Python prints them: shapes as Keras shows them in its
errors (``(None, 2)``), ``None``/``True``/``False``, ``nan``, strings quoted as ``repr`` does.
The one formatter for messages across the package; ``model.json`` text and TF.js-matching
output keep :mod:`tidytensor.js_strings`.

>>> py_shape([None, 2]), py_shape([5]), py_shape([[None, 2], [None, 3]]), py_shape(None)
('(None, 2)', '(5,)', '[(None, 2), (None, 3)]', 'None')
>>> py_value({'axis': -1, 'center': True, 'shape': (None, 4), 'name': 'x', 'eps': float('nan')})
"{'axis': -1, 'center': True, 'shape': (None, 4), 'name': 'x', 'eps': nan}"
"""

from __future__ import annotations

import numbers
from typing import Any

__all__ = ["py_shape", "py_value"]


def py_value(value: Any) -> str:
    """``value`` as Python code would spell it: NumPy scalars and arrays as plain numbers and
    lists, containers element by element (``repr`` of a list holding NumPy ints would print
    ``np.int64(2)``)."""
    if value is None or isinstance(value, (bool, str)):
        return repr(value)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))
    if isinstance(value, dict):
        return "{" + ", ".join(f"{py_value(k)}: {py_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, tuple):
        inner = ", ".join(py_value(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return "[" + ", ".join(py_value(v) for v in value) + "]"
    if hasattr(value, "tolist") and hasattr(value, "ndim"):  # a NumPy array or scalar
        return py_value(value.tolist())
    return repr(value)


def py_shape(shape: Any) -> str:
    """A shape as a tuple (``[None, 2]`` → ``'(None, 2)'``); a list of shapes (a layer with
    several inputs) as a list of tuples; ``None`` (an unknown shape) as ``'None'``."""
    if shape is None:
        return "None"
    if hasattr(shape, "tolist") and not isinstance(shape, (list, tuple)):
        shape = shape.tolist()
    if isinstance(shape, (list, tuple)):
        if any(isinstance(s, (list, tuple)) or getattr(s, "ndim", 0) > 0 for s in shape):
            return "[" + ", ".join(py_shape(s) for s in shape) + "]"
        return py_value(tuple(shape))
    return py_value(shape)
