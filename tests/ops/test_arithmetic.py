"""Arithmetic ops against TF.js goldens."""

from __future__ import annotations

import pytest
from golden_util import case_ids, check_case, load_cases

CASES = load_cases("arithmetic")


@pytest.mark.parametrize(("case", "expected"), CASES, ids=case_ids(CASES))
def test_golden(case, expected):
    check_case(case, expected)
