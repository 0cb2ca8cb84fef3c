"""Process-global naming state of the Layers API (TF.js's ``backend/state.ts`` and ``common.ts``).

- :func:`get_uid` gives per-prefix counters: ``get_uid('Dense')`` → ``'Dense1'``, then
  ``'Dense2'``. Layer names (``dense_Dense1``), input names (``input1``) and model names
  (``model1``, ``sequential_1``) come from it.
- :func:`name_scope` nests names while a layer builds (``dense_Dense1/kernel``).
- :func:`get_unique_tensor_name` makes weight and symbolic-tensor names unique for the whole
  process: the second ``dense_Dense1/kernel`` is named ``dense_Dense1/kernel_1``. As in TF.js,
  ``tf.engine().reset()`` does not clear the map, so loading the same model twice works. Unlike
  TF.js, a name is released when what holds it is disposed (:func:`release_tensor_name`: a
  weight's ``dispose``, a layer's at reference count 0): once every name made from
  ``dense_Dense1/kernel`` is released, the map forgets it, so loading and disposing a model
  again and again does not grow the map. While names are held, naming is TF.js's. A model
  dropped without ``dispose`` keeps its names (as every name in TF.js), and the tensor of an
  ``Input`` shared by two models is released when the first of them is disposed.

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
    "record_names",
    "release_tensor_name",
    "stop_recording_names",
]

_tensor_ids = itertools.count()
_uid_prefixes: dict[str, int] = {}
_name_map: dict[str, int] = {}
#: How many live names keep each key of ``_name_map`` (names made without an owner never go).
_name_holds: dict[str, int] = {}
#: Owner id -> the ``_name_map`` keys its name holds.
_owned: dict[int, tuple[str, ...]] = {}
#: Owner ids made inside each active :func:`names_released_on_failure` block.
_recorders: list[list[int]] = []
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


def get_unique_tensor_name(scoped_name: str, owner: int | None = None) -> str:
    """``scoped_name`` the first time, then ``scoped_name_1``, ``scoped_name_2``...

    ``owner`` (the id of the weight or symbolic tensor named) lets :func:`release_tensor_name`
    give the name back when the owner is disposed."""
    if not is_valid_tensor_name(scoped_name):
        raise LayersValueError(f"Not a valid tensor name: '{scoped_name}'")
    index = _name_map.get(scoped_name, 0)
    _name_map[scoped_name] = index + 1
    result = scoped_name
    if index > 0:
        result = f"{scoped_name}_{index}"
        _name_map[result] = 1
    keys = (scoped_name,) if result == scoped_name else (scoped_name, result)
    for key in keys:
        _name_holds[key] = _name_holds.get(key, 0) + 1
    if owner is not None:
        release_tensor_name(owner)  # an owner holds one name
        _owned[owner] = keys
        for made in _recorders:
            made.append(owner)
    return result


def release_tensor_name(owner: int) -> None:
    """Gives back the name made for ``owner`` (a second call does nothing). A key of the
    name map held by no live name is forgotten: the next request starts again at the bare
    name, as no live name can collide with it."""
    keys = _owned.pop(owner, None)
    if keys is None:
        return
    for key in keys:
        left = _name_holds.get(key, 0) - 1
        if left > 0:
            _name_holds[key] = left
        else:
            _name_holds.pop(key, None)
            _name_map.pop(key, None)


def record_names() -> list[int]:
    """Starts recording the owners of the names made from now on (a load that may fail);
    end with :func:`stop_recording_names`."""
    made: list[int] = []
    _recorders.append(made)
    return made


def stop_recording_names(made: list[int], release: bool) -> None:
    """Stops the recording ``made``; ``release``: gives back every name it recorded (a failed
    load's weights and tensors are freed without their ``dispose``)."""
    if any(r is made for r in _recorders):
        _recorders[:] = [r for r in _recorders if r is not made]
    if release:
        for owner in made:
            release_tensor_name(owner)


def held_name_count() -> int:
    """How many keys the unique-name map holds (for tests of its growth)."""
    return len(_name_map)


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
    _name_holds.clear()
    _owned.clear()
    _name_scope_stack.clear()
