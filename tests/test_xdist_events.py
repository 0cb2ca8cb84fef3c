"""``xdist_events`` (tests/conftest.py's ``pytest_configure`` and ``pytest_configure_node``):
a pytest-xdist worker sends each test's events in one message, and the controller hands
them on one by one, so that its hooks see what they saw without it."""

from __future__ import annotations

import pickle
from pathlib import Path

from xdist_events import BATCH_EVENT, EventBatcher, unbatch_node_events

pytest_plugins = ["pytester"]

TESTS = Path(__file__).resolve().parent


def a_test(nodeid: str) -> list[tuple[str, dict]]:
    """The events a worker sends for one passing test."""
    report = {"nodeid": nodeid, "outcome": "passed", "location": ("t.py", 1, nodeid)}
    return [
        ("logstart", {"nodeid": nodeid, "location": ("t.py", 1, nodeid)}),
        *[("testreport", {"data": {**report, "when": when}}) for when in ("setup", "call", "teardown")],
        ("logfinish", {"nodeid": nodeid, "location": ("t.py", 1, nodeid)}),
        ("runtest_protocol_complete", {"item_index": 0, "duration": 0.001}),
    ]  # fmt: skip


class FakeNode:
    """An ``xdist.workermanage.WorkerController``'s ``process_from_remote``: what it is
    handed, in order."""

    def __init__(self) -> None:
        self.handed: list = []

    def process_from_remote(self, eventcall) -> None:
        self.handed.append(eventcall)


def sent_and_handed(events: list[tuple[str, dict]]) -> tuple[list, list]:
    """The messages a worker sends for ``events``, and what the controller hands on."""
    messages: list = []
    batcher = EventBatcher(messages.append)
    for name, kwargs in events:
        batcher(name, **kwargs)
    node = FakeNode()
    unbatch_node_events(node)
    for message in messages:
        node.process_from_remote(message)
    return messages, node.handed


def test_each_test_is_one_message_and_the_controller_gets_every_event_in_order():
    events = a_test("t.py::a") + a_test("t.py::b") + [("workerfinished", {"workeroutput": {}})]
    messages, handed = sent_and_handed(events)
    assert [m[0] for m in messages] == [BATCH_EVENT, BATCH_EVENT, "workerfinished"]
    assert handed == events


def test_an_event_out_of_a_test_is_sent_with_what_was_kept_in_order():
    first, second = a_test("t.py::a"), a_test("t.py::b")
    warning = ("warning_recorded", {"when": "runtest", "nodeid": "t.py::b"})
    events = first + second[:3] + [warning] + second[3:] + [("collectionstart", {})]
    messages, handed = sent_and_handed(events)
    # a's events; b's logstart, setup and call with the warning; b's rest; collectionstart
    assert [m[0] for m in messages] == [BATCH_EVENT] * 3 + ["collectionstart"]
    assert [name for name, _ in pickle.loads(messages[1][1]["events"])][-1] == "warning_recorded"
    assert handed == events


def test_a_lone_event_is_sent_as_it_is():
    messages, handed = sent_and_handed([("workerready", {"workerinfo": {"id": "gw0"}})])
    assert messages == handed == [("workerready", {"workerinfo": {"id": "gw0"}})]


def test_an_unreadable_batch_is_an_internal_error_not_a_lost_message():
    node = FakeNode()
    unbatch_node_events(node)
    node.process_from_remote((BATCH_EVENT, {"events": b"not a pickle"}))
    [(name, kwargs)] = node.handed
    assert name == "internal_error" and "UnpicklingError" in kwargs["formatted_error"]


SUITE = """
import os
import sys
import warnings

import pytest


@pytest.mark.parametrize("i", range(6))
def test_passes(i):
    pass


def test_fails():
    # The inner suite's failure on purpose: its assert text must reach the controller.
    print("printed by the failing test")
    answer = len("ab")
    assert answer == 3, "the sum the suite expects"


@pytest.fixture
def broken():
    raise RuntimeError("the fixture broke")


def test_errors(broken):
    pass


def test_skips():
    pytest.skip("skipped on purpose")


@pytest.mark.xfail(reason="expected")
def test_xfails():
    assert False


def test_warns():
    warnings.warn(UserWarning("warned by the test"))


def test_crashes():
    sys.stdout.flush()
    os._exit(3)
"""

CONFTEST = """
import pytest
from xdist_events import BATCH_EVENT, batch_worker_events, unbatch_node_events

BATCHES = []


def pytest_configure(config):
    if hasattr(config, "workerinput"):
        assert batch_worker_events(config)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    unbatch_node_events(node)
    handed = node.process_from_remote

    def counted(eventcall):
        if type(eventcall) is tuple and eventcall[0] == BATCH_EVENT:
            BATCHES.append(1)
        handed(eventcall)

    node.process_from_remote = counted


def pytest_sessionfinish(session):
    if not hasattr(session.config, "workerinput"):
        with open("batches.txt", "w") as f:
            f.write(str(len(BATCHES)))
"""


def test_a_run_on_two_workers_reports_every_outcome_crash_and_text(pytester, monkeypatch):
    pytester.makepyfile(test_suite=SUITE)
    pytester.makeconftest(CONFTEST)
    monkeypatch.setenv("PYTHONPATH", str(TESTS), prepend=":")
    # Neither tidytensor's plugin nor hypothesis's: each of the four processes (a worker
    # replaces the one that crashed) would import them, 2.7 s of the run's 4.2 s.
    result = pytester.runpytest_subprocess(
        "-n", "2", "-rA", "-p", "no:cacheprovider", "-p", "no:tidytensor", "-p", "no:hypothesispytest"
    )  # fmt: skip
    result.assert_outcomes(passed=7, failed=2, errors=1, skipped=1, xfailed=1, warnings=1)
    out = result.stdout.str()
    assert "the sum the suite expects" in out and "assert 2 == 3" in out
    assert "printed by the failing test" in out
    assert "RuntimeError: the fixture broke" in out and "skipped on purpose" in out
    assert "warned by the test" in out
    assert "crashed while running 'test_suite.py::test_crashes'" in out
    # the 11 tests that did not crash the worker each came in one message
    assert int((pytester.path / "batches.txt").read_text()) >= 11
