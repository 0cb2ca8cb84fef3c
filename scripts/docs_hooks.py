"""MkDocs hooks (``mkdocs.yml``): a guide marks the names it describes with
``<!-- requires: tf.function tf.config.run_functions_eagerly -->``; where one of them is
missing from the tidytensor being documented, the page gets a note saying so, naming them,
instead of describing them as if they were there. When they land, the note goes away by
itself."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))  # the checkout's package

import tidytensor  # noqa: E402

_MARKER = re.compile(r"<!-- requires: ([^>]*?) -->")


def missing_names(names: list[str]) -> list[str]:
    """The names of ``names`` (``tf.x.y``) that this tidytensor does not have."""
    missing = []
    for name in names:
        value: Any = tidytensor
        for part in name.split(".")[1:]:
            value = getattr(value, part, None)
            if value is None:
                missing.append(name)
                break
    return missing


def _note(match: re.Match[str]) -> str:
    missing = missing_names(match.group(1).split())
    if not missing:
        return ""
    names = ", ".join(f"`{name}`" for name in missing)
    return (
        '!!! note "Being built"\n'
        f"    {names} {'is' if len(missing) == 1 else 'are'} not in this version of tidytensor "
        "yet. This section describes the API the project has specified for them; the "
        "[API reference](reference/index.md) lists what this version has.\n"
    )


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    return _MARKER.sub(_note, markdown)
