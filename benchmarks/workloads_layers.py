"""Layers API training-step workloads for ``benchmarks/run.py``: tidytensor's
``model.train_on_batch`` against PyTorch's ``nn`` modules and Keras 3's ``train_on_batch`` on
TensorFlow (CPU), all with Adam (lr 0.001), one thread, the same data.

- MLP 784 → 128 (relu) → 10 (softmax), batch 64, categorical cross-entropy.
- LSTM(64) over ``[32, 20, 16]`` → Dense(10) (softmax), categorical cross-entropy.
  tidytensor's LSTM has TF.js's defaults (hard-sigmoid recurrent activation); PyTorch's
  ``nn.LSTM`` and Keras 3's ``LSTM`` use their default, sigmoid. All compute the gates of one
  step with one matmul. Keras keeps its default on purpose: tidytensor's fused LSTM kernel
  costs the same with either gate function (measured within ~3%), whereas Keras has no fused
  CPU kernel, so a hard sigmoid there is several more graph ops (and their gradients) per gate
  per time step (~25% slower steps measured with ``clip(0.2 x + 0.5, 0, 1)``, TF.js's
  function; Keras's own ``hard_sigmoid`` is a different one, ``relu6(x + 3) / 6``). With
  sigmoid the column measures the framework, not a gate function Keras is not built for.

Keras runs ``model.train_on_batch`` on ``tf.constant`` inputs: Keras traces the step into a
``tf.function`` graph once (``jit_compile=False``, which is also what Keras picks on a machine
without an accelerator) and each call runs that graph and copies the loss out. ``run.py`` runs
the Keras runners in a worker process of their own (see ``run.Worker``).

Registered from ``run.py`` with::

    from workloads_layers import register as _register_layers  # noqa: E402
    _register_layers(workload, Workload)
"""

from __future__ import annotations

from typing import Any

SEED = 2024
MLP_BATCH, MLP_IN, MLP_HIDDEN, MLP_OUT = 64, 784, 128, 10
LSTM_BATCH, LSTM_STEPS, LSTM_FEATURES, LSTM_UNITS, LSTM_OUT = 32, 20, 16, 64, 10


def _data(np: Any, shape: tuple[int, ...], classes: int) -> tuple[Any, Any]:
    rng = np.random.default_rng(SEED)
    x = rng.standard_normal(shape, dtype=np.float32)
    labels = rng.integers(0, classes, shape[0])
    y = np.zeros((shape[0], classes), dtype=np.float32)
    y[np.arange(shape[0]), labels] = 1
    return x, y


def _repeat(fn: Any, steps: int, *args: Any) -> Any:
    """The timed runner: ``steps`` calls of ``fn(*args)``."""

    def run() -> None:
        for _ in range(steps):
            fn(*args)

    return run


def _tidytensor_runner(build: Any, x_shape: tuple[int, ...], classes: int, steps: int) -> Any:
    def factory(tf: Any) -> Any:
        import numpy as np

        hx, hy = _data(np, x_shape, classes)
        model = build(tf)
        model.compile(optimizer=tf.train.adam(0.001), loss="categoricalCrossentropy")
        x, y = tf.tensor(hx), tf.tensor(hy)
        model.train_on_batch(x, y)  # creates Adam's slots
        before = tf.memory().num_tensors
        model.train_on_batch(x, y)
        if tf.memory().num_tensors != before:
            raise AssertionError("train_on_batch leaked tensors")
        return _repeat(model.train_on_batch, steps, x, y)

    return factory


def _torch_runner(build: Any, x_shape: tuple[int, ...], classes: int, steps: int) -> Any:
    def factory(torch: Any) -> Any:
        import numpy as np

        hx, hy = _data(np, x_shape, classes)
        torch.manual_seed(SEED)
        forward, params = build(torch)
        optimizer = torch.optim.Adam(params, lr=0.001)
        x = torch.from_numpy(hx)
        target = torch.from_numpy(hy.argmax(1))
        loss_fn = torch.nn.functional.cross_entropy

        def step() -> None:
            optimizer.zero_grad()
            loss_fn(forward(x), target).backward()
            optimizer.step()

        return _repeat(step, steps)

    return factory


def _keras_runner(build: Any, x_shape: tuple[int, ...], classes: int, steps: int) -> Any:
    def factory(keras: Any) -> Any:
        import numpy as np
        import tensorflow as tf

        hx, hy = _data(np, x_shape, classes)
        keras.utils.set_random_seed(SEED)
        model = build(keras)
        model.compile(
            optimizer=keras.optimizers.Adam(learning_rate=0.001),
            loss="categorical_crossentropy",
            jit_compile=False,
        )
        x, y = tf.constant(hx), tf.constant(hy)
        loss = model.train_on_batch(x, y)  # traces the graph, creates Adam's slots
        if not np.all(np.isfinite(loss)):
            raise AssertionError(f"Keras train_on_batch gave a non-finite loss: {loss}")
        return _repeat(model.train_on_batch, steps, x, y)

    return factory


def _mlp_tidytensor(tf: Any) -> Any:
    return tf.sequential(
        layers=[
            tf.layers.dense(units=MLP_HIDDEN, activation="relu", input_shape=[MLP_IN]),
            tf.layers.dense(units=MLP_OUT, activation="softmax"),
        ]
    )


def _mlp_torch(torch: Any) -> Any:
    net = torch.nn.Sequential(
        torch.nn.Linear(MLP_IN, MLP_HIDDEN), torch.nn.ReLU(), torch.nn.Linear(MLP_HIDDEN, MLP_OUT)
    )
    return net, list(net.parameters())


def _mlp_keras(keras: Any) -> Any:
    return keras.Sequential(
        [
            keras.Input((MLP_IN,)),
            keras.layers.Dense(MLP_HIDDEN, activation="relu"),
            keras.layers.Dense(MLP_OUT, activation="softmax"),
        ]
    )


def _lstm_tidytensor(tf: Any) -> Any:
    return tf.sequential(
        layers=[
            tf.layers.lstm(units=LSTM_UNITS, input_shape=[LSTM_STEPS, LSTM_FEATURES]),
            tf.layers.dense(units=LSTM_OUT, activation="softmax"),
        ]
    )


def _lstm_torch(torch: Any) -> Any:
    lstm = torch.nn.LSTM(LSTM_FEATURES, LSTM_UNITS, batch_first=True)
    head = torch.nn.Linear(LSTM_UNITS, LSTM_OUT)

    def forward(x: Any) -> Any:
        out, _ = lstm(x)
        return head(out[:, -1])

    return forward, [*lstm.parameters(), *head.parameters()]


def _lstm_keras(keras: Any) -> Any:
    return keras.Sequential(
        [
            keras.Input((LSTM_STEPS, LSTM_FEATURES)),
            keras.layers.LSTM(LSTM_UNITS),  # sigmoid gates, Keras's default (see above)
            keras.layers.Dense(LSTM_OUT, activation="softmax"),
        ]
    )


def _workload(
    Workload: Any,
    name: str,
    build_tt: Any,
    build_torch: Any,
    build_keras: Any,
    x_shape: tuple[int, ...],
    classes: int,
    quick: bool,
    notes: str,
) -> Any:
    steps = 5 if quick else 20
    return Workload(
        name=name,
        group="layers training",
        unit_name="step",
        report_unit="ms",
        work_items=steps,
        repeats=3 if quick else 9,
        runners={
            "tidytensor": _tidytensor_runner(build_tt, x_shape, classes, steps),
            "torch": _torch_runner(build_torch, x_shape, classes, steps),
            "keras": _keras_runner(build_keras, x_shape, classes, steps),
        },
        notes=notes,
    )


def register(workload: Any, Workload: Any) -> None:
    """Registers the Layers API training workloads with ``run.py``'s ``@workload``."""

    @workload
    def mlp_train_step(quick: bool) -> Any:
        return _workload(
            Workload,
            f"MLP {MLP_IN}-{MLP_HIDDEN}-{MLP_OUT} train step (Adam, batch {MLP_BATCH})",
            _mlp_tidytensor,
            _mlp_torch,
            _mlp_keras,
            (MLP_BATCH, MLP_IN),
            MLP_OUT,
            quick,
            "tidytensor: Sequential + train_on_batch; torch: nn.Sequential + Adam; "
            "keras: Sequential + train_on_batch (tf.function graph, worker process)",
        )

    @workload
    def lstm_train_step(quick: bool) -> Any:
        return _workload(
            Workload,
            f"LSTM({LSTM_UNITS}) [{LSTM_BATCH},{LSTM_STEPS},{LSTM_FEATURES}]->Dense({LSTM_OUT}) "
            "train step (Adam)",
            _lstm_tidytensor,
            _lstm_torch,
            _lstm_keras,
            (LSTM_BATCH, LSTM_STEPS, LSTM_FEATURES),
            LSTM_OUT,
            quick,
            "tidytensor: Sequential(lstm, dense) + train_on_batch, hard-sigmoid gates (TF.js); "
            "torch: nn.LSTM + nn.Linear; keras: Sequential(LSTM, Dense) + train_on_batch; "
            "torch and keras: sigmoid gates (their defaults)",
        )
