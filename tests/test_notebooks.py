"""``fit()``'s progress bar and ``model.summary()`` in Jupyter: a real notebook
(``tests/notebooks/fit_and_summary.ipynb``) executed by ``jupyter nbconvert --execute`` in a
kernel, and its saved outputs checked: the summary as plain text, and one progress output per
epoch, redrawn in place (display updates) rather than carriage-return lines."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "tests" / "notebooks" / "fit_and_summary.ipynb"

pytest.importorskip("nbconvert", reason="needs the test extra's nbconvert (pip install '.[test]')")
pytest.importorskip("ipykernel", reason="needs the test extra's ipykernel (pip install '.[test]')")


def _text(output: dict, mime: str = "text/plain") -> str:
    if output["output_type"] == "stream":
        value = output["text"]
    else:
        value = output.get("data", {}).get(mime, "")
    return "".join(value) if isinstance(value, list) else value


@pytest.fixture(scope="module")
def executed(tmp_path_factory) -> list[list[dict]]:
    """The outputs of each code cell after a run through ``jupyter nbconvert --execute``."""
    work = tmp_path_factory.mktemp("notebook")
    shutil.copy(NOTEBOOK, work / NOTEBOOK.name)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    cmd = [
        sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute",
        "--ExecutePreprocessor.timeout=240", "--output", "executed.ipynb", NOTEBOOK.name,
    ]  # fmt: skip
    proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    notebook = json.loads((work / "executed.ipynb").read_text())
    return [cell["outputs"] for cell in notebook["cells"] if cell["cell_type"] == "code"]


def test_summary_prints_the_table_as_text(executed):
    outputs = executed[0]
    assert [o["output_type"] for o in outputs] == ["stream"]
    text = _text(outputs[0])
    assert "hidden (Dense)" in text and "out (Dense)" in text
    assert "Total params: 21\n" in text and "\r" not in text


def test_fit_draws_one_progress_output_per_epoch_in_place(executed):
    outputs = executed[1]
    for output in outputs:
        for mime in ("text/plain", "text/html"):
            assert "\r" not in _text(output, mime), output
    assert not [o for o in outputs if o["output_type"] == "stream"], outputs
    bars = [o for o in outputs if o["output_type"] == "display_data"]
    assert len(bars) == 3, outputs
    for epoch, bar in enumerate(bars, 1):
        plain = _text(bar)
        title, line = plain.split("\n")
        assert title == f"Epoch {epoch}/3"
        assert line.startswith("8/8 [" + "=" * 30 + "] - ") and " - loss: " in line, plain
        page = _text(bar, "text/html")
        assert '<progress value="8" max="8"></progress>' in page and "loss: " in page
    assert _text(outputs[-1]) == "3"  # the cell's value: history has 3 epochs
