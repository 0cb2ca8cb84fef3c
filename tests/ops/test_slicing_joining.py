"""Slicing and joining ops against TF.js goldens, plus Python indexing against NumPy, edge
cases, errors and properties."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tidytensor as tf
from golden_util import call_case, case_ids, check_case, load_cases
from tidytensor.errors import GradientError

CASES = load_cases("slicing_joining")


@pytest.mark.parametrize(("case", "expected"), CASES, ids=case_ids(CASES))
def test_golden(case, expected):
    check_case(case, expected)


EXACT = [(c, e) for c, e in CASES if e.get("dtype") in ("int32", "bool")]


@pytest.mark.parametrize(("case", "expected"), EXACT, ids=case_ids(EXACT))
def test_golden_integers_exact(case, expected):
    got = call_case(case)
    assert [int(v) for v in np.asarray(got.data_sync()).reshape(-1)] == expected["values"]


def i32(values, shape=None):
    return tf.tensor(values, shape, "int32")


def b(values, shape=None):
    return tf.tensor(values, shape, "bool")


# ---------------------------------------------------------------------------- memory and kernels
def test_kernels_run_match_tfjs():
    # Kernel names recorded from tf.profile in TF.js 4.22.0 (cpu).
    t = tf.tensor
    expected = {
        "concat1": (lambda: tf.concat([t([1])]), ["Identity"]),
        "concat2": (lambda: tf.concat([t([1]), t([2])]), ["Concat"]),
        "stack": (lambda: tf.stack([t([1]), t([2])]), ["Pack"]),
        "unstack": (lambda: tf.unstack(t([[1, 2]])), ["Unpack"]),
        "split": (lambda: tf.split(t([1, 2]), 2), ["SplitV"]),
        "slice1d": (lambda: tf.slice1d(t([1, 2]), 0, 1), ["Slice"]),
        "reverse2d": (lambda: tf.reverse2d(t([[1, 2]])), ["Reverse"]),
        "meshgrid": (lambda: tf.meshgrid(t([1, 2]), t([3])), ["Reshape", "BatchMatMul"]),
        "gather_array": (lambda: tf.gather(t([1, 2]), [1]), ["GatherV2"]),
        "strided_slice": (lambda: tf.strided_slice(t([1, 2, 3]), [0], [2], [1]), ["StridedSlice"]),
        "scatter_nd": (lambda: tf.scatter_nd(i32([[0]]), t([1]), [2]), ["ScatterNd"]),
        "tensor_scatter_update": (
            lambda: tf.tensor_scatter_update(t([1, 2]), i32([[0]]), t([5])),
            ["TensorScatterUpdate"],
        ),
        "gather_nd": (lambda: tf.gather_nd(t([1, 2]), i32([[1]])), ["GatherNd"]),
        "tile": (lambda: tf.tile(t([1]), [2]), ["Tile"]),
        "boolean_mask": (
            lambda: tf.boolean_mask_async(t([1, 2]), b([True, False])),
            ["Reshape", "GatherV2"],
        ),
    }
    for name, (fn, kernels) in expected.items():
        assert tf.profile(fn).kernel_names == kernels, name


def test_slice_makes_a_new_buffer_as_tfjs_cpu():
    a = tf.tensor([1, 2, 3, 4])
    before = tf.memory()
    s = a.slice([0], [2])
    after = tf.memory()
    assert (
        after.num_tensors - before.num_tensors,
        after.num_data_buffers - before.num_data_buffers,
    ) == (1, 1)
    assert after.num_bytes - before.num_bytes == 8
    a.dispose()
    assert s.array_sync() == [1, 2]


def test_tensor_scatter_update_leaves_its_input_alone():
    # TF.js's CPU kernel writes the updates into its input's buffer too; tidytensor does not.
    t = tf.tensor([1, 2, 3])
    out = tf.tensor_scatter_update(t, i32([[0]]), tf.tensor([9]))
    assert out.array_sync() == [9, 2, 3]
    assert t.array_sync() == [1, 2, 3]


def test_meshgrid_leaks_like_tfjs_outside_tidy_and_not_inside():
    x, y = tf.tensor([1, 2, 3]), tf.tensor([4, 5])
    before = tf.memory().num_tensors
    grids = tf.tidy(lambda: tf.meshgrid(x, y))
    assert tf.memory().num_tensors == before + 2
    tf.dispose(grids)
    assert tf.memory().num_tensors == before


def test_split_and_unstack_outputs_are_independent():
    parts = tf.split(tf.tensor([1, 2, 3, 4]), 2)
    rows = tf.unstack(tf.tensor([[1, 2], [3, 4]]))
    parts[0].dispose()
    rows[0].dispose()
    assert parts[1].array_sync() == [3, 4]
    assert rows[1].array_sync() == [3, 4]


# ---------------------------------------------------------------------------- TF.js CPU bugs not copied
def test_strided_slice_shrink_with_stride_gives_numpy_result():
    x = tf.tensor([[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]])
    # x[1, ::2]: TF.js 4.22.0's CPU kernel returns [1, 2] here.
    assert tf.strided_slice(x, [1, 0], [2, 4], [1, 2], 0, 0, 0, 0, 1).array_sync() == [4, 6]
    # x[0, None, ::2]: TF.js throws "[1,2] does not match the input size 1."
    got = tf.strided_slice(x, [0, 0, 0], [1, 0, 4], [1, 1, 2], 0, 4, 0, 2, 1)
    assert got.shape == [1, 2] and got.array_sync() == [[0, 2]]
    # x[::2, 1]
    assert tf.strided_slice(x, [0, 1], [0, 2], [2, 1], 1, 1, 0, 0, 2).array_sync() == [1, 9]


def test_strided_slice_begin_after_end_is_empty():
    # TF.js's fast path turns begin > end into a negative slice size (an error or a wrong slice).
    x = tf.tensor([1, 2, 3, 4, 5])
    assert tf.strided_slice(x, [3], [1], [1]).shape == [0]
    assert tf.strided_slice(x, [2], [1], [1]).shape == [0]


# ---------------------------------------------------------------------------- edge cases and errors
def test_keyword_arguments():
    x = tf.tensor([[1, 2, 3], [4, 5, 6]])
    assert tf.gather(x, i32([1]), axis=1, batch_dims=0).array_sync() == [[2], [5]]
    assert tf.slice(x, begin=[0, 1], size=[1, 2]).array_sync() == [[2, 3]]
    assert [p.shape for p in tf.split(x, num_or_size_splits=[2, 1], axis=1)] == [[2, 2], [2, 1]]
    assert tf.strided_slice(
        x, [0, 0], [2, 3], strides=[1, 2], end_mask=0, shrink_axis_mask=1
    ).array_sync() == [1, 3]
    assert tf.concat(tensors=[x, x], axis=0).shape == [4, 3]
    assert tf.stack(tensors=[x, x], axis=2).shape == [2, 3, 2]
    assert tf.tile(x, reps=[1, 2]).shape == [2, 6]
    assert tf.reverse(x, axis=[0]).array_sync() == [[4, 5, 6], [1, 2, 3]]
    assert tf.meshgrid(tf.tensor([1]), tf.tensor([2]), indexing="ij")[0].shape == [1, 1]


def test_concat_mixed_dtypes_keep_the_first():
    got = tf.concat([i32([1]), tf.tensor([2.7, -1.5, float("nan")]), b([True])])
    assert got.dtype == "int32"
    assert got.array_sync() == [1, 2, -1, 0, 1]
    got = tf.concat([b([False]), i32([0, 256, 3])])
    assert got.dtype == "bool" and got.array_sync() == [0, 0, 0, 1]
    with pytest.raises(tf.TidyTensorError, match="cannot join tensors of dtypes"):
        tf.concat([tf.tensor(["a"]), tf.tensor([1])])


def test_concat_complex():
    c = tf.cast(tf.tensor([1, 2]), "complex64")
    got = tf.concat([c, c])
    assert got.dtype == "complex64" and got.shape == [4]
    with pytest.raises(
        tf.TidyTensorError,
        match="Cannot concatenate complex64 tensors with a tensor with dtype float32",
    ):
        tf.concat([c, tf.tensor([1])])


def test_concat_and_stack_need_lists():
    with pytest.raises(tf.TidyTensorError, match="Pass at least one tensor to concat"):
        tf.concat(tf.tensor([1]))
    with pytest.raises(tf.TidyTensorError, match="must be a `Tensor\\[\\]` or `TensorLike\\[\\]`"):
        tf.stack(tf.tensor([1]))


def test_split_zero_parts():
    with pytest.raises(tf.TidyTensorError, match="Number of splits must evenly divide the axis."):
        tf.split(tf.tensor([1, 2]), 0)
    with pytest.raises(tf.TidyTensorError, match="must not be empty"):
        tf.split(tf.tensor([1, 2]), [])


def test_tile_negative_reps():
    with pytest.raises(tf.TidyTensorError, match="reps must be non-negative"):
        tf.tile(tf.tensor([1]), [-1])


def test_gather_nd_checks_only_the_flat_position_as_tfjs():
    # TF.js accepts [0, 2] on shape [2, 2]: its flat position 2 is inside the tensor.
    assert tf.gather_nd(tf.tensor([[1, 2], [3, 4]]), i32([[0, 2]])).array_sync() == [3]


def test_scatter_nd_bool_and_empty_output():
    assert tf.scatter_nd(i32([[0], [0]]), b([True, True]), [2]).array_sync() == [1, 0]
    assert tf.scatter_nd(i32([[0]]), tf.tensor([[]], [1, 0]), [2, 0]).shape == [2, 0]


def test_methods_exist():
    x = tf.tensor([[1, 2], [3, 4]])
    assert x.gather(i32([1])).array_sync() == [[3, 4]]
    assert x.strided_slice([0], [1], [1]).shape == [1, 2]
    assert x.tile([1, 2]).shape == [2, 4]
    assert [t.shape for t in x.split(2)] == [[1, 2], [1, 2]]
    assert [t.array_sync() for t in x.unstack(1)] == [[1, 3], [2, 4]]
    assert x.reverse().array_sync() == [[4, 3], [2, 1]]
    assert x.stack(x, 0).shape == [2, 2, 2]


# ---------------------------------------------------------------------------- Python indexing
def test_getitem_basics():
    t = tf.tensor([[1, 2, 3], [4, 5, 6]])
    assert t[1].array_sync() == [4, 5, 6]
    assert t[-1, -1].array_sync() == 6
    assert t[:, 1:].array_sync() == [[2, 3], [5, 6]]
    assert t[::-1, ::2].array_sync() == [[4, 6], [1, 3]]
    assert t[None].shape == [1, 2, 3]
    assert t[..., None].shape == [2, 3, 1]
    assert t[..., 0].array_sync() == [1, 4]
    assert t[[1, 0]].array_sync() == [[4, 5, 6], [1, 2, 3]]
    assert t[:, [-1]].array_sync() == [[3], [6]]
    assert t[:, i32([2, 0])].array_sync() == [[3, 1], [6, 4]]
    assert t[b([False, True])].array_sync() == [[4, 5, 6]]
    assert t[t > 3].array_sync() == [4, 5, 6]
    assert t[i32(1)].array_sync() == [4, 5, 6]
    assert t[np.int64(0), np.array([2])].array_sync() == [3]
    assert t[np.array([True, False])].shape == [1, 3]


def test_getitem_separated_advanced_indices_go_first_as_numpy():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    t = tf.tensor(x)
    m = np.array([True, False, True, True])
    for np_key, key in [
        ((0, slice(None), [1, 2]), (0, slice(None), [1, 2])),
        (([0, 1], None, 0), ([0, 1], None, 0)),
        ((1, Ellipsis, m), (1, Ellipsis, b(m.tolist()))),
        ((0, Ellipsis, [1, 2], slice(None)), (0, Ellipsis, [1, 2], slice(None))),
    ]:
        got = t[key]
        assert got.shape == list(x[np_key].shape)
        np.testing.assert_array_equal(got.numpy(), x[np_key])


def test_getitem_strings_and_ints():
    s = tf.tensor([["a", "b"], ["c", "d"]])
    assert s[1, ::-1].array_sync() == ["d", "c"]
    assert s[:, [0]].array_sync() == [["a"], ["c"]]
    x = i32([[1, 2], [3, 4]])
    assert x[1].dtype == "int32" and x[0, 1].array_sync() == 2


def test_getitem_memory():
    t = tf.tensor([[1, 2, 3], [4, 5, 6]])
    before = tf.memory()
    whole = t[:]
    view = t[..., None]
    mid = tf.memory()
    assert mid.num_tensors - before.num_tensors == 2
    assert mid.num_data_buffers == before.num_data_buffers  # identity slices share, as reshape does
    part = t[0, [0, 2]]
    after = tf.memory()
    assert after.num_tensors - mid.num_tensors == 1
    assert after.num_data_buffers - mid.num_data_buffers == 1
    assert part.array_sync() == [1, 3] and whole.shape == [2, 3] and view.shape == [2, 3, 1]


def test_getitem_iteration_stops_with_index_error():
    t = tf.tensor([[1, 2], [3, 4], [5, 6]])
    assert [row.array_sync() for row in t] == [[1, 2], [3, 4], [5, 6]]
    with pytest.raises(IndexError, match="index 3 is out of bounds for axis 0 with size 3"):
        t[3]


def test_getitem_errors():
    t = tf.tensor([[1, 2, 3], [4, 5, 6]])
    with pytest.raises(IndexError, match="index -4 is out of bounds for axis 1 with size 3"):
        t[0, -4]
    with pytest.raises(
        IndexError, match="too many indices for tensor: tensor is 2-dimensional, but 3 were indexed"
    ):
        t[0, 0, 0]
    with pytest.raises(IndexError, match="an index can only have a single ellipsis"):
        t[..., ...]
    with pytest.raises(IndexError, match="only integers, slices"):
        t[1.5]
    with pytest.raises(IndexError, match="only integers, slices"):
        t[True]
    with pytest.raises(IndexError, match="only integers, slices"):
        t[[0.5]]
    with pytest.raises(IndexError, match="only integers, slices"):
        t[tf.tensor([0.0])]
    with pytest.raises(IndexError, match="index 2 is out of bounds for axis 0 with size 2"):
        t[[0, 2]]
    with pytest.raises(IndexError, match="index -3 is out of bounds"):
        t[i32([-3])]
    with pytest.raises(IndexError, match="boolean index did not match"):
        t[b([True, False, True])]
    with pytest.raises(IndexError, match="one integer-array or boolean index per key"):
        t[[0], [1]]
    with pytest.raises(tf.TidyTensorError, match="slice step cannot be zero"):
        t[::0]
    assert isinstance(pytest.raises(tf.TidyTensorError, lambda: t[9]).value, IndexError)
    assert tf.memory().num_tensors == 4  # t and the three key tensors made above: nothing leaked


def test_getitem_on_disposed_tensor():
    t = tf.tensor([1, 2])
    t.dispose()
    with pytest.raises(tf.TensorDisposedError):
        t[0]


def test_getitem_scalar_tensor():
    s = tf.scalar(3)
    assert s[()].array_sync() == 3
    assert s[None].shape == [1]
    assert s[...].shape == []


@st.composite
def index_cases(draw):
    """A shape and a NumPy-style key: ints, slices, None, at most one Ellipsis and at most one
    advanced index (an int list / int32 tensor, or a bool mask over 1-2 dimensions)."""
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4))
    rank = len(shape)
    kinds = []
    width = 0
    for _ in range(draw(st.integers(0, rank))):
        kind = draw(st.sampled_from(["int", "slice", "slice", "adv"]))
        if kind == "adv" and any(k[0] == "adv" for k in kinds):
            kind = "slice"
        w = draw(st.integers(1, min(2, rank - width))) if kind == "adv" else 1
        if width + w > rank:
            break
        kinds.append((kind, w))
        width += w
    ellipsis_at = draw(st.none() | st.integers(0, len(kinds)))
    # Dimensions each consumer indexes: before the ellipsis from the front, after it from the back.
    dims = []
    before = kinds if ellipsis_at is None else kinds[:ellipsis_at]
    d = 0
    for _, w in before:
        dims.append(list(range(d, d + w)))
        d += w
    if ellipsis_at is not None:
        after_width = sum(w for _, w in kinds[ellipsis_at:])
        d = rank - after_width
        for _, w in kinds[ellipsis_at:]:
            dims.append(list(range(d, d + w)))
            d += w
    key = []
    for (kind, w), ds in zip(kinds, dims, strict=True):
        size = shape[ds[0]]
        if kind == "int" and size > 0:
            i = draw(st.integers(-size, size - 1))
            key.append(draw(st.sampled_from(["py", "np", "tensor"])) + ":" + str(i))
        elif kind == "adv" and w == 1 and draw(st.booleans()):
            n = draw(st.integers(0, 3)) if size > 0 else 0
            values = [draw(st.integers(-size, size - 1)) for _ in range(n)]
            nested = draw(st.booleans()) and n > 0
            key.append(("array", [values] if nested else values, draw(st.booleans())))
        elif kind == "adv":
            mask_shape = [shape[j] for j in ds]
            mask = draw(hnp.arrays(np.bool_, mask_shape))
            key.append(("mask", mask, draw(st.booleans())))
        else:
            bounds = st.none() | st.integers(-6, 6)
            step = draw(st.none() | st.sampled_from([-3, -2, -1, 1, 2, 3]))
            key.append(slice(draw(bounds), draw(bounds), step))
    if ellipsis_at is not None:
        key.insert(ellipsis_at, Ellipsis)
    for _ in range(draw(st.integers(0, 2))):  # new axes consume no dimension
        key.insert(draw(st.integers(0, len(key))), None)
    return shape, key


def _keys(key):
    """The same key for NumPy and for tidytensor (tensors for some advanced indices)."""
    np_key, tt_key = [], []
    for part in key:
        if isinstance(part, str):
            how, value = part.split(":")
            np_key.append(int(value))
            tt_key.append({"py": int(value), "np": np.int64(value), "tensor": i32(int(value))}[how])
        elif isinstance(part, tuple) and part[0] == "array":
            np_key.append(np.asarray(part[1], dtype=np.int64))
            tt_key.append(i32(part[1]) if part[2] else part[1])
        elif isinstance(part, tuple):
            np_key.append(part[1])
            as_tensor = part[2] or part[1].size == 0  # an empty nested list loses its shape
            tt_key.append(tf.tensor(part[1], None, "bool") if as_tensor else part[1].tolist())
        else:
            np_key.append(part)
            tt_key.append(part)
    return tuple(np_key), tuple(tt_key)


@settings(max_examples=400, deadline=None)
@given(case=index_cases())
def test_getitem_matches_numpy(case):
    shape, key = case
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    np_key, tt_key = _keys(key)
    want = x[np_key]
    t = tf.tensor(x)
    before = tf.memory().num_tensors
    got = t[tt_key]
    assert tf.memory().num_tensors == before + 1, "indexing leaked tensors"
    assert got.shape == list(want.shape), (key, got.shape, want.shape)
    np.testing.assert_array_equal(got.numpy(), want)


# ---------------------------------------------------------------------------- properties vs NumPy
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_strided_slice_matches_numpy_slicing(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=5))
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    begin, end, strides = [], [], []
    begin_mask = end_mask = 0
    slices = []
    for i in range(len(shape)):
        s = data.draw(st.sampled_from([-2, -1, 1, 2, 3]))
        lo = data.draw(st.none() | st.integers(-7, 7))
        hi = data.draw(st.none() | st.integers(-7, 7))
        begin_mask |= (lo is None) << i
        end_mask |= (hi is None) << i
        begin.append(lo or 0)
        end.append(hi or 0)
        strides.append(s)
        slices.append(slice(lo, hi, s))
    got = tf.strided_slice(tf.tensor(x), begin, end, strides, begin_mask, end_mask)
    np.testing.assert_array_equal(got.numpy(), x[tuple(slices)])


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_gather_matches_numpy_take(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    dim = shape[axis]
    idx = data.draw(
        hnp.arrays(
            np.int32,
            data.draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3)),
            elements=st.integers(0, dim - 1),
        )
    )
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    got = tf.gather(tf.tensor(x), tf.tensor(idx, None, "int32"), axis)
    np.testing.assert_array_equal(got.numpy(), np.take(x, idx, axis=axis))


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_concat_split_stack_unstack_round_trip(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=4))
    axis = data.draw(st.integers(0, len(shape) - 1))
    x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    cuts = sorted(data.draw(st.lists(st.integers(0, shape[axis]), max_size=3)))
    sizes = [b2 - a for a, b2 in zip([0, *cuts], [*cuts, shape[axis]], strict=True)]
    parts = tf.split(i32(x.tolist(), list(shape)), sizes, axis)
    assert [p.shape[axis] for p in parts] == sizes
    np.testing.assert_array_equal(tf.concat(parts, axis).numpy(), x)
    rows = tf.unstack(tf.tensor(x, None, "int32"), axis)
    if rows:
        np.testing.assert_array_equal(tf.stack(rows, axis).numpy(), x)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_scatter_nd_matches_numpy_add_at(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    k = data.draw(st.integers(1, len(shape)))
    n = data.draw(st.integers(1, 5))
    idx = np.array(
        [[data.draw(st.integers(0, shape[j] - 1)) for j in range(k)] for _ in range(n)],
        dtype=np.int32,
    )
    upd = np.arange(n * int(np.prod(shape[k:])), dtype=np.float32).reshape((n, *shape[k:]))
    want = np.zeros(shape, np.float32)
    np.add.at(want, tuple(idx.T), upd)
    got = tf.scatter_nd(tf.tensor(idx, None, "int32"), tf.tensor(upd), list(shape))
    np.testing.assert_array_equal(got.numpy(), want)
    np.testing.assert_array_equal(
        tf.gather_nd(got, tf.tensor(idx, None, "int32")).numpy(), want[tuple(idx.T)]
    )


# ---------------------------------------------------------------------------- gradients
class GradSpec(NamedTuple):
    name: str  # the op's name, then optionally a space and a variant
    fn: object
    shapes: list


def _idx(values):
    return tf.tensor(values, None, "int32")


def _weighted(parts):
    """Joins a list of outputs with a different weight each, so every part's dy differs."""
    return tf.concat([tf.reshape(p, [-1]).mul(i + 1) for i, p in enumerate(parts)], 0)


GRAD_OPS = [
    GradSpec(
        "boolean_mask_async",
        lambda x: tf.boolean_mask_async(x, tf.tensor([True, False, True])),
        [[3, 2]],
    ),
    GradSpec("concat", lambda a, b: tf.concat([a, b], 1), [[2, 3], [2, 1]]),
    GradSpec("concat three with repeat", lambda a, b: tf.concat([a, b, a], -1), [[2, 2], [2, 1]]),
    GradSpec("concat single", lambda a: tf.concat([a]), [[2, 3]]),
    GradSpec("concat1d", lambda a, b: tf.concat1d([a, b]), [[2], [3]]),
    GradSpec("concat2d", lambda a, b: tf.concat2d([a, b], 0), [[1, 3], [2, 3]]),
    GradSpec("concat3d", lambda a, b: tf.concat3d([a, b], 2), [[1, 2, 1], [1, 2, 2]]),
    GradSpec("concat4d", lambda a, b: tf.concat4d([a, b], 1), [[1, 1, 2, 1], [1, 2, 2, 1]]),
    GradSpec("gather", lambda x: tf.gather(x, _idx([2, 0, 2])), [[3, 2]]),
    GradSpec("gather axis 1", lambda x: tf.gather(x, _idx([[1, 1], [0, 2]]), 1), [[2, 3, 2]]),
    GradSpec("gather batch_dims 1", lambda x: tf.gather(x, _idx([[2, 0], [1, 1]]), 1, 1), [[2, 3]]),
    GradSpec("meshgrid", lambda x, y: _weighted(tf.meshgrid(x, y)), [[3], [2]]),
    GradSpec("meshgrid ij", lambda x, y: _weighted(tf.meshgrid(x, y, indexing="ij")), [[3], [2]]),
    GradSpec("reverse", lambda x: tf.reverse(x, [0, -1]), [[2, 3, 2]]),
    GradSpec("reverse1d", tf.reverse1d, [[4]]),
    GradSpec("reverse2d", lambda x: tf.reverse2d(x, 1), [[2, 3]]),
    GradSpec("reverse3d", lambda x: tf.reverse3d(x, [1]), [[2, 3, 1]]),
    GradSpec("reverse4d", lambda x: tf.reverse4d(x), [[1, 2, 3, 1]]),
    GradSpec("slice", lambda x: tf.slice(x, [1, 0], [1, -1]), [[3, 4]]),
    GradSpec("slice number begin", lambda x: tf.slice(x, 2), [[4, 2]]),
    GradSpec("slice1d", lambda x: tf.slice1d(x, 1, 2), [[4]]),
    GradSpec("slice2d", lambda x: tf.slice2d(x, [0, 1], [2, 2]), [[3, 3]]),
    GradSpec("slice3d", lambda x: tf.slice3d(x, [0, 1, 0], [1, 1, 2]), [[2, 2, 2]]),
    GradSpec("slice4d", lambda x: tf.slice4d(x, [1, 0, 0, 1], [1, 2, 1, 1]), [[2, 2, 2, 2]]),
    GradSpec("split", lambda x: _weighted(tf.split(x, [1, 2], 1)), [[2, 3]]),
    GradSpec("split one part used", lambda x: tf.split(x, 2, 0)[1], [[4, 3]]),
    GradSpec("split single part", lambda x: tf.split(x, 1)[0], [[2, 3]]),
    GradSpec("stack", lambda a, b: tf.stack([a, b], 1), [[2, 3], [2, 3]]),
    GradSpec("stack negative axis", lambda a, b: tf.stack([b, a, b], -1), [[3], [3]]),
    GradSpec("stack single", lambda a: tf.stack([a]), [[2, 2]]),
    GradSpec("tile", lambda x: tf.tile(x, [2, 3]), [[2, 2]]),
    GradSpec("tile 1d", lambda x: tf.tile(x, [3]), [[2]]),
    GradSpec("tile 3d", lambda x: tf.tile(x, [1, 2, 2]), [[2, 1, 2]]),
    GradSpec("tile 4d", lambda x: tf.tile(x, [2, 1, 1, 2]), [[1, 2, 1, 2]]),
    GradSpec("unstack", lambda x: _weighted(tf.unstack(x, 1)), [[2, 3]]),
    GradSpec("unstack one part used", lambda x: tf.unstack(x)[0], [[2, 3]]),
    GradSpec("unstack single part", lambda x: tf.unstack(x, 0)[0], [[1, 3]]),
]

#: Ops of the family without a gradient, as in TF.js (catalog §2.3).
NOT_DIFFERENTIABLE = {
    "gather_nd": "GatherNd has no gradient (golden 'grad gatherND no gradient')",
    "scatter_nd": "ScatterNd has no gradient",
    "strided_slice": "StridedSlice has no gradient (golden 'grad stridedSlice no gradient')",
    "tensor_scatter_update": "TensorScatterUpdate has no gradient (golden)",
}


@pytest.mark.parametrize("spec", GRAD_OPS, ids=[s.name for s in GRAD_OPS])
def test_check_grads(spec):
    rng = np.random.default_rng(sum(map(ord, spec.name)))
    args = [
        tf.tensor(rng.uniform(-2, 2, shape).astype(np.float32), list(shape))
        for shape in spec.shapes
    ]
    tf.testing.check_grads(spec.fn, args)


def test_grad_table_covers_every_op():
    from tidytensor.ops import slicing_joining

    covered = {s.name.split()[0] for s in GRAD_OPS} | set(NOT_DIFFERENTIABLE)
    assert set(slicing_joining.__all__) <= covered, set(slicing_joining.__all__) - covered


def _memory_delta(fn):
    before = tf.memory()
    result = fn()
    after = tf.memory()
    return result, (
        after.num_tensors - before.num_tensors,
        after.num_data_buffers - before.num_data_buffers,
    )


# The spec format cannot put a differentiated tensor inside a list argument, nor take the
# gradient of a function returning a list: TF.js 4.22.0's results for these tf.grads calls,
# with its tf.memory() deltas (tensors, buffers).
A = [[1, 2], [3, 4]]
B = [[5, 6], [7, 8]]
TFJS_LIST_GRADS = [
    (
        "concat axis 1",
        lambda x, y: tf.concat([x, y], 1),
        [A, [[9], [10]]],
        [[1, 2, 3], [4, 5, 6]],
        [[[1, 2], [4, 5]], [[3], [6]]],
        (2, 2),
    ),
    (
        "concat axis 0",
        lambda x, y: tf.concat([x, y], 0),
        [A, B],
        [[1, 2], [3, 4], [5, 6], [7, 8]],
        [[[1, 2], [3, 4]], [[5, 6], [7, 8]]],
        (2, 2),
    ),
    (
        "concat negative axis",
        lambda x, y: tf.concat([x, y], -1),
        [A, B],
        None,
        [[[1, 1], [1, 1]], [[1, 1], [1, 1]]],
        (2, 2),
    ),
    (
        "concat same tensor twice",
        lambda x: tf.concat([x, x], 0),
        [A],
        [[1, 2], [3, 4], [5, 6], [7, 8]],
        [[[6, 8], [10, 12]]],
        (1, 1),
    ),
    (
        "stack",
        lambda x, y: tf.stack([x, y], 1),
        [A, B],
        [[[1, 2], [3, 4]], [[5, 6], [7, 8]]],
        [[[1, 2], [5, 6]], [[3, 4], [7, 8]]],
        (2, 2),
    ),
    ("stack single", lambda x: tf.stack([x], 0), [A], None, [[[1, 1], [1, 1]]], (1, 1)),
    (
        "stack negative axis",
        lambda x, y: tf.stack([x, y], -1),
        [A, B],
        [[[1, 2], [3, 4]], [[5, 6], [7, 8]]],
        [[[1, 3], [5, 7]], [[2, 4], [6, 8]]],
        (2, 2),
    ),
    (
        "split all parts",
        lambda x: (lambda p: tf.concat([p[0].mul(2), p[1].mul(3)], 1))(tf.split(x, [1, 2], 1)),
        [[[1, 2, 3], [4, 5, 6]]],
        None,
        [[[2, 3, 3], [2, 3, 3]]],
        (1, 1),
    ),
    (
        "split one part used",
        lambda x: tf.split(x, [1, 2], 1)[1].mul(2),
        [[[1, 2, 3], [4, 5, 6]]],
        None,
        [[[0, 2, 2], [0, 2, 2]]],
        (1, 1),
    ),
    ("split even", lambda x: tf.split(x, 2, 0)[0], [[1, 2, 3, 4]], None, [[1, 1, 0, 0]], (1, 1)),
    (
        "unstack all parts",
        lambda x: (lambda p: tf.stack([p[1].mul(2), p[0].mul(3)]))(tf.unstack(x, 1)),
        [A],
        None,
        [[[3, 2], [3, 2]]],
        (1, 1),
    ),
    ("unstack one part used", lambda x: tf.unstack(x)[1], [A], None, [[[0, 0], [1, 1]]], (1, 1)),
]


@pytest.mark.parametrize(
    ("name", "fn", "xs", "dy", "want", "delta"),
    TFJS_LIST_GRADS,
    ids=[g[0] for g in TFJS_LIST_GRADS],
)
def test_list_op_grads_match_tfjs(name, fn, xs, dy, want, delta):
    xs = [tf.tensor(x) for x in xs]
    dy = None if dy is None else tf.tensor(dy)
    grads, got_delta = _memory_delta(lambda: tf.grads(fn)(xs, dy))
    assert [g.array_sync() for g in grads] == want
    assert all(g.dtype == "float32" for g in grads)
    assert got_delta == delta


def test_single_output_split_and_unstack_grads():
    """With one output, SplitV and Unpack get that output's dy as a tensor; TF.js 4.22.0 then
    fails ("Pass at least one tensor to concat", "Argument tensors passed to stack must be a
    `Tensor[]`"), tidytensor joins the one gradient."""
    x = tf.tensor([[1.0, 2.0]])
    assert tf.grad(lambda t: tf.split(t, 1, 0)[0].mul(2))(x).array_sync() == [[2.0, 2.0]]
    assert tf.grad(lambda t: tf.unstack(t, 0)[0].mul(2))(x).array_sync() == [[2.0, 2.0]]


def test_gather_grad_wrt_indices_is_refused():
    x, idx = tf.tensor([1.0, 2.0, 3.0]), _idx([0, 2])
    with pytest.raises(GradientError, match="must have 'float32' dtype, but has 'int32'"):
        tf.grads(lambda a, i: tf.gather(a, i))([x, idx])


def test_tile_grad_rank_5_not_implemented():
    x = tf.ones([1, 1, 1, 1, 2])
    with pytest.raises(GradientError, match="not implemented for rank-5 tensors yet"):
        tf.grad(lambda t: tf.tile(t, [1, 1, 1, 2, 1]))(x)


def test_getitem_is_not_differentiable():
    """Indexing runs StridedSlice, which has no gradient (as tf.stridedSlice in TF.js)."""
    x = tf.tensor([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(GradientError, match="gradient function not found for StridedSlice"):
        tf.grad(lambda t: t[1])(x)


def test_slicing_grads_leave_no_tensors_behind():
    x = tf.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    for fn in (
        lambda t: tf.concat([t, t], 1),
        lambda t: tf.stack([t, t]),
        lambda t: tf.split(t, 3, 1)[2],
        lambda t: tf.unstack(t)[0],
        lambda t: tf.gather(t, _idx([1, 1]), 0),
        lambda t: tf.reverse(t),
        lambda t: tf.slice(t, [0, 1], [2, 1]),
        lambda t: tf.tile(t, [2, 2]),
    ):
        with tf.testing.assert_no_leaks(1):
            tf.grad(fn)(x)
