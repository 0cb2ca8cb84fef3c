"""``checked_output_bounds()``: while active, every kernel the engine runs is compared with
``output_bounds.output_bound``: the bytes of the fresh buffers it returns must not exceed the
bound of its outputs (the memory limit's check before allocating relies on it).

``tests/conftest.py`` turns it on for every test when ``TIDYTENSOR_CHECK_OUTPUT_BOUNDS=1``
(``TIDYTENSOR_CHECK_OUTPUT_BOUNDS=1 pytest tests/ops`` checks the bounds over every op case).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from tidytensor.engine import ENGINE, output_bounds


@dataclass
class BoundRecord:
    """What the kernels did: (kernel, bound, actual) for each call, and the violations."""

    calls: list[tuple[str, int, int]] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)


def fresh_bytes(out: Any) -> int:
    """Bytes of the new (non-string) buffers among a kernel's outputs; views count 0."""
    outs = out if type(out) is list else [out]
    total = 0
    for o in outs:
        if type(o) is tuple or o.refs != 1 or o.dtype == "string":
            continue
        total += o.nbytes
    return total


def _checking(name: str, kernel: Any, record: BoundRecord) -> Any:
    def kernel_checked(inputs: tuple, attrs: Any) -> Any:
        shapes = [(t.dtype, list(t._shape)) for t in inputs]
        need = output_bounds.output_bound(name, inputs, attrs)
        out = kernel(inputs, attrs)
        bound = sum(o.nbytes for o in need.outputs)
        actual = fresh_bytes(out)
        record.calls.append((name, bound, actual))
        if actual > bound:
            record.violations.append(
                f"{name}: bound {bound} < actual {actual} bytes (inputs {shapes}, attrs {attrs})"
            )
        return out

    return kernel_checked


@contextlib.contextmanager
def checked_output_bounds() -> Iterator[BoundRecord]:
    """A kernel wrapper (``Engine.kernels_wrapped``) checking every kernel bound while it is
    registered, on any backend set meanwhile."""
    record = BoundRecord()

    def checking(name: str, kernel: Any) -> Any:
        return _checking(name, kernel, record)

    with ENGINE.kernels_wrapped(checking):
        yield record
