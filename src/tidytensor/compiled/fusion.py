"""Fused elementwise chains: on a GPU backend, a replay runs each run of consecutive float32
elementwise kernels as one fused kernel (``xp.fuse``).

On a GPU every kernel is a launch (15-30 µs) and a round trip of its operands through device
memory; a chain such as ``relu(x @ w + b) * scale`` pays that per op. When the replay's
backend is ``'cupy'`` (or a logical GPU of it) and its array module has ``fuse``,
:func:`fuse_chains` rewrites the plan's steps before the replay function is generated:

- a *fusible* step is an ``xp`` step of one of the kernels in :data:`FUSIBLE` (looked up by
  the kernel's array function, so a backend's own replacement is never taken for it), with
  no attributes, one output and every input and output float32;
- each run of two or more consecutive fusible steps becomes one ``xp`` step that computes
  them in order inside one function, wrapped by ``xp.fuse``. Its inputs are the values the
  run reads from outside; its outputs are the values read after the run or returned (the
  others live only inside the fused kernel, so the plan's frees drop them);
- every expression is the float32 branch of the kernel it stands for, so the replay computes
  the eager call's operations (on NumPy, the same values). CUDA's compiler may contract a
  multiply followed by an add into one fused multiply-add, which rounds once instead of
  twice: on a GPU a fused chain can differ from the eager values in the last bit.

Anything else (another backend, no ``fuse``, integer or bool values, views, reductions,
matmuls) replays as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..backends.xp_kernels import arithmetic, basic_math
from ..dtypes import FLOAT32
from ..kernel_names import tfjs as k
from .plan import Plan
from .tracing import Slot, Step

__all__ = ["FUSIBLE", "fuse_chains"]


def _relu6(xp: Any, x: Any) -> Any:
    return xp.minimum(xp.maximum(x, 0), 6)


def _sigmoid(xp: Any, x: Any) -> Any:
    return xp.reciprocal(xp.exp(xp.negative(x)) + 1)


def _ufunc(name: str) -> Callable[..., Any]:
    def apply(xp: Any, *args: Any) -> Any:
        return getattr(xp, name)(*args)

    return apply


#: The fusible kernels by their array function: ``expression(xp, *inputs)``, each the float32
#: branch of the kernel (``xp_kernels/arithmetic.py``, ``basic_math.py``).
FUSIBLE: dict[Any, Callable[..., Any]] = {
    arithmetic.add: lambda xp, a, b: a + b,
    arithmetic.sub: lambda xp, a, b: a - b,
    arithmetic.multiply: lambda xp, a, b: a * b,
    arithmetic.real_div: lambda xp, a, b: a / b,
    arithmetic.maximum: _ufunc("maximum"),
    arithmetic.minimum: _ufunc("minimum"),
    basic_math.neg: _ufunc("negative"),
    basic_math.square: _ufunc("square"),
    basic_math.exp: _ufunc("exp"),
    basic_math.abs_: _ufunc("abs"),
    basic_math.relu: lambda xp, x: xp.maximum(x, 0),
    basic_math.relu6: _relu6,
    basic_math.sigmoid: _sigmoid,
    basic_math.KERNELS[k.TANH]: _ufunc("tanh"),
    basic_math.KERNELS[k.SIN]: _ufunc("sin"),
    basic_math.KERNELS[k.COS]: _ufunc("cos"),
}


def _fusible(step: Step, slots: list[Slot]) -> bool:
    return (
        step.kind == "xp"
        and not step.attrs
        and not step.multi
        and len(step.outs) == 1
        and FUSIBLE.get(step.fn) is not None
        and all(slots[s].dtype == FLOAT32 for s in (*step.ins, *step.outs))
    )


def _chain_function(run: list[Step], ins: list[int], outs: list[int], xp: Any) -> Any:
    """``fn(*ins) -> outs`` computing the run's steps in order, named after its kernels."""
    program = [(FUSIBLE[step.fn], step.ins, step.outs[0]) for step in run]

    def chain(*arrays: Any) -> Any:
        values = dict(zip(ins, arrays, strict=True))
        for expression, step_ins, out in program:
            values[out] = expression(xp, *(values[s] for s in step_ins))
        return values[outs[0]] if len(outs) == 1 else tuple(values[s] for s in outs)

    chain.__name__ = "fused_" + "_".join(step.name for step in run)
    return chain


def _fused_step(run: list[Step], frees: list[tuple[int, ...]], xp: Any) -> tuple[Step, tuple]:
    """The run as one step, and the slots dead after it."""
    made = {step.outs[0] for step in run}
    dead = {s for f in frees for s in f}
    ins: list[int] = []
    for step in run:
        for s in step.ins:
            if s not in made and s not in ins:
                ins.append(s)
    outs = [step.outs[0] for step in run if step.outs[0] not in dead]
    fused = xp.fuse(_chain_function(run, ins, outs, xp))
    step = Step(
        "xp",
        "+".join(s.name for s in run),
        lambda *arrays, xp=None: fused(*arrays),
        None,
        tuple(ins),
        tuple(outs),
    )
    step.multi = len(outs) > 1
    return step, tuple(sorted(dead - made))


def fuse_chains(slots: list[Slot], plan: Plan, backend: Any) -> tuple[list[Step], list[tuple]]:
    """The plan's steps and frees with each run of two or more fusible steps as one fused
    step, on a GPU backend whose array module has ``fuse``; else the plan's own."""
    xp = getattr(backend, "xp", None)
    if not str(getattr(backend, "name", "")).startswith("cupy") or not hasattr(xp, "fuse"):
        return plan.steps, plan.frees
    steps: list[Step] = []
    frees: list[tuple] = []
    run: list[Step] = []
    run_frees: list[tuple] = []

    def flush() -> None:
        if len(run) >= 2:
            step, dead = _fused_step(run, run_frees, xp)
            steps.append(step)
            frees.append(dead)
        else:
            steps.extend(run)
            frees.extend(run_frees)
        run.clear()
        run_frees.clear()

    for step, dead in zip(plan.steps, plan.frees, strict=True):
        if _fusible(step, slots):
            run.append(step)
            run_frees.append(dead)
            continue
        flush()
        steps.append(step)
        frees.append(dead)
    flush()
    return steps, frees
