"""``python -m tidytensor demo`` / ``tidytensor demo``: the whole demo runs in a subprocess
(once, shared by the tests that read its output); the argument handling (``--only``,
``--list``, ``--help``, ``--version``, bad usage) is checked by calling ``cli.main`` here,
which is what ``python -m tidytensor`` calls (a subprocess each would only add interpreter
and import time)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import tidytensor
from tidytensor import cli, demo

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str, module: bool = True) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "tidytensor", *args] if module else [*args]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env, cwd=ROOT)


def sections(out: str) -> dict[str, str]:
    """The demo's output split by its ``=== title ===`` headers."""
    parts = re.split(r"^=== (.+) ===$", out, flags=re.M)
    assert parts[0] == ""
    return {title: body for title, body in zip(parts[1::2], parts[2::2], strict=True)}


def counts(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"^# of tensors: (\d+)$", text, flags=re.M)]


@pytest.fixture(scope="module")
def demo_output() -> str:
    proc = run("demo")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    return proc.stdout


def test_demo_runs_every_program_in_order(demo_output):
    assert list(sections(demo_output)) == [title for title, _ in demo.PROGRAMS]


def test_demo_memory_counts(demo_output):
    s = list(sections(demo_output).values())
    base = 5  # 4 weight variables and the input
    assert counts(s[0]) == [base + 1, base + 2, base + 3]  # seed: 14, 15, 16
    assert counts(s[1]) == [base] * 3
    assert counts(s[2]) == [base + 1] * 3
    assert counts(s[3]) == [base + 2, base + 4, base + 6]  # seed: 15, 17, 19
    assert counts(s[4]) == [base + 2] * 3
    for body in s[3:5]:
        assert body.count("winning index: 0\n") == 3


def test_demo_prints_predictions_in_the_seed_layout(demo_output):
    s = list(sections(demo_output).values())
    for body in s[:3]:
        rows = re.findall(r"^Tensor\n     \[\[(.+)\],\]$", body, flags=re.M)
        assert len(rows) == 3 and rows[0] == rows[1] == rows[2]
        probabilities = [float(p) for p in rows[0].split(", ")]
        assert len(probabilities) == 3 and abs(sum(probabilities) - 1) < 1e-5


def test_demo_normalize(demo_output):
    body = sections(demo_output)["Memory: normalize() without and with tf.tidy()"]
    assert "without tf.tidy(): 5 (the result and 3 leaked tensors)" in body
    assert "with tf.tidy(): 5 (the result and 0 leaked tensors)" in body
    assert "Tensor\n    [-0.2738613, -0.0912871, 0.0912871, 0.2738613]" in body
    assert "the result is disposed: False" in body


def test_demo_basics_output(demo_output):
    s = sections(demo_output)
    assert s["Basics: tensors"] == (
        "\n"
        + "Tensor\n    [[1 , 2 , 3 ],\n     [10, 20, 30]]\n" * 3
        + "Tensor\n    [[0, 0, 0, 0, 0],\n     [0, 0, 0, 0, 0],\n     [0, 0, 0, 0, 0]]\n\n"
    )
    assert (
        s["Basics: variables"] == "\nTensor\n    [0, 0, 0, 0, 0]\nTensor\n    [0, 1, 0, 1, 0]\n\n"
    )
    assert s["Basics: operations"] == (
        "\nTensor\n    [[1, 4 ],\n     [9, 16]]\n"
        "Tensor\n    [[6 , 8 ],\n     [10, 12]]\n"
        "Tensor\n    [[36 , 64 ],\n     [100, 144]]\n"
        "Tensor\n    [[36 , 64 ],\n     [100, 144]]\n\n"
    )
    assert s["Basics: a model written with ops: y = 2x^2 + 4x + 8"] == "\nTensor\n    24\n\n"
    assert counts(s["Basics: dispose"]) == [2, 0]
    assert s["Basics: tf.tidy"] == "\nTensor\n    3.5\n# of tensors: 1\n\n"
    keeps = s["Basics: tf.tidy does not clean up variables"]
    assert counts(keeps) == [1, 0]
    assert "the variable is disposed: False\nTensor\n    [3, 4]\n" in keeps


def main_here(capsys, *args: str) -> tuple[int, str, str]:
    """``cli.main(args)`` in this process, argparse's exits included: (code, stdout, stderr)."""
    try:
        code = cli.main(list(args))
    except SystemExit as exit_:  # --help, --version, usage errors
        code = exit_.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_only_and_list(capsys):
    code, out, err = main_here(capsys, "demo", "--only", "normalize")
    assert code == 0, err
    assert list(sections(out)) == ["Memory: normalize() without and with tf.tidy()"]
    # The titles' old numbers still select their programs.
    code, out, err = main_here(capsys, "demo", "--only", "001")
    assert code == 0, err
    assert all(t.startswith("Basics: ") for t in sections(out))
    code, out, _ = main_here(capsys, "demo", "--help")
    assert code == 0 and "seed" not in out.lower()
    code, out, _ = main_here(capsys, "demo", "--list")
    assert code == 0
    assert out.splitlines() == [title for title, _ in demo.PROGRAMS]


def test_bad_usage(capsys):
    code, _, err = main_here(capsys, "demo", "--only", "no-such-program")
    assert code == 2 and "no program title contains no-such-program" in err
    code, out, _ = main_here(capsys)
    assert code == 2 and "demo" in out
    code, _, err = main_here(capsys, "frobnicate")
    assert code == 2 and "invalid choice" in err


def test_version(capsys):
    code, out, _ = main_here(capsys, "--version")
    assert code == 0 and out.strip() == f"tidytensor {tidytensor.__version__}"


def test_main_in_process(capsys):
    assert cli.main(["demo", "--only", "Basics: tf.tidy does"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("=== Basics: tf.tidy does not clean up variables ===\n# of tensors: 1\n")


@pytest.mark.skipif(shutil.which("tidytensor") is None, reason="console script not installed")
def test_console_script():
    proc = run(shutil.which("tidytensor"), "demo", "--only", "y = 2x", module=False)
    assert proc.returncode == 0, proc.stderr
    assert (
        proc.stdout
        == "=== Basics: a model written with ops: y = 2x^2 + 4x + 8 ===\nTensor\n    24\n"
    )


@pytest.mark.parametrize("script", ["memory_dispose_and_tidy.py", "tensor_basics.py"])
def test_examples_run(script):
    cmd = [sys.executable, str(ROOT / "examples" / script)]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    # The examples run tidytensor.demo's programs (each program is written once).
    if script.startswith("memory"):
        assert "# of tensors: 6\n" in proc.stdout and "# of tensors: 11\n" in proc.stdout
        assert "without tf.tidy(): 5 (the result and 3 leaked tensors)\n" in proc.stdout
        assert "with tf.tidy(): 5 (the result and 0 leaked tensors)\n" in proc.stdout
        assert all(title.startswith("Memory: ") for title in sections(proc.stdout))
    else:
        assert "=== Basics: a model written with ops: y = 2x^2 + 4x + 8 ===\nTensor\n    24\n" in (
            proc.stdout
        )
        assert "=== Basics: tf.tidy ===\nTensor\n    3.5\n" in proc.stdout
        assert all(title.startswith("Basics: ") for title in sections(proc.stdout))


def test_demo_trains_iris_with_flat_memory(demo_output):
    body = sections(demo_output)["Iris: train a classifier with fit(), then 1,000 predict() calls"]
    assert body.startswith("\n120 training and 30 held-out flowers, 4 features each\n")
    # Not a terminal (captured): one progress line per epoch.
    epochs = re.findall(
        r"^Epoch (\d+)/30 - \d+s \d+(?:s|ms|us)/step - loss: (\S+) - acc: (\S+)$", body, flags=re.M
    )
    assert [int(e) for e, _, _ in epochs] == list(range(1, 31))
    losses = [float(loss) for _, loss, _ in epochs]
    assert losses[-1] < losses[0] / 3
    assert float(epochs[-1][2]) >= 0.9
    per_epoch = re.search(
        r"^# of tensors at the end of each epoch: ([\d, ]+) \(flat\)$", body, re.M
    )
    assert per_epoch and len(set(per_epoch.group(1).split(", "))) == 1
    accuracy = re.search(r"^held-out accuracy: ([\d.]+) \((\d+)/30\)$", body, flags=re.M)
    assert accuracy and float(accuracy.group(1)) >= 0.9
    before = re.search(
        r"^# of tensors before 1,000 predict\(\) calls, each inside tf.tidy\(\): (\d+)$", body, re.M
    )
    assert before and f"\n# of tensors after each of them: {before.group(1)}\n" in body
