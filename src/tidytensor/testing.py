"""Public test helpers: gradient checks against finite differences, closeness, no-leak checks."""

from __future__ import annotations

import contextlib
import functools
import gc
import inspect
import math
import re
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import numpy as np

from . import sites
from ._handles import live_handles
from .autodiff import grads as _grads
from .dtypes import BYTES_PER_ELEMENT
from .engine import ENGINE
from .errors import ArgumentTypeError, TidyTensorError
from .ops.arithmetic import mul
from .ops.creation import tensor
from .ops.reduction import sum as sum_
from .tensor import (
    Tensor,
    Variable,
    _tensor_ids,  # an itertools.count: read, never advanced here
)

__all__ = [
    "GradientCheckError",
    "LeakCheck",
    "TensorLeakError",
    "TensorRecord",
    "assert_close",
    "assert_no_leaks",
    "check_grads",
    "describe_tensors",
    "tensors_since",
]


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


# ================================================================== leak checks
class TensorLeakError(TidyTensorError, AssertionError):
    """Work that had to free every tensor it made left some alive (``assert_no_leaks``,
    the pytest plugin's ``--tidytensor-leaks``)."""


class TensorRecord(NamedTuple):
    """One tensor handle found alive after some work: what it is and where it was made."""

    id: int
    shape: list[int]
    dtype: str
    nbytes: int
    site: str
    #: ``'referenced'`` (a live Python object still holds it), ``'garbage-collected'`` (the
    #: handle is gone but was never disposed: see ``tf.leaks()``) or ``'variable'``.
    how: str
    name: str | None = None


def _next_tensor_id() -> int:
    """The id the next tensor will get (ids only grow), without making a tensor."""
    match = re.fullmatch(r"count\((\d+)\)", repr(_tensor_ids))
    return int(match.group(1)) if match else 0


def _handle_bytes(shape: tuple, dtype: str, data_id: Any) -> int:
    if dtype == getattr(data_id, "dtype", None):
        return int(data_id.nbytes)
    return math.prod(shape) * BYTES_PER_ELEMENT.get(dtype, 0)


def _buffer_alive(data_id: Any) -> bool:
    return data_id.refs > 0 and data_id.backend.alive


def tensors_since(first_id: int = 0) -> list[TensorRecord]:
    """Every tensor handle with id ``>= first_id`` that still holds a live buffer: handles
    still referenced from Python (``live_handles``) and handles that
    were garbage-collected without being disposed (``tf.leaks()``), oldest first. Runs a
    full garbage collection first, so unreachable handles are reported as such."""
    gc.collect()
    found = []
    for obj in live_handles():
        if (
            isinstance(obj, Tensor)
            and obj.id >= first_id
            and not obj._disposed
            and _buffer_alive(obj.data_id)
        ):
            is_var = isinstance(obj, Variable)
            found.append(
                TensorRecord(
                    obj.id,
                    list(obj._shape),
                    obj.dtype,
                    _handle_bytes(obj._shape, obj.dtype, obj.data_id),
                    sites.format_site(obj._site),
                    "variable" if is_var else "referenced",
                    obj.name if is_var else None,
                )
            )
    for record in ENGINE.state.leaked:
        if record.id >= first_id and not record._disposed and _buffer_alive(record.data_id):
            found.append(
                TensorRecord(
                    record.id,
                    list(record._shape),
                    record.dtype,
                    _handle_bytes(record._shape, record.dtype, record.data_id),
                    sites.format_site(record._site),
                    "garbage-collected",
                )
            )
    found.sort(key=lambda r: r.id)
    return found


_HOW = {
    "referenced": "still referenced",
    "garbage-collected": "garbage-collected without dispose",
    "variable": "variable",
}


def describe_tensors(records: list[TensorRecord], per_site: int = 5) -> str:
    """``records`` grouped by creation site, most bytes first, one line per tensor."""
    groups: dict[str, list[TensorRecord]] = {}
    for r in records:
        groups.setdefault(r.site, []).append(r)
    ordered = sorted(groups.items(), key=lambda kv: (-sum(r.nbytes for r in kv[1]), kv[0]))
    lines = []
    for site, group in ordered:
        n = len(group)
        lines.append(
            f"  {site}: {n} tensor{'s' if n != 1 else ''}, {sum(r.nbytes for r in group)} bytes"
        )
        for r in group[:per_site]:
            label = f"Variable '{r.name}'" if r.how == "variable" else f"Tensor {r.id}"
            lines.append(f"      {label} {r.dtype}{r.shape}, {_HOW[r.how]}")
        if n > per_site:
            lines.append(f"      ... and {n - per_site} more")
    return "\n".join(lines)


class LeakCheck:
    """Counts tensors and buffers at ``start()``; ``failure(what)`` says what ``what`` left
    behind, naming each tensor by creation site (None when nothing was left).

    Counts are the engine's (``tf.memory()``), so work done by other threads at the same
    time counts too. An ``engine.reset()`` during the work starts the count from zero.

    >>> check = tf.testing.LeakCheck()
    >>> x = tf.ones([2])
    >>> print(check.failure('this example'))  # doctest: +ELLIPSIS
    this example left 1 new tensor behind (expected 0; 1 new data buffer):
      <doctest ...>:1 in <module>: 1 tensor, 8 bytes
          Tensor ... float32[2], still referenced
    Dispose them, return them from tf.tidy(), or make them inside 'with tf.tidy_scope():'.
    >>> x.dispose()
    >>> check.failure('this example') is None
    True
    """

    def __init__(self) -> None:
        self.start()

    def start(self) -> None:
        state = ENGINE.state
        self._state = state
        self._tensors = state.num_tensors
        self._buffers = state.num_data_buffers
        self.first_id = _next_tensor_id()

    def new_tensors(self) -> int:
        """Tensors alive now minus tensors alive at ``start()``."""
        state = ENGINE.state
        return state.num_tensors - (self._tensors if state is self._state else 0)

    def new_buffers(self) -> int:
        state = ENGINE.state
        return state.num_data_buffers - (self._buffers if state is self._state else 0)

    def failure(self, what: str, expected_new_tensors: int = 0) -> str | None:
        new = self.new_tensors()
        if new == expected_new_tensors:
            return None
        buffers = self.new_buffers()
        head = (
            f"{what} left {new} new tensor{'s' if new != 1 else ''} behind "
            f"(expected {expected_new_tensors}; {buffers} new data buffer{'s' if buffers != 1 else ''})"
        )
        if new < expected_new_tensors:
            return (
                f"{what} was expected to leave {expected_new_tensors} new tensor"
                f"{'s' if expected_new_tensors != 1 else ''} alive, but the tensor count "
                f"changed by {new:+d}: it disposed more than it made."
            )
        records = tensors_since(self.first_id)
        lines = [f"{head}:" if records else f"{head}."]
        if records:
            lines.append(describe_tensors(records))
        if len(records) < new:
            missing = new - len(records)
            lines.append(
                f"  {missing} of them cannot be named: no handle made since the check started "
                "is reachable for them and tf.leaks() has no record. A dropped kept tensor "
                "(tf.keep) leaves no record (kept tensors are never reported as leaks); so does "
                "a tensor on a backend removed while it was alive (it stays counted)."
            )
        lines.append(
            "Dispose them, return them from tf.tidy(), or make them inside 'with tf.tidy_scope():'."
        )
        return "\n".join(lines)


class _NoLeaks:
    """What ``assert_no_leaks(...)`` returns: a context manager and a decorator."""

    def __init__(self, expected_new_tensors: int, warmup: int):
        if not isinstance(expected_new_tensors, int) or isinstance(expected_new_tensors, bool):
            raise ArgumentTypeError(
                "assert_no_leaks() takes a function, or expected_new_tensors as an int, got "
                f"{type(expected_new_tensors).__name__}"
            )
        if not isinstance(warmup, int) or isinstance(warmup, bool) or warmup < 0:
            raise ArgumentTypeError(
                f"assert_no_leaks(warmup=...) must be an int >= 0, got {warmup!r}"
            )
        self.expected = expected_new_tensors
        self.warmup = warmup
        self._checks: list[LeakCheck] = []

    # ------------------------------------------------------------ context manager
    def __enter__(self) -> LeakCheck:
        if self.warmup:
            raise ArgumentTypeError(
                "assert_no_leaks(warmup=...) needs a function to call before the measured "
                "call: use it as a decorator (@assert_no_leaks(warmup=1)) or pass the function"
            )
        check = LeakCheck()
        self._checks.append(check)
        return check

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        check = self._checks.pop()
        if exc_type is None:
            self._raise_if_leaked(check, "the block")

    # ------------------------------------------------------------ decorator
    def __call__(self, fn: Callable) -> Callable:
        if not callable(fn):
            raise ArgumentTypeError(f"assert_no_leaks() decorates a function, got {fn!r}")
        what = f"{getattr(fn, '__qualname__', 'the function')}()"
        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
                for _ in range(self.warmup):
                    await fn(*args, **kwargs)
                check = LeakCheck()
                result = await fn(*args, **kwargs)
                self._raise_if_leaked(check, what)
                return result

            return async_wrapper

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for _ in range(self.warmup):
                fn(*args, **kwargs)
            check = LeakCheck()
            result = fn(*args, **kwargs)
            self._raise_if_leaked(check, what)
            return result

        return wrapper

    def _raise_if_leaked(self, check: LeakCheck, what: str) -> None:
        if self.warmup:
            what = f"{what} (after {self.warmup} warm-up call{'s' if self.warmup != 1 else ''})"
        message = check.failure(what, self.expected)
        if message is not None:
            raise TensorLeakError(message)


def assert_no_leaks(fn: Any = None, /, *, expected_new_tensors: int = 0, warmup: int = 0) -> Any:
    """Fails with :class:`TensorLeakError` (an ``AssertionError``) when some work leaves
    more (or fewer) than ``expected_new_tensors`` new tensors alive, listing each tensor it
    left by creation site. Three forms::

        with tf.testing.assert_no_leaks():        # a block
            ...

        @tf.testing.assert_no_leaks               # a function: each call is checked
        def step(): ...

        @tf.testing.assert_no_leaks(warmup=1)     # call once untracked, then check a call
        def train_step(): ...                     # (TF.js's expectNoLeakedTensors)

    The warm-up calls let a function build what it keeps for good (optimizer slots, caches)
    before the measured call, which must then make no new tensors. ``assert_no_leaks(n)``
    (an int) is ``expected_new_tensors=n``. Counts are global: tensors made meanwhile by
    other threads count too.

    >>> with tf.testing.assert_no_leaks():
    ...     total = tf.tidy(lambda: tf.ones([2]).add(1).sum().data_sync())
    >>> @tf.testing.assert_no_leaks(expected_new_tensors=1)
    ... def make():
    ...     return tf.tidy(lambda: tf.ones([2]).mul(3))
    >>> make().dispose()
    """
    if fn is None:
        return _NoLeaks(expected_new_tensors, warmup)
    if callable(fn):
        return _NoLeaks(expected_new_tensors, warmup)(fn)
    return _NoLeaks(fn, warmup)
