"""Failures injected into a running step, for the atomic-step tests.

``fail_at_allocation(k)`` makes the k-th fresh buffer allocation (0-based) fail through the
engine's real over-budget path (the buffer is freed and ``tf.ResourceExhaustedError`` raised
before anything is counted), or raise ``KeyboardInterrupt`` there instead. Every variable's
update allocates, so sweeping k over a step's allocations fails it at every variable, in
the forward pass, the backward pass and the optimizer.

``snapshot`` records what a failed step must leave unchanged.
"""

from __future__ import annotations

import contextlib
import math
from typing import Any

import tidytensor as tf
from tidytensor.engine import memory as engine_memory
from tidytensor.engine import memory_guard


class _FailAt:
    """Stands in for the engine's byte limit: ``buffer_bytes > limit`` is asked once per
    fresh buffer, and answers True (over budget) at the k-th ask only."""

    def __init__(self, k: int):
        self.k = k
        self.asked = 0

    def __lt__(self, live_bytes: Any) -> bool:  # live_bytes > self
        self.asked += 1
        return self.asked == self.k + 1

    def __gt__(self, live_bytes: Any) -> bool:  # never asked this way
        return False


@contextlib.contextmanager
def fail_at_allocation(k: int, exception: type[BaseException] = tf.ResourceExhaustedError):
    """Inside the block, the k-th fresh buffer allocation fails (as over the memory limit).
    With ``exception=KeyboardInterrupt`` the failure is a KeyboardInterrupt raised at that
    point, after the engine has freed the buffer. Yields the counter (``.asked``: how many
    allocations were made)."""
    engine = tf.engine()
    counter = _FailAt(k)
    original_over_budget = engine._over_budget

    def over_budget(data_id, shape, dtype):
        try:
            original_over_budget(data_id, shape, dtype)
        except tf.ResourceExhaustedError:
            if exception is tf.ResourceExhaustedError:
                raise
            raise exception() from None

    budget_message = engine_memory.budget_message
    over_limit_error = memory_guard.over_limit_error
    # Ops that check their result's size before drawing it on the host (zeros, ones,
    # random_normal...) count as an allocation too: the failure is raised there.
    memory_guard.over_limit_error = lambda *args: (
        exception()
        if exception is not tf.ResourceExhaustedError
        else tf.ResourceExhaustedError(f"injected failure at allocation {k}")
    )
    engine.memory_limit = 1 << 40  # for the error message only
    engine.state.byte_limit = counter
    engine.state.check_bytes = counter  # the fresh-buffer check of Engine._make_tensor
    engine._over_budget = over_budget
    # The real message lists the largest live tensors (a scan of the heap): not needed here.
    engine_memory.budget_message = lambda *args: f"injected failure at allocation {k}"
    try:
        yield counter
    finally:
        engine_memory.budget_message = budget_message
        memory_guard.over_limit_error = over_limit_error
        del engine._over_budget
        engine.memory_limit = None
        engine.state.byte_limit = math.inf
        engine._update_check_bytes()


def count_allocations(fn) -> int:
    """How many fresh buffers ``fn()`` allocates (``fn`` runs once, for real)."""
    with fail_at_allocation(-2) as counter:  # never fails
        fn()
    return counter.asked


def memory_counts() -> tuple[int, int, int]:
    m = tf.memory()
    return m.num_tensors, m.num_data_buffers, m.num_bytes


def bits(tensors: list[tf.Tensor]) -> list[bytes]:
    return [t.data_sync().tobytes() for t in tensors]


def optimizer_state(optimizer: Any, names: bool = True) -> Any:
    """``get_weights()`` as (name, bits) pairs, the iteration count first; for Adamax (no
    ``get_weights``, as in TF.js) its slots, accumulated beta and iteration variable."""
    if optimizer.get_class_name() == "Adamax":
        slots = optimizer.accumulated_first_moment + optimizer.accumulated_weighted_inf_norm
        return (
            optimizer.iterations,
            [_named(s.original_name, s.variable, names) for s in slots],
            bits([optimizer.acc_beta1, optimizer.iteration]),
        )
    ws = optimizer.get_weights()
    state = [_named(w["name"], w["tensor"], names) for w in ws]
    ws[0]["tensor"].dispose()
    return state


def _named(name: str, t: tf.Tensor, names: bool) -> Any:
    return (name, t.data_sync().tobytes()) if names else t.data_sync().tobytes()


def snapshot(variables: list[tf.Tensor], optimizer: Any) -> tuple:
    """Everything a failed step must leave as it was: the variables' bits, the optimizer's
    state and iterations, the accumulated betas, and tf.memory()'s counts."""
    extra = [getattr(optimizer, name, None) for name in ("acc_beta1", "acc_beta2")]
    return (
        bits(variables),
        optimizer_state(optimizer),
        optimizer.iterations,
        bits([t for t in extra if t is not None]),
        memory_counts(),
    )


@contextlib.contextmanager
def fail_at_file_write(k: int, exception: type[BaseException] = OSError):
    """Inside the block, the k-th file written by ``tidytensor.io.atomic`` (0-based) fails
    half-way: half its bytes reach the disk, then ``exception`` is raised (an ``OSError`` as a
    full disk would, or ``KeyboardInterrupt``). Yields the counter (``.asked``: how many
    files were started)."""
    from tidytensor.io import atomic

    original = atomic._write_file
    counter = _FailAt(k)

    def write_file(path, chunks):
        counter.asked += 1
        if counter.asked != k + 1:
            return original(path, chunks)
        data = b"".join(bytes(c) for c in chunks)
        with open(path, "xb") as f:
            f.write(data[: len(data) // 2])
        if exception is OSError:
            raise OSError(28, "No space left on device (injected)", path)
        raise exception()

    atomic._write_file = write_file
    try:
        yield counter
    finally:
        atomic._write_file = original
