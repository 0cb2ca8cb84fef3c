"""benchmarks/soak.py: its meter finds a leak, and a short run of three workloads is clean
(the whole ``--quick`` run takes about 20 s, too long for the suite: run it by hand)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

import tidytensor as tf

_PATH = Path(__file__).resolve().parent.parent / "benchmarks" / "soak.py"


@pytest.fixture(scope="module")
def soak():
    spec = importlib.util.spec_from_file_location("soak", _PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules["soak"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_short_soak_is_clean(soak, capsys):
    assert soak.main(["--quick", "--only", "adam,threads,asyncio"]) == 0
    out = capsys.readouterr().out
    assert "no leaks" in out and out.count(" ok") == 3


def test_the_meter_reports_a_leak(soak, capsys, monkeypatch):
    kept = []

    def leaky(meter, scale):
        meter.start()
        for i in range(1, 1001):
            if i % 500 == 0:
                kept.append(tf.keep(tf.scalar(i)))  # two tensors nobody disposes
            meter.tick(i)

    monkeypatch.setitem(soak.WORKLOADS, "leaky", leaky)
    assert soak.main(["--only", "leaky"]) == 1
    out = capsys.readouterr().out
    assert "LEAKED: leaky" in out
    assert "leaky          1000       2       8" in out
    tf.dispose(kept)
