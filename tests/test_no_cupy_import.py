"""tidytensor never imports CuPy unless asked to (STYLE.md practice 8): importing the package
and running an op on the default backend leaves ``cupy`` out of ``sys.modules``.

The check runs in a fresh interpreter, once as the environment is and once with an
importable stand-in ``cupy`` package first on the path, so that it can fail even on machines
without CuPy (a backend probing for CuPy must use ``importlib.util.find_spec``, which does
not import it). The program runs with ``CUDA_VISIBLE_DEVICES=""``: where a device is
visible, the ``'cupy'`` backend is the default and importing CuPy is right.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"

PROGRAM = """
import sys
import tidytensor as tf
assert tf.add(1, 2).array_sync() == 3.0
tf.memory()
assert tf.get_backend() == "cpu", tf.get_backend()
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("cupy", "cupyx", "cupy_backends"))
print("CUPY_MODULES=" + ",".join(loaded))
"""


@pytest.mark.parametrize("stand_in", [False, True], ids=["environment", "stand-in-cupy"])
def test_import_and_add_do_not_import_cupy(tmp_path, stand_in):
    paths = [str(SRC)]
    if stand_in:
        package = tmp_path / "cupy"
        package.mkdir()
        (package / "__init__.py").write_text('"""A stand-in: importing it is the failure."""\n')
        paths.insert(0, str(tmp_path))
    env = dict(os.environ)
    env["CUDA_VISIBLE_DEVICES"] = ""  # no device: the 'cupy' backend is not registered
    env["PYTHONPATH"] = os.pathsep.join(
        paths + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    )
    proc = subprocess.run(
        [sys.executable, "-c", PROGRAM],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if line.startswith("CUPY_MODULES=")]
    assert lines == ["CUPY_MODULES="], proc.stdout


def test_the_check_sees_an_import_of_cupy(tmp_path):
    """The probe itself works: a program that does import the stand-in is reported."""
    package = tmp_path / "cupy"
    package.mkdir()
    (package / "__init__.py").write_text("")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(SRC)]))
    proc = subprocess.run(
        [sys.executable, "-c", "import cupy\n" + PROGRAM],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "CUPY_MODULES=cupy" in proc.stdout
