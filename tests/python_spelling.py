"""TF.js's error text in tidytensor's Python spelling, for tests that compare our messages
with TF.js's recorded ones: the same meaning, the names the Python user typed.

>>> python_spelling("For fitDataset(), config.batchesPerEpoch is expected to be ...")
'For fit_dataset(), batches_per_epoch is expected to be ...'
>>> python_spelling("expected x to have shape [null,2] but got array with shape [4,3]")
'expected x to have shape (None, 2) but got array with shape (4, 3)'
>>> python_spelling("Argument 'a' passed to 'sub' must be a Tensor, but got 'null'")
"Argument 'a' passed to 'sub' must be a Tensor, but got 'None'"
"""

from __future__ import annotations

import json
import re

from tidytensor.naming import snake_case
from tidytensor.py_strings import py_shape, py_value

#: model.json's own keys keep TF.js's spelling in our messages too.
_KEEP = {"weightsManifest", "modelTopology", "trainingConfig"}
_CAMEL = re.compile(r"(?<![\w$-])([a-z]+[A-Z][A-Za-z0-9]*)\b")
_WORDING = [
    ("LayersModel.compile(modelCompileArgs)", "model.compile(optimizer=..., loss=...)"),
    ("dimension(s). but", "dimension(s), but"),
    ("(i.e.,tensor", "(i.e., tensor"),
    ("Error when checking : ", "Error when checking input: "),
    ("Error when checking model : ", "Error when checking model input: "),
    ("'null'", "'None'"),
    ("reset_after parameter set to true", "reset_after=True"),
    ("or null/undefined.", "or None."),
    ("Bidrectional", "Bidirectional"),
    ("specifiy", "specify"),
]


#: A shape or a list of shapes as JSON.stringify writes them: [null,2], [[null,2],[null,3]], [].
_SHAPE = r"\[(?:(?:null|-?\d+)(?:,(?:null|-?\d+))*)?\]"
_SHAPES = re.compile(rf"(?<![\w\]])(?:\[{_SHAPE}(?:,{_SHAPE})*\]|{_SHAPE})")

#: A shape as JavaScript's String(array) writes it after the word shape: 2,,3 or 4.
_JS_STRING_SHAPE = re.compile(r"(\bshapes?[=:]? ?)((?:(?:-?\d+)?,)*-?\d+)(?![\w\]])")
_STAR_SHAPE = re.compile(r"\[\*,((?:-?\d+)(?:,-?\d+)*)\]")
_JSON_NAMES = re.compile(r'\["[^"\]]*"(?:,"[^"\]]*")*\]')


def python_spelling(message: str, shapes: bool = True) -> str:
    """``message`` as tidytensor words it; ``shapes``: JSON shapes (``[null,2]``) as the
    Layers API's messages print them (``(None, 2)``); ops keep TF.js's ``[2,3]``."""
    for tfjs, ours in _WORDING:
        message = message.replace(tfjs, ours)
    message = re.sub(r"\bconfig\.(\w+)", r"\1", message)
    if shapes:
        message = _python_shapes(message)
    return _CAMEL.sub(
        lambda m: m.group(1) if m.group(1) in _KEEP else snake_case(m.group(1)), message
    )


def _python_shapes(message: str) -> str:
    """TF.js's shapes (``[null,2]``, ``2,,3`` after "shape", ``[*,2]``) and JSON lists of
    names in the Python spelling of the Layers API's messages (``(None, 2)``, ``['a']``)."""
    message = re.sub(  # a list of axes, not a shape
        r"(`dims`: )(\[[-\d,]*\])",
        lambda m: m.group(1) + py_value(json.loads(m.group(2))),
        message,
    )
    message = _SHAPES.sub(lambda m: py_shape(json.loads(m.group(0))), message)
    message = _JS_STRING_SHAPE.sub(
        lambda m: m.group(1) + py_shape([int(d) if d else None for d in m.group(2).split(",")]),
        message,
    )
    message = _STAR_SHAPE.sub(lambda m: py_shape([None, *json.loads(f"[{m.group(1)}]")]), message)
    message = _JSON_NAMES.sub(lambda m: repr(json.loads(m.group(0))), message)
    message = re.sub(
        r"(each key in: )([\w,]+)", lambda m: m.group(1) + repr(m.group(2).split(",")), message
    )
    return message
