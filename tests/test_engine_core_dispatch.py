"""The per-op path in the core (issue 16): the fast op (``_handles.fast_op``), the one route
of kernel calls (``dispatch``, ``run_kernel``), the same-shape kernels, a scope's end
(``dispose_scope``), buffer disposal (``dispose_record``), creation sites and the leak
finalizer. Run on both cores, as tests/test_engine_core.py:

    python -m pytest tests/test_engine_core_dispatch.py --engine-core=compiled
    TIDYTENSOR_PURE_PYTHON=1 python -m pytest tests/test_engine_core_dispatch.py --engine-core=python

The suite's conftest turns the kernel leak detector on, which sends every op down the
watched route; the ``unwatched`` fixture turns it off, so the fast path runs.
"""

from __future__ import annotations

import asyncio
import gc
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tidytensor as tf
from tidytensor import _handles, sites
from tidytensor.backends.array_backend import DataId
from tidytensor.engine import ENGINE

COMPILED = ENGINE.core == "compiled"
OPS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}


@pytest.fixture
def unwatched():
    ENGINE.backend  # noqa: B018 - initialize the backend
    ENGINE.check_kernel_leaks = False
    ENGINE.update_mode()
    assert not ENGINE._slow
    yield
    ENGINE.check_kernel_leaks = True
    ENGINE.update_mode()


@pytest.fixture
def bare():
    """Closes the scope conftest opened for the test: tensors made now belong to no scope."""
    while ENGINE.state.scope_stack:
        ENGINE.end_scope()


def _counts():
    m = tf.memory()
    return m.num_tensors, m.num_data_buffers, m.num_bytes


def test_fast_ops_are_the_cores_and_keep_their_names_and_docs():
    for name in OPS:
        op = getattr(tf, name)
        assert op.__name__ == name and op.__wrapped__.__name__ == name
        assert op.__doc__ and op.op_name == name
        assert type(op).__name__ == ("FastOp" if COMPILED else "function")


def test_fast_ops_pickle_by_name_and_show_their_signature():
    import inspect
    import pickle

    assert pickle.loads(pickle.dumps(tf.add)) is tf.add
    assert list(inspect.signature(tf.div).parameters) == ["a", "b"]


def test_a_fast_op_outside_any_scope_makes_one_handle_of_no_scope(bare, unwatched):
    a, b = tf.scalar(1.5), tf.scalar(2.25)
    before = _counts()
    c = tf.add(a, b)
    assert _counts() == (before[0] + 1, before[1] + 1, before[2] + 4)
    assert c.scope_id is None and c.data_sync().tolist() == [3.75]
    tf.dispose([a, b, c])
    assert _counts() == (before[0] - 2, before[1] - 2, before[2] - 8)


@pytest.mark.parametrize("watched", [False, True], ids=["unwatched", "watched"])
def test_calls_off_the_fast_path_run_the_op_body(unwatched, watched):
    ENGINE.check_kernel_leaks = watched
    ENGINE.update_mode()
    x = tf.tensor([[1.0, 2.0], [3.0, 4.0]])
    y = tf.tensor([10.0, 20.0])
    i = tf.tensor([1, 2], dtype="int32")
    assert tf.add(x, y).array_sync() == [[11.0, 22.0], [13.0, 24.0]]  # broadcast
    assert tf.add(a=x, b=x).array_sync() == [[2.0, 4.0], [6.0, 8.0]]  # keywords
    assert tf.add(i, i).dtype == "int32" and tf.add(i, i).array_sync() == [2, 4]
    assert tf.mul(x, 2).array_sync() == [[2.0, 4.0], [6.0, 8.0]]  # a number
    with pytest.raises(tf.errors.TidyTensorError, match="add"):
        tf.add(x, tf.tensor([1.0, 2.0, 3.0]))


def test_a_disposed_input_is_reported_on_the_fast_path(unwatched):
    a, b = tf.scalar(1.0), tf.scalar(2.0)
    a.dispose()
    with pytest.raises(tf.errors.TensorDisposedError):
        tf.add(a, b)


def _line_of(t):
    return sites.line_of(t._site)


def test_creation_sites_are_the_callers_lines_in_a_loop(unwatched):
    a, b = tf.scalar(1.0), tf.scalar(2.0)
    made = []
    for _ in range(3):  # the same two lines, alternating: each keeps its own site
        made.append(tf.add(a, b))
        made.append(tf.sub(a, b))
    first = made[0]._site[0].co_firstlineno
    lines = [_line_of(t) for t in made]
    assert lines[0::2] == [lines[0]] * 3 and lines[1::2] == [lines[0] + 1] * 3
    assert lines[0] > first and made[0]._site[0] is test_creation_sites_are_the_callers_lines_in_a_loop.__code__
    chained = a.add(b)  # a library frame calls the op: the site is still this line
    assert chained._site[0] is made[0]._site[0] and _line_of(chained) == lines[0] + 7 - 1
    assert "test_engine_core_dispatch.py" in sites.format_site(chained._site)


def test_site_tracking_off_leaves_no_site(unwatched):
    ENGINE.track_sites = False
    try:
        t = tf.add(tf.scalar(1.0), tf.scalar(2.0))
    finally:
        ENGINE.track_sites = True
    assert t._site is None


@pytest.mark.parametrize("returned", [1, 3, 6])
def test_a_scope_end_keeps_what_it_returns_and_kept_handles(unwatched, returned):
    a = tf.scalar(1.0)
    kept: list = []

    def body():
        made = [tf.add(a, a) for _ in range(8)]
        kept.append(tf.keep(tf.add(a, a)))
        made[0].dispose()
        return made[1 : 1 + returned]

    before = tf.memory().num_tensors
    out = tf.tidy(body)
    assert tf.memory().num_tensors == before + returned + 1
    assert all(not t.is_disposed for t in out) and not kept[0].is_disposed
    scope_id = ENGINE.state.active_scope.id
    assert all(t.scope_id == scope_id for t in out)
    tf.dispose(out + kept)


def test_a_scope_end_notes_the_disposal_for_a_use_after_dispose(unwatched):
    inner: list = []
    tf.tidy("my scope", lambda: inner.append(tf.add(tf.scalar(1.0), tf.scalar(2.0))))
    with pytest.raises(tf.errors.TensorDisposedError, match="my scope"):
        inner[0].data_sync()


def test_dispatch_and_run_kernel_are_the_engines_route():
    assert ENGINE._dispatch.__name__ == "dispatch" and ENGINE.run_kernel.__name__ == "run_kernel"
    x = tf.tensor([1.0, -2.0])
    out = ENGINE.run_kernel("Abs", (x,))
    assert out.array_sync() == [1.0, 2.0]
    pair = ENGINE.run_kernel("Unpack", (tf.tensor([[1.0, 2.0], [3.0, 4.0]]),), {"axis": 0})
    assert [t.array_sync() for t in pair] == [[1.0, 2.0], [3.0, 4.0]]
    x.dispose()
    with pytest.raises(tf.errors.TensorDisposedError):
        ENGINE.run_kernel("Abs", (x,))


def test_the_same_shape_kernel_records_scalars_and_arrays():
    backend = ENGINE.backend
    kernel = ENGINE._same_shape_kernels["Add"]
    assert isinstance(kernel, _handles.SameShapeKernel)
    count = backend.num_data_ids()
    for values in (np.float32(1.5), np.arange(6, dtype=np.float32).reshape(2, 3)):
        ra = DataId.__new__(DataId)
        ra.values, ra.refs, ra.backend, ra.shape, ra.dtype = values, 1, backend, values.shape, "float32"
        rec = kernel(ra, ra)
        assert type(rec) is DataId and rec.refs == 1 and rec.backend is backend
        assert (rec.shape, rec.dtype, rec.nbytes) == (values.shape, "float32", values.nbytes)
        assert np.asarray(rec.values).tobytes() == (values + values).tobytes()
        assert backend.num_data_ids() == count + 1
        assert backend.dispose_data(rec) and rec.values is None and rec.refs == 0
        assert backend.num_data_ids() == count
    bad = DataId.__new__(DataId)
    bad.values = "not an array"
    assert kernel(bad, ra) is None  # the kernel raised: the caller takes the general path


def test_dispose_record_frees_at_zero_or_when_forced():
    backend = ENGINE.backend
    assert backend.stock_dispose and backend.dispose_data is not None
    count = backend.num_data_ids()
    rec = backend.write(np.array([1.0, 2.0], np.float32), (2,), "float32")  # no handle
    backend.inc_ref(rec)
    assert backend.num_data_ids() == count + 1
    assert not backend.dispose_data(rec) and rec.refs == 1
    assert backend.dispose_data(rec, True) and rec.refs == 0 and rec.values is None
    assert backend.num_data_ids() == count


def test_kernel_tables_are_ready_before_a_backend_is_published(monkeypatch):
    seen = []
    rebuild = type(ENGINE)._rebuild_kernel_table

    def spy(self, setup=True, backend=None, name=None):
        rebuild(self, setup, backend, name)
        seen.append(self._backend is backend and backend is not None)

    monkeypatch.setattr(type(ENGINE), "_rebuild_kernel_table", spy)
    ENGINE.set_backend("cpu")
    assert seen and not seen[0], "the backend was active before its kernel table was built"
    assert "Add" in ENGINE._kernel_source[2] and ENGINE._kernel_source[1] is ENGINE._backend


def test_a_handle_collected_undisposed_is_reported_by_the_finalizer(bare, recwarn):
    def make():
        tf.add(tf.scalar(1.0), tf.scalar(2.0))
        tf.keep(tf.scalar(3.0)).dispose()
        initial = tf.scalar(4.0)
        tf.variable(initial)  # variables are never reported
        initial.dispose()

    make()
    gc.collect()
    assert [g.count for g in tf.leaks()] == [3]
    assert tf.dispose_leaked() == 3
    for v in list(ENGINE.state.registered_variables.values()):
        v.dispose()
    assert tf.memory().num_tensors == 0


def test_threads_run_the_fast_path_in_their_own_scopes(unwatched):
    errors: list = []
    a = tf.scalar(1.0)

    def worker():
        try:
            for _ in range(200):
                kept = tf.tidy(lambda: tf.keep(tf.add(tf.add(a, a), a)))
                assert kept.array_sync() == 3.0
                kept.dispose()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    before = tf.memory().num_tensors
    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert tf.memory().num_tensors == before


def test_asyncio_tasks_keep_their_own_scopes_on_the_fast_path(unwatched):
    a = tf.scalar(2.0)

    async def task(n):
        async with tf.tidy_scope():
            for _ in range(n):
                tf.add(a, a)
                await asyncio.sleep(0)
            return tf.memory().num_tensors

    async def main():
        return await asyncio.gather(task(5), task(7))

    before = tf.memory().num_tensors
    asyncio.run(main())
    assert tf.memory().num_tensors == before


def test_profile_and_tape_see_fast_op_kernels(unwatched):
    a, b = tf.scalar(1.0), tf.scalar(2.0)
    info = tf.profile(lambda: tf.mul(a, b))
    assert [k.name for k in info.kernels] == ["Multiply"]
    assert tf.grad(lambda x: tf.mul(x, b))(a).array_sync() == 2.0


@settings(max_examples=40)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(sorted(OPS) + ["dispose", "keep", "tidy"]),
            st.integers(0, 1000),
            st.integers(0, 1000),
        ),
        max_size=25,
    ),
    st.sampled_from([(), (3,), (2, 2)]),
)
def test_fast_path_programs_keep_counts_and_values(ops, shape):
    """Random programs of fast ops, disposals, keeps and tidies, unwatched: the counters
    follow a model and every value is NumPy's, bit for bit."""
    ENGINE.check_kernel_leaks = False
    ENGINE.update_mode()
    try:
        base = tf.memory().num_tensors
        rng = np.random.default_rng(len(ops))
        values = [rng.standard_normal(shape).astype(np.float32) for _ in range(2)]
        live = [(tf.tensor(v), v) for v in values]
        for kind, i, j in ops:
            t, v = live[i % len(live)]
            if kind in OPS:
                u, w = live[j % len(live)]
                with np.errstate(all="ignore"):
                    expected = OPS[kind](v, w).astype(np.float32)
                out = getattr(tf, kind)(t, u)
                assert out.numpy().tobytes() == expected.tobytes()
                live.append((out, expected))
            elif kind == "dispose" and len(live) > 1:
                live.pop(i % len(live))[0].dispose()
            elif kind == "keep":
                tf.keep(t)
            elif kind == "tidy":
                got = tf.tidy(lambda t=t: tf.add(t, t))
                assert got.numpy().tobytes() == (v + v).tobytes()
                live.append((got, v + v))
            assert tf.memory().num_tensors == base + len(live)
        tf.dispose([t for t, _ in live])
        assert tf.memory().num_tensors == base
    finally:
        ENGINE.check_kernel_leaks = True
        ENGINE.update_mode()
