"""The documentation site (``mkdocs.yml``, ``docs/``): the API reference that
``scripts/gen_api_pages.py`` generates documents every public name, each section points
mkdocstrings at the object itself, ``tf.__all__`` holds every public name of ``tf``, and every
guide in ``docs/`` is in the site's navigation. (CI builds the site itself with
``mkdocs build --strict``.)"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
import types
from pathlib import Path

import pytest

import tidytensor as tf

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import api_names  # noqa: E402
import gen_api_pages  # noqa: E402
from griffe_docstrings import fence_doctests  # noqa: E402


def _resolve(path: str) -> object:
    """Imports ``a.b.c.Name.attr`` as documentation tools do: the longest importable module,
    then attributes."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            value = getattr(value, part)
        return value
    raise ImportError(path)


@pytest.fixture(scope="module")
def pages():
    """The generated reference pages (~3 s to make): made once, for this module's tests,
    which tests/conftest.py therefore runs on one pytest-xdist worker."""
    return gen_api_pages.reference_pages()


def test_every_public_name_has_a_section_that_documents_it(pages):
    text = "\n".join(pages.values())
    sections = dict(re.findall(r"^## `([^`]+)` \{ #[^}]+ \}\n\n(.+)$", text, re.M))
    names = api_names.public_objects()
    assert len(names) > 600
    missing = [name for name, _ in names if name not in sections]
    assert not missing, f"public names missing from the API reference: {missing}"
    for name, value in names:
        body = sections[name]
        if body.startswith("::: "):
            assert _resolve(body[4:]) is value, (name, body)
        elif isinstance(value, api_names.Unavailable):
            assert body.startswith("Needs an optional extra"), (name, body)
        elif callable(value):  # made at run time: signature and docstring by inspect
            assert body == "```python", (name, body)
        else:
            assert body == f"`{name} = {value!r}`", (name, body)


def test_every_namespace_has_a_page_listed_in_the_index(pages):
    index = pages["reference/index.md"]
    for namespace in ("tf", "tf.layers", "tf.train", "tf.losses", "tf.data", "tf.io",
                      "tf.errors", "tf.callbacks", "tf.config"):  # fmt: skip
        assert f"reference/{namespace}.md" in pages
        assert f"]({namespace}.md)" in index


def test_tf_all_lists_every_public_name_of_tf():
    """Anything public at the top level (defined in tidytensor, not a module) is in
    ``tf.__all__``, so the reference documents it."""
    unlisted = [
        name
        for name, value in vars(tf).items()
        if not name.startswith("_")
        and name not in tf.__all__
        and not isinstance(value, types.ModuleType)
        and (inspect.isclass(value) or inspect.isfunction(value))
        and value.__module__.startswith("tidytensor")
    ]
    assert not unlisted, f"public at tf.* but not in tf.__all__: {unlisted}"


def test_every_guide_is_in_the_navigation():
    config = (ROOT / "mkdocs.yml").read_text()
    nav = set(re.findall(r"^  - [^:]+: (\S+\.md)$", config, re.M))
    guides = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")}
    assert guides <= nav, f"docs pages missing from mkdocs.yml's nav: {sorted(guides - nav)}"
    assert all((ROOT / "docs" / page).is_file() for page in nav)
    assert re.search(r"^  - API reference: reference/$", config, re.M)  # its SUMMARY.md


def test_the_reference_navigation_lists_every_namespace(pages):
    summary = pages["reference/SUMMARY.md"].splitlines()
    assert summary[0] == "* [Overview](index.md)"
    assert summary[1:] == [f"* [{ns}]({ns}.md)" for ns in api_names.namespaces()]
    assert all(f"reference/{ns}.md" in pages for ns in api_names.namespaces())


def test_doctests_in_docstrings_render_as_code():
    doc = "Adds.\n\n>>> tf.add(1, 2).array_sync()\n3.0\n\nSee :class:`Tensor`.\n"
    assert fence_doctests(doc) == (
        "Adds.\n\n```pycon\n>>> tf.add(1, 2).array_sync()\n3.0\n```\n\nSee ``Tensor``."
    )


def test_guides_note_the_names_this_version_lacks():
    import docs_hooks

    assert docs_hooks.missing_names(["tf.tidy", "tf.train.adam"]) == []
    assert docs_hooks.missing_names(["tf.tidy", "tf.no_such_thing", "tf.train.nope"]) == [
        "tf.no_such_thing",
        "tf.train.nope",
    ]
    page = "# GPU\n\n<!-- requires: tf.tidy tf.no_such_thing -->\n\ntext\n"
    out = docs_hooks.on_page_markdown(page)
    assert '!!! note "Being built"' in out and "`tf.no_such_thing` is not in" in out
    assert "`tf.tidy`" not in out
    assert docs_hooks.on_page_markdown("<!-- requires: tf.tidy -->\nok") == "\nok"
