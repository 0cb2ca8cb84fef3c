"""``xdist_scheduling.LinearLoadGroup`` (README's ``--dist loadgroup`` in this suite) sends
the workers exactly what pytest-xdist's own ``LoadGroupScheduling`` sends, test for test,
with the same grouping, and keeps only the pending units in its bookkeeping."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest
from xdist.scheduler import LoadGroupScheduling

from xdist_scheduling import LinearLoadGroup


class FakeWorker:
    """What a scheduler calls on a worker: the tests it is sent, and its shutdown."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.gateway = SimpleNamespace(id=name)
        self.queue: list[int] = []
        self.sent: list[list[int]] = []
        self.shutting_down = False

    def send_runtest_some(self, indices: list[int]) -> None:
        self.sent.append(list(indices))
        self.queue.extend(indices)

    def shutdown(self) -> None:
        self.shutting_down = True


def fake_config(workers: int, reorder: bool = True) -> SimpleNamespace:
    values = {"tx": [f"{workers}*popen"], "dist": "loadgroup"}
    return SimpleNamespace(
        getvalue=values.__getitem__, option=SimpleNamespace(loadscopereorder=reorder)
    )


def collection(seed: int) -> list[str]:
    """Single tests, tests of a few ``@group`` units, and a parameter holding an ``@``."""
    rng = random.Random(seed)
    ids = []
    for module in range(rng.randint(1, 6)):
        for test in range(rng.randint(1, 40)):
            nodeid = f"tests/test_m{module}.py::test_{test}"
            if rng.random() < 0.3:
                nodeid += f"@group{rng.randint(0, 3)}"
            elif rng.random() < 0.1:
                nodeid += "[a@b]"
            ids.append(nodeid)
    return ids


def run(scheduler_class, ids: list[str], workers: int, seed: int, reorder: bool = True):
    """Runs ``ids`` through a scheduler, finishing one queued test of a randomly picked worker
    at a time (the same picks for any scheduler class): every worker's sends, in order."""
    sched = scheduler_class(fake_config(workers, reorder))
    nodes = [FakeWorker(f"gw{i}") for i in range(workers)]
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


@pytest.mark.parametrize("seed", range(40))
def test_it_sends_what_the_stock_loadgroup_scheduler_sends(seed):
    ids = collection(seed)
    workers = 1 + seed % 4
    reorder = seed % 5 != 0
    stock, _ = run(LoadGroupScheduling, ids, workers, seed, reorder)
    linear, _ = run(LinearLoadGroup, ids, workers, seed, reorder)
    assert linear == stock
    sent = sorted(i for sends in linear.values() for batch in sends for i in batch)
    assert sent == list(range(len(ids)))  # every test once


def test_a_group_runs_on_one_worker_and_finished_units_leave_the_bookkeeping():
    ids = [f"t.py::test_{i}@g" for i in range(30)] + [f"t.py::test_s{i}" for i in range(30)]
    sends, sched = run(LinearLoadGroup, ids, workers=2, seed=1)
    ran = {name: {i for batch in batches for i in batch} for name, batches in sends.items()}
    group = set(range(30))
    assert [name for name, indices in ran.items() if indices & group] in (["gw0"], ["gw1"])
    assert all(group <= indices for indices in ran.values() if indices & group)
    assert all(not units for units in sched.assigned_work.values())
    assert not sched._left


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
