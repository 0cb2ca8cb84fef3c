"""Training-step workload for ``benchmarks/run.py``: one ``minimize`` step of a 784 -> 128 -> 10
MLP (relu, softmax cross-entropy averaged over a batch of 64, Adam with lr 1e-3) on
tidytensor (``tf.variable`` + ``tf.train.adam`` + ``minimize``), raw NumPy (hand-written
forward, backward and Adam update, in place) and PyTorch CPU (``F.linear`` + ``F.cross_entropy``
+ ``torch.optim.Adam``).

All three start from the same weights and batch, and each runner checks, before it is timed,
that one step moves the weights exactly as the NumPy reference does (Adam with TF.js's
epsilon 1e-7), so the three time the same computation.

Registered from ``run.py`` with::

    from workloads_training import register as _register_training  # noqa: E402
    _register_training(workload, Workload)
"""

from __future__ import annotations

from typing import Any

BATCH, IN, HIDDEN, OUT = 64, 784, 128, 10
LR, BETA1, BETA2, EPS = 1e-3, 0.9, 0.999, 1e-7  # TF.js's adam(1e-3) with the backend epsilon
SEED = 2718


def _host_problem(np: Any) -> dict[str, Any]:
    """The batch, its one-hot labels and the initial weights (He-scaled), as float32."""
    rng = np.random.default_rng(SEED)
    labels = rng.integers(0, OUT, BATCH)
    return {
        "x": rng.standard_normal((BATCH, IN), dtype=np.float32),
        "labels": labels.astype(np.int64),
        "onehot": np.eye(OUT, dtype=np.float32)[labels],
        "w1": (rng.standard_normal((IN, HIDDEN)) * np.sqrt(2.0 / IN)).astype(np.float32),
        "b1": np.zeros(HIDDEN, dtype=np.float32),
        "w2": (rng.standard_normal((HIDDEN, OUT)) * np.sqrt(2.0 / HIDDEN)).astype(np.float32),
        "b2": np.zeros(OUT, dtype=np.float32),
    }


class _NumpyMLP:
    """Forward, backward and Adam written out in NumPy, float32 throughout, updates in place."""

    def __init__(self, np: Any, p: dict[str, Any]):
        self.np = np
        self.x, self.y = p["x"], p["onehot"]
        self.params = [p[k].copy() for k in ("w1", "b1", "w2", "b2")]
        self.m = [np.zeros_like(w) for w in self.params]
        self.v = [np.zeros_like(w) for w in self.params]
        self.t = 0

    def loss_and_grads(self) -> tuple[float, list[Any]]:
        np = self.np
        w1, b1, w2, b2 = self.params
        z1 = self.x @ w1
        z1 += b1
        h = np.maximum(z1, 0, out=z1)  # relu in place: h > 0 exactly where z1 > 0
        logits = h @ w2
        logits += b2
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        s = e.sum(axis=1, keepdims=True)
        loss = float(np.mean(np.log(s)[:, 0] - (logits * self.y).sum(axis=1)))
        d_logits = e / s
        d_logits -= self.y
        d_logits *= np.float32(1.0 / BATCH)
        dw2 = h.T @ d_logits
        db2 = d_logits.sum(axis=0)
        dh = d_logits @ w2.T
        dh *= h > 0
        dw1 = self.x.T @ dh
        db1 = dh.sum(axis=0)
        return loss, [dw1, db1, dw2, db2]

    def step(self) -> float:
        np = self.np
        loss, grads = self.loss_and_grads()
        self.t += 1
        c1 = np.float32(LR / (1.0 - BETA1**self.t))
        c2 = np.float32(1.0 / (1.0 - BETA2**self.t))
        for w, g, m, v in zip(self.params, grads, self.m, self.v, strict=True):
            m *= np.float32(BETA1)
            m += np.float32(1 - BETA1) * g
            v *= np.float32(BETA2)
            g *= g
            g *= np.float32(1 - BETA2)
            v += g
            denom = np.sqrt(v * c2)
            denom += np.float32(EPS)
            w -= c1 * m / denom
        return loss


def _reference_after_one_step(np: Any) -> list[Any]:
    ref = _NumpyMLP(np, _host_problem(np))
    ref.step()
    return ref.params


def _check(np: Any, got: list[Any], framework: str) -> None:
    want = _reference_after_one_step(np)
    for name, g, w in zip(("w1", "b1", "w2", "b2"), got, want, strict=True):
        if not np.allclose(g, w, rtol=1e-4, atol=1e-6):
            raise AssertionError(f"{framework}: {name} after one Adam step differs from NumPy's")


def _mlp_adam_step(quick: bool, Workload: Any) -> Any:
    inner = 5 if quick else 20  # training steps per timed call
    flops = 2.0 * 3 * BATCH * (IN * HIDDEN + HIDDEN * OUT)  # forward + two backward GEMMs each

    def tidytensor_runner(tf: Any) -> Any:
        import numpy as np

        p = _host_problem(np)
        x, y = tf.tensor(p["x"]), tf.tensor(p["onehot"])
        params = []
        for key in ("w1", "b1", "w2", "b2"):
            t = tf.tensor(p[key])
            params.append(tf.variable(t))
            t.dispose()
        w1, b1, w2, b2 = params
        opt = tf.train.adam(LR, BETA1, BETA2)
        relu, add, mat_mul = tf.relu, tf.add, tf.mat_mul
        softmax_cross_entropy = tf.losses.softmax_cross_entropy

        def loss() -> Any:
            h = relu(add(mat_mul(x, w1), b1))
            return softmax_cross_entropy(y, add(mat_mul(h, w2), b2))

        minimize = opt.minimize
        minimize(loss)
        _check(np, [v.numpy() for v in params], "tidytensor")
        before = tf.memory().num_tensors
        minimize(loss)
        if tf.memory().num_tensors != before:
            raise AssertionError("tidytensor: a minimize step changed num_tensors")

        def run() -> None:
            for _ in range(inner):
                minimize(loss)

        return run

    def numpy_runner(np: Any) -> Any:
        model = _NumpyMLP(np, _host_problem(np))
        step = model.step

        def run() -> None:
            for _ in range(inner):
                step()

        return run

    def torch_runner(torch: Any) -> Any:
        import numpy as np

        p = _host_problem(np)
        x = torch.from_numpy(p["x"])
        labels = torch.from_numpy(p["labels"])
        # F.linear takes weights as [out, in] (nn.Linear's layout).
        w1 = torch.from_numpy(p["w1"].T.copy()).requires_grad_(True)
        b1 = torch.from_numpy(p["b1"].copy()).requires_grad_(True)
        w2 = torch.from_numpy(p["w2"].T.copy()).requires_grad_(True)
        b2 = torch.from_numpy(p["b2"].copy()).requires_grad_(True)
        opt = torch.optim.Adam([w1, b1, w2, b2], lr=LR, betas=(BETA1, BETA2), eps=EPS)
        F = torch.nn.functional

        def step() -> None:
            opt.zero_grad(set_to_none=True)
            h = F.relu(F.linear(x, w1, b1))
            F.cross_entropy(F.linear(h, w2, b2), labels).backward()
            opt.step()

        step()
        with torch.no_grad():
            got = [w1.numpy().T, b1.numpy(), w2.numpy().T, b2.numpy()]
            _check(np, [g.copy() for g in got], "torch")

        def run() -> None:
            for _ in range(inner):
                step()

        return run

    return Workload(
        name=f"mlp {IN}-{HIDDEN}-{OUT} adam step b{BATCH}",
        group="training",
        unit_name="step",
        report_unit="ms",
        work_items=inner,
        repeats=5 if quick else 11,
        runners={"tidytensor": tidytensor_runner, "numpy": numpy_runner, "torch": torch_runner},
        flops_per_item=flops,
        notes=(
            f"{inner} steps per timed call; relu + softmax cross-entropy (batch mean), "
            "Adam lr 1e-3 eps 1e-7; tidytensor minimize() on tf.variable weights, NumPy "
            "hand-written backward + in-place Adam, torch F.linear + F.cross_entropy + "
            "optim.Adam"
        ),
    )


def register(workload: Any, Workload: Any) -> None:
    """Registers the training workload with ``run.py``'s ``@workload`` decorator."""

    @workload
    def mlp_adam_step(quick: bool) -> Any:
        return _mlp_adam_step(quick, Workload)
