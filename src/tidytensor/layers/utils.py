"""Small helpers shared by every layer family (TF.js's ``generic_utils``, ``types_utils``,
``math_utils``, ``variable_utils`` and ``serialization_utils``).

Shapes in the Layers API are lists whose entries are ints or ``None`` (an unknown dimension,
TF.js's ``null``). A "shape list" is a list of such shapes, one per tensor.

>>> to_snake_case('SpatialDropout1D'), to_camel_case('kernel_initializer')
('spatial_dropout1d', 'kernelInitializer')
>>> convert_ts_to_pythonic({'className': 'Dense', 'config': {'useBias': True, 'activation': 'hardSigmoid'}})
{'class_name': 'Dense', 'config': {'use_bias': True, 'activation': 'hard_sigmoid'}}
"""

from __future__ import annotations

import math
import re
from typing import Any

from ..py_strings import py_value
from .errors import LayersValueError

__all__ = [
    "array_prod",
    "assert_positive_integer",
    "convert_pythonic_to_ts",
    "convert_ts_to_pythonic",
    "count_params_in_weights",
    "get_exactly_one_shape",
    "get_exactly_one_tensor",
    "is_array_of_shapes",
    "normalize_shape_list",
    "singleton_or_array",
    "to_camel_case",
    "to_list",
    "to_snake_case",
]

_SNAKE_1 = re.compile(r"(.)([A-Z][a-z0-9]+)")
_SNAKE_2 = re.compile(r"([a-z])([A-Z])")
_CAMEL = re.compile(r"_+(\w|$)")


def to_snake_case(name: str) -> str:
    """TF.js's ``toSnakeCase`` (used for layer names and config keys): ``'Conv2D'`` →
    ``'conv2d'``, ``'hardSigmoid'`` → ``'hard_sigmoid'``."""
    s = _SNAKE_2.sub(r"\1_\2", _SNAKE_1.sub(r"\1_\2", name)).lower()
    return s if not s.startswith("_") else "private" + s


def to_camel_case(identifier: str) -> str:
    """TF.js's ``toCamelCase``: ``'fan_avg'`` → ``'fanAvg'``; strings without ``_`` are kept."""
    if len(identifier) <= 1 or "_" not in identifier:
        return identifier
    return _CAMEL.sub(lambda m: m.group(1).upper(), identifier)


def to_list(x: Any) -> list:
    """``x`` as a list (a list or tuple is copied, anything else is wrapped)."""
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x]


def singleton_or_array(xs: list) -> Any:
    """The only element of a one-element list, else the list itself."""
    if len(xs) == 1:
        return xs[0]
    return xs


def is_array_of_shapes(x: Any) -> bool:
    """Whether ``x`` is a list of shapes rather than one shape."""
    return isinstance(x, (list, tuple)) and len(x) > 0 and isinstance(x[0], (list, tuple))


def normalize_shape_list(x: Any) -> list:
    """A shape or a list of shapes as a list of shapes."""
    if len(x) == 0:
        return []
    if not isinstance(x[0], (list, tuple)):
        return [list(x)]
    return [list(s) for s in x]


def get_exactly_one_tensor(xs: Any) -> Any:
    """The tensor in a one-element list (or the tensor itself)."""
    if isinstance(xs, (list, tuple)):
        if len(xs) != 1:
            raise LayersValueError(f"Expected Tensor length to be 1; got {len(xs)}")
        return xs[0]
    return xs


def get_exactly_one_shape(shapes: Any) -> Any:
    """The shape in a one-element list of shapes (or the shape itself)."""
    if is_array_of_shapes(shapes):
        if len(shapes) == 1:
            return list(shapes[0])
        raise LayersValueError(f"Expected exactly 1 Shape; got {len(shapes)}")
    return shapes if shapes is None else list(shapes)


def array_prod(array: Any, begin: int | None = None, end: int | None = None) -> int:
    """Product of ``array[begin:end]`` (1 for an empty range)."""
    return math.prod(array[begin:end])


def count_params_in_weights(weights: Any) -> int:
    """Number of scalars in a list of weights (anything with a ``shape``)."""
    return sum(math.prod(w.shape) for w in weights)


def assert_positive_integer(value: Any, name: str) -> None:
    """Raises unless ``value`` (or every element of a list) is an integer > 0."""
    if isinstance(value, (list, tuple)):
        if len(value) == 0:
            raise LayersValueError(f"{name} is unexpectedly an empty array.")
        for i, v in enumerate(value):
            if isinstance(v, (list, tuple)):
                raise LayersValueError(
                    f"Expected element {i + 1} of {name} to be a positive integer, but got "
                    f"{py_value(v)}."
                )
            assert_positive_integer(v, f"element {i + 1} of {name}")
        return
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or value != value
        or value in (float("inf"), float("-inf"))
        or value != int(value)
        or value <= 0
    ):
        raise LayersValueError(
            f"Expected {name} to be a positive integer, but got {py_value(value)}."
        )


def assert_positive_int(value: Any, name: str) -> int:
    """``value`` as an int when it is one positive integer (not a list: ``units``,
    ``inputDim``), else TF.js's ``assertPositiveInteger`` error."""
    if isinstance(value, (list, tuple)):
        raise LayersValueError(
            f"Expected {name} to be a positive integer, but got {py_value(value)}."
        )
    assert_positive_integer(value, name)
    return int(value)


def _is_io_name(key: str | None, index: int, value: Any) -> bool:
    return (
        key
        in (
            "inbound_nodes",
            "inboundNodes",
            "input_layers",
            "inputLayers",
            "output_layers",
            "outputLayers",
        )
        and index == 0
        and isinstance(value, str)
    )


def convert_ts_to_pythonic(ts_config: Any, key: str | None = None) -> Any:
    """TF.js's ``convertTsToPythonic`` (what ``model.json`` holds): every key and every string
    value snake_cased, except the values of ``name`` and ``className`` and the layer names in
    ``inbound_nodes`` / ``input_layers`` / ``output_layers``."""
    if ts_config is None:
        return None
    if isinstance(ts_config, str):
        return to_snake_case(ts_config)
    if isinstance(ts_config, (bool, int, float)):
        return ts_config
    if isinstance(ts_config, (list, tuple)):
        return [
            item if _is_io_name(key, i, item) else convert_ts_to_pythonic(item, key)
            for i, item in enumerate(ts_config)
        ]
    out = {}
    for ts_key, value in ts_config.items():
        py_key = to_snake_case(ts_key)
        if ts_key in ("name", "className", "class_name") and isinstance(value, str):
            out[py_key] = value
        else:
            out[py_key] = convert_ts_to_pythonic(value, ts_key)
    return out


def convert_pythonic_to_ts(py_config: Any, key: str | None = None) -> Any:
    """TF.js's ``convertPythonicToTs`` (used when loading): keys and string values
    camelCased, except the value of ``name`` and the layer names of connection lists."""
    if py_config is None:
        return None
    if isinstance(py_config, str):
        return to_camel_case(py_config)
    if isinstance(py_config, (bool, int, float)):
        return py_config
    if isinstance(py_config, (list, tuple)):
        return [
            item if _is_io_name(key, i, item) else convert_pythonic_to_ts(item, key)
            for i, item in enumerate(py_config)
        ]
    out = {}
    for py_key, value in py_config.items():
        if py_key == "name" and isinstance(value, str):
            out[py_key] = value
        else:
            ts_key = to_camel_case(py_key)
            out[ts_key] = convert_pythonic_to_ts(value, ts_key)
    return out
