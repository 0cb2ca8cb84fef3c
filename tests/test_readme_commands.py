"""README.md opens with a Quickstart of exactly two commands, and CI (``.ci/run``) runs the
second one, the test command, character for character."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def quickstart_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", section, re.S)]


def test_quickstart_is_two_commands_demo_then_tests():
    demo, tests = quickstart_commands()
    assert demo == "pip install . && tidytensor demo"
    # Editable: the tests import tidytensor from src/, where -e builds the compiled parts.
    assert tests.startswith("pip install -e '.[test]' && python -m pytest")


def test_ci_runs_the_readme_test_command():
    _, tests = quickstart_commands()
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert tests in ci_lines
