"""The compiled core's per-op shortcuts (issue 16), checked against the reference on both
cores: the fast op called through vectorcall (every calling convention counts and disposes as
the reference does), float32 scalar arithmetic in C (bit for bit NumPy's, no warnings), the
C-level memory check (``check_bytes``) and alert flag, and the handle and record
constructors' class checks. Run on both cores, as tests/test_engine_core.py:

    python -m pytest tests/test_engine_core_fastop.py --engine-core=compiled
    TIDYTENSOR_PURE_PYTHON=1 python -m pytest tests/test_engine_core_fastop.py --engine-core=python
"""

from __future__ import annotations

import functools
import gc
import warnings
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tidytensor as tf
from test_engine_core_dispatch import bare, unwatched  # noqa: F401 - fixtures
from tidytensor import _handles
from tidytensor.backends.array_backend import _SCALAR_TYPES, DataId, XpKernel, new_record
from tidytensor.backends.xp_kernels import arithmetic
from tidytensor.dtypes import DTYPE_OF_STORAGE
from tidytensor.engine import ENGINE
from tidytensor.errors import ResourceExhaustedError

COMPILED = ENGINE.core == "compiled"
OPS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}
KERNELS = {"add": "Add", "sub": "Sub", "mul": "Multiply", "div": "RealDiv"}


def _counts():
    m = tf.memory()
    return m.num_tensors, m.num_data_buffers, m.num_bytes, ENGINE.backend.num_data_ids()


@pytest.mark.usefixtures("unwatched")
def test_float32_scalars_get_c_arithmetic_only_in_the_compiled_core():
    for name, kernel_name in KERNELS.items():
        kernel = ENGINE._same_shape_kernels[kernel_name]
        assert kernel.c_arithmetic is COMPILED, name
    # Kernels no FLOAT_OPERATORS entry names run their function on either core.
    floor_div = XpKernel("FloorDiv", arithmetic.floor_div).bind_same_shape(ENGINE.backend)
    assert not floor_div.c_arithmetic


_F32 = st.floats(width=32, allow_nan=True, allow_infinity=True, allow_subnormal=True)


@settings(max_examples=300, deadline=None)
@given(x=_F32, y=_F32, name=st.sampled_from(sorted(OPS)))
def test_scalar_arithmetic_is_bit_exact_with_numpy_and_silent(x, y, name):
    ENGINE.check_kernel_leaks = False
    ENGINE.update_mode()
    try:
        a, b = tf.scalar(x), tf.scalar(y)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # an overflow or 0/0 warns nowhere
            out = getattr(tf, name)(a, b)
        with np.errstate(all="ignore"):
            want = OPS[name](np.float32(x), np.float32(y))
        got = out.data_id.values
        assert type(got) is np.float32 and out.dtype == "float32" and out.shape == []
        assert np.float32(got).tobytes() == np.float32(want).tobytes(), (x, y, name)
        tf.dispose([a, b, out])
    finally:
        ENGINE.check_kernel_leaks = True
        ENGINE.update_mode()


def _calls(a, b):
    """Every way Python calls a function, each a different route into the fast op."""
    add = tf.add
    return {
        "positional": lambda: add(a, b),
        "unpacked": lambda: add(*[a, b]),
        "keyword": lambda: add(a, b=b),
        "keywords": lambda: add(a=a, b=b),
        "dunder call": lambda: add.__call__(a, b),
        "type call": lambda: type(add).__call__(add, a, b),
        "partial": lambda: functools.partial(add, a)(b),
        "map": lambda: next(map(add, [a], [b])),
    }


@pytest.mark.usefixtures("unwatched")
@pytest.mark.parametrize("route", list(_calls(None, None)))
def test_every_calling_convention_counts_and_disposes_like_the_reference(route):
    a, b = tf.scalar(1.5), tf.scalar(2.25)
    call = _calls(a, b)[route]
    before = _counts()
    out = call()
    assert out.array_sync() == 3.75 and out.dtype == "float32"
    assert _counts() == (before[0] + 1, before[1] + 1, before[2] + 4, before[3] + 1)
    kept = tf.tidy(lambda: [call() for _ in range(5)][-1])
    assert _counts() == (before[0] + 2, before[1] + 2, before[2] + 8, before[3] + 2)
    tf.dispose([out, kept])
    assert _counts() == before
    tf.dispose([a, b])


@pytest.mark.usefixtures("unwatched")
def test_calls_the_fast_path_cannot_take_pass_their_arguments_to_the_op():
    a = tf.scalar(1.5)
    assert tf.add(a, 2).array_sync() == 3.5
    assert tf.add(1.0, b=a).array_sync() == 2.5
    assert tf.mul(tf.tensor([1.0, 2.0]), a).array_sync() == [1.5, 3.0]
    with pytest.raises(TypeError):
        tf.add(a, a, a)
    with pytest.raises(TypeError):
        tf.add(a)
    with pytest.raises(TypeError):
        tf.add(a, c=a)
    tf.dispose(a)


@pytest.mark.usefixtures("unwatched")
def test_a_failure_inside_the_fast_path_leaves_counts_unchanged():
    a, b = tf.scalar(1.5), tf.scalar(2.25)
    before = _counts()
    tf.config.set_memory_limit(ENGINE.state.buffer_bytes + 2)  # a new 4-byte buffer is over
    try:
        assert isinstance(ENGINE.state.check_bytes, int)
        for name in OPS:
            with pytest.raises(ResourceExhaustedError):
                getattr(tf, name)(a, b)
            assert _counts() == before, name
    finally:
        tf.config.set_memory_limit(None)
    assert ENGINE.state.check_bytes == float("inf")
    out = tf.add(a, b)
    assert _counts() == (before[0] + 1, before[1] + 1, before[2] + 4, before[3] + 1)
    tf.dispose([a, b, out])
    assert _counts() == (before[0] - 2, before[1] - 2, before[2] - 8, before[3] - 2)


class _Threshold:
    """A ``check_bytes`` that is no number (as the failure-injection tests' counter): every
    comparison with ``buffer_bytes`` asks it."""

    def __init__(self, level):
        self.level = level
        self.asked = 0

    def __lt__(self, live):  # ``live > threshold`` reflects to ``threshold < live``
        self.asked += 1
        return self.level < live

    def __gt__(self, live):
        self.asked += 1
        return self.level > live


@pytest.mark.usefixtures("unwatched")
@pytest.mark.parametrize("limit", ["object", "huge int"])
def test_check_bytes_of_any_kind_is_compared_as_python_compares_it(limit):
    state = ENGINE.state
    a, b = tf.scalar(1.5), tf.scalar(2.25)
    saved = state.check_bytes
    over = ENGINE._over_budget
    seen = []
    ENGINE._over_budget = lambda data_id, shape, dtype: seen.append((shape, dtype))
    try:
        if limit == "object":
            threshold = state.check_bytes = _Threshold(state.buffer_bytes + 2)
        else:
            state.check_bytes = 1 << 80  # beyond a C integer: compared as Python ints
        assert state.check_bytes is not saved
        out = tf.add(a, b)
    finally:
        ENGINE._over_budget = over
        state.check_bytes = saved
    assert seen == ([((), "float32")] if limit == "object" else [])
    if limit == "object":
        assert threshold.asked == 1
    tf.dispose([a, b, out])


@pytest.mark.usefixtures("unwatched")
def test_the_alert_flag_is_a_core_field_and_rearms_on_the_fast_path():
    fired = []
    a, b = tf.scalar(1.5), tf.scalar(2.25)
    tf.config.set_memory_alert(ENGINE.state.buffer_bytes + 2, fired.append)
    try:
        assert ENGINE.state.alert_fired is False
        out = tf.add(a, b)
        assert len(fired) == 1 and ENGINE.state.alert_fired is True
        out.dispose()  # back under the level: armed again
        assert ENGINE.state.alert_fired is False
        tf.add(a, b).dispose()
        assert len(fired) == 2
    finally:
        tf.config.set_memory_alert(None)
    tf.dispose([a, b])


def test_constructors_refuse_classes_of_another_kind():
    backend = ENGINE.backend
    with pytest.raises(TypeError, match="new_handle: cls must be a HandleBase class"):
        _handles.new_handle(DataId, None, (), "float32", None, None)
    with pytest.raises(TypeError, match="new_record: cls must be a RecordBase class"):
        _handles.new_record(tf.Tensor, np.float32(1), backend, 4, "float32")
    args = (np.add, np, backend)
    rest = (DTYPE_OF_STORAGE, _SCALAR_TYPES, lambda out: None)
    with pytest.raises(TypeError, match="record_cls must be a RecordBase class"):
        _handles.SameShapeKernel(*args, tf.Tensor, *rest)
    with pytest.raises(ValueError, match="float_operator must be one of"):
        _handles.SameShapeKernel(*args, DataId, *rest, "%")


def test_without_a_float32_scalar_type_the_kernel_function_runs():
    backend = ENGINE.backend
    calls = []

    def add(a, b, *, xp):
        calls.append(1)
        return a + b

    kernel = _handles.SameShapeKernel(
        add, np, backend, DataId, DTYPE_OF_STORAGE, {}, lambda out: None, "+"
    )
    assert not kernel.c_arithmetic
    count = backend.num_data_ids()
    ra = new_record(np.array([1.5], np.float32), backend, 4, "float32")
    rec = kernel(ra, ra)
    assert calls == [1] and rec.values.tolist() == [3.0] and rec.shape == (1,)
    assert backend.num_data_ids() == count + 2
    assert backend.dispose_data(ra) and backend.dispose_data(rec)
    assert backend.num_data_ids() == count


@pytest.mark.usefixtures("bare", "unwatched")
def test_only_handles_neither_disposed_nor_kept_are_reported_when_collected(recwarn):
    # The compiled finalizer returns at once for disposed and kept handles (their flags read
    # in C); any other handle still reaches the leak hook.
    def make():
        a, b = tf.scalar(1.5), tf.scalar(2.25)
        kept = tf.keep(tf.add(a, b))
        tf.dispose([a, b])
        tf.sub(kept, kept)  # dropped undisposed: the one leak
        return kept.data_id  # the kept handle is dropped too: never reported

    kept_buffer = make()
    gc.collect()
    assert [g.count for g in tf.leaks()] == [1]
    assert tf.memory().num_tensors == 2  # the kept handle's buffer and the leak's
    tf.dispose_leaked()
    assert tf.memory().num_tensors == 1
    # What a dropped kept handle leaves: freed here as the engine frees a leak's record.
    ENGINE.dispose_tensor(
        SimpleNamespace(data_id=kept_buffer, dtype="float32", _shape=(), _disposed=False)
    )
    assert tf.memory().num_tensors == 0
