"""The engine: tidy, scopes, keep, dispose, variables, use-after-dispose errors, memory(),
profile(), time() and reset() (catalog §1.3-§1.8, §1.13; API.md §2).

Error strings are TF.js's where TF.js has one (engine.ts, tensor.ts). Where TF.js only logs
(tidy given an async function) or crashes (a functional op on a freed buffer, disposing a
variable twice), API.md asks for a clear error or the fixed behaviour, which is asserted here.
"""

from __future__ import annotations

import asyncio
import gc
import inspect
import math
import os
import re
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tidytensor as tf
from tidytensor.errors import (
    ArgumentTypeError,
    InvalidArgumentError,
    TensorDisposedError,
    TidyTensorError,
    VariableExistsError,
)

THIS_FILE = re.escape(os.path.basename(__file__))


def counts() -> tuple[int, int, int]:
    m = tf.memory()
    return (m.num_tensors, m.num_data_buffers, m.num_bytes)


def n_tensors() -> int:
    return tf.memory().num_tensors


def here() -> int:
    """The caller's current line number."""
    return inspect.currentframe().f_back.f_lineno


def depth() -> int:
    return len(tf.engine().state.scope_stack)


def tracks(scope, t) -> bool:
    """Whether ``scope`` tracks ``t`` (by identity: ``==`` on tensors is element-wise)."""
    return any(x is t for x in scope.track)


# ================================================================== tidy: arguments


def test_tidy_one_argument_returns_fn_result():
    out = tf.tidy(lambda: tf.tensor([1, 2]).add(1))
    assert out.array_sync() == [2.0, 3.0]
    assert n_tensors() == 1


def test_tidy_two_arguments_names_the_scope():
    names = []

    def f():
        names.append(tf.engine().state.active_scope.name)
        return tf.scalar(2)

    out = tf.tidy("my_scope", f)
    assert names == ["my_scope"]
    assert out.array_sync() == 2.0
    tf.tidy(lambda: names.append(tf.engine().state.active_scope.name))
    assert names[-1] == "unnamed scope"


@pytest.mark.parametrize("value", [5, "s", None, 2.5, True])
def test_tidy_passes_non_tensor_results_through(value):
    assert tf.tidy(lambda: value) == value


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("asdf",), "Please provide a function to tidy()"),
        ((None,), "Please provide a function to tidy()"),
        (
            (4, lambda: 1),
            "When calling with two arguments, the first argument to tidy() must be a string",
        ),
        (
            (lambda: 1, lambda: 1),
            "When calling with two arguments, the first argument to tidy() must be a string",
        ),
        (
            ("n", "x"),
            "When calling with two arguments, the 2nd argument to tidy() must be a function",
        ),
    ],
)
def test_tidy_argument_errors(args, message):
    before = depth()
    with pytest.raises(ArgumentTypeError, match=re.escape(message)):
        tf.tidy(*args)
    assert depth() == before


# ================================================================== tidy: what survives


def test_nested_tidy_rehomes_result_to_parent_scope():
    """A result returned by an inner tidy belongs to the enclosing scope, which disposes it."""
    held = []

    def outer():
        outer_scope = tf.engine().state.active_scope
        r = tf.tidy(lambda: tf.scalar(1))
        assert r.scope_id == outer_scope.id
        assert tracks(outer_scope, r)
        held.append(r)

    tf.tidy(outer)
    assert held[0].is_disposed
    assert counts() == (0, 0, 0)


def test_results_in_nested_containers_are_rehomed():
    held = []

    def outer():
        parent = tf.engine().state.active_scope
        r = tf.tidy(lambda: {"a": [tf.scalar(1), (tf.scalar(2),)], "b": {"c": tf.scalar(3)}})
        flat = [r["a"][0], r["a"][1][0], r["b"]["c"]]
        assert all(t.scope_id == parent.id for t in flat)
        held.extend(flat)
        return r["a"][1]

    (kept,) = tf.tidy(outer)
    assert [t.is_disposed for t in held] == [True, False, True]
    assert kept is held[1]
    assert n_tensors() == 1


def test_result_from_outer_scope_is_not_retracked():
    """globals_test.ts "nested usage returns tensor created from outside scope"."""
    seen = []

    def outer():
        x = tf.scalar(1)
        scope_id = x.scope_id
        y = tf.tidy(lambda: x)
        seen.append((y is x, x.scope_id == scope_id, x.is_disposed, n_tensors()))
        return None

    tf.tidy(outer)
    assert seen == [(True, True, False, 1)]
    assert counts() == (0, 0, 0)


def test_same_tensor_returned_twice_is_counted_once():
    r = tf.tidy(lambda: (lambda t: [t, {"again": t}, (t,)])(tf.scalar(1)))
    assert r[0] is r[1]["again"] is r[2][0]
    assert counts() == (1, 1, 4)
    tf.dispose(r)
    assert counts() == (0, 0, 0)


def test_tensor_disposed_inside_tidy_and_returned_does_not_break_counts():
    def f():
        t = tf.scalar(1)
        t.dispose()
        return t

    t = tf.tidy(f)
    assert t.is_disposed
    assert counts() == (0, 0, 0)
    tf.engine().end_scope()  # the per-test scope: must not dispose t a second time
    assert counts() == (0, 0, 0)


def test_keep_escapes_all_scopes():
    held = []

    def outer():
        def inner():
            a = tf.scalar(1)
            held.append(tf.keep(a))
            tf.scalar(2)

        tf.tidy(inner)
        tf.tidy(lambda: None)

    tf.tidy(outer)
    assert not held[0].is_disposed
    assert held[0].kept
    assert counts() == (1, 1, 4)
    tf.engine().end_scope()  # the per-test scope does not free it either
    assert counts() == (1, 1, 4)
    held[0].dispose()
    assert counts() == (0, 0, 0)


def test_keep_returns_its_argument_and_works_outside_tidy():
    t = tf.scalar(1)
    assert tf.keep(t) is t
    assert t.kept
    assert tf.keep(5) == 5
    t.dispose()


def test_keep_of_returned_tensor_is_not_rehomed():
    def f():
        return tf.keep(tf.scalar(1))

    t = tf.tidy(f)
    assert t.kept
    assert not tracks(tf.engine().state.active_scope, t)
    t.dispose()


def test_variables_are_never_disposed_by_tidy():
    made = []

    def f():
        v = tf.variable(tf.tensor([1, 2]), True, "in_tidy")
        made.append(v)
        w = tf.variable(tf.tensor([3, 4]))
        made.append(w)
        assert not tracks(tf.engine().state.active_scope, v)
        return w

    returned = tf.tidy(f)
    assert returned is made[1]
    assert not made[0].is_disposed and not made[1].is_disposed
    assert returned.scope_id is None
    assert counts() == (2, 2, 16)
    tf.tidy(lambda: made[0].add(1))  # used inside another tidy: still alive
    assert made[0].array_sync() == [1.0, 2.0]
    tf.engine().end_scope()  # the per-test scope neither
    assert n_tensors() == 2


# ================================================================== scopes by hand, exceptions


def test_start_scope_end_scope():
    engine = tf.engine()
    base = depth()
    tf.start_scope("manual")
    assert depth() == base + 1
    assert engine.state.active_scope.name == "manual"
    tf.scalar(1)
    keep = tf.scalar(2)
    assert counts() == (2, 2, 8)
    tf.end_scope(keep)
    assert depth() == base
    assert counts() == (1, 1, 4)
    assert not keep.is_disposed
    assert keep.scope_id == engine.state.active_scope.id  # re-homed to the test scope


def test_engine_start_scope_end_scope_methods():
    engine = tf.engine()
    engine.start_scope()
    t = tf.scalar(1)
    engine.end_scope()
    assert t.is_disposed


def test_end_scope_without_active_scope_raises():
    engine = tf.engine()
    engine.end_scope()  # the per-test scope
    with pytest.raises(TidyTensorError, match="end_scope"):
        tf.end_scope()


def test_scope_closed_when_fn_raises():
    before = depth()
    made = []

    def f():
        made.append(tf.scalar(1))
        made.append(tf.tidy(lambda: tf.scalar(2)))
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        tf.tidy(f)
    assert depth() == before
    assert all(t.is_disposed for t in made)
    assert counts() == (0, 0, 0)


def test_scope_closed_when_nested_fn_raises():
    before = depth()
    made = []

    def inner():
        made.append(tf.scalar(1))
        raise KeyError("inner")

    def outer():
        made.append(tf.scalar(2))
        try:
            tf.tidy(inner)
        except KeyError:
            made.append(depth())
        return made[0]

    survivor = tf.tidy(outer)
    assert made[2] == before + 1  # the inner scope was closed by the time outer saw the error
    assert made[1].is_disposed and not survivor.is_disposed
    assert depth() == before
    assert counts() == (1, 1, 4)


def test_scope_closed_when_op_raises():
    before = depth()
    a = tf.tensor([1, 2, 3])
    with pytest.raises(ValueError):
        tf.add(a, [1, 2])  # broadcast error after converting [1, 2]
    assert depth() == before
    assert counts() == (1, 1, 12)  # the converted [1, 2] was freed


# ================================================================== tidy and async code


def test_tidy_refuses_coroutine_function():
    async def make():
        return tf.scalar(1)

    before = (depth(), counts())
    with pytest.raises(ArgumentTypeError, match="coroutine function 'make'.*synchronous"):
        tf.tidy(make)
    with pytest.raises(ArgumentTypeError, match="coroutine function"):
        tf.tidy("named", make)
    assert (depth(), counts()) == before


def test_tidy_async_error_suggests_only_existing_apis():
    """The advice in the message must be followable: every ``tf.name`` it cites exists."""

    async def make():
        return None

    with pytest.raises(ArgumentTypeError) as info:
        tf.tidy(make)
    cited = re.findall(r"\btf\.([a-z_][a-z0-9_]*)", str(info.value))
    assert [name for name in cited if not hasattr(tf, name)] == []


def test_tidy_refuses_async_generator_function():
    async def gen():
        yield tf.scalar(1)

    with pytest.raises(ArgumentTypeError, match="coroutine function"):
        tf.tidy(gen)


def test_tidy_refuses_returned_coroutine_and_disposes_what_it_made():
    made = []

    async def later():
        made.append(tf.scalar(99))  # never runs: the coroutine is closed
        return made[-1]

    def f():
        made.append(tf.scalar(1))
        return later()

    before = depth()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "coroutine ... was never awaited" would fail here
        with pytest.raises(ArgumentTypeError, match="returned an awaitable"):
            tf.tidy(f)
        gc.collect()
    assert depth() == before
    assert len(made) == 1 and made[0].is_disposed
    assert counts() == (0, 0, 0)


def test_tidy_refuses_other_awaitables():
    class Awaitable:
        def __await__(self):
            yield
            return tf.scalar(1)

    made = []

    def f():
        made.append(tf.scalar(1))
        return Awaitable()

    with pytest.raises(ArgumentTypeError, match="awaitable"):
        tf.tidy(f)
    assert made[0].is_disposed
    assert counts() == (0, 0, 0)


def test_tensor_data_is_awaitable():
    t = tf.tensor([1, 2])
    assert asyncio.run(t.array()) == [1.0, 2.0]
    assert asyncio.run(t.data()).tolist() == [1.0, 2.0]


# ================================================================== dispose


def test_dispose_tensor_is_idempotent():
    a = tf.tensor([1, 2, 3])
    b = tf.tensor([1, 2, 3])
    a.dispose()
    a.dispose()
    tf.dispose(a)
    assert counts() == (1, 1, 12)
    assert a.is_disposed and a.is_disposed_internal
    b.dispose()
    assert counts() == (0, 0, 0)


def test_dispose_container():
    a, b, c = tf.scalar(1), tf.scalar(2), tf.scalar(3)
    v = tf.variable(tf.scalar(4), True, "in_container")
    tf.dispose({"x": [a, (b, {"deep": c})], "v": v, "n": 3, "s": "text", "none": None})
    assert all(t.is_disposed for t in (a, b, c, v))
    assert counts() == (1, 1, 4)  # the variable's initial scalar
    tf.dispose([a, b, c, v])  # again: nothing changes
    assert counts() == (1, 1, 4)
    tf.variable(tf.scalar(5), True, "in_container")  # the name was freed


@pytest.mark.parametrize("value", [None, 5, "x", [], {}, [1, "a", None]])
def test_dispose_ignores_non_tensors(value):
    t = tf.scalar(1)
    tf.dispose(value)
    assert not t.is_disposed
    assert n_tensors() == 1


def test_variable_double_dispose_keeps_other_tensor_alive():
    """TF.js frees t's buffer on the second v.dispose() (verified); here it is a no-op."""
    t = tf.tensor([1, 2, 3])
    v = tf.variable(t)
    backend = tf.backend()
    assert backend.ref_count(t.data_id) == 2
    v.dispose()
    v.dispose()
    tf.dispose(v)
    tf.engine().dispose_variables()
    assert backend.ref_count(t.data_id) == 1
    assert counts() == (1, 1, 12)
    assert t.array_sync() == [1.0, 2.0, 3.0]
    assert tf.add(t, 1).array_sync() == [2.0, 3.0, 4.0]


def test_dispose_variables():
    t = tf.scalar(1)
    v1 = tf.variable(t, True, "dv1")
    v2 = tf.variable(t, False, "dv2")
    assert counts() == (3, 1, 12)
    tf.dispose_variables()
    assert v1.is_disposed and v2.is_disposed
    assert counts() == (1, 1, 4)
    assert tf.engine().state.registered_variables == {}
    tf.dispose_variables()  # nothing left: no-op
    assert counts() == (1, 1, 4)
    assert tf.variable(t, True, "dv1").name == "dv1"


# ================================================================== variables


def test_variable_properties_and_default_names():
    a = tf.variable(tf.scalar(1))
    b = tf.variable(tf.scalar(2))
    assert a.name != b.name
    assert a.name.isdigit() and int(b.name) == int(a.name) + 1  # String(nextVariableId++)
    assert a.trainable is True
    c = tf.variable(tf.scalar(3), trainable=False, name="c_name")
    assert (c.name, c.trainable) == ("c_name", False)
    assert isinstance(c, tf.Variable) and isinstance(c, tf.Tensor)
    assert tf.engine().state.registered_variables["c_name"] is c


def test_unique_variable_names():
    tf.variable(tf.scalar(1), True, "w")
    before = counts()
    init = tf.scalar(2)
    with pytest.raises(VariableExistsError, match="^Variable with name w was already registered$"):
        tf.variable(init, True, "w")
    with pytest.raises(VariableExistsError, match="Variable with name w was already registered"):
        init.variable(True, "w")
    # Nothing was counted for the refused variable; the value passed in is the caller's.
    assert counts() == (before[0] + 1, before[1] + 1, before[2] + 4)
    assert not init.is_disposed


def test_variable_name_must_be_a_string():
    with pytest.raises(ArgumentTypeError):
        tf.variable(tf.scalar(1), True, 3)


def test_variable_of_a_non_tensor_or_disposed_tensor():
    with pytest.raises(ArgumentTypeError, match="'variable' must be a Tensor"):
        tf.variable([1, 2])
    t = tf.scalar(1)
    t.dispose()
    with pytest.raises(TensorDisposedError, match="'variable'"):
        tf.variable(t)


def test_assign_shape_error_leaves_variable_unchanged():
    v = tf.variable(tf.tensor([1, 2]), True, "vs")
    data_id = v.data_id
    before = counts()
    new = tf.tensor([1, 2, 3])
    with pytest.raises(
        InvalidArgumentError,
        match=re.escape("shape of the new value (3) and previous value (2) must match"),
    ):
        v.assign(new)
    assert v.data_id is data_id
    assert v.array_sync() == [1.0, 2.0]
    assert counts() == (before[0] + 1, before[1] + 1, before[2] + 12)
    assert tf.backend().ref_count(new.data_id) == 1


def test_assign_dtype_error_leaves_variable_unchanged():
    v = tf.variable(tf.tensor([1.5, 2]), True, "vd")
    data_id = v.data_id
    new = tf.tensor([1, 2], None, "int32")
    with pytest.raises(
        InvalidArgumentError,
        match=re.escape("dtype of the new value (int32) and previous value (float32) must match"),
    ):
        v.assign(new)
    assert v.data_id is data_id and v.dtype == "float32"
    assert v.array_sync() == [1.5, 2.0]
    assert counts() == (3, 2, 24)


def test_assign_scalar_shape_message():
    v = tf.variable(tf.scalar(1), True, "vscalar")
    with pytest.raises(
        InvalidArgumentError, match=re.escape("new value (2,2) and previous value ()")
    ):
        v.assign(tf.tensor([[1, 2], [3, 4]]))


def test_assign_a_non_tensor_raises():
    v = tf.variable(tf.tensor([1, 2]), True, "vt")
    with pytest.raises(ArgumentTypeError, match="must be a Tensor"):
        v.assign([3, 4])
    assert v.array_sync() == [1.0, 2.0]


def test_assign_to_own_buffer_is_a_no_op():
    """v.assign(v) when v holds the only reference must not free v's buffer
    (TF.js overflows its stack here; verified)."""
    t = tf.tensor([1, 2])
    v = tf.variable(t)
    t.dispose()
    assert counts() == (1, 1, 8)
    v.assign(v)
    assert counts() == (1, 1, 8)
    assert v.array_sync() == [1.0, 2.0]
    clone = v.clone()
    v.assign(clone)  # another handle on the same buffer
    clone.dispose()
    assert counts() == (1, 1, 8)
    assert v.array_sync() == [1.0, 2.0]


def test_disposed_variable_cannot_be_assigned():
    v = tf.variable(tf.tensor([1, 2]), True, "gone")
    v.dispose()
    with pytest.raises(TensorDisposedError, match="passed to 'assign'"):
        v.assign(tf.tensor([3, 4]))


def test_assign_from_disposed_tensor_raises():
    v = tf.variable(tf.tensor([1, 2]), True, "src_gone")
    x = tf.tensor([3, 4])
    x.dispose()
    with pytest.raises(TensorDisposedError, match="passed to 'assign'"):
        v.assign(x)
    assert v.array_sync() == [1.0, 2.0]


# ================================================================== use after dispose


def test_disposed_error_via_method_names_tensor_op_and_sites():
    created = here() + 1
    t = tf.tensor([1.0, 2.0])
    disposed = here() + 1
    t.dispose()
    with pytest.raises(TensorDisposedError) as info:
        t.data_sync()
    msg = str(info.value)
    assert f"Tensor {t.id} (shape=[2], dtype='float32') passed to 'data_sync' is disposed" in msg
    assert re.search(rf"created at \S*{THIS_FILE}:{created} in test_disposed_error_via_method", msg)
    assert re.search(
        rf"disposed at \S*{THIS_FILE}:{disposed} in test_disposed_error_via_method", msg
    )


@pytest.mark.parametrize(
    ("call", "op_name"),
    [
        (lambda t: tf.add(t, 1), "add"),
        (lambda t: tf.mul(2, t), "mul"),
        (lambda t: t.add(1), "add"),
        (lambda t: t + 1, "add"),
        (lambda t: t.reshape([3]), "reshape"),
        (lambda t: t.clone(), "clone"),
        (lambda t: tf.cast(t, "int32"), "cast"),
        (lambda t: t.array_sync(), "array_sync"),
        (lambda t: t.numpy(), "numpy"),
        (lambda t: asyncio.run(t.data()), "data_sync"),
        (lambda t: t.variable(), "variable"),
    ],
)
def test_disposed_error_names_the_op(call, op_name):
    created = here() + 1
    t = tf.tensor([[1, 2, 3]], None, "int32")
    disposed = here() + 1
    tf.dispose([t])
    with pytest.raises(TensorDisposedError) as info:
        call(t)
    msg = str(info.value)
    assert f"Tensor {t.id} (shape=[1, 3], dtype='int32') passed to '{op_name}' is disposed" in msg
    assert re.search(rf"{THIS_FILE}:{created} in test_disposed_error_names_the_op", msg)
    assert re.search(rf"disposed at \S*{THIS_FILE}:{disposed} ", msg)


def test_disposed_error_functional_op_when_buffer_still_shared():
    """TF.js silently succeeds when another handle keeps the buffer alive; the clear error
    is raised here all the same (API.md: using a disposed tensor raises)."""
    t = tf.tensor([1, 2])
    r = t.reshape([2, 1])
    t.dispose()
    with pytest.raises(TensorDisposedError, match="passed to 'add'"):
        tf.add(t, 1)
    assert r.array_sync() == [[1.0], [2.0]]


def test_disposed_error_names_the_scope_that_disposed_it():
    held = []

    def fn():
        held.append(tf.tensor([3.0]))

    created = here() - 2
    ended = here() + 1
    tf.tidy("my_tidy", fn)
    with pytest.raises(TensorDisposedError) as info:
        tf.mul(held[0], 2)
    msg = str(info.value)
    assert "passed to 'mul'" in msg
    assert re.search(rf"created at \S*{THIS_FILE}:{created} in fn", msg)
    assert re.search(rf"disposed when scope 'my_tidy' ended at \S*{THIS_FILE}:{ended} ", msg)


def test_disposed_error_for_unnamed_scope_and_manual_end_scope():
    held = []
    tf.tidy(lambda: held.append(tf.scalar(1)))
    with pytest.raises(TensorDisposedError, match="disposed when scope 'unnamed scope' ended"):
        held[0].add(1)
    tf.start_scope("by_hand")
    t = tf.scalar(2)
    ended = here() + 1
    tf.end_scope()
    with pytest.raises(TensorDisposedError) as info:
        tf.sub(t, 1)
    assert re.search(
        rf"disposed when scope 'by_hand' ended at \S*{THIS_FILE}:{ended} ", str(info.value)
    )


def test_disposed_error_names_the_op_whose_temporary_it_was():
    box = []

    @tf.op
    def stash(x):
        box.append(tf.add(x, 1))  # a temporary of 'stash', freed when stash returns
        return tf.add(x, 2)

    a = tf.tensor([1.0])
    called = here() + 1
    stash(a)
    with pytest.raises(TensorDisposedError) as info:
        tf.mul(box[0], 2)
    msg = str(info.value)
    assert "passed to 'mul' is disposed" in msg
    assert re.search(rf"created at \S*{THIS_FILE}:{called} ", msg)
    assert "disposed as a temporary of op 'stash'" in msg


def test_disposed_error_with_site_tracking_off():
    tf.set_site_tracking(False)
    try:
        t = tf.scalar(1)
        t.dispose()
        with pytest.raises(TensorDisposedError, match="passed to 'add'.*unknown place"):
            tf.add(t, 1)
    finally:
        tf.set_site_tracking(True)


def test_disposed_error_on_variable():
    created = here() + 1
    v = tf.variable(tf.tensor([1, 2]), True, "used_after")
    v.dispose()
    with pytest.raises(TensorDisposedError) as info:
        tf.add(v, 1)
    assert re.search(
        rf"passed to 'add' is disposed: it was created at \S*{THIS_FILE}:{created} ",
        str(info.value),
    )


def test_disposed_error_is_a_runtime_error():
    t = tf.scalar(1)
    t.dispose()
    with pytest.raises(RuntimeError):
        t.data_sync()
    assert "disposed" in repr(t)


# ================================================================== memory()


def test_memory_fields():
    m = tf.memory()
    assert (m.num_tensors, m.num_data_buffers, m.num_bytes) == (0, 0, 0)
    assert m.unreliable is True
    assert m.reasons == [
        "The reported memory is an upper bound. Due to automatic garbage collection, the true "
        "allocated memory may be less."
    ]
    assert isinstance(m.num_tensors, int) and isinstance(m.num_bytes, int)


def test_memory_string_reason_comes_and_goes():
    s = tf.tensor(["abc"])
    m = tf.memory()
    assert m.unreliable is True
    assert m.reasons[-1] == "Memory usage by string tensors is approximate (2 bytes per character)"
    assert len(m.reasons) == 2
    s.dispose()
    assert len(tf.memory().reasons) == 1


def test_memory_result_is_a_snapshot():
    before = tf.memory()
    tf.scalar(1)
    assert before.num_tensors == 0
    assert tf.memory().num_tensors == 1


# ================================================================== profile() and time()


def test_profile_kernel_records():
    def f():
        a = tf.tensor([1, 2])
        return tf.add(a, 1)

    info = tf.profile(f)
    assert (info.new_bytes, info.new_tensors, info.peak_bytes) == (16, 2, 20)
    assert info.kernel_names == ["Add"]
    (k,) = info.kernels
    assert k.name == "Add"
    assert k.bytes_added == 8
    assert k.total_bytes_snapshot == 20
    assert k.tensors_added == 1
    assert k.total_tensors_snapshot == 3
    assert k.input_shapes == [[2], []]
    assert k.output_shapes == [[2]]
    assert k.kernel_time_ms >= 0
    assert info.result.array_sync() == [2.0, 3.0]
    assert counts() == (2, 2, 16)


def test_profile_mixed_dtypes_records_both_casts_then_add():
    """makeTypesMatch casts both inputs (the float32 one to float32 too); TF.js 4.22 gives
    exactly these three records."""
    i = tf.tensor([1, 2], None, "int32")

    info = tf.profile(lambda: tf.add(i, tf.scalar(0.5)))
    records = [
        (
            k.name,
            k.bytes_added,
            k.total_bytes_snapshot,
            k.tensors_added,
            k.total_tensors_snapshot,
            k.input_shapes,
            k.output_shapes,
        )
        for k in info.kernels
    ]
    assert records == [
        ("Cast", 8, 20, 1, 3, [[2]], [[2]]),
        ("Cast", 4, 24, 1, 4, [[]], [[]]),
        ("Add", 8, 32, 1, 5, [[2], []], [[2]]),
    ]
    assert info.kernel_names == ["Cast", "Add"]
    assert (info.new_bytes, info.new_tensors, info.peak_bytes) == (12, 2, 32)


def test_profile_peak_is_minus_infinity_without_kernels():
    info = tf.profile(lambda: tf.scalar(1))
    assert info.peak_bytes == -math.inf
    assert info.kernels == [] and info.kernel_names == []
    assert (info.new_bytes, info.new_tensors) == (4, 1)
    info = tf.profile(lambda: 1)
    assert (info.new_bytes, info.new_tensors, info.result) == (0, 0, 1)


def test_profile_nested_reports_inner_kernels_to_both():
    a = tf.tensor([1, 2])
    inner = []

    def outer():
        inner.append(tf.profile(lambda: a.mul(2)))
        return a.sub(1)

    info = tf.profile(outer)
    assert inner[0].kernel_names == ["Multiply"]
    assert info.kernel_names == ["Multiply", "Sub"]


def test_profile_restores_engine_state_when_fn_raises():
    engine = tf.engine()
    slow_before = engine._slow

    def boom():
        tf.scalar(1).add(1)
        raise ValueError("in profile")

    with pytest.raises(ValueError, match="in profile"):
        tf.profile(boom)
    assert engine.state.profiling is False
    assert engine._slow == slow_before
    assert tf.profile(lambda: None).kernels == []


def test_time_reports_kernel_and_wall_ms():
    a = tf.tensor([1, 2])
    t = tf.time(lambda: a.add(1))
    assert isinstance(t.kernel_ms, float) and isinstance(t.wall_ms, float)
    assert t.kernel_ms >= 0 and t.wall_ms >= 0
    assert n_tensors() == 2  # not disposed


# ================================================================== engine().reset()


def test_reset_zeroes_counters_and_frees_variable_names():
    engine = tf.engine()
    live = tf.tensor([1, 2, 3])
    v = tf.variable(tf.scalar(1), True, "reset_me")
    tf.tensor(["str"])
    assert n_tensors() == 4
    engine.reset()
    assert engine.state.scope_stack == []
    assert tf.get_backend() is None
    assert counts() == (0, 0, 0)
    assert v.is_disposed
    assert engine.state.registered_variables == {}
    assert len(tf.memory().reasons) == 1  # the string tensor count was reset too
    two = tf.scalar(2)
    v2 = tf.variable(two, True, "reset_me")
    assert v2.name == "reset_me"
    live.dispose()  # a pre-reset tensor: disposing it must not move the counters
    assert counts() == (2, 1, 8)
    tf.dispose([v2, two])


def test_reset_keeps_backend_factories():
    tf.engine().reset()
    assert "cpu" in tf.engine().registered_backends()
    one = tf.scalar(1)
    assert one.array_sync() == 1.0
    # The highest-priority backend: 'cupy' where CuPy and a GPU are present, else 'cpu'.
    assert tf.get_backend() == ("cupy" if "cupy" in tf.engine().registered_backends() else "cpu")
    one.dispose()


def test_tensor_from_before_reset_raises_disposed_error():
    """Its buffer went with the old backend: both reading it and passing it to an op must
    raise the clear error, not a KeyError from the backend's storage."""
    old = tf.tensor([1, 2])
    tf.engine().reset()
    with pytest.raises(TensorDisposedError, match="passed to 'data_sync'"):
        old.data_sync()
    with pytest.raises(TensorDisposedError, match="passed to 'add'"):
        tf.add(old, 1)
    assert counts() == (0, 0, 0)


def test_repr_of_tensor_from_before_reset_does_not_raise():
    old = tf.tensor([1, 2])
    tf.engine().reset()
    assert "disposed" in repr(old)
    assert "disposed" in str(old)


# ================================================================== property test


def _program():
    """A random nesting of tidies: each level makes tensors, keeps some, nests, returns some."""
    leaf = st.sampled_from(["make", "keep", "dispose"])
    return st.recursive(
        st.lists(leaf, max_size=4),
        lambda children: st.lists(st.one_of(leaf, children), max_size=4),
        max_leaves=12,
    )


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(program=_program(), returns=st.lists(st.booleans(), max_size=40))
def test_tidy_keep_dispose_model(program, returns):
    """Live tensors after any program = what was kept + what the top level returned, minus
    what was disposed by hand; nothing else survives, and the counters agree."""
    engine = tf.engine()
    start = n_tensors()
    choice = iter(returns)
    made: list[list] = []  # [tensor, fate]: fate is scope / kept / disposed / dead
    index: dict[int, int] = {}

    def run(level):
        mine = []
        for step in level:
            if step == "make":
                t = tf.scalar(len(made))
                index[id(t)] = len(made)
                mine.append(len(made))
                made.append([t, "scope"])
            elif step == "keep" and mine:
                tf.keep(made[mine[-1]][0])
                made[mine[-1]][1] = "kept"
            elif step == "dispose" and mine:
                i = mine.pop()
                made[i][0].dispose()
                made[i][1] = "disposed"
            elif isinstance(step, list):
                returned = tf.tidy(lambda step=step: run(step))
                mine.extend(index[id(t)] for t in returned)
        out = [i for i in mine if made[i][1] == "scope" and next(choice, False)]
        for i in mine:
            if made[i][1] == "scope" and i not in out:
                made[i][1] = "dead"
        return [made[i][0] for i in out]

    engine.start_scope("property")
    tf.tidy(lambda: run(program))
    for i, (t, fate) in enumerate(made):
        assert t.is_disposed is (fate not in ("kept", "scope")), (i, fate)
    alive = sum(1 for _, fate in made if fate in ("kept", "scope"))
    assert n_tensors() - start == alive
    engine.end_scope()
    assert n_tensors() - start == sum(1 for _, fate in made if fate == "kept")
    tf.dispose([t for t, _ in made])
    assert n_tensors() == start
