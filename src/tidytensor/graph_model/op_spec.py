"""The op table's entry type: how one TensorFlow op's node becomes a call of tidytensor ops.

An entry says, as data, which node inputs the op reads and how (TF.js's op-list input types:
a tensor, the tensors of a range, a number or an array of numbers read from a tensor), which
attributes (TF.js's attribute types, TF names and defaults) and the function that calls the
tidytensor ops with those parameters::

    "MatMul": spec(lambda p: tf.mat_mul(p.a, p.b, p.transpose_a, p.transpose_b),
                   "a b", transpose_a="transpose_a:bool=false", transpose_b="transpose_b:bool=false")

Inputs are written ``name`` (a tensor), ``name#`` (a number, the tensor's first value),
``name##`` (numbers, the tensor's nested values) and ``name*`` (the tensors from there on), each
at the next input position or at ``@start`` (``@start:end`` for ``*``; negative counts from the
end). Attributes are written ``tfName:kind=default`` with the default in JSON; kind ``string``
(``string[]``) lower-cases as TF.js does, ``String`` (``String[]``) keeps the case.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Params", "Spec", "spec"]


@dataclass(frozen=True)
class InputParam:
    name: str
    kind: str  # tensor | tensors | number | number[]
    start: int
    end: int | None = None


@dataclass(frozen=True)
class AttrParam:
    name: str
    tf_name: str
    kind: str
    default: Any


@dataclass(frozen=True)
class Spec:
    """One op's entry: its inputs, its attributes and the call that runs it."""

    run: Callable[..., Any]
    inputs: tuple[InputParam, ...]
    attrs: tuple[AttrParam, ...]
    #: whether ``run`` takes the execution context too (control flow, resources)
    with_context: bool = False
    #: an op whose output shape depends on its values (TF.js's dynamic ops)
    dynamic: bool = False


def _parse_input(token: str, position: int) -> tuple[InputParam, int]:
    name, _, at = token.partition("@")
    end = None
    if at:
        start_text, _, end_text = at.partition(":")
        start = int(start_text)
        end = int(end_text) if end_text else None
    else:
        start = position
    if name.endswith("*"):
        return InputParam(name[:-1], "tensors", start, end), start + 1
    if name.endswith("##"):
        return InputParam(name[:-2], "number[]", start), start + 1
    if name.endswith("#"):
        return InputParam(name[:-1], "number", start), start + 1
    return InputParam(name, "tensor", start), start + 1


def _parse_attr(name: str, text: str) -> AttrParam:
    head, has_default, default = text.partition("=")
    tf_name, _, kind = head.partition(":")
    return AttrParam(name, tf_name, kind, json.loads(default) if has_default else None)


def spec(
    run: Callable[..., Any],
    inputs: str = "",
    *,
    context: bool = False,
    dynamic: bool = False,
    **attrs: str,
) -> Spec:
    """An entry: ``run(params)`` (``run(params, context)`` with ``context=True``)."""
    parsed = []
    position = 0
    for token in inputs.split():
        param, position = _parse_input(token, position)
        parsed.append(param)
    return Spec(
        run,
        tuple(parsed),
        tuple(_parse_attr(name, text) for name, text in attrs.items()),
        context,
        dynamic,
    )


class Params:
    """A node's parameters by name (``p.x``, ``p.strides``); ``None`` when absent."""

    def __init__(self, values: dict[str, Any], node: Any):
        self.__dict__.update(values)
        self.node = node

    def __getattr__(self, name: str) -> Any:
        return None
