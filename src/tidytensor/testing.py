"""Public test helpers: gradient checks against finite differences, closeness, no-leak checks."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from .autodiff import grads as _grads
from .engine import ENGINE
from .errors import TidyTensorError
from .tensor import Tensor

__all__ = ["GradientCheckError", "assert_close", "assert_no_leaks", "check_grads"]


class GradientCheckError(TidyTensorError, AssertionError):
    """Tape gradients disagree with finite differences."""


def check_grads(
    f: Callable[..., Tensor],
    args: list[Any],
    *,
    eps: float = 1e-3,
    rtol: float = 2e-2,
    atol: float = 2e-3,
    directions: int = 2,
    seed: int = 0,
) -> None:
    """Checks the tape's gradients of ``f`` at ``args`` against central finite differences.

    ``L = sum(f(*args) * w)`` for a fixed random ``w``; for random directions ``v`` the tape's
    ``sum_i <dL/dx_i, v_i>`` must match ``(L(x + eps v) - L(x - eps v)) / (2 eps)``, the
    differences taken in float64 on the host. Raises :class:`GradientCheckError` naming the
    direction and both values.

    >>> tf.testing.check_grads(lambda x: x.square(), [tf.tensor1d([1.0, -2.0])])
    """
    from .ops.arithmetic import mul
    from .ops.creation import tensor
    from .ops.reduction import sum as sum_

    rng = np.random.default_rng(seed)
    xs = [a if isinstance(a, Tensor) else tensor(a) for a in args]
    base = [x.numpy().astype(np.float64) for x in xs]
    with ENGINE_scope():
        y0 = f(*xs)
        w = rng.standard_normal(y0._shape).astype(np.float32)
    w_t = tensor(w, list(w.shape), "float32")

    def loss(*inputs: Tensor) -> Tensor:
        return sum_(mul(f(*inputs), w_t))

    def loss_value(values: list[np.ndarray]) -> float:
        def run() -> float:
            ts = [tensor(v.astype(np.float32), list(v.shape), "float32") for v in values]
            return float(
                np.sum(np.asarray(f(*ts).numpy(), dtype=np.float64) * w.astype(np.float64))
            )

        with ENGINE_scope():
            return run()

    with ENGINE_scope():
        tape = [g.numpy().astype(np.float64) for g in _grads(loss)(xs)]
    for d in range(directions):
        vs = [rng.standard_normal(b.shape) for b in base]
        analytic = sum(float(np.sum(g * v)) for g, v in zip(tape, vs, strict=True))
        plus = loss_value([b + eps * v for b, v in zip(base, vs, strict=True)])
        minus = loss_value([b - eps * v for b, v in zip(base, vs, strict=True)])
        numeric = (plus - minus) / (2 * eps)
        if abs(analytic - numeric) > atol + rtol * abs(numeric):
            raise GradientCheckError(
                f"Gradient check failed in direction {d}: tape gives {analytic:.6g}, finite "
                f"differences give {numeric:.6g} (eps={eps}, rtol={rtol}, atol={atol})"
            )
    w_t.dispose()


@contextlib.contextmanager
def ENGINE_scope() -> Iterator[None]:  # noqa: N802 - reads as a scope name
    """A plain engine scope: everything made inside is disposed at the end."""
    ENGINE.start_scope("testing")
    try:
        yield
    finally:
        ENGINE.end_scope(None)


def assert_close(actual: Any, expected: Any, rtol: float = 1e-5, atol: float = 1e-5) -> None:
    """Shape, then dtype (when both are tensors), then values within tolerance."""
    if (
        isinstance(actual, Tensor)
        and isinstance(expected, Tensor)
        and actual.dtype != expected.dtype
    ):
        raise AssertionError(f"dtype {actual.dtype} != {expected.dtype}")
    a = np.asarray(actual.numpy() if isinstance(actual, Tensor) else actual)
    e = np.asarray(expected.numpy() if isinstance(expected, Tensor) else expected)
    if a.shape != e.shape:
        raise AssertionError(f"shape {list(a.shape)} != {list(e.shape)}")
    np.testing.assert_allclose(
        a.astype(np.float64), e.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True
    )


@contextlib.contextmanager
def assert_no_leaks(expected_new_tensors: int = 0) -> Iterator[None]:
    """Fails if the block leaves more than ``expected_new_tensors`` tensors alive.

    >>> with tf.testing.assert_no_leaks():
    ...     total = tf.tidy(lambda: tf.ones([2]).add(1).sum().data_sync())
    """
    before = ENGINE.state.num_tensors
    yield
    leaked = ENGINE.state.num_tensors - before
    if leaked != expected_new_tensors:
        raise AssertionError(
            f"expected {expected_new_tensors} new tensors after the block, found {leaked}"
        )
