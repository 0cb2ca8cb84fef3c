"""Completeness, checks (a), (b) and (d) (see ``completeness_catalog.py``): every catalog op
exported under its snake_case name in TF.js's namespace, every chained Tensor method present
and running its op, each op module's ``__all__``, and golden spec cases for every op; plus
self-checks of the catalog lists themselves.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import numpy as np
import pytest

import tidytensor
from completeness_catalog import (
    ALL_OPS_SNAKE,
    CATALOG_COUNTS,
    CHAINED_METHODS,
    FAMILIES,
    FAMILY_KERNELS,
    FAMILY_MODULES,
    FAMILY_OPS,
    FAMILY_SNAKE,
    GOLDEN_SPEC_EXEMPT,
    GRAD_COMPOSITE,
    GRAD_CUSTOM,
    GRAD_YES,
    GRADIENT_KERNELS,
    KERNEL_NAME_VALUES,
    NO_GRADIENT_TO_TEST,
    SPECS_DIR,
    chained_op,
    ops_module,
    qualified_all,
    qualified_snake,
    split_qualified,
)
from tidytensor import Tensor
from tidytensor.naming import snake_case
from tidytensor.ops._chained import CHAINED_OPS, CORE_OP_METHODS

# ---------------------------------------------------------------------------------------------
# Self-checks of the lists held in completeness_catalog.py
# ---------------------------------------------------------------------------------------------


def test_lists_match_catalog_counts():
    counts = {fam: len(ops) for fam, (_, ops) in FAMILY_OPS.items()}
    assert counts == CATALOG_COUNTS
    assert sum(counts.values()) == 250
    all_names = [n for _, ops in FAMILY_OPS.values() for n in ops]
    assert len(set(all_names)) == 250, "an op is listed twice"
    for fam, (_, ops) in FAMILY_OPS.items():
        assert len(FAMILY_SNAKE[fam]) == len(ops), f"{fam}: two TF.js names share a snake_case"
    assert len(ALL_OPS_SNAKE) == 250
    assert set(FAMILY_MODULES) == set(FAMILY_OPS) == set(FAMILY_KERNELS)


def test_listed_kernels_are_known_kernel_names():
    unknown = {fam: sorted(set(ks) - KERNEL_NAME_VALUES) for fam, ks in FAMILY_KERNELS.items()}
    assert not any(unknown.values()), f"not in kernel_names/tfjs.py: {unknown}"
    assert len(GRADIENT_KERNELS) == 101
    assert not set(GRADIENT_KERNELS) - KERNEL_NAME_VALUES


def test_gradient_column_lists():
    assert len(GRAD_YES) == 99 and len(GRAD_CUSTOM) == 6 and len(GRAD_COMPOSITE) == 52
    listed = [*GRAD_YES, *GRAD_CUSTOM, *GRAD_COMPOSITE]
    assert len(set(listed)) == len(listed)
    all_js = {n for _, ops in FAMILY_OPS.values() for n in ops}
    assert set(listed) <= all_js
    assert set(NO_GRADIENT_TO_TEST) <= set(listed)


def test_chained_method_list_matches_catalog():
    assert len(CHAINED_METHODS) == 137 == len(set(CHAINED_METHODS))
    assert set(CHAINED_OPS) == set(CHAINED_METHODS), "ops/_chained.py differs from catalog §2.4"
    for js in CHAINED_METHODS:
        chained_op(js)  # every method maps onto exactly one catalog op


def test_naming_rule_examples():
    # The spellings API.md fixes, plus names of the later families.
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
        "conv2dTranspose": "conv2d_transpose",
        "avgPool3d": "avg_pool3d",
        "basicLSTMCell": "basic_lstm_cell",
        "multiRNNCell": "multi_rnn_cell",
        "grayscaleToRGB": "grayscale_to_rgb",
        "stringNGrams": "string_n_grams",
        "inTopKAsync": "in_top_k_async",
        "depthwiseConv2d": "depthwise_conv2d",
    }
    assert {js: snake_case(js) for js in expected} == expected


# ---------------------------------------------------------------------------------------------
# (a) every op exported under its snake_case name, in TF.js's namespace
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("family", FAMILIES)
def test_ops_exported(family):
    heading, ops = FAMILY_OPS[family]
    exported = set(tidytensor.__all__)
    missing = []
    for js in ops:
        namespace, name = split_qualified(qualified_snake(js))
        if namespace is None:
            ok = callable(getattr(tidytensor, name, None)) and name in exported
        else:
            ns = getattr(tidytensor, namespace, None)
            ns_all = getattr(ns, "__all__", None)
            ok = (
                namespace in exported
                and callable(getattr(ns, name, None))
                and (ns_all is None or name in ns_all)
            )
        if not ok:
            missing.append(f"{js} -> tf.{qualified_snake(js)}")
    assert not missing, f"{heading}: {len(missing)}/{len(ops)} ops not exported: {missing}"


def test_namespaces_are_exported():
    namespaces = {split_qualified(q)[0] for q in ALL_OPS_SNAKE} - {None}
    assert namespaces == {
        "image",
        "linalg",
        "losses",
        "spectral",
        "signal",
        "sparse",
        "string",
        "fused",
        "math",
    }
    for ns in namespaces:
        assert ns in tidytensor.__all__, f"tf.{ns} is not in tidytensor.__all__"
        assert getattr(tidytensor, ns, None) is not None, f"tf.{ns} does not exist"


def test_reduction_enum_is_exported():
    # tf.losses.Reduction (catalog §3.4) is what the losses' last argument takes.
    assert tidytensor.losses.Reduction is tidytensor.Reduction
    assert {"NONE", "MEAN", "SUM", "SUM_BY_NONZERO_WEIGHTS"} <= set(dir(tidytensor.Reduction))


# ---------------------------------------------------------------------------------------------
# (b) chained Tensor methods
# ---------------------------------------------------------------------------------------------


def test_chained_methods_exist():
    missing = [
        f"{js} -> Tensor.{snake_case(js)}"
        for js in (*CHAINED_METHODS, *CORE_OP_METHODS)
        if not callable(getattr(Tensor, snake_case(js), None))
    ]
    assert not missing, f"{len(missing)}/{len(CHAINED_METHODS)} chained methods missing: {missing}"


def _rand(shape, seed=0, low=-1.0, high=1.0, dtype="float32"):
    values = np.random.default_rng(seed).uniform(low, high, shape)
    if dtype == "int32":
        values = np.round(values)
    return tidytensor.tensor(values.astype(dtype), list(shape), dtype)


def _complex(n, seed=0):
    return tidytensor.complex(_rand([n], seed), _rand([n], seed + 1))


#: Chained methods of the later families: receiver and arguments (made lazily, inside the
#: test's scope). The method's result must equal the op's on the same arguments.
METHOD_CALLS: dict[str, Any] = {
    "avgPool": lambda: (_rand([1, 4, 4, 2]), 2, 2, "valid"),
    "maxPool": lambda: (_rand([1, 4, 4, 2]), 2, 1, "same"),
    "pool": lambda: (_rand([1, 4, 4, 2]), [2, 2], "max", "valid"),
    "conv1d": lambda: (_rand([1, 5, 2]), _rand([2, 2, 3], 1), 1, "same"),
    "conv2d": lambda: (_rand([1, 4, 4, 2]), _rand([2, 2, 2, 3], 1), 1, "same"),
    "conv2dTranspose": lambda: (
        _rand([1, 4, 4, 2]),
        _rand([2, 2, 3, 2], 1),
        [1, 4, 4, 3],
        1,
        "same",
    ),
    "depthwiseConv2d": lambda: (_rand([1, 4, 4, 2]), _rand([2, 2, 2, 1], 1), 1, "same"),
    "dilation2d": lambda: (_rand([1, 4, 4, 2]), _rand([2, 2, 2], 1), 1, "same"),
    "separableConv2d": lambda: (
        _rand([1, 4, 4, 2]),
        _rand([2, 2, 2, 1], 1),
        _rand([1, 1, 2, 3], 2),
        1,
        "same",
    ),
    "batchNorm": lambda: (_rand([2, 3]), _rand([3], 1), _rand([3], 2, 0.5, 1.5)),
    "localResponseNormalization": lambda: (_rand([1, 2, 2, 4]), 2),
    "logSoftmax": lambda: (_rand([2, 3]),),
    "softmax": lambda: (_rand([2, 3]), 1),
    "resizeBilinear": lambda: (_rand([1, 2, 2, 1]), [3, 3]),
    "resizeNearestNeighbor": lambda: (_rand([1, 2, 2, 1]), [4, 3]),
    "cumprod": lambda: (_rand([2, 3]), 1),
    "cumsum": lambda: (_rand([2, 3]), 1, True),
    "unsortedSegmentSum": lambda: (
        _rand([3, 2]),
        tidytensor.tensor1d([0, 1, 0], "int32"),
        2,
    ),
    "topk": lambda: (_rand([5]), 2),
    "unique": lambda: (tidytensor.tensor1d([3, 1, 3, 2], "int32"),),
    "fft": lambda: (_complex(4),),
    "ifft": lambda: (_complex(4),),
    "rfft": lambda: (_rand([6]),),
    "irfft": lambda: (_complex(4),),
}


def _values(result: Any) -> Any:
    if isinstance(result, Tensor):
        return (result.dtype, result.shape, result.numpy().tolist())
    if hasattr(result, "_asdict"):
        return {k: _values(v) for k, v in result._asdict().items()}
    if isinstance(result, (list, tuple)):
        return [_values(r) for r in result]
    return result


@pytest.mark.parametrize("js_method", list(METHOD_CALLS))
def test_chained_method_runs_its_op(js_method):
    assert js_method in CHAINED_METHODS
    namespace, name = split_qualified(chained_op(js_method))
    op = getattr(getattr(tidytensor, namespace) if namespace else tidytensor, name)
    receiver, *args = METHOD_CALLS[js_method]()
    via_method = getattr(receiver, snake_case(js_method))(*args)
    via_op = op(receiver, *args)
    assert _values(via_method) == _values(via_op)


# ---------------------------------------------------------------------------------------------
# (d) __all__ and golden spec coverage
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("family", FAMILIES)
def test_module_all(family):
    for module_name in FAMILY_MODULES[family]:
        module = ops_module(module_name)
        assert isinstance(getattr(module, "__all__", None), (list, tuple)), (
            f"ops/{module_name}.py has no __all__"
        )
        names = list(module.__all__)
        assert names, f"ops/{module_name}.py: __all__ is empty"
        assert len(set(names)) == len(names), f"ops/{module_name}.py: __all__ has duplicates"
        undefined = [n for n in names if not callable(getattr(module, n, None))]
        assert not undefined, f"ops/{module_name}.py: __all__ names that are not ops: {undefined}"
        strays = sorted(qualified_all(module_name) - ALL_OPS_SNAKE)
        assert not strays, f"ops/{module_name}.py exports names that are not TF.js ops: {strays}"


@functools.cache
def _spec_ops() -> dict[str, frozenset[str]]:
    """Qualified snake_case op name -> the spec files with a case for it (read once: each of
    the 27 families' tests reads it, and reading the spec files took 170 ms)."""
    found: dict[str, set[str]] = {}
    for path in sorted(SPECS_DIR.glob("*.json")):
        cases = json.loads(path.read_text())
        assert isinstance(cases, list), f"{path.name}: the spec must be a JSON list of cases"
        for case in cases:
            assert isinstance(case, dict) and "op" in case and "name" in case, (
                f"{path.name}: bad case {case!r}"
            )
            found.setdefault(qualified_snake(case["op"]), set()).add(path.name)
    return {op: frozenset(files) for op, files in found.items()}


@pytest.mark.parametrize("family", FAMILIES)
def test_golden_specs_cover_family(family):
    covered = _spec_ops()
    required = set(FAMILY_SNAKE[family])
    for module_name in FAMILY_MODULES[family]:
        required |= qualified_all(module_name)
    missing = sorted(required - set(covered) - set(GOLDEN_SPEC_EXEMPT))
    assert not missing, (
        f"no golden spec case for {len(missing)}/{len(required)} {family} ops: {missing}"
    )
