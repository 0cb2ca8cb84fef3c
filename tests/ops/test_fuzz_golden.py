"""Replays the seeded fuzz goldens (tests/golden/fuzz_specs.py -> specs/fuzz_*.json) against TF.js.

Every case is compared like the hand-written goldens (values, dtype, shape, memory deltas and
errors); int32 and bool results must also match bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest

from golden_util import GOLDEN_DIR, call_case, case_ids, check_case, load_cases

FAMILIES = sorted(p.stem for p in (GOLDEN_DIR / "specs").glob("fuzz_*.json"))
CASES = [(f, c, e) for f in FAMILIES for c, e in load_cases(f)]
IDS = [f"{f.removeprefix('fuzz_')}: {name}" for f in FAMILIES for name in case_ids(load_cases(f))]


def test_every_family_has_cases():
    assert len(FAMILIES) >= 8 and len(CASES) >= 300


@pytest.mark.parametrize(("family", "case", "expected"), CASES, ids=IDS)
def test_fuzz_golden(family, case, expected):
    check_case(case, expected)


def _exact_values(result, expected):
    if "values" in expected:
        if expected["dtype"] in ("int32", "bool"):
            got = [int(v) for v in np.asarray(result.data_sync()).reshape(-1)]
            assert got == expected["values"]
    elif "list" in expected:
        for r, e in zip(result, expected["list"], strict=True):
            _exact_values(r, e)
    elif "object" in expected:
        for key, e in expected["object"].items():
            _exact_values(getattr(result, key), e)


EXACT = [(f, c, e) for f, c, e in CASES if "error" not in e and "value" not in e]


@pytest.mark.parametrize(
    ("family", "case", "expected"), EXACT, ids=[f"{f}: {c['name']}" for f, c, _ in EXACT]
)
def test_fuzz_golden_integers_exact(family, case, expected):
    """int32 and bool results must match TF.js bit for bit (the golden tolerance is relative)."""
    import tidytensor as tf

    tf.engine().start_scope()
    try:
        _exact_values(call_case(case), expected)
    finally:
        tf.engine().end_scope()
