"""The error contract, checked with generated bad arguments.

"Errors are part of the product: bad shapes, dtypes, arguments, files and models get an error
that names the op or file, what was given and what was expected — never a NumPy traceback,
never a half-changed state."

Every op the golden specs call with good arguments (``tests/golden/specs``) is called again,
as a function and, where ``Tensor`` has it, as a method, with one or two of its arguments
replaced by a bad one: None, strings, ragged or mixed lists, tensors of the wrong dtype
(bool, int32, string, complex64), rank or size, disposed tensors, NaN, infinite, negative,
fractional and huge numbers, dicts, objects, NumPy arrays. The same is done to the Layers
API's layer factories and to ``layer.apply``. Each call must either succeed or raise

- an instance of :class:`tidytensor.TidyTensorError` (which also derives from the builtin that
  fits: ``ValueError``, ``TypeError``...),
- with a non-empty message,
- raised by tidytensor's code (the traceback's innermost frame is not NumPy's),
- leaving ``tf.memory().num_tensors`` as it was (no temporaries left behind, no half-built
  layer holding new weights).

The examples are drawn from a random generator seeded by the test's name (the same examples
every run, on every machine): each example is one independent call whose label says everything
needed to repeat it, so there is nothing to shrink, and a seeded draw costs a fraction of a
Hypothesis example (this module spent 54 s of the suite's CPU time in Hypothesis's engine).
``TIDYTENSOR_CONTRACT_EXAMPLES=2000`` runs a deeper search locally.

Violations in modules a change could not touch are listed in ``KNOWN_VIOLATIONS`` (none are
left now), each with a strict ``xfail`` test at the bottom, so fixing one makes that test fail
until it is removed; ``test_error_contract_fixes.py`` keeps a regression test for each fix.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tidytensor as tf
from golden_util import decode_arg, resolve
from tidytensor.naming import snake_case

GOLDEN = Path(__file__).parent / "golden"
NUMPY_DIR = os.path.dirname(np.__file__) + os.sep

#: Examples per test; ``TIDYTENSOR_CONTRACT_EXAMPLES=2000`` runs a deeper search locally.
EXAMPLES = int(os.environ.get("TIDYTENSOR_CONTRACT_EXAMPLES", "0"))


def _examples(test_id: str, default: int) -> Iterator[random.Random]:
    """``EXAMPLES or default`` draws for one test, each from its own generator seeded by the
    test's id and the example's number (an example's values do not depend on the others)."""
    for i in range(EXAMPLES or default):
        yield random.Random(f"{test_id}#{i}")


#: (op or layer, argument) pairs that break the contract in modules outside a change's reach;
#: the property tests skip them, and each gets a strict xfail test at the bottom of this file.
KNOWN_VIOLATIONS: dict[tuple[str, int], str] = {}


# ----------------------------------------------------------------------------- the contract
def _innermost_file(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    return frames[-1].filename if frames else ""


_BINDING_ERROR = re.compile(
    r"\(\) (got an unexpected keyword argument|missing \d+ required|takes \d+ positional)"
)


def _is_binding_error(exc: BaseException) -> bool:
    """Python's own error for a call whose arguments do not fit the signature, raised at the
    call itself before any tidytensor code runs (``adam() got an unexpected keyword argument
    'foo'``): it names the function and the argument, as a Python user expects."""
    return (
        type(exc) is TypeError
        and _innermost_file(exc) == __file__
        and _BINDING_ERROR.search(str(exc)) is not None
    )


def check_contract(label: str, prepare: Callable[[], Callable[[], Any]]) -> None:
    """In a scope of its own, makes the arguments (``prepare()`` returns the call), then runs
    the call; a failure must keep the contract (see the module doc)."""
    engine = tf.engine()
    engine.start_scope()
    try:
        call = prepare()
        before = tf.memory().num_tensors
        try:
            call()
        except Exception as exc:  # noqa: BLE001 - the contract is what is checked here
            if _is_binding_error(exc):
                return
            assert isinstance(exc, tf.TidyTensorError), (
                f"{label}: raised {type(exc).__name__}, not a TidyTensorError: {exc}"
            )
            assert str(exc).strip(), f"{label}: {type(exc).__name__} with an empty message"
            where = _innermost_file(exc)
            assert not where.startswith(NUMPY_DIR), (
                f"{label}: the error was raised inside NumPy ({where}): {exc}"
            )
            leaked = tf.memory().num_tensors - before
            assert leaked == 0, f"{label}: failed with {leaked} tensor(s) left behind: {exc}"
    finally:
        engine.end_scope()
        tf.dispose_variables()


# ----------------------------------------------------------------------------- bad values
def _disposed() -> tf.Tensor:
    t = tf.tensor([1.0, 2.0])
    t.dispose()
    return t


#: Bad tensors, made inside the example (the engine is reset between tests).
TENSOR_MAKERS: dict[str, Callable[[], Any]] = {
    "bool tensor": lambda: tf.tensor([True, False]),
    "int32 tensor": lambda: tf.tensor([1, 2], None, "int32"),
    "string tensor": lambda: tf.tensor(["a", "b"]),
    "complex64 tensor": lambda: tf.complex(tf.tensor([1.0]), tf.tensor([2.0])),
    "scalar tensor": lambda: tf.scalar(3.0),
    "rank-5 tensor": lambda: tf.ones([1, 2, 1, 2, 1]),
    "rank-40 tensor": lambda: tf.ones([1] * 40),
    "empty tensor": lambda: tf.zeros([0, 3]),
    "disposed tensor": _disposed,
    "NaN tensor": lambda: tf.tensor([math.nan, math.inf]),
}

#: Numbers that are wrong somewhere: non-finite, negative, fractional, past int32.
NUMBERS = [math.nan, math.inf, -math.inf, -1, -7, 0, 0.5, -2.5, 1e300, 2**31, 2**62, 2**63]

ODD_VALUES = [
    [[1, 2], [3]],
    [[[]]],
    [1, [2, 3]],
    [[1, 2], [3, 4], [5, 6, 7]],
    {"a": 1},
    (1, "x"),
    [math.nan, 2],
    [2**31, 2**31],
]


def _plain_value(rng: random.Random) -> Any:
    """None, a string, a wrong number, a small int, a bool, a list of those, or an odd value."""
    kind = rng.randrange(7)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice(["", "abc", "valid", "NHWC", "float32"])
    if kind == 2:
        return rng.choice(NUMBERS)
    if kind == 3:
        return rng.randint(-3, 4)
    if kind == 4:
        return rng.random() < 0.5
    if kind == 5:
        return [rng.choice([*NUMBERS, 1, 2, "a", None]) for _ in range(rng.randint(0, 4))]
    return rng.choice(ODD_VALUES)


ARRAY_VALUES = [
    ("float64 array", lambda: np.ones((2, 2))),
    ("object array", lambda: np.array([1, None], dtype=object)),
    ("empty array", lambda: np.zeros((0,), np.float32)),
    ("string array", lambda: np.array(["a", "b"])),
]


def _bad_value(rng: random.Random) -> tuple[str, Callable[[], Any]]:
    """A bad value as (description, maker): makers run inside the example's scope."""
    kind = rng.randrange(4)
    if kind == 0:
        value = _plain_value(rng)
        return repr(value), lambda: value
    if kind == 1:
        return _bad_tensor(rng)
    if kind == 2:
        return rng.choice(ARRAY_VALUES)
    return "object()", object


def _bad_tensor(rng: random.Random) -> tuple[str, Callable[[], Any]]:
    return rng.choice(sorted(TENSOR_MAKERS.items()))


# ----------------------------------------------------------------------------- op cases
def _load_op_cases() -> dict[str, list[dict]]:
    """Per spec family, one case with good arguments per (op, call form, arity)."""
    families: dict[str, list[dict]] = {}
    for spec_file in sorted((GOLDEN / "specs").glob("*.json")):
        results = json.loads((GOLDEN / "results" / spec_file.name).read_text())
        seen = set()
        for case in json.loads(spec_file.read_text()):
            expected = results.get(case["name"], {"error": True})
            if case.get("grad") or "error" in expected or not case.get("args"):
                continue
            key = (case["op"], bool(case.get("method")), len(case["args"]))
            if key in seen:
                continue
            seen.add(key)
            families.setdefault(spec_file.stem, []).append(case)
    return families


OP_CASES = _load_op_cases()


def _call_for(case: dict, args: list, as_method: bool) -> Callable[[], Any]:
    kwargs: dict = {}
    if case.get("kwargs") and args and isinstance(args[-1], dict):
        kwargs = args.pop()
    if case.get("method") or as_method:
        self, *rest = args
        name = snake_case(case["op"].split(".")[-1])
        return lambda: getattr(self, name)(*rest, **kwargs)
    fn = resolve(case["op"])
    return lambda: fn(*args, **kwargs)


@pytest.mark.parametrize("family", sorted(OP_CASES))
def test_ops_keep_the_error_contract(family: str) -> None:
    for rng in _examples(f"ops:{family}", 120):
        _check_op_example(rng, rng.choice(OP_CASES[family]))


def _check_op_example(rng: random.Random, case: dict) -> None:
    n_args = len(case["args"])
    positions = rng.sample(range(n_args), rng.randint(1, min(2, n_args)))
    if any((case["op"], p) in KNOWN_VIOLATIONS for p in positions):
        return
    # A method's receiver is a tensor: only bad tensors replace it.
    replacements = [
        _bad_tensor(rng) if p == 0 and case.get("method") else _bad_value(rng) for p in positions
    ]
    method_ok = not case.get("method") and 0 not in positions
    as_method = method_ok and rng.random() < 0.5

    def prepare() -> Callable[[], Any]:
        args = [decode_arg(a) for a in case["args"]]
        for p, (_, make) in zip(positions, replacements, strict=True):
            args[p] = make()
        if as_method and not (
            isinstance(args[0], tf.Tensor)
            and hasattr(args[0], snake_case(case["op"].split(".")[-1]))
        ):
            return lambda: None
        return _call_for(case, args, as_method)

    shown = ", ".join(f"arg {p} = {d}" for p, (d, _) in zip(positions, replacements, strict=True))
    form = "method" if case.get("method") or as_method else "function"
    check_contract(f"{case['op']} ({form}, from {case['name']!r}) with {shown}", prepare)


# ----------------------------------------------------------------------------- layers
#: Each layer factory with a config that works, and an input shape (no batch) it accepts.
LAYERS: dict[str, tuple[dict[str, Any], list[int]]] = {
    "activation": ({"activation": "relu"}, [4]),
    "alpha_dropout": ({"rate": 0.5}, [4]),
    "average_pooling1d": ({"pool_size": 2}, [6, 3]),
    "average_pooling2d": ({"pool_size": 2}, [6, 6, 3]),
    "average_pooling3d": ({"pool_size": 2}, [4, 4, 4, 2]),
    "batch_normalization": ({"axis": -1}, [4]),
    "category_encoding": ({"num_tokens": 4}, [3]),
    "center_crop": ({"height": 2, "width": 2}, [4, 4, 3]),
    "conv1d": ({"filters": 2, "kernel_size": 2}, [6, 3]),
    "conv2d": ({"filters": 2, "kernel_size": 2}, [6, 6, 3]),
    "conv2d_transpose": ({"filters": 2, "kernel_size": 2}, [4, 4, 2]),
    "conv3d": ({"filters": 2, "kernel_size": 2}, [4, 4, 4, 2]),
    "cropping2d": ({"cropping": 1}, [6, 6, 3]),
    "dense": ({"units": 3}, [4]),
    "depthwise_conv2d": ({"kernel_size": 2}, [6, 6, 3]),
    "dropout": ({"rate": 0.5}, [4]),
    "elu": ({"alpha": 1.0}, [4]),
    "embedding": ({"input_dim": 5, "output_dim": 2}, [3]),
    "flatten": ({}, [2, 2]),
    "gaussian_dropout": ({"rate": 0.5}, [4]),
    "gaussian_noise": ({"stddev": 0.1}, [4]),
    "global_average_pooling1d": ({}, [6, 3]),
    "global_max_pooling2d": ({}, [6, 6, 3]),
    "gru": ({"units": 2}, [3, 2]),
    "layer_normalization": ({"axis": -1}, [4]),
    "leaky_re_lu": ({"alpha": 0.3}, [4]),
    "lstm": ({"units": 2}, [3, 2]),
    "masking": ({"mask_value": 0.0}, [3, 2]),
    "max_pooling1d": ({"pool_size": 2}, [6, 3]),
    "max_pooling2d": ({"pool_size": 2}, [6, 6, 3]),
    "permute": ({"dims": [2, 1]}, [2, 3]),
    "prelu": ({}, [4]),
    "re_lu": ({"max_value": 6.0}, [4]),
    "repeat_vector": ({"n": 2}, [4]),
    "rescaling": ({"scale": 2.0, "offset": 0.0}, [4]),
    "reshape": ({"target_shape": [4]}, [2, 2]),
    "resizing": ({"height": 2, "width": 2}, [4, 4, 3]),
    "separable_conv2d": ({"filters": 2, "kernel_size": 2}, [6, 6, 3]),
    "simple_rnn": ({"units": 2}, [3, 2]),
    "softmax": ({"axis": -1}, [4]),
    "spatial_dropout1d": ({"rate": 0.5}, [3, 4]),
    "thresholded_re_lu": ({"theta": 1.0}, [4]),
    "up_sampling2d": ({"size": [2, 2]}, [4, 4, 3]),
    "zero_padding2d": ({"padding": 1}, [4, 4, 3]),
}

#: Config keys every layer takes.
COMMON_KEYS = ["input_shape", "batch_input_shape", "trainable", "name", "dtype"]


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_layer_configs_keep_the_error_contract(layer: str) -> None:
    config, _ = LAYERS[layer]
    for rng in _examples(f"layer config:{layer}", 40):
        key = rng.choice([*config, *COMMON_KEYS])
        shown, make = _bad_value(rng)

        def prepare(key: str = key, make: Callable[[], Any] = make) -> Callable[[], Any]:
            kwargs = {**config, key: make()}
            return lambda: getattr(tf.layers, layer)(**kwargs)

        check_contract(f"tf.layers.{layer}({key}={shown})", prepare)


def _bad_inputs(shape: list[int]) -> dict[str, Callable[[], Any]]:
    return {
        "rank one less": lambda: tf.ones([2, *shape[:-1]]),
        "rank one more": lambda: tf.ones([2, *shape, 2]),
        "other last dim": lambda: tf.ones([2, *shape[:-1], shape[-1] + 3]),
        "string tensor": lambda: tf.fill([2, *shape], "a"),
        "complex64 tensor": lambda: tf.complex(tf.ones([2, *shape]), tf.ones([2, *shape])),
        "scalar": lambda: tf.scalar(1.0),
        "rank-40 tensor": lambda: tf.ones([1] * 40),
        "disposed tensor": _disposed,
        "ragged list": lambda: [[1, 2], [3]],
        "None": lambda: None,
        "string": lambda: "abc",
        "NaN": lambda: math.nan,
    }


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_layer_apply_keeps_the_error_contract(layer: str) -> None:
    """Every bad input with every value of ``training`` (36 calls per layer)."""
    config, shape = LAYERS[layer]
    inputs = _bad_inputs(shape)
    for what in sorted(inputs):
        for training in [None, True, "yes"]:
            check_contract(
                f"tf.layers.{layer}(...).apply({what}, training={training!r})",
                lambda what=what, training=training: _apply_call(
                    layer, config, inputs[what], training
                ),
            )


def _apply_call(
    layer: str, config: dict, make_input: Callable[[], Any], training: Any
) -> Callable[[], Any]:
    layer_obj = getattr(tf.layers, layer)(**config)
    x = make_input()
    kwargs = {} if training is None else {"training": training}

    def call() -> Any:
        try:
            return layer_obj.apply(x, **kwargs)
        except tf.TidyTensorError:
            # A first call that fails leaves the layer unbuilt: no weights were kept.
            assert not layer_obj.built, f"{layer} stayed built after a failed first call"
            raise

    return call
