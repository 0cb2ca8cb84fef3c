"""Replays tests/golden/results/layer_configs_fuzz.json (written by
tests/golden/layer_configs_fuzz.js from TF.js 4.22): RANDOM but valid configurations of every
layer family, each in a small model with random weights. For every case, tidytensor must

- load TF.js's saved artifacts (from memory) and predict what TF.js predicted, give the same
  layer output shapes, and give back TF.js's topology from ``to_json``;
- build the same model from the recipe (the same factory calls, snake_case keywords), take
  TF.js's weights, and predict, shape and serialize the same;
- save it again with the topology and weight specs TF.js saved (and the same weight bytes).

Cases TF.js itself cannot reload (its own configuration bugs, see ``TFJS_ROUND_TRIP_BUGS``) are
checked on the build path only, where the layer's arguments are still in hand.
"""

from __future__ import annotations

import base64
import json
import os
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tidytensor as tf
from tensor_cleanup import release_rnn_tensors
from tidytensor.layers import models
from tidytensor.layers.engine.input_layer import input as tf_input
from tidytensor.layers.utils import to_snake_case

# LAYER_CONFIGS_FUZZ=<file> replays a file made with another seed
# (node tests/golden/layer_configs_fuzz.js <seed> <file>).
RESULTS = Path(
    os.environ.get(
        "LAYER_CONFIGS_FUZZ",
        Path(__file__).resolve().parents[1] / "golden" / "results" / "layer_configs_fuzz.json",
    )
)
# TF.js's own test tolerance for float32 is 1e-3; these models are small, so be 10x stricter.
ATOL = RTOL = 1e-4

DATA = json.loads(RESULTS.read_text())
CASES = DATA["cases"]


def _ids(cases: list[dict[str, Any]]) -> list[str]:
    return [c["name"] for c in cases]


# --------------------------------------------------------------------------- documented gaps
def _tfjs_round_trip_bug(case: dict[str, Any]) -> str | None:
    """Why TF.js's saved topology does not describe the model it saved (TF.js bugs that
    tidytensor fixes by keeping the argument in its config), or None."""
    for spec in _specs(case):
        args = spec["args"]
        if spec["factory"] == "conv1d" and args.get("dataFormat") == "channelsFirst":
            return "TF.js's Conv1D.getConfig drops data_format, so channelsFirst is lost"
        if spec["factory"] == "separableConv2d" and args.get("depthMultiplier", 1) != 1:
            return "TF.js's SeparableConv2D.getConfig drops depth_multiplier"
    return None


def _constrained(case: dict[str, Any]) -> bool:
    return any(k.endswith("Constraint") for s in _specs(case) for k in s["args"])


def _expected_outputs(case: dict[str, Any]) -> list[dict[str, Any]]:
    """TF.js's predictions. Writing weights applies the layer's constraints (TF.js's
    LayerVariable.write), so TF.js's model, whose random weights went through them once, can
    predict (slightly) otherwise than any model the saved weights are set or loaded into,
    where they go through them twice: for those, what TF.js's reloaded model predicted."""
    if _constrained(case) and case["reloaded_outputs"] is not None:
        return case["reloaded_outputs"]
    return case["outputs"]


def _config_deviations(ours: Any, theirs: Any) -> Any:
    """Our topology with the keys tidytensor keeps and TF.js drops (the TF.js config bugs
    above) removed where TF.js's topology lacks them."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        out = {}
        for key, value in ours.items():
            if key not in theirs and key in ("data_format", "depth_multiplier"):
                continue
            out[key] = _config_deviations(value, theirs.get(key))
        return out
    if isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        return [_config_deviations(a, b) for a, b in zip(ours, theirs, strict=True)]
    return ours


# --------------------------------------------------------------------------- helpers
def _specs(case: dict[str, Any]) -> list[dict[str, Any]]:
    out = []

    def walk(spec: dict[str, Any]) -> None:
        out.append(spec)
        for key in ("layer", "cell"):
            inner = spec["args"].get(key)
            for s in inner if isinstance(inner, list) else [inner] if inner else []:
                walk(s)

    recipe = case["recipe"]
    for layer in recipe.get("layers", []):
        walk(layer["spec"])
    for key in ("inner", "outer"):
        if key in recipe:
            walk(recipe[key])
    return out


def _floats(b64: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(b64), dtype="<f4")


def _inputs(case: dict[str, Any]) -> list[tf.Tensor]:
    return [
        tf.tensor(_floats(i["b64"]).reshape(i["shape"]), dtype="float32") for i in case["inputs"]
    ]


def _weights(case: dict[str, Any]) -> list[tuple[str, np.ndarray]]:
    data = base64.b64decode(case["weight_data"])
    out, offset = [], 0
    for spec in case["weight_specs"]:
        assert spec["dtype"] == "float32", spec
        n = int(np.prod(spec["shape"], dtype=np.int64))
        values = np.frombuffer(data, dtype="<f4", count=n, offset=offset).reshape(spec["shape"])
        out.append((spec["name"], values))
        offset += 4 * n
    assert offset == len(data), f"{case['name']}: weight data has {len(data)} bytes, specs {offset}"
    return out


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value))


def _predict(model: Any, case: dict[str, Any]) -> None:
    xs = _inputs(case)
    ys = model.predict(xs[0] if len(xs) == 1 else xs)
    ys = ys if isinstance(ys, list) else [ys]
    expected = _expected_outputs(case)
    try:
        assert len(ys) == len(expected), (
            f"{case['name']}: {len(ys)} outputs, TF.js gave {len(expected)}"
        )
        for k, (y, want) in enumerate(zip(ys, expected, strict=True)):
            assert y.shape == want["shape"], (
                f"{case['name']} output {k}: shape {y.shape}, TF.js gave {want['shape']}"
            )
            np.testing.assert_allclose(
                np.asarray(y.numpy(), np.float64).reshape(-1),
                _floats(want["b64"]).astype(np.float64),
                atol=ATOL,
                rtol=RTOL,
                err_msg=f"{case['name']} output {k} (recipe {json.dumps(case['recipe'])})",
            )
    finally:
        tf.dispose([xs, ys])


def _check_shapes(model: Any, case: dict[str, Any]) -> None:
    got = _plain([layer.output_shape for layer in model.layers])
    assert got == case["layer_output_shapes"], (
        f"{case['name']}: layer output shapes {got}, TF.js gave {case['layer_output_shapes']}"
    )


def _diff(ours: Any, theirs: Any, path: str = "") -> list[str]:
    """Where two JSON values differ: ``path: ours != TF.js's`` lines."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        out = []
        for key in sorted(set(ours) | set(theirs)):
            if key not in theirs:
                out.append(f"{path}.{key}: tidytensor has {ours[key]!r}, TF.js has no such key")
            elif key not in ours:
                out.append(f"{path}.{key}: missing, TF.js has {theirs[key]!r}")
            else:
                out += _diff(ours[key], theirs[key], f"{path}.{key}")
        return out
    if isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        return [
            d
            for k, (a, b) in enumerate(zip(ours, theirs, strict=True))
            for d in _diff(a, b, f"{path}[{k}]")
        ]
    return [] if ours == theirs else [f"{path}: tidytensor {ours!r} != TF.js {theirs!r}"]


_AUTO_STACKED = re.compile(r"^stacked_rnn_cells_StackedRNNCells\d+$")


def _unnumbered(value: Any) -> Any:
    """``rnn(cell=[...])`` names its StackedRNNCells itself, numbered by a process-wide
    counter: TF.js made many layers before each case, tidytensor's counters start afresh."""
    if isinstance(value, dict):
        return {k: _unnumbered(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unnumbered(v) for v in value]
    if isinstance(value, str) and _AUTO_STACKED.match(value):
        return "stacked_rnn_cells_StackedRNNCells#"
    return value


def _expected_topology(case: dict[str, Any], loaded: bool) -> Any:
    """TF.js's topology; for a model loaded from it, the one TF.js's own reloaded model gives
    (an Embedding without input shape gains dtype 'float32' from its batch_input_shape)."""
    if loaded and case["reloaded_topology"] is not None:
        return case["reloaded_topology"]
    return case["topology"]


def _check_topology(model: Any, case: dict[str, Any], loaded: bool) -> None:
    theirs = _unnumbered(_expected_topology(case, loaded))
    ours = _unnumbered(_config_deviations(_plain(model.to_json(None, False)), theirs))
    diffs = _diff(ours, theirs)
    assert not diffs, f"{case['name']}: to_json differs from TF.js's topology: " + "; ".join(diffs)


def _check_save(model: Any, case: dict[str, Any], loaded: bool) -> None:
    seen = []
    model.save(tf.io.with_save_handler(lambda artifacts: seen.append(artifacts)))
    (artifacts,) = seen
    theirs = _unnumbered(_expected_topology(case, loaded))
    topology = _unnumbered(_config_deviations(_plain(artifacts.model_topology), theirs))
    diffs = _diff(topology, theirs)
    assert not diffs, f"{case['name']}: saved topology differs from TF.js's: " + "; ".join(diffs)
    assert _plain(artifacts.weight_specs) == case["weight_specs"], (
        f"{case['name']}: saved weight specs {artifacts.weight_specs}, "
        f"TF.js saved {case['weight_specs']}"
    )
    data = artifacts.weight_data
    data = b"".join(bytes(d) for d in data) if isinstance(data, list) else bytes(data)
    theirs = base64.b64decode(case["weight_data"])
    if not _constrained(case):
        assert data == theirs, f"{case['name']}: saved weight bytes differ from TF.js's"
        return
    # Setting or loading weights applies the layers' constraints again (as TF.js's write()
    # does): a unitNorm moves them a little (x / (eps + |x|) on an axis of size 1: more for
    # small x).
    np.testing.assert_allclose(
        np.frombuffer(data, "<f4"),
        np.frombuffer(theirs, "<f4"),
        rtol=1e-3,
        atol=1e-6,
        err_msg=f"{case['name']}: saved weights differ from TF.js's",
    )


def _make(spec: dict[str, Any]) -> Any:
    kwargs = {}
    for key, value in spec["args"].items():
        if key in ("layer", "cell") and value is not None:
            value = [_make(s) for s in value] if isinstance(value, list) else _make(value)
        kwargs[to_snake_case(key)] = value
    factory = getattr(tf.layers, to_snake_case(spec["factory"]))
    return factory(**kwargs)


def _build(case: dict[str, Any]) -> Any:
    recipe = case["recipe"]
    name = recipe["name"]
    if recipe["model"] == "sequential":
        return models.sequential([_make(layer["spec"]) for layer in recipe["layers"]], name=name)
    if recipe["model"] == "nested":
        shape = recipe["inputs"][0]["shape"]
        inner_args = {**recipe["inner"]["args"], "name": f"{name}_d1", "inputShape": shape}
        inner = models.sequential(
            [_make({**recipe["inner"], "args": inner_args})], name=f"{name}_inner"
        )
        outer_args = {**recipe["outer"]["args"], "name": f"{name}_d2"}
        return models.sequential([inner, _make({**recipe["outer"], "args": outer_args})], name=name)
    ins = [tf_input(shape=i["shape"], name=i["name"], dtype=i["dtype"]) for i in recipe["inputs"]]
    outs: list[list[Any]] = []

    def deref(ref: Any) -> Any:
        if isinstance(ref, str):
            return ins[int(ref[2:])]
        if isinstance(ref, list):
            return outs[ref[0]][ref[1]]
        o = outs[ref]
        return o[0] if len(o) == 1 else o

    for entry in recipe["layers"]:
        layer = _make(entry["spec"])
        xs = [deref(r) for r in entry["inbound"]]
        y = layer.apply(xs[0] if len(xs) == 1 else xs)
        if entry.get("shared"):
            y = [y, layer.apply(deref(entry["shared"][0]))]
        outs.append(list(y) if isinstance(y, (list, tuple)) else [y])
    if recipe["outputs"] == "all":
        outputs = outs[-1]
    else:
        outputs = [
            outs[r[0]][r[1]] if isinstance(r, list) else outs[r][0] for r in recipe["outputs"]
        ]
    return models.model(inputs=ins, outputs=outputs[0] if len(outputs) == 1 else outputs, name=name)


def _set_tfjs_weights(model: Any, case: dict[str, Any]) -> None:
    weights = _weights(case)
    names = [w.original_name for w in model.weights]
    assert names == [n for n, _ in weights], (
        f"{case['name']}: weight names {names}, TF.js saved {[n for n, _ in weights]}"
    )
    values = [tf.tensor(v) for _, v in weights]
    model.set_weights(values)
    tf.dispose(values)


# --------------------------------------------------------------------------- tests
def test_fuzz_file_covers_every_family():
    families = {c["name"].rsplit("_", 1)[0] for c in CASES}
    assert len(CASES) >= 150
    assert {"conv2dTranspose", "bidirectional", "cellRnn", "merge", "masking"} <= families
    factories = {s["factory"] for c in CASES for s in _specs(c)}
    for factory in (
        "conv1d conv2d conv2dTranspose conv3d separableConv2d depthwiseConv2d upSampling2d "
        "cropping2D zeroPadding2d batchNormalization layerNormalization embedding simpleRNN gru "
        "lstm rnn bidirectional timeDistributed add concatenate average maximum minimum multiply "
        "dot masking prelu leakyReLU thresholdedReLU softmax reLU"
    ).split():
        assert factory in factories, factory


LOADABLE = [c for c in CASES if _tfjs_round_trip_bug(c) is None]


@pytest.mark.parametrize("case", LOADABLE, ids=_ids(LOADABLE))
def test_load_tfjs_artifacts(case):
    assert case["reloaded_same"] or case["reloaded_outputs"] is not None, (
        f"{case['name']}: TF.js could not reload it: {case['reload_error']}"
    )
    artifacts = tf.io.ModelArtifacts(
        model_topology=case["topology"],
        weight_specs=case["weight_specs"],
        weight_data=base64.b64decode(case["weight_data"]),
        format="layers-model",
    )
    model = tf.io.load_layers_model(tf.io.from_memory(artifacts))
    try:
        _predict(model, case)
        _check_shapes(model, case)
        _check_topology(model, case, loaded=True)
        _check_save(model, case, loaded=True)
    finally:
        release_rnn_tensors(model)  # dropout masks the cells keep after a call, as in TF.js
        model.dispose()


@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_build_from_recipe(case):
    model = _build(case)
    try:
        _set_tfjs_weights(model, case)
        _predict(model, case)
        _check_shapes(model, case)
        _check_topology(model, case, loaded=False)
        _check_save(model, case, loaded=False)
    finally:
        release_rnn_tensors(model)  # dropout masks the cells keep after a call, as in TF.js
        model.dispose()


def test_tfjs_round_trip_bugs_are_the_only_unreloadable_cases():
    for case in CASES:
        if not case["reloaded_same"]:
            if _constrained(case) and case["reloaded_outputs"] is not None:
                continue  # see _expected_outputs
            assert _tfjs_round_trip_bug(case), (
                f"{case['name']}: TF.js could not reload its own save ({case['reload_error']}) "
                "and no documented TF.js bug explains it"
            )
