"""``--dist loadgroup`` (README's test command) with the controller's bookkeeping linear in
the number of tests, and several units sent in one message.

pytest-xdist's ``LoadScopeScheduling`` (which ``loadgroup`` extends) keeps every work unit a
worker was ever given in ``assigned_work[node]`` and, at each finished test, counts that
worker's pending tests over all of them (``_pending_of``); each new unit also looks its
tests up with ``list.index`` in the 16,000-item collection. With the suite's ~16,000 units
(every ungrouped test is its own), both are quadratic: the controller, a third process on a
two-core machine, took 74 s of CPU in a 225 s run, and the workers waited for it.

It also sends one unit per message whenever a worker is down to 2 pending tests: for a
single test, one message to the worker per test. Each message wakes the controller and the
worker on a machine whose two cores they share, and a worker whose queue ran short waits
for the next (a worker needs the test after the one it runs). 6,000 empty tests took
18.1-18.8 s on two workers that way, and 12.7-13.2 s with 32 tests per message.

``LinearLoadGroup`` hands out the same units in the same order (compared with the stock
scheduler in ``tests/test_xdist_scheduling.py``), but whole units up to ``BATCH`` tests in
one message, fewer as the queue runs out; it drops a unit from ``assigned_work[node]`` once
all its tests finished (what is left there is exactly the pending work, as ``remove_node``
and ``tests_finished`` read it) and finds test positions in a dict.
"""

from __future__ import annotations

from typing import Any

from xdist.scheduler import LoadGroupScheduling

__all__ = ["LinearLoadGroup"]


class LinearLoadGroup(LoadGroupScheduling):
    """``--dist loadgroup``'s scheduling, with linear bookkeeping and batched sends (see the
    module's doc)."""

    #: The most tests one message sends a worker (a larger unit goes alone, whole).
    BATCH = 32

    def __init__(self, config: Any, log: Any = None) -> None:
        super().__init__(config, log)
        #: Tests not finished yet of each unit a node was given: ``node -> {scope: count}``.
        self._left: dict[Any, dict[str, int]] = {}
        #: Each node's collection as ``{nodeid: index}`` (the first index, as list.index).
        self._positions: dict[Any, dict[str, int]] = {}

    def _take_unit(self, node: Any, indices: list[int]) -> int:
        """Gives ``node`` the next unit of the queue: its pending tests' indices go to
        ``indices``; returns how many."""
        scope, work_unit = self.workqueue.popitem(last=False)
        self.assigned_work.setdefault(node, {})[scope] = work_unit
        pending = [nodeid for nodeid, completed in work_unit.items() if not completed]
        self._left.setdefault(node, {})[scope] = len(pending)
        positions = self._positions_of(node)
        indices.extend(positions[nodeid] for nodeid in pending)
        return len(pending)

    def _assign_work_unit(self, node: Any) -> None:
        indices: list[int] = []
        self._take_unit(node, indices)
        node.send_runtest_some(indices)

    def _batch_size(self) -> int:
        """Tests per message: :attr:`BATCH`, fewer as the queue runs out (the last units
        still spread over every worker)."""
        return max(1, min(self.BATCH, len(self.workqueue) // (4 * max(1, len(self.nodes)))))

    def _reschedule(self, node: Any) -> None:
        """As the stock scheduler (more work once a node has 2 tests or fewer left), but
        whole units up to :meth:`_batch_size` tests in one message, not one unit."""
        if node.shutting_down:
            return
        if not self.workqueue:
            node.shutdown()
            return
        if sum(self._left.get(node, {}).values()) > 2:  # at most a batch of units
            return
        indices: list[int] = []
        room = self._batch_size()
        while self.workqueue:
            unit = next(iter(self.workqueue.values()))
            if indices and sum(not done for done in unit.values()) > room - len(indices):
                break  # it goes in the next message
            self._take_unit(node, indices)
        node.send_runtest_some(indices)

    def mark_test_complete(self, node: Any, item_index: int, duration: float = 0) -> None:
        nodeid = self.registered_collections[node][item_index]
        scope = self._split_scope(nodeid)
        self.assigned_work[node][scope][nodeid] = True
        units = self._left[node]
        units[scope] -= 1
        if not units[scope]:  # the unit is done: nothing of it is pending any more
            del units[scope]
            del self.assigned_work[node][scope]
        self._reschedule(node)

    def remove_node(self, node: Any) -> str | None:
        self._left.pop(node, None)
        return super().remove_node(node)

    def _positions_of(self, node: Any) -> dict[str, int]:
        positions = self._positions.get(node)
        if positions is None:
            positions = self._positions[node] = {}
            for index, nodeid in enumerate(self.registered_collections[node]):
                positions.setdefault(nodeid, index)
        return positions
