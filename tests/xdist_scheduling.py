"""``--dist loadgroup`` (README's test command) with the controller's bookkeeping linear in
the number of tests.

pytest-xdist's ``LoadScopeScheduling`` (which ``loadgroup`` extends) keeps every work unit a
worker was ever given in ``assigned_work[node]`` and, at each finished test, counts that
worker's pending tests over all of them (``_pending_of``); each new unit also looks its
tests up with ``list.index`` in the 16,000-item collection. With the suite's ~16,000 units
(every ungrouped test is its own), both are quadratic: the controller, a third process on a
two-core machine, took 74 s of CPU in a 225 s run, and the workers waited for it.

``LinearLoadGroup`` hands out the same units in the same order (a test is compared with the
stock scheduler in ``tests/test_xdist_scheduling.py``); it only drops a unit from
``assigned_work[node]`` once all its tests finished (what is left there is exactly the
pending work, as ``remove_node`` and ``tests_finished`` read it) and finds test positions in
a dict.
"""

from __future__ import annotations

from typing import Any

from xdist.scheduler import LoadGroupScheduling

__all__ = ["LinearLoadGroup"]


class LinearLoadGroup(LoadGroupScheduling):
    """``--dist loadgroup``'s scheduling, with linear bookkeeping (see the module's doc)."""

    def __init__(self, config: Any, log: Any = None) -> None:
        super().__init__(config, log)
        #: Tests not finished yet of each unit a node was given: ``(node, scope) -> count``.
        self._left: dict[tuple[Any, str], int] = {}
        #: Each node's collection as ``{nodeid: index}`` (the first index, as list.index).
        self._positions: dict[Any, dict[str, int]] = {}

    def _assign_work_unit(self, node: Any) -> None:
        scope, work_unit = self.workqueue.popitem(last=False)
        self.assigned_work.setdefault(node, {})[scope] = work_unit
        pending = [nodeid for nodeid, completed in work_unit.items() if not completed]
        self._left[node, scope] = len(pending)
        positions = self._positions_of(node)
        node.send_runtest_some([positions[nodeid] for nodeid in pending])

    def mark_test_complete(self, node: Any, item_index: int, duration: float = 0) -> None:
        nodeid = self.registered_collections[node][item_index]
        scope = self._split_scope(nodeid)
        self.assigned_work[node][scope][nodeid] = True
        left = self._left[node, scope] - 1
        if left:
            self._left[node, scope] = left
        else:  # the unit is done: nothing of it is pending any more
            del self._left[node, scope]
            del self.assigned_work[node][scope]
        self._reschedule(node)

    def _positions_of(self, node: Any) -> dict[str, int]:
        positions = self._positions.get(node)
        if positions is None:
            positions = self._positions[node] = {}
            for index, nodeid in enumerate(self.registered_collections[node]):
                positions.setdefault(nodeid, index)
        return positions
