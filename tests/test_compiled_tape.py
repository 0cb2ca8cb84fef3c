"""The compiled gradient tape (``_tape_core.pxi``, issue 16) against its reference
(``engine/tape.py``, ``engine/recording.py``): the same gradients bit for bit, the same
``tf.memory()`` counts during and after a gradient call, the same kernels in a profile and
the same errors, on the same engine (the reference swapped in) and on the pure-Python
engine (a subprocess). On the pure-Python engine the reference is all there is, and these
tests check it against itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tidytensor as tf
from tidytensor import _handles, autodiff
from tidytensor.engine import ENGINE, recording, tape
from tidytensor.errors import GradientError
from tidytensor.kernel_registry import GradConfig, get_gradient, register_gradient

COMPILED = _handles.TAPE_CORE is not None
needs_core = pytest.mark.skipif(not COMPILED, reason="the compiled core is not running")


@pytest.fixture(autouse=True)
def _without_the_leak_detector():
    """The suite's kernel leak detector watches every kernel call, and a watched call takes
    the general route: here, as in a program, only the tape watches."""
    ENGINE.check_kernel_leaks = False
    ENGINE.update_mode()
    yield


@contextmanager
def reference_tape():
    """Runs the reference tape (recording, filter, reverse walk, freeing) in place of the
    compiled one for the block."""
    patched = [
        (recording, "save_tensors", recording.REFERENCE["save_tensors"]),
        (recording, "free_saved", recording.REFERENCE["free_saved"]),
        (ENGINE, "record_tape", recording.REFERENCE["record"]),
        (autodiff, "filter_tape", tape.REFERENCE["filter_tape"]),
        (autodiff, "backprop", tape.REFERENCE["backprop"]),
    ]
    old = [(obj, name, getattr(obj, name)) for obj, name, _ in patched]
    for obj, name, value in patched:
        setattr(obj, name, value)
    ENGINE.update_mode()
    try:
        yield
    finally:
        for obj, name, value in old:
            setattr(obj, name, value)
        ENGINE.update_mode()


def _counts():
    m = tf.memory()
    return (m.num_tensors, m.num_data_buffers, m.num_bytes)


# ------------------------------------------------------------------ programs
# A program is a list of steps over a list of values that starts as [x, w]; each step
# appends one value made from earlier ones, and y sums the last value.
_UNARY = ["square", "neg", "exp_small", "reshape_roundtrip", "identity_add"]
_BINARY = ["add", "sub", "mul", "div", "add_broadcast", "mul_broadcast"]

steps_strategy = st.lists(
    st.one_of(
        st.tuples(st.sampled_from(_UNARY), st.integers(0, 50)),
        st.tuples(st.sampled_from(_BINARY), st.integers(0, 50), st.integers(0, 50)),
    ),
    min_size=1,
    max_size=12,
)


def _apply(step, vals, row):
    v = vals[step[1] % len(vals)]
    name = step[0]
    if name == "square":
        return tf.square(v)
    if name == "neg":
        return tf.neg(v)
    if name == "exp_small":
        return tf.exp(tf.mul(v, tf.scalar(0.01)))
    if name == "reshape_roundtrip":
        return tf.reshape(tf.reshape(v, [-1]), list(v.shape))
    if name == "identity_add":
        return tf.add(v, tf.zeros_like(v))
    u = vals[step[2] % len(vals)]
    if name == "add":
        return tf.add(v, u)
    if name == "sub":
        return tf.sub(v, u)
    if name == "mul":
        return tf.mul(v, u)
    if name == "div":
        return tf.div(v, tf.add(tf.abs(u), tf.scalar(1.0)))
    if name == "add_broadcast":
        return tf.add(v, row)
    return tf.mul(v, row)


def run_program(steps, shape, values):
    """Gradients of the program at x and w (as lists), tf.memory() counts inside f at the
    end of the forward pass and after the call, and the gradient's profile kernel names."""
    before = _counts()
    x = tf.tensor(values[0], shape)
    w = tf.tensor(values[1], shape)
    row = tf.tensor(values[2], [shape[-1]])
    inside = []

    def f(a, b):
        vals = [a, b]
        for step in steps:
            vals.append(_apply(step, vals, row))
        # x and w reach y whatever the steps use (grads needs a gradient for each)
        y = tf.add(tf.sum(vals[-1]), tf.sum(tf.mul(tf.add(a, b), tf.scalar(0.5))))
        inside.append(_counts())
        return y

    ga, gb = tf.grads(f)([x, w])
    after = _counts()
    grads = [ga.data_sync().tolist(), gb.data_sync().tolist()]
    tf.dispose([ga, gb])
    info = tf.profile(lambda: tf.dispose(tf.grads(f)([x, w])))
    kernels = [k.name for k in info.kernels]
    tf.dispose([x, w, row])
    rel = lambda c: [c[i] - before[i] for i in range(3)]  # noqa: E731
    return {
        "grads": grads,
        "inside": rel(inside[0]),
        "after": rel(after),
        "kernels": kernels,
        "final": rel(_counts()),
    }


def _same(a, b):
    """Equal results, the gradients compared as float32 bit patterns (NaN included)."""
    for ga, gb in zip(a["grads"], b["grads"], strict=True):
        fa, fb = np.asarray(ga, np.float32), np.asarray(gb, np.float32)
        assert np.array_equal(fa.view(np.uint32), fb.view(np.uint32)), (ga, gb)
    assert {k: v for k, v in a.items() if k != "grads"} == {
        k: v for k, v in b.items() if k != "grads"
    }


@settings(max_examples=60, deadline=None)
@given(
    steps=steps_strategy,
    shape=st.sampled_from([[1], [3], [2, 3]]),
    seed=st.integers(0, 2**16),
)
def test_fuzz_compiled_tape_matches_the_reference(steps, shape, seed):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    values = [rng.uniform(-2, 2, n).tolist(), rng.uniform(-2, 2, n).tolist()]
    values.append(rng.uniform(-2, 2, shape[-1]).tolist())
    compiled = run_program(steps, shape, values)
    with reference_tape():
        reference = run_program(steps, shape, values)
    _same(compiled, reference)
    assert compiled["final"] == [0, 0, 0]


# Programs the pure-Python engine runs in a subprocess (their results must match ours):
# these, and random ones drawn from a fixed seed.
FIXED_PROGRAMS = [
    ([("add", 0, 1)] * 30, [1]),
    ([("add", 2, 1), ("mul", 3, 0), ("square", 4), ("sub", 5, 2), ("div", 6, 1)], [2, 3]),
    (
        [("add_broadcast", 0, 0), ("mul_broadcast", 2, 0), ("reshape_roundtrip", 3), ("neg", 4)],
        [2, 3],
    ),
    ([("exp_small", 0), ("identity_add", 2), ("add", 3, 2), ("add", 4, 4)], [3]),
]


def _fixed_values(shape):
    n = int(np.prod(shape))
    rng = np.random.default_rng(7)
    return [
        rng.uniform(-2, 2, n).tolist(),
        rng.uniform(-2, 2, n).tolist(),
        rng.uniform(-2, 2, shape[-1]).tolist(),
    ]


def _random_programs(count, seed):
    """``count`` random programs (the fuzz's steps), the same in every process."""
    rng = np.random.default_rng(seed)
    programs = []
    for _ in range(count):
        steps = []
        for _ in range(int(rng.integers(1, 13))):
            if rng.random() < 0.4:
                steps.append((str(rng.choice(_UNARY)), int(rng.integers(0, 50))))
            else:
                steps.append(
                    (str(rng.choice(_BINARY)), int(rng.integers(0, 50)), int(rng.integers(0, 50)))
                )
        programs.append((steps, [[1], [3], [2, 3]][int(rng.integers(0, 3))]))
    return programs


def _fixed_results():
    programs = FIXED_PROGRAMS + _random_programs(40, seed=16)
    return [run_program(steps, shape, _fixed_values(shape)) for steps, shape in programs]


@needs_core
def test_the_pure_python_engine_gives_the_same_results():
    ours = _fixed_results()
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, TIDYTENSOR_PURE_PYTHON="1")
    env["PYTHONPATH"] = os.pathsep.join([str(root / "src"), str(root / "tests")])
    script = (
        "import json, test_compiled_tape as t, tidytensor._handles as h\n"
        "assert h.KIND == 'python'\n"
        "print(json.dumps(t._fixed_results()))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    theirs = json.loads(out.stdout.strip().splitlines()[-1])
    for a, b in zip(ours, theirs, strict=True):
        _same(a, b)


# ------------------------------------------------------------------ the compiled route
@needs_core
def test_the_compiled_tape_runs_where_the_core_does():
    assert ENGINE.record_tape is _handles.TAPE_CORE.record
    assert autodiff.backprop is _handles.TAPE_CORE.backprop
    assert autodiff.filter_tape is _handles.TAPE_CORE.filter_tape
    assert recording.save_tensors is _handles.TAPE_CORE.save_tensors


@needs_core
def test_taped_fast_ops_record_without_a_kernel_watch(monkeypatch):
    """While only a tape watches, a fast op records its call itself: no KernelWatch."""
    from tidytensor.engine import watch

    made = []

    original = watch.KernelWatch.__init__

    def counting(self, *args):
        made.append(args[1])
        original(self, *args)

    monkeypatch.setattr(watch.KernelWatch, "__init__", counting)
    x, c = tf.scalar(1.5), tf.scalar(2.25)
    seen = []

    def chain(v):
        seen.append(ENGINE._tape_only)
        for _ in range(5):
            v = tf.add(v, c)
        return v

    g = tf.grad(chain)(x)
    assert g.array_sync() == 1.0
    assert seen == [True]
    assert "Add" not in made  # the adds took the compiled route
    assert ENGINE._tape_only is False  # after the call, nothing watches
    with reference_tape():
        assert tf.grad(chain)(x).array_sync() == 1.0
        assert seen[-1] is False  # the reference records through the watch
    assert "Add" in made
    tf.dispose([x, c, g])


@needs_core
def test_the_taped_fast_route_yields_to_other_watchers():
    x, c = tf.scalar(1.5), tf.scalar(2.25)
    f = lambda v: tf.add(tf.add(v, c), c)  # noqa: E731
    info = tf.profile(lambda: tf.dispose(tf.grad(f)(x)))
    names = [k.name for k in info.kernels]
    with reference_tape():
        info2 = tf.profile(lambda: tf.dispose(tf.grad(f)(x)))
    assert names == [k.name for k in info2.kernels]
    assert names.count("Add") == 2 and "Reshape" in names  # TF.js's Add gradient reshapes
    tf.dispose([x, c])


def test_nested_and_custom_gradients_match_the_reference():
    def run():
        start = _counts()
        x = tf.tensor([0.5, -1.5, 2.0])
        second = tf.grad(lambda v: tf.grad(lambda u: tf.mul(tf.mul(u, u), u))(v))(x)

        @tf.custom_grad
        def clip(a, save):
            save([a])
            return {"value": tf.mul(a, a), "grad_func": lambda dy, s: [tf.mul(dy, s[0])]}

        custom = tf.grad(lambda v: tf.add(clip(v), v))(x)
        init = tf.tensor([1.0, 2.0, 3.0])
        w = tf.variable(init, True, "tape_w")
        vg = tf.variable_grads(lambda: tf.sum(tf.mul(w, x)))
        out = [
            second.data_sync().tolist(),
            custom.data_sync().tolist(),
            vg.value.data_sync().tolist(),
            vg.grads["tape_w"].data_sync().tolist(),
            [c - s for c, s in zip(_counts(), start, strict=True)],
        ]
        tf.dispose([x, init, second, custom, vg.value, vg.grads["tape_w"], w])
        assert _counts() == start
        return out

    compiled = run()
    with reference_tape():
        reference = run()
    assert compiled == reference
    assert compiled[0] == [3.0, -9.0, 12.0]


def test_gradient_errors_match_the_reference():

    def messages():
        out = []
        x = tf.scalar(1.0)
        for fn in (tf.tanh, tf.sigmoid):
            with pytest.raises(GradientError) as info:
                tf.grad(lambda v, fn=fn: fn(v))(x)
            out.append(str(info.value))
        x.dispose()
        return out

    tanh, sigmoid = get_gradient("Tanh"), get_gradient("Sigmoid")
    register_gradient(GradConfig("Tanh", lambda dy, saved, attrs: (None,)))
    register_gradient(GradConfig("Sigmoid", lambda dy, saved, attrs: (lambda: 3,)))
    try:
        before = _counts()
        compiled = messages()
        assert _counts() == before
        with reference_tape():
            reference = messages()
    finally:
        register_gradient(tanh)
        register_gradient(sigmoid)
    assert compiled == reference
    assert "Cannot backprop through input x of 'Tanh'" in compiled[0]
    assert "must be a Tensor, but the gradient function returned int" in compiled[1]


def test_a_thunks_temporaries_are_freed_and_its_result_survives():
    """The thunk's scope (the compiled tape's own, for one-tensor results) disposes what
    the thunk made except its result."""
    made = []

    def square_grad(dy, saved, attrs):
        (x,) = saved

        def thunk():
            temp = tf.mul(x, tf.scalar(2.0))
            made.append(temp)
            return tf.mul(dy, temp)

        return (thunk,)

    original = get_gradient("Square")
    register_gradient(GradConfig("Square", square_grad, inputs_to_save=(0,)))
    try:
        x = tf.tensor([1.0, 3.0])
        before = _counts()
        g = tf.grad(tf.square)(x)
        assert g.array_sync() == [2.0, 6.0]
        assert made and all(t.is_disposed for t in made)
        assert _counts()[0] == before[0] + 1
        tf.dispose([x, g])
    finally:
        register_gradient(original)


def test_a_held_interrupt_stops_the_backward_pass():
    """interruption_point runs between nodes while a signal is held."""
    from tidytensor import interrupts

    calls = []

    def handler(signum, frame):
        calls.append(signum)
        raise KeyboardInterrupt

    x = tf.scalar(1.0)
    before = _counts()
    section = interrupts.critical_section()
    old = interrupts._sig.getsignal(interrupts._SIGINT)
    interrupts._sig.signal(interrupts._SIGINT, handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            with section:
                interrupts.HELD.pending.append((interrupts._SIGINT, None))
                tf.grad(lambda v: tf.add(tf.add(v, v), v))(x)
    finally:
        interrupts._sig.signal(interrupts._SIGINT, old)
    assert calls == [interrupts._SIGINT]
    assert _counts() == before
    x.dispose()


# ------------------------------------------------------------------ the core's new pieces
def test_reshape_kernel_views_the_buffer_as_share_does():
    x = tf.tensor([1.0, 2.0, 3.0, 4.0])
    backend = x.data_id.backend
    kernel = _handles.ReshapeKernel(backend)
    refs = x.data_id.refs
    info = kernel((x,), {"shape": [2, 2]})
    assert info == (x.data_id, (2, 2), "float32")
    assert x.data_id.refs == refs + 1
    assert backend.share(x, (2, 2)) == info  # the stock share: the same TensorInfo
    backend.dispose_data(x.data_id)
    backend.dispose_data(x.data_id)
    assert type(ENGINE._kernels.get("Reshape") or ENGINE._missing_kernel("Reshape")) is (
        _handles.ReshapeKernel
    )
    before = _counts()
    y = tf.reshape(x, [2, 2])
    assert y.array_sync() == [[1.0, 2.0], [3.0, 4.0]]
    assert _counts() == (before[0] + 1, before[1], before[2] + 16)  # a view: no new buffer
    tf.dispose([x, y])


def test_kernel_thunk_runs_its_kernel_like_run_kernel():
    x = tf.tensor([1.0, -2.0])
    for thunk_cls in {tape.KernelThunk, tape.REFERENCE["KernelThunk"]}:
        before = _counts()
        out = thunk_cls("Reshape", (x,), {"shape": (2, 1)})()
        assert out.shape == [2, 1] and out.array_sync() == [[1.0], [-2.0]]
        assert _counts() == (before[0] + 1, before[1], before[2] + 8)
        out.dispose()
        x.dispose()
        with pytest.raises(Exception) as compiled_error:
            thunk_cls("Reshape", (x,), {"shape": (2, 1)})()
        with pytest.raises(Exception) as reference_error:
            ENGINE.run_kernel("Reshape", (x,), {"shape": (2, 1)})
        assert str(compiled_error.value) == str(reference_error.value)
        x = tf.tensor([1.0, -2.0])
    x.dispose()


@needs_core
def test_only_a_tape_alone_takes_the_compiled_fast_route():
    seen = {}

    def f(v):
        seen["mode"] = ENGINE._tape_only
        return tf.add(v, v)

    x = tf.scalar(2.0)
    tf.dispose(tf.grad(f)(x))
    assert seen["mode"] is True
    for turn_on, turn_off in [
        (
            lambda: setattr(ENGINE, "check_kernel_leaks", True),
            lambda: setattr(ENGINE, "check_kernel_leaks", False),
        ),
        (
            lambda: (
                tf.enable_debug_mode()
                if hasattr(tf, "enable_debug_mode")
                else setattr(ENGINE, "debug_mode", True)
            ),
            lambda: setattr(ENGINE, "debug_mode", False),
        ),
    ]:
        turn_on()
        ENGINE.update_mode()
        try:
            tf.dispose(tf.grad(f)(x))
            assert seen["mode"] is False
        finally:
            turn_off()
            ENGINE.update_mode()
    tf.profile(lambda: tf.dispose(tf.grad(f)(x)))
    assert seen["mode"] is False
    x.dispose()


def test_a_thunk_that_returns_an_awaitable_is_refused_as_tidy_refuses_it():
    async def later():
        return None

    def exp_grad(dy, saved, attrs):
        return (lambda: later(),)

    original = get_gradient("Exp")
    register_gradient(GradConfig("Exp", exp_grad))
    x = tf.scalar(0.5)
    try:
        with pytest.raises(Exception) as compiled:
            tf.grad(tf.exp)(x)
        with reference_tape(), pytest.raises(Exception) as reference:
            tf.grad(tf.exp)(x)
    finally:
        register_gradient(original)
        x.dispose()
    assert type(compiled.value) is type(reference.value)
    assert str(compiled.value) == str(reference.value)
    assert "awaitable" in str(compiled.value)
