"""``import tidytensor`` leaves out the standard library's networking and asyncio: the modules
that use them (``data.csv`` for URLs, ``io.http``, async data sources and callbacks, Ray's
collectives) import them when called. With them, ``asyncio`` and ``urllib.request`` (which
brings ``http.client``, ``ssl`` and ``email``) were ~75 ms of a ~460 ms import, paid by every
``tidytensor`` command and every process a test starts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

LAZY = ("asyncio", "urllib.request", "http.client", "ssl", "email.parser")

PROGRAM = f"""
import sys
import tidytensor as tf
assert tf.add(1, 2).array_sync() == 3.0
print("LOADED=" + ",".join(m for m in {LAZY!r} if m in sys.modules))
"""


def test_import_leaves_networking_and_asyncio_out():
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), *filter(None, [env.get("PYTHONPATH")])])
    proc = subprocess.run(
        [sys.executable, "-c", PROGRAM], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert "LOADED=\n" in proc.stdout, proc.stdout
