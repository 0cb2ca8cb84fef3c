"""``xdist_scheduling.LinearLoadGroup`` (README's ``--dist loadgroup`` in this suite) hands
out the units of pytest-xdist's own ``LoadGroupScheduling`` in the same order, test for
test, with the same grouping, in fewer messages (up to ``BATCH`` tests each), and keeps only
the pending units in its bookkeeping."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest
from xdist.scheduler import LoadGroupScheduling

from xdist_scheduling import LinearLoadGroup


class FakeWorker:
    """What a scheduler calls on a worker: the tests it is sent, and its shutdown."""

    def __init__(self, name: str, log: list | None = None) -> None:
        self.name = name
        self.log = [] if log is None else log  # every worker's sends, in the order made
        self.gateway = SimpleNamespace(id=name)
        self.queue: list[int] = []
        self.sent: list[list[int]] = []
        self.shutting_down = False

    def send_runtest_some(self, indices: list[int]) -> None:
        self.sent.append(list(indices))
        self.log.append(list(indices))
        self.queue.extend(indices)

    def shutdown(self) -> None:
        self.shutting_down = True


def fake_config(workers: int, reorder: bool = True) -> SimpleNamespace:
    values = {"tx": [f"{workers}*popen"], "dist": "loadgroup"}
    return SimpleNamespace(
        getvalue=values.__getitem__, option=SimpleNamespace(loadscopereorder=reorder)
    )


def collection(seed: int, most: int = 40) -> list[str]:
    """Single tests, tests of a few ``@group`` units, and a parameter holding an ``@``: up to
    ``most`` per module, in up to 6 modules."""
    rng = random.Random(seed)
    ids = []
    for module in range(rng.randint(1, 6)):
        for test in range(rng.randint(1, most)):
            nodeid = f"tests/test_m{module}.py::test_{test}"
            if rng.random() < 0.3:
                nodeid += f"@group{rng.randint(0, 3)}"
            elif rng.random() < 0.1:
                nodeid += "[a@b]"
            ids.append(nodeid)
    return ids


def run(scheduler_class, ids, workers: int, seed: int, reorder: bool = True, log=None):
    """Runs ``ids`` through a scheduler, finishing one queued test of a randomly picked worker
    at a time (the same picks for any scheduler class): every worker's sends, in order, and
    the scheduler; ``log`` receives all the sends in the order they were made."""
    sched = scheduler_class(fake_config(workers, reorder))
    log = [] if log is None else log
    nodes = [FakeWorker(f"gw{i}", log) for i in range(workers)]
    for node in nodes:
        sched.add_node(node)
    for node in nodes:
        sched.add_node_collection(node, ids)
    sched.schedule()
    rng = random.Random(seed)
    while sched.has_pending:
        busy = [node for node in nodes if node.queue]
        assert busy, "pending tests, but no worker has any"
        node = rng.choice(busy)
        sched.mark_test_complete(node, node.queue.pop(0))
    assert sched.tests_finished
    assert all(node.shutting_down for node in nodes)
    return {node.name: node.sent for node in nodes}, sched


def units(ids: list[str]) -> dict[int, str]:
    """Each test's unit: its ``@group``, else the test itself (``loadgroup``'s scopes)."""
    return {i: nodeid.rpartition("@")[2] if "@" in nodeid.split("[")[0] else nodeid
            for i, nodeid in enumerate(ids)}  # fmt: skip


@pytest.mark.parametrize("seed", range(40))
def test_it_hands_out_the_stock_scheduler_s_tests_in_its_order_in_fewer_messages(seed):
    ids = collection(seed, most=40 * (1 + seed % 3))  # up to 720 tests: batches shrink at the end
    workers = 1 + seed % 4
    reorder = seed % 5 != 0
    stock_log, linear_log = [], []
    run(LoadGroupScheduling, ids, workers, seed, reorder, stock_log)
    sends, _ = run(LinearLoadGroup, ids, workers, seed, reorder, linear_log)
    # The same tests in the same order, over all the workers; every test once.
    assert [i for batch in linear_log for i in batch] == [i for batch in stock_log for i in batch]
    assert sorted(i for batch in linear_log for i in batch) == list(range(len(ids)))
    # Each message holds whole units: one larger unit, or units up to BATCH tests together.
    unit = units(ids)
    for batch in linear_log:
        assert len(batch) <= LinearLoadGroup.BATCH or len({unit[i] for i in batch}) == 1
    for name in sends:  # every unit whole in one message
        for batch in sends[name]:
            for other in (b for n in sends for b in sends[n] if b is not batch):
                assert not {unit[i] for i in batch} & {unit[i] for i in other}
    assert len(linear_log) <= len(stock_log)
    if len(ids) > 200:
        assert len(linear_log) < len(stock_log) / 2


def test_a_group_runs_on_one_worker_and_finished_units_leave_the_bookkeeping():
    ids = [f"t.py::test_{i}@g" for i in range(30)] + [f"t.py::test_s{i}" for i in range(30)]
    sends, sched = run(LinearLoadGroup, ids, workers=2, seed=1)
    ran = {name: {i for batch in batches for i in batch} for name, batches in sends.items()}
    group = set(range(30))
    assert [name for name, indices in ran.items() if indices & group] in (["gw0"], ["gw1"])
    assert all(group <= indices for indices in ran.values() if indices & group)
    assert all(not units for units in sched.assigned_work.values())
    assert not any(sched._left.values())


def test_a_crashed_worker_s_pending_tests_go_to_another():
    ids = [f"t.py::test_{i}" for i in range(12)]
    sched = LinearLoadGroup(fake_config(2))
    a, b = FakeWorker("gw0"), FakeWorker("gw1")
    for node in (a, b):
        sched.add_node(node)
        sched.add_node_collection(node, ids)
    sched.schedule()
    sched.mark_test_complete(a, a.queue.pop(0))
    crashed = a.queue[0]
    assert sched.remove_node(a) == ids[crashed]
    while sched.has_pending:
        sched.mark_test_complete(b, b.queue.pop(0))
    done_by_a = {a.sent[0][0]}
    assert sorted(i for x in b.sent for i in x) == sorted(set(range(12)) - done_by_a)
