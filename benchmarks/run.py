"""Benchmarks tidytensor against raw NumPy and PyTorch (CPU) in one run.

Usage::

    python benchmarks/run.py            # full run (a few minutes)
    python benchmarks/run.py --quick    # smaller sizes and fewer repeats (well under a minute)
    python benchmarks/run.py --only matmul --json results.json

Every framework runs on ONE thread pinned to one CPU: the script sets OMP_NUM_THREADS,
OPENBLAS_NUM_THREADS and MKL_NUM_THREADS to 1 and re-executes itself before NumPy or torch is
imported, pins itself with ``os.sched_setaffinity`` and calls ``torch.set_num_threads(1)``.
Repeats are interleaved round-robin across frameworks (the order rotates every round) and each
figure is the median of its repeats.

Adding a workload: write a function that returns a :class:`Workload` whose ``runners`` map a
framework name (``"tidytensor"``, ``"numpy"``, ``"torch"``) to a factory. A factory takes the
imported framework module, prepares inputs and returns a zero-argument callable that performs
``work_items`` units of work (``unit_name`` each); decorate the function with ``@workload``.
A framework whose module cannot be imported, or whose factory raises, is reported as n/a.
"""

from __future__ import annotations

import os
import sys

_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def _pin_threads_or_reexec() -> None:
    """Makes sure the BLAS/OpenMP thread pools are single-threaded before they exist."""
    if all(os.environ.get(v) == "1" for v in _THREAD_VARS):
        return
    if "numpy" in sys.modules or "torch" in sys.modules:
        raise RuntimeError("benchmarks/run.py must set thread variables before importing numpy")
    env = dict(os.environ)
    env.update({v: "1" for v in _THREAD_VARS})
    os.execve(sys.executable, [sys.executable, *sys.argv], env)


if __name__ == "__main__":
    _pin_threads_or_reexec()

# Only after the thread variables are set (E402 is intended here).
import argparse  # noqa: E402
import datetime  # noqa: E402
import gc  # noqa: E402
import importlib  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

FRAMEWORKS = ("tidytensor", "numpy", "torch")
BASELINE = "numpy"

Runner = Callable[[], Any]
Factory = Callable[[Any], Runner]


@dataclass
class Workload:
    """One benchmark: the same work expressed once per framework."""

    name: str
    group: str
    unit_name: str  # what one work item is ("op", "matmul")
    report_unit: str  # "us" or "ms": how the time per item is printed
    work_items: int  # work items performed by one call of a runner
    repeats: int  # timed calls per framework (medians are taken over these)
    runners: dict[str, Factory]
    flops_per_item: float | None = None  # set to report GFLOP/s
    notes: str = ""


@dataclass
class Measurement:
    framework: str
    seconds: list[float] = field(default_factory=list)
    error: str | None = None

    @property
    def median(self) -> float | None:
        return statistics.median(self.seconds) if self.seconds else None


_REGISTRY: list[Callable[[bool], Workload]] = []


def workload(fn: Callable[[bool], Workload]) -> Callable[[bool], Workload]:
    """Registers a workload builder ``fn(quick) -> Workload``."""
    _REGISTRY.append(fn)
    return fn


# --------------------------------------------------------------------------------------------
# Workloads
# --------------------------------------------------------------------------------------------


@workload
def scalar_add_overhead(quick: bool) -> Workload:
    """Per-op overhead: many scalar adds; tidytensor's run inside one tf.tidy."""
    n = 10_000 if quick else 100_000

    def tidytensor_runner(tf: Any) -> Runner:
        a = tf.scalar(1.5)
        b = tf.scalar(2.25)
        add = tf.add
        tidy = tf.tidy

        def body() -> None:
            for _ in range(n):
                add(a, b)  # result discarded; the tidy disposes it

        def run() -> None:
            tidy(body)

        return run

    def numpy_runner(np: Any) -> Runner:
        a = np.array(1.5, dtype=np.float32)
        b = np.array(2.25, dtype=np.float32)
        add = np.add

        def run() -> None:
            for _ in range(n):
                add(a, b)

        return run

    def torch_runner(torch: Any) -> Runner:
        a = torch.tensor(1.5, dtype=torch.float32)
        b = torch.tensor(2.25, dtype=torch.float32)
        add = torch.add

        def run() -> None:  # plain eager mode (inputs do not require grad)
            for _ in range(n):
                add(a, b)

        return run

    return Workload(
        name=f"scalar add x{n // 1000}k",
        group="per-op overhead",
        unit_name="op",
        report_unit="us",
        work_items=n,
        repeats=5 if quick else 9,
        runners={"tidytensor": tidytensor_runner, "numpy": numpy_runner, "torch": torch_runner},
        notes="tf.add inside one tf.tidy; np.add on 0-d float32; torch.add on 0-d (eager)",
    )


def _matmul(n: int, quick: bool) -> Workload:
    inner = 1 if n >= 1024 else 8  # matmuls per timed call, so small sizes time ~ms
    seed = 1234

    def host_inputs(np: Any) -> tuple[Any, Any]:
        rng = np.random.default_rng(seed)
        return (
            rng.standard_normal((n, n), dtype=np.float32),
            rng.standard_normal((n, n), dtype=np.float32),
        )

    def tidytensor_runner(tf: Any) -> Runner:
        import numpy as np

        ha, hb = host_inputs(np)
        a, b = tf.tensor(ha), tf.tensor(hb)
        mat_mul = tf.mat_mul
        check = mat_mul(a, b)
        got = np.asarray(check.data_sync()).reshape(n, n)
        check.dispose()
        if not np.allclose(got, ha @ hb, rtol=1e-3, atol=1e-3):
            raise AssertionError("tf.mat_mul disagrees with np.matmul")

        def run() -> None:
            for _ in range(inner):
                mat_mul(a, b).dispose()

        return run

    def numpy_runner(np: Any) -> Runner:
        a, b = host_inputs(np)
        matmul = np.matmul

        def run() -> None:
            for _ in range(inner):
                matmul(a, b)

        return run

    def torch_runner(torch: Any) -> Runner:
        import numpy as np

        ha, hb = host_inputs(np)
        a, b = torch.from_numpy(ha), torch.from_numpy(hb)
        matmul = torch.matmul

        def run() -> None:
            for _ in range(inner):
                matmul(a, b)

        return run

    return Workload(
        name=f"matmul {n}x{n} f32",
        group="matmul",
        unit_name="matmul",
        report_unit="ms",
        work_items=inner,
        repeats=(5 if quick else 11) if n < 1024 else (3 if quick else 7),
        runners={"tidytensor": tidytensor_runner, "numpy": numpy_runner, "torch": torch_runner},
        flops_per_item=2.0 * n**3,
        notes=f"{inner} matmul(s) per timed call; tidytensor disposes each result",
    )


@workload
def matmul_256(quick: bool) -> Workload:
    return _matmul(256, quick)


@workload
def matmul_1024(quick: bool) -> Workload:
    return _matmul(1024, quick)


# Workloads of other areas live in their own files (benchmarks/workloads_*.py).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workloads_conv import register as _register_conv  # noqa: E402

_register_conv(workload, Workload)

from workloads_training import register as _register_training  # noqa: E402

_register_training(workload, Workload)

from workloads_io import register as _register_io  # noqa: E402

_register_io(workload, Workload)

from workloads_memory import register as _register_memory  # noqa: E402

_register_memory(workload, Workload)

from workloads_layers import register as _register_layers  # noqa: E402

_register_layers(workload, Workload)


# --------------------------------------------------------------------------------------------
# Harness
# --------------------------------------------------------------------------------------------


def _pin_cpu() -> int | None:
    if not hasattr(os, "sched_setaffinity"):
        return None
    cpu = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    return cpu


def _import_frameworks() -> tuple[dict[str, Any], dict[str, str]]:
    modules: dict[str, Any] = {}
    missing: dict[str, str] = {}
    for name in FRAMEWORKS:
        try:
            modules[name] = importlib.import_module(name)
        except Exception as exc:  # a peer that is not installed is skipped, not fatal
            missing[name] = f"{type(exc).__name__}: {exc}"
    torch = modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)
        try:
            torch.set_num_interop_threads(1)
        except RuntimeError:
            pass  # already set once in this process
    return modules, missing


def run_workload(wl: Workload, modules: dict[str, Any], missing: dict[str, str]) -> dict:
    measurements = {fw: Measurement(fw) for fw in FRAMEWORKS}
    runners: dict[str, Runner] = {}
    for fw in FRAMEWORKS:
        if fw in missing:
            measurements[fw].error = "not installed"
            continue
        factory = wl.runners.get(fw)
        if factory is None:
            measurements[fw].error = "no runner"
            continue
        try:
            run = factory(modules[fw])
            run()  # warm-up (also surfaces missing ops before timing starts)
            runners[fw] = run
        except Exception as exc:
            measurements[fw].error = f"{type(exc).__name__}: {exc}"[:80]
    order = list(runners)
    for r in range(wl.repeats):
        rotated = order[r % len(order) :] + order[: r % len(order)] if order else []
        for fw in rotated:
            gc.collect()
            t0 = time.perf_counter()
            runners[fw]()
            measurements[fw].seconds.append(time.perf_counter() - t0)
    return {
        "workload": wl,
        "measurements": measurements,
    }


def _per_item(wl: Workload, m: Measurement) -> float | None:
    return None if m.median is None else m.median / wl.work_items


def _fmt_time(wl: Workload, seconds: float | None) -> str:
    if seconds is None:
        return "n/a"
    scale = 1e6 if wl.report_unit == "us" else 1e3
    value = seconds * scale
    return f"{value:.3f}" if value < 10 else f"{value:.2f}" if value < 1000 else f"{value:.0f}"


def _ratio(a: float | None, b: float | None) -> str:
    if a is None or b is None or b == 0:
        return "n/a"
    return f"{a / b:.2f}x"


def _table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]

    def line(cells: list[str]) -> str:
        pairs = enumerate(zip(cells, widths, strict=True))
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in pairs)

    sep = "  ".join("-" * w for w in widths)
    return "\n".join([line(headers), sep, *(line(r) for r in rows)])


def report(results: list[dict]) -> str:
    unit_label = {"us": "µs", "ms": "ms"}
    headers = ["workload", "unit", *FRAMEWORKS, "tt/numpy", "tt/torch"]
    rows = []
    for res in results:
        wl, ms = res["workload"], res["measurements"]
        per = {fw: _per_item(wl, ms[fw]) for fw in FRAMEWORKS}
        rows.append(
            [
                wl.name,
                f"{unit_label[wl.report_unit]}/{wl.unit_name}",
                *(_fmt_time(wl, per[fw]) for fw in FRAMEWORKS),
                _ratio(per["tidytensor"], per["numpy"]),
                _ratio(per["tidytensor"], per["torch"]),
            ]
        )
    out = ["Time per item (median of interleaved repeats; ratios: tidytensor time / peer time)"]
    out.append(_table(headers, rows))

    flop_rows = []
    for res in results:
        wl, ms = res["workload"], res["measurements"]
        if not wl.flops_per_item:
            continue
        gflops = {}
        for fw in FRAMEWORKS:
            per = _per_item(wl, ms[fw])
            gflops[fw] = None if per is None else wl.flops_per_item / per / 1e9
        tt, base = gflops["tidytensor"], gflops[BASELINE]
        pct = "n/a" if tt is None or not base else f"{100 * tt / base:.1f}%"
        flop_rows.append(
            [wl.name, *("n/a" if g is None else f"{g:.1f}" for g in gflops.values()), pct]
        )
    if flop_rows:
        out.append("")
        out.append("Throughput (GFLOP/s, higher is better)")
        out.append(_table(["workload", *FRAMEWORKS, "tt % of numpy"], flop_rows))

    errors = [
        f"  {res['workload'].name} / {fw}: {m.error}"
        for res in results
        for fw, m in res["measurements"].items()
        if m.error
    ]
    if errors:
        out.append("")
        out.append("Not measured:")
        out.extend(errors)
    return "\n".join(out)


def _machine_notes(cpu: int | None, modules: dict[str, Any]) -> list[str]:
    model = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = ", ".join(
        f"{name} {getattr(mod, '__version__', '?')}" for name, mod in modules.items()
    )
    today = datetime.date.today().isoformat()
    return [
        f"date: {today}; python {platform.python_version()}; {versions}",
        f"cpu: {model}; {os.cpu_count()} logical cores; pinned to cpu {cpu}; "
        + " ".join(f"{v}={os.environ.get(v)}" for v in _THREAD_VARS),
    ]


def _to_json(results: list[dict]) -> list[dict]:
    out = []
    for res in results:
        wl = res["workload"]
        out.append(
            {
                "workload": wl.name,
                "group": wl.group,
                "unit": wl.unit_name,
                "work_items": wl.work_items,
                "repeats": wl.repeats,
                "flops_per_item": wl.flops_per_item,
                "frameworks": {
                    fw: {"seconds": m.seconds, "median": m.median, "error": m.error}
                    for fw, m in res["measurements"].items()
                },
            }
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer repeats")
    parser.add_argument("--only", help="run only workloads whose name contains this text")
    parser.add_argument("--json", type=Path, help="also write raw timings to this file")
    args = parser.parse_args(argv)

    cpu = _pin_cpu()
    modules, missing = _import_frameworks()
    if "tidytensor" in missing:
        print(f"tidytensor could not be imported: {missing['tidytensor']}", file=sys.stderr)
        return 2
    if BASELINE in missing:
        print(f"numpy could not be imported: {missing[BASELINE]}", file=sys.stderr)
        return 2
    for line in _machine_notes(cpu, modules):
        print(line)
    for fw, why in missing.items():
        print(f"skipping {fw}: {why}")
    print(f"mode: {'quick' if args.quick else 'full'}")
    print()

    results = []
    for build in _REGISTRY:
        wl = build(args.quick)
        if args.only and args.only not in wl.name:
            continue
        print(
            f"running {wl.name} ({wl.repeats} repeats x {len(FRAMEWORKS)} frameworks)...",
            flush=True,
        )
        results.append(run_workload(wl, modules, missing))
    print()
    print(report(results))
    if args.json:
        args.json.write_text(json.dumps(_to_json(results), indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
