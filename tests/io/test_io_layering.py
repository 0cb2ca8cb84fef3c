"""``tf.io`` is the format layer: it never imports the Layers API (the Layers API registers
``load_layers_model``, ``save_model`` and ``model_from_artifacts`` into ``tf.io``)."""

from __future__ import annotations

import ast
from pathlib import Path

import tidytensor as tf
import tidytensor.io as io_package
from tidytensor.layers.engine import saving

IO_DIR = Path(io_package.__file__).parent


def _imported_modules(path: Path) -> list[str]:
    """Absolute names of the modules ``path`` imports (relative imports resolved)."""
    package = ["tidytensor", "io"]
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            names.append(module)
            names.extend(f"{module}.{alias.name}" for alias in node.names)
    return names


def test_no_io_module_imports_the_layers_api() -> None:
    offending = {
        f"{path.name}: {name}"
        for path in sorted(IO_DIR.glob("*.py"))
        for name in _imported_modules(path)
        if name == "tidytensor.layers" or name.startswith("tidytensor.layers.")
    }
    assert not offending


def test_the_layers_api_registers_its_model_functions_in_tf_io() -> None:
    assert tf.io.load_layers_model is saving.load_layers_model is tf.load_layers_model
    assert tf.io.save_model is saving.save_model
    assert tf.io.model_from_artifacts is saving.model_from_artifacts
    assert {"load_layers_model", "save_model", "model_from_artifacts"} <= set(tf.io.__all__)
