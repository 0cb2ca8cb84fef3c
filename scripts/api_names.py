"""The public API, namespace by namespace: what the API reference documents
(``scripts/gen_api_pages.py``) and what the API tests walk (``tests/test_api_reference.py``,
``tests/test_public_annotations.py``).

A namespace is ``tf`` itself or a module reachable from it through the ``__all__`` lists
(``tf.layers``, ``tf.train``, ``tf.io``, ...), plus ``tf.errors``. Its public names are its
``__all__``; a module without one (``tf.errors``) exports the functions and classes defined in
it whose names don't start with ``_``. New names appear in the reference as soon as they are
exported.
"""

from __future__ import annotations

import importlib
import inspect
import types
from typing import Any

import tidytensor

#: Public namespaces that ``tf.__all__`` does not list.
EXTRA_NAMESPACES = ("errors",)


def public_names(module: types.ModuleType) -> list[str]:
    """The names ``module`` exports, in ``__all__``'s order (sorted without one)."""
    exported = getattr(module, "__all__", None)
    if exported is not None:
        return list(dict.fromkeys(exported))
    return sorted(
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and (inspect.isclass(value) or inspect.isfunction(value))
        and value.__module__ == module.__name__
    )


def namespaces() -> dict[str, types.ModuleType]:
    """``{'tf': tidytensor, 'tf.layers': ..., ...}``: every public namespace, ``tf`` first,
    then the rest in the order they are found."""
    found: dict[str, types.ModuleType] = {"tf": tidytensor}
    todo = ["tf"]
    for extra in EXTRA_NAMESPACES:
        found[f"tf.{extra}"] = getattr(tidytensor, extra)
    while todo:
        prefix = todo.pop(0)
        module = found[prefix]
        for name in public_names(module):
            value = value_of(module, name)
            if isinstance(value, types.ModuleType) and value.__name__.startswith("tidytensor"):
                qualified = f"{prefix}.{name}"
                if qualified not in found and value not in found.values():
                    found[qualified] = value
                    todo.append(qualified)
    return found


class Unavailable:
    """A public name whose value needs an optional extra that is not installed (made lazily
    by the module's ``__getattr__``): what importing it said."""

    def __init__(self, message: str):
        self.message = message

    def __repr__(self) -> str:
        return f"Unavailable({self.message!r})"


def value_of(module: types.ModuleType, name: str) -> Any:
    """``getattr(module, name)``, or an :class:`Unavailable` if it needs a missing extra."""
    try:
        return getattr(module, name)
    except ImportError as exc:
        return Unavailable(str(exc))


def public_objects() -> list[tuple[str, Any]]:
    """``[('tf.layers.dense', <function dense>), ...]``: every public name that is not itself a
    namespace, with its value."""
    spaces = namespaces()
    modules = set(map(id, spaces.values()))
    objects = []
    for prefix, module in spaces.items():
        for name in public_names(module):
            value = value_of(module, name)
            if id(value) not in modules:
                objects.append((f"{prefix}.{name}", value))
    return objects


def resolve(path: str) -> Any:
    """Imports ``a.b.c.Name.attr`` as documentation tools do: the longest importable module,
    then attributes (``KeyError`` / ``AttributeError`` where one is missing)."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for i, part in enumerate(parts[cut:]):
            # a module's own names only: one its __getattr__ makes on demand is no path
            value = vars(value)[part] if i == 0 else getattr(value, part)
        return value
    raise ImportError(path)


def canonical_path(value: Any) -> str | None:
    """Where ``value`` is defined (``tidytensor.ops.creation.tensor``), as documentation
    tools import it; ``None`` for a plain value (a string constant) or an object that no
    import path reaches (made at run time)."""
    module = getattr(value, "__module__", None)
    qualname = getattr(value, "__qualname__", None)
    if not (inspect.isclass(value) or callable(value)) or module is None or qualname is None:
        return None
    if "<locals>" in qualname:
        return None
    path = f"{module}.{qualname}"
    try:  # made at run time (a class built on first use): no importable path
        found = resolve(path)
    except (ImportError, AttributeError, KeyError):
        return None
    return path if found is value else None
