"""The Python examples of the guides that describe what exists (``docs/getting-started.md``,
``docs/layers-and-training.md``) run as written, print what their comments say, and leave
no tensor behind (each example disposes what it made, models and optimizers included)."""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from pathlib import Path

import pytest

import tidytensor as tf

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = ["getting-started.md", "layers-and-training.md"]


def python_blocks(page: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", (DOCS / page).read_text(encoding="utf-8"), re.S)


def expected_prints(block: str) -> list[str]:
    """The ``# value`` comments on ``print(...)`` lines: what each prints."""
    return [m.group(1).split(":")[0].strip() for m in re.finditer(r"^print\(.*\)\s+# (.+)$", block, re.M)]


@pytest.mark.parametrize("page", PAGES)
def test_guide_examples_run_and_print_what_they_say(page, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    blocks = python_blocks(page)
    assert blocks
    for i, block in enumerate(blocks):
        before = tf.memory().num_tensors
        namespace: dict = {}
        out = io.StringIO()
        with warnings.catch_warnings():
            warnings.simplefilter("error", tf.LeakWarning)
            with contextlib.redirect_stdout(out):
                exec(compile(block, f"{page} block {i}", "exec"), namespace)
        printed = [line for line in out.getvalue().splitlines() if line.strip()]
        for expected in expected_prints(block):
            assert any(line.startswith(expected) for line in printed), (page, i, expected, printed)
        assert tf.memory().num_tensors == before, (page, i, tf.memory().num_tensors - before)
