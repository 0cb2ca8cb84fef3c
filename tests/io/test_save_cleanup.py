"""Temporaries a killed save leaves behind are removed by the next save of the same model;
those of a save still running, and anything that is not ours, are left alone."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from io_test_helpers import (  # noqa: F401 - autouse fixtures
    dense_model,
    files_in,
    fresh_layer_names,
    private_model_store,
)

import tidytensor as tf
from tidytensor.io import atomic

fcntl = pytest.importorskip("fcntl")


def temporaries(parent: Path) -> list[str]:
    return sorted(n for n in os.listdir(parent) if ".tidytensor-tmp-" in n)


def test_save_after_a_killed_save_removes_its_temporary(tmp_path):
    model = dense_model(seed=1)
    folder = tmp_path / "m"
    tf.io.save_model(model, str(folder))
    script = textwrap.dedent(
        f"""
        import os
        import tidytensor as tf
        from tidytensor import layers
        from tidytensor.io import atomic
        model = layers.models.sequential([layers.dense(units=3, input_shape=[4], name='m_d1')])
        real = atomic._write_file
        def crash(path, chunks):
            real(path, chunks)
            os._exit(17)   # killed after writing the first new file
        atomic._write_file = crash
        tf.io.save_model(model, {str(folder)!r})
        """
    )
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root / "src")}
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, timeout=120)
    assert proc.returncode == 17, proc.stderr.decode()
    assert len(temporaries(tmp_path)) == 1  # the killed save's
    tf.io.save_model(model, str(folder))
    assert temporaries(tmp_path) == []
    assert files_in(folder) == ["model.json", "weights.bin"]
    model.dispose()


def test_stale_temporaries_of_other_models_and_live_saves_are_kept(tmp_path):
    model = dense_model()
    folder = tmp_path / "m"
    stale = tmp_path / ".m.tidytensor-tmp-0123456789ab"
    stale_old = tmp_path / ".m.tidytensor-tmp-0123456789ac-old"
    live = tmp_path / ".m.tidytensor-tmp-aaaaaaaaaaaa"
    other_model = tmp_path / ".other.tidytensor-tmp-0123456789ab"
    not_ours = tmp_path / ".m.tidytensor-tmp-notours"
    for d in (stale, stale_old, live, other_model, not_ours):
        d.mkdir()
        (d / "model.json").write_text("{}")
    fd = os.open(live, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_SH)  # as a save in progress holds its directory
    try:
        tf.io.save_model(model, str(folder))
    finally:
        os.close(fd)
    assert temporaries(tmp_path) == sorted([live.name, other_model.name, not_ours.name])
    model.dispose()


def test_a_save_holds_its_temporary_while_writing(tmp_path, monkeypatch):
    """While a save writes, another save's cleanup cannot take its directory."""
    model = dense_model()
    folder = tmp_path / "m"
    seen = []
    real = atomic._write_file

    def write_and_try_to_lock(path, chunks):
        real(path, chunks)
        fd = os.open(os.path.dirname(path), os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            seen.append("lockable")
        except OSError:
            seen.append("held")
        finally:
            os.close(fd)

    monkeypatch.setattr(atomic, "_write_file", write_and_try_to_lock)
    tf.io.save_model(model, str(folder))
    assert seen and set(seen) == {"held"}
    model.dispose()
