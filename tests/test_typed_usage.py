"""Type checkers read tidytensor's annotations (``py.typed``): mypy checks a small program that
uses ``tf.*`` ops, scopes, optimizers and a model, and finds the types the annotations give.
``tf.*``'s ops come from ``from .ops import *``, whose ``__all__`` is built at import time, so
``tidytensor/__init__.py`` spells the star imports out under ``TYPE_CHECKING``: without them
mypy took ``tf.tensor`` for the ``tidytensor.tensor`` module (``tf.layers``' factories likewise:
``layers/__init__.py`` collects them in a loop); and ``@op`` (ops/_op.py) keeps the
decorated op's signature for type checkers (it returned ``Any``)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tidytensor.ops

ROOT = Path(__file__).resolve().parents[1]

USAGE = '''
import tidytensor as tf

x: tf.Tensor = tf.tensor([[1.0, 2.0], [3.0, 4.0]])
ones: tf.Tensor = tf.ones([2, 2])
total: tf.Tensor = tf.add(x, ones)  # ops keep their signatures through the @op decorator
y = tf.tidy(lambda: x)
opt: tf.AdamOptimizer = tf.train.adam(0.01)
model: tf.Sequential = tf.sequential()
model.add(tf.layers.dense(units=2, input_shape=[2]))
model.add(tf.layers.relu())
live: int = tf.memory().num_tensors
history: tf.History = model.fit(x, ones, epochs=1, verbose=0)
reveal_type(tf.tensor)
reveal_type(tf.add)
reveal_type(tf.layers.dense)
'''


def test_type_checking_star_imports_match_the_op_families():
    tree = ast.parse((ROOT / "src" / "tidytensor" / "__init__.py").read_text())
    spelled = [
        node.module.rsplit(".", 1)[1]
        for block in tree.body
        if isinstance(block, ast.If) and ast.unparse(block.test) == "TYPE_CHECKING"
        for node in block.body
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ops.")
    ]
    families = [module.__name__.rsplit(".", 1)[1] for module in tidytensor.ops.FAMILIES]
    assert sorted(spelled) == sorted(families)


def _type_checking_imports(path: Path) -> tuple[list[str], list[str]]:
    """The modules star-imported and the names assigned under ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text())
    modules, names = [], []
    for block in tree.body:
        if isinstance(block, ast.If) and ast.unparse(block.test) == "TYPE_CHECKING":
            for node in block.body:
                if isinstance(node, ast.ImportFrom) and node.module:
                    modules.append(node.module.rsplit(".", 1)[-1])
                elif isinstance(node, ast.Assign):
                    names += [target.id for target in node.targets if isinstance(target, ast.Name)]
    return modules, names


def test_type_checking_star_imports_match_the_layer_families():
    import tidytensor.layers as layers

    modules, aliases = _type_checking_imports(ROOT / "src" / "tidytensor" / "layers" / "__init__.py")
    assert sorted(modules) == sorted(layers._FAMILIES)
    assert set(aliases) <= set(layers._ALIASES)


def test_mypy_reads_the_annotations(tmp_path):
    pytest.importorskip("mypy", reason="needs the test extra's mypy (pip install '.[test]')")
    program = tmp_path / "usage.py"
    program.write_text(USAGE)
    env = {**os.environ, "MYPYPATH": str(ROOT / "src")}
    cmd = [
        sys.executable, "-m", "mypy", "--follow-imports=silent", "--ignore-missing-imports",
        "--no-incremental", "--cache-dir", str(tmp_path / "cache"), str(program),
    ]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    out = proc.stdout + proc.stderr
    assert 'Revealed type is "def (values: Any' in out and "tidytensor.tensor.Tensor" in out, out
    assert 'Revealed type is "def (a: Any, b: Any) -> tidytensor.tensor.Tensor"' in out, out
    assert "Revealed type is \"def (" in out.split("reveal_type(tf.layers.dense)")[-1], out
    assert out.count("Revealed type is") == 3 and "Any\"\n" not in out, out
    assert "error" not in out, out
