"""TF.js's memory model, number for number (catalog §1.2, §1.5 and §6.4A M1-M10).

Every expected (num_tensors, num_data_buffers, num_bytes) sequence here was checked on
@tensorflow/tfjs 4.22.0 (cpu backend). Where TF.js has a bug that API.md tells us to fix,
the test says so and asserts the fixed behaviour.

Each test runs twice: on the instrumented kernel path (kernel leak detector on, as
tests/conftest.py sets it) and on the fast path that user code takes (detector off).
"""

from __future__ import annotations

import pytest

import tidytensor as tf


@pytest.fixture(autouse=True, params=["instrumented", "fast"])
def kernel_path(request):
    """Runs each test on both engine paths: the conftest turns the leak detector on."""
    engine = tf.engine()
    assert engine.check_kernel_leaks, "tests/conftest.py should have turned the detector on"
    if request.param == "fast":
        engine.check_kernel_leaks = False
        engine.update_mode()
        assert not engine._slow
    else:
        assert engine._slow
    return request.param


def counts() -> tuple[int, int, int]:
    """(num_tensors, num_data_buffers, num_bytes): TF.js's N, B and bytes."""
    m = tf.memory()
    return (m.num_tensors, m.num_data_buffers, m.num_bytes)


def n_tensors() -> int:
    return tf.memory().num_tensors


def needs(*names: str) -> None:
    """The ops a test relies on (every one exists: a missing op fails the test)."""
    missing = [name for name in names if not hasattr(tf, name)]
    assert not missing, f"op(s) {missing} missing from tidytensor"


# ================================================================== §6.4A M1-M10


def test_m1_tidy_returns_tensor():
    """globals_test.ts "returns Tensor": N = 2, 3, 2, 0."""
    seen: list[tuple[int, int, int]] = []
    values: list = []

    def outer():
        a = tf.tensor([1, 2, 3])
        b = [tf.tensor([0, 0, 0])]
        seen.append(counts())

        def middle():
            def inner():
                b[0] = tf.add(a, b[0])
                b[0] = tf.add(a, b[0])
                b[0] = tf.add(a, b[0])
                return tf.add(a, b[0])

            r = tf.tidy(inner)
            seen.append(counts())
            values.append(r.array_sync())

        tf.tidy(middle)
        seen.append(counts())

    tf.tidy(outer)
    seen.append(counts())
    assert seen == [(2, 2, 24), (3, 3, 36), (2, 2, 24), (0, 0, 0)]
    assert values == [[4.0, 8.0, 12.0]]


def test_m2_tidy_returns_tensor_list():
    """globals_test.ts "returns Tensor[]": inside 4, after the outer tidy 2, after dispose 0."""
    a = tf.tensor([1, 2, 3])
    b = tf.tensor([0, -1, 1])
    assert counts() == (2, 2, 24)
    seen = []

    def outer():
        def inner():
            tf.add(a, b)
            return [tf.add(a, b), tf.sub(a, b)]

        r = tf.tidy(inner)
        seen.append(counts())
        seen.append([t.array_sync() for t in r])

    tf.tidy(outer)
    assert seen == [(4, 4, 48), [[1.0, 1.0, 4.0], [1.0, 3.0, 2.0]]]
    assert counts() == (2, 2, 24)
    a.dispose()
    b.dispose()
    assert counts() == (0, 0, 0)


def test_m3_arbitrary_depth_of_result():
    """globals_test.ts "works with arbitrary depth of result": all three survive the inner tidy."""
    inside = []

    def outer():
        r = tf.tidy(lambda: [tf.scalar(1), [[tf.scalar(2)]], {"list": [tf.scalar(3)]}])
        inside.append(counts())
        inside.append([r[0].array_sync(), r[1][0][0].array_sync(), r[2]["list"][0].array_sync()])
        return r[0]

    first = tf.tidy(outer)
    assert inside == [(3, 3, 12), [1.0, 2.0, 3.0]]
    assert counts() == (1, 1, 4)
    assert first.array_sync() == 1.0


def test_m3_python_containers_tuple_and_dict_nesting():
    """The same walk through tuples, dicts of tuples and lists inside dicts."""
    inside = []

    def outer():
        r = tf.tidy(
            lambda: (tf.scalar(1), {"a": (tf.scalar(2), [tf.scalar(3)]), "n": 5, "s": "x"}, None)
        )
        inside.append(counts())
        assert r[1]["n"] == 5 and r[1]["s"] == "x" and r[2] is None
        return {"keep": r[1]["a"][1]}

    out = tf.tidy(outer)
    assert inside == [(3, 3, 12)]
    assert counts() == (1, 1, 4)
    assert out["keep"][0].array_sync() == 3.0


def test_m4_nested_usage_with_keep():
    """globals_test.ts "nested usage with keep works": a kept tensor escapes all scopes."""
    held = []

    def outer():
        a = tf.scalar(1)
        tf.tidy(lambda: held.append(tf.keep(a)))

    tf.tidy(outer)
    b = held[0]
    assert not b.is_disposed
    assert b.kept
    assert counts() == (1, 1, 4)
    assert b.array_sync() == 1.0
    b.dispose()
    assert counts() == (0, 0, 0)


def test_m5_sum_in_tidy():
    """engine_test.ts "Sum(float)": after the tidy N=1, 4 bytes, value 10."""
    needs("sum")
    inside = []

    def f():
        a = tf.tensor([1, 2, 3, 4])
        inside.append((n_tensors(), tf.memory().num_bytes))
        return a.sum()

    total = tf.tidy(f)
    assert inside == [(1, 16)]
    assert (n_tensors(), tf.memory().num_bytes) == (1, 4)
    assert total.array_sync() == 10.0


def test_m6_multiple_disposes_do_not_affect_counts():
    """globals_test.ts "multiple disposes does not affect num arrays"."""
    a = tf.tensor([1, 2, 3])
    b = tf.tensor([1, 2, 3])
    assert n_tensors() == 2
    a.dispose()
    assert n_tensors() == 1
    a.dispose()
    assert n_tensors() == 1
    b.dispose()
    assert counts() == (0, 0, 0)


def test_m7_reshape_and_clone_share_the_buffer():
    """(3,1,48) -> dispose a -> (2,1,32), r still readable -> (0,0,0)."""
    a = tf.tensor([1, 2, 3, 4])
    r = a.reshape([2, 2])
    c = a.clone()
    assert counts() == (3, 1, 48)
    a.dispose()
    assert counts() == (2, 1, 32)
    assert r.array_sync() == [[1.0, 2.0], [3.0, 4.0]]
    assert c.array_sync() == [1.0, 2.0, 3.0, 4.0]
    r.dispose()
    assert counts() == (1, 1, 16)
    c.dispose()
    assert counts() == (0, 0, 0)


def test_m8_variables_are_not_affected_by_tidy():
    """variable_test.ts: inside the tidy N=1 then 2; after it 1; after dispose 0."""
    seen = []
    holder = []

    def f():
        x = tf.tensor([1, 2, 3])
        seen.append(counts())
        holder.append(tf.variable(x))
        seen.append(counts())

    tf.tidy(f)
    v = holder[0]
    assert seen == [(1, 1, 12), (2, 1, 24)]
    assert counts() == (1, 1, 12)
    assert not v.is_disposed
    assert v.array_sync() == [1.0, 2.0, 3.0]
    v.dispose()
    assert counts() == (0, 0, 0)


def test_m9_assign_does_not_dispose_old_data():
    """variable_test.ts "assign does not dispose old data": (2,1) (3,2) (3,2) (2,2)."""
    v = tf.variable(tf.tensor([1, 2, 3]))
    assert counts() == (2, 1, 24)
    second = tf.tensor([4, 5, 6])
    assert counts() == (3, 2, 36)
    v.assign(second)
    assert counts() == (3, 2, 36)
    assert v.array_sync() == [4.0, 5.0, 6.0]
    v.dispose()
    assert counts() == (2, 2, 24)
    second.dispose()
    assert counts() == (1, 1, 12)


def test_m10_profile_squaring():
    """engine_test.ts "squaring": newBytes 12, peakBytes 24, newTensors 1, two Square records."""
    needs("square")

    def f():
        x = tf.tensor([1, 2, 3])
        x2 = x.square()
        x2.dispose()
        x2 = x.square()
        x2.dispose()
        return x

    info = tf.profile(f)
    assert info.new_bytes == 12
    assert info.peak_bytes == 24
    assert info.new_tensors == 1
    assert info.kernel_names == ["Square"]
    assert info.result.array_sync() == [1.0, 2.0, 3.0]
    assert len(info.kernels) == 2
    for k in info.kernels:
        assert k.name == "Square"
        assert k.bytes_added == 12
        assert k.total_bytes_snapshot == 24
        assert k.tensors_added == 1
        assert k.total_tensors_snapshot == 2
        assert k.input_shapes == [[3]]
        assert k.output_shapes == [[3]]
        assert isinstance(k.kernel_time_ms, float) and k.kernel_time_ms >= 0
    assert counts() == (1, 1, 12)  # profile is not a tidy: x stays


# ================================================================== §1.2 the counting table


def test_view_ops_share_the_buffer_and_count_logical_bytes():
    """reshape, clone, same-dtype cast, expand_dims, squeeze and flatten: +1 tensor, +0 buffers,
    +16 bytes each (num_bytes counts every handle's logical size)."""
    a = tf.tensor1d([1, 2, 3, 4])
    assert counts() == (1, 1, 16)
    views = [a.reshape([2, 2])]
    assert counts() == (2, 1, 32)
    views.append(a.clone())
    assert counts() == (3, 1, 48)
    views.append(tf.cast(a, "float32"))
    assert counts() == (4, 1, 64)
    views.append(a.expand_dims())
    assert counts() == (5, 1, 80)
    views.append(a.squeeze())
    assert counts() == (6, 1, 96)
    views.append(a.flatten())
    assert counts() == (7, 1, 112)
    assert [v.shape for v in views] == [[2, 2], [4], [4], [1, 4], [4], [4]]
    a.dispose()
    assert counts() == (6, 1, 96)  # the buffer is still referenced
    for v in views:
        assert v.data_sync().tolist() == [1.0, 2.0, 3.0, 4.0]
    tf.dispose(views)
    assert counts() == (0, 0, 0)


def test_counting_table_exact_sequence():
    """The §1.2 table row by row (float32 -> int32 cast makes a new buffer)."""
    a = tf.tensor1d([1, 2, 3, 4])
    made = [a.reshape([2, 2]), a.clone(), tf.cast(a, "float32")]
    assert counts() == (4, 1, 64)
    made.append(tf.cast(a, "int32"))
    assert counts() == (5, 2, 80)
    made.append(tf.expand_dims(a))
    assert counts() == (6, 2, 96)
    made.append(tf.squeeze(a))
    assert counts() == (7, 2, 112)
    made.append(a.flatten())
    assert counts() == (8, 2, 128)
    a.dispose()
    assert counts() == (7, 2, 112)
    tf.dispose(made)
    assert counts() == (0, 0, 0)


def test_slice_makes_a_new_buffer():
    """§1.2: a.slice([0],[2]) on CPU is +1 tensor, +1 buffer, +8 bytes."""
    needs("slice")
    a = tf.tensor1d([1, 2, 3, 4])
    s = a.slice([0], [2])
    assert counts() == (2, 2, 24)
    a.dispose()
    assert counts() == (1, 1, 8)
    assert s.array_sync() == [1.0, 2.0]
    s.dispose()
    assert counts() == (0, 0, 0)


def test_slice_read_later():
    """slice_test.ts: zeros([10]) and a slice: N=2; after await b.data() still 2; then 0."""
    needs("zeros", "slice")
    import asyncio

    a = tf.zeros([10])
    b = tf.slice(a, 0, 1)
    assert n_tensors() == 2
    assert asyncio.run(b.data()).tolist() == [0.0]
    assert n_tensors() == 2
    tf.dispose([a, b])
    assert counts() == (0, 0, 0)


@pytest.mark.parametrize(
    ("values", "dtype", "nbytes"),
    [
        ([1, 2, 3], "float32", 12),
        ([1, 2, 3], "int32", 12),
        ([True, False, True], "bool", 3),
        (7, "float32", 4),
        ([[1, 2, 3], [4, 5, 6]], "int32", 24),
        ([], "float32", 0),
    ],
)
def test_bytes_per_element(values, dtype, nbytes):
    """bytesPerElement: float32 4, int32 4, bool 1; zero-size tensors are 0 bytes."""
    t = tf.tensor(values, None, dtype)
    assert counts() == (1, 1, nbytes)
    t.dispose()
    assert counts() == (0, 0, 0)


def test_cast_to_other_dtype_counts_the_new_dtype_bytes():
    a = tf.tensor([1, 2, 3])
    b = tf.cast(a, "bool")
    assert counts() == (2, 2, 15)
    assert b.dtype == "bool"
    tf.dispose([a, b])
    assert counts() == (0, 0, 0)


def test_op_temporaries_are_freed():
    """Each op runs in its own scope: the scalar converted from ``1`` does not survive."""
    a = tf.tensor([1, 2])
    b = tf.add(a, 1)
    assert counts() == (2, 2, 16)
    mid = a.add(2)
    c = mid.add(3)
    assert counts() == (4, 4, 32)
    tf.dispose([a, b, mid, c])
    assert counts() == (0, 0, 0)


def test_mixed_dtype_op_frees_its_cast():
    """make_types_match's cast is a temporary of the op: int32 + float32 leaves one output."""
    i = tf.tensor([1, 2], None, "int32")
    f = tf.tensor([0.5, 0.5])
    out = tf.add(i, f)
    assert out.dtype == "float32"
    assert counts() == (3, 3, 24)
    tf.dispose([i, f, out])
    assert counts() == (0, 0, 0)


# ================================================================== every op is its own scope


@tf.op
def _two_step(x):
    """A composite op: its intermediate is a temporary."""
    return tf.mul(tf.add(x, 1), 2)


@tf.op
def _pair_and_input(x):
    return {"out": [tf.add(x, 1)], "same": x}


@tf.op
def _keeps_a_temporary(x, box):
    box.append(tf.keep(tf.add(x, 10)))
    return tf.add(x, 1)


@tf.op
def _fails_after_allocating(x):
    tf.add(x, 1)
    raise ValueError("op failed")


@tf.op
def _tidy_inside(x):
    return tf.tidy(lambda: tf.mul(tf.add(x, 1), 3))


def _op_cases(top_level: bool):
    if top_level:
        tf.engine().end_scope()  # close the per-test scope: ops run with no scope at all
        assert tf.engine().state.active_scope is None
    a = tf.tensor([1, 2])
    two = _two_step(a)
    assert two.array_sync() == [4.0, 6.0]
    assert counts() == (2, 2, 16)
    r = _pair_and_input(a)
    assert r["same"] is a and not a.is_disposed
    assert r["out"][0].array_sync() == [2.0, 3.0]
    assert counts() == (3, 3, 24)
    box = []
    out = _keeps_a_temporary(a, box)
    assert box[0].kept and not box[0].is_disposed
    assert counts() == (5, 5, 40)
    with pytest.raises(ValueError, match="op failed"):
        _fails_after_allocating([5, 6])
    assert counts() == (5, 5, 40)
    tidied = _tidy_inside(a)
    assert tidied.array_sync() == [6.0, 9.0]
    assert counts() == (6, 6, 48)
    if top_level:
        assert tf.engine().state.active_scope is None
        assert all(t.scope_id is None for t in (a, two, out, r["out"][0], tidied))
    tf.dispose([a, two, r, out, box, tidied])
    assert counts() == (0, 0, 0)


def test_op_frees_its_temporaries_inside_a_scope():
    _op_cases(top_level=False)


def test_op_frees_its_temporaries_with_no_scope():
    _op_cases(top_level=True)


def test_op_results_inside_tidy_belong_to_the_tidy():
    a = tf.tensor([1, 2])
    held = []
    tf.tidy(lambda: held.extend([_two_step(a), _pair_and_input(a)["out"][0]]))
    assert all(t.is_disposed for t in held)
    assert counts() == (1, 1, 8)


# ================================================================== variables


def test_variable_adds_a_tensor_but_no_buffer():
    t = tf.tensor([1, 2, 3, 4])
    v = tf.variable(t)
    assert counts() == (2, 1, 32)
    t.dispose()
    assert counts() == (1, 1, 16)  # the variable keeps the buffer alive
    assert v.array_sync() == [1.0, 2.0, 3.0, 4.0]
    v.dispose()
    assert counts() == (0, 0, 0)


def test_variable_method_form_counts_the_same():
    t = tf.tensor([1, 2])
    v = t.variable(False, "w_method")
    assert (v.trainable, v.name) == (False, "w_method")
    assert counts() == (2, 1, 16)
    tf.dispose([t, v])
    assert counts() == (0, 0, 0)


def test_assign_aliases_the_new_buffer():
    """assign does not copy: the variable shares x's buffer; disposing x drops one reference."""
    v = tf.variable(tf.tensor([1, 2, 3]))
    x = tf.tensor([4, 5, 6])
    v.assign(x)
    x.dispose()
    assert counts() == (2, 2, 24)  # the initial tensor (leaked) and v on x's buffer
    assert v.array_sync() == [4.0, 5.0, 6.0]
    v.dispose()
    assert counts() == (1, 1, 12)


def test_assign_frees_old_buffer_when_variable_held_the_last_reference():
    t = tf.tensor([1, 2, 3])
    v = tf.variable(t)
    t.dispose()
    assert counts() == (1, 1, 12)
    x = tf.tensor([4, 5, 6])
    v.assign(x)
    assert counts() == (2, 1, 24)
    x.dispose()
    v.dispose()
    assert counts() == (0, 0, 0)


def test_variable_with_other_dtype_casts_first():
    """makeVariable casts when dtype differs; the cast is a tensor of its own (leaked if no
    scope holds it, exactly as in TF.js)."""
    t = tf.tensor([1, 2, 3], None, "int32")
    v = tf.variable(t, True, "as_float", "float32")
    assert v.dtype == "float32"
    assert v.array_sync() == [1.0, 2.0, 3.0]
    assert n_tensors() == 3  # t, the cast, v
    assert tf.memory().num_bytes == 36
    v.dispose()
    assert n_tensors() == 2


def test_dispose_variables_frees_all_and_the_names():
    a = tf.variable(tf.scalar(1), True, "a")
    b = tf.variable(tf.scalar(2), True, "b")
    assert counts() == (4, 2, 16)
    tf.dispose_variables()
    assert counts() == (2, 2, 8)  # the initial scalars are not disposed (tfjs issue #133)
    assert a.is_disposed and b.is_disposed  # TF.js leaves isDisposed false here
    c = tf.variable(tf.scalar(3), True, "a")
    assert c.name == "a"


def test_variable_double_dispose_does_not_free_shared_buffer():
    """The TF.js bug (catalog §1.4) fixed: counts (2,1) -> (1,1) -> (1,1), t still readable."""
    t = tf.tensor([1, 2, 3])
    v = tf.variable(t)
    assert counts() == (2, 1, 24)
    v.dispose()
    assert counts() == (1, 1, 12)
    v.dispose()
    assert counts() == (1, 1, 12)
    tf.dispose(v)
    tf.dispose([v, {"v": v}])
    assert counts() == (1, 1, 12)
    assert t.array_sync() == [1.0, 2.0, 3.0]


# ================================================================== strings and complex64


def test_string_tensor_bytes():
    """engine_test.ts "string tensor": [['a','bb'],['c','d']] is 5 bytes; disposed, 0."""
    t = tf.tensor([["a", "bb"], ["c", "d"]])
    assert counts() == (1, 1, 5)
    m = tf.memory()
    assert m.unreliable is True
    assert "Memory usage by string tensors is approximate (2 bytes per character)" in m.reasons
    t.dispose()
    assert counts() == (0, 0, 0)
    assert "Memory usage by string tensors is approximate (2 bytes per character)" not in (
        tf.memory().reasons
    )


def test_string_bytes_are_utf8():
    t = tf.tensor(["héllo", "€"])
    assert tf.memory().num_bytes == 6 + 3
    t.dispose()
    assert counts() == (0, 0, 0)


def test_string_views_count_bytes_per_handle():
    """TF.js adds 0 bytes for a string reshape/clone but subtracts 5 when each is disposed,
    ending at numBytes -10 (verified). Here every handle counts its bytes, as for other
    dtypes, so the count returns to 0."""
    t = tf.tensor([["a", "bb"], ["c", "d"]])
    r = t.reshape([4])
    c = t.clone()
    assert counts() == (3, 1, 15)
    assert r.array_sync() == ["a", "bb", "c", "d"]
    t.dispose()
    assert counts() == (2, 1, 10)
    tf.dispose([r, c])
    assert counts() == (0, 0, 0)


def test_string_variable_counts_bytes():
    t = tf.tensor(["ab", "c"])
    v = tf.variable(t)
    assert counts() == (2, 1, 6)
    t.dispose()
    v.dispose()
    assert counts() == (0, 0, 0)
    assert tf.memory().reasons == [
        "The reported memory is an upper bound. Due to automatic garbage collection, the true "
        "allocated memory may be less."
    ]


def test_complex64_counts_no_bytes_of_its_own():
    """TF.js: tf.complex([1,2],[3,4]) is (1,1,0); clone/reshape/same-dtype cast add a tensor and
    no buffer or bytes; the real part (cast to float32) is a new float32 buffer of 8 bytes."""
    c = tf.tensor([1 + 3j, 2 + 4j])
    assert c.dtype == "complex64"
    assert counts() == (1, 1, 0)
    views = [c.clone(), c.reshape([2, 1]), tf.cast(c, "complex64"), c.expand_dims(0)]
    assert counts() == (5, 1, 0)
    re = tf.cast(c, "float32")
    assert counts() == (6, 2, 8)
    assert re.array_sync() == [1.0, 2.0]
    tf.dispose([c, re, views])
    assert counts() == (0, 0, 0)


def test_complex_op_counts():
    """tf.complex(real, imag): the converted parts are op temporaries; the result is (1,1,0)."""
    needs("complex")
    c = tf.complex([1, 2], [3, 4])
    assert c.dtype == "complex64"
    assert counts() == (1, 1, 0)
    c.dispose()
    assert counts() == (0, 0, 0)


# ================================================================== extra memory facts


def test_time_does_not_dispose():
    """tf.time(f) leaves what f makes (TF.js leaked 3 tensors for ones.matMul(ones))."""
    a = tf.tensor([1, 2])
    timing = tf.time(lambda: a.add(1).mul(2))
    assert n_tensors() == 3
    assert timing.kernel_ms >= 0 and timing.wall_ms >= 0


def test_profile_does_not_dispose_and_records_view_kernels():
    def f():
        x = tf.tensor([1, 2, 3, 4])
        return x.reshape([2, 2])

    info = tf.profile(f)
    assert info.new_tensors == 2
    assert info.new_bytes == 32
    assert info.kernel_names == ["Reshape"]
    (k,) = info.kernels
    assert (k.bytes_added, k.total_bytes_snapshot, k.tensors_added) == (16, 32, 1)
    assert (k.input_shapes, k.output_shapes) == ([[4]], [[2, 2]])
    assert counts() == (2, 1, 32)


def test_tensors_without_a_scope_are_never_auto_disposed():
    """Tensors made with no active scope belong to nobody: only dispose() frees them."""
    engine = tf.engine()
    engine.end_scope()  # close the per-test scope
    assert engine.state.active_scope is None
    a = tf.tensor([1, 2])
    b = tf.add(a, 1)
    assert a.scope_id is None and b.scope_id is None
    tf.tidy(lambda: None)
    assert counts() == (2, 2, 16)
    tf.dispose([a, b])
    assert counts() == (0, 0, 0)


def test_no_leak_pattern_for_ops():
    """The "ensure no memory leak" pattern: counts and backend data ids return to the start."""
    backend = tf.backend()
    before = (n_tensors(), backend.num_data_ids())
    a = tf.tensor([[1, 2], [3, 4]])
    b = tf.tensor([1, 2], None, "int32")
    out = [tf.add(a, b), tf.mul(a, 2), tf.reshape(a, [4]), tf.div(b, 2), tf.sub(1, a)]
    tf.dispose([a, b, out])
    assert (n_tensors(), backend.num_data_ids()) == before
