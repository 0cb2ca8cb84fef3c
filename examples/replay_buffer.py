"""A DQN-style replay memory that owns its tensors, and the bug of one that does not.

A DQN agent keeps ``(state, action, reward, next_state, done)`` in a replay memory. A
common port of such an agent to TF.js disposed ``state`` and ``next_state`` right after
``remember(...)``: the memory still held the handles, their buffers were gone, and training
crashed later on a missing data id. The fix is ownership: whoever holds the tensors frees
them, and the memory frees an experience when it evicts it.

``ReplayBuffer`` owns its tensors outright: ``push`` takes its own handle on each state
(``clone()`` shares the buffer, nothing is copied) and ``tf.keep``s it so no enclosing
``tidy`` frees it, and eviction disposes exactly those handles. The caller stays free to
dispose its own handles whenever it likes, even right after ``push``. Memory is flat once
the buffer is full (every push that evicts frees as many handles and bytes as it takes),
and the agent learns: the Q-learning loss falls (mean of the first vs the last tenth).

``BrokenReplayMemory`` and ``premature_dispose_bug()`` are the broken version, kept to show
the error tidytensor gives instead of a crash: which tensor, where it was made and where
it was disposed.

Run: ``python examples/replay_buffer.py``
"""

from __future__ import annotations

import random
from collections import deque
from typing import Any

import numpy as np

import tidytensor as tf

STATE_SIZE = 4
NUM_ACTIONS = 2


class ReplayBuffer:
    """A fixed-capacity experience memory that owns the tensors it stores.

    >>> memory = ReplayBuffer(capacity=2)
    >>> s = tf.tensor1d([0.0, 0.1, 0.2, 0.3])
    >>> for step in range(3):
    ...     memory.push(s, 0, 1.0, s, False)
    >>> len(memory), memory.pushed, memory.evicted
    (2, 3, 1)
    >>> s.dispose()        # the caller's handle; the memory holds its own
    >>> memory.dispose()   # frees every tensor the memory still holds
    """

    def __init__(self, capacity: int, seed: int = 0):
        if capacity < 1:
            raise ValueError(f"capacity must be >= 1, got {capacity}")
        self.capacity = capacity
        self._items: deque[tuple[tf.Tensor, int, float, tf.Tensor, bool]] = deque()
        self._rng = random.Random(seed)
        self.pushed = 0
        self.evicted = 0

    def __len__(self) -> int:
        return len(self._items)

    def push(
        self, state: tf.Tensor, action: int, reward: float, next_state: tf.Tensor, done: bool
    ) -> None:
        """Stores one experience. The memory takes its own handles on ``state`` and
        ``next_state`` (no copy), so the caller may dispose its handles at any time."""
        if len(self._items) == self.capacity:
            self._evict()
        own_state = tf.keep(state.clone())
        own_next = tf.keep(next_state.clone())
        self._items.append((own_state, int(action), float(reward), own_next, bool(done)))
        self.pushed += 1

    def _evict(self) -> None:
        state, _, _, next_state, _ = self._items.popleft()
        state.dispose()
        next_state.dispose()
        self.evicted += 1

    def sample(self, batch_size: int) -> dict[str, tf.Tensor]:
        """A random batch as new tensors (``states`` [B, 4], ``actions`` int32 [B],
        ``rewards`` [B], ``next_states`` [B, 4], ``dones`` [B]); the caller owns them."""
        batch = self._rng.sample(list(self._items), batch_size)
        return tf.tidy(
            lambda: {
                "states": tf.stack([e[0] for e in batch]),
                "actions": tf.tensor1d([e[1] for e in batch], "int32"),
                "rewards": tf.tensor1d([e[2] for e in batch]),
                "next_states": tf.stack([e[3] for e in batch]),
                "dones": tf.tensor1d([1.0 if e[4] else 0.0 for e in batch]),
            }
        )

    def dispose(self) -> None:
        """Frees every stored tensor."""
        while self._items:
            self._evict()

    def __enter__(self) -> ReplayBuffer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.dispose()


class ToyEnv:
    """A small deterministic environment: four numbers drift, the action pushes the first
    one left or right, an episode ends when it leaves [-2, 2] or after 50 steps."""

    def __init__(self, seed: int = 0):
        self._rng = np.random.default_rng(seed)
        self._x = np.zeros(STATE_SIZE, np.float32)
        self._t = 0

    def observe(self) -> tf.Tensor:
        return tf.tensor1d(self._x.tolist())  # each observation is a new tensor

    def reset(self) -> tf.Tensor:
        self._x = self._rng.uniform(-0.1, 0.1, STATE_SIZE).astype(np.float32)
        self._t = 0
        return self.observe()

    def step(self, action: int) -> tuple[tf.Tensor, float, bool]:
        push = 0.1 if action == 1 else -0.1
        self._x = (self._x + self._rng.normal(0, 0.05, STATE_SIZE)).astype(np.float32)
        self._x[0] += push + 0.2 * self._x[1]
        self._t += 1
        done = bool(abs(self._x[0]) > 2.0 or self._t >= 50)
        return self.observe(), (0.0 if done else 1.0), done


class QNetwork:
    """Q(s) = relu(s W1 + b1) W2 + b2, one output per action."""

    def __init__(self, seed: int = 0, hidden: int = 16):
        # The initial values are temporaries: tidy frees them, the variables stay.
        self.weights = tf.tidy(
            lambda: [
                tf.variable(tf.random_normal([STATE_SIZE, hidden], 0, 0.5, "float32", seed)),
                tf.variable(tf.zeros([hidden])),
                tf.variable(tf.random_normal([hidden, NUM_ACTIONS], 0, 0.5, "float32", seed + 1)),
                tf.variable(tf.zeros([NUM_ACTIONS])),
            ]
        )

    def predict(self, states: tf.Tensor) -> tf.Tensor:
        w1, b1, w2, b2 = self.weights
        return tf.tidy(lambda: tf.relu(states.mat_mul(w1).add(b1)).mat_mul(w2).add(b2))

    def act(self, state: tf.Tensor, epsilon: float, rng: random.Random) -> int:
        if rng.random() < epsilon:
            return rng.randrange(NUM_ACTIONS)
        # Read the value inside the tidy: a tensor returned from it would be the caller's.
        return tf.tidy(lambda: int(self.predict(state.expand_dims(0)).arg_max(1).data_sync()[0]))

    def dispose(self) -> None:
        tf.dispose(self.weights)


def train_step(
    q: QNetwork, optimizer: Any, batch: dict[str, tf.Tensor], gamma: float = 0.5
) -> float:
    """One Q-learning update on a batch; disposes the batch. Returns the loss."""
    target = tf.tidy(
        lambda: batch["rewards"].add(
            q.predict(batch["next_states"]).max(1).mul(gamma).mul(tf.scalar(1).sub(batch["dones"]))
        )
    )

    def loss() -> tf.Tensor:
        chosen = q.predict(batch["states"]).mul(tf.one_hot(batch["actions"], NUM_ACTIONS)).sum(1)
        return target.sub(chosen).square().mean()

    cost = optimizer.minimize(loss, True)
    value = float(cost.data_sync()[0])
    tf.dispose([cost, target, batch])
    return value


def run_agent(
    steps: int,
    capacity: int = 500,
    batch_size: int = 32,
    train_every: int = 4,
    seed: int = 0,
    on_step: Any = None,
) -> dict[str, Any]:
    """The agent's loop, with a memory that owns its tensors. ``on_step(step, memory)`` is
    called after each step (to watch memory). Frees everything it made before returning."""
    rng = random.Random(seed)
    env = ToyEnv(seed)
    q = QNetwork(seed)
    optimizer = tf.train.adam(0.01)
    losses = []
    with ReplayBuffer(capacity, seed) as memory:
        state = env.reset()
        for step in range(steps):
            epsilon = max(0.05, 1.0 - step / 2000)
            action = q.act(state, epsilon, rng)
            next_state, reward, done = env.step(action)
            memory.push(state, action, reward, next_state, done)
            # Disposing right after push is safe: the memory holds its own handles.
            state.dispose()
            if done:
                next_state.dispose()
                next_state = env.reset()
            state = next_state
            if len(memory) >= batch_size and step % train_every == 0:
                losses.append(train_step(q, optimizer, memory.sample(batch_size)))
            if on_step is not None:
                on_step(step, memory)
        state.dispose()
        pushed, evicted = memory.pushed, memory.evicted
    q.dispose()
    optimizer.dispose()
    return {"pushed": pushed, "evicted": evicted, "losses": losses}


# ------------------------------------------------------------- the broken version
class BrokenReplayMemory:
    """The broken memory: stores the caller's handles and never owns them."""

    def __init__(self, capacity: int):
        self.capacity = capacity
        self.items: list[tuple[tf.Tensor, int, float, tf.Tensor, bool]] = []

    def remember(
        self, state: tf.Tensor, action: int, reward: float, next_state: tf.Tensor, done: bool
    ) -> None:
        if len(self.items) >= self.capacity:
            old = self.items.pop(0)
            old[0].dispose()
            old[3].dispose()
        self.items.append((state, action, reward, next_state, done))

    def sample_states(self, batch_size: int) -> tf.Tensor:
        return tf.stack([item[0] for item in self.items[-batch_size:]])


def premature_dispose_bug(steps: int = 8, batch_size: int = 4) -> None:
    """The broken agent's loop: remember, train, then dispose ``state`` and
    ``next_state`` while the memory still holds them. Raises ``tf.TensorDisposedError``."""
    env = ToyEnv(0)
    memory = BrokenReplayMemory(capacity=100)
    state = env.observe()
    try:
        for _ in range(steps):
            next_state, reward, done = env.step(0)
            memory.remember(state, 0, reward, next_state, done)
            if len(memory.items) >= batch_size:
                memory.sample_states(batch_size).dispose()  # "trainModel()": reads the memory
            state.dispose()  # premature: the memory still holds this tensor
            state = next_state
    finally:  # free what is left (dispose skips tensors already disposed)
        tf.dispose([memory.items, state])


def main() -> None:
    base = tf.memory().num_tensors
    sizes = []

    def watch(step: int, memory: ReplayBuffer) -> None:
        if (step + 1) % 1000 == 0:
            sizes.append(tf.memory().num_tensors)
            print(
                f"step {step + 1:5d}: {len(memory)} experiences, {tf.memory().num_tensors} tensors, {tf.memory().num_bytes} bytes"
            )

    result = run_agent(5000, capacity=500, train_every=10, on_step=watch)
    print(
        f"pushed {result['pushed']}, evicted {result['evicted']}; tensors left: {tf.memory().num_tensors - base}"
    )
    losses = result["losses"]
    window = max(1, len(losses) // 10)
    first, last = np.mean(losses[:window]), np.mean(losses[-window:])
    print(
        f"Q-learning loss, mean of the first and the last {window} of {len(losses)} updates: "
        f"{first:.4f} -> {last:.4f} ({'learned' if last < first else 'did NOT learn'})"
    )
    print("the same loop with a memory that does not own its tensors:")
    try:
        premature_dispose_bug()
    except tf.TensorDisposedError as exc:
        print(f"  TensorDisposedError: {exc}")


if __name__ == "__main__":
    main()
