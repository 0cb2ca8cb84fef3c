"""Seeded random Tensor and Variable object-API calls replayed against TF.js 4.22.0.

tests/golden/tensor_api_fuzz.js made the cases (results/tensor_api_fuzz.json; see the script
for the encoding): properties and data access of random tensors of every dtype and rank
(empty ones included), before and after dispose; every chained op method of TF.js's Tensor
prototype with random arguments (the function form ``tf.<op>(x, ...)`` is checked too where
TF.js has one), and on a disposed tensor; small ``tf.variable`` programs (assign with matching
and mismatching shapes and dtypes, the trainable flag, duplicate names, use after dispose).

Only whether a call throws is compared for errors, not TF.js's message.
TENSOR_API_FUZZ_FILE replays another seed's output (``node tensor_api_fuzz.js SEED FILE``).
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tidytensor as tf
from tidytensor.naming import snake_case

_FILE = os.environ.get("TENSOR_API_FUZZ_FILE") or (
    Path(__file__).parent / "golden" / "results" / "tensor_api_fuzz.json"
)
DATA = json.loads(Path(_FILE).read_text("utf-8"))
CASES = DATA["cases"]

#: TF.js TypedArray kinds and the NumPy dtype data_sync() returns for them (API.md).
TYPED = {"Float32Array": np.float32, "Int32Array": np.int32, "Uint8Array": np.uint8}

#: Chained methods without a same-named function form (or whose function form differs).
NO_FUNCTION_FORM = {
    "as1D", "as2D", "as3D", "as4D", "as5D", "asScalar", "asType", "reshapeAs", "toBool",
    "toFloat", "toInt", "flatten", "where", "concat", "stack",
}  # fmt: skip
#: Chained methods whose function form lives in a namespace.
NAMESPACE = {
    "resizeBilinear": "image",
    "resizeNearestNeighbor": "image",
    "fft": "spectral",
    "ifft": "spectral",
    "rfft": "spectral",
    "irfft": "spectral",
}


def _num(v: Any) -> float:
    return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf, "-0": -0.0}.get(v, v)


def build(spec: dict) -> tf.Tensor:
    dtype, shape = spec["dtype"], spec["shape"]
    if dtype == "complex64":
        re, im = (
            tf.tensor(np.asarray([_num(v) for v in spec[k]], np.float32).reshape(shape), shape)
            for k in ("re", "im")
        )
        out = tf.complex(re, im)
        tf.dispose([re, im])
        return out
    if dtype == "string":
        return tf.tensor(spec["values"], shape, "string")
    np_dtype = {"float32": np.float32, "int32": np.int32, "bool": bool}[dtype]
    arr = np.asarray([_num(v) for v in spec["values"]], np_dtype).reshape(shape)
    return tf.tensor(arr, shape, dtype)


def decode_arg(a: Any) -> Any:
    if isinstance(a, dict):
        if "t" in a:
            return build(a["t"])
        if "ts" in a:
            return [build(s) for s in a["ts"]]
        if "num" in a:
            return _num(a["num"])
        if "undef" in a:
            return None
    return a


def _spec_values(spec: dict) -> tuple[str, np.ndarray]:
    dtype = spec["dtype"]
    if dtype == "complex64":
        re = np.asarray([_num(v) for v in spec["re"]], np.float64)
        im = np.asarray([_num(v) for v in spec["im"]], np.float64)
        return dtype, np.stack([re, im], -1).reshape(-1)
    if dtype == "string":
        return dtype, np.asarray(spec["values"], object)
    return dtype, np.asarray([_num(v) for v in spec["values"]], np.float64)


def same_values(got: np.ndarray, want: np.ndarray, dtype: str, where: str) -> None:
    assert got.shape == want.shape, f"{where}: {got.shape} != {want.shape}"
    if dtype == "string":
        assert got.tolist() == want.tolist(), where
    elif dtype in ("float32", "complex64"):
        np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-5, equal_nan=True, err_msg=where)
    else:
        assert got.tolist() == want.tolist(), f"{where}: {got.tolist()} != {want.tolist()}"


def check_tensor(t: Any, spec: dict, where: str) -> None:
    assert isinstance(t, tf.Tensor), f"{where}: {t!r} is not a Tensor"
    assert t.dtype == spec["dtype"], f"{where}: dtype {t.dtype} != {spec['dtype']}"
    assert t.shape == spec["shape"], f"{where}: shape {t.shape} != {spec['shape']}"
    dtype, want = _spec_values(spec)
    data = t.data_sync()
    got = np.asarray(data, object if dtype == "string" else np.float64).reshape(-1)
    same_values(got, want, dtype, where)


def check_result(r: Any, enc: dict, where: str) -> None:
    if "t" in enc:
        check_tensor(r, enc["t"], where)
    elif "list" in enc:
        assert isinstance(r, (list, tuple)), f"{where}: {r!r} is not a list"
        assert len(r) == len(enc["list"]), where
        for i, (g, w) in enumerate(zip(r, enc["list"], strict=True)):
            check_result(g, w, f"{where}[{i}]")
    elif "object" in enc:
        for k, w in enc["object"].items():
            check_result(getattr(r, snake_case(k)), w, f"{where}.{k}")
    else:
        want = _num(enc["value"])
        if isinstance(want, float) and math.isnan(want):
            assert isinstance(r, float) and math.isnan(r), where
        else:
            assert r == want, f"{where}: {r!r} != {want!r}"


def _function_form(name: str) -> Any:
    if name in NO_FUNCTION_FORM:
        return None
    ns = tf if name not in NAMESPACE else getattr(tf, NAMESPACE[name])
    return getattr(ns, snake_case(name), None)


def _call(fn: Any, *args: Any) -> tuple[Any, BaseException | None]:
    try:
        return fn(*args), None
    except Exception as e:  # noqa: BLE001 - TF.js's throw is compared, not its class
        return None, e


def _ids(kind: str) -> list:
    out = []
    for i, c in enumerate(CASES):
        if c["kind"] != kind:
            continue
        label = c.get("name", c["x"]["dtype"] if "x" in c else "")
        out.append(pytest.param(c, id=f"{i}-{label}"))
    return out


@pytest.mark.parametrize("case", _ids("props"))
def test_props(case):
    x = build(case["x"])
    assert x.shape == case["shape"] and x.dtype == case["dtype"]
    assert x.rank == case["rank"] and x.size == case["size"]
    assert x.strides == case["strides"] and x.is_disposed is case["isDisposed"]
    data = x.data_sync()
    if case["dtype"] == "string":
        assert isinstance(data, list) and data == case["data"]
    else:
        assert isinstance(data, np.ndarray) and data.dtype == TYPED[case["dataKind"]]
        same_values(
            data.astype(np.float64),
            np.asarray([_num(v) for v in case["data"]], np.float64),
            case["dtype"],
            "dataSync",
        )
    arr = x.array_sync()
    want = json.loads(json.dumps(case["array"]), parse_constant=float)
    _same_nested(arr, want, case["dtype"])
    if "buffer" in case:
        b, w = x.buffer_sync(), case["buffer"]
        assert (b.dtype, list(b.shape), list(b.strides), b.size) == (
            w["dtype"],
            w["shape"],
            w["strides"],
            w["size"],
        )
        vals = list(b.values) if case["dtype"] == "string" else np.asarray(b.values, np.float64)
        want_vals = w["values"] if case["dtype"] == "string" else [_num(v) for v in w["values"]]
        if case["dtype"] == "string":
            assert vals == want_vals
        else:
            same_values(vals, np.asarray(want_vals, np.float64), case["dtype"], "bufferSync")
    x.dispose()
    after = case["after"]
    assert x.is_disposed is after["isDisposed"]
    assert (x.shape, x.size, x.rank, x.dtype) == (
        after["shape"],
        after["size"],
        after["rank"],
        after["dtype"],
    )
    for m in ("dataSync", "arraySync", "bufferSync"):
        _, err = _call(getattr(x, snake_case(m)))
        assert ("error" if err else "ok") == after[m], m
    _, err = _call(x.dispose)
    assert ("error" if err else "ok") == after["disposeTwice"]


def _same_nested(got: Any, want: Any, dtype: str) -> None:
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{got!r} vs {want!r}"
        for g, w in zip(got, want, strict=True):
            _same_nested(g, w, dtype)
        return
    w = _num(want)
    if dtype == "string":
        assert type(got) is str and got == w
    elif dtype in ("float32", "complex64"):
        assert type(got) is float, f"{got!r} is a {type(got).__name__}"
        assert (math.isnan(got) and math.isnan(w)) or got == w, f"{got!r} != {w!r}"
    else:
        assert type(got) is int and got == w, f"{got!r} != {w!r}"


def _replay_call(fn: Any, args: list, result: dict, where: str) -> None:
    out, err = _call(fn, *[decode_arg(a) for a in args])
    if "error" in result:
        assert err is not None, f"{where}: TF.js threw {result['error']!r}, we returned {out!r}"
    else:
        assert err is None, f"{where}: we raised {err!r}"
        check_result(out, result, where)


@pytest.mark.parametrize("case", _ids("method"))
def test_method(case):
    name = case["name"]
    x = build(case["x"])
    _replay_call(getattr(x, snake_case(name)), case["args"], case["result"], f"x.{name}")
    fn = _function_form(name)
    if fn is not None:
        _replay_call(
            lambda *a: fn(x, *a), case["args"], case["result"], f"tf.{snake_case(name)}(x)"
        )


@pytest.mark.parametrize("case", _ids("disposed"))
def test_disposed(case):
    name = case["name"]
    x = build(case["x"])
    x.dispose()
    _replay_call(getattr(x, snake_case(name)), case["args"], case["result"], f"x.{name}")


def _describe_check(v: Any, want: dict, where: str) -> None:
    assert isinstance(v, tf.Variable), where
    assert v.dtype == want["dtype"] and v.shape == want["shape"], where
    assert v.trainable is want["trainable"], f"{where}: trainable {v.trainable}"
    assert v.is_disposed is want["isDisposed"], where
    if want["name"] is not None:
        assert v.name == want["name"], where
    if want["values"] is not None:
        check_tensor(
            v, {"dtype": want["dtype"], "shape": want["shape"], "values": want["values"]}, where
        )


@pytest.mark.parametrize("case", _ids("variable"))
def test_variable(case):
    variables: list = []
    try:
        for k, step in enumerate(case["steps"]):
            where = f"step {k} {step['op']}"
            out, err = _run_step(step, variables)
            if "error" in step:
                assert err is not None, f"{where}: TF.js threw {step['error']!r}"
                continue
            assert err is None, f"{where}: we raised {err!r}"
            if step["op"] == "method":
                check_result(out, step["out"], where)
            else:
                _describe_check(out, step["out"], where)
    finally:
        for v in variables:
            if not v.is_disposed:
                v.dispose()


def _run_step(step: dict, variables: list) -> tuple[Any, BaseException | None]:
    op = step["op"]
    if op == "create":
        kwargs = {}
        for key in ("trainable", "name", "dtype"):
            value = decode_arg(step[key])
            if value is not None:
                kwargs[key] = value
        t = build(step["x"])
        try:
            out, err = _call(lambda: tf.variable(t, **kwargs))
        finally:
            t.dispose()
        if err is None:
            variables.append(out)
        return out, err
    v = variables[0]
    if op == "assign":
        t = build(step["x"])
        try:
            _, err = _call(v.assign, t)
        finally:
            t.dispose()
        return v, err
    if op == "setTrainable":
        v.trainable = step["value"]
        return v, None
    if op == "dispose":
        v.dispose()
        return v, None
    return _call(getattr(v, snake_case(step["name"])), *step["args"])
