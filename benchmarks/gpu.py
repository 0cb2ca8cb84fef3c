"""GPU benchmarks: tidytensor on the ``'cupy'`` backend beside raw CuPy and PyTorch CUDA.

Usage (also ``python benchmarks/run.py --backend cupy``)::

    python benchmarks/gpu.py [--quick] [--only NAME] [--json FILE]

Each framework runs in a process of its own (``--framework tidytensor|cupy|torch``; a
framework's import leaves objects that every garbage collection of the process walks), one
after the other, on the same device. Every timed call is preceded by warm-up calls and
followed by a device synchronisation (``cupy.cuda.Device().synchronize()``,
``torch.cuda.synchronize()``); each figure is the median of its repeats.

Workloads (the issue-17 targets in brackets):

- ``scalar add``: µs per ``add`` of two 1-element float32 tensors [≤ 1.3x raw CuPy];
- ``matmul 4096``: float32 [4096, 4096] x [4096, 4096], TFLOP/s [≥ 0.95x PyTorch];
- ``conv2d``: [32, 64, 64, 64] (NHWC) x 3x3x64, stride 1, 'same', ms [within 2x PyTorch's
  cuDNN]; PyTorch runs NCHW with the same sizes;
- ``mlp b64``: ``train_on_batch`` of 784 -> 128 (relu) -> 10 (softmax), Adam, batch 64, steps/s
  [≥ 1.5x PyTorch eager with compiled steps];
- ``mlp b4096``: the same with hidden 2048 and batch 4096, steps/s [≥ 0.9x PyTorch];
- ``lstm``: ``train_on_batch`` of LSTM(64) over [32, 20, 16] -> Dense(10), steps/s [≥ PyTorch].
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FRAMEWORKS = ("tidytensor", "cupy", "torch")
SEED = 2024


def _data(np: Any, shape: tuple[int, ...], classes: int) -> tuple[Any, Any]:
    rng = np.random.default_rng(SEED)
    x = rng.standard_normal(shape, dtype=np.float32)
    labels = rng.integers(0, classes, shape[0])
    y = np.zeros((shape[0], classes), dtype=np.float32)
    y[np.arange(shape[0]), labels] = 1
    return x, y


# ------------------------------------------------------------------ workloads per framework
# Each returns (run, items, unit): ``run()`` performs ``items`` units of work.


def tt_scalar_add(tf: Any, quick: bool) -> tuple[Callable[[], None], int]:
    a, b = tf.tensor([1.0]), tf.tensor([2.0])
    n = 2000 if quick else 20000

    def run() -> None:
        for _ in range(n):
            tf.add(a, b).dispose()

    return run, n


def tt_matmul(tf: Any, quick: bool) -> tuple[Callable[[], None], int]:
    import numpy as np

    rng = np.random.default_rng(SEED)
    a = tf.tensor(rng.standard_normal((4096, 4096), dtype=np.float32))
    b = tf.tensor(rng.standard_normal((4096, 4096), dtype=np.float32))
    n = 5 if quick else 20

    def run() -> None:
        for _ in range(n):
            tf.mat_mul(a, b).dispose()

    return run, n


def tt_conv2d(tf: Any, quick: bool) -> tuple[Callable[[], None], int]:
    import numpy as np

    rng = np.random.default_rng(SEED)
    x = tf.tensor(rng.standard_normal((32, 64, 64, 64), dtype=np.float32))
    w = tf.tensor(rng.standard_normal((3, 3, 64, 64), dtype=np.float32) * 0.05)
    n = 3 if quick else 10

    def run() -> None:
        for _ in range(n):
            tf.conv2d(x, w, 1, "same").dispose()

    return run, n


def _tt_train(tf: Any, build: Callable[[Any], Any], x_shape: tuple, classes: int, n: int) -> Any:
    import numpy as np

    hx, hy = _data(np, x_shape, classes)
    model = build(tf)
    model.compile(optimizer=tf.train.adam(0.001), loss="categoricalCrossentropy")
    x, y = tf.tensor(hx), tf.tensor(hy)
    model.train_on_batch(x, y)  # Adam's slots
    before = tf.memory().num_tensors
    model.train_on_batch(x, y)
    if tf.memory().num_tensors != before:
        raise AssertionError("train_on_batch leaked tensors")

    def run() -> None:
        for _ in range(n):
            model.train_on_batch(x, y)

    return run, n


def _tt_mlp(hidden: int) -> Callable[[Any], Any]:
    def build(tf: Any) -> Any:
        return tf.sequential(
            layers=[
                tf.layers.dense(units=hidden, activation="relu", input_shape=[784]),
                tf.layers.dense(units=10, activation="softmax"),
            ]
        )

    return build


def tt_mlp_b64(tf: Any, quick: bool) -> Any:
    return _tt_train(tf, _tt_mlp(128), (64, 784), 10, 10 if quick else 50)


def tt_mlp_b4096(tf: Any, quick: bool) -> Any:
    return _tt_train(tf, _tt_mlp(2048), (4096, 784), 10, 5 if quick else 20)


def tt_lstm(tf: Any, quick: bool) -> Any:
    def build(tf: Any) -> Any:
        return tf.sequential(
            layers=[
                tf.layers.lstm(units=64, input_shape=[20, 16]),
                tf.layers.dense(units=10, activation="softmax"),
            ]
        )

    return _tt_train(tf, build, (32, 20, 16), 10, 5 if quick else 20)


def cp_scalar_add(cp: Any, quick: bool) -> Any:
    a, b = cp.asarray([1.0], dtype=cp.float32), cp.asarray([2.0], dtype=cp.float32)
    n = 2000 if quick else 20000

    def run() -> None:
        for _ in range(n):
            a + b  # noqa: B018

    return run, n


def cp_matmul(cp: Any, quick: bool) -> Any:
    rng = cp.random.default_rng(SEED)
    a = rng.standard_normal((4096, 4096), dtype=cp.float32)
    b = rng.standard_normal((4096, 4096), dtype=cp.float32)
    n = 5 if quick else 20

    def run() -> None:
        for _ in range(n):
            a @ b  # noqa: B018

    return run, n


def th_scalar_add(torch: Any, quick: bool) -> Any:
    a = torch.tensor([1.0], device="cuda")
    b = torch.tensor([2.0], device="cuda")
    n = 2000 if quick else 20000

    def run() -> None:
        for _ in range(n):
            a + b  # noqa: B018

    return run, n


def th_matmul(torch: Any, quick: bool) -> Any:
    g = torch.Generator(device="cuda").manual_seed(SEED)
    a = torch.randn(4096, 4096, device="cuda", generator=g)
    b = torch.randn(4096, 4096, device="cuda", generator=g)
    n = 5 if quick else 20

    def run() -> None:
        for _ in range(n):
            a @ b  # noqa: B018

    return run, n


def th_conv2d(torch: Any, quick: bool) -> Any:
    x = torch.randn(32, 64, 64, 64, device="cuda")
    w = torch.randn(64, 64, 3, 3, device="cuda") * 0.05
    n = 3 if quick else 10
    conv = torch.nn.functional.conv2d

    def run() -> None:
        with torch.no_grad():
            for _ in range(n):
                conv(x, w, padding=1)

    return run, n


def _th_train(torch: Any, net: Any, x_shape: tuple, classes: int, n: int) -> Any:
    import numpy as np

    hx, hy = _data(np, x_shape, classes)
    net = net.cuda()
    optimizer = torch.optim.Adam(net.parameters(), lr=0.001)
    x = torch.from_numpy(hx).cuda()
    target = torch.from_numpy(hy.argmax(1)).cuda()
    loss_fn = torch.nn.functional.cross_entropy

    def run() -> None:
        for _ in range(n):
            optimizer.zero_grad()
            loss_fn(net(x), target).backward()
            optimizer.step()

    return run, n


def th_mlp_b64(torch: Any, quick: bool) -> Any:
    torch.manual_seed(SEED)
    nn = torch.nn
    net = nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))
    return _th_train(torch, net, (64, 784), 10, 10 if quick else 50)


def th_mlp_b4096(torch: Any, quick: bool) -> Any:
    torch.manual_seed(SEED)
    nn = torch.nn
    net = nn.Sequential(nn.Linear(784, 2048), nn.ReLU(), nn.Linear(2048, 10))
    return _th_train(torch, net, (4096, 784), 10, 5 if quick else 20)


def th_lstm(torch: Any, quick: bool) -> Any:
    torch.manual_seed(SEED)

    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lstm = torch.nn.LSTM(16, 64, batch_first=True)
            self.head = torch.nn.Linear(64, 10)

        def forward(self, x: Any) -> Any:
            out, _ = self.lstm(x)
            return self.head(out[:, -1])

    return _th_train(torch, Net(), (32, 20, 16), 10, 5 if quick else 20)


#: name -> (unit, how a median time per item becomes the reported figure, runners)
WORKLOADS: dict[str, tuple[str, Callable[[float], float], dict[str, Callable]]] = {
    "scalar add": ("us/op", lambda s: s * 1e6, {
        "tidytensor": tt_scalar_add, "cupy": cp_scalar_add, "torch": th_scalar_add}),
    "matmul 4096": ("TFLOP/s", lambda s: 2 * 4096**3 / s / 1e12, {
        "tidytensor": tt_matmul, "cupy": cp_matmul, "torch": th_matmul}),
    "conv2d 32x64x64x64 3x3x64": ("ms", lambda s: s * 1e3, {
        "tidytensor": tt_conv2d, "torch": th_conv2d}),
    "mlp b64 train_on_batch": ("steps/s", lambda s: 1 / s, {
        "tidytensor": tt_mlp_b64, "torch": th_mlp_b64}),
    "mlp b4096 h2048 train_on_batch": ("steps/s", lambda s: 1 / s, {
        "tidytensor": tt_mlp_b4096, "torch": th_mlp_b4096}),
    "lstm64 train_on_batch": ("steps/s", lambda s: 1 / s, {
        "tidytensor": tt_lstm, "torch": th_lstm}),
}  # fmt: skip


def _import(framework: str) -> tuple[Any, Callable[[], None]]:
    """The framework module and its device synchronisation."""
    if framework == "torch":
        import torch

        return torch, torch.cuda.synchronize
    import cupy

    sync = cupy.cuda.Device().synchronize
    if framework == "cupy":
        return cupy, sync
    sys.path.insert(0, str(ROOT / "src"))
    import tidytensor as tf

    if not tf.set_backend("cupy"):
        raise RuntimeError("the 'cupy' backend failed to start")
    tf.engine().warn_leaks = False  # the inputs live as long as the process
    return tf, sync


def measure(framework: str, quick: bool, only: str | None) -> dict[str, Any]:
    """Times every selected workload that has a runner for ``framework`` (in this process)."""
    module, sync = _import(framework)
    results: dict[str, Any] = {}
    repeats = 3 if quick else 7
    for name, (_unit, _figure, runners) in WORKLOADS.items():
        if only and only not in name or framework not in runners:
            continue
        try:
            run, items = runners[framework](module, quick)
            run()  # warm-up (kernels compiled, pools grown, optimizer slots made)
            sync()
            times = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                run()
                sync()
                times.append((time.perf_counter() - t0) / items)
            results[name] = {"median_s": statistics.median(times), "times_s": times}
        except Exception as exc:  # reported as n/a with the reason
            results[name] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
    return results


def _run_worker(framework: str, quick: bool, only: str | None, limit: float) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--framework", framework]
    cmd += ["--quick"] if quick else []
    cmd += ["--only", only] if only else []
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, env=env, check=False, timeout=limit
        )
    except subprocess.TimeoutExpired:
        return {"__error__": f"timed out after {limit:g} s"}
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        return {"__error__": " | ".join(tail)[:300] or f"exit {proc.returncode}"}
    return json.loads(lines[-1])


def table(results: dict[str, dict[str, Any]]) -> str:
    rows = [["workload", "unit", *FRAMEWORKS, "tidytensor/peer"]]
    for name, (unit, figure, _runners) in WORKLOADS.items():
        cells, values = [], {}
        for fw in FRAMEWORKS:
            r = results.get(fw, {})
            entry = r.get(name)
            if entry is None:
                cells.append("–" if "__error__" not in r else "n/a")
            elif "error" in entry:
                cells.append("n/a")
            else:
                values[fw] = figure(entry["median_s"])
                cells.append(f"{values[fw]:.4g}")
        peer = "cupy" if "cupy" in values else "torch"
        ratio = "–"
        if "tidytensor" in values and peer in values:
            ratio = f"{values['tidytensor'] / values[peer]:.3g}x {peer}"
        if all(c in ("–",) for c in cells):
            continue
        rows.append([name, unit, *cells, ratio])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join(" | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows)


def errors(results: dict[str, dict[str, Any]]) -> list[str]:
    found = []
    for fw, r in results.items():
        if "__error__" in r:
            found.append(f"{fw}: {r['__error__']}")
        found += [f"{fw} / {n}: {e['error']}" for n, e in r.items() if "error" in e]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only")
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--worker-timeout", type=float, default=300, help="seconds per framework's process"
    )
    parser.add_argument("--framework", choices=FRAMEWORKS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.framework:
        print(json.dumps(measure(args.framework, args.quick, args.only)), flush=True)
        return 0
    results = {}
    for fw in FRAMEWORKS:
        results[fw] = _run_worker(fw, args.quick, args.only, args.worker_timeout)
        print(f"{fw}: {json.dumps(results[fw])[:1500]}", flush=True)  # raw, as it comes
    print()
    print(table(results))
    for line in errors(results):
        print("error:", line)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
