"""Seeded random models' ``summary()`` text against TF.js 4.22.0, line for line.

tests/golden/summary_fuzz.js drew random Sequential and functional models (nested and shared
models, shared layers, several inputs and outputs, long names) as programs of construction
steps, built each in a fresh Node process and recorded ``summary(lineLength, positions,
printFn)`` for default, relative and absolute column positions (results/summary_fuzz.json).
Each case replays the steps in the same order, so automatic names agree (the layers conftest
resets tidytensor's name counters before each test).
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from typing import Any

import pytest

import tidytensor as tf
import tidytensor.layers as layers
from tidytensor.naming import snake_case

# SUMMARY_FUZZ_FILE replays another seed's output (``node summary_fuzz.js SEED COUNT FILE``).
_FILE = os.environ.get("SUMMARY_FUZZ_FILE") or (
    Path(__file__).parent.parent / "golden" / "results" / "summary_fuzz.json"
)
DATA = json.loads(Path(_FILE).read_text("utf-8"))
CASES = DATA["cases"]


def make_layer(spec: dict[str, Any]) -> Any:
    args = {}
    for key, value in (spec.get("args") or {}).items():
        if isinstance(value, dict) and "$layer" in value:
            value = make_layer(value["$layer"])
        args[snake_case(key)] = value
    return getattr(layers, snake_case(spec["factory"]))(**args)


def replay(steps: list[dict[str, Any]]) -> list[Any]:
    """Builds the case's layers and models in TF.js's order; returns the layer list."""
    built: list[Any] = []
    tensors: list[Any] = []
    for step in steps:
        op = step["op"]
        if op == "input":
            tensors.append(
                tf.input(
                    shape=step.get("shape"),
                    batch_shape=step.get("batchShape"),
                    name=step.get("name"),
                    dtype=step.get("dtype"),
                )
            )
        elif op == "layer":
            built.append(make_layer(step))
        elif op == "apply":
            ins = [tensors[i] for i in step["inputs"]]
            out = built[step["layer"]].apply(ins[0] if len(ins) == 1 else ins)
            tensors.extend(out if isinstance(out, list) else [out])
        elif op == "model":
            built.append(
                tf.model(
                    inputs=[tensors[i] for i in step["inputs"]],
                    outputs=[tensors[i] for i in step["outputs"]],
                    name=step.get("name"),
                )
            )
        elif op == "sequential":
            built.append(
                tf.sequential(layers=[built[i] for i in step["layers"]], name=step.get("name"))
            )
        elif op == "compile":
            built[step["model"]].compile(optimizer="sgd", loss="meanSquaredError")
        elif op == "trainable":
            built[step["layer"]].trainable = step["value"]
        else:
            raise ValueError(f"unknown step {step!r}")
    return built


def test_generator_covers_the_space():
    assert DATA["tfjs"] == "4.22.0"
    firsts = [c["summaries"][0]["lines"][0] for c in CASES]
    assert any("Receives inputs" in lines[1] for lines in firsts)
    assert any("Receives inputs" not in lines[1] for lines in firsts)
    assert any(len(c["summaries"]) > 1 for c in CASES)  # nested models


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_summary(case):
    built = replay(case["steps"])
    try:
        for summary in case["summaries"]:
            model = built[summary["model"]]
            for (line_length, positions), want in zip(
                summary["variants"], summary["lines"], strict=True
            ):
                got: list[str] = []
                with warnings.catch_warnings():
                    # A model frozen after compile() warns, as TF.js's console.warn.
                    warnings.simplefilter("ignore")
                    model.summary(line_length, positions, print_fn=got.append)
                assert got == want, (
                    f"model {summary['model']} summary({line_length}, {positions}):\n"
                    + "\n".join(got)
                    + "\n--- TF.js ---\n"
                    + "\n".join(want)
                )
    finally:
        built[case["target"]].dispose()


def test_empty_positions_pad_no_column():
    """``positions=[]`` is kept (TF.js's ``positions || default`` keeps an empty array): every
    field follows the previous one, unpadded. Lines taken by hand from TF.js 4.22.0's
    ``summary(40, [])`` of the same model."""
    model = tf.sequential(layers=[layers.dense(units=2, input_shape=[3])])
    got: list[str] = []
    model.summary(40, [], print_fn=got.append)
    assert got == [
        "_" * 40,
        "Layer (type Input Shap Output shap Param #",
        "=" * 40,
        "dense_Dense1 (Dense [[null,3] [null,2 8",
        "=" * 40,
        "Total params: 8",
        "Trainable params: 8",
        "Non-trainable params: 0",
        "_" * 40,
    ]
    model.dispose()
