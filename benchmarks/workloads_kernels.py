"""Kernel-level workloads: the kernels a training step runs, called directly on arrays (no
engine, no tape), against a hand-written NumPy version of the same work and PyTorch's.

- ``LSTM(64) sequence kernels``: forward and backward of one LSTM layer over ``[32, 20, 16]``
  (the ``lstm_train_step`` workload's layer). tidytensor: ``lstm_sequence`` and
  ``lstm_sequence_grad`` (TF.js's hard-sigmoid gates). numpy: a hand-written LSTM in the
  usual batch-major layout (the input projection of all steps as one matmul, then one
  ``h @ R`` matmul per step; backward through time with one matmul per step for ``dh`` and
  one each for the weights at the end), hard-sigmoid gates too. torch: ``nn.LSTM`` forward
  and ``backward`` (sigmoid gates, its only choice).
- ``Adam update``: one Adam step of that model's five variables (LSTM kernel, recurrent
  kernel, bias, Dense kernel, bias), each step's new values and moments fed to the next as
  in training. tidytensor: the ``TidyAdamUpdate`` kernel once over all five (one flat
  update, which reads the parts it handed out on the last step where they lie). numpy: the same kernel once per variable (the update before the
  flat one). torch: ``torch.optim.Adam.step`` (its default, the multi-tensor ``foreach``
  implementation).
"""

from __future__ import annotations

from typing import Any

B, T, D, U, OUT = 32, 20, 16, 64, 10
SEED = 0


def _lstm_arrays(np: Any) -> dict[str, Any]:
    rng = np.random.default_rng(SEED)
    f32 = np.float32
    return {
        "x": rng.standard_normal((B, T, D), dtype=f32),
        "w": (rng.standard_normal((D, 4 * U)) * 0.2).astype(f32),
        "rk": (rng.standard_normal((U, 4 * U)) * 0.1).astype(f32),
        "bias": np.zeros(4 * U, f32),
        "h0": np.zeros((B, U), f32),
        "dh": rng.standard_normal((B, U), dtype=f32),
    }


def _tidytensor_lstm(tf: Any) -> Any:
    import numpy as np

    from tidytensor.backends.xp_kernels import recurrent

    a = _lstm_arrays(np)
    attrs = {"xp": np, "has_bias": True, "return_sequences": False}
    no_seq = np.zeros((B, 0, U), np.float32)
    dc = np.zeros((B, U), np.float32)
    ins = (a["x"], a["w"], a["rk"], a["h0"], a["h0"], a["bias"])

    def run() -> tuple:
        outs = recurrent.lstm_sequence(*ins, **attrs)
        grads = recurrent.lstm_sequence_grad(no_seq, a["dh"], dc, *ins, outs[-1], **attrs)
        return (*grads[:3], grads[5], outs[1])

    return run


def _numpy_lstm(np: Any) -> Any:
    """A plain NumPy LSTM (TF.js's gate order i, f, c, o; hard-sigmoid i, f, o)."""
    a = _lstm_arrays(np)
    f32 = np.float32
    x_tm = np.ascontiguousarray(a["x"].transpose(1, 0, 2))  # [T, B, D]
    w, rk, bias, dh_last = a["w"], a["rk"], a["bias"], a["dh"]
    fifth, half = f32(0.2), f32(0.5)

    def run() -> tuple:
        xw = (x_tm.reshape(T * B, D) @ w + bias).reshape(T, B, 4 * U)
        gates = np.empty((T, B, 4 * U), f32)
        zs = np.empty((T, B, 4 * U), f32)
        cs = np.empty((T + 1, B, U), f32)
        hs = np.empty((T + 1, B, U), f32)
        tcs = np.empty((T, B, U), f32)
        cs[0] = 0
        hs[0] = 0
        for t in range(T):
            z = zs[t]
            np.dot(hs[t], rk, out=z)
            z += xw[t]
            g = gates[t]
            np.multiply(z, fifth, out=g)
            g += half
            np.clip(g, 0, 1, out=g)
            np.tanh(z[:, 2 * U : 3 * U], out=g[:, 2 * U : 3 * U])
            c = cs[t + 1]
            np.multiply(g[:, U : 2 * U], cs[t], out=c)
            c += g[:, :U] * g[:, 2 * U : 3 * U]
            np.tanh(c, out=tcs[t])
            np.multiply(g[:, 3 * U :], tcs[t], out=hs[t + 1])
        # Backward through time.
        dz_all = np.empty((T, B, 4 * U), f32)
        dh, dc = dh_last.copy(), np.zeros((B, U), f32)
        passes = np.empty((T, B, 4 * U), f32)
        np.multiply((zs >= -2.5) & (zs <= 2.5), fifth, out=passes)  # hard sigmoid's slope
        for t in range(T - 1, -1, -1):
            g, dz = gates[t], dz_all[t]
            dc += dh * g[:, 3 * U :] * (1 - tcs[t] * tcs[t])
            dz[:, :U] = dc * g[:, 2 * U : 3 * U]
            dz[:, U : 2 * U] = dc * cs[t]
            dz[:, 2 * U : 3 * U] = dc * g[:, :U] * (1 - g[:, 2 * U : 3 * U] ** 2)
            dz[:, 3 * U :] = dh * tcs[t]
            dz[:, : 2 * U] *= passes[t][:, : 2 * U]
            dz[:, 3 * U :] *= passes[t][:, 3 * U :]
            dc *= g[:, U : 2 * U]
            dh = dz @ rk.T
        flat = dz_all.reshape(T * B, 4 * U)
        dw = x_tm.reshape(T * B, D).T @ flat
        drk = hs[:T].reshape(T * B, U).T @ flat
        dx = (dz_all @ w.T).transpose(1, 0, 2).copy()
        return dx, dw, drk, flat.sum(0), hs[T]

    return run


def _torch_lstm(torch: Any) -> Any:
    import numpy as np

    a = _lstm_arrays(np)
    torch.manual_seed(SEED)
    lstm = torch.nn.LSTM(D, U, batch_first=True)
    x = torch.from_numpy(a["x"])
    dh = torch.from_numpy(a["dh"])

    def run() -> None:
        lstm.zero_grad()
        out, _ = lstm(x)
        out[:, -1].backward(dh)

    return run


SHAPES = [(D, 4 * U), (U, 4 * U), (4 * U,), (U, OUT), (OUT,)]


def _adam_arrays(np: Any) -> list[list[Any]]:
    rng = np.random.default_rng(SEED)
    return [
        [rng.standard_normal(s, dtype=np.float32) * np.float32(scale) for s in SHAPES]
        for scale in (1.0, 0.1, 0.01, 0.001)  # values, gradients, m, v
    ]


def _adam_attrs(np: Any) -> dict[str, Any]:
    return {"xp": np, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-7, "learning_rate": 0.001}


def _tidytensor_adam(tf: Any) -> Any:
    import numpy as np

    from tidytensor.backends.xp_kernels.optimizers import adam_update

    values, grads, ms, vs = _adam_arrays(np)
    betas = (np.float32(0.9**3), np.float32(0.999**3))
    attrs = _adam_attrs(np)

    n = len(values)
    state = [values, ms, vs]

    def run() -> None:  # the new values and moments are the next step's (as in training)
        values, ms, vs = state
        outs = adam_update(*values, *grads, *ms, *vs, *betas, count=n, **attrs)
        state[:] = [outs[2 * n :], outs[:n], outs[n : 2 * n]]

    return run


def _numpy_adam(np: Any) -> Any:
    """The same kernel once per variable (Adam's update before the flat one)."""
    from tidytensor.backends.xp_kernels.optimizers import adam_update

    values, grads, ms, vs = _adam_arrays(np)
    betas = (np.float32(0.9**3), np.float32(0.999**3))
    attrs = _adam_attrs(np)

    def run() -> None:
        for i in range(len(values)):
            ms[i], vs[i], values[i] = adam_update(
                values[i], grads[i], ms[i], vs[i], *betas, **attrs
            )

    return run


def _torch_adam(torch: Any) -> Any:
    import numpy as np

    values, grads, _, _ = _adam_arrays(np)
    params = [torch.from_numpy(v.copy()).requires_grad_(True) for v in values]
    for p, g in zip(params, grads, strict=True):
        p.grad = torch.from_numpy(g)
    optimizer = torch.optim.Adam(params, lr=0.001)
    optimizer.step()  # creates its state

    def run() -> None:
        optimizer.step()

    return run


def register(workload: Any, Workload: Any) -> None:
    """Registers the kernel-level workloads with ``run.py``'s ``@workload``."""

    @workload
    def lstm_sequence_kernels(quick: bool) -> Any:
        steps = 5 if quick else 20
        return Workload(
            name=f"LSTM({U}) [{B},{T},{D}] sequence kernels, forward + backward",
            group="kernels",
            unit_name="call",
            report_unit="ms",
            work_items=steps,
            repeats=3 if quick else 11,
            runners={
                "tidytensor": _repeated(_tidytensor_lstm, steps),
                "numpy": _repeated(_numpy_lstm, steps),
                "torch": _repeated(_torch_lstm, steps),
            },
            notes="tidytensor: lstm_sequence + lstm_sequence_grad on arrays; numpy: "
            "hand-written LSTM; torch: nn.LSTM forward + backward (sigmoid gates)",
        )

    @workload
    def adam_flat_update(quick: bool) -> Any:
        steps = 20 if quick else 200
        return Workload(
            name="Adam update of 5 variables (LSTM(64) -> Dense(10) model)",
            group="kernels",
            unit_name="step",
            report_unit="us",
            work_items=steps,
            repeats=3 if quick else 11,
            runners={
                "tidytensor": _repeated(_tidytensor_adam, steps),
                "numpy": _repeated(_numpy_adam, steps),
                "torch": _repeated(_torch_adam, steps),
            },
            notes="tidytensor: TidyAdamUpdate once over all variables (flat); numpy: the "
            "same kernel once per variable; torch: torch.optim.Adam.step (foreach)",
        )


def _repeated(build: Any, steps: int) -> Any:
    def factory(module: Any) -> Any:
        run = build(module)

        def repeated() -> None:
            for _ in range(steps):
                run()

        return repeated

    return factory
