"""The suite's layout collects from any set of test directories at once: tests/data and
tests/layers each hold a conftest.py outside any package (both named ``conftest``), and
pyproject's ``--doctest-modules`` used to import them a second time as doctest modules, so
``pytest tests/data tests/layers`` stopped at collection with "import file mismatch"."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_two_directories_with_their_own_conftest_collect_together():
    # Test modules are left out (--ignore-glob) to keep this quick: what failed was the
    # doctest collection of the conftest.py files, which still runs.
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "--collect-only",
        "-q",
        "-p",
        "no:cacheprovider",
        "--ignore-glob=*/test_*.py",
        "tests/data",
        "tests/layers",
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env, cwd=ROOT)
    out = proc.stdout + proc.stderr
    assert "import file mismatch" not in out, out
    # exit code 5: nothing collected (the test modules were left out) and no error (2)
    assert proc.returncode == 5, out
