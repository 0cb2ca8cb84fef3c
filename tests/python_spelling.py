"""TF.js's error text in tidytensor's Python spelling, for tests that compare our messages
with TF.js's recorded ones: the same meaning, the names the Python user typed.

>>> python_spelling("For fitDataset(), config.batchesPerEpoch is expected to be ...")
'For fit_dataset(), batches_per_epoch is expected to be ...'
>>> python_spelling("Argument 'a' passed to 'sub' must be a Tensor, but got 'null'")
"Argument 'a' passed to 'sub' must be a Tensor, but got 'None'"
"""

from __future__ import annotations

import re

from tidytensor.naming import snake_case

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
]


def python_spelling(message: str) -> str:
    for tfjs, ours in _WORDING:
        message = message.replace(tfjs, ours)
    message = re.sub(r"\bconfig\.(\w+)", r"\1", message)
    # The expected shape in an input check: [None,2] (other messages keep TF.js's [null,2]).
    message = re.sub(
        r"to have shape \[[^\]]*\]", lambda m: m.group(0).replace("null", "None"), message
    )
    return _CAMEL.sub(
        lambda m: m.group(1) if m.group(1) in _KEEP else snake_case(m.group(1)), message
    )
