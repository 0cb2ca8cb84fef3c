"""Scratch buffers of a replay: values no caller sees, written in place from call to call.

A replay (``replay.py``) of a trace's plan (``plan.py``) allocates a new array for every
kernel output, as the eager call does. ``make_scratch_plan`` picks the outputs a replay can
write into arrays it keeps instead (*scratch*), allocated once per signature:

- a *candidate* is the one output of an ``xp`` step whose kernel has an out form
  (``backends/xp_kernels/out_forms.py``) that accepts the traced shapes and dtypes, and
  that owns its buffer and is not returned (outputs and variables' new values stay fresh
  arrays the caller owns);
- a scratch array is in use until every value that may view it is dead: the slot, its views
  (reshapes), and whatever a step that is not known to return arrays of its own
  (``FRESH_OUTPUTS``) computes from those (it may hand back a view). A candidate one of
  whose such values is returned is never scratch;
- arrays are reused within a replay: an elementwise form (``IN_PLACE``) writes its output
  over an input whose array is in use no longer after this step, and a new candidate takes
  a free array of the same size before a new one is made;
- candidates are taken largest first, each only while the arrays' bytes plus the peak of
  the buffers the replay still allocates stay within a bound: the peak of the traced
  (eager) call, measured while it ran (``function.py``), or the plan's peak if more. A
  replay never holds more at once than the eager call did;
- only the ``MAX_CANDIDATES`` largest candidates are weighed: each trial re-plans the
  whole replay, so weighing all of them cost a trace time quadratic in its steps (an
  unrolled RNN's trace of ~3,000 steps took seconds), and the largest arrays carry the gain.

The arrays live as long as the replay (``ScratchSet`` in ``replay.py``) and are counted in
the engine's live bytes while they live.
"""

from __future__ import annotations

from typing import Any

from ..backends.xp_kernels.out_forms import FRESH_OUTPUTS, IN_PLACE, OUT_FORMS
from .plan import Plan, peak_of
from .tracing import Slot, Step

__all__ = ["ScratchPlan", "make_scratch_plan"]

_NEVER = float("inf")

#: How many candidates, the largest, ``make_scratch_plan`` weighs (see the module's doc).
MAX_CANDIDATES = 16


class ScratchPlan:
    """Which step writes into which scratch array (``make_scratch_plan``)."""

    __slots__ = ("forms", "array_of", "sizes", "fresh_peak")

    def __init__(self) -> None:
        self.forms: dict[int, Any] = {}  # step index -> the kernel's out form
        self.array_of: dict[int, int] = {}  # slot -> index of its scratch array
        self.sizes: list[int] = []  # bytes of each scratch array
        self.fresh_peak = 0  # the most bytes of new buffers alive at once, scratch aside

    @property
    def nbytes(self) -> int:
        return sum(self.sizes)


def _size(shape: tuple) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def make_scratch_plan(slots: list[Slot], plan: Plan, bound: int) -> ScratchPlan | None:
    """The scratch arrays of ``plan``'s replay (see the module's doc), or None if none:
    their bytes and the peak of the buffers the replay still makes stay within ``bound``."""
    steps, frees = plan.steps, plan.frees
    kept = set(plan.returned)
    dies = {s: k for k, dead in enumerate(frees) for s in dead}
    candidates: dict[int, tuple[int, Any, str]] = {}  # slot -> (step, form, mode)
    for k, step in enumerate(steps):
        found = _candidate(step, slots, kept)
        if found is not None:
            candidates[step.outs[0]] = (k, *found)
    if not candidates:
        return None
    if len(candidates) > MAX_CANDIDATES:
        largest = sorted(candidates, key=lambda s: (-slots[s].nbytes, s))[:MAX_CANDIDATES]
        candidates = {s: candidates[s] for s in sorted(largest)}
    reach = _reach(slots, steps, candidates)
    # A slot's array is in use until every value that may view it is dead.
    in_use_until: dict[int, float] = {}
    for s, reached in reach.items():
        if reached & kept:
            continue  # a returned value might view it
        in_use_until[s] = max(dies.get(r, _NEVER) for r in reached)
    order = sorted(in_use_until, key=lambda s: (-slots[s].nbytes, s))
    best: ScratchPlan | None = None
    chosen: set[int] = set()
    for s in order:
        trial = _assign(slots, steps, frees, kept, candidates, in_use_until, chosen | {s})
        if trial.nbytes + trial.fresh_peak <= bound:
            chosen.add(s)
            best = trial
    return best


def _candidate(step: Step, slots: list[Slot], kept: set) -> tuple[Any, str] | None:
    """``(out form, mode)`` when ``step``'s output may be written into a scratch array."""
    if step.kind != "xp" or step.multi or len(step.outs) != 1:
        return None
    found = OUT_FORMS.get(step.fn)
    s = step.outs[0]
    slot = slots[s]
    if found is None or s in kept or slot.root != s:
        return None
    if slot.nbytes != slot.np_dtype.itemsize * _size(slot.shape) or slot.nbytes == 0:
        return None
    form, accepts = found
    ins = tuple((slots[i].shape, slots[i].np_dtype) for i in step.ins)
    mode = accepts(ins, (slot.shape, slot.np_dtype), step.attrs or {})
    return None if mode is None else (form, mode)


def _reach(slots: list[Slot], steps: list[Step], candidates: dict) -> dict[int, set[int]]:
    """For each candidate: the slots that may view its array (itself, its views, and the
    outputs of steps that may return views of those)."""
    reach: dict[int, set[int]] = {s: {s} for s in candidates}
    for step in steps:
        if step.kind == "xp" and step.fn in FRESH_OUTPUTS:
            continue  # new arrays, whatever it reads
        for reached in reach.values():
            if any(i in reached for i in step.ins):
                reached.update(step.outs)
    for reached in reach.values():  # views made by the tracer (another handle on a buffer)
        reached.update(v.index for v in slots if v.root in reached)
    return reach


def _assign(
    slots: list[Slot],
    steps: list[Step],
    frees: list[tuple[int, ...]],
    kept: set,
    candidates: dict,
    in_use_until: dict[int, float],
    chosen: set[int],
) -> ScratchPlan:
    """Arrays for the ``chosen`` candidates, reused as ``IN_PLACE`` and free arrays allow."""
    out = ScratchPlan()
    holder: dict[int, int] = {}  # array -> the slot whose value it holds now
    free: list[int] = []
    # The steps after which a held value may end (the release loop below runs only there).
    ends = {in_use_until[s] for s in chosen}
    for k, step in enumerate(steps):
        s = step.outs[0] if step.outs else None
        if s in chosen:
            _k, form, mode = candidates[s]
            out.forms[k] = form
            need = slots[s].nbytes
            array = None
            if mode == IN_PLACE:
                for i in step.ins:
                    j = out.array_of.get(i)
                    if (
                        j is not None
                        and holder.get(j) == i
                        and in_use_until[i] == k
                        and slots[i].shape == slots[s].shape
                        and slots[i].np_dtype == slots[s].np_dtype
                    ):
                        array = j
                        break
            if array is None:
                fits = [j for j in free if out.sizes[j] == need]
                if fits:
                    array = fits[0]
                    free.remove(array)
                else:
                    array = len(out.sizes)
                    out.sizes.append(need)
            out.array_of[s] = array
            holder[array] = s
        if k in ends:
            for j, held in list(holder.items()):
                if in_use_until[held] == k:
                    del holder[j]
                    free.append(j)
    nbytes = {s: 0 for s in chosen}
    out.fresh_peak = peak_of(slots, steps, frees, kept, nbytes)
    return out
