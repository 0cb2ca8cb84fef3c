"""The one op table: every TensorFlow op name TF.js's converter maps (its op lists, category by
category) to the entry that runs it with tidytensor's public ops."""

from __future__ import annotations

from .control_flow import CONTROL
from .op_spec import Spec
from .op_table_array import (
    CREATION,
    EVALUATION,
    GRAPH,
    RAGGED,
    REDUCTION,
    SLICE_JOIN,
    SPECTRAL,
    TRANSFORMATION,
)
from .op_table_dynamic import DYNAMIC, HASH_TABLE, OUTPUT_NAMES, SPARSE, STRING
from .op_table_math import ARITHMETIC, BASIC_MATH, LOGICAL
from .op_table_nn import CONVOLUTION, IMAGE, MATRICES, NORMALIZATION

__all__ = ["CATEGORIES", "OP_TABLE", "OUTPUT_NAMES"]

#: TF.js's converter categories, each with its table.
CATEGORIES: dict[str, dict[str, Spec]] = {
    "arithmetic": ARITHMETIC,
    "basic_math": BASIC_MATH,
    "control": CONTROL,
    "convolution": CONVOLUTION,
    "creation": CREATION,
    "dynamic": DYNAMIC,
    "evaluation": EVALUATION,
    "graph": GRAPH,
    "hash_table": HASH_TABLE,
    "image": IMAGE,
    "logical": LOGICAL,
    "matrices": MATRICES,
    "normalization": NORMALIZATION,
    "ragged": RAGGED,
    "reduction": REDUCTION,
    "slice_join": SLICE_JOIN,
    "sparse": SPARSE,
    "spectral": SPECTRAL,
    "string": STRING,
    "transformation": TRANSFORMATION,
}

#: TensorFlow op name -> its entry.
OP_TABLE: dict[str, Spec] = {
    name: entry for table in CATEGORIES.values() for name, entry in table.items()
}
