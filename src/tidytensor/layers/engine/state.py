"""Process-global naming state of the Layers API (TF.js's ``backend/state.ts`` and ``common.ts``).

- :func:`get_uid` gives per-prefix counters: ``get_uid('Dense')`` → ``'Dense1'``, then
  ``'Dense2'``. Layer names (``dense_Dense1``), input names (``input1``) and model names
  (``model1``, ``sequential_1``) come from it.
- :func:`name_scope` nests names while a layer builds (``dense_Dense1/kernel``).
- :func:`get_unique_tensor_name` makes weight and symbolic-tensor names unique for the whole
  process: the second ``dense_Dense1/kernel`` is named ``dense_Dense1/kernel_1``. As in TF.js,
  the map is never cleared, not by ``dispose`` and not by ``tf.engine().reset()``, so loading
  the same model twice works.

>>> get_scoped_tensor_name('kernel')
'kernel'
>>> with name_scope('outer'):
...     get_scoped_tensor_name('kernel')
'outer/kernel'
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from contextlib import contextmanager

from ..errors import LayersValueError

__all__ = [
    "get_next_unique_tensor_id",
    "get_scoped_tensor_name",
    "get_uid",
    "get_unique_tensor_name",
    "is_valid_tensor_name",
    "name_scope",
]

_tensor_ids = itertools.count()
_uid_prefixes: dict[str, int] = {}
_name_map: dict[str, int] = {}
_name_scope_stack: list[str] = []
_VALID_NAME = re.compile(r"^[A-Za-z0-9][-A-Za-z0-9\._/]*$")


def get_next_unique_tensor_id() -> int:
    """A process-unique id for symbolic tensors and layer variables."""
    return next(_tensor_ids)


def get_uid(prefix: str = "") -> str:
    """``prefix`` followed by how many times it was asked for: ``'Dense1'``, ``'Dense2'``."""
    _uid_prefixes[prefix] = _uid_prefixes.get(prefix, 0) + 1
    return f"{prefix}{_uid_prefixes[prefix]}"


@contextmanager
def name_scope(name: str) -> Iterator[None]:
    """Prefixes names made inside the block with ``name/`` (nestable)."""
    _name_scope_stack.append(name)
    try:
        yield
    finally:
        _name_scope_stack.pop()


def is_valid_tensor_name(name: str) -> bool:
    """Whether ``name`` matches TF.js's ``/^[A-Za-z0-9][-A-Za-z0-9\\._\\/]*$/``."""
    return isinstance(name, str) and _VALID_NAME.match(name) is not None


def get_scoped_tensor_name(tensor_name: str) -> str:
    """``tensor_name`` under the current name scopes (not made unique)."""
    if not is_valid_tensor_name(tensor_name):
        raise LayersValueError(f"Not a valid tensor name: '{tensor_name}'")
    prefix = "/".join(_name_scope_stack)
    return f"{prefix}/{tensor_name}" if prefix else tensor_name


def get_unique_tensor_name(scoped_name: str) -> str:
    """``scoped_name`` the first time, then ``scoped_name_1``, ``scoped_name_2``..."""
    if not is_valid_tensor_name(scoped_name):
        raise LayersValueError(f"Not a valid tensor name: '{scoped_name}'")
    index = _name_map.get(scoped_name, 0)
    _name_map[scoped_name] = index + 1
    if index > 0:
        result = f"{scoped_name}_{index}"
        _name_map[result] = 1
        return result
    return scoped_name


_reset_hooks: list = []


def on_reset(hook) -> None:  # noqa: ANN001
    """Registers a cache to clear in :func:`_reset_for_tests`."""
    _reset_hooks.append(hook)


def _reset_for_tests() -> None:
    """Forgets every counter and name (tests only: TF.js never does this)."""
    global _tensor_ids
    for hook in _reset_hooks:
        hook()
    _tensor_ids = itertools.count()
    _uid_prefixes.clear()
    _name_map.clear()
    _name_scope_stack.clear()
