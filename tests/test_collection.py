"""The suite's layout collects from any set of test directories at once: tests/data and
tests/layers each hold a conftest.py outside any package (both named ``conftest``), and
pyproject's ``--doctest-modules`` used to import them a second time as doctest modules, so
``pytest tests/data tests/layers`` stopped at collection with "import file mismatch"."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.xdist_group("grouping_probe")
def test_xdist_groups_reach_the_workers(request):
    """README's ``-n auto --dist loadgroup`` keeps the tests that share a module fixture on
    one worker (tests/conftest.py groups them) only if pytest-xdist can tag their node ids
    with the group. pytest-xdist 3.8 writes ``Node._nodeid``, which pytest 9.2 no longer
    reads: then every group is silently ignored and each worker builds the shared fixtures
    again (pyproject pins ``pytest<9.2``)."""
    # A worker's config says dist "no"; pytest-xdist keeps the mode in option.loadgroup.
    if not os.environ.get("PYTEST_XDIST_WORKER") or not getattr(
        request.config.option, "loadgroup", False
    ):
        pytest.skip("runs under pytest-xdist with --dist loadgroup (README's test command)")
    assert request.node.nodeid.endswith("@grouping_probe"), request.node.nodeid


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
