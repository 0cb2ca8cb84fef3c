"""Layer tests start with fresh layer-name counters, as each TF.js golden scenario ran in a
fresh Node process (so ``dense_Dense1`` means the same thing on both sides)."""

from __future__ import annotations

import pytest

import tidytensor
import tidytensor.layers  # noqa: F401 - registers the layer classes
from tidytensor.compiled.function import Function
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


@pytest.fixture
def calls(monkeypatch):
    """How many times a ``tf.function`` was called the whole way."""
    count = [0]
    original = Function.__call__

    def counting(self, *args, **kwargs):
        count[0] += 1
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Function, "__call__", counting)
    return count


@pytest.fixture
def compiled_functions():
    """``tf.function`` replays (not ``run_functions_eagerly``) for the test."""
    tidytensor.config.run_functions_eagerly(False)
    yield
