"""Completeness, checks (c) and (e) (see ``completeness_catalog.py``): every kernel an op
runs is registered for ``'cpu'``, and the 101 kernels with a TF.js gradient have one
registered, saving the inputs and outputs TF.js saves.
"""

from __future__ import annotations

import ast
import inspect
import sys
from pathlib import Path

import pytest

import tidytensor.kernel_names as kernel_names
from completeness_catalog import (
    FAMILIES,
    FAMILY_KERNELS,
    FAMILY_MODULES,
    GRADIENT_KERNELS,
    INTERNAL_FAMILIES,
    KERNEL_NAME_VALUES,
    OPS_DIR,
    VARIABLE_INPUT_GRADIENTS,
    ops_module,
)
from tidytensor.kernel_registry import get_gradient, get_kernel, registered_gradients

# ---------------------------------------------------------------------------------------------
# (c) kernels registered for 'cpu'
# ---------------------------------------------------------------------------------------------


def _kernel_aliases(tree: ast.Module) -> tuple[set[str], set[str]]:
    """Names bound to the kernel_names module, and kernel constants imported by name."""
    aliases, constants = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            for alias in node.names:
                if alias.name == "kernel_names":
                    aliases.add(alias.asname or alias.name)
                elif module.endswith("kernel_names") and alias.name.isupper():
                    constants.add(alias.name)  # not a family module (kernel_names.losses)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.endswith("kernel_names"):
                    aliases.add(alias.asname or alias.name)
    return aliases, constants


def _kernel_constants_used(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    aliases, constants = _kernel_aliases(tree)
    used = set(constants)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and node.attr.isupper()
        ):
            used.add(node.attr)
    return used


def _family_source_files(family: str) -> set[Path]:
    """The family's module files and the files its exported ops are defined in."""
    files = set()
    for module_name in FAMILY_MODULES[family]:
        module = ops_module(module_name)
        files.add(Path(inspect.getfile(module)))
        for name in getattr(module, "__all__", []):
            obj = inspect.unwrap(getattr(module, name, None) or (lambda: None))
            mod = sys.modules.get(getattr(obj, "__module__", "") or "")
            if mod is not None and mod.__name__.startswith("tidytensor.ops"):
                files.add(Path(inspect.getfile(mod)))
    return files


@pytest.mark.parametrize("family", FAMILIES)
def test_kernels_registered_for_cpu(family):
    used_constants = set()
    for path in _family_source_files(family):
        used_constants |= _kernel_constants_used(path)
    unknown = sorted(c for c in used_constants if not hasattr(kernel_names, c))
    assert not unknown, f"{family}: kernel constants not in kernel_names/tfjs.py: {unknown}"
    needed = set(FAMILY_KERNELS[family]) | {getattr(kernel_names, c) for c in used_constants}
    missing = sorted(name for name in needed if get_kernel(name, "cpu") is None)
    assert not missing, (
        f"{family}: {len(missing)}/{len(needed)} kernels not registered for cpu: {missing}"
    )


def _ops_module_files() -> list[Path]:
    return sorted(p for p in OPS_DIR.glob("*.py") if not p.name.startswith("_"))


def test_every_ops_module_belongs_to_a_family():
    """So that a new op module is held to every completeness check."""
    known = {m for mods in FAMILY_MODULES.values() for m in mods} | set(INTERNAL_FAMILIES)
    strays = sorted(p.stem for p in _ops_module_files() if p.stem not in known)
    assert not strays, f"ops modules in no family of FAMILY_MODULES: {strays}"


def test_every_kernel_any_op_uses_has_a_cpu_kernel():
    used: dict[str, set[str]] = {}
    for path in _ops_module_files():
        for constant in _kernel_constants_used(path):
            used.setdefault(constant, set()).add(path.name)
    unknown = sorted(c for c in used if not hasattr(kernel_names, c))
    assert not unknown, f"kernel constants not in kernel_names/tfjs.py: {unknown}"
    missing = {
        getattr(kernel_names, c): sorted(files)
        for c, files in used.items()
        if get_kernel(getattr(kernel_names, c), "cpu") is None
    }
    assert not missing, f"kernels used by ops with no 'cpu' kernel (kernel: used in): {missing}"


# ---------------------------------------------------------------------------------------------
# (e) gradients registered, saving what TF.js saves
# ---------------------------------------------------------------------------------------------


def test_every_tfjs_gradient_is_registered():
    missing = sorted(name for name in GRADIENT_KERNELS if get_gradient(name) is None)
    assert not missing, f"{len(missing)}/101 TF.js kernel gradients not registered: {missing}"


def test_no_gradient_where_tfjs_has_none():
    # Kernels of TF.js (kernel_names/tfjs.py); tidytensor's own kernels (e.g. the fused recurrent
    # layers' in kernel_names/recurrent.py) may have gradients, which (f) still requires tested.
    extra = sorted((set(registered_gradients()) & KERNEL_NAME_VALUES) - set(GRADIENT_KERNELS))
    assert not extra, f"gradients registered for TF.js kernels TF.js has none for: {extra}"


@pytest.mark.parametrize("kernel", sorted(GRADIENT_KERNELS))
def test_gradient_saves_what_tfjs_saves(kernel):
    config = get_gradient(kernel)
    assert config is not None, f"{kernel} has no registered gradient"
    inputs, output = GRADIENT_KERNELS[kernel]
    ours = "all" if config.save_all_inputs else tuple(config.inputs_to_save)
    if kernel in VARIABLE_INPUT_GRADIENTS:
        assert ours == "all" or set(ours) == set(inputs)
    elif inputs == "all":
        assert ours == "all", f"{kernel}: TF.js saves all inputs, this saves {ours}"
    else:
        assert ours != "all" and sorted(ours) == sorted(inputs), (
            f"{kernel}: saves inputs {ours}, TF.js saves {inputs}"
        )
    assert any(config.outputs_to_save) == output, (
        f"{kernel}: outputs_to_save {config.outputs_to_save}, TF.js saves the output: {output}"
    )
