"""The compiled float32 loops (``backends/xp_kernels/_float32_c.pyx``, issue 15) against
their NumPy reference: Adam's one-pass update must give the bits of ``_gradient_terms`` and
``_adam_rest`` on every input (zeros, subnormals, infinities, NaNs, huge and tiny values,
any shapes; a NaN's sign and payload aside), refuse (writing nothing) the arrays it does not
take, and the reference must run where the loops are missing or switched off. Run this file
on both engines (CI does):

    python -m pytest tests/optimizers/test_float32_loops.py --engine-core=compiled
    TIDYTENSOR_PURE_PYTHON=1 python -m pytest tests/optimizers/test_float32_loops.py \
        --engine-core=python
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tidytensor.backends.xp_kernels import float32_loops
from tidytensor.backends.xp_kernels import optimizers as kernels

F32 = np.float32
NAME = "tidytensor.backends.xp_kernels._float32_c"
BUILT = importlib.util.find_spec(NAME) is not None
PURE_FORCED = os.environ.get("TIDYTENSOR_PURE_PYTHON", "").strip() not in ("", "0")
# The loops are tested whichever engine runs (imported by name, past the switch).
LOOPS = importlib.import_module(NAME) if BUILT else None
needs_loops = pytest.mark.skipif(not BUILT, reason="the compiled float32 loops are not built")
ATTRS = {"xp": np, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-7, "learning_rate": 0.001}


def _reference(gradients, value, m, v, c):
    """The NumPy reference of the flat update: new m, v and values."""
    g_scaled, g_squared = kernels._gradient_terms(gradients, c, np)
    outs = [np.empty(value.size, F32) for _ in range(3)]
    return kernels._adam_rest(value, m, v, g_scaled, g_squared, c, np, outs)


def _compiled(gradients, value, m, v, c):
    outs = [np.full(value.size, F32(7.0)) for _ in range(3)]
    assert LOOPS.adam(gradients, value, m, v, *outs, *c) is True
    return outs


def _assert_same_bits(got, want):
    """The same bits at every element, a NaN wherever the reference has one: which of two
    NaN operands an operation passes on (so a NaN's sign and payload) is the compiler's and
    the CPU's choice, in C as in NumPy's own loops (a commutative operation's operands may be
    swapped), and nothing in TF.js can tell NaNs apart."""
    for a, b in zip(got, want, strict=True):
        assert a.dtype == b.dtype == F32
        nan = np.isnan(b)
        assert np.isnan(a).tolist() == nan.tolist()
        assert a[~nan].view(np.uint32).tolist() == b[~nan].view(np.uint32).tolist()


def _constants(acc_beta1, acc_beta2, beta1, beta2, epsilon, learning_rate):
    return kernels._constants(
        F32(acc_beta1),
        F32(acc_beta2),
        xp=np,
        beta1=beta1,
        beta2=beta2,
        epsilon=epsilon,
        learning_rate=learning_rate,
    )


# The special float32 values: zeros of both signs, the smallest subnormals, the smallest
# normal, the largest finite values, infinities (NaNs of every payload come from the random
# bit patterns).
SPECIALS = [0.0, -0.0, 1e-45, -1e-45, 1.1754942e-38, 3.4028235e38, -3.4028235e38, np.inf, -np.inf]
specials = st.sampled_from(SPECIALS)
shapes = st.lists(
    st.lists(st.integers(0, 6), min_size=0, max_size=3).map(tuple), min_size=1, max_size=4
)


@needs_loops
@settings(max_examples=300, deadline=None)
@given(
    shapes=shapes,
    data=st.data(),
    betas=st.tuples(
        st.floats(0, 1, width=32),
        st.floats(0, 1, width=32),
        st.one_of(st.floats(0, 1), specials),
        st.one_of(st.floats(0, 1), specials),
    ),
    epsilon=st.one_of(st.floats(0, 1e-3), specials),
    learning_rate=st.one_of(st.floats(-10, 10), specials),
)
def test_compiled_adam_gives_the_references_bits_on_any_input(
    shapes, data, betas, epsilon, learning_rate
):
    # Values from a drawn seed (drawing each element through hypothesis costs ~0.1 s an
    # example): random 32-bit patterns (every class of float32, NaN payloads included),
    # ordinary values of any scale, and the special values, mixed element by element.
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    special_values = np.array(SPECIALS, dtype=F32)

    def arrays(shape):
        n = int(np.prod(shape))
        bits = rng.integers(0, 2**32, size=n, dtype=np.uint64).astype(np.uint32).view(F32)
        ordinary = (rng.standard_normal(n) * 10.0 ** rng.integers(-40, 38, size=n)).astype(F32)
        special = special_values[rng.integers(0, len(special_values), size=n)]
        kind = rng.integers(0, 3, size=n)
        return np.choose(kind, [bits, ordinary, special]).astype(F32).reshape(shape)

    gradients = [arrays(s) for s in shapes]
    value, m, v = (np.concatenate([arrays(s).ravel() for s in shapes]) for _ in range(3))
    c = _constants(betas[0], betas[1], betas[2], betas[3], epsilon, learning_rate)
    _assert_same_bits(_compiled(gradients, value, m, v, c), _reference(gradients, value, m, v, c))


@needs_loops
@pytest.mark.parametrize("n", [1, 7, 8, 9, 31, 1000, 101_770])
def test_compiled_adam_gives_the_references_bits_on_every_bit_pattern(n):
    """Random 32-bit patterns (every class of float32, NaN payloads included) and the MLP
    benchmark's size, split unevenly among variables (each loop's vector body and tail)."""
    rng = np.random.default_rng(n)
    bits = rng.integers(0, 2**32, size=(4, n), dtype=np.uint64).astype(np.uint32)
    g, value, m, v = bits.view(F32)
    v = np.abs(v) if n % 2 else v  # mostly-valid second moments as well as negative ones
    cut = [0, n // 3, n // 3 + 1, n]
    gradients = [g[a:b].reshape(-1, 1) for a, b in zip(cut, cut[1:], strict=False)]
    for c in (
        _constants(0.9**3, 0.999**3, 0.9, 0.999, 1e-7, 0.001),
        _constants(rng.random(), rng.random(), rng.random(), rng.random(), 1e-3, -2.5),
    ):
        _assert_same_bits(
            _compiled(gradients, value, m, v, c), _reference(gradients, value, m, v, c)
        )


@needs_loops
def test_compiled_adam_refuses_what_it_does_not_take_and_writes_nothing():
    c = _constants(0.9, 0.99, 0.9, 0.99, 1e-7, 0.01)
    base = np.arange(1, 13, dtype=F32)

    def outs():
        return [np.full(12, F32(5)) for _ in range(3)]

    read_only = np.full(12, F32(5))
    read_only.flags.writeable = False
    strided = np.arange(24, dtype=F32)[::2]
    cases = {
        "strided gradient": ([strided], base, base, base, *outs()),
        "transposed gradient": ([base.reshape(3, 4).T], base, base, base, *outs()),
        "float64 gradient": ([base.astype(np.float64)], base, base, base, *outs()),
        "big-endian value": ([base], base.astype(">f4"), base, base, *outs()),
        "float16 moment": ([base], base, base.astype(np.float16), base, *outs()),
        "read-only output": ([base], base, base, base, read_only, *outs()[:2]),
        "output is an input": ([base], base, base, base, base, *outs()[:2]),
        "output is the gradient": ([base[:5], base[5:]], base, base, base, base, *outs()[:2]),
        "a list, not an array": ([base], list(base), base, base, *outs()),
    }
    for name, args in cases.items():
        before = [a.copy() for a in args[4:] if isinstance(a, np.ndarray)]
        assert LOOPS.adam(*args, *c) is False, name
        after = [a for a in args[4:] if isinstance(a, np.ndarray)]
        for a, b in zip(after, before, strict=True):
            assert a.tobytes() == b.tobytes(), name


@needs_loops
def test_compiled_adam_names_mismatched_sizes():
    c = _constants(0.9, 0.99, 0.9, 0.99, 1e-7, 0.01)
    a = np.ones(6, F32)
    with pytest.raises(ValueError, match="adam_update: the gradients hold 5 elements"):
        LOOPS.adam([a[:5]], a, a, a, *(np.ones(6, F32) for _ in range(3)), *c)
    with pytest.raises(ValueError, match="adam_update: the flat arrays hold"):
        LOOPS.adam([a], a, a[:5], a, *(np.ones(6, F32) for _ in range(3)), *c)


def _problem(rng, shapes):
    values, grads, ms, vs = (
        [rng.standard_normal(s).astype(F32) * F32(k) for s in shapes] for k in (1, 1, 0.1, 0.01)
    )
    vs = [np.abs(x) for x in vs]
    return values, grads, ms, vs


def _three_steps(shapes):
    """Three flat (several variables) or single-variable Adam kernel calls, outputs fed back."""
    rng = np.random.default_rng(3)
    values, grads, ms, vs = _problem(rng, shapes)
    n = len(shapes)
    kernels.clear_buffer_pool()
    for step in range(3):
        betas = (F32(0.9 ** (step + 1)), F32(0.999 ** (step + 1)))
        outs = kernels.adam_update(*values, *grads, *ms, *vs, *betas, count=n, **ATTRS)
        ms, vs, values = outs[:n], outs[n : 2 * n], outs[2 * n :]
    return [a.copy() for a in values + ms + vs]


@pytest.mark.parametrize("shapes", [[(784, 128), (128,), (128, 10), (10,)], [(5, 3)], [()]])
def test_the_adam_kernel_runs_the_loops_when_built_and_the_reference_otherwise(monkeypatch, shapes):
    """The kernel runs the compiled loop exactly when it is loaded (never the NumPy
    reference then), and the NumPy reference when the module cannot be imported: the same
    bits either way."""
    reference_calls = []
    rest = kernels._adam_rest
    monkeypatch.setattr(
        kernels, "_adam_rest", lambda *a, **k: reference_calls.append(1) or rest(*a, **k)
    )
    with_current = _three_steps(shapes)
    assert (reference_calls == []) == (float32_loops.LOOPS is not None)

    real_import = importlib.import_module

    def failing_import(name, *args, **kwargs):
        if name.endswith("._float32_c"):
            raise ImportError(f"No module named {name!r} (made to fail by this test)")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(importlib, "import_module", failing_import)
    monkeypatch.delenv("TIDYTENSOR_PURE_PYTHON", raising=False)
    loops, reason = float32_loops.load()
    assert loops is None and "not built" in reason and "made to fail" in reason
    monkeypatch.setattr(float32_loops, "LOOPS", loops)
    reference_calls.clear()
    without = _three_steps(shapes)
    assert reference_calls == [1, 1, 1]
    for a, b in zip(with_current, without, strict=True):
        assert a.tobytes() == b.tobytes()


def test_the_adam_kernel_takes_the_reference_for_arrays_the_loops_refuse(monkeypatch):
    """A transposed (non-contiguous) gradient: the loop refuses it, the reference runs."""
    reference_calls = []
    rest = kernels._adam_rest
    monkeypatch.setattr(
        kernels, "_adam_rest", lambda *a, **k: reference_calls.append(1) or rest(*a, **k)
    )
    rng = np.random.default_rng(5)
    values, grads, ms, vs = _problem(rng, [(4, 3), (3,)])
    grads[0] = np.ascontiguousarray(grads[0].T).T
    betas = (F32(0.9), F32(0.999))
    outs = kernels.adam_update(*values, *grads, *ms, *vs, *betas, count=2, **ATTRS)
    assert reference_calls == [1]
    one = kernels.adam_update(values[0], grads[0], ms[0], vs[0], *betas, **ATTRS)
    for a, b in zip((outs[0], outs[2], outs[4]), one, strict=True):
        assert a.tobytes() == b.tobytes()


def test_the_expected_loops_run(request):
    """With ``--engine-core`` (CI's two runs), the loops run exactly with the compiled
    core; without it, they run whenever built unless ``TIDYTENSOR_PURE_PYTHON`` is set."""
    expected = request.config.getoption("--engine-core")
    if expected is None:
        expected = "compiled" if BUILT and not PURE_FORCED else "python"
    assert (float32_loops.LOOPS is not None) == (expected == "compiled"), (
        float32_loops.FALLBACK_REASON
    )
    assert (float32_loops.FALLBACK_REASON is None) == (float32_loops.LOOPS is not None)


def test_the_pure_python_variable_switches_the_loops_off_in_a_new_process():
    code = (
        "from tidytensor.backends.xp_kernels import float32_loops as f; "
        "print(f.LOOPS is None, f.FALLBACK_REASON)"
    )
    env = dict(os.environ, TIDYTENSOR_PURE_PYTHON="1", PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "True TIDYTENSOR_PURE_PYTHON is set"
