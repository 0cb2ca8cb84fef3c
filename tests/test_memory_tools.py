"""The memory tools of issue 6: leak records, tidy_scope for threads and asyncio, budgets,
memory statistics, the profile timeline and debug mode.

tests/conftest.py runs every test inside its own scope, which owns every tensor the test
makes. Tests about handles that no scope owns (leaks) first close that scope with the
``bare`` fixture, as a plain script runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import gc
import os
import re
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import pytest

import tidytensor as tf
from tidytensor import config, viz
from tidytensor.errors import ArgumentTypeError, InvalidArgumentError, TensorDisposedError

SOURCE = Path(__file__).read_text().splitlines()
HERE = re.escape(Path(__file__).name)


def line_of(marker: str) -> int:
    """The line of this file that ends with the comment ``marker``."""
    hits = [i + 1 for i, text in enumerate(SOURCE) if text.rstrip().endswith(f"# {marker}")]
    assert len(hits) == 1, (marker, hits)
    return hits[0]


def counts() -> tuple[int, int, int]:
    m = tf.memory()
    return (m.num_tensors, m.num_data_buffers, m.num_bytes)


def full_counts() -> tuple[int, int, int, int, int]:
    """counts() plus the live buffer bytes and the backend's own count of buffers."""
    engine = tf.engine()
    return (*counts(), engine.state.buffer_bytes, engine.backend.num_data_ids())


@pytest.fixture
def bare():
    """Closes the scope conftest opened for the test: tensors made now belong to no scope."""
    engine = tf.engine()
    while engine.state.scope_stack:
        engine.end_scope()
    assert engine.state.active_scope is None


@pytest.fixture(params=["instrumented", "fast"])
def kernel_path(request):
    """Runs a test on the instrumented kernel path (conftest's kernel leak detector on) and on
    the fast path user code takes."""
    engine = tf.engine()
    if request.param == "fast":
        engine.check_kernel_leaks = False
        engine.update_mode()
        assert not engine._slow
    return request.param


@pytest.fixture
def no_limit():
    """Leaves no memory limit behind (the limit lives on the engine, not its state)."""
    yield
    config.set_memory_limit(None)


@pytest.fixture
def debug_off():
    yield
    tf.disable_debug_mode()


# ================================================================== leak records
def make_leak(shape):
    tf.ones(shape)  # LEAK_A


def make_other_leak(shape):
    tf.zeros(shape)  # LEAK_B


@contextlib.contextmanager
def leak_reported(match=None):
    """The block leaks; the next report (``report_leaks``) issues a ``LeakWarning``."""
    with pytest.warns(tf.LeakWarning, match=match) as caught:
        yield caught
        tf.engine().report_leaks()


def test_dropped_handle_is_recorded_with_a_warning_naming_its_line(bare):
    with leak_reported() as caught:
        make_leak([10])
    [warning] = caught
    message = str(warning.message)
    assert re.search(
        rf"^1 tensor created at \S*{HERE}:{line_of('LEAK_A')} in make_leak was "
        r"garbage-collected without dispose\(\); its buffer stays allocated \(40 bytes\)",
        message,
    ), message
    # The warning points at the line that made the tensor, not at tidytensor's code.
    assert (Path(warning.filename).name, warning.lineno) == (Path(__file__).name, line_of("LEAK_A"))
    assert "tf.dispose_leaked()" in message
    # The buffer stays allocated and counted, exactly as TF.js would leave it.
    assert counts() == (1, 1, 40)
    [group] = tf.leaks()
    assert group.site.endswith(f"{Path(__file__).name}:{line_of('LEAK_A')} in make_leak")
    assert (group.count, group.bytes, len(group.tensor_ids)) == (1, 40, 1)
    assert tf.dispose_leaked() == 1
    assert counts() == (0, 0, 0)
    assert tf.leaks() == []


def test_leaks_are_grouped_by_site_most_bytes_first(bare):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            make_leak([10])
        make_other_leak([2, 50])
        assert caught == []  # reported later, one warning per site
        assert tf.engine().report_leaks() == 2
    assert sorted(str(w.message).split(" garbage")[0].split(" created at ")[0] for w in caught) == [
        "1 tensor",
        "3 tensors",
    ]
    assert tf.engine().report_leaks() == 0
    groups = tf.leaks()
    assert [(g.count, g.bytes) for g in groups] == [(1, 400), (3, 120)]
    assert groups[0].site.endswith(f":{line_of('LEAK_B')} in make_other_leak")
    assert groups[1].site.endswith(f":{line_of('LEAK_A')} in make_leak")
    assert len(set(groups[1].tensor_ids)) == 3
    assert "LeakGroup(site=" in repr(groups[0])
    assert counts() == (4, 4, 520)
    assert tf.dispose_leaked() == 4
    assert counts() == (0, 0, 0)
    assert tf.dispose_leaked() == 0


def test_leaked_view_keeps_the_shared_buffer_until_dispose_leaked(bare):
    a = tf.ones([4])
    with leak_reported():
        a.reshape([2, 2])  # a second handle on a's buffer, dropped at once
    a.dispose()
    assert counts() == (1, 1, 16)  # the leaked handle still holds the buffer
    assert [(g.count, g.bytes) for g in tf.leaks()] == [(1, 16)]
    tf.dispose_leaked()
    assert full_counts() == (0, 0, 0, 0, 0)


def test_unreachable_cycle_holding_a_tensor_is_a_leak(bare):
    class Node:
        pass

    node = Node()
    node.me = node
    node.t = tf.ones([3])
    del node
    with leak_reported():
        gc.collect()
    assert [(g.count, g.bytes) for g in tf.leaks()] == [(1, 12)]
    tf.dispose_leaked()
    assert counts() == (0, 0, 0)


LEAKING_SCRIPT = """
import tidytensor as tf
def make():
    return tf.ones([2])
for _ in range(3):
    make()
tf.zeros([5])
"""


def test_leaks_are_shown_under_default_filters_once_per_site_with_a_count(tmp_path):
    script = tmp_path / "leaky.py"
    script.write_text(LEAKING_SCRIPT)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONWARNINGS", "PYTHONDEVMODE")}
    src = str(Path(tf.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([src, env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if "LeakWarning" in line]
    assert len(lines) == 2, done.stderr
    assert lines[0].startswith(f"{script}:4: LeakWarning: 3 tensors created at leaky.py:4 in make")
    assert (
        "were garbage-collected without dispose(); their buffers stay allocated (24 bytes)"
        in (lines[0])
    )
    assert lines[1].startswith(f"{script}:7: LeakWarning: 1 tensor created at leaky.py:7")


def test_warn_leaks_off_still_records(bare):
    engine = tf.engine()
    engine.warn_leaks = False
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            make_leak([2])
            assert tf.engine().report_leaks() == 0
        assert [w for w in caught if issubclass(w.category, tf.LeakWarning)] == []
        assert [g.count for g in tf.leaks()] == [1]
    finally:
        engine.warn_leaks = True
        tf.dispose_leaked()


def test_leak_without_site_tracking_names_an_unknown_place(bare):
    tf.set_site_tracking(False)
    try:
        with leak_reported(match="created at an unknown place"):
            make_leak([2])
        assert [g.site for g in tf.leaks()] == ["an unknown place"]
    finally:
        tf.set_site_tracking(True)
        tf.dispose_leaked()


# ------------------------------------------------------------------ no false positives
def assert_no_leak_recorded():
    gc.collect()
    assert tf.engine().report_leaks() == 0
    assert tf.leaks() == []
    assert tf.engine().state.leaked == []


@pytest.fixture
def strict_warnings():
    """Any tf.LeakWarning raised in the test fails it."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", tf.LeakWarning)
        yield


def test_tensors_owned_by_a_live_scope_are_not_leaks(bare, strict_warnings):
    with tf.tidy_scope():
        x = tf.ones([3]).add(1)
        del x  # the scope still owns it
        assert_no_leak_recorded()
        assert counts()[0] == 2
    assert_no_leak_recorded()
    assert counts() == (0, 0, 0)


def test_tidy_temporaries_are_not_leaks(bare, strict_warnings):
    def body():
        tf.ones([3]).square()  # dropped at once: the tidy still owns both
        return tf.ones([2])

    out = tf.tidy(body)
    assert_no_leak_recorded()
    assert counts() == (1, 1, 8)
    out.dispose()


def test_op_results_in_an_enclosing_scope_are_not_leaks(strict_warnings):
    """conftest's own scope owns what the test makes: dropping it is no leak."""
    tf.ones([3]).add(2)
    tf.ones([5])
    assert_no_leak_recorded()
    assert counts()[0] == 3


def test_kept_tensors_are_not_leaks(bare, strict_warnings):
    kept = tf.tidy(lambda: tf.keep(tf.ones([3])))
    assert kept.kept
    del kept
    assert_no_leak_recorded()
    assert counts() == (1, 1, 12)  # still counted: kept means "never freed for you"
    tf.engine().reset()


def test_variables_are_not_leaks(bare, strict_warnings):
    v = tf.tidy(lambda: tf.variable(tf.ones([2]), name="not_a_leak"))
    del v
    assert_no_leak_recorded()
    assert counts() == (1, 1, 8)
    assert "not_a_leak" in tf.engine().state.registered_variables
    tf.dispose_variables()
    assert counts() == (0, 0, 0)


def test_tensors_held_by_live_objects_are_not_leaks(bare, strict_warnings):
    class Model:
        def __init__(self):
            self.weights = {"w": tf.ones([2, 2])}
            self.history = [tf.zeros([1])]
            self.me = self  # a cycle that is still reachable

    model = Model()
    holder = [model]
    del model
    assert_no_leak_recorded()
    tf.dispose([holder[0].weights, holder[0].history])
    assert counts() == (0, 0, 0)


def test_disposed_tensors_are_not_leaks_but_dropped_results_are(bare):
    t = tf.ones([2])
    t.dispose()
    del t
    result = tf.tidy(lambda: tf.ones([2]).mul(2))
    with leak_reported():
        del result  # returned from a tidy with no scope around it, then dropped: a leak
    assert [g.count for g in tf.leaks()] == [1]  # only the dropped live one
    tf.dispose_leaked()
    assert counts() == (0, 0, 0)


def test_tensors_from_before_a_reset_are_not_leaks(bare, strict_warnings):
    old = tf.ones([2])
    tf.engine().reset()
    del old
    assert_no_leak_recorded()
    assert counts() == (0, 0, 0)


def test_leaks_made_in_a_thread_are_recorded_with_the_threads_line():
    def run():
        make_leak([2])

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tf.LeakWarning)
        thread = threading.Thread(target=run)
        thread.start()
        thread.join()
    [group] = tf.leaks()
    assert group.site.endswith(f":{line_of('LEAK_A')} in make_leak")
    tf.dispose_leaked()


# ================================================================== tidy_scope
def test_tidy_scope_disposes_all_but_kept():
    with tf.tidy_scope() as scope:
        a = tf.ones([2]).add(1)
        b = scope.keep(a.mul(2))
        c = tf.keep(a.mul(3))
        pair = scope.keep([a.sub(1), {"x": a.add(5)}])
    assert a.is_disposed
    assert not b.is_disposed and not c.is_disposed
    assert not pair[0].is_disposed and not pair[1]["x"].is_disposed
    assert b.array_sync() == [4.0, 4.0]
    # scope.keep hands tensors to the enclosing scope (here conftest's); tf.keep keeps for good.
    test_scope = tf.engine().state.active_scope
    assert any(t is b for t in test_scope.track)
    assert not any(t is c for t in test_scope.track)
    tf.dispose([b, c, pair])


def test_tidy_scope_names_itself_in_the_disposed_error():
    with tf.tidy_scope("my block"):
        a = tf.ones([2])
    with pytest.raises(TensorDisposedError, match=r"disposed when scope 'my block' ended at"):
        a.add(1)


def test_nested_tidy_scopes():
    with tf.tidy_scope("outer") as outer:
        x = tf.ones([2])
        with tf.tidy_scope("inner") as inner:
            y = x.add(1)
            z = inner.keep(y.add(1))
        assert y.is_disposed and not z.is_disposed and not x.is_disposed
        w = outer.keep(z.mul(2))
    assert x.is_disposed and z.is_disposed and not w.is_disposed
    assert w.array_sync() == [6.0, 6.0]


def test_tidy_scope_and_tidy_nest_both_ways():
    with tf.tidy_scope() as scope:
        r = tf.tidy(lambda: tf.ones([2]).add(1))
        kept = scope.keep(tf.tidy(lambda: r.mul(2)))
    assert r.is_disposed and not kept.is_disposed

    def body():
        with tf.tidy_scope() as s:
            inner = s.keep(tf.ones([1]).add(2))
        return inner

    out = tf.tidy(body)
    assert out.array_sync() == [3.0]


def test_tidy_scope_closes_on_exception():
    engine = tf.engine()
    depth = len(engine.state.scope_stack)
    before = counts()
    with pytest.raises(ZeroDivisionError):
        with tf.tidy_scope() as scope:
            a = tf.ones([3])
            scope.keep(a)  # kept, but an error skips nothing: the scope still closes
            tf.ones([4])
            1 / 0  # noqa: B018
    assert len(engine.state.scope_stack) == depth
    assert counts() == (before[0] + 1, before[1] + 1, before[2] + 12)  # only the kept one
    assert not a.is_disposed


def test_tidy_scope_error_in_an_op_leaves_counts_as_before():
    before = counts()
    with pytest.raises(tf.TidyTensorError):
        with tf.tidy_scope():
            tf.ones([2]).add(1)
            tf.ones([2]).add(tf.ones([3]))  # shapes do not broadcast
    assert counts() == before


# ------------------------------------------------------------------ threads
def tidied_work(seed: int, n: int) -> list:
    """Scopes, nested tidies, views and kept results, as a thread or task might do."""
    kept = []
    for j in range(n):
        with tf.tidy_scope() as scope:
            a = tf.ones([4]).add(seed)  # converts the scalar: the general op path
            b = a.mul(a).sum()  # the fast path, then a reduction
            c = b.reshape([1]).clone()  # views share the buffer
            tf.tidy(lambda c=c: c.add(1).square())
            assert not a.is_disposed
            if j % 10 == 0:
                kept.append(scope.keep(c))
    return kept


def _values(results):
    return [[t.array_sync() for t in kept] for kept in results]


@pytest.fixture
def busy_switching():
    """Makes the interpreter switch threads as often as it can."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


def _run_threads(fn, n):
    results, errors = [None] * n, []
    start = threading.Barrier(n)

    def run(i):
        try:
            start.wait()
            results[i] = fn(i)
        except BaseException as exc:  # reported by the test
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results, errors


def _threads_match_sequential(n_threads=8, steps=150):
    base = full_counts()
    sequential = [tidied_work(i, steps) for i in range(n_threads)]
    expected_counts, expected_values = full_counts(), _values(sequential)
    tf.dispose(sequential)
    assert full_counts() == base
    for _ in range(3):
        results, errors = _run_threads(lambda i: tidied_work(i, steps), n_threads)
        assert errors == []
        assert full_counts() == expected_counts
        assert _values(results) == expected_values
        tf.dispose(results)
        assert full_counts() == base


def test_eight_threads_keep_counts_exact(busy_switching):
    # The kernel leak detector compares the backend's global buffer count around each
    # kernel, which other threads change: it is meant for one thread (see the next test).
    engine = tf.engine()
    engine.check_kernel_leaks = False
    engine.update_mode()
    _threads_match_sequential()


def test_eight_threads_with_the_kernel_leak_detector_on(busy_switching):
    """conftest turns the detector on for every test: threads must not trip it."""
    assert tf.engine().check_kernel_leaks
    _threads_match_sequential(steps=60)


def test_each_thread_has_its_own_scope_stack():
    opened, closed = threading.Event(), threading.Event()
    seen = {}

    def holder():
        with tf.tidy_scope("holder") as scope:
            t = tf.ones([2])
            opened.set()
            closed.wait(5)
            seen["alive"] = not t.is_disposed
            seen["active"] = tf.engine().state.active_scope.name
            scope.keep(t)
            seen["t"] = t

    def closer():
        opened.wait(5)
        with tf.tidy_scope("closer"):
            tf.ones([3])
        tf.engine().start_scope("left open")  # a thread's scopes are its own
        closed.set()

    threads = [threading.Thread(target=holder), threading.Thread(target=closer)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen["alive"] and seen["active"] == "holder"
    assert tf.engine().state.active_scope.name == "test"
    seen["t"].dispose()


# ------------------------------------------------------------------ asyncio
async def tidied_task(i: int, n: int = 4) -> list:
    kept = []
    for _ in range(n):
        async with tf.tidy_scope(f"task {i}") as scope:
            a = tf.ones([4]).add(i)
            await asyncio.sleep(0)  # other tasks open and close their scopes here
            b = a.mul(a).sum()
            await asyncio.sleep(0)
            assert not a.is_disposed and not b.is_disposed
            assert tf.engine().state.active_scope.name == f"task {i}"
            kept.append(scope.keep(b))
    return kept


def test_hundred_asyncio_tasks_match_the_sequential_run():
    base = full_counts()

    async def sequential():
        return [await tidied_task(i) for i in range(100)]

    async def concurrent():
        return await asyncio.gather(*(tidied_task(i) for i in range(100)))

    expected = asyncio.run(sequential())
    expected_counts, expected_values = full_counts(), _values(expected)
    tf.dispose(expected)
    assert full_counts() == base
    results = asyncio.run(concurrent())
    assert full_counts() == expected_counts
    assert _values(results) == expected_values
    tf.dispose(results)
    assert full_counts() == base
    assert tf.engine().state.active_scope.name == "test"


def test_async_scope_closes_when_its_task_fails():
    async def failing():
        async with tf.tidy_scope():
            tf.ones([8])
            await asyncio.sleep(0)
            raise ValueError("boom")

    async def main():
        return await asyncio.gather(failing(), tidied_task(1), return_exceptions=True)

    before = counts()
    error, kept = asyncio.run(main())
    assert isinstance(error, ValueError)
    assert counts() == (before[0] + 4, before[1] + 4, before[2] + 16)
    tf.dispose(kept)
    assert counts() == before


def test_tidy_scope_runs_in_a_fresh_context_without_any_scope(bare):
    def run():
        with tf.tidy_scope() as scope:
            return scope.keep(tf.ones([2]).add(1))

    t = contextvars.Context().run(run)
    assert t.array_sync() == [2.0, 2.0]
    t.dispose()
    assert counts() == (0, 0, 0)


def test_sync_tidy_scope_across_await_in_concurrent_tasks():
    """A plain ``with`` around an ``await``: each task must still get its own scope stack,
    or the first task to leave disposes the other task's tensors."""

    async def task(i, delay):
        with tf.tidy_scope() as scope:
            a = tf.ones([2]).add(i)
            await asyncio.sleep(delay)
            return scope.keep(a.sum())

    async def main():
        return await asyncio.gather(task(1, 0.01), task(2, 0.02))

    results = asyncio.run(main())
    assert [r.array_sync() for r in results] == [4.0, 6.0]
    tf.dispose(results)


# ================================================================== budgets
def allocate_big():
    return tf.ones([250])  # BIG_SITE


def test_budget_error_names_request_limit_live_total_and_largest_tensors(kernel_path, no_limit):
    big = allocate_big()  # 1000 bytes
    small = tf.ones([10])  # 40 bytes
    config.set_memory_limit(1500)
    before, info_before = counts(), config.get_memory_info()
    with pytest.raises(tf.ResourceExhaustedError) as caught:
        tf.zeros([200])  # 800 bytes: 1840 > 1500
    message = str(caught.value)
    assert message.startswith(
        "Allocating 800 bytes for a float32 tensor of shape [200] in 'zeros' would take live tensor "
        "memory to 1840 bytes, past the limit of 1500 bytes (1040 bytes are live). Nothing "
        "was allocated; free tensors and try again.\nLargest live tensors:\n"
    ), message
    lines = message.splitlines()[2:]
    assert re.fullmatch(
        rf"  Tensor {big.id} shape=\[250\] dtype=float32: 1000 bytes, created at "
        rf"\S*{HERE}:{line_of('BIG_SITE')} in allocate_big",
        lines[0],
    ), lines[0]
    assert lines[1].startswith(f"  Tensor {small.id} shape=[10] dtype=float32: 40 bytes")
    assert isinstance(caught.value, MemoryError)
    # Nothing changed.
    assert counts() == before
    assert config.get_memory_info() == info_before
    assert tf.engine().backend.num_data_ids() == before[1]


def test_budget_error_in_an_op_frees_its_temporaries_and_work_succeeds_after_freeing(
    kernel_path, no_limit
):
    x = tf.ones([100])  # 400
    spare = tf.ones([150])  # 600
    config.set_memory_limit(1500)

    def work():  # needs 400 (x + 1) + 4 (the scalar 2) + 400 more at its peak
        return tf.tidy(lambda: x.add(1).mul(2).sum())

    before = full_counts()
    with pytest.raises(tf.ResourceExhaustedError, match=r"Allocating 400 bytes"):
        work()
    assert full_counts() == before
    spare.dispose()
    result = work()
    assert result.array_sync() == 400.0
    assert config.get_memory_info()["peak"] <= 1500


def test_views_need_no_budget(kernel_path, no_limit):
    x = tf.ones([100])
    config.set_memory_limit(400)
    y = x.reshape([10, 10])  # a second handle on the same buffer
    assert config.get_memory_info()["current"] == 400
    with pytest.raises(tf.ResourceExhaustedError):
        x.add(1)
    y.dispose()


def test_limit_equal_to_live_bytes_is_allowed_and_none_removes_it(no_limit):
    config.set_memory_limit(800)
    a = tf.ones([100])
    b = tf.ones([100])  # exactly 800
    with pytest.raises(tf.ResourceExhaustedError):
        tf.ones([1])
    config.set_memory_limit(None)
    assert config.get_memory_limit() is None
    c = tf.ones([1000])
    tf.dispose([a, b, c])


def test_limit_below_live_bytes_blocks_new_buffers_but_not_freeing(no_limit):
    a = tf.ones([100])
    config.set_memory_limit(100)
    with pytest.raises(tf.ResourceExhaustedError, match=r"\(400 bytes are live\)"):
        tf.ones([1])
    a.dispose()
    b = tf.ones([25])  # 100 bytes: fits now
    assert config.get_memory_info() == {"current": 100, "peak": 400, "limit": 100}
    b.dispose()


def test_budget_applies_to_every_way_of_making_a_tensor(no_limit):
    config.set_memory_limit(100)
    with pytest.raises(tf.ResourceExhaustedError):
        tf.tensor([0.0] * 30)
    with pytest.raises(tf.ResourceExhaustedError):
        tf.buffer([30]).to_tensor()
    assert counts() == (0, 0, 0)


def test_set_memory_limit_rejects_bad_values(no_limit):
    with pytest.raises(InvalidArgumentError, match=r"bytes >= 0 or None, got -1"):
        config.set_memory_limit(-1)
    with pytest.raises(InvalidArgumentError):
        config.set_memory_limit("1GB")
    assert config.get_memory_limit() is None


def test_logical_device_configuration_sets_a_limit_in_megabytes(no_limit):
    [cpu] = config.list_physical_devices("CPU")
    assert cpu.name == "/physical_device:CPU:0" and cpu.device_type == "CPU"
    assert config.list_physical_devices("GPU") == []
    config.set_logical_device_configuration(
        cpu, [config.LogicalDeviceConfiguration(memory_limit=1)]
    )
    assert config.get_memory_info("CPU:0")["limit"] == 1024 * 1024
    a = tf.zeros([200_000])  # 800,000 bytes
    with pytest.raises(tf.ResourceExhaustedError, match=r"past the limit of 1048576 bytes"):
        tf.zeros([100_000])
    a.dispose()
    config.set_logical_device_configuration(
        "/device:CPU:0", [config.LogicalDeviceConfiguration(memory_limit=None)]
    )
    assert config.get_memory_limit() is None


def test_logical_device_configuration_errors(no_limit):
    with pytest.raises(InvalidArgumentError, match="Unknown device 'TPU:0'"):
        config.set_logical_device_configuration(
            "TPU:0", [config.LogicalDeviceConfiguration(memory_limit=1)]
        )
    with pytest.raises(InvalidArgumentError, match="exactly one logical device"):
        config.set_logical_device_configuration(
            "CPU:0",
            [config.LogicalDeviceConfiguration(1), config.LogicalDeviceConfiguration(1)],
        )
    with pytest.raises(InvalidArgumentError, match="Unknown device"):
        config.get_memory_info("GPU:7")


def test_get_memory_info_and_reset_memory_stats():
    assert config.get_memory_info() == {"current": 0, "peak": 0, "limit": None}
    a = tf.ones([100])
    b = a.reshape([4, 25])  # a view: no new buffer bytes
    c = tf.ones([50])
    assert config.get_memory_info() == {"current": 600, "peak": 600, "limit": None}
    c.dispose()
    assert config.get_memory_info()["current"] == 400
    assert config.get_memory_info()["peak"] == 600
    config.reset_memory_stats()
    assert config.get_memory_info()["peak"] == 400
    d = tf.ones([10])
    assert config.get_memory_info()["peak"] == 440
    tf.dispose([a, b, d])
    assert config.get_memory_info()["current"] == 0


def test_config_is_a_package_attribute():
    """``tf.config`` as TF spells it, not only ``from tidytensor import config``."""
    import subprocess

    code = "import tidytensor as tf; tf.config.set_memory_limit(None); print(tf.config.get_memory_info())"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "{'current': 0, 'peak': 0, 'limit': None}"


# ================================================================== profile and timeline
def test_profile_records_scope_names_per_kernel():
    x = tf.ones([4])

    def fn():
        with tf.tidy_scope("outer block") as scope:
            y = x.square()
            return scope.keep(tf.tidy("inner", lambda: y.sum()))

    info = tf.profile(fn)
    assert [(k.name, k.scope) for k in info.kernels] == [
        ("Square", "outer block"),
        ("Sum", "inner"),
    ]
    info.result.dispose()


def test_timeline_events_follow_the_kernels():
    x = tf.ones([8])

    def fn():
        with tf.tidy_scope("step"):
            x.square().add(x).sum()
        return x.mul(2)

    info = tf.profile(fn)
    events = viz.timeline(info)
    kernels = [e for e in events if e.kind == "kernel"]
    assert [e.name for e in kernels] == [k.name for k in info.kernels]
    assert [(e.bytes, e.tensors) for e in kernels] == [
        (k.total_bytes_snapshot, k.total_tensors_snapshot) for k in info.kernels
    ]
    assert [e.index for e in events] == list(range(len(events)))
    assert all(e.end_ms >= e.start_ms >= 0 for e in events)
    for earlier, later in zip(kernels, kernels[1:], strict=False):
        assert later.start_ms >= earlier.end_ms - 1e-9
    assert [e.scope for e in kernels] == ["step", "step", "step", "test"]  # conftest's scope
    info.result.dispose()


def test_profile_timeline_has_scope_boundaries_and_the_drop_when_a_scope_ends():
    x = tf.ones([8])

    def fn():
        for i in range(2):
            with tf.tidy_scope(f"step {i}"):
                x.square().add(x)
        return x.mul(2)

    info = tf.profile(fn)
    timeline = info.timeline
    assert [(e.kind, e.name) for e in timeline] == [
        ("scope_start", "step 0"),
        ("kernel", "Square"),
        ("kernel", "Add"),
        ("scope_end", "step 0"),
        ("scope_start", "step 1"),
        ("kernel", "Square"),
        ("kernel", "Add"),
        ("scope_end", "step 1"),
        ("kernel", "Multiply"),
    ]
    # Live totals right after each event: the scope's end frees its two tensors.
    assert [e.tensors for e in timeline] == [1, 2, 3, 1, 1, 2, 3, 1, 3]  # mul(2) holds its scalar
    assert [e.bytes for e in timeline] == [32, 64, 96, 32, 32, 64, 96, 32, 68]
    starts = [e.start_ms for e in timeline]
    assert starts == sorted(starts)
    assert [e.scope_id is not None for e in timeline] == [True] * 8 + [True]
    assert (info.start_bytes, info.start_tensors) == (32, 1)
    info.result.dispose()


def _is_png(path: Path) -> bool:
    return path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_memory_timeline_draws_a_png_from_a_function(tmp_path):
    pytest.importorskip("matplotlib")
    w = tf.ones([16, 16])

    def fn():
        outs = []
        for i in range(3):
            with tf.tidy_scope(f"step {i}") as scope:
                outs.append(scope.keep(w.mat_mul(w).relu().mean()))
        total = tf.add_n(outs)
        tf.dispose(outs)
        return total

    path = tmp_path / "timeline.png"
    info = viz.memory_timeline(fn, path)
    assert _is_png(path) and path.stat().st_size > 10_000
    assert info.result.array_sync() == 48.0  # fn ran once; its result is the caller's
    assert [k.name for k in info.kernels].count("BatchMatMul") == 3
    info.result.dispose()


def test_memory_timeline_draws_a_given_profile_many_kernels_and_no_kernels(tmp_path):
    pytest.importorskip("matplotlib")
    x = tf.ones([4])
    many = tf.profile(lambda: tf.tidy(lambda: [x.add(i).dispose() for i in range(60)]))
    assert viz.memory_timeline(many, tmp_path / "many.png", title="sixty adds") is many
    assert _is_png(tmp_path / "many.png")
    empty = tf.profile(lambda: None)
    viz.memory_timeline(empty, tmp_path / "empty.png")
    assert _is_png(tmp_path / "empty.png")


def test_memory_timeline_rejects_what_it_cannot_draw(tmp_path):
    pytest.importorskip("matplotlib")
    with pytest.raises(ArgumentTypeError, match="takes a tf.profile\\(\\) result or a function"):
        viz.memory_timeline(42, tmp_path / "x.png")


def test_memory_timeline_without_matplotlib_names_the_extra(monkeypatch, tmp_path):
    for name in list(sys.modules):
        if name == "matplotlib" or name.startswith("matplotlib."):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now fails
    info = tf.profile(lambda: None)
    with pytest.raises(ImportError, match=re.escape("pip install tidytensor[viz]")):
        viz.memory_timeline(info, tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()


def test_the_guides_timeline_example_runs(tmp_path):
    """docs/memory.md's example draws docs/memory_timeline.png; here, to a temporary file."""
    pytest.importorskip("matplotlib")
    guide = (Path(__file__).resolve().parents[1] / "docs" / "memory.md").read_text()
    [code] = [
        block
        for block in re.findall(r"```python\n(.*?)```", guide, flags=re.S)
        if "docs/memory_timeline.png" in block
    ]
    before = counts()
    exec(code.replace("docs/memory_timeline.png", str(tmp_path / "t.png")), {})  # noqa: S102
    assert _is_png(tmp_path / "t.png")
    assert counts() == before  # the example frees everything it makes


# ================================================================== debug mode
@contextlib.contextmanager
def debug_warning(text):
    """Expects debug mode's warning; NumPy's own floating-point warnings from the kernels
    (which the package filters out) stay filtered inside ``pytest.warns``."""
    with pytest.warns(RuntimeWarning, match=re.escape(text)) as caught:
        warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"tidytensor\.backends\.")
        yield caught


def test_debug_mode_warns_on_nan_naming_kernel_and_input_shapes(kernel_path, debug_off):
    a, z = tf.tensor([1.0, 0.0]), tf.zeros([2])
    tf.enable_debug_mode()
    with debug_warning("Found NaN in the result of 'RealDiv' (input shapes: [2], [2])"):
        a.div(z)
    with debug_warning("Found Infinity in the result of 'Log' (input shapes: [2, 1])"):
        tf.log(tf.tensor2d([[0.0], [1.0]]))
    with debug_warning("Found NaN in the result of 'RealDiv' (input shapes: [2], [])"):
        tf.div(z, 0)


def test_debug_mode_is_quiet_for_finite_and_non_float_results(debug_off):
    tf.enable_debug_mode()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tf.tensor([1.0, 2.0]).add(1).sqrt()
        tf.tensor([1, 2], None, "int32").floor_div(tf.tensor([0, 1], None, "int32"))


def test_debug_mode_off_checks_nothing(debug_off):
    tf.enable_debug_mode()
    tf.disable_debug_mode()
    assert not tf.engine().debug_mode
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"tidytensor\.backends\.")
        tf.tensor([0.0]).div(tf.zeros([1]))


def test_debug_mode_warning_points_at_the_users_line(debug_off):
    tf.enable_debug_mode()
    with debug_warning("Found NaN") as caught:
        tf.zeros([1]).div(tf.zeros([1]))  # DEBUG_LINE
    [w] = [w for w in caught if "Found NaN" in str(w.message)]
    assert (Path(w.filename).name, w.lineno) == (Path(__file__).name, line_of("DEBUG_LINE"))
