"""Element structures and who owns their tensors.

A dataset element is a tensor, a number, a bool, a string, ``None``, a NumPy array, or a
nest of dicts, lists and tuples of those (TF.js's ``TensorContainer``). This module walks
such nests: clones them (``tf.data.array`` hands out copies), batches a list of them into
one element of stacked tensors (``batch``), splits one back into rows (``unbatch``), and
moves their tensors between the pipeline and the consumer.

Ownership. Pipeline work runs in a scope context of its own with no active scope (see
:func:`pipeline_context`), so the tensors it makes are tracked by no scope: the pipeline
owns them and disposes what it drops. When an element is handed to the consumer,
:func:`adopt` puts its untracked tensors into the consumer's innermost scope, exactly as
if the consumer had made them there: inside ``tf.tidy``/``tf.tidy_scope`` they are freed
at its end, outside any scope the consumer disposes them.
"""

from __future__ import annotations

import contextlib
import numbers
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..engine import ENGINE, current_context, new_context, restore_context
from ..errors import InvalidArgumentError, ShapeError
from ..ops.creation import clone, tensor
from ..ops.slicing_joining import stack, unstack
from ..tensor import Tensor, Variable

#: Returned by an iterator's ``_pull`` at the end of its stream.
END: Any = type("EndOfStream", (), {"__repr__": lambda self: "END", "__slots__": ()})()


@contextlib.contextmanager
def pipeline_context() -> Iterator[None]:
    """Runs the enclosed pipeline work with a scope stack of its own and no active scope,
    so the consumer's scopes never track (and never dispose) the pipeline's tensors."""
    token = new_context(None)
    try:
        yield
    finally:
        restore_context(token)


def tensors_of(value: Any) -> list[Tensor]:
    """The tensors in an element (its dicts, lists and tuples), fast on rows of numbers.

    Elements are trees: a tensor reached twice is listed twice (disposal skips the
    already disposed)."""
    if isinstance(value, Tensor):
        return [value]
    out: list[Tensor] = []
    if isinstance(value, (dict, list, tuple)):
        _collect(value, out)
    return out


def _collect(node: Any, out: list[Tensor]) -> None:
    for x in node.values() if isinstance(node, dict) else node:
        tx = type(x)
        if tx is float or tx is int or tx is str or tx is bool or x is None:
            continue
        if isinstance(x, Tensor):
            out.append(x)
        elif isinstance(x, (dict, list, tuple)):
            _collect(x, out)


def adopt(value: Any) -> Any:
    """Hands ``value``'s pipeline-owned tensors to the caller's innermost scope (if any)."""
    scope = current_context().active
    if scope is None:
        return value
    for t in tensors_of(value):
        if t.scope_id is None and not t.kept and not t._disposed and type(t) is not Variable:
            scope.track.append(t)
            t.scope_id = scope.id
    return value


def dispose_value(value: Any) -> None:
    """Disposes every live tensor in ``value`` (variables are left alone)."""
    for t in tensors_of(value):
        if not t._disposed and type(t) is not Variable:
            ENGINE.dispose_tensor(t)


def dispose_except(inputs: list[Tensor], output: Any) -> None:
    """Disposes the tensors of ``inputs`` that do not appear in ``output`` (TF.js's map)."""
    if not inputs:
        return
    keep = {id(t) for t in tensors_of(output)}
    for t in inputs:
        if id(t) not in keep and not t._disposed and type(t) is not Variable:
            ENGINE.dispose_tensor(t)


def deep_clone(value: Any) -> Any:
    """A copy of the nest with every tensor cloned (the clones share their buffers)."""
    if isinstance(value, Tensor):
        return clone(value)
    if isinstance(value, dict):
        return {k: deep_clone(v) for k, v in value.items()}
    if isinstance(value, list):
        return [deep_clone(v) for v in value]
    if isinstance(value, tuple):
        items = [deep_clone(v) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    return value


def _is_scalar(x: Any) -> bool:
    return isinstance(x, (numbers.Number, str, bool, np.bool_)) and not isinstance(x, np.ndarray)


def is_tensor_like_list(x: list) -> bool:
    """A list batched as one value (TF.js turns arrays into tensors): nested lists of
    numbers, bools or strings. A list holding tensors, dicts or tuples is a structure."""
    for item in x:
        if isinstance(item, list):
            if not is_tensor_like_list(item):
                return False
        elif not (_is_scalar(item) or item is None or isinstance(item, np.ndarray)):
            return False
    return True


def _where(path: tuple) -> str:
    return "the element" if not path else "element" + "".join(f"[{p!r}]" for p in path)


def batch_rows(rows: list[Any], path: tuple = ()) -> Any:
    """Batches same-structured elements into one (TF.js's ``deepBatchConcat``): tensors are
    stacked along a new axis 0; numbers, bools, strings and tensor-like lists become one
    tensor (numbers float32); dicts, tuples and lists of structures are batched key by key."""

    ex = rows[0]
    if isinstance(ex, Tensor):
        for i, r in enumerate(rows):
            if not isinstance(r, Tensor):
                raise InvalidArgumentError(
                    f"batch(): {_where(path)} is a Tensor in row 0 but {type(r).__name__} in row {i}"
                )
            if r._shape != ex._shape:
                raise ShapeError(
                    f"batch(): {_where(path)} has shape {list(ex._shape)} in row 0 but "
                    f"{list(r._shape)} in row {i}; batched tensors must share one shape"
                )
        return stack(rows)
    if isinstance(ex, dict):
        out = {}
        for key in ex:
            column = []
            for i, r in enumerate(rows):
                if not isinstance(r, dict) or key not in r:
                    raise InvalidArgumentError(
                        f"batch(): row {i} has no key {key!r} at {_where(path)}; the elements "
                        "of a batch must share one structure"
                    )
                column.append(r[key])
            out[key] = batch_rows(column, (*path, key))
        return out
    if isinstance(ex, tuple) or (isinstance(ex, list) and not is_tensor_like_list(ex)):
        n = len(ex)
        for i, r in enumerate(rows):
            if not isinstance(r, (list, tuple)) or len(r) != n:
                raise InvalidArgumentError(
                    f"batch(): row {i} does not match row 0's structure at {_where(path)} "
                    f"(a {type(ex).__name__} of {n} items)"
                )
        items = [batch_rows([r[j] for r in rows], (*path, j)) for j in range(n)]
        if isinstance(ex, list):
            return items
        return type(ex)(*items) if hasattr(ex, "_fields") else tuple(items)
    if isinstance(ex, np.ndarray):
        try:
            return tensor(np.stack([np.asarray(r) for r in rows]))
        except ValueError as e:
            raise ShapeError(f"batch(): cannot stack the arrays at {_where(path)}: {e}") from None
    if ex is None:
        raise InvalidArgumentError(f"batch(): {_where(path)} is None; None cannot be batched")
    if _is_scalar(ex) or isinstance(ex, list):
        for i, r in enumerate(rows):
            if isinstance(r, (Tensor, dict, tuple)) or r is None:
                raise InvalidArgumentError(
                    f"batch(): {_where(path)} is {type(ex).__name__} in row 0 but "
                    f"{type(r).__name__} in row {i}"
                )
        return tensor(rows)
    raise InvalidArgumentError(
        f"batch(): cannot batch {_where(path)} of type {type(ex).__name__}; elements hold "
        "tensors, numbers, bools, strings, NumPy arrays, and dicts/lists/tuples of those"
    )


def unbatch_value(value: Any) -> list[Any]:
    """Splits a batched element into its rows along axis 0 (the inverse of ``batch``)."""

    leaves: list[tuple[tuple, Tensor]] = []

    def collect(v: Any, path: tuple) -> Any:
        if isinstance(v, Tensor):
            leaves.append((path, v))
            return len(leaves) - 1
        if isinstance(v, dict):
            return {k: collect(x, (*path, k)) for k, x in v.items()}
        if isinstance(v, (list, np.ndarray)) and (
            isinstance(v, np.ndarray) or is_tensor_like_list(v)
        ):
            leaves.append((path, tensor(v)))
            return len(leaves) - 1
        if isinstance(v, (list, tuple)):
            items = [collect(x, (*path, j)) for j, x in enumerate(v)]
            if isinstance(v, list):
                return items
            return type(v)(*items) if hasattr(v, "_fields") else tuple(items)
        raise InvalidArgumentError(
            f"unbatch(): {_where(path)} is {type(v).__name__} ({v!r}); every leaf of a batched "
            "element must be a tensor (or array) with a batch dimension"
        )

    skeleton = collect(value, ())
    if not leaves:
        raise InvalidArgumentError("unbatch(): the element holds no tensors to split")
    n = None
    for path, t in leaves:
        if t.rank == 0:
            raise ShapeError(f"unbatch(): {_where(path)} is a scalar; it has no batch dimension")
        if n is None:
            n = t._shape[0]
        elif t._shape[0] != n:
            raise ShapeError(
                f"unbatch(): {_where(path)} has {t._shape[0]} rows but an earlier leaf has "
                f"{n}; every leaf must share the batch dimension"
            )
    parts = [unstack(t) for _, t in leaves]

    def build(node: Any, i: int) -> Any:
        if isinstance(node, int) and not isinstance(node, bool):
            return parts[node][i]
        if isinstance(node, dict):
            return {k: build(x, i) for k, x in node.items()}
        items = [build(x, i) for x in node]
        if isinstance(node, list):
            return items
        return type(node)(*items) if hasattr(node, "_fields") else tuple(items)

    return [build(skeleton, i) for i in range(n or 0)]
