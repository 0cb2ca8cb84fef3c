"""``tf.train``: TF.js's optimizer factories (``tf.train.sgd(0.1)``, ``tf.train.adam()``, ...),
for convenience the optimizer classes, and TF 2's ``tf.train.latest_checkpoint``.

>>> opt = tf.train.adam(0.01)
>>> opt.get_class_name()
'Adam'
>>> opt.dispose()
"""

from __future__ import annotations

import json
import os
import re

from .optimizers import (
    AdadeltaOptimizer,
    AdagradOptimizer,
    AdamaxOptimizer,
    AdamOptimizer,
    MomentumOptimizer,
    Optimizer,
    OptimizerConstructors,
    RMSPropOptimizer,
    SGDOptimizer,
)
from .optimizers.constructors import adadelta, adagrad, adam, adamax, momentum, rmsprop, sgd

__all__ = [
    "AdadeltaOptimizer",
    "AdagradOptimizer",
    "AdamOptimizer",
    "AdamaxOptimizer",
    "MomentumOptimizer",
    "Optimizer",
    "OptimizerConstructors",
    "RMSPropOptimizer",
    "SGDOptimizer",
    "CHECKPOINT_DATA_SUFFIX",
    "CHECKPOINT_INDEX_SUFFIX",
    "CHECKPOINT_STATE_FILE",
    "checkpoint_state_text",
    "latest_checkpoint",
    "read_checkpoint_state",
    "adadelta",
    "adagrad",
    "adam",
    "adamax",
    "momentum",
    "rmsprop",
    "sgd",
]


# ------------------------------------------------------------------------ checkpoints
#: The file naming the newest checkpoint of a directory (TF 2's ``checkpoint`` state file).
CHECKPOINT_STATE_FILE = "checkpoint"
#: A weights checkpoint ``prefix`` is the two files ``prefix + suffix`` (TF 2's names).
CHECKPOINT_INDEX_SUFFIX = ".index"
CHECKPOINT_DATA_SUFFIX = ".data-00000-of-00001"

_STATE_LINE = re.compile(r'^\s*(model_checkpoint_path|all_model_checkpoint_paths)\s*:\s*(".*")\s*$')


def checkpoint_state_text(prefix: str, all_prefixes: list[str] | None = None) -> str:
    """The ``checkpoint`` state file naming ``prefix`` as the newest checkpoint (TF's text
    format; paths relative to the directory, as Keras writes them).

    >>> print(checkpoint_state_text('cp-0002.ckpt'), end='')
    model_checkpoint_path: "cp-0002.ckpt"
    all_model_checkpoint_paths: "cp-0002.ckpt"
    """
    lines = [f"model_checkpoint_path: {json.dumps(prefix)}"]
    lines += [f"all_model_checkpoint_paths: {json.dumps(p)}" for p in all_prefixes or [prefix]]
    return "\n".join(lines) + "\n"


def read_checkpoint_state(
    checkpoint_dir: str | os.PathLike, latest_filename: str | None = None
) -> tuple[str | None, list[str]]:
    """``(newest, all)`` checkpoint prefixes from ``checkpoint_dir``'s state file, joined with
    the directory when relative; ``(None, [])`` when there is no readable state file."""
    directory = os.fspath(checkpoint_dir)
    path = os.path.join(directory, latest_filename or CHECKPOINT_STATE_FILE)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read(1 << 20)
    except (OSError, UnicodeDecodeError):
        return None, []
    newest = None
    every: list[str] = []
    for line in text.splitlines():
        match = _STATE_LINE.match(line)
        if match is None:
            continue
        try:
            value = json.loads(match.group(2))
        except ValueError:
            continue
        if not isinstance(value, str) or not value:
            continue
        if not os.path.isabs(value):
            value = os.path.join(directory, value)
        if match.group(1) == "model_checkpoint_path":
            newest = value
        else:
            every.append(value)
    return newest, every


def latest_checkpoint(
    checkpoint_dir: str | os.PathLike, latest_filename: str | None = None
) -> str | None:
    """The newest checkpoint saved in ``checkpoint_dir`` (``model.save_weights`` or
    ``tf.callbacks.ModelCheckpoint(save_weights_only=True)``), as the path prefix
    ``model.load_weights`` takes, or ``None`` when the directory holds none (TF 2's
    ``tf.train.latest_checkpoint``).

    >>> import tempfile
    >>> latest_checkpoint(tempfile.mkdtemp()) is None
    True
    """
    newest, _ = read_checkpoint_state(checkpoint_dir, latest_filename)
    if newest is None:
        return None
    if os.path.isfile(newest + CHECKPOINT_DATA_SUFFIX) or os.path.isfile(newest):
        return newest
    return None
