"""The quick route of a one-row compiled ``predict`` (issue 15): the per-op core's
``QuickReplay`` (``_replay_core.pxi``, and its twin ``_handles_py.QuickReplay``) runs the
replay's bind, kernels, output record and handle in one call, and the core's ``call_site``
finds the creation and disposal sites. Run on both engines (CI does):

    python -m pytest tests/layers/test_predict_quick_route.py --engine-core=compiled
    TIDYTENSOR_PURE_PYTHON=1 python -m pytest ... --engine-core=python
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
from predict_models import seeded, values

import tidytensor as tf
import tidytensor.layers as L
from tidytensor import _handles
from tidytensor.compiled.replay import ReplayRefused
from tidytensor.sites import line_of

ENGINE = tf.engine()
RNG = np.random.default_rng(151)
ROWS = RNG.normal(size=(3, 784)).astype("float32")

pytestmark = pytest.mark.usefixtures("compiled_functions")


def mlp(run_eagerly=False):
    model = L.models.sequential()
    model.add(L.dense(units=128, input_shape=[784], activation="relu"))
    model.add(L.dense(units=10))
    return seeded(model, run_eagerly, scale=0.1)


def remembered(model, row):
    """The replay (``Replay``) the model's predict shortcut remembers after two calls."""
    for _ in range(2):
        tf.dispose(model.predict(row))
    (entry,) = model.model._predict_shortcut.known.values()
    fn, known, one = entry
    assert one
    return known[1]


def counters():
    state = ENGINE.state
    return (
        state.num_tensors,
        state.num_bytes,
        state.num_data_buffers,
        state.buffer_bytes,
        ENGINE.backend._num_ids,
    )


def test_a_one_row_predict_has_the_cores_quick_route(cleanup):
    model = cleanup(mlp())
    row = tf.tensor(ROWS[:1])
    replay = remembered(model, row)
    assert isinstance(replay.quick, _handles.QuickReplay)  # the active core's own
    eager = cleanup(mlp(run_eagerly=True))
    expected = values(eager.predict(row))
    before = counters()
    out = replay.quick([row], None)
    assert counters() == (
        before[0] + 1,
        before[1] + 40,
        before[2] + 1,
        before[3] + 40,
        before[4] + 1,
    )
    np.testing.assert_array_equal(values(out), expected)
    assert out.shape == [1, 10] and out.dtype == "float32"
    out.dispose()
    assert counters() == before
    row.dispose()


def test_the_quick_bind_gives_the_generated_binds_arrays(cleanup):
    model = cleanup(mlp())
    row = tf.tensor(ROWS[:1])
    replay = remembered(model, row)
    quick, python = replay.quick.bind([row]), replay.bind([row])
    assert len(quick) == len(python) == 5
    for a, b in zip(quick, python, strict=True):
        assert a.shape == b.shape and a.dtype == b.dtype
        assert np.shares_memory(a, b)  # views of the same buffers, no copy
    row.dispose()


@pytest.mark.parametrize("which", ["argument", "variable"])
def test_the_quick_bind_refuses_a_disposed_handle_as_the_generated_one(cleanup, which):
    model = cleanup(mlp())
    row = tf.tensor(ROWS[:1])
    replay = remembered(model, row)
    if which == "argument":
        gone = tf.tensor(ROWS[:1])
        gone.dispose()
        leaves = [gone]
    else:
        leaves = [row]
        model.weights[0].read().data_id.refs -= 1  # its buffer freed under it
    before = counters()
    refusals = []
    for bind in (replay.bind, replay.quick.bind, lambda leaves: replay.quick(leaves, None)):
        with pytest.raises(ReplayRefused) as info:
            bind(leaves)
        refusals.append(info.value.stale)
    assert refusals == [which == "variable"] * 3  # a captured handle: the trace is stale
    assert counters() == before  # nothing ran
    if which == "variable":
        model.weights[0].read().data_id.refs += 1
    row.dispose()


def test_the_quick_bind_refuses_a_buffer_on_another_backend(cleanup):
    model = cleanup(mlp())
    row = tf.tensor(ROWS[:1])
    replay = remembered(model, row)
    rec = row.data_id
    saved = rec.backend
    rec.backend = object()  # another backend's buffer
    try:
        for bind in (replay.bind, replay.quick.bind):
            with pytest.raises(ReplayRefused) as info:
                bind([row])
            assert info.value.stale is False
    finally:
        rec.backend = saved
    row.dispose()


def test_the_quick_route_steps_aside_for_a_budget_an_alert_or_released_scratch(cleanup):
    """None (nothing ran, nothing counted) wherever the general route must check memory or
    allocate the scratch arrays; ``predict`` then gives the same bits the general way."""
    model = cleanup(mlp())
    row = tf.tensor(ROWS[:1])
    replay = remembered(model, row)
    expected = values(model.predict(row))
    cases = [
        (lambda: tf.config.set_memory_limit(10**9), lambda: tf.config.set_memory_limit(None)),
        (lambda: tf.config.set_memory_alert(10**9), lambda: tf.config.set_memory_alert(None)),
        (replay.release, lambda: None),
    ]
    for arm, disarm in cases:
        arm()
        try:
            before = counters()
            assert replay.quick([row], None) is None
            assert counters() == before
            np.testing.assert_array_equal(values(model.predict(row)), expected)
        finally:
            disarm()
    np.testing.assert_array_equal(values(model.predict(row)), expected)
    row.dispose()


def test_with_its_scratch_locked_the_quick_route_makes_new_arrays(cleanup):
    """Another thread holding the scratch arrays: the plain replay runs, the same bits, and
    the peak counts its buffers (the plain replay's peak, not the scratch's)."""
    model = cleanup(mlp())
    row = tf.tensor(ROWS[:1])
    replay = remembered(model, row)
    expected = values(model.predict(row))
    state = ENGINE.state
    peak = state.peak_bytes
    with replay.scratch.lock:
        state.peak_bytes = 0
        live = state.buffer_bytes
        out = replay.quick([row], None)
        assert state.peak_bytes == live + replay.peak
    np.testing.assert_array_equal(values(out), expected)  # (disposes it)
    state.peak_bytes = 0
    live = state.buffer_bytes
    out = replay.quick([row], None)
    assert state.peak_bytes == live + replay.scratch.fresh_peak
    assert replay.scratch.fresh_peak < replay.peak
    state.peak_bytes = max(peak, state.peak_bytes)
    tf.dispose([out, row])


def test_the_quick_route_notes_the_sites_it_is_given(cleanup):
    model = cleanup(mlp())
    row = tf.tensor(ROWS[:1])
    replay = remembered(model, row)
    site = (sys._getframe().f_code, 0)
    out = replay.quick([row], site)
    assert out._site is site
    out2 = replay.quick([row], None)  # found from the frame that called it: this one
    assert out2._site[0] is sys._getframe().f_code
    tf.dispose([out, out2, row])


def test_call_site_is_the_callers_frame_or_the_pinned_site():
    def here():
        return _handles.call_site(1)

    site = here()
    assert site[0] is sys._getframe().f_code
    assert line_of(site) == sys._getframe().f_lineno - 2
    assert _handles.call_site(10_000) is None  # past the outermost frame
    with ENGINE.pin_site():  # the site of every call under it: this line's
        assert line_of(here()) == line_of(_handles.call_site(0)) == sys._getframe().f_lineno - 1


def test_a_disposal_is_noted_on_the_callers_line_each_time():
    """The core remembers a few user lines: a predict and a dispose on alternating lines
    each get their own line."""
    lines = []
    for _ in range(3):
        a = tf.scalar(1.0)
        b = tf.scalar(2.0)
        a.dispose()
        lines.append(line_of(a._dispose_site))
        b.dispose()
        lines.append(line_of(b._dispose_site))
    first = lines[0]
    assert lines == [first, first + 2] * 3
