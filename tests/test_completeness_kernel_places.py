"""Completeness, check (g): every kernel is found in the same four places by its family name.

For each kernel registered for ``'cpu'`` (TF.js's and tidytensor's fused ``Tidy*`` ones
alike), with ``<family>`` the one ``backends/xp_kernels/<family>.py`` module defining it:

1. its name is a constant of ``kernel_names/tfjs.py`` (TF.js's kernels) or of
   ``kernel_names/<family>.py`` (tidytensor's own), never of another family's file;
2. ``ops/<family>.py`` runs it (a kernel run only by a gradient, such as ``AvgPoolGrad``,
   may be named by ``gradients/<family>.py`` instead);
3. where it has a gradient, ``gradients/<family>.py`` registers it.

Outside ops/ and gradients/, code runs no ``Tidy*`` kernel itself: layers and optimizers
call the family's op. And the shape geometry ops and kernels share lives below both, in
``geometry/``.
"""

from __future__ import annotations

import ast
import importlib
from functools import cache
from pathlib import Path

import pytest

import package_sources
import tidytensor
from completeness_catalog import INTERNAL_FAMILIES
from package_sources import source_nodes
from tidytensor.backends.array_backend import FAMILIES as KERNEL_FAMILIES
from tidytensor.kernel_registry import get_gradient, get_kernels_for_backend

SRC = Path(tidytensor.__file__).resolve().parent
#: kernel_names/<stem>.py by stem: ``tfjs`` (TF.js's names) and one module per fused family
KERNEL_NAME_FILES = {p.stem: p for p in (SRC / "kernel_names").glob("*.py") if p.stem != "__init__"}


@cache
def _kernel_name_module(stem: str):
    return importlib.import_module(f"tidytensor.kernel_names.{stem}")


def _constants(stem: str) -> dict[str, str]:
    """A kernel-names module's constants: ``{constant: kernel name}``."""
    return {
        n: v
        for n, v in vars(_kernel_name_module(stem)).items()
        if n.isupper() and isinstance(v, str)
    }


@cache
def _kernels_named_in(path: Path) -> frozenset[str]:
    """Kernel names a source file spells through a kernel-names module: ``k.ADD`` with
    ``k`` bound to the ``kernel_names`` package (TF.js's names) or one of its family
    modules, or a constant imported from one."""
    if not path.exists():
        return frozenset()
    nodes = source_nodes(path)
    aliases: dict[str, str] = {}
    named: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.ImportFrom):
            source = _kernel_name_stem(node.module or "")
            for alias in node.names:
                bound = alias.asname or alias.name
                if alias.name == "kernel_names":
                    aliases[bound] = "tfjs"
                elif source == "package" and alias.name in KERNEL_NAME_FILES:
                    aliases[bound] = alias.name
                elif source == "package" and alias.name in _constants("tfjs"):
                    named.add(_constants("tfjs")[alias.name])
                elif source in KERNEL_NAME_FILES and alias.name in _constants(source):
                    named.add(_constants(source)[alias.name])
    for node in nodes:
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
        ):
            value = _constants(aliases[node.value.id]).get(node.attr)
            if value is not None:
                named.add(value)
    return frozenset(named)


def _kernel_name_stem(module: str) -> str | None:
    """``'package'`` for an import from ``kernel_names`` itself, the stem for one from
    ``kernel_names.<stem>``, else None."""
    parts = module.split(".")
    if parts[-1] == "kernel_names":
        return "package"
    if len(parts) >= 2 and parts[-2] == "kernel_names" and parts[-1] in KERNEL_NAME_FILES:
        return parts[-1]
    return None


def _kernel_families() -> dict[str, list[str]]:
    """Each kernel name -> the xp_kernels family modules that define it."""
    families: dict[str, list[str]] = {}
    for family in KERNEL_FAMILIES:
        module = importlib.import_module(f"tidytensor.backends.xp_kernels.{family}")
        for table in ("KERNELS", "RAW_KERNELS"):
            for name in getattr(module, table, {}):
                families.setdefault(name, []).append(family)
    return families


FAMILY_OF = _kernel_families()
CPU_KERNELS = sorted({c.kernel_name for c in get_kernels_for_backend("cpu")})


def test_every_cpu_kernel_comes_from_one_family_module():
    misplaced = {name: FAMILY_OF.get(name, []) for name in CPU_KERNELS}
    misplaced = {name: fams for name, fams in misplaced.items() if len(fams) != 1}
    assert not misplaced, (
        "cpu kernels defined by no backends/xp_kernels/<family>.py module, or by several "
        f"(kernel: families): {misplaced}"
    )


@pytest.mark.parametrize("family", KERNEL_FAMILIES)
def test_every_kernel_family_module_defines_kernels(family):
    module = importlib.import_module(f"tidytensor.backends.xp_kernels.{family}")
    assert getattr(module, "KERNELS", None) or getattr(module, "RAW_KERNELS", None), (
        f"backends/xp_kernels/{family}.py defines no kernel: a family with no kernel of its "
        "own has no module there"
    )


@pytest.mark.parametrize("family", INTERNAL_FAMILIES)
def test_internal_family_has_its_files(family):
    for path in (
        SRC / "kernel_names" / f"{family}.py",
        SRC / "ops" / f"{family}.py",
        SRC / "backends" / "xp_kernels" / f"{family}.py",
    ):
        assert path.exists(), f"family {family}: {path.relative_to(SRC)} is missing"


@pytest.mark.parametrize("kernel", CPU_KERNELS)
def test_kernel_is_found_in_its_four_places(kernel):
    (family,) = FAMILY_OF[kernel]
    homes = sorted(stem for stem in KERNEL_NAME_FILES if kernel in _constants(stem).values())
    allowed = {"tfjs", family}
    assert homes and set(homes) <= allowed, (
        f"{kernel} (backends/xp_kernels/{family}.py): its name is a constant of "
        f"kernel_names/{homes}, expected kernel_names/tfjs.py or kernel_names/{family}.py"
    )
    if kernel.startswith("Tidy"):
        assert homes == [family], (
            f"{kernel}: tidytensor's own kernel names live in kernel_names/{family}.py, "
            f"not in {homes}"
        )
    op_file = SRC / "ops" / f"{family}.py"
    grad_file = SRC / "gradients" / f"{family}.py"
    has_gradient = get_gradient(kernel) is not None
    in_op = kernel in _kernels_named_in(op_file)
    run_by_gradient = not has_gradient and kernel in _kernels_named_in(grad_file)
    assert in_op or run_by_gradient, (
        f"{kernel} (backends/xp_kernels/{family}.py): no op in ops/{family}.py runs it"
        + ("" if has_gradient else f", nor does a gradient in gradients/{family}.py")
    )
    if has_gradient:
        assert kernel in _kernels_named_in(grad_file), (
            f"{kernel} (backends/xp_kernels/{family}.py): its gradient is not registered in "
            f"gradients/{family}.py"
        )


def _source_files_outside(*parts: str) -> list[Path]:
    skip = {SRC / p for p in parts}
    return sorted(p for p in SRC.rglob("*.py") if not any(d in p.parents for d in skip))


@package_sources.GROUP
def test_only_ops_and_gradients_run_tidy_kernels():
    """Layers and optimizers run a fused kernel through its family's op: every kernel
    they run themselves (``run_kernel(k.ADD, ...)``) is one of TF.js's, spelled from
    ``kernel_names/tfjs.py``. (The engine runs whatever kernel it is given.)"""
    tfjs = {f"kernel_names.{c}" for c in _constants("tfjs")}
    offenders = []
    for path in _source_files_outside("ops", "gradients", "backends", "engine"):
        nodes = source_nodes(path)
        kn_aliases = {
            a.asname or a.name
            for node in nodes
            if isinstance(node, ast.ImportFrom)
            for a in node.names
            if a.name == "kernel_names"
        }
        for node in nodes:
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name != "run_kernel" or not node.args:
                continue
            first = node.args[0]
            spelled = (
                f"kernel_names.{first.attr}"
                if isinstance(first, ast.Attribute)
                and isinstance(first.value, ast.Name)
                and first.value.id in kn_aliases
                else ast.unparse(first)
            )
            if spelled not in tfjs:
                offenders.append(f"{path.relative_to(SRC)}:{node.lineno} runs {spelled}")
    assert not offenders, (
        "kernels run outside ops/ and gradients/ that are not TF.js kernels from "
        f"kernel_names/tfjs.py (call the family's op in ops/<family>.py instead): {offenders}"
    )


def _imported_modules(path: Path) -> set[str]:
    """Modules a file imports, as dotted paths relative to the tidytensor package."""
    package = path.parent.relative_to(SRC).parts
    found = set()
    for node in source_nodes(path):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - (node.level - 1)]
            module = ".".join((*base, *(node.module or "").split("."))).strip(".")
            found.add(module)
            found |= {f"{module}.{a.name}".strip(".") for a in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tidytensor"):
            found.add(node.module.removeprefix("tidytensor").strip("."))
    return found


@package_sources.GROUP
def test_ops_and_gradients_take_geometry_from_below_the_kernels():
    """Shape geometry (conv windows, padding, axes, slices, broadcasting) lives in
    ``geometry/``, which ops, gradients and kernels all import; ops and gradients import no
    convolution, pooling or slicing kernel module for it."""
    offenders = sorted(
        f"{path.relative_to(SRC)} imports {module}"
        for folder in ("ops", "gradients")
        for path in (SRC / folder).glob("*.py")
        for module in _imported_modules(path)
        if module.startswith(
            (
                "backends.xp_kernels.convolution",
                "backends.xp_kernels.pooling",
                "backends.xp_kernels.slicing_joining",
            )
        )
    )
    assert not offenders, f"geometry taken from the kernels: {offenders}"


def test_geometry_sits_below_ops_backends_and_gradients():
    geometry = sorted((SRC / "geometry").glob("*.py"))
    assert {p.stem for p in geometry} >= {"axes", "broadcast", "conv", "slicing"}
    offenders = sorted(
        f"{path.relative_to(SRC)} imports {module}"
        for path in geometry
        for module in _imported_modules(path)
        if module.split(".")[0] not in {"geometry", "errors"}
    )
    assert not offenders, f"geometry/ must import only errors and itself: {offenders}"
