"""The doctests of src/ leave no leaks behind for interpreter exit: the root conftest.py
resets the engine after each one (examples are not leak-checked and often leave their
results alive). Before, the README's test command ended with ~600 ``LeakWarning`` lines,
the leaks of the doctests each worker ran last, reported by the engine's exit hook."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_doctests_leave_no_leak_warnings_for_exit():
    # tidytensor/__init__.py's example leaves the result of its tidy() alive.
    assert (
        "tf.tidy(lambda: tf.tensor([1, 2, 3]).add(1)).array_sync()"
        in (ROOT / "src" / "tidytensor" / "__init__.py").read_text()
    )
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider",
         "-p", "no:hypothesispytest", "src/tidytensor/__init__.py"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "LeakWarning" not in proc.stdout + proc.stderr, proc.stderr
