"""Doctests in src/ run with ``tf`` and ``np`` in scope."""

from __future__ import annotations

import numpy as np
import pytest

import tidytensor as tf


@pytest.fixture(autouse=True)
def _doctest_namespace(doctest_namespace):
    doctest_namespace["tf"] = tf
    doctest_namespace["np"] = np
