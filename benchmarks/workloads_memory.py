"""What leak tracking and site capture cost per op (issue 6), on run.py's scalar-add workload.

Variants of ``tf.add`` on 0-d float32 tensors, each timed against the same NumPy and
PyTorch loops as run.py's ``scalar add``:

* ``default``: creation sites captured, handles checked for leaks when collected.
* ``sites off``: ``tf.engine().track_sites = False`` (``tf.set_site_tracking(False)``).
* ``leak records off``: ``Tensor.__del__`` removed for the timed call, so collected handles
  are not checked at all (not a user setting: it measures what the check costs). Since the
  per-op core (issue 16) checks handles in its own finalizer (``HandleBase.__del__``, C in
  the compiled core), ``Tensor`` has no ``__del__`` to remove: this variant runs as
  ``default`` does.
* ``sites + leak records off``: both.

two "leaky" variants, where every result is dropped outside any scope (a leak each op,
recorded with its site), with ``tf.engine().warn_leaks`` on (the default: a
``ResourceWarning`` is built and issued per leak, then ignored by Python's default filters)
and off. Each leaky call ends with ``tf.dispose_leaked()``, inside the timed region.

and ``grad of 100 chained adds``: ``tf.grad`` of ``x + c + c ...`` (100 adds of 0-d float32
tensors), timed per add (the forward pass, its tape and the backward pass) against PyTorch
autograd (``requires_grad``, ``backward``) on the same chain.

Every variant restores the engine's settings after each timed call.

Run on their own (same harness, flags and pinning as run.py)::

    python benchmarks/workloads_memory.py --quick

or register them in run.py (see ``register``).
"""

from __future__ import annotations

import contextlib
import sys
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

#: (label, settings) for the tidied scalar-add variants.
VARIANTS: list[tuple[str, dict[str, bool]]] = [
    ("default", {}),
    ("sites off", {"track_sites": False}),
    ("leak records off", {"leak_records": False}),
    ("sites + leak records off", {"track_sites": False, "leak_records": False}),
]


@contextlib.contextmanager
def engine_settings(
    tf: Any, track_sites: bool = True, leak_records: bool = True, warn_leaks: bool = True
) -> Iterator[None]:
    """Applies the settings for one timed call and restores the previous ones."""
    engine = tf.engine()
    saved = (engine.track_sites, engine.warn_leaks)
    finalizer = tf.Tensor.__dict__.get("__del__")
    engine.track_sites = track_sites
    engine.warn_leaks = warn_leaks
    if not leak_records and finalizer is not None:
        del tf.Tensor.__del__
    try:
        yield
    finally:
        engine.track_sites, engine.warn_leaks = saved
        if not leak_records and finalizer is not None:
            tf.Tensor.__del__ = finalizer


def _peers(n: int) -> dict[str, Callable[[Any], Callable[[], None]]]:
    """run.py's NumPy and PyTorch scalar-add loops."""

    def numpy_runner(np: Any) -> Callable[[], None]:
        a = np.array(1.5, dtype=np.float32)
        b = np.array(2.25, dtype=np.float32)
        add = np.add

        def run() -> None:
            for _ in range(n):
                add(a, b)

        return run

    def torch_runner(torch: Any) -> Callable[[], None]:
        a = torch.tensor(1.5, dtype=torch.float32)
        b = torch.tensor(2.25, dtype=torch.float32)
        add = torch.add

        def run() -> None:
            for _ in range(n):
                add(a, b)

        return run

    return {"numpy": numpy_runner, "torch": torch_runner}


def _tidied(label: str, settings: dict[str, bool], workload_cls: Any) -> Callable[[bool], Any]:
    def build(quick: bool) -> Any:
        n = 10_000 if quick else 100_000

        def tidytensor_runner(tf: Any) -> Callable[[], None]:
            a, b = tf.scalar(1.5), tf.scalar(2.25)
            add, tidy = tf.add, tf.tidy

            def body() -> None:
                for _ in range(n):
                    add(a, b)  # the tidy frees each result

            def run() -> None:
                with engine_settings(tf, **settings):
                    tidy(body)

            return run

        return workload_cls(
            name=f"scalar add x{n // 1000}k [{label}]",
            group="memory tracking cost",
            unit_name="op",
            report_unit="us",
            work_items=n,
            repeats=5 if quick else 9,
            runners={"tidytensor": tidytensor_runner, **_peers(n)},
            notes=f"tf.add in one tf.tidy; {label}",
        )

    build.__name__ = f"scalar_add_{label.replace(' ', '_').replace('+', 'and')}"
    return build


def _leaky(warn: bool, workload_cls: Any) -> Callable[[bool], Any]:
    label = f"leaky, warn_leaks={'on' if warn else 'off'}"

    def build(quick: bool) -> Any:
        n = 10_000 if quick else 100_000

        def tidytensor_runner(tf: Any) -> Callable[[], None]:
            a, b = tf.scalar(1.5), tf.scalar(2.25)
            add = tf.add
            engine = tf.engine()
            if engine.state.active_scope is not None:
                raise RuntimeError("the leaky variant must run outside any scope")

            def run() -> None:
                with engine_settings(tf, warn_leaks=warn), warnings.catch_warnings():
                    warnings.simplefilter("ignore", ResourceWarning)  # Python's default
                    for _ in range(n):
                        add(a, b)  # dropped at once: a leak, recorded with its site
                    tf.dispose_leaked()

            return run

        return workload_cls(
            name=f"scalar add x{n // 1000}k [{label}]",
            group="memory tracking cost",
            unit_name="op",
            report_unit="us",
            work_items=n,
            repeats=5 if quick else 9,
            runners={"tidytensor": tidytensor_runner, **_peers(n)},
            notes=f"tf.add outside any scope, every result dropped; {label}; dispose_leaked() at the end",
        )

    build.__name__ = f"scalar_add_leaky_warn_{'on' if warn else 'off'}"
    return build


#: Adds per chain in the gradient workload.
CHAIN = 100


def _grad_chain(workload_cls: Any) -> Callable[[bool], Any]:
    def build(quick: bool) -> Any:
        calls = 20 if quick else 200

        def tidytensor_runner(tf: Any) -> Callable[[], None]:
            x, c = tf.keep(tf.scalar(1.5)), tf.keep(tf.scalar(2.25))  # live for every run
            add = tf.add

            def chain(v: Any) -> Any:
                for _ in range(CHAIN):
                    v = add(v, c)
                return v

            grad = tf.grad(chain)

            def body() -> None:
                for _ in range(calls):
                    grad(x)  # the tidy frees each gradient

            def run() -> None:
                tf.tidy(body)

            return run

        def torch_runner(torch: Any) -> Callable[[], None]:
            x = torch.tensor(1.5, dtype=torch.float32, requires_grad=True)
            c = torch.tensor(2.25, dtype=torch.float32)

            def run() -> None:
                for _ in range(calls):
                    v = x
                    for _ in range(CHAIN):
                        v = v + c
                    v.backward()
                    x.grad = None

            return run

        return workload_cls(
            name=f"grad of {CHAIN} chained adds x{calls}",
            group="per-op overhead",
            unit_name="add",
            report_unit="us",
            work_items=calls * CHAIN,
            repeats=5 if quick else 9,
            runners={"tidytensor": tidytensor_runner, "torch": torch_runner},
            notes="tf.grad of 100 chained tf.add on 0-d float32, in one tf.tidy; torch: "
            "requires_grad, backward()",
        )

    build.__name__ = "grad_chained_adds"
    return build


def memory_workloads(workload_cls: Any) -> list[Callable[[bool], Any]]:
    """The builders (``build(quick) -> Workload``) of these workloads, made with run.py's
    ``Workload`` class."""
    builders = [_tidied(label, settings, workload_cls) for label, settings in VARIANTS]
    builders += [_leaky(True, workload_cls), _leaky(False, workload_cls)]
    builders.append(_grad_chain(workload_cls))
    return builders


def register(workload: Any, Workload: Any) -> None:  # noqa: N803 - run.py's class
    """Registers these workloads with ``run.py``'s ``@workload`` decorator::

    from workloads_memory import register as _register_memory  # noqa: E402

    _register_memory(workload, Workload)
    """
    for build in memory_workloads(Workload):
        workload(build)


def main() -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import run as harness  # run.py's harness; imports no numerics at module level

    harness._pin_threads_or_reexec()
    harness._REGISTRY[:] = memory_workloads(harness.Workload)
    return harness.main()


if __name__ == "__main__":
    sys.exit(main())
