"""An optimizer step is all or nothing (issue 13).

A failure anywhere in ``apply_gradients`` or ``minimize`` (over the memory limit at any
allocation, so at every variable; Ctrl-C at any point, injected or by a real signal) must
leave every weight, every optimizer slot, ``iterations`` and tf.memory()'s counts as they
were, and the next successful step must give the same bits as a run that never failed.
"""

from __future__ import annotations

import os
import random
import signal
import sys
import time

import numpy as np
import pytest

import tidytensor as tf
from failure_injection import (
    count_allocations,
    fail_at_allocation,
    memory_counts,
    optimizer_state,
    snapshot,
)
from tidytensor.engine.atomic_update import atomic_update
from tidytensor.interrupts import critical_section, interruption_point

SHAPES = [(3, 4), (4,), (), (2, 3, 2), (5,)]

OPTIMIZERS = {
    "sgd": lambda: tf.train.sgd(0.1),
    "momentum": lambda: tf.train.momentum(0.1, 0.9),
    "nesterov": lambda: tf.train.momentum(0.1, 0.9, True),
    "rmsprop": lambda: tf.train.rmsprop(0.01, 0.9, 0.5),
    "rmsprop_centered": lambda: tf.train.rmsprop(0.01, 0.9, 0.5, None, True),
    "adagrad": lambda: tf.train.adagrad(0.1),
    "adadelta": lambda: tf.train.adadelta(1.0),
    "adamax": lambda: tf.train.adamax(0.01),
    "adam": lambda: tf.train.adam(0.01),
}


class Model:
    """Five variables of different shapes (a scalar among them), an optimizer and a loss."""

    def __init__(self, optimizer_name: str, tag: str):
        rng = np.random.default_rng(7)
        self.variables = [
            tf.variable(tf.tensor(rng.normal(size=s).astype("float32"), list(s)), True, f"{tag}{i}")
            for i, s in enumerate(SHAPES)
        ]
        self.targets = [
            tf.keep(tf.tensor(rng.normal(size=s).astype("float32"), list(s))) for s in SHAPES
        ]
        self.optimizer = OPTIMIZERS[optimizer_name]()

    def loss(self) -> tf.Tensor:
        terms = [
            tf.sum(tf.square(tf.sub(v, t)))
            for v, t in zip(self.variables, self.targets, strict=True)
        ]
        return tf.add_n(terms)

    def minimize(self) -> None:
        self.optimizer.minimize(self.loss)

    def apply(self) -> None:
        result = tf.variable_grads(self.loss)
        try:
            self.optimizer.apply_gradients(result.grads)
        finally:
            tf.dispose([result.value, result.grads])

    def state(self) -> tuple:
        return snapshot(self.variables, self.optimizer)

    def dispose(self) -> None:
        self.optimizer.dispose()
        c = getattr(self.optimizer, "c", None)  # Momentum.dispose() keeps it, as TF.js's does
        if c is not None and not c.is_disposed:
            c.dispose()
        tf.dispose(self.targets)


def _reference(optimizer_name: str, warmup: int, steps: int) -> list[bytes]:
    model = Model(optimizer_name, "ref")
    for _ in range(warmup + steps):
        model.minimize()
    result = [v.data_sync().tobytes() for v in model.variables]
    result_state = optimizer_state(model.optimizer, names=False)
    model.dispose()
    for v in model.variables:
        v.dispose()
    return result, result_state


@pytest.mark.parametrize("warmup", [0, 1], ids=["first_step", "later_step"])
@pytest.mark.parametrize("how", ["minimize", "apply_gradients"])
@pytest.mark.parametrize("optimizer_name", list(OPTIMIZERS))
def test_resource_exhausted_at_every_allocation_changes_nothing(optimizer_name, how, warmup):
    expected_values, expected_state = _reference(optimizer_name, warmup, 1)
    model = Model(optimizer_name, "m")
    for _ in range(warmup):
        model.minimize()
    step = model.minimize if how == "minimize" else model.apply
    # Fresh buffers of one step (measured on a twin, so that the model itself never steps).
    twin = Model(optimizer_name, "t")
    for _ in range(warmup):
        twin.minimize()
    allocations = count_allocations(twin.minimize if how == "minimize" else twin.apply)
    twin.dispose()
    assert allocations > 2 * len(SHAPES)  # points in every variable's update
    before = model.state()
    for k in range(allocations):
        with fail_at_allocation(k), pytest.raises(tf.ResourceExhaustedError):
            step()
        assert model.state() == before, f"allocation {k} of {allocations}"
    step()  # the step that never failed, after all those that did
    assert [v.data_sync().tobytes() for v in model.variables] == expected_values
    assert optimizer_state(model.optimizer, names=False) == expected_state
    model.dispose()


@pytest.mark.parametrize("optimizer_name", list(OPTIMIZERS))
def test_keyboard_interrupt_at_every_allocation_changes_nothing(optimizer_name):
    expected_values, _ = _reference(optimizer_name, 1, 1)
    model = Model(optimizer_name, "m")
    model.minimize()
    before = model.state()
    k = 0
    while True:
        try:
            with fail_at_allocation(k, KeyboardInterrupt):
                model.minimize()
        except KeyboardInterrupt:
            assert model.state() == before, f"allocation {k}"
            k += 1
            continue
        break  # k is past the step's last allocation: it ran to the end
    assert k > 2 * len(SHAPES)
    assert [v.data_sync().tobytes() for v in model.variables] == expected_values
    model.dispose()


@pytest.mark.parametrize("fused", [True, False], ids=["fused", "unfused"])
def test_memory_limit_sweep_fails_atomically_or_succeeds(fused):
    """tf.config.set_memory_limit at every budget from what is live to what a step needs."""
    tf.set_kernel_fusion(fused)
    try:
        _sweep()
    finally:
        tf.set_kernel_fusion(True)


def _sweep() -> None:
    model = Model("adam", "m")
    model.minimize()
    live = tf.config.get_memory_info("CPU:0")["current"]
    failures = 0
    for extra in range(0, 2400, 32):
        before = model.state()
        tf.config.set_memory_limit(live + extra)
        try:
            model.minimize()
            failed = False
        except tf.ResourceExhaustedError:
            failed = True
        finally:
            tf.config.set_memory_limit(None)
        if failed:
            failures += 1
            assert model.state() == before, f"limit {live + extra}"
        else:
            assert model.state()[2] == before[2] + 1
    assert failures > 10
    model.dispose()


def test_a_failed_first_step_leaves_no_slots_and_the_names_free():
    twin = Model("rmsprop_centered", "t")
    n = count_allocations(twin.minimize)
    twin.dispose()
    model = Model("rmsprop_centered", "m")
    names_before = set(tf.engine().state.registered_variables)
    counts_before = memory_counts()
    with fail_at_allocation(n - 1), pytest.raises(tf.ResourceExhaustedError):
        model.minimize()
    assert set(tf.engine().state.registered_variables) == names_before
    assert memory_counts() == counts_before
    assert model.optimizer.get_weights()[1:] == []
    model.minimize()
    assert len(model.optimizer.get_weights()) == 1 + 3 * len(SHAPES)
    model.dispose()


def test_a_variable_listed_twice_sees_its_first_update():
    """Writes are pending until the commit, but the step reads its own writes (as TF.js,
    which assigns as it goes)."""
    x = tf.variable(tf.tensor1d([1.0, 2.0]), True, "twice")
    g = tf.tensor1d([1.0, 1.0])
    opt = tf.train.sgd(0.5)
    opt.apply_gradients([{"name": "twice", "tensor": g}] * 2)
    assert x.array_sync() == [0.0, 1.0]
    opt.apply_gradients([{"name": "twice", "tensor": x}] * 2)  # g = x, updated in between
    assert x.array_sync() == [0.0, 0.25]
    g.dispose()
    opt.dispose()


def test_an_invalid_entry_after_valid_ones_changes_nothing():
    """TF.js updates the entries before the bad one; tidytensor checks every write first."""
    a = tf.variable(tf.tensor1d([1.0, 2.0]), True, "good")
    b = tf.variable(tf.tensor1d([1, 2], "int32"), True, "int_var")
    opt = tf.train.adagrad(0.1)
    g = [tf.tensor1d([1.0, 1.0]), tf.tensor1d([1.0, 1.0])]
    before = (a.array_sync(), b.array_sync(), memory_counts())
    with pytest.raises(tf.InvalidArgumentError, match="dtype of the new value"):
        opt.apply_gradients({"good": g[0], "int_var": g[1]})
    assert (a.array_sync(), b.array_sync(), memory_counts()) == before
    assert opt.iterations == 0 and opt.get_weights()[1:] == []
    tf.dispose(g)
    opt.dispose()


# ---------------------------------------------------------------------- real signals
@pytest.fixture
def default_sigint():
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGINT, previous)


def _sigint_soon(delay: float) -> None:
    signal.signal(signal.SIGALRM, lambda *_: os.kill(os.getpid(), signal.SIGINT))
    signal.setitimer(signal.ITIMER_REAL, delay)


def _bits_only(model: Model) -> tuple:
    values, _, iterations, betas, _ = model.state()
    return values, optimizer_state(model.optimizer, names=False), iterations, betas


@pytest.mark.skipif(sys.platform == "win32", reason="setitimer/SIGALRM are POSIX")
@pytest.mark.parametrize("optimizer_name", ["adam", "rmsprop_centered", "momentum"])
def test_random_sigint_never_splits_a_step(optimizer_name, default_sigint):
    """Ctrl-C at random times: after each trial the model is exactly either as before the step
    or as after it (a twin that steps only when the model did agrees bit for bit)."""
    model, twin = Model(optimizer_name, "m"), Model(optimizer_name, "t")
    model.minimize()
    twin.minimize()
    start = time.perf_counter()
    for _ in range(5):
        model.minimize()
        twin.minimize()
    duration = (time.perf_counter() - start) / 5
    rng = random.Random(13)
    interrupted = 0
    counts = memory_counts()
    for _ in range(150):
        iterations = model.optimizer.iterations
        try:
            _sigint_soon(rng.uniform(1e-6, duration * 1.2))
            try:
                model.minimize()
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            time.sleep(0.002)  # a SIGINT already sent is taken here, not in the checks
        except KeyboardInterrupt:
            interrupted += 1
        if model.optimizer.iterations != iterations:
            twin.minimize()
        assert _bits_only(model) == _bits_only(twin)
        assert memory_counts() == counts
    assert interrupted > 0
    model.dispose()
    twin.dispose()


def test_sigint_inside_a_critical_section_is_delivered_after_it(default_sigint):
    order = []
    with pytest.raises(KeyboardInterrupt):
        with critical_section():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.01)
            order.append("still running")
    assert order == ["still running"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_sigint_held_in_a_step_stops_it_at_the_next_interruption_point(default_sigint):
    model = Model("adam", "m")
    model.minimize()
    before = model.state()
    original = model.loss

    def loss_then_ctrl_c():  # Ctrl-C in the forward pass: held until a safe point
        value = original()
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.005)
        return value

    model.loss = loss_then_ctrl_c
    with pytest.raises(KeyboardInterrupt):
        model.minimize()
    assert model.state() == before
    model.dispose()


def test_interruption_point_outside_a_critical_section_does_nothing(default_sigint):
    interruption_point()
    with critical_section():
        interruption_point()  # nothing held


def test_sigint_during_the_commit_lets_the_step_finish(default_sigint, monkeypatch):
    x = tf.variable(tf.tensor1d([1.0, 2.0]), True, "committed")
    opt = tf.train.sgd(1.0)
    original = tf.engine().assign_variable

    def assign_then_interrupt(v, value):
        original(v, value)
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.005)

    monkeypatch.setattr(tf.engine(), "assign_variable", assign_then_interrupt)
    g = tf.tensor1d([1.0, 1.0])
    y = tf.variable(tf.tensor1d([5.0]), True, "committed_too")
    gy = tf.tensor1d([1.0])
    with pytest.raises(KeyboardInterrupt):
        opt.apply_gradients({"committed": g, "committed_too": gy})
    monkeypatch.undo()
    assert x.array_sync() == [0.0, 1.0] and y.array_sync() == [4.0]
    assert opt.iterations == 1
    tf.dispose([g, gy])
    opt.dispose()


def test_atomic_update_block_commits_on_exit_and_rolls_back_on_error():
    w = tf.variable(tf.tensor1d([1.0, 2.0]), True, "block_w")
    counts = memory_counts()
    with pytest.raises(ValueError):
        with atomic_update() as update:
            t = tf.tensor1d([3.0, 4.0])
            update.assign(w, t)
            t.dispose()  # the update holds the buffer
            assert update.read(w).array_sync() == [3.0, 4.0]
            raise ValueError("boom")
    assert w.array_sync() == [1.0, 2.0]
    assert memory_counts() == counts
    with atomic_update() as update:
        update.assign(w, tf.tensor1d([3.0, 4.0]))
    assert w.array_sync() == [3.0, 4.0]
