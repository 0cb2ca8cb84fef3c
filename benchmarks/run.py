"""Benchmarks tidytensor against raw NumPy and PyTorch (CPU) in one run.

Usage::

    python benchmarks/run.py            # full run (a few minutes)
    python benchmarks/run.py --quick    # smaller sizes and fewer repeats (well under a minute)
    python benchmarks/run.py --only matmul --json results.json
    python benchmarks/run.py --backend cupy   # the GPU workloads (benchmarks/gpu.py)
    python benchmarks/run.py --baseline /tmp/old   # also an older tidytensor, side by side

Every framework runs on ONE thread pinned to one CPU: the script sets OMP_NUM_THREADS,
OPENBLAS_NUM_THREADS and MKL_NUM_THREADS to 1 and re-executes itself before NumPy or torch is
imported and pins itself with ``os.sched_setaffinity``; the peers' worker processes inherit both.
Repeats are interleaved round-robin across frameworks (the order rotates every round) and each
figure is the median of its repeats.

PyTorch and Keras 3 on TensorFlow (``pip install tensorflow-cpu``; optional) are each measured
in a worker process of their own (``--worker torch``, ``--worker keras``, see :class:`Worker`),
pinned to the same CPU with their thread pools set to one thread. A framework's import leaves
long-lived Python objects that every full garbage collection in the process walks: importing
torch adds ~150k of them (a full collection went from 7 ms to 115 ms), TensorFlow ~280k, so in
one shared process each framework's figures would carry the others' imports (tidytensor's
``scalar add`` with 100k live tensors ran 1.1-1.6x slower with torch imported). tidytensor and
NumPy run in this process, which imports nothing else. The parent drives the workers' repeats
round-robin with its own, so the repeats stay interleaved. A worker starts only when a
selected workload has a runner for it.

Adding a workload: write a function that returns a :class:`Workload` whose ``runners`` map a
framework name (``"tidytensor"``, ``"numpy"``, ``"torch"``, ``"keras"``) to a factory. A
factory takes the imported framework module, prepares inputs and returns a zero-argument
callable that performs ``work_items`` units of work (``unit_name`` each); decorate the function
with ``@workload``. A framework whose module cannot be imported, or whose factory raises, is
reported as n/a.

``--baseline DIR`` adds a column ``tt-base``: the tidytensor whose source tree is ``DIR`` (a
checkout of an older commit, its extension built in place if it has one), running the same
``"tidytensor"`` runners in a worker process of its own, interleaved with the rest. With it, the
tidytensor under test runs in a worker process too (``tt-head``), so both carry the same
process overhead; the table's ``tidytensor`` column then shows ``tt-head``'s figures. The
``tt/tt-base`` column answers "is any workload slower than before?".
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
import importlib.util  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

FRAMEWORKS = ("tidytensor", "numpy", "torch", "keras")
#: ``--baseline``: an older tidytensor (from the source tree in ``_BASELINE_SRC``) beside this one.
BASE = "tt-base"
#: ``--baseline``: this tidytensor, timed in a worker process like ``BASE``.
HEAD = "tt-head"
_BASELINE_SRC: str | None = None
#: Extra tidytensor calls, with every kernel timed, for the "where the time goes" table.
KERNEL_REPEATS = 3
BASELINE = "numpy"
#: Frameworks timed in a worker process (see ``Worker``) rather than in this one: each peer's
#: imported objects stay out of the others' garbage collections.
OUT_OF_PROCESS = ("torch", "keras", HEAD, BASE)
#: Modules an out-of-process framework needs; checked here without importing them.
_REQUIRES = {"torch": ("torch",), "keras": ("tensorflow", "keras"), HEAD: (), BASE: ()}


def frameworks() -> tuple[str, ...]:
    """The columns of this run: ``FRAMEWORKS``, plus ``tt-base`` under ``--baseline``."""
    return (*FRAMEWORKS, BASE) if _BASELINE_SRC else FRAMEWORKS


def _runner_name(framework: str) -> str:
    """Whose runner a framework times: both tidytensors run the ``"tidytensor"`` runners."""
    return "tidytensor" if framework in (HEAD, BASE) else framework


def _baseline_src(path: str) -> str:
    """The directory holding the baseline's ``tidytensor`` package (``DIR`` or ``DIR/src``)."""
    for candidate in (Path(path) / "src", Path(path)):
        if (candidate / "tidytensor" / "__init__.py").is_file():
            return str(candidate.resolve())
    raise SystemExit(f"--baseline {path}: no tidytensor package in it or in its src/")


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
from kernel_time import kernel_seconds  # noqa: E402
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

from workloads_kernels import register as _register_kernels  # noqa: E402

_register_kernels(workload, Workload)

from workloads_compiled import register as _register_compiled  # noqa: E402

_register_compiled(workload, Workload)


# --------------------------------------------------------------------------------------------
# Harness
# --------------------------------------------------------------------------------------------


def _pin_cpu(cpu: int | None = None) -> int | None:
    if not hasattr(os, "sched_setaffinity"):
        return None
    if cpu is None:
        cpu = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    return cpu


def _import_framework(name: str) -> Any:
    """Imports one framework and sets its thread pools to one thread."""
    if name == "keras":
        os.environ["KERAS_BACKEND"] = "tensorflow"
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # no banner on stderr
        for var in ("TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS"):
            os.environ[var] = "1"
        tf = importlib.import_module("tensorflow")
        tf.config.threading.set_intra_op_parallelism_threads(1)
        tf.config.threading.set_inter_op_parallelism_threads(1)
        keras = importlib.import_module("keras")
        if keras.backend.backend() != "tensorflow":
            raise RuntimeError(f"keras runs on {keras.backend.backend()}, not tensorflow")
        return keras
    if name == BASE:
        assert _BASELINE_SRC is not None
        sys.path.insert(0, _BASELINE_SRC)
        module = importlib.import_module("tidytensor")
        if not os.path.abspath(module.__file__).startswith(_BASELINE_SRC):
            raise RuntimeError(f"tt-base imported tidytensor from {module.__file__}")
        return module
    module = importlib.import_module("tidytensor" if name == HEAD else name)
    if name == "torch":
        module.set_num_threads(1)
        try:
            module.set_num_interop_threads(1)
        except RuntimeError:
            pass  # already set once in this process
    return module


def _version(name: str, module: Any) -> str:
    version = f"{name} {getattr(module, '__version__', '?')}"
    if name in (HEAD, BASE):
        version += f" ({os.path.dirname(os.path.dirname(module.__file__))})"
    if name == "keras":
        version += f" (tensorflow {sys.modules['tensorflow'].__version__})"
    return version


def _import_frameworks() -> tuple[dict[str, Any], dict[str, str]]:
    """Imports the in-process frameworks; out-of-process ones are only looked up."""
    modules: dict[str, Any] = {}
    missing: dict[str, str] = {}
    for name in FRAMEWORKS:
        if name in OUT_OF_PROCESS:
            absent = [m for m in _REQUIRES[name] if importlib.util.find_spec(m) is None]
            if absent:
                missing[name] = f"ModuleNotFoundError: No module named {absent[0]!r}"
            continue
        try:
            modules[name] = _import_framework(name)
        except Exception as exc:  # a peer that is not installed is skipped, not fatal
            missing[name] = f"{type(exc).__name__}: {exc}"
    return modules, missing


def _error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


class WorkerError(RuntimeError):
    """The worker answered with an error, or died."""


class Worker:
    """Times one framework's runners in a child process (``run.py --worker NAME``).

    The parent and the child talk in JSON lines over the child's stdin and stdout (the child
    moves its own prints to stderr, which goes to a temporary file quoted when it fails):

    - the child starts, pins itself to ``cpu``, imports the framework and answers
      ``{"version": ...}`` (or ``{"error": ...}``);
    - ``{"cmd": "prepare", "workload": name, "quick": bool}``: the child builds that
      workload's runner and calls it once untimed; answers ``{"ok": true}``;
    - ``{"cmd": "run"}``: one timed call, after ``gc.collect()`` like the parent's;
      answers ``{"seconds": ...}`` measured in the child (the pipe is not timed).
    """

    def __init__(self, framework: str, cpu: int | None) -> None:
        self.framework = framework
        self._log = tempfile.TemporaryFile(mode="w+")
        command = [sys.executable, os.path.abspath(__file__), "--worker", framework]
        if cpu is not None:
            command += ["--worker-cpu", str(cpu)]
        if framework == BASE:
            assert _BASELINE_SRC is not None
            command += ["--baseline", _BASELINE_SRC]
        self._proc: subprocess.Popen[str] | None = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
            bufsize=1,
        )
        self.version = self._ask(None)["version"]

    def _ask(self, message: dict | None) -> dict:
        proc = self._proc
        if proc is None:
            raise WorkerError("worker stopped earlier")
        assert proc.stdin is not None and proc.stdout is not None
        try:
            if message is not None:
                proc.stdin.write(json.dumps(message) + "\n")
                proc.stdin.flush()
            line = proc.stdout.readline()
        except OSError as exc:
            line = ""
            self._log.write(f"\n{_error_text(exc)}\n")
        if not line:
            status = self.close()
            self._log.seek(0)
            tail = self._log.read().strip().splitlines()[-1:] or ["no output"]
            raise WorkerError(f"worker exited (status {status}): {tail[0]}")
        try:
            answer = json.loads(line)
        except ValueError as exc:
            raise WorkerError(f"unreadable answer {line[:40]!r}") from exc
        if "error" in answer:
            raise WorkerError(answer["error"])
        return answer

    def prepare(self, wl: Workload, quick: bool) -> Callable[[], float]:
        """Builds ``wl``'s runner in the child; returns a callable timing one call there."""
        self._ask({"cmd": "prepare", "workload": wl.name, "quick": quick})
        return lambda: float(self._ask({"cmd": "run"})["seconds"])

    def close(self) -> int | None:
        """Ends the child (closing its stdin ends its loop); returns its exit status."""
        proc, self._proc = self._proc, None
        if proc is None:
            return None
        try:
            if proc.stdin is not None:
                proc.stdin.close()
        except OSError:
            pass  # the child is gone already
        try:
            return proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            return proc.wait()


def _worker_main(framework: str, cpu: int | None) -> int:
    """The child side of :class:`Worker`."""
    channel = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints must not reach the parent

    def answer(message: dict) -> None:
        channel.write(json.dumps(message) + "\n")

    _pin_cpu(cpu)
    try:
        module = _import_framework(framework)
    except Exception as exc:
        answer({"error": _error_text(exc)[:200]})
        return 1
    answer({"version": _version(framework, module)})
    run: Runner | None = None
    for line in sys.stdin:
        message = json.loads(line)
        try:
            if message["cmd"] == "prepare":
                run = None
                quick = bool(message["quick"])
                matches = [
                    wl for wl in (b(quick) for b in _REGISTRY) if wl.name == message["workload"]
                ]
                if not matches:
                    raise LookupError(f"no workload named {message['workload']!r}")
                factory = matches[0].runners.get(_runner_name(framework))
                if factory is None:
                    raise LookupError("no runner")
                run = factory(module)
                run()  # warm-up, as in the parent
                answer({"ok": True})
            elif message["cmd"] == "run":
                if run is None:
                    raise RuntimeError("nothing prepared")
                gc.collect()
                t0 = time.perf_counter()
                run()
                answer({"seconds": time.perf_counter() - t0})
            else:
                raise ValueError(f"unknown command {message['cmd']!r}")
        except Exception as exc:
            answer({"error": _error_text(exc)[:200]})
    return 0


def _local_timer(run: Runner) -> Callable[[], float]:
    def timed() -> float:
        gc.collect()
        t0 = time.perf_counter()
        run()
        return time.perf_counter() - t0

    return timed


def run_workload(
    wl: Workload,
    modules: dict[str, Any],
    missing: dict[str, str],
    workers: dict[str, Worker] | None = None,
    quick: bool = False,
) -> dict:
    workers = workers or {}
    measurements = {fw: Measurement(fw) for fw in frameworks()}
    timers: dict[str, Callable[[], float]] = {}
    tt_run = None
    for fw in frameworks():
        if fw in missing:
            measurements[fw].error = "not installed"
            continue
        factory = wl.runners.get(_runner_name(fw))
        if factory is None:
            measurements[fw].error = "no runner"
            continue
        try:
            worker_name = HEAD if fw == "tidytensor" and _BASELINE_SRC else fw
            if worker_name in OUT_OF_PROCESS:
                if worker_name not in workers:
                    raise WorkerError("worker not started")
                timers[fw] = workers[worker_name].prepare(wl, quick)
            else:
                run = factory(modules[fw])
                run()  # warm-up (also surfaces missing ops before timing starts)
                timers[fw] = _local_timer(run)
                if fw == "tidytensor":
                    tt_run = run
        except Exception as exc:
            measurements[fw].error = _error_text(exc)[:80]
    order = list(timers)
    for r in range(wl.repeats):
        rotated = order[r % len(order) :] + order[: r % len(order)] if order else []
        for fw in rotated:
            if measurements[fw].error:
                continue
            try:
                measurements[fw].seconds.append(timers[fw]())
            except WorkerError as exc:  # a crashed worker loses its column, not the run
                measurements[fw].seconds.clear()
                measurements[fw].error = _error_text(exc)[:80]
    in_kernels = None
    # Kernel-level workloads call kernels directly: there is no engine around them to split off.
    if tt_run is not None and not measurements["tidytensor"].error and wl.group != "kernels":
        tf = modules["tidytensor"]
        in_kernels = statistics.median(kernel_seconds(tf, tt_run) for _ in range(KERNEL_REPEATS))
    return {
        "workload": wl,
        "measurements": measurements,
        "kernel_seconds": in_kernels,
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
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(headers)]

    def line(cells: list[str]) -> str:
        pairs = enumerate(zip(cells, widths, strict=True))
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in pairs)

    sep = "  ".join("-" * w for w in widths)
    return "\n".join([line(headers), sep, *(line(r) for r in rows)])


def report(results: list[dict]) -> str:
    unit_label = {"us": "µs", "ms": "ms"}
    columns = frameworks()
    peers = [fw for fw in columns if fw != "tidytensor"]
    headers = ["workload", "unit", *columns, *(f"tt/{fw}" for fw in peers)]
    rows = []
    for res in results:
        wl, ms = res["workload"], res["measurements"]
        per = {fw: _per_item(wl, ms[fw]) for fw in columns}
        rows.append(
            [
                wl.name,
                f"{unit_label[wl.report_unit]}/{wl.unit_name}",
                *(_fmt_time(wl, per[fw]) for fw in columns),
                *(_ratio(per["tidytensor"], per[fw]) for fw in peers),
            ]
        )
    out = ["Time per item (median of interleaved repeats; ratios: tidytensor time / peer time)"]
    out.append(_table(headers, rows))

    flop_results = [res for res in results if res["workload"].flops_per_item]
    # Columns for the frameworks with a runner in at least one of these workloads.
    flop_fws = [
        fw for fw in FRAMEWORKS if any(fw in res["workload"].runners for res in flop_results)
    ]
    flop_rows = []
    for res in flop_results:
        wl, ms = res["workload"], res["measurements"]
        gflops = {}
        for fw in flop_fws:
            per = _per_item(wl, ms[fw])
            gflops[fw] = None if per is None else wl.flops_per_item / per / 1e9
        tt, base = gflops.get("tidytensor"), gflops.get(BASELINE)
        pct = "n/a" if tt is None or not base else f"{100 * tt / base:.1f}%"
        flop_rows.append(
            [wl.name, *("n/a" if g is None else f"{g:.1f}" for g in gflops.values()), pct]
        )
    if flop_rows:
        out.append("")
        out.append("Throughput (GFLOP/s, higher is better)")
        out.append(_table(["workload", *flop_fws, "tt % of numpy"], flop_rows))

    kernel_rows = []
    for res in results:
        wl, ms, inside = res["workload"], res["measurements"], res.get("kernel_seconds")
        if inside is None:
            continue
        tt, torch = _per_item(wl, ms["tidytensor"]), _per_item(wl, ms["torch"])
        per_kernel = inside / wl.work_items
        share = "n/a" if not tt else f"{100 * per_kernel / tt:.0f}%"
        kernel_rows.append(
            [
                wl.name,
                f"{unit_label[wl.report_unit]}/{wl.unit_name}",
                _fmt_time(wl, tt),
                _fmt_time(wl, per_kernel),
                share,
                _fmt_time(wl, torch),
                _ratio(per_kernel, torch),
            ]
        )
    if kernel_rows:
        out.append("")
        out.append(
            "Where tidytensor's time goes (in kernels: inside backend kernels, those a compiled "
            f"step replays included, median of {KERNEL_REPEATS} instrumented repeats; the rest "
            "is the Python engine)"
        )
        headers = ["workload", "unit", "tidytensor", "in kernels", "share", "torch"]
        out.append(_table([*headers, "kernels/torch"], kernel_rows))

    errors = [
        f"  {res['workload'].name} / {fw}: {m.error}"
        for res in results
        for fw, m in res["measurements"].items()
        if m.error and m.error != "no runner"
    ]
    no_runner = {
        fw: sum(res["measurements"][fw].error == "no runner" for res in results)
        for fw in frameworks()
    }
    if any(no_runner.values()):
        counts = ", ".join(f"{fw} in {n}" for fw, n in no_runner.items() if n)
        errors.append(f"  no runner written (n/a by design): {counts} workload(s)")
    if errors:
        out.append("")
        out.append("Not measured:")
        out.extend(errors)
    return "\n".join(out)


def _machine_notes(cpu: int | None, versions: list[str]) -> list[str]:
    model = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    today = datetime.date.today().isoformat()
    return [
        f"date: {today}; python {platform.python_version()}; {', '.join(versions)}",
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
                "tidytensor_kernel_seconds": res.get("kernel_seconds"),
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
    parser.add_argument(
        "--backend",
        choices=("cpu", "cupy"),
        default="cpu",
        help="cupy: the GPU workloads (benchmarks/gpu.py) beside raw CuPy and PyTorch CUDA",
    )
    parser.add_argument(
        "--worker-timeout", type=float, default=300, help="--backend cupy: seconds per framework"
    )
    parser.add_argument(
        "--baseline",
        metavar="DIR",
        help="also time the tidytensor in this source tree (an older checkout), side by side",
    )
    parser.add_argument("--worker", choices=OUT_OF_PROCESS, help=argparse.SUPPRESS)
    parser.add_argument("--worker-cpu", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    global _BASELINE_SRC
    if args.baseline:
        _BASELINE_SRC = _baseline_src(args.baseline)
    if args.worker:
        return _worker_main(args.worker, args.worker_cpu)
    if args.backend == "cupy":
        import gpu

        forwarded = ["--quick"] if args.quick else []
        forwarded += ["--only", args.only] if args.only else []
        forwarded += ["--json", str(args.json)] if args.json else []
        forwarded += ["--worker-timeout", str(args.worker_timeout)]
        return gpu.main(forwarded)

    cpu = _pin_cpu()
    modules, missing = _import_frameworks()
    if "tidytensor" in missing:
        print(f"tidytensor could not be imported: {missing['tidytensor']}", file=sys.stderr)
        return 2
    if BASELINE in missing:
        print(f"numpy could not be imported: {missing[BASELINE]}", file=sys.stderr)
        return 2
    workloads = [build(args.quick) for build in _REGISTRY]
    workloads = [wl for wl in workloads if not args.only or args.only in wl.name]
    workers: dict[str, Worker] = {}
    for fw in OUT_OF_PROCESS:  # started only if a selected workload needs it
        if fw in (HEAD, BASE) and not _BASELINE_SRC:
            continue
        if fw in missing or not any(_runner_name(fw) in wl.runners for wl in workloads):
            continue
        try:
            workers[fw] = Worker(fw, cpu)
        except Exception as exc:  # e.g. tensorflow installed but broken
            missing[fw] = _error_text(exc)
    versions = [_version(name, mod) for name, mod in modules.items()]
    versions += [worker.version + " [worker process]" for worker in workers.values()]
    for line in _machine_notes(cpu, versions):
        print(line)
    for fw, why in missing.items():
        print(f"skipping {fw}: {why}")
    print(f"mode: {'quick' if args.quick else 'full'}")
    print()

    results = []
    try:
        for wl in workloads:
            count = sum(_runner_name(fw) in wl.runners and fw not in missing for fw in frameworks())
            print(f"running {wl.name} ({wl.repeats} repeats x {count} frameworks)...", flush=True)
            results.append(run_workload(wl, modules, missing, workers, args.quick))
    finally:
        for worker in workers.values():
            worker.close()
    print()
    print(report(results))
    if args.json:
        args.json.write_text(json.dumps(_to_json(results), indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
