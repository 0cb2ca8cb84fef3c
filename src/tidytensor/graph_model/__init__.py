"""``tf.load_graph_model``: TF.js's graph models (TensorFlow graphs converted by
``tensorflowjs_converter``) run with tidytensor's public ops.

Modules: :mod:`.graph` (the GraphDef as nodes, attributes decoded as TF.js's converter does),
:mod:`.op_spec` and the ``op_table*`` modules with :mod:`.control_flow` (the one op table: every
TensorFlow op name TF.js maps, as data), :mod:`.tensor_lists` and :mod:`.hash_table` (the
resources control flow and lookups use), :mod:`.executor` (a topological loop, or the frame loop
for TensorFlow 1 control flow) and :mod:`.model` (``GraphModel``, ``load_graph_model``).

Layer: a client of the public ops and of ``tf.io``; beside the Layers API, which it never
imports (``docs/architecture.md``).
"""

from __future__ import annotations

from .model import GraphModel, TensorInfo, UnsupportedOpError, load_graph_model
from .op_table import CATEGORIES, OP_TABLE

__all__ = [
    "CATEGORIES",
    "OP_TABLE",
    "GraphModel",
    "TensorInfo",
    "UnsupportedOpError",
    "load_graph_model",
]
