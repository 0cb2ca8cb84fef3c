"""The extension points users subclass (constraints, initializers, activations, regularizers,
datasets, iterators) are abstract: a subclass that forgets its hook fails when it is made,
naming the hook, instead of at its first use."""

from __future__ import annotations

import pytest

from tidytensor.data.dataset import Dataset
from tidytensor.data.iterators import LazyIterator
from tidytensor.layers.activations import Activation
from tidytensor.layers.constraints import Constraint
from tidytensor.layers.initializers import Initializer
from tidytensor.layers.regularizers import Regularizer

BASES = [
    (Constraint, "apply"),
    (Initializer, "apply"),
    (Activation, "apply"),
    (Regularizer, "apply"),
    (Dataset, "iterator"),
    (LazyIterator, "_next"),
]


@pytest.mark.parametrize(("base", "hook"), BASES, ids=lambda v: getattr(v, "__name__", v))
def test_a_subclass_without_its_hook_cannot_be_made(base, hook):
    incomplete = type(f"Incomplete{base.__name__}", (base,), {})
    with pytest.raises(TypeError, match=hook):
        incomplete()
    complete = type(f"Complete{base.__name__}", (base,), {hook: lambda self, *a: None})
    assert isinstance(complete(), base)
