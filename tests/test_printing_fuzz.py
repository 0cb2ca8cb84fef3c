"""Seeded random tensors printed by tidytensor against TF.js 4.22.0, character for character.

tests/golden/printing_fuzz.js made the tensors (ranks 0-6, 0-size and elided dims, every
dtype, special floats, unicode strings) and recorded TF.js's ``toString()``,
``toString(true)``, what ``print()`` / ``print(true)`` / ``tf.print(t, true)`` logged, and a
``tf.variable``'s text (results/printing_fuzz.json; see the script for the encoding).
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tidytensor as tf

# PRINTING_FUZZ_FILE replays another seed's output (``node printing_fuzz.js SEED FILE``).
_FILE = os.environ.get("PRINTING_FUZZ_FILE") or (
    Path(__file__).parent / "golden" / "results" / "printing_fuzz.json"
)
DATA = json.loads(Path(_FILE).read_text("utf-8"))
CASES = DATA["cases"]


def _f32(text: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype="<f4").astype(np.float32)


def make_tensor(case: dict[str, Any]) -> tf.Tensor:
    dtype, shape, values = case["dtype"], case["shape"], case["values"]
    if dtype == "float32":
        return tf.tensor(_f32(values).reshape(shape), shape, "float32")
    if dtype == "int32":
        return tf.tensor(np.asarray(values, np.int32).reshape(shape), shape, "int32")
    if dtype == "bool":
        return tf.tensor(np.asarray(values, bool).reshape(shape), shape, "bool")
    if dtype == "string":
        return tf.tensor(values, shape, "string")
    re, im = (tf.tensor(_f32(v).reshape(shape), shape, "float32") for v in values)
    return tf.complex(re, im)


def verbose_text(case: dict[str, Any]) -> str:
    if case["verbose"] is not True:
        return case["verbose"]
    shape = ",".join(str(d) for d in case["shape"])
    header = (
        f"Tensor\n  dtype: {case['dtype']}\n  rank: {len(case['shape'])}\n"
        f"  shape: [{shape}]\n  values:"
    )
    return header + case["str"][len("Tensor") :]


def logged(record: Any, text: str) -> str:
    """What stdout holds after the console.log calls TF.js made (``True``: one call of
    ``text``)."""
    calls = [text] if record is True else record
    return "".join(c + "\n" for c in calls)


def _check(got: str, want: str) -> None:
    assert got == want, f"\n--- got ---\n{got}\n--- TF.js ---\n{want}"


def test_generator_covers_the_space():
    assert DATA["tfjs"] == "4.22.0"
    assert {c["dtype"] for c in CASES} == {"float32", "int32", "bool", "string", "complex64"}
    assert {len(c["shape"]) for c in CASES} == set(range(7))
    assert sum("..." in c["str"] for c in CASES) > 20
    assert sum(0 in c["shape"] for c in CASES) > 20


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_to_string_and_print(case, capsys):
    t = make_tensor(case)
    verbose = verbose_text(case)
    _check(str(t), case["str"])
    _check(repr(t), case["str"])
    _check(t.to_string(), case["str"])
    _check(t.to_string(True), verbose)
    capsys.readouterr()
    t.print()
    _check(capsys.readouterr().out, logged(case["print"], case["str"]))
    t.print(True)
    _check(capsys.readouterr().out, logged(case["printVerbose"], verbose))
    tf.print(t, True)
    _check(capsys.readouterr().out, logged(case["tfPrintVerbose"], verbose))
    if "variable" in case:
        v = tf.variable(t)
        try:
            want = case["str"] if case["variable"] is True else case["variable"]
            _check(v.to_string(), want)
            _check(str(v), want)
            v.print()
            _check(capsys.readouterr().out, logged(case["variablePrint"], case["str"]))
        finally:
            v.dispose()
    t.dispose()


# Strings with surrogate code points, as TF.js 4.22.0 prints them (taken by hand from
# `tf.tensor(values).toString()`): its TextEncoder stores a high+low pair as one character and
# each lone surrogate as U+FFFD.
SURROGATES = [
    (["\ud83d\ude00", "a\ud83d"], "Tensor\n    ['\U0001f600', 'a\ufffd']"),
    ("x\udcff", "Tensor\n    x\ufffd"),
    (
        [["\udc00\ud800", "bb"], ["c", "d"]],
        "Tensor\n    [['\ufffd\ufffd', 'bb'],\n     ['c' , 'd' ]]",
    ),
]


@pytest.mark.parametrize(("values", "want"), SURROGATES)
def test_surrogate_strings(values, want):
    t = tf.tensor(values)
    _check(str(t), want)
    t.dispose()
