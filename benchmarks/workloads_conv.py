"""conv2d workloads for ``benchmarks/run.py``: a 3x3 'same' convolution of an [8, 32, 32, 16]
input with 32 filters, forward and forward + backward, on tidytensor, PyTorch
(``torch.nn.functional.conv2d``, NCHW) and NumPy (the textbook im2col formulation: one GEMM
over a strided window view, col2im for the input gradient; tidytensor's kernels gather one
filter row per output position instead and sum one GEMM per remaining tap, in L2-sized chunks:
``backends/xp_kernels/conv_gemm.py``).

Registered from ``run.py`` with::

    from workloads_conv import register as _register_conv  # noqa: E402
    _register_conv(workload, Workload)
"""

from __future__ import annotations

from typing import Any

BATCH, SIZE, IN_CH, OUT_CH, K = 8, 32, 16, 32, 3
SEED = 4321


def _host_inputs(np: Any) -> tuple[Any, Any]:
    rng = np.random.default_rng(SEED)
    x = rng.standard_normal((BATCH, SIZE, SIZE, IN_CH), dtype=np.float32)
    w = rng.standard_normal((K, K, IN_CH, OUT_CH), dtype=np.float32)
    return x, w


def _numpy_conv(np: Any):
    """NHWC 'same' stride-1 conv2d and its gradients with im2col + GEMM (NumPy only)."""
    from numpy.lib.stride_tricks import as_strided

    pad = K // 2

    def windows(a: Any) -> Any:
        n, h, w, c = a.shape
        p = np.zeros((n, h + 2 * pad, w + 2 * pad, c), dtype=np.float32)
        p[:, pad : pad + h, pad : pad + w] = a
        s = p.strides
        return as_strided(p, (n, h, w, K, K, c), (s[0], s[1], s[2], s[1], s[2], s[3]))

    def forward(x: Any, w: Any) -> Any:
        cols = windows(x).reshape(-1, K * K * x.shape[-1])
        return (cols @ w.reshape(-1, w.shape[-1])).reshape(*x.shape[:-1], w.shape[-1])

    def backward(x: Any, w: Any, dy: Any) -> tuple[Any, Any]:
        n, h, wd, c = x.shape
        cols = windows(x).reshape(-1, K * K * c)
        dw = (cols.T @ dy.reshape(-1, dy.shape[-1])).reshape(w.shape)
        dcols = dy.reshape(-1, dy.shape[-1]) @ w.reshape(K * K, c, -1).transpose(0, 2, 1)
        acc = np.zeros((n, h + 2 * pad, wd + 2 * pad, c), dtype=np.float32)
        for t in range(K * K):
            i, j = divmod(t, K)
            acc[:, i : i + h, j : j + wd] += dcols[t].reshape(n, h, wd, c)
        return acc[:, pad : pad + h, pad : pad + wd], dw

    return forward, backward


def _conv2d(quick: bool, backward: bool, Workload: Any) -> Any:
    inner = 2 if quick else 5
    flops = 2.0 * BATCH * SIZE * SIZE * K * K * IN_CH * OUT_CH * (3 if backward else 1)

    def tidytensor_runner(tf: Any) -> Any:
        import numpy as np

        hx, hw = _host_inputs(np)
        x, w = tf.tensor(hx), tf.tensor(hw)
        forward, _ = _numpy_conv(np)
        got = tf.conv2d(x, w, 1, "same")
        if not np.allclose(got.numpy(), forward(hx, hw), rtol=1e-3, atol=1e-3):
            raise AssertionError("tf.conv2d disagrees with the NumPy im2col reference")
        got.dispose()
        conv2d, dispose = tf.conv2d, tf.dispose
        grads = tf.grads(lambda a, b: conv2d(a, b, 1, "same"))

        def run() -> None:
            for _ in range(inner):
                if backward:
                    dispose(grads([x, w]))
                else:
                    conv2d(x, w, 1, "same").dispose()

        return run

    def numpy_runner(np: Any) -> Any:
        x, w = _host_inputs(np)
        forward, backprop = _numpy_conv(np)

        def run() -> None:
            for _ in range(inner):
                y = forward(x, w)
                if backward:
                    backprop(x, w, np.ones_like(y))

        return run

    def torch_runner(torch: Any) -> Any:
        import numpy as np

        hx, hw = _host_inputs(np)
        x = torch.from_numpy(hx.transpose(0, 3, 1, 2).copy())
        w = torch.from_numpy(hw.transpose(3, 2, 0, 1).copy())
        conv2d = torch.nn.functional.conv2d
        if backward:
            x.requires_grad_(True)
            w.requires_grad_(True)

        def run() -> None:
            for _ in range(inner):
                if backward:
                    y = conv2d(x, w, padding=K // 2)
                    y.backward(torch.ones_like(y))
                    x.grad = None
                    w.grad = None
                else:
                    with torch.no_grad():
                        conv2d(x, w, padding=K // 2)

        return run

    what = "forward + backward (dx, dw)" if backward else "forward"
    return Workload(
        name=f"conv2d 3x3 same {BATCH}x{SIZE}x{SIZE}x{IN_CH}->{OUT_CH} {'fwd+bwd' if backward else 'fwd'}",
        group="convolution",
        unit_name="conv",
        report_unit="ms",
        work_items=inner,
        repeats=5 if quick else 15,
        runners={"tidytensor": tidytensor_runner, "numpy": numpy_runner, "torch": torch_runner},
        flops_per_item=flops,
        notes=f"{what}; tidytensor NHWC (tf.grads for the backward), torch NCHW, NumPy im2col",
    )


def register(workload: Any, Workload: Any) -> None:
    """Registers the conv2d workloads with ``run.py``'s ``@workload`` decorator."""

    @workload
    def conv2d_forward(quick: bool) -> Any:
        return _conv2d(quick, False, Workload)

    @workload
    def conv2d_forward_backward(quick: bool) -> Any:
        return _conv2d(quick, True, Workload)
