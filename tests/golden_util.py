"""Runs the language-neutral golden cases in tests/golden/specs/ and compares with TF.js.

Spec format (one JSON list per family, ``specs/<family>.json``), one case per object:

- ``name``: unique within the file.
- ``op``: TF.js's name, dotted for namespaces (``"add"``, ``"image.resizeBilinear"``).
- ``method``: true to call ``args[0].<op>(*args[1:])`` instead of ``tf.<op>(*args)``.
- ``args``: positional arguments, each one of
  ``{"tensor": values, "shape"?: [...], "dtype"?: "int32"}`` (a tensor; special floats as the
  strings "NaN", "Infinity", "-Infinity"), ``{"variable": values, ...}``,
  ``{"complex": [re, im], "shape"?: [...]}`` (``tf.complex`` of two float32 tensors),
  ``{"list": [arg, ...]}``, ``{"object": {key: arg}}`` (passed to Python as keyword arguments
  when it is the last argument and ``"kwargs": true`` is set on the case, else as a dict),
  ``{"value": x}`` (a raw value, special floats allowed), ``{"undefined": true}`` (``None``),
  or any plain JSON value, passed as-is.
- ``atol`` / ``rtol``: optional tolerances for this case (default 1e-5 each).
- ``py_error``: optional substring our error message must contain.
- ``then``: optional ``[method, args]``: the case calls that method of the op's result
  (``tf.initializers.glorotUniform({seed}).apply(shape)``).
- ``grad``: a list of argument positions: the case computes ``tf.grads`` of the op with
  respect to those arguments (others held fixed; ``[i, key]`` names a tensor inside the object
  argument ``i``, as in ``tf.fused.conv2d``'s config) instead of the op's value; ``dy``
  optionally gives the upstream gradient (an arg, usually a tensor).

``generate.js`` records, per case, the encoded result (``dtype``, ``shape``, flat ``values``;
``list``; ``object``; ``value``) or ``error``, plus ``new_tensors``/``new_buffers``/
``new_bytes``: how the op moved ``tf.memory()`` (its inputs already made).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

import tidytensor as tf
from tidytensor.naming import snake_case

GOLDEN_DIR = Path(__file__).parent / "golden"


def load_cases(family: str) -> list[tuple[dict, dict]]:
    """``(case, expected)`` pairs for a spec file; fails loudly if results are stale."""
    specs = json.loads((GOLDEN_DIR / "specs" / f"{family}.json").read_text())
    results = json.loads((GOLDEN_DIR / "results" / f"{family}.json").read_text())
    missing = [c["name"] for c in specs if c["name"] not in results]
    if missing:
        raise AssertionError(
            f"results/{family}.json lacks {missing[:5]}: run `node generate.js {family}` in tests/golden"
        )
    return [(c, results[c["name"]]) for c in specs]


def case_ids(cases: list[tuple[dict, dict]]) -> list[str]:
    return [c["name"] for c, _ in cases]


def _decode_values(values: Any, dtype: str | None) -> Any:
    if dtype == "string":
        return values
    if isinstance(values, list):
        return [_decode_values(v, dtype) for v in values]
    if values == "NaN":
        return math.nan
    if values == "Infinity":
        return math.inf
    if values == "-Infinity":
        return -math.inf
    return values


def decode_arg(arg: Any) -> Any:
    if not isinstance(arg, dict):
        return arg
    if "tensor" in arg:
        return tf.tensor(
            _decode_values(arg["tensor"], arg.get("dtype")), arg.get("shape"), arg.get("dtype")
        )
    if "complex" in arg:
        re, im = arg["complex"]
        return tf.complex(tf.tensor(re, arg.get("shape")), tf.tensor(im, arg.get("shape")))
    if "variable" in arg:
        t = tf.tensor(
            _decode_values(arg["variable"], arg.get("dtype")), arg.get("shape"), arg.get("dtype")
        )
        return tf.variable(t)
    if "list" in arg:
        return [decode_arg(a) for a in arg["list"]]
    if "object" in arg:
        return {snake_case(k): decode_arg(v) for k, v in arg["object"].items()}
    if "value" in arg:
        return _decode_values(arg["value"], "float32")
    if "undefined" in arg:
        return None
    raise ValueError(f"bad golden arg {arg!r}")


def resolve(name: str) -> Any:
    fn: Any = tf
    for part in name.split("."):
        fn = getattr(fn, snake_case(part))
    return fn


def call_case(case: dict) -> Any:
    args = [decode_arg(a) for a in case.get("args", [])]
    if case.get("grad"):
        fn = resolve(case["op"])
        positions = case["grad"]

        def at(pos: Any) -> Any:
            return args[pos[0]][snake_case(pos[1])] if isinstance(pos, list) else args[pos]

        def f(*xs: Any) -> Any:
            full = [dict(a) if isinstance(a, dict) else a for a in args]
            for pos, x in zip(positions, xs, strict=True):
                if isinstance(pos, list):
                    full[pos[0]][snake_case(pos[1])] = x
                else:
                    full[pos] = x
            kw = full.pop() if case.get("kwargs") and isinstance(full[-1], dict) else {}
            return fn(*full, **kw)

        dy = decode_arg(case["dy"]) if "dy" in case else None
        return tf.grads(f)([at(p) for p in positions], dy)
    kwargs = {}
    if case.get("kwargs") and args and isinstance(args[-1], dict):
        kwargs = args.pop()
    if case.get("method"):
        self, *rest = args
        result = getattr(self, snake_case(case["op"]))(*rest, **kwargs)
    else:
        result = resolve(case["op"])(*args, **kwargs)
    if case.get("then"):  # [method, args]: tf.initializers.x(cfg).apply(shape)
        name, then_args = case["then"]
        result = getattr(result, snake_case(name))(*[decode_arg(a) for a in then_args])
    return result


def encode(result: Any) -> Any:
    if isinstance(result, tf.Tensor):
        data = result.data_sync()
        values = (
            list(data)
            if result.dtype == "string"
            else [float(v) for v in np.asarray(data).reshape(-1)]
        )
        return {"dtype": result.dtype, "shape": result.shape, "values": values}
    if hasattr(result, "_asdict"):  # NamedTuple results (topk, unique): TF.js objects
        return {"object": {k: encode(v) for k, v in result._asdict().items()}}
    if isinstance(result, (list, tuple)):
        return {"list": [encode(r) for r in result]}
    if isinstance(result, dict):
        return {"object": {k: encode(v) for k, v in result.items()}}
    if isinstance(result, tf.TensorBuffer):
        return encode(result.to_tensor())
    if hasattr(result, "__dict__") and not isinstance(result, (int, float, str, bool)):
        return {"object": {k: encode(v) for k, v in vars(result).items()}}
    return {"value": result}


def assert_matches(
    actual: Any, expected: Any, atol: float, rtol: float, where: str = "result"
) -> None:
    if "values" in expected:
        assert "values" in actual, f"{where}: expected a tensor, got {actual!r}"
        assert actual["dtype"] == expected["dtype"], (
            f"{where}: dtype {actual['dtype']} != {expected['dtype']}"
        )
        assert actual["shape"] == expected["shape"], (
            f"{where}: shape {actual['shape']} != {expected['shape']}"
        )
        if expected["dtype"] == "string":
            assert actual["values"] == expected["values"], f"{where}: values differ"
            return
        got = np.asarray(actual["values"], dtype=np.float64)
        want = np.asarray(_decode_values(expected["values"], "float32"), dtype=np.float64)
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=where)
    elif "list" in expected:
        assert "list" in actual, f"{where}: expected a list, got {actual!r}"
        assert len(actual["list"]) == len(expected["list"]), f"{where}: list lengths differ"
        for i, (a, e) in enumerate(zip(actual["list"], expected["list"], strict=True)):
            assert_matches(a, e, atol, rtol, f"{where}[{i}]")
    elif "object" in expected:
        assert "object" in actual, f"{where}: expected an object, got {actual!r}"
        want_keys = {snake_case(k) for k in expected["object"]}
        assert set(actual["object"]) == want_keys, (
            f"{where}: keys {sorted(actual['object'])} != {sorted(want_keys)}"
        )
        for key, e in expected["object"].items():
            assert_matches(
                actual["object"][snake_case(key)], e, atol, rtol, f"{where}.{snake_case(key)}"
            )
    else:
        want = _decode_values(expected["value"], "float32")
        got = actual.get("value")
        if isinstance(want, float) and isinstance(got, (int, float)):
            assert math.isclose(got, want, rel_tol=rtol, abs_tol=atol) or (
                math.isnan(got) and math.isnan(want)
            ), where
        else:
            if isinstance(got, np.ndarray):
                got = got.tolist()
            assert got == want, f"{where}: {got!r} != {want!r}"


def check_case(case: dict, expected: dict) -> None:
    """Runs one golden case on tidytensor and compares result, error and memory deltas."""
    tf.engine().start_scope()
    try:
        if "error" in expected:
            try:
                before = tf.memory()
                result = call_case(case)
            except tf.TidyTensorError as exc:
                leaked = tf.memory().num_tensors - before.num_tensors - _made_by_args(case)[0]
                assert leaked <= expected.get("new_tensors", 0), (
                    f"the failed op leaked {leaked} tensors"
                )
                if "py_error" in case:
                    assert case["py_error"] in str(exc), (
                        f"error {str(exc)!r} lacks {case['py_error']!r}"
                    )
                return
            raise AssertionError(
                f"TF.js raised {expected['error']!r} but tidytensor returned {result!r}"
            )
        before = tf.memory()
        result = call_case(case)
        after = tf.memory()
        assert_matches(encode(result), expected, case.get("atol", 1e-5), case.get("rtol", 1e-5))
        # Args are made inside call_case, so compare only the op's own outputs where possible.
        if not case.get("skip_memory"):
            made_tensors, made_buffers = _made_by_args(case)
            new_tensors = after.num_tensors - before.num_tensors - made_tensors
            new_buffers = after.num_data_buffers - before.num_data_buffers - made_buffers
            assert new_tensors == expected["new_tensors"], (
                f"new tensors {new_tensors} != TF.js {expected['new_tensors']}"
            )
            assert new_buffers == expected["new_buffers"], (
                f"new buffers {new_buffers} != TF.js {expected['new_buffers']}"
            )
    finally:
        tf.engine().end_scope()
        tf.dispose_variables()


def _made_by_args(case: dict) -> tuple[int, int]:
    """Tensors and buffers that decoding the case's args creates (a variable: 2 and 1)."""

    def count(arg: Any) -> tuple[int, int]:
        if not isinstance(arg, dict):
            return (0, 0)
        if "tensor" in arg:
            return (1, 1)
        if "variable" in arg:
            return (2, 1)
        if "complex" in arg:
            return (3, 3)  # the real and imaginary parts, then the complex64 tensor
        items = arg.get("list") or list(arg.get("object", {}).values())
        parts = [count(a) for a in items]
        return (sum(p[0] for p in parts), sum(p[1] for p in parts))

    parts = [count(a) for a in case.get("args", [])]
    if "dy" in case:
        parts.append(count(case["dy"]))
    return (sum(p[0] for p in parts), sum(p[1] for p in parts))
