"""Layer tests start with fresh layer-name counters, as each TF.js golden scenario ran in a
fresh Node process (so ``dense_Dense1`` means the same thing on both sides)."""

from __future__ import annotations

import pytest

import tidytensor.layers  # noqa: F401 - registers the layer classes
from tidytensor.layers.engine import state


@pytest.fixture(autouse=True)
def _fresh_layer_names():
    state._reset_for_tests()
    yield


@pytest.fixture
def cleanup():
    """``cleanup(obj)`` registers a model or optimizer to ``dispose()`` after the test
    (in reverse order) and returns it, so leak-checked runs end with nothing alive."""
    items = []

    def add(item):
        items.append(item)
        return item

    yield add
    for item in reversed(items):
        item.dispose()
