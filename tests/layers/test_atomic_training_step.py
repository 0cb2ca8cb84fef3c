"""A training step of ``train_on_batch`` / ``fit`` is all or nothing (issue 13).

A failure anywhere in a step (forward pass, backward pass or optimizer; over the memory
limit or Ctrl-C at any allocation) leaves every weight, BatchNormalization's moving
statistics (written during the forward pass), the optimizer's slots and ``iterations`` as
they were; ``fit`` stopped by an exception leaves the model as after its last complete step.
"""

from __future__ import annotations

import numpy as np
import pytest

import tidytensor as tf
import tidytensor.layers as L
from failure_injection import count_allocations, fail_at_allocation, memory_counts
from failure_injection import optimizer_state as optimizer_bits

RNG = np.random.default_rng(3)
X = RNG.normal(size=(8, 3)).astype("float32")
Y = RNG.normal(size=(8, 2)).astype("float32")


def make_model(optimizer: str, run_eagerly: bool = True):
    """The model of these tests. The allocation sweeps fail the op-by-op step at each of its
    allocations (``run_eagerly=True``); a compiled step's replay allocates nothing until its
    commit, and ``test_compiled_train_on_batch_stopped_at_every_kernel_changes_nothing``
    stops it at each of its kernels instead."""
    model = L.models.sequential(
        [
            L.dense(units=4, input_shape=[3], activation="relu"),
            L.batch_normalization(),
            L.dense(units=2),
        ]
    )
    rng = np.random.default_rng(5)
    weights = [tf.tensor(rng.normal(size=w.shape).astype("float32")) for w in model.weights]
    model.set_weights(weights)
    tf.dispose(weights)
    model.compile(optimizer=optimizer, loss="meanSquaredError", run_eagerly=run_eagerly)
    return model


def state(model) -> tuple:
    """Every weight (BatchNormalization's moving mean and variance among them), the
    optimizer's slots and iterations, as bits."""
    weights = [w.read().data_sync().tobytes() for w in model.weights]
    return weights, optimizer_bits(model.optimizer, names=False), model.optimizer.iterations


def bn_moving_stats(model) -> list[bytes]:
    bn = model.layers[1]
    return [
        bn.moving_mean.read().data_sync().tobytes(),
        bn.moving_variance.read().data_sync().tobytes(),
    ]


@pytest.mark.parametrize("optimizer", ["sgd", "adam", "rmsprop"])
def test_train_on_batch_failing_at_every_allocation_changes_nothing(optimizer, cleanup):
    x, y = cleanup(_Disposable(tf.tensor(X))).t, cleanup(_Disposable(tf.tensor(Y))).t
    reference = cleanup(make_model(optimizer))
    reference.train_on_batch(x, y)
    reference.train_on_batch(x, y)
    expected = state(reference)

    twin = cleanup(make_model(optimizer))
    twin.train_on_batch(x, y)
    allocations = count_allocations(lambda: twin.train_on_batch(x, y))

    model = cleanup(make_model(optimizer))
    model.train_on_batch(x, y)
    before, counts, moving = state(model), memory_counts(), bn_moving_stats(model)
    for k in range(allocations):
        with fail_at_allocation(k), pytest.raises(tf.ResourceExhaustedError):
            model.train_on_batch(x, y)
        assert state(model) == before, f"allocation {k} of {allocations}"
        assert memory_counts() == counts, f"allocation {k} of {allocations}"
    assert bn_moving_stats(model) == moving
    model.train_on_batch(x, y)
    assert state(model) == expected
    assert bn_moving_stats(model) != moving  # the successful step did update them


def test_a_failed_step_rolls_back_batch_norm_moving_stats_written_in_the_forward_pass(cleanup):
    x, y = cleanup(_Disposable(tf.tensor(X))).t, cleanup(_Disposable(tf.tensor(Y))).t
    model = cleanup(make_model("sgd"))
    moving = bn_moving_stats(model)
    twin = cleanup(make_model("sgd"))
    last = count_allocations(lambda: twin.train_on_batch(x, y)) - 1
    # Fail at the step's last fresh buffer: the forward pass (and its moving-average
    # writes) and the backward pass have run by then.
    with fail_at_allocation(last), pytest.raises(tf.ResourceExhaustedError):
        model.train_on_batch(x, y)
    assert bn_moving_stats(model) == moving


def _fit_states(optimizer: str, x, y) -> list[tuple]:
    """The model's state after 0, 1, 2, ... complete steps of the fit below."""
    model = make_model(optimizer)
    states = [state(model)]
    model.fit(
        x,
        y,
        epochs=2,
        batch_size=4,
        shuffle=False,
        verbose=0,
        callbacks={"on_batch_end": lambda batch, logs: states.append(state(model))},
    )
    model.dispose()
    return states


@pytest.mark.parametrize("exception", [tf.ResourceExhaustedError, KeyboardInterrupt])
def test_fit_stopped_anywhere_leaves_the_model_as_after_its_last_complete_step(exception, cleanup):
    x, y = cleanup(_Disposable(tf.tensor(X))).t, cleanup(_Disposable(tf.tensor(Y))).t
    states = _fit_states("adam", x, y)
    assert len(states) == 5  # 2 epochs of 2 batches

    def fit(model):
        model.fit(x, y, epochs=2, batch_size=4, shuffle=False, verbose=0)

    twin = cleanup(make_model("adam"))
    allocations = count_allocations(lambda: fit(twin))
    stopped_after = set()
    for k in range(0, allocations, 7):
        model = make_model("adam")
        with fail_at_allocation(k, exception), pytest.raises(exception):
            fit(model)
        steps = model.optimizer.iterations
        assert state(model) == states[steps], f"allocation {k} of {allocations}"
        stopped_after.add(steps)
        model.dispose()
    assert stopped_after == {0, 1, 2, 3}  # stopped within every step


def test_fit_stopped_by_a_callback_keeps_the_steps_before(cleanup):
    x, y = cleanup(_Disposable(tf.tensor(X))).t, cleanup(_Disposable(tf.tensor(Y))).t
    states = _fit_states("rmsprop", x, y)
    model = cleanup(make_model("rmsprop"))

    def stop(batch, logs):
        if model.optimizer.iterations == 3:
            raise RuntimeError("stop")

    with pytest.raises(RuntimeError, match="stop"):
        model.fit(
            x, y, epochs=2, batch_size=4, shuffle=False, verbose=0, callbacks={"on_batch_end": stop}
        )
    assert state(model) == states[3]


@pytest.mark.parametrize("optimizer", ["sgd", "adam", "rmsprop"])
def test_compiled_train_on_batch_stopped_at_every_kernel_changes_nothing(optimizer, cleanup):
    x, y = cleanup(_Disposable(tf.tensor(X))).t, cleanup(_Disposable(tf.tensor(Y))).t
    reference = cleanup(make_model(optimizer))
    for _ in range(4):
        reference.train_on_batch(x, y)
    model = cleanup(make_model(optimizer, run_eagerly=False))
    for _ in range(3):  # traced (making the slots), traced again, replayed
        model.train_on_batch(x, y)
    (replay,) = model.model.compiled_steps["train"]._cache._entries.values()
    names = replay.compute.__globals__  # the replay's kernels, by name (F0, F1, R7, ...)
    kernels = [n for n in names if n[0] in "FRH" and n[1:].isdigit()]
    assert len(kernels) > 20
    before, counts, moving = state(model), memory_counts(), bn_moving_stats(model)

    def stop(*args, **kwargs):
        raise KeyboardInterrupt

    for name in kernels:
        original, names[name] = names[name], stop
        try:
            with pytest.raises(KeyboardInterrupt):
                model.train_on_batch(x, y)
        finally:
            names[name] = original
        assert state(model) == before, name
        assert bn_moving_stats(model) == moving and memory_counts() == counts, name
    model.train_on_batch(x, y)
    assert state(model) == state(reference)  # the replay then runs the fourth step as eagerly


class _Disposable:
    def __init__(self, t):
        self.t = t

    def dispose(self):
        self.t.dispose()
