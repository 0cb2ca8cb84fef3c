"""Compiled-step workloads for ``benchmarks/run.py`` (issue 15): a Keras-style model's
``train_on_batch`` and one-row ``predict``, compiled (``run_eagerly=False``, the default) and
op by op (``run_eagerly=True``), against PyTorch eager; and ``fit`` on the Iris demo's model
per epoch, compiled and op by op.

The MLP is ``workloads_training``'s: 784 -> 128 (relu) -> 10, softmax cross-entropy on the
logits averaged over a batch of 64, Adam lr 1e-3 (TF.js's epsilon 1e-7), the same starting
weights and batch; PyTorch runs ``F.linear`` + ``F.cross_entropy`` + ``optim.Adam``, and for
``predict`` the forward pass under ``torch.inference_mode()``.

Registered from ``run.py`` with::

    from workloads_compiled import register as _register_compiled  # noqa: E402
    _register_compiled(workload, Workload)
"""

from __future__ import annotations

import random
from typing import Any

from workloads_training import BATCH, BETA1, BETA2, EPS, HIDDEN, IN, LR, OUT, _host_problem


def _mlp_model(tf: Any, p: dict[str, Any], run_eagerly: bool) -> Any:
    model = tf.sequential()
    model.add(tf.layers.dense(units=HIDDEN, input_shape=[IN], activation="relu"))
    model.add(tf.layers.dense(units=OUT))
    weights = [tf.tensor(p[k]) for k in ("w1", "b1", "w2", "b2")]
    model.set_weights(weights)
    tf.dispose(weights)
    model.compile(
        optimizer=tf.train.adam(LR, BETA1, BETA2),
        loss=lambda y, logits: tf.losses.softmax_cross_entropy(y, logits),
        run_eagerly=run_eagerly,
    )
    return model


def _train_on_batch(quick: bool, Workload: Any, run_eagerly: bool) -> Any:
    inner = 5 if quick else 20
    mode = "op by op" if run_eagerly else "compiled"

    def tidytensor_runner(tf: Any) -> Any:
        import numpy as np

        p = _host_problem(np)
        model = _mlp_model(tf, p, run_eagerly)
        x, y = tf.tensor(p["x"]), tf.tensor(p["onehot"])
        for _ in range(3):  # traced (Adam's slots made), traced again, replayed
            model.train_on_batch(x, y)
        before = tf.memory().num_tensors
        model.train_on_batch(x, y)
        if tf.memory().num_tensors != before:
            raise AssertionError("tidytensor: train_on_batch changed num_tensors")
        train_on_batch = model.train_on_batch

        def run() -> None:
            for _ in range(inner):
                train_on_batch(x, y)

        return run

    def torch_runner(torch: Any) -> Any:
        import numpy as np

        p = _host_problem(np)
        x = torch.from_numpy(p["x"])
        labels = torch.from_numpy(p["labels"])
        params = [
            torch.from_numpy(a).requires_grad_(True)
            for a in (p["w1"].T.copy(), p["b1"].copy(), p["w2"].T.copy(), p["b2"].copy())
        ]
        w1, b1, w2, b2 = params
        opt = torch.optim.Adam(params, lr=LR, betas=(BETA1, BETA2), eps=EPS)
        F = torch.nn.functional

        def step() -> None:
            opt.zero_grad(set_to_none=True)
            h = F.relu(F.linear(x, w1, b1))
            F.cross_entropy(F.linear(h, w2, b2), labels).backward()
            opt.step()

        def run() -> None:
            for _ in range(inner):
                step()

        return run

    return Workload(
        name=f"mlp {IN}-{HIDDEN}-{OUT} train_on_batch b{BATCH} {mode}",
        group="compiled",
        unit_name="step",
        report_unit="ms",
        work_items=inner,
        repeats=5 if quick else 11,
        runners={"tidytensor": tidytensor_runner, "torch": torch_runner},
        notes=f"{inner} model.train_on_batch calls per timed call (compile run_eagerly="
        f"{run_eagerly}); torch F.linear + F.cross_entropy + optim.Adam",
    )


def _predict_one_row(quick: bool, Workload: Any, run_eagerly: bool) -> Any:
    inner = 20 if quick else 200
    mode = "op by op" if run_eagerly else "compiled"

    def tidytensor_runner(tf: Any) -> Any:
        import numpy as np

        p = _host_problem(np)
        model = _mlp_model(tf, p, run_eagerly)
        row = tf.tensor(p["x"][:1])
        for _ in range(2):
            tf.dispose(model.predict(row))
        predict = model.predict

        def run() -> None:
            for _ in range(inner):
                predict(row).dispose()

        return run

    def torch_runner(torch: Any) -> Any:
        import numpy as np

        p = _host_problem(np)
        row = torch.from_numpy(p["x"][:1].copy())
        w1, b1 = torch.from_numpy(p["w1"].T.copy()), torch.from_numpy(p["b1"])
        w2, b2 = torch.from_numpy(p["w2"].T.copy()), torch.from_numpy(p["b2"])
        F = torch.nn.functional

        def run() -> None:
            with torch.inference_mode():
                for _ in range(inner):
                    F.linear(F.relu(F.linear(row, w1, b1)), w2, b2)

        return run

    return Workload(
        name=f"mlp {IN}-{HIDDEN}-{OUT} predict 1 row {mode}",
        group="compiled",
        unit_name="predict",
        report_unit="us",
        work_items=inner,
        repeats=5 if quick else 11,
        runners={"tidytensor": tidytensor_runner, "torch": torch_runner},
        notes="model.predict(one row) (a new tensor, disposed); torch forward under inference_mode",
    )


def _iris_fit_epoch(quick: bool, Workload: Any, run_eagerly: bool) -> Any:
    epochs = 2 if quick else 5
    mode = "op by op" if run_eagerly else "compiled"

    def tidytensor_runner(tf: Any) -> Any:
        from tidytensor.demo import iris_classifier, iris_split

        x_train, y_train, _, _ = iris_split()
        xs = tf.tensor2d(x_train)
        ys = tf.one_hot(tf.tensor1d(y_train, "int32"), 3)
        model = iris_classifier(run_eagerly=run_eagerly)
        random.seed(0)
        model.fit(xs, ys, epochs=1, batch_size=16, verbose=0)  # traces its steps

        def run() -> None:
            model.fit(xs, ys, epochs=epochs, batch_size=16, verbose=0)

        return run

    return Workload(
        name=f"iris demo fit per epoch {mode}",
        group="compiled",
        unit_name="epoch",
        report_unit="ms",
        work_items=epochs,
        repeats=5 if quick else 9,
        runners={"tidytensor": tidytensor_runner},
        notes="tidytensor.demo's Iris classifier (4-10-3, sigmoid/softmax, Adam 0.02, "
        "categorical crossentropy, accuracy), batch 16, shuffled",
    )


def register(workload: Any, Workload: Any) -> None:
    """Registers the compiled-step workloads with ``run.py``'s ``@workload`` decorator."""
    for run_eagerly in (False, True):

        @workload
        def train_on_batch(quick: bool, run_eagerly: bool = run_eagerly) -> Any:
            return _train_on_batch(quick, Workload, run_eagerly)

        @workload
        def predict_one_row(quick: bool, run_eagerly: bool = run_eagerly) -> Any:
            return _predict_one_row(quick, Workload, run_eagerly)

        @workload
        def iris_fit_epoch(quick: bool, run_eagerly: bool = run_eagerly) -> Any:
            return _iris_fit_epoch(quick, Workload, run_eagerly)
