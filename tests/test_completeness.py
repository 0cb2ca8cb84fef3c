"""Completeness of the nine core op families of catalog §2.3 (Creation, Random, Arithmetic,
Basic math, Reduction, Matrices, Logical, Transformations, Slicing and Joining).

Checks, per family:
(a) every TF.js op function is exported by ``tidytensor`` under its snake_case name;
(b) every TF.js chained Tensor method whose op is in these families exists on ``Tensor``;
(c) every kernel those ops run has a kernel registered for the ``'cpu'`` backend;
(d) the family's op module has ``__all__`` and ``tests/golden/specs/<family>.json`` covers
    each of its ops at least once.

The op and kernel lists are copied from the catalog's tables (tfjs-catalog.md §2.3), so they
do not depend on what the implementation happens to define.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import sys
from pathlib import Path

import pytest

import tidytensor
import tidytensor.kernel_names as kernel_names
from tidytensor import Tensor
from tidytensor.kernel_registry import get_kernel
from tidytensor.naming import snake_case
from tidytensor.ops._chained import CHAINED_OPS, CORE_OP_METHODS

SPECS_DIR = Path(__file__).parent / "golden" / "specs"

#: Catalog §2.3: family module name -> (catalog heading, TF.js op names in table order).
FAMILY_OPS: dict[str, tuple[str, list[str]]] = {
    "creation": (
        "Creation",
        """buffer clone complex diag eye fill imag linspace oneHot ones onesLike print range real
        scalar tensor tensor1d tensor2d tensor3d tensor4d tensor5d tensor6d truncatedNormal
        variable zeros zerosLike""".split(),
    ),
    "random": (
        "Random",
        """multinomial rand randomGamma randomNormal randomStandardNormal randomUniform
        randomUniformInt""".split(),
    ),
    "arithmetic": (
        "Arithmetic",
        """add addN div divNoNan floorDiv maximum minimum mod mul pow squaredDifference
        sub""".split(),
    ),
    "basic_math": (
        "Basic math",
        """abs acos acosh asin asinh atan atan2 atanh ceil clipByValue cos cosh elu erf exp expm1
        floor isFinite isInf isNaN leakyRelu log log1p logSigmoid neg prelu reciprocal relu
        relu6 round rsqrt selu sigmoid sign sin sinh softplus sqrt square step tan
        tanh""".split(),
    ),
    "reduction": (
        "Reduction",
        """all any argMax argMin bincount denseBincount logSumExp max mean min prod
        sum""".split(),
    ),
    "matrices": (
        "Matrices",
        "dot einsum euclideanNorm matMul outerProduct transpose norm".split(),
    ),
    "logical": (
        "Logical",
        """bitwiseAnd equal greater greaterEqual less lessEqual logicalAnd logicalNot logicalOr
        logicalXor notEqual where whereAsync""".split(),
    ),
    "transformations": (
        "Transformations",
        """batchToSpaceND broadcastArgs broadcastTo cast depthToSpace ensureShape expandDims
        mirrorPad pad pad1d pad2d pad3d pad4d reshape setdiff1dAsync spaceToBatchND
        squeeze""".split(),
    ),
    "slicing_joining": (
        "Slicing and Joining",
        """concat concat1d concat2d concat3d concat4d gather meshgrid reverse reverse1d reverse2d
        reverse3d reverse4d slice slice1d slice2d slice3d slice4d split stack stridedSlice
        tensorScatterUpdate tile unstack booleanMaskAsync scatterND gatherND""".split(),
    ),
}

#: The "# ops" column of the catalog's count table, to catch copying mistakes above.
CATALOG_COUNTS = {
    "creation": 26,
    "random": 7,
    "arithmetic": 12,
    "basic_math": 42,
    "reduction": 12,
    "matrices": 7,
    "logical": 13,
    "transformations": 17,
    "slicing_joining": 26,
}

#: Catalog §2.3 "kernel(s) run" column: the kernels each family's own ops run directly.
#: (Composite ops run other families' ops, whose kernels are listed under those families.)
FAMILY_KERNELS: dict[str, list[str]] = {
    "creation": """Complex Diag Fill Identity Imag LinSpace OneHot OnesLike Range Real
    ZerosLike""".split(),
    "random": ["Multinomial"],
    "arithmetic": """Add AddN FloorDiv Maximum Minimum Mod Multiply Pow RealDiv SquaredDifference
    Sub""".split(),
    "basic_math": """Abs Acos Acosh Asin Asinh Atan Atan2 Atanh Ceil ClipByValue ComplexAbs Cos
    Cosh Elu Erf Exp Expm1 Floor IsFinite IsInf IsNan LeakyRelu Log Log1p Neg Prelu Reciprocal
    Relu Relu6 Round Rsqrt Selu Sigmoid Sign Sin Sinh Softplus Sqrt Square Step Tan
    Tanh""".split(),
    "reduction": """All Any ArgMax ArgMin Bincount DenseBincount Max Mean Min Prod Sum""".split(),
    "matrices": ["BatchMatMul", "Einsum", "Transpose"],
    "logical": """BitwiseAnd Equal Greater GreaterEqual Less LessEqual LogicalAnd LogicalNot
    LogicalOr NotEqual Select""".split(),
    "transformations": """BatchToSpaceND BroadcastArgs Cast DepthToSpace ExpandDims MirrorPad
    PadV2 Reshape SpaceToBatchND Tile""".split(),
    "slicing_joining": """Concat GatherNd GatherV2 Pack Reverse ScatterNd Slice SplitV StridedSlice
    TensorScatterUpdate Tile Unpack""".split(),
}

#: Chained methods that are not "the op of the same name with self first" (catalog §2.4),
#: mapped to the op they are built on.
SPECIAL_CHAINED = {
    "flatten": "reshape",
    "asScalar": "reshape",
    "as1D": "reshape",
    "as2D": "reshape",
    "as3D": "reshape",
    "as4D": "reshape",
    "as5D": "reshape",
    "reshapeAs": "reshape",
    "asType": "cast",
    "toFloat": "cast",
    "toInt": "cast",
    "toBool": "cast",
}

FAMILIES = list(FAMILY_OPS)
FAMILY_SNAKE = {fam: {snake_case(n) for n in ops} for fam, (_, ops) in FAMILY_OPS.items()}
ALL_FAMILY_SNAKE = set().union(*FAMILY_SNAKE.values())
KERNEL_NAME_VALUES = {
    v for n, v in vars(kernel_names).items() if n.isupper() and isinstance(v, str)
}


def _family_module(family: str):
    return importlib.import_module(f"tidytensor.ops.{family}")


# ---------------------------------------------------------------------------------------------
# Self-checks of the lists held in this file
# ---------------------------------------------------------------------------------------------


def test_lists_match_catalog_counts():
    counts = {fam: len(ops) for fam, (_, ops) in FAMILY_OPS.items()}
    assert counts == CATALOG_COUNTS
    assert sum(counts.values()) == 162
    for fam, (_, ops) in FAMILY_OPS.items():
        assert len(set(ops)) == len(ops), f"{fam}: duplicate op names"
        assert len(FAMILY_SNAKE[fam]) == len(ops), f"{fam}: two TF.js names share a snake_case"


def test_listed_kernels_are_known_kernel_names():
    unknown = {fam: sorted(set(ks) - KERNEL_NAME_VALUES) for fam, ks in FAMILY_KERNELS.items()}
    assert not any(unknown.values()), f"not in kernel_names.py: {unknown}"


def test_naming_rule_examples():
    # The spellings API.md fixes for names in these families.
    expected = {
        "matMul": "mat_mul",
        "gatherND": "gather_nd",
        "isNaN": "is_nan",
        "addN": "add_n",
        "logSumExp": "log_sum_exp",
        "batchToSpaceND": "batch_to_space_nd",
        "tensor1d": "tensor1d",
        "setdiff1dAsync": "setdiff1d_async",
        "randomUniformInt": "random_uniform_int",
    }
    assert {js: snake_case(js) for js in expected} == expected


# ---------------------------------------------------------------------------------------------
# (a) every op exported under its snake_case name
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("family", FAMILIES)
def test_ops_exported(family):
    heading, ops = FAMILY_OPS[family]
    exported = set(tidytensor.__all__)
    missing = [
        f"{js} -> tf.{snake_case(js)}"
        for js in ops
        if not callable(getattr(tidytensor, snake_case(js), None)) or snake_case(js) not in exported
    ]
    assert not missing, f"{heading}: {len(missing)}/{len(ops)} ops not exported: {missing}"


# ---------------------------------------------------------------------------------------------
# (b) chained Tensor methods
# ---------------------------------------------------------------------------------------------


def _chained_in_families() -> list[str]:
    names = []
    for js in (*CHAINED_OPS, *CORE_OP_METHODS):
        base = SPECIAL_CHAINED.get(js, js)
        if snake_case(base) in ALL_FAMILY_SNAKE:
            names.append(js)
    return names


def test_chained_methods_exist():
    chained = _chained_in_families()
    # The families hold most of TF.js's 137 chained methods; a small number means the
    # family lists or CHAINED_OPS went wrong, not that the methods are there.
    assert len(chained) >= 90, chained
    missing = [
        f"{js} -> Tensor.{snake_case(js)}" for js in chained if not hasattr(Tensor, snake_case(js))
    ]
    assert not missing, f"{len(missing)}/{len(chained)} chained methods missing: {missing}"


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
                elif module.endswith("kernel_names"):
                    constants.add(alias.name)
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
    """The family module's file and the files its exported ops are defined in."""
    module = _family_module(family)
    files = {Path(inspect.getfile(module))}
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
    assert not unknown, f"{family}: kernel constants not in kernel_names.py: {unknown}"
    needed = set(FAMILY_KERNELS[family]) | {getattr(kernel_names, c) for c in used_constants}
    missing = sorted(name for name in needed if get_kernel(name, "cpu") is None)
    assert not missing, (
        f"{family}: {len(missing)}/{len(needed)} kernels not registered for cpu: {missing}"
    )


# ---------------------------------------------------------------------------------------------
# (d) __all__ and golden spec coverage
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("family", FAMILIES)
def test_module_all(family):
    module = _family_module(family)
    assert isinstance(getattr(module, "__all__", None), (list, tuple)), (
        f"ops/{family}.py has no __all__"
    )
    names = list(module.__all__)
    assert names, f"ops/{family}.py: __all__ is empty"
    assert len(set(names)) == len(names), f"ops/{family}.py: __all__ has duplicates"
    undefined = [n for n in names if not callable(getattr(module, n, None))]
    assert not undefined, f"ops/{family}.py: __all__ names that are not defined ops: {undefined}"


def _spec_ops(family: str) -> set[str]:
    path = SPECS_DIR / f"{family}.json"
    assert path.is_file(), f"missing golden spec file {path.relative_to(SPECS_DIR.parent.parent)}"
    cases = json.loads(path.read_text())
    assert isinstance(cases, list), f"{path.name}: the spec must be a JSON list of cases"
    ops = set()
    for case in cases:
        assert isinstance(case, dict) and "op" in case and "name" in case, (
            f"{path.name}: bad case {case!r}"
        )
        ops.add(".".join(snake_case(part) for part in case["op"].split(".")))
    return ops


@pytest.mark.parametrize("family", FAMILIES)
def test_golden_specs_cover_family(family):
    module = _family_module(family)
    covered = _spec_ops(family)
    required = FAMILY_SNAKE[family] | set(getattr(module, "__all__", []))
    missing = sorted(required - covered)
    assert not missing, (
        f"specs/{family}.json has no case for {len(missing)}/{len(required)} ops: {missing}"
    )
