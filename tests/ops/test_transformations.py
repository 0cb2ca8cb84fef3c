"""Transformation ops against TF.js goldens, plus edge cases, errors and properties vs NumPy."""

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

CASES = load_cases("transformations")

# TF.js's CPU Cast returns its input's buffer, relabelled, when the cast loses nothing
# (int32/bool -> float32, bool -> int32); so does ours (the backend converts on read).
SHARED_CASTS = {"cast int32 to float32", "cast bool to int32", "cast bool to float32"}


@pytest.mark.parametrize(("case", "expected"), CASES, ids=case_ids(CASES))
def test_golden(case, expected):
    check_case(case, expected)


@pytest.mark.parametrize("name", sorted(SHARED_CASTS))
def test_lossless_casts_values_and_one_new_tensor(name):
    case, expected = next((c, e) for c, e in CASES if c["name"] == name)
    before = tf.memory().num_tensors
    got = call_case(case)
    assert tf.memory().num_tensors - before == 2  # the input and the cast
    assert got.dtype == expected["dtype"] and got.shape == expected["shape"]
    assert np.asarray(got.data_sync()).tolist() == expected["values"]


EXACT = [(c, e) for c, e in CASES if e.get("dtype") in ("int32", "bool")]


@pytest.mark.parametrize(("case", "expected"), EXACT, ids=case_ids(EXACT))
def test_golden_integers_exact(case, expected):
    got = call_case(case)
    assert [int(v) for v in np.asarray(got.data_sync()).reshape(-1)] == expected["values"]


# ---------------------------------------------------------------------------- memory and identity
def test_view_ops_share_the_buffer():
    a = tf.tensor([1, 2, 3, 4])
    for make in (
        lambda: a.reshape([2, 2]),
        lambda: tf.expand_dims(a, 1),
        lambda: tf.squeeze(a.reshape([1, 4])),
        lambda: tf.cast(a, "float32"),
        lambda: tf.broadcast_to(a, [4]),
        lambda: a.flatten(),
    ):
        before = tf.memory()
        t = tf.tidy(make)
        after = tf.memory()
        assert after.num_tensors - before.num_tensors == 1
        assert after.num_data_buffers == before.num_data_buffers
        t.dispose()
    assert tf.memory().num_tensors == 1


def test_ensure_shape_returns_the_same_object_and_makes_nothing():
    t = tf.tensor([[1, 2, 3]])
    before = tf.memory().num_tensors
    assert tf.ensure_shape(t, [1, 3]) is t
    assert tf.ensure_shape(t, [None, None]) is t
    assert tf.memory().num_tensors == before
    values = [1, 2]
    assert tf.ensure_shape(values, [2]) is values
    assert tf.memory().num_tensors == before


def test_kernels_run_match_tfjs():
    # Kernel names recorded from tf.profile in TF.js 4.22.0 (cpu).
    t = tf.tensor
    expected = {
        "broadcast_to": (lambda: tf.broadcast_to(t([1, 2]), [3, 2]), ["Reshape", "Tile"]),
        "broadcast_to_rank": (lambda: tf.broadcast_to(t([1, 2]), [1, 2]), ["Reshape", "Identity"]),
        "squeeze": (lambda: tf.squeeze(t([[1, 2]])), ["Reshape"]),
        "pad1d": (lambda: tf.pad1d(t([1, 2]), [1, 1]), ["PadV2"]),
        "cast_same": (lambda: tf.cast(t([1]), "float32"), ["Cast"]),
        "ensure_shape": (lambda: tf.ensure_shape(t([1]), [1]), []),
        "mirror_pad": (lambda: tf.mirror_pad(t([1, 2]), [[1, 1]], "reflect"), ["MirrorPad"]),
        "space_to_batch": (
            lambda: tf.space_to_batch_nd(t([1, 2], [1, 2, 1]), [2], [[0, 0]]),
            ["SpaceToBatchND"],
        ),
        "batch_to_space": (
            lambda: tf.batch_to_space_nd(t([1, 2], [2, 1, 1]), [2], [[0, 0]]),
            ["BatchToSpaceND"],
        ),
        "depth_to_space": (
            lambda: tf.depth_to_space(t([1, 2, 3, 4], [1, 1, 1, 4]), 2),
            ["DepthToSpace"],
        ),
    }
    for name, (fn, kernels) in expected.items():
        assert tf.profile(fn).kernel_names == kernels, name


# ---------------------------------------------------------------------------- edge cases and errors
def test_keyword_arguments():
    x = tf.tensor([[1, 2], [3, 4]])
    assert tf.pad(x, paddings=[[0, 1], [0, 0]], constant_value=5).array_sync() == [
        [1, 2],
        [3, 4],
        [5, 5],
    ]
    assert tf.expand_dims(x, axis=0).shape == [1, 2, 2]
    assert tf.squeeze(tf.tensor([[1]]), axis=[0]).shape == [1]
    assert tf.mirror_pad(x, paddings=[[1, 0], [0, 0]], mode="symmetric").shape == [3, 2]
    assert tf.depth_to_space(tf.zeros([1, 1, 1, 4]), block_size=2, data_format="NHWC").shape == [
        1,
        2,
        2,
        1,
    ]
    assert tf.broadcast_to(x, shape=[2, 2, 2]).shape == [2, 2, 2]


def test_pad_rejects_malformed_paddings():
    x = tf.tensor([[1, 2]])
    with pytest.raises(tf.TidyTensorError, match=r"pad: paddings must be 2 pairs"):
        tf.pad(x, [[1, 1]])
    with pytest.raises(tf.TidyTensorError, match=r"pad: paddings must be 2 pairs"):
        tf.pad(x, [[1, 1], [-1, 0]])
    assert tf.memory().num_tensors == 1


def test_pad_fill_is_stored_like_a_typed_array():
    assert tf.pad(tf.tensor([1], None, "int32"), [[1, 1]], float("nan")).array_sync() == [0, 1, 0]
    assert tf.pad(tf.tensor([1], None, "int32"), [[1, 0]], 2.0**32 + 5).array_sync() == [5, 1]
    assert tf.pad(tf.tensor([True], None, "bool"), [[1, 0]], 256).array_sync() == [0, 1]


def test_reshape_accepts_a_tensor_shape_and_a_bare_int():
    x = tf.tensor([1, 2, 3, 4])
    assert tf.reshape(x, tf.tensor([2, 2], None, "int32")).shape == [2, 2]
    assert tf.reshape(x, 4).shape == [4]


def test_cast_complex_to_real_keeps_real_part():
    c = tf.cast(tf.tensor([1.5, -2.5]), "complex64")
    assert tf.cast(c, "float32").array_sync() == [1.5, -2.5]
    assert tf.cast(c, "int32").array_sync() == [1, -2]


def test_cast_large_floats_wrap_like_int32array():
    got = tf.cast(tf.tensor([3e9, -3e9, float("inf"), float("nan")]), "int32").array_sync()
    assert got == [
        int(np.int64(3000000000).astype(np.int32)),
        int(np.int64(-3000000000).astype(np.int32)),
        0,
        0,
    ]


def test_space_batch_errors_leave_nothing_behind():
    x, y = tf.zeros([4, 1, 1, 1]), tf.zeros([1, 2, 1])
    before = tf.memory().num_tensors
    with pytest.raises(tf.TidyTensorError, match="crops"):
        tf.batch_to_space_nd(x, [2, 2], [[0, 0], [5, 0]])
    with pytest.raises(tf.TidyTensorError, match="paddings must be non-negative"):
        tf.space_to_batch_nd(y, [2], [[-2, 2]])
    assert tf.memory().num_tensors == before


def test_methods_exist():
    x = tf.tensor([[1, 2]])
    assert x.broadcast_to([2, 2]).shape == [2, 2]
    assert x.mirror_pad([[0, 0], [1, 1]], "reflect").array_sync() == [[2, 1, 2, 1]]
    assert x.expand_dims(2).shape == [1, 2, 1]


# ---------------------------------------------------------------------------- properties vs NumPy
small = hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=4)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_pad_matches_numpy(data):
    shape = data.draw(small)
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    pads = data.draw(
        st.lists(
            st.tuples(st.integers(0, 3), st.integers(0, 3)),
            min_size=len(shape),
            max_size=len(shape),
        )
    )
    value = data.draw(st.integers(-5, 5))
    got = tf.pad(tf.tensor(x), [list(p) for p in pads], value)
    np.testing.assert_array_equal(got.numpy(), np.pad(x, pads, constant_values=value))


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_mirror_pad_matches_numpy(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    mode = data.draw(st.sampled_from(["reflect", "symmetric"]))
    x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    limit = [d - (1 if mode == "reflect" else 0) for d in shape]
    pads = [(data.draw(st.integers(0, m)), data.draw(st.integers(0, m))) for m in limit]
    got = tf.mirror_pad(tf.tensor(x), [list(p) for p in pads], mode)
    np.testing.assert_array_equal(got.numpy(), np.pad(x, pads, mode=mode))


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_space_to_batch_round_trips(data):
    m = data.draw(st.integers(1, 2))
    block = [data.draw(st.integers(1, 3)) for _ in range(m)]
    pads = [[data.draw(st.integers(0, 2)), data.draw(st.integers(0, 2))] for _ in range(m)]
    spatial = [
        b * data.draw(st.integers(1, 3)) - p[0] - p[1] for b, p in zip(block, pads, strict=True)
    ]
    if any(s <= 0 for s in spatial):
        return
    shape = [data.draw(st.integers(1, 2)), *spatial, data.draw(st.integers(1, 2))]
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    batched = tf.space_to_batch_nd(tf.tensor(x), block, pads)
    assert batched.shape[0] == shape[0] * int(np.prod(block))
    back = tf.batch_to_space_nd(batched, block, pads)
    np.testing.assert_array_equal(back.numpy(), x)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_broadcast_to_matches_numpy(data):
    target = data.draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=3))
    rank = data.draw(st.integers(0, len(target)))
    shape = [data.draw(st.sampled_from([1, d])) for d in target[len(target) - rank :]]
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    got = tf.broadcast_to(tf.tensor(x), list(target))
    np.testing.assert_array_equal(got.numpy(), np.broadcast_to(x, target))


@settings(max_examples=60, deadline=None)
@given(shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=3), data=st.data())
def test_depth_to_space_matches_reference(shape, data):
    bs = data.draw(st.integers(2, 3))
    b, h, w, c = (list(shape) + [1, 1, 1, 1])[:4]
    x = np.arange(b * h * w * c * bs * bs, dtype=np.float32).reshape(b, h, w, c * bs * bs)
    want = x.reshape(b, h, w, bs, bs, c).transpose(0, 1, 3, 2, 4, 5).reshape(b, h * bs, w * bs, c)
    np.testing.assert_array_equal(tf.depth_to_space(tf.tensor(x), bs).numpy(), want)


# ---------------------------------------------------------------------------- gradients
class GradSpec(NamedTuple):
    name: str  # the op's name, then optionally a space and a variant
    fn: object
    shape: list


GRAD_OPS = [
    GradSpec(
        "batch_to_space_nd",
        lambda x: tf.batch_to_space_nd(x, [2, 2], [[0, 0], [0, 0]]),
        [4, 1, 2, 2],
    ),
    GradSpec(
        "batch_to_space_nd cropped",
        lambda x: tf.batch_to_space_nd(x, [2, 2], [[0, 1], [1, 0]]),
        [4, 2, 2, 1],
    ),
    GradSpec("batch_to_space_nd 3d", lambda x: tf.batch_to_space_nd(x, [3], [[1, 2]]), [3, 2, 1]),
    GradSpec("broadcast_to", lambda x: tf.broadcast_to(x, [3, 2, 3]), [2, 1]),
    GradSpec("broadcast_to same shape", lambda x: tf.broadcast_to(x, [2, 3]), [2, 3]),
    GradSpec("cast", lambda x: tf.cast(x, "float32"), [2, 3]),
    GradSpec("ensure_shape", lambda x: tf.ensure_shape(x, [2, 3]), [2, 3]),
    GradSpec("expand_dims", lambda x: tf.expand_dims(x, 1), [2, 3]),
    GradSpec("mirror_pad", lambda x: tf.mirror_pad(x, [[1, 1], [2, 1]], "reflect"), [3, 4]),
    GradSpec(
        "mirror_pad_symmetric", lambda x: tf.mirror_pad(x, [[2, 0], [1, 3]], "symmetric"), [3, 4]
    ),
    GradSpec("pad", lambda x: tf.pad(x, [[1, 0], [2, 1]], 5), [2, 3]),
    GradSpec("pad1d", lambda x: tf.pad1d(x, [2, 1]), [3]),
    GradSpec("pad2d", lambda x: tf.pad2d(x, [[0, 1], [1, 1]]), [2, 3]),
    GradSpec("pad3d", lambda x: tf.pad3d(x, [[0, 1], [1, 0], [1, 1]]), [1, 2, 3]),
    GradSpec("pad4d", lambda x: tf.pad4d(x, [[1, 0], [0, 1], [0, 0], [2, 0]]), [1, 2, 1, 3]),
    GradSpec("reshape", lambda x: tf.reshape(x, [3, 2]), [2, 3]),
    GradSpec(
        "space_to_batch_nd",
        lambda x: tf.space_to_batch_nd(x, [2, 2], [[0, 0], [0, 0]]),
        [1, 2, 4, 2],
    ),
    GradSpec(
        "space_to_batch_nd padded",
        lambda x: tf.space_to_batch_nd(x, [2, 2], [[1, 1], [2, 0]]),
        [2, 2, 2, 1],
    ),
    GradSpec("squeeze", lambda x: tf.squeeze(x), [1, 3, 1, 2]),
    GradSpec("chained", lambda x: x.expand_dims(0).reshape([6]).pad([[1, 1]]).square(), [2, 3]),
]

#: Ops of the family without a gradient, as in TF.js (catalog §2.3).
NOT_DIFFERENTIABLE = {
    "broadcast_args": "int32 shapes in and out; BroadcastArgs has no gradient",
    "depth_to_space": "DepthToSpace has no gradient (golden 'grad depthToSpace no gradient')",
    "setdiff1d_async": "n/a: builds its results from data it reads",
}


@pytest.mark.parametrize("spec", GRAD_OPS, ids=[s.name for s in GRAD_OPS])
def test_check_grads(spec):
    rng = np.random.default_rng(sum(map(ord, spec.name)))
    x = rng.uniform(-2, 2, spec.shape).astype(np.float32)
    tf.testing.check_grads(spec.fn, [tf.tensor(x, list(spec.shape))])


def test_grad_table_covers_every_op():
    from tidytensor.ops import transformations

    covered = {s.name.split()[0] for s in GRAD_OPS} | set(NOT_DIFFERENTIABLE)
    assert set(transformations.__all__) <= covered, set(transformations.__all__) - covered


def test_mirror_pad_grad_folds_the_borders_back():
    """Each mirrored border element sends its gradient back to the element it copied. TF.js
    4.22.0 only slices the centre out of dy (giving [3, 4, 5] here); tidytensor gives the
    true derivative."""
    x = tf.tensor([1.0, 2.0, 3.0])
    g = tf.grad(lambda t: tf.mirror_pad(t, [[2, 2]], "reflect"))(
        x, tf.tensor([1.0, 2, 3, 4, 5, 6, 7])
    )
    assert g.array_sync() == [3.0 + 7.0, 4.0 + 2.0 + 6.0, 5.0 + 1.0]
    g = tf.grad(lambda t: tf.mirror_pad(t, [[3, 1]], "symmetric"))(
        x, tf.tensor([1.0, 2, 3, 4, 5, 6, 7])
    )
    assert g.array_sync() == [4.0 + 3.0, 5.0 + 2.0, 6.0 + 1.0 + 7.0]


def test_broadcast_to_rank_5_grad_not_implemented():
    x = tf.tensor([1.0, 2.0])
    with pytest.raises(GradientError, match="not implemented for rank-5 tensors yet"):
        tf.grad(lambda t: tf.broadcast_to(t, [2, 1, 1, 1, 2]))(x)


def test_transformation_grads_leave_no_tensors_behind():
    x = tf.tensor([[1.0, 2.0, 3.0, 4.0]])
    for fn in (
        lambda t: tf.pad(t, [[1, 1], [0, 2]]),
        lambda t: tf.mirror_pad(t, [[0, 0], [1, 1]], "symmetric"),
        lambda t: tf.broadcast_to(t, [3, 4]),
        lambda t: tf.space_to_batch_nd(tf.reshape(t, [1, 2, 2, 1]), [2, 2], [[0, 0], [0, 0]]),
        lambda t: tf.squeeze(t),
    ):
        with tf.testing.assert_no_leaks(1):
            tf.grad(fn)(x)
