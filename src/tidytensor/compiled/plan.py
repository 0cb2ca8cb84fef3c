"""The buffer plan of a trace: which steps a replay runs, when each value dies, and the most
memory a replay holds at once.

- *Survivors* are the values a call leaves behind: its outputs and the new values of the
  variables it wrote (with the slots whose buffers they view).
- Steps none of whose outputs reach a survivor are dropped (a layer's weight initializers
  on the traced call, a saved clone only a tape needed).
- Each other value is freed right after the step that uses it last (``frees``), so a replay
  never holds more than the eager call did, which freed its temporaries only when each op
  or ``tidy`` ended.
- ``peak`` is the most bytes of new buffers alive at once during a replay. The engine's
  budget (``set_memory_limit``) is checked against it before a replay starts, and the
  engine's peak counter is raised by it afterwards: one update for the whole call.
"""

from __future__ import annotations

from .tracing import Slot, Step

__all__ = ["Plan", "make_plan", "peak_of"]

#: Slot kinds bound from outside each call (parameters of the replay function).
BOUND = ("arg", "var", "capt")


class Plan:
    """What ``make_plan`` works out (see the module's doc)."""

    __slots__ = ("steps", "frees", "bound", "returned", "peak")

    def __init__(self) -> None:
        self.steps: list[Step] = []
        self.frees: list[tuple[int, ...]] = []  # per kept step: slots dead after it
        self.bound: list[int] = []  # bound slots the kept steps read, in slot order
        self.returned: list[int] = []  # slots the replay function returns
        self.peak = 0


def make_plan(slots: list[Slot], steps: list[Step], survivors: list[int]) -> Plan:
    """The plan for replaying ``steps`` so that every slot in ``survivors`` is computed."""
    needed = set()
    for s in survivors:
        needed.add(s)
        root = slots[s].root
        if slots[root].kind not in BOUND:
            needed.add(root)
    kept: list[Step] = []
    for step in reversed(steps):
        if any(o in needed for o in step.outs):
            kept.append(step)
            needed.update(step.ins)
    kept.reverse()
    plan = Plan()
    plan.steps = kept
    plan.bound = sorted(s for s in needed if slots[s].kind in BOUND)
    returned = []
    for s in survivors:
        for r in (s, slots[s].root):
            if slots[r].kind not in BOUND and slots[r].kind != "const" and r not in returned:
                returned.append(r)
    plan.returned = returned
    keep_to_end = set(returned)
    last_use: dict[int, int] = {}
    for i, step in enumerate(kept):
        for s in step.ins:
            last_use[s] = i
        for s in step.outs:
            last_use.setdefault(s, i)  # an output nothing reads dies where it is made
    frees: list[list[int]] = [[] for _ in kept]
    for s, i in last_use.items():
        if s not in keep_to_end and slots[s].kind != "const":
            frees[i].append(s)
    plan.frees = [tuple(sorted(f)) for f in frees]
    plan.peak = peak_of(slots, kept, plan.frees, keep_to_end)
    return plan


def peak_of(
    slots: list[Slot],
    steps: list[Step],
    frees: list[tuple[int, ...]],
    kept: set,
    nbytes: dict[int, int] | None = None,
) -> int:
    """The most bytes of buffers made by the replay alive at once. A buffer lives until its
    slot and every view of it are freed. ``nbytes``: slots whose new buffers take other
    bytes than their own (0 for one written into a scratch array, ``scratch.py``)."""
    if nbytes is None:
        nbytes = {}
    members: dict[int, int] = {}  # root -> slots (itself and views) still alive
    for step in steps:
        for s in step.outs:
            members[slots[s].root] = members.get(slots[s].root, 0) + 1
    live = peak = 0
    for step, dead in zip(steps, frees, strict=True):
        for s in step.outs:
            live += nbytes.get(s, slots[s].nbytes)
        peak = max(peak, live)
        for s in dead:
            root = slots[s].root
            if root in members:
                members[root] -= 1
                if members[root] == 0 and root not in kept:
                    live -= nbytes.get(root, slots[root].nbytes)
    return peak
