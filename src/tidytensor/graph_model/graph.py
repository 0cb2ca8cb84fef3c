"""A graph model's ``modelTopology`` (a TensorFlow ``GraphDef`` in JSON) as nodes: each node's
op, its input names, its children, and its attribute values decoded as TF.js's converter
decodes them (``operation_mapper.ts``): strings from base64 and lower-cased unless an op keeps
their case, integers from their decimal strings, dtypes as tidytensor's five, shapes with ``-1``
for unknown sizes, function names for ``If``/``While``.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any

from ..io.errors import ModelFormatError

__all__ = ["Graph", "Node", "build_graph", "decode_dtype", "parse_input_name"]

#: TensorFlow ``DataType`` names as TF.js's converter maps them (``parseDtypeParam``).
_DTYPES = {
    "DT_FLOAT": "float32",
    "DT_HALF": "float32",
    "DT_DOUBLE": "float32",
    "DT_INT32": "int32",
    "DT_INT64": "int32",
    "DT_INT8": "int32",
    "DT_UINT8": "int32",
    "DT_BOOL": "bool",
    "DT_STRING": "string",
    "DT_COMPLEX64": "complex64",
    "DT_COMPLEX128": "complex64",
}
_DTYPE_NUMBERS = {
    1: "DT_FLOAT",
    2: "DT_DOUBLE",
    3: "DT_INT32",
    4: "DT_UINT8",
    6: "DT_INT8",
    7: "DT_STRING",
    8: "DT_COMPLEX64",
    9: "DT_INT64",
    10: "DT_BOOL",
    18: "DT_COMPLEX128",
    19: "DT_HALF",
}


def decode_dtype(value: Any) -> str | None:
    """A TensorFlow ``DataType`` (name or number) as a tidytensor dtype, ``None`` if unmapped."""
    if isinstance(value, int):
        value = _DTYPE_NUMBERS.get(value)
    return _DTYPES.get(value)


def decode_string(value: Any, keep_case: bool) -> str:
    """An attribute string: base64 in model.json (a list of char codes also accepted)."""
    if isinstance(value, list):
        text = "".join(chr(c) for c in value)
    else:
        text = base64.b64decode(value or "").decode("latin-1")
    return text if keep_case else text.lower()


def _number(value: Any) -> Any:
    return value if isinstance(value, (int, float)) else int(value)


def decode_shape(shape: dict[str, Any]) -> list[int] | None:
    if shape.get("unknownRank"):
        return None
    return [_number(d.get("size", 0)) for d in shape.get("dim", [])]


def read_attr(attrs: dict[str, Any], tf_name: str, kind: str, default: Any) -> Any:
    """One attribute by TF.js's rules for ``kind`` (its op lists' attribute types)."""
    attr = attrs.get(tf_name)
    if attr is None:
        return default
    lst = attr.get("list") or {}
    if kind in ("string", "String"):
        return decode_string(attr.get("s"), keep_case=kind == "String") if "s" in attr else default
    if kind in ("string[]", "String[]"):
        keep = kind == "String[]"
        return [decode_string(s, keep) for s in lst["s"]] if lst.get("s") else default
    if kind == "number":
        value = attr["i"] if attr.get("i") is not None else attr.get("f", default)
        return value if isinstance(value, (int, float)) or value is None else int(value)
    if kind == "number[]":
        values = lst.get("f") if lst.get("f") else lst.get("i")
        return [_number(v) for v in values or []]
    if kind == "bool":
        return bool(attr.get("b", False))
    if kind == "bool[]":
        return list(lst.get("b", default))
    if kind == "dtype":
        return decode_dtype(attr["type"]) if attr.get("type") is not None else default
    if kind == "dtype[]":
        return [decode_dtype(t) for t in lst["type"]] if lst.get("type") else default
    if kind == "shape":
        return decode_shape(attr["shape"]) if attr.get("shape") is not None else default
    if kind == "shape[]":
        return [decode_shape(s) for s in lst["shape"]] if lst.get("shape") else default
    if kind == "func":
        return attr["func"]["name"] if attr.get("func") else default
    raise ValueError(f"unknown attribute kind {kind!r}")


def parse_input_name(name: str) -> tuple[str, int, str | None]:
    """``'node'``, ``'node:1'`` or a function body's ``'node:output:1'`` as (node, index,
    output name)."""
    parts = name.split(":")
    if len(parts) == 1:
        return name, 0, None
    return parts[0], int(parts[-1]), parts[1] if len(parts) == 3 else None


@dataclass(eq=False)
class Node:
    """One GraphDef node."""

    name: str
    op: str
    input_names: list[str]
    attrs: dict[str, Any]
    control_inputs: list[str] = field(default_factory=list)
    inputs: list[Node] = field(default_factory=list)
    children: list[Node] = field(default_factory=list)
    signature_key: str | None = None
    default_output: int = 0

    def attr(self, tf_name: str, kind: str, default: Any = None) -> Any:
        return read_attr(self.attrs, tf_name, kind, default)


@dataclass(eq=False)
class Graph:
    """Nodes by name, the graph's inputs and outputs, and its functions (``library``)."""

    nodes: dict[str, Node]
    inputs: list[Node]
    outputs: list[Node]
    weights: list[Node]
    init_nodes: list[Node]
    signature: dict[str, Any] | None
    functions: dict[str, Graph] = field(default_factory=dict)
    #: a function's inputs in order (their placeholder names) and its outputs' tensor names
    arg_names: list[str] = field(default_factory=list)
    ret_names: list[str] = field(default_factory=list)


def _make_node(raw: dict[str, Any], source: str) -> Node:
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str) or "op" not in raw:
        raise ModelFormatError(f"{source}: a graph node needs 'name' and 'op', got {raw!r:.120}")
    names = [str(n) for n in raw.get("input", [])]
    return Node(
        name=raw["name"],
        op=str(raw["op"]),
        input_names=[n for n in names if not n.startswith("^")],
        control_inputs=[n[1:] for n in names if n.startswith("^")],
        attrs=raw.get("attr") or {},
    )


def _link(nodes: dict[str, Node], source: str, output_names: dict[str, list[str]]) -> None:
    for node in nodes.values():
        resolved = []
        for name in node.input_names:
            node_name, index, out_name = parse_input_name(name)
            parent = nodes.get(node_name)
            if parent is None:
                raise ModelFormatError(
                    f"{source}: node {node.name!r} ({node.op}) reads {name!r}, which is not a "
                    "node of the graph"
                )
            outs = output_names.get(parent.op)
            if out_name is not None and outs and out_name in outs:
                index = outs.index(out_name)
            resolved.append(f"{node_name}:{index}")
            node.inputs.append(parent)
            parent.children.append(node)
        node.input_names = resolved
        for name in node.control_inputs:
            parent = nodes.get(name)
            if parent is not None:
                node.inputs.append(parent)
                parent.children.append(node)


def _signature_nodes(nodes: dict[str, Node], entries: dict[str, Any] | None) -> list[Node] | None:
    """The nodes a signature's inputs or outputs name, each given its signature key; ``None``
    without a signature."""
    by_name = {info["name"]: key for key, info in (entries or {}).items() if "name" in info}
    if not by_name:
        return None
    found = []
    for tensor_name, key in by_name.items():
        node = nodes.get(parse_input_name(tensor_name)[0])
        if node is not None:
            node.signature_key = key
            found.append(node)
    return found


def build_graph(
    topology: dict[str, Any],
    signature: dict[str, Any] | None,
    source: str,
    output_names: dict[str, list[str]],
) -> Graph:
    """The graph of a GraphDef and its functions; ``output_names`` lists, for the ops whose
    outputs a function body names (``StringSplit``: indices, values, shape), those names."""
    raw_nodes = topology.get("node")
    if not isinstance(raw_nodes, list):
        raise ModelFormatError(f"{source}: a graph model's topology needs a 'node' list")
    nodes: dict[str, Node] = {}
    placeholders, weights, init_nodes = [], [], []
    for raw in raw_nodes:
        node = _make_node(raw, source)
        nodes[node.name] = node
        if node.op.startswith("Placeholder"):
            placeholders.append(node)
        elif node.op == "Const":
            weights.append(node)
        elif not node.input_names and not node.control_inputs:
            init_nodes.append(node)
    _link(nodes, source, output_names)
    outputs = _signature_nodes(nodes, (signature or {}).get("outputs"))
    if outputs is None:
        outputs = [n for n in nodes.values() if not n.children]
    inputs = _signature_nodes(nodes, (signature or {}).get("inputs"))
    if inputs is None:
        inputs = placeholders
    functions = {}
    for raw_fn in (topology.get("library") or {}).get("function") or []:
        fn = build_function(raw_fn, source, output_names)
        functions[raw_fn["signature"]["name"]] = fn
    return Graph(nodes, inputs, outputs, weights, init_nodes, signature, functions)


def build_function(raw: dict[str, Any], source: str, output_names: dict[str, list[str]]) -> Graph:
    """A ``library.function`` entry (the body of an ``If`` branch or a ``While`` loop)."""
    sig = raw.get("signature") or {}
    where = f"{source} (function {sig.get('name')!r})"
    nodes: dict[str, Node] = {}
    weights = []
    for raw_node in raw.get("nodeDef") or []:
        node = _make_node(raw_node, where)
        nodes[node.name] = node
        if node.op == "Const":
            weights.append(node)
    inputs = []
    for arg in sig.get("inputArg") or []:
        name = parse_input_name(arg["name"])[0]
        dtype_attr = {"dtype": {"type": arg.get("type")}} if arg.get("type") else {}
        node = Node(name=name, op="Placeholder", input_names=[], attrs=dtype_attr)
        node.signature_key = arg["name"]
        nodes[name] = node
        inputs.append(node)
    _link(nodes, where, output_names)
    ret = raw.get("ret") or {}
    outputs, ret_names = [], []
    for arg in sig.get("outputArg") or []:
        tensor_name = ret.get(arg["name"])
        if tensor_name is None:
            raise ModelFormatError(f"{where}: output {arg['name']!r} has no 'ret' entry")
        node_name, index, out_name = parse_input_name(tensor_name)
        node = nodes.get(node_name)
        if node is None:
            raise ModelFormatError(f"{where}: output {arg['name']!r} names no node")
        outs = output_names.get(node.op)
        if out_name is not None and outs and out_name in outs:
            index = outs.index(out_name)
        node.default_output = index
        outputs.append(node)
        ret_names.append(f"{node_name}:{index}")
    return Graph(
        nodes,
        inputs,
        outputs,
        weights,
        [],
        None,
        arg_names=[n.name for n in inputs],
        ret_names=ret_names,
    )
