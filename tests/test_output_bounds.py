"""``output_bounds`` and ``memory_guard``: every kernel's size is known before it runs, the
bound covers what the kernel really allocates, and the memory limit uses it to refuse a
request before anything is allocated (see also test_memory_limit_host.py, which measures
the process's resident memory)."""

from __future__ import annotations

import numpy as np
import pytest

import tidytensor as tf
from output_bound_checker import checked_output_bounds
from tidytensor import config, kernel_registry
from tidytensor.engine import ENGINE, output_bounds
from tidytensor.errors import KernelError


@pytest.fixture
def no_limit():
    yield
    config.set_memory_limit(None)


def test_every_registered_kernel_has_a_bound():
    ENGINE.backend  # noqa: B018 - registers the backend's kernels
    names = {c.kernel_name for c in kernel_registry.get_kernels_for_backend(ENGINE.backend_name)}
    assert names - set(output_bounds.BOUNDS) == set()


def _program():
    """Ops over every family whose output can outgrow its inputs (and a few that cannot)."""
    x = tf.tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    img = tf.ones([2, 5, 5, 3])
    outs = [
        tf.fill([3, 4], 7),
        tf.fill([2], "s"),
        tf.zeros_like(x),
        tf.range(0, 10, 0.5),
        tf.range(0, 7, 1, "int32"),
        tf.linspace(0, 1, 9),
        tf.one_hot(tf.tensor([0, 2, 5], None, "int32"), 4),
        tf.tile(x, [2, 1, 3]),
        tf.pad(x, [[1, 0], [0, 2], [3, 1]], 5),
        tf.mirror_pad(x, [[1, 1], [2, 2], [0, 3]], "reflect"),
        tf.broadcast_to(tf.ones([1, 4]), [5, 4]),
        tf.concat([x, x, x], 1),
        tf.stack([x, x]),
        tf.unstack(x, 1),
        tf.split(x, [1, 3], 2),
        tf.gather(x, tf.tensor([1, 0, 1, 1], None, "int32"), 1),
        tf.gather_nd(x, tf.tensor([[0, 1], [1, 2]], None, "int32")),
        tf.scatter_nd(tf.tensor([[1], [3]], None, "int32"), tf.ones([2, 3]), [6, 3]),
        tf.slice(x, [0, 1, 1], [-1, 2, 2]),
        tf.strided_slice(x, [0, 0, 0], [2, 3, 4], [1, 2, 3]),
        tf.transpose(x, [2, 0, 1]),
        tf.mat_mul(tf.ones([4, 1]), tf.ones([1, 6])),
        tf.mat_mul(tf.ones([3, 2, 5]), tf.ones([5, 2]), False, False),
        tf.einsum("i,j->ij", tf.ones([5]), tf.ones([7])),
        tf.outer_product(tf.ones([3]), tf.ones([4])),
        tf.add(tf.ones([5, 1]), tf.ones([1, 6])),
        tf.equal(tf.ones([5, 1]), tf.ones([1, 6])),
        tf.where(tf.tensor([True, False]), tf.ones([2]), tf.zeros([2])),
        tf.cast(x, "bool"),
        tf.cast(tf.tensor([1.5]), "int32"),
        tf.sum(x, [0, 2], True),
        tf.mean(x, 1),
        tf.max(x),
        tf.arg_max(x, 2),
        tf.topk(x, 2),
        tf.unique(tf.tensor([1, 2, 1, 3], None, "int32")),
        tf.conv2d(img, tf.ones([3, 3, 3, 4]), 2, "same"),
        tf.depthwise_conv2d(img, tf.ones([2, 2, 3, 2]), 1, "valid"),
        tf.conv2d_transpose(tf.ones([1, 3, 3, 2]), tf.ones([2, 2, 4, 2]), [1, 6, 6, 4], 2, "same"),
        tf.max_pool(img, 2, 2, "same"),
        tf.avg_pool(img, 3, 1, "valid"),
        tf.image.resize_bilinear(img, [9, 11]),
        tf.image.resize_nearest_neighbor(img, [2, 13]),
        tf.multinomial(tf.tensor([[0.1, 0.9]]), 6, 3),
        tf.unsorted_segment_sum(tf.ones([4, 2]), tf.tensor([0, 2, 2, 1], None, "int32"), 5),
        tf.diag(tf.ones([4])),
        tf.string.string_split(tf.tensor(["a b  c", "de"]), " "),
    ]
    return outs


def test_bounds_cover_what_every_kernel_allocates():
    with checked_output_bounds() as record:
        tf.dispose(_program())
    assert record.violations == []
    assert len({name for name, _, _ in record.calls}) >= 40


#: Kernels that make large outputs from small inputs: their bound is exact.
EXACT = {
    "Fill", "Range", "LinSpace", "OneHot", "Tile", "PadV2", "MirrorPad", "Pack", "GatherV2",
    "GatherNd", "ScatterNd", "Slice", "StridedSlice", "BatchMatMul", "Einsum", "Add", "Equal",
    "Conv2D", "DepthwiseConv2dNative", "Conv2DBackpropInput", "MaxPool", "AvgPool",
    "ResizeBilinear", "ResizeNearestNeighbor", "Multinomial", "UnsortedSegmentSum", "Diag",
    "Sum", "Mean", "Max", "ArgMax", "TopK", "Transpose",
}  # fmt: skip


def test_bounds_of_expanding_kernels_are_exact():
    with checked_output_bounds() as record:
        tf.dispose(_program())
    seen = {}
    for name, bound, actual in record.calls:
        if name in EXACT:
            seen.setdefault(name, []).append((bound, actual))
    assert set(seen) == EXACT
    for name, pairs in seen.items():
        assert all(bound == actual for bound, actual in pairs), (name, pairs)


def test_a_limit_guards_the_kernel_table_and_no_limit_leaves_it_bare(no_limit):
    tf.add(tf.ones([2]), tf.ones([2])).dispose()  # the backend and its table exist
    assert not hasattr(ENGINE._missing_kernel("Add"), "__wrapped__")
    assert ENGINE._same_shape_kernels  # the fast path's shortcuts
    config.set_memory_limit(10**9)
    assert hasattr(ENGINE._missing_kernel("Add"), "__wrapped__")
    assert ENGINE._same_shape_kernels == {}
    config.set_memory_limit(10**8)  # another limit: still guarded
    assert hasattr(ENGINE._missing_kernel("Tile"), "__wrapped__")
    config.set_memory_limit(None)
    assert not hasattr(ENGINE._missing_kernel("Add"), "__wrapped__")
    assert ENGINE._same_shape_kernels


@pytest.mark.parametrize("kernel_path", ["fast", "instrumented"])
def test_kernel_past_the_limit_is_refused_before_it_runs(kernel_path, no_limit):
    if kernel_path == "fast":
        ENGINE.check_kernel_leaks = False
        ENGINE.update_mode()
    x = tf.ones([10, 10])  # 400 bytes
    tile = kernel_registry.get_kernel("Tile", ENGINE.backend_name).kernel_func
    fn, called = tile.fn, []
    tile.fn = lambda *args, **kwargs: called.append(1) or fn(*args, **kwargs)
    try:
        config.set_memory_limit(10_000)  # the kernel table is rebuilt, with the spy
        before, ids = tf.memory(), ENGINE.backend.num_data_ids()
        with pytest.raises(tf.ResourceExhaustedError) as caught:
            tf.tile(x, [10, 10])
        assert called == []  # refused before the kernel ran
        assert tf.memory() == before and ENGINE.backend.num_data_ids() == ids
        assert tf.tile(x, [2, 3]).shape == [20, 30]  # 2400 bytes: fits
        assert called == [1]
    finally:
        tile.fn = fn
        ENGINE._rebuild_kernel_table(setup=False)
    assert str(caught.value).startswith(
        "Allocating 40000 bytes for a float32 tensor of shape [100, 100] in 'tile' would take "
        "live tensor memory to 40400 bytes, past the limit of 10000 bytes (400 bytes are live). "
        "Nothing was allocated; free tensors and try again.\nLargest live tensors:\n  Tensor "
    )


def test_a_kernel_with_a_bound_past_the_limit_names_its_scratch(no_limit):
    config.set_memory_limit(1_000_000)
    with pytest.raises(tf.ResourceExhaustedError, match=r"temporary values\) in 'einsum'"):
        tf.einsum("i,j->ij", tf.ones([400]), tf.ones([400]))  # 640 kB out, 2x that in products


def test_strings_past_the_limit_are_caught_after_the_kernel_and_said_so(no_limit):
    x = tf.tensor(["a" * 1000])
    config.set_memory_limit(5000)
    before = tf.memory()
    with pytest.raises(tf.ResourceExhaustedError) as caught:
        tf.string.static_regex_replace(x, "a", "bbbbbbbbbb")  # 10,000 bytes of text
    message = str(caught.value)
    assert message.startswith("Allocating 10000 bytes for a string tensor of shape [1]")
    assert "The buffer was made, then freed again" in message
    assert "Nothing was allocated" not in message
    assert tf.memory() == before


def test_memory_error_in_a_kernel_is_resource_exhausted_naming_op_and_shape(no_limit):
    x = tf.ones([3, 3])
    ENGINE._kernels = dict(ENGINE._kernels)

    def out_of_memory(inputs, attrs):
        raise MemoryError("Unable to allocate 1.49 GiB")

    ENGINE._kernels["Tile"] = out_of_memory
    before = tf.memory()
    try:
        with pytest.raises(tf.ResourceExhaustedError) as caught:
            tf.tile(x, [4, 5])
    finally:
        ENGINE._rebuild_kernel_table(setup=False)
    message = str(caught.value)
    assert message.startswith(
        "'tile' ran out of host memory making a float32 tensor of shape [12, 15] (kernel 'Tile' "
        "on inputs (float32[3, 3])) (MemoryError: Unable to allocate 1.49 GiB)."
    ), message
    assert not isinstance(caught.value, KernelError)
    assert tf.memory() == before


def test_host_made_tensors_are_checked_before_they_are_drawn(no_limit):
    config.set_memory_limit(1000)
    before = tf.memory()
    for make, name in (
        (lambda: tf.random_normal([300]), "random_normal"),
        (lambda: tf.random_uniform([300], 0, 10, "int32"), "random_uniform"),
        (lambda: tf.truncated_normal([300], 0, 1, "float32", 5), "truncated_normal"),
        (lambda: tf.random_gamma([300], 2), "random_gamma"),
        (lambda: tf.rand([300], lambda: 1), "rand"),
        (lambda: tf.ones([300], "int32"), "ones"),
        (lambda: tf.eye(20), "eye"),
    ):
        with pytest.raises(tf.ResourceExhaustedError, match=f"in '{name}' would take"):
            make()
        assert tf.memory() == before
    assert tf.random_normal([200], 0, 1, "float32", 1).shape == [200]  # 800 bytes: fits


def test_chunked_random_values_are_the_stream_of_one_draw():
    """Values drawn chunk by chunk equal one draw of the whole stream (seeded: TF.js's)."""
    from tidytensor import random_engines
    from tidytensor import tensor_util as tu

    n = tu.FILL_CHUNK * 2 + 17
    for whole, take in (
        (
            random_engines.MPRandGauss(0, 1, None, False, 42).take(n),
            random_engines.normal_sampler(0, 1, None, False, 42),
        ),
        (
            random_engines.MPRandGauss(1, 2, "int32", True, 7).take(n),
            random_engines.normal_sampler(1, 2, "int32", True, 7),
        ),
        (
            random_engines.UniformRandom(-1, 3, None, "s").take(n),
            random_engines.uniform_sampler(-1, 3, "s"),
        ),
    ):
        buf = tf.buffer([n], "float32")
        tu.fill_buffer_by(buf, take)
        assert np.array_equal(buf.values, whole.astype(np.float32))
