"""Public signatures are typed: every parameter and return of every public function
(``tf.*``, ``tf.layers.*``, ``tf.train.*``, ... as ``scripts/api_names.py`` walks them), and of
the public methods and constructors of public classes, carries an annotation, so
``help()``, IDEs and type checkers (the package ships ``py.typed``) see real types.
``__init__`` may leave out its return annotation (it returns ``None``, as type checkers
assume)."""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import api_names  # noqa: E402

#: Public callables allowed to stay unannotated, with the reason. Keep it short.
ALLOWED: dict[str, str] = {}


def _unannotated(fn: object, *, method: bool, init: bool) -> list[str]:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return ["<no signature>"]
    params = list(sig.parameters.values())[1 if method else 0 :]
    missing = [p.name for p in params if p.annotation is inspect.Parameter.empty]
    if sig.return_annotation is inspect.Signature.empty and not init:
        missing.append("return")
    return missing


def public_callables() -> list[tuple[str, object, bool, bool]]:
    """``(name, function, is_method, is_init)`` for every public function, and every public
    method and constructor of a public class (its own or inherited from tidytensor's)."""
    found = []
    for qualified, value in api_names.public_objects():
        if inspect.isclass(value):
            if not value.__module__.startswith("tidytensor"):
                continue
            members: dict[str, object] = {}
            for owner in reversed(value.__mro__):  # inherited from tidytensor classes too
                if owner.__module__.startswith("tidytensor"):
                    members.update(vars(owner))
            for name, member in members.items():
                if name.startswith("_") and name != "__init__":
                    continue
                if isinstance(member, (staticmethod, classmethod)):
                    found.append((f"{qualified}.{name}", member.__func__,
                                  isinstance(member, classmethod), False))  # fmt: skip
                elif inspect.isfunction(member):
                    found.append((f"{qualified}.{name}", member, True, name == "__init__"))
        elif inspect.isfunction(value) or inspect.isbuiltin(value) or callable(value):
            found.append((qualified, value, False, False))
    return found


def test_the_walk_finds_the_public_api():
    names = {name for name, *_ in public_callables()}
    assert {"tf.tensor", "tf.tidy", "tf.layers.dense", "tf.train.adam", "tf.Tensor.add",
            "tf.LayersModel.fit", "tf.io.file_system", "tf.data.array"} <= names  # fmt: skip
    assert len(names) > 1000


def test_every_public_signature_is_annotated():
    problems = []
    for name, fn, method, init in public_callables():
        missing = _unannotated(fn, method=method, init=init)
        if missing and name not in ALLOWED:
            problems.append(f"{name}: {', '.join(missing)}")
    assert not problems, (
        f"{len(problems)} public callables have unannotated parameters or returns (annotate "
        f"them, or add them to ALLOWED with a reason):\n" + "\n".join(sorted(set(problems)))
    )


def test_py_typed_ships_with_the_package():
    assert (ROOT / "src" / "tidytensor" / "py.typed").is_file()
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"py.typed"' in pyproject  # setuptools' package data
    try:  # installed (CI installs the package): the wheel's file list holds it
        import importlib.metadata as metadata

        files = metadata.files("tidytensor") or []
    except metadata.PackageNotFoundError:  # a PYTHONPATH=src checkout
        return
    assert any(str(f).endswith("tidytensor/py.typed") for f in files)
