"""``tidytensor.testing.assert_no_leaks`` (block, decorator, warm-up) and ``LeakCheck``:
what a check reports and how it names what was left, by creation site."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

import tidytensor as tf
from tidytensor.errors import ArgumentTypeError
from tidytensor.testing import LeakCheck, TensorLeakError, assert_no_leaks, tensors_since

SOURCE = Path(__file__).read_text().splitlines()
HERE = re.escape(Path(__file__).name)


def line_of(marker: str) -> int:
    """The line of this file that ends with the comment ``marker``."""
    hits = [i + 1 for i, text in enumerate(SOURCE) if text.rstrip().endswith(f"# {marker}")]
    assert len(hits) == 1, (marker, hits)
    return hits[0]


@pytest.fixture
def bare():
    """Closes the scope conftest opened for the test: tensors made now belong to no scope."""
    engine = tf.engine()
    while engine.state.scope_stack:
        engine.end_scope()


def make_leak(shape):
    tf.ones(shape)  # LEAK_A


def test_assert_no_leaks_block_passes_when_everything_is_freed():
    with assert_no_leaks() as check:
        tf.tidy(lambda: tf.ones([2]).add(1).sum().data_sync())
        t = tf.ones([3])
        assert check.new_tensors() == 1
        t.dispose()


def test_assert_no_leaks_block_lists_what_it_left_by_site(bare):
    held = []
    with pytest.raises(TensorLeakError) as caught:
        with assert_no_leaks():
            held.append(tf.ones([2, 3]))  # HELD_SITE
            make_leak([4])
    message = str(caught.value)
    assert isinstance(caught.value, AssertionError)
    lines = message.splitlines()
    assert lines[0] == "the block left 2 new tensors behind (expected 0; 2 new data buffers):"
    assert re.fullmatch(
        rf"  \S*{HERE}:{line_of('HELD_SITE')} in test_assert_no_leaks_block_lists_what_it_left_by_site: "
        r"1 tensor, 24 bytes",
        lines[1],
    ), lines[1]
    assert re.fullmatch(rf"      Tensor {held[0].id} float32\[2, 3\], still referenced", lines[2])
    assert re.fullmatch(
        rf"  \S*{HERE}:{line_of('LEAK_A')} in make_leak: 1 tensor, 16 bytes", lines[3]
    )
    assert re.fullmatch(
        r"      Tensor \d+ float32\[4\], garbage-collected without dispose", lines[4]
    )
    assert lines[5].startswith("Dispose them, return them from tf.tidy()")
    tf.dispose(held)
    tf.dispose_leaked()


def test_assert_no_leaks_as_a_decorator():
    held = []

    @assert_no_leaks
    def clean(n):
        return tf.tidy(lambda: tf.ones([n]).sum().array_sync())

    @assert_no_leaks
    def leaky():
        held.append(tf.ones([1]))

    assert clean(4) == 4.0
    assert clean.__name__ == "clean"
    with pytest.raises(
        TensorLeakError,
        match=r"^test_assert_no_leaks_as_a_decorator\.<locals>\.leaky\(\) left 1 new tensor behind",
    ):
        leaky()
    tf.dispose(held)


def test_assert_no_leaks_warm_up_lets_the_first_call_build_its_state():
    cache = {}

    def step():
        if "table" not in cache:  # made on the first call and kept for good
            cache["table"] = tf.keep(tf.ones([8]))
        return tf.tidy(lambda: cache["table"].sum().array_sync())

    with pytest.raises(TensorLeakError, match=r"step\(\) left 1 new tensor behind"):
        assert_no_leaks(step)()
    cache.pop("table").dispose()
    assert assert_no_leaks(warmup=1)(step)() == 8.0
    assert assert_no_leaks(step, warmup=2)() == 8.0
    tf.dispose(cache["table"])


def test_assert_no_leaks_warm_up_failure_names_the_warm_up():
    held = []

    @assert_no_leaks(warmup=1)
    def grows():
        held.append(tf.ones([1]))

    with pytest.raises(TensorLeakError, match=r"grows\(\) \(after 1 warm-up call\) left 1 new"):
        grows()
    assert len(held) == 2
    tf.dispose(held)


def test_assert_no_leaks_expected_new_tensors():
    @assert_no_leaks(expected_new_tensors=1)
    def make():
        return tf.tidy(lambda: tf.ones([2]).mul(3))

    t = make()
    assert t.array_sync() == [3.0, 3.0]
    with assert_no_leaks(2):  # the old positional form
        u, v = tf.ones([1]), tf.ones([1])
    with pytest.raises(
        TensorLeakError,
        match=r"expected to leave 1 new tensor alive, but the tensor count changed by -1",
    ):
        with assert_no_leaks(expected_new_tensors=1):
            t.dispose()
    tf.dispose([u, v])


def test_assert_no_leaks_decorates_coroutine_functions():
    held = []

    @assert_no_leaks
    async def handler(leak):
        async with tf.tidy_scope():
            x = tf.ones([2])
            await asyncio.sleep(0)
            if leak:
                held.append(tf.keep(x.add(1)))
            return x.sum().array_sync()

    assert asyncio.run(handler(False)) == 2.0
    with pytest.raises(TensorLeakError, match="handler"):
        asyncio.run(handler(True))
    tf.dispose(held)


def test_assert_no_leaks_names_variables_and_unnamed_kept_tensors(bare):
    with pytest.raises(TensorLeakError) as caught:
        with assert_no_leaks():
            tf.tidy(lambda: tf.variable(tf.zeros([3]), name="left_behind"))
            tf.keep(tf.ones([2]))  # kept, then dropped: no handle, no record
    message = str(caught.value)
    assert "left 2 new tensors behind" in message
    assert "      Variable 'left_behind' float32[3], variable" in message
    assert "  1 of them cannot be named" in message and "kept tensor (tf.keep)" in message
    tf.engine().reset()


def test_assert_no_leaks_does_not_hide_the_blocks_own_error():
    with pytest.raises(KeyError):
        with assert_no_leaks():
            tf.keep(tf.ones([1]))
            raise KeyError("mine")
    tf.engine().reset()


def test_assert_no_leaks_argument_errors():
    with pytest.raises(ArgumentTypeError, match=r"warmup=\.\.\.\) needs a function"):
        with assert_no_leaks(warmup=1):
            pass
    with pytest.raises(ArgumentTypeError, match="must be an int >= 0"):
        assert_no_leaks(warmup=-1)
    with pytest.raises(
        ArgumentTypeError, match="takes a function, or expected_new_tensors as an int"
    ):
        assert_no_leaks("3")


def test_leak_check_ignores_tensors_made_before_it():
    old = tf.ones([5])
    check = LeakCheck()
    new = tf.ones([2])
    assert check.new_tensors() == 1
    assert [r.id for r in tensors_since(check.first_id)] == [new.id]
    assert old.id < check.first_id
    tf.dispose([old, new])
