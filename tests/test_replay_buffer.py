"""examples/replay_buffer.py: a replay memory that owns its tensors, and the bug of one that
does not."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import tidytensor as tf
from tidytensor import config

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "replay_buffer.py"
SOURCE = EXAMPLE.read_text().splitlines()


def _load():
    spec = importlib.util.spec_from_file_location("replay_buffer_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


rb = _load()


def example_line(marker: str) -> int:
    [n] = [i + 1 for i, text in enumerate(SOURCE) if marker in text]
    return n


def snapshot() -> tuple[int, int, int, int]:
    m = tf.memory()
    return (m.num_tensors, m.num_data_buffers, m.num_bytes, config.get_memory_info()["current"])


def state(*values: float) -> tf.Tensor:
    return tf.tensor1d(list(values))


def test_memory_is_flat_over_ten_thousand_pushes():
    """The agent's loop with training: once the buffer is full, every step frees exactly what
    it makes. Handles and their bytes read the same at every checkpoint; the number of
    distinct buffers moves a little with where episodes end (an experience shares its
    ``state`` buffer with the previous one's ``next_state`` except across an episode's end)
    but stays bounded by two per experience."""
    base = snapshot()
    seen = {}

    def watch(step, memory):
        if step >= 1000 and step % 500 == 0:
            seen[step] = snapshot()
            assert len(memory) == 500

    result = rb.run_agent(10_000, capacity=500, batch_size=32, train_every=50, on_step=watch)
    assert result["pushed"] == 10_000 and result["evicted"] == 9_500
    assert sorted(seen) == list(range(1000, 10_000, 500))
    assert len({(tensors, num_bytes) for tensors, _, num_bytes, _ in seen.values()}) == 1, seen
    tensors, _, num_bytes, _ = seen[1000]
    # Two handles per experience, the four weights, the state, and Adam's state: a first
    # and a second moment per weight and its two kept beta powers (its -lr is a number).
    assert tensors - base[0] == 2 * 500 + 4 + 1 + 2 * 4 + 2
    for _, buffers, _, live in seen.values():
        assert 500 < buffers - base[1] <= 2 * 500 + 4 + 1 + 2 * 4 + 2
        assert live < num_bytes  # shared buffers are counted once
    assert snapshot() == base  # run_agent frees everything it made
    assert len(result["losses"]) > 100


def test_push_takes_its_own_handles_so_the_caller_may_dispose():
    memory = rb.ReplayBuffer(capacity=3)
    s, s2 = state(1, 2, 3, 4), state(5, 6, 7, 8)
    before = snapshot()
    memory.push(s, 1, 0.5, s2, False)
    # Two new handles, no new buffer: the memory shares the caller's buffers.
    assert snapshot()[:2] == (before[0] + 2, before[1])
    s.dispose()
    s2.dispose()  # dispose right after remembering
    batch = memory.sample(1)
    assert batch["states"].array_sync() == [[1.0, 2.0, 3.0, 4.0]]
    assert batch["next_states"].array_sync() == [[5.0, 6.0, 7.0, 8.0]]
    assert batch["actions"].dtype == "int32" and batch["actions"].array_sync() == [1]
    assert batch["rewards"].array_sync() == [0.5] and batch["dones"].array_sync() == [0.0]
    tf.dispose(batch)
    memory.dispose()
    assert len(memory) == 0


def test_eviction_disposes_exactly_the_evicted_handles():
    memory = rb.ReplayBuffer(capacity=2)
    states = [state(i, i, i, i) for i in range(4)]
    memory.push(states[0], 0, 0.0, states[1], False)
    first = memory._items[0]
    memory.push(states[1], 0, 0.0, states[2], False)
    memory.push(states[2], 0, 0.0, states[3], True)
    assert (memory.pushed, memory.evicted, len(memory)) == (3, 1, 2)
    assert first[0].is_disposed and first[3].is_disposed
    # The caller's handles on the same buffers are untouched.
    assert states[0].array_sync() == [0.0] * 4 and states[1].array_sync() == [1.0] * 4
    tf.dispose(states)
    memory.dispose()


def test_pushes_inside_a_tidy_survive_it():
    memory = rb.ReplayBuffer(capacity=4)

    def step():
        s = tf.ones([4]).mul(2)
        memory.push(s, 0, 1.0, s.add(1), False)

    tf.tidy(step)
    with tf.tidy_scope():
        memory.push(tf.zeros([4]), 1, 0.0, tf.ones([4]), True)
    batch = memory.sample(2)
    assert sorted(batch["states"].array_sync()) == [[0.0] * 4, [2.0] * 4]
    tf.dispose(batch)
    memory.dispose()


def test_dispose_and_context_manager_free_everything():
    base = snapshot()
    with rb.ReplayBuffer(capacity=10) as memory:
        for i in range(15):
            s = state(i, 0, 0, 0)
            memory.push(s, 0, 1.0, s, False)
            s.dispose()
        assert snapshot()[0] == base[0] + 20
    assert snapshot() == base


def test_capacity_must_be_positive():
    with pytest.raises(ValueError, match="capacity must be >= 1, got 0"):
        rb.ReplayBuffer(0)


def test_premature_dispose_names_creation_and_disposal_lines():
    with pytest.raises(tf.TensorDisposedError) as caught:
        rb.premature_dispose_bug()
    message = str(caught.value)
    created = example_line("return tf.tensor1d(self._x.tolist())")
    disposed = example_line("state.dispose()  # premature")
    assert re.search(
        r"Tensor \d+ \(shape=\[4\], dtype='float32'\) passed to 'stack' is disposed: it was "
        rf"created at \S*replay_buffer\.py:{created} in observe and disposed at "
        rf"\S*replay_buffer\.py:{disposed} in premature_dispose_bug\.",
        message,
    ), message


def test_example_runs_as_a_script():
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.run(
        [sys.executable, str(EXAMPLE)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    steps = re.findall(r"step +\d+: 500 experiences, (\d+) tensors, (\d+) bytes", proc.stdout)
    assert len(steps) == 5 and len(set(steps)) == 1, proc.stdout
    assert "pushed 5000, evicted 4500; tensors left: 0" in proc.stdout
    assert (
        "TensorDisposedError: Tensor" in proc.stdout and "in premature_dispose_bug" in proc.stdout
    )
    learned = re.search(
        r"^Q-learning loss, mean of the first and the last (\d+) of (\d+) updates: "
        r"([\d.]+) -> ([\d.]+) \(learned\)$",
        proc.stdout,
        flags=re.M,
    )
    assert learned, proc.stdout
    assert float(learned.group(4)) < float(learned.group(3)) / 2
