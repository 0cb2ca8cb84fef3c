"""The fast op path taken when nothing watches kernels (no leak detector, profile, tape or
debug mode): ``add``/``sub``/``mul``/``div`` on float32 tensors of one shape run the kernel's
math on the buffers and make one handle. The rest of the suite runs with the kernel leak
detector on, which sends every op down the watched path; here it is off, and each result,
count, creation site and error is compared with the watched path's."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tidytensor as tf
from tidytensor import sites
from tidytensor.engine import ENGINE
from tidytensor.errors import ResourceExhaustedError, TensorDisposedError

OPS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}


@pytest.fixture
def unwatched(monkeypatch):
    """Kernel leak detector off for the test (the suite's conftest turns it on); counts the
    calls of the same-shape shortcuts, by kernel name."""
    calls: dict[str, int] = {}

    def counting(name, fast):
        def spy(ra, rb):
            calls[name] = calls.get(name, 0) + 1
            return fast(ra, rb)

        return spy

    ENGINE.backend  # noqa: B018 - initialize the backend (it rebuilds the kernel tables)
    spied = {name: counting(name, fast) for name, fast in ENGINE._same_shape_kernels.items()}
    monkeypatch.setattr(ENGINE, "_same_shape_kernels", spied)
    ENGINE.check_kernel_leaks = False
    ENGINE.update_mode()
    assert not ENGINE._slow
    yield calls
    ENGINE.check_kernel_leaks = True
    ENGINE.update_mode()


def _counts():
    m = tf.memory()
    return m.num_tensors, m.num_data_buffers, m.num_bytes


def _run(name, a, b, watched: bool):
    ENGINE.check_kernel_leaks = watched
    ENGINE.update_mode()
    before = _counts()
    out = getattr(tf, name)(a, b)
    after = _counts()
    return out, tuple(x - y for x, y in zip(after, before, strict=True))


@pytest.mark.parametrize("name", sorted(OPS))
@pytest.mark.parametrize("shape", [(), (5,), (3, 4)], ids=str)
def test_results_and_counts_match_the_watched_path(unwatched, name, shape):
    rng = np.random.default_rng(3)
    x = rng.standard_normal(shape).astype(np.float32)
    y = rng.standard_normal(shape).astype(np.float32)
    a, b = tf.tensor(x), tf.tensor(y)
    assert a.data_id.shape is a._shape  # the fast path's precondition holds for fresh tensors
    fast, fast_delta = _run(name, a, b, watched=False)
    kernel = {"add": "Add", "sub": "Sub", "mul": "Multiply", "div": "RealDiv"}[name]
    assert unwatched == {kernel: 1}
    slow, slow_delta = _run(name, a, b, watched=True)
    assert unwatched == {kernel: 1}
    assert fast_delta == slow_delta == (1, 1, 4 * max(1, x.size))
    assert fast.dtype == slow.dtype == "float32" and fast.shape == slow.shape == list(shape)
    assert fast.numpy().tobytes() == slow.numpy().tobytes()
    assert fast.numpy().tobytes() == OPS[name](x, y).astype(np.float32).tobytes()
    tf.dispose([a, b, fast, slow])


def test_result_is_tracked_by_the_scope_and_created_on_the_users_line(unwatched):
    a, b = tf.tensor([1.0, 2.0]), tf.tensor([3.0, 4.0])
    with tf.tidy_scope():
        c = tf.add(a, b)  # the line the site must name
        line = c._site[0].co_firstlineno  # the test function's code object
        assert c._site[0].co_filename == __file__
        assert sites.line_of(c._site) > line
    assert c.is_disposed and tf.memory().num_tensors == 2
    tf.dispose([a, b])


def test_pinned_site_and_methods_take_the_fast_path_too(unwatched):
    a, b = tf.tensor([1.0, 2.0]), tf.tensor([3.0, 4.0])
    with ENGINE.pin_site():
        c = a.mul(b)
    assert c.array_sync() == [3.0, 8.0] and unwatched == {"Multiply": 1}
    assert c._site[0].co_filename == __file__
    tf.dispose([a, b, c])


def test_other_inputs_fall_back_to_the_general_path(unwatched):
    a = tf.tensor([[1.0, 2.0], [3.0, 4.0]])
    row = tf.tensor([10.0, 20.0])
    ints = tf.tensor([1, 2], dtype="int32")
    assert tf.add(a, row).array_sync() == [[11.0, 22.0], [13.0, 24.0]]
    assert tf.mul(ints, ints).dtype == "int32"
    assert tf.sub(row, 1).array_sync() == [9.0, 19.0]
    view = a.reshape([4])  # shares a's buffer, whose record keeps the [2, 2] shape
    assert view.data_id.shape != view._shape
    assert tf.add(view, view).array_sync() == [2.0, 4.0, 6.0, 8.0]
    assert unwatched == {}


def test_disposed_input_raises_naming_the_op(unwatched):
    a, b = tf.tensor([1.0]), tf.tensor([2.0])
    b.dispose()
    with pytest.raises(TensorDisposedError, match="'add'"):
        tf.add(a, b)
    a.dispose()


def test_memory_limit_refuses_before_counting(unwatched):
    a, b = tf.tensor(np.ones(64, np.float32)), tf.tensor(np.ones(64, np.float32))
    before = _counts()
    tf.config.set_memory_limit(600)  # a and b hold 512 bytes; one more 256-byte buffer is over
    try:
        with pytest.raises(ResourceExhaustedError):
            tf.add(a, b)
    finally:
        tf.config.set_memory_limit(None)
    assert _counts() == before
    assert ENGINE.backend.num_data_ids() == 2
    tf.dispose([a, b])


def test_floating_point_warnings_as_errors_still_give_ieee_results(unwatched):
    a, b = tf.tensor([1.0, 0.0]), tf.tensor([0.0, 0.0])
    with warnings.catch_warnings(), np.errstate(all="raise"):
        warnings.simplefilter("error")
        out = tf.div(a, b).array_sync()
    assert out[0] == float("inf") and np.isnan(out[1])


def test_outside_any_scope_the_result_is_untracked(unwatched):
    a, b = tf.tensor([1.0]), tf.tensor([2.0])
    seen = {}

    def worker():  # a new thread has no active scope
        c = tf.add(a, b)
        seen["scope"] = c.scope_id
        seen["value"] = c.array_sync()
        c.dispose()

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert seen == {"scope": None, "value": [3.0]}
    tf.dispose([a, b])


@given(
    hnp.arrays(
        np.float32,
        hnp.array_shapes(min_dims=0, max_dims=3, max_side=4),
        elements=st.floats(-1e6, 1e6, width=32),
    ),
    st.sampled_from(sorted(OPS)),
)
def test_fast_path_equals_numpy(x, name):
    ENGINE.check_kernel_leaks = False
    ENGINE.update_mode()
    try:
        a, b = tf.tensor(x), tf.tensor(x[::-1].copy() if x.ndim else x)
        y = b.numpy()
        with np.errstate(all="ignore"):
            want = OPS[name](x, y).astype(np.float32)
        got = getattr(tf, name)(a, b).numpy()
        np.testing.assert_array_equal(got, want)
        tf.dispose([a, b])
    finally:
        ENGINE.check_kernel_leaks = True
        ENGINE.update_mode()
