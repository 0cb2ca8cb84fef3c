"""Writes the API reference (``docs/reference/*.md`` in the built site): one page per public
namespace (``scripts/api_names.py``), one section per public name, each rendered by
mkdocstrings from the object's docstring and signature. mkdocs runs this through the
``gen-files`` plugin (``mkdocs.yml``); ``python scripts/gen_api_pages.py OUT_DIR`` writes the
same pages to a folder.
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import api_names  # noqa: E402
from griffe_docstrings import fence_doctests  # noqa: E402


def page_file(namespace: str) -> str:
    return f"reference/{namespace}.md"


def _summary(module: object) -> str:
    doc = inspect.getdoc(module) or ""
    return doc.split("\n\n", 1)[0].strip()


def _by_hand(qualified: str, value: object) -> list[str]:
    """A section for an object mkdocstrings cannot import by path (made at run time): its
    signature and docstring as ``inspect`` reads them."""
    try:
        signature = str(inspect.signature(value))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        signature = "(...)"
    kind = "class " if inspect.isclass(value) else ""
    doc = fence_doctests(inspect.getdoc(value) or "")
    return ["```python", f"{kind}{qualified}{signature}", "```", "", doc, ""]


def _section(qualified: str, value: object) -> list[str]:
    lines = [f"## `{qualified}` {{ #{qualified} }}", ""]
    path = api_names.canonical_path(value)
    if isinstance(value, api_names.Unavailable):
        lines += [f"Needs an optional extra that is not installed here: {value.message}", ""]
    elif path is not None:
        lines += [f"::: {path}", "    options:", "      show_root_heading: true", ""]
    elif callable(value):
        lines += _by_hand(qualified, value)
    else:
        lines += [f"`{qualified} = {value!r}`", ""]
    return lines


def reference_pages() -> dict[str, str]:
    """``{'reference/tf.layers.md': markdown, ...}``, the index page and the navigation."""
    spaces = api_names.namespaces()
    module_ids = {id(m): name for name, m in spaces.items()}
    pages: dict[str, str] = {}
    index = [
        "# API reference",
        "",
        "Every public name, namespace by namespace, generated from the package's `__all__`",
        "lists and docstrings (`scripts/gen_api_pages.py`). TF.js's names in snake_case: see",
        "[Getting started](../getting-started.md) for the naming rule.",
        "",
        "| namespace | names | what it is |",
        "|---|---|---|",
    ]
    for namespace, module in spaces.items():
        lines = [f"# `{namespace}`", "", _summary(module), ""]
        subspaces = []
        count = 0
        for name in api_names.public_names(module):
            value = api_names.value_of(module, name)
            if id(value) in module_ids:
                subspaces.append(module_ids[id(value)])
                continue
            lines += _section(f"{namespace}.{name}", value)
            count += 1
        if subspaces:
            lines[4:4] = [
                "Namespaces: "
                + ", ".join(f"[`{s}`]({s}.md)" for s in subspaces)
                + ".",
                "",
            ]
        pages[page_file(namespace)] = "\n".join(lines)
        summary = _summary(module).split(". ")[0].replace("|", "\\|").replace("\n", " ")
        index.append(f"| [`{namespace}`]({namespace}.md) | {count} | {summary} |")
    pages["reference/index.md"] = "\n".join(index) + "\n"
    # The site's navigation of the reference (mkdocs-literate-nav reads it): every namespace.
    pages["reference/SUMMARY.md"] = "".join(
        ["* [Overview](index.md)\n"] + [f"* [{name}]({name}.md)\n" for name in spaces]
    )
    return pages


def write_pages(out: Path) -> None:
    for path, text in reference_pages().items():
        (out / path).parent.mkdir(parents=True, exist_ok=True)
        (out / path).write_text(text)


def write_gen_files() -> None:
    import mkdocs_gen_files

    for path, text in reference_pages().items():
        with mkdocs_gen_files.open(path, "w") as f:
            f.write(text)


if __name__ == "__main__":
    write_pages(Path(sys.argv[1]))
elif __name__ == "<run_path>":  # mkdocs's gen-files plugin
    write_gen_files()
