"""Runs a graph: TF.js's ``GraphExecutor`` semantics with tidytensor's public ops.

A graph without TensorFlow 1 control flow runs as a plain loop over its nodes in topological
order (planned once per set of inputs and outputs, so a compiled step can run it as it is);
each intermediate tensor is freed as soon as the last node reading it has run. A graph with
TensorFlow 1 frames (``Enter``/``Merge``/``Switch``/``NextIteration``/``Exit``) runs in the
frame loop: nodes become ready as their inputs appear in the current frame and iteration, each
value freed once all its consumers ran, as TF.js's ``executeWithControlFlow`` does. Either way
the caller owns the outputs; weights and inputs are never freed here.
"""

from __future__ import annotations

from typing import Any

from ..errors import InvalidArgumentError, TidyTensorError
from ..scopes import tidy
from .control_flow import CONTROL, V1_CONTROL_FLOW_OPS
from .graph import Graph, Node, parse_input_name, read_attr
from .hash_table import ResourceManager
from .op_spec import Params, Spec
from .op_table import OP_TABLE

__all__ = ["ExecutionContext", "GraphExecutor"]


def _as_list(result: Any) -> list[Any]:
    if result is None:
        return []
    if isinstance(result, (list, tuple)):
        return list(result)
    return [result]


_NOT_STATIC = object()


def _values(tensor: Any, kind: str) -> Any:
    """TF.js's number and number[] inputs: the first value, or the nested values."""
    if kind == "number":
        return tensor.data_sync()[0].item()
    return tensor.array_sync()


class ExecutionContext:
    """One execution's state: frames (TensorFlow 1 loops), tensor arrays and lists by their
    handle's id, the graph's functions and the model's hash tables."""

    def __init__(self, functions: dict[str, GraphExecutor], resources: ResourceManager):
        self.functions = functions
        self.resources = resources
        self.tensor_arrays: dict[int, Any] = {}
        self.tensor_lists: dict[int, Any] = {}
        self._last_id = 0
        self.frames: list[tuple[int, str, int]] = [(0, "", 0)]
        self.context_ids = [""]

    # ------------------------------------------------------------------------- frames
    @staticmethod
    def _frame_id(frames: list[tuple[int, str, int]]) -> str:
        return "/".join(
            "" if (fid == 0 and it == 0) else f"{name}-{it}" for fid, name, it in frames
        )

    def set_frames(self, frames: list[tuple[int, str, int]]) -> None:
        if frames is self.frames:
            return
        self.frames = frames
        ids = [self._frame_id(frames[: len(frames) - i]) for i in range(len(frames) - 1)]
        self.context_ids = [*ids, ""]

    def enter_frame(self, name: str) -> None:
        self._last_id += 1
        self.frames = [*self.frames, (self._last_id, name, 0)]
        self.context_ids = [self._frame_id(self.frames), *self.context_ids]

    def exit_frame(self) -> None:
        if len(self.frames) <= 1:
            raise InvalidArgumentError("Cannot exit frame, the context is empty")
        self.frames = self.frames[:-1]
        self.context_ids = self.context_ids[1:]

    def next_iteration(self) -> None:
        self._last_id += 1
        _, name, iteration = self.frames[-1]
        self.frames = [*self.frames[:-1], (self._last_id, name, iteration + 1)]
        self.context_ids = [self._frame_id(self.frames), *self.context_ids[1:]]

    def key(self, node_name: str) -> str:
        return f"{node_name}-{self.context_ids[0]}" if self.context_ids[0] else node_name

    # -------------------------------------------------------------------- functions
    def call_function(self, name: str, args: list[Any]) -> list[Any]:
        executor = self.functions.get(name)
        if executor is None:
            raise InvalidArgumentError(f"the graph has no function named {name!r}")
        return executor.execute_function(args, self)

    def dispose(self, keep_ids: set[int]) -> None:
        """Frees the tensor arrays and lists this execution made (not the outputs)."""
        for container in [*self.tensor_arrays.values(), *self.tensor_lists.values()]:
            container.clear_and_close(keep_ids)
        self.tensor_arrays.clear()
        self.tensor_lists.clear()


class GraphExecutor:
    """Executes one graph (the model's, its initializer's, or a function body)."""

    def __init__(
        self,
        graph: Graph,
        weights: dict[str, list[Any]],
        resources: ResourceManager,
        functions: dict[str, GraphExecutor] | None = None,
    ):
        self.graph = graph
        self.weights = weights
        self.resources = resources
        self.functions = functions if functions is not None else {}
        self.has_frames = any(n.op in V1_CONTROL_FLOW_OPS for n in graph.nodes.values())
        self._plans: dict[tuple[tuple[str, ...], tuple[str, ...]], Any] = {}
        self._weight_values = self._read_weight_params()

    def _read_weight_params(self) -> dict[tuple[str, str], Any]:
        """The number and number[] parameters that weights (the graph's constants) give,
        read once at load: they never change, and a step compiled with ``tf.function`` must
        not read values back to Python while it runs."""
        found: dict[tuple[str, str], Any] = {}
        for node in self.graph.nodes.values():
            entry = OP_TABLE.get(node.op)
            if entry is None:
                continue
            names = node.input_names
            for param in entry.inputs:
                if param.kind not in ("number", "number[]"):
                    continue
                start = param.start if param.start >= 0 else len(names) + param.start
                if not 0 <= start < len(names):
                    continue
                node_name, index, _ = parse_input_name(names[start])
                weight = self.weights.get(node_name)
                if weight is not None and index < len(weight):
                    found[(names[start], param.kind)] = _values(weight[index], param.kind)
        return found

    # ------------------------------------------------------------------- one node
    def _lookup(self, name: str, tensors: dict[str, list[Any]], context: ExecutionContext) -> Any:
        node_name, index, _ = parse_input_name(name)
        table = self.resources.by_node_name.get(node_name)
        if table is not None:
            return table.handle
        for cid in context.context_ids:
            found = tensors.get(f"{node_name}-{cid}" if cid else node_name)
            if found is not None:
                return found[index] if index < len(found) else None
        return None

    def _params(
        self, node: Node, entry: Spec, tensors: dict[str, list[Any]], context: ExecutionContext
    ) -> Params:
        values: dict[str, Any] = {}
        names = node.input_names
        for param in entry.inputs:
            start = param.start if param.start >= 0 else len(names) + param.start
            if param.kind == "tensors":
                end = (
                    len(names)
                    if param.end is None
                    else (param.end if param.end >= 0 else len(names) + param.end)
                )
                values[param.name] = [self._lookup(n, tensors, context) for n in names[start:end]]
                continue
            if start >= len(names):
                values[param.name] = None
                continue
            static = self._weight_values.get((names[start], param.kind), _NOT_STATIC)
            if static is not _NOT_STATIC and not context.context_ids[0]:
                values[param.name] = static
                continue
            tensor = self._lookup(names[start], tensors, context)
            values[param.name] = (
                tensor if param.kind == "tensor" or tensor is None else _values(tensor, param.kind)
            )
        for attr in entry.attrs:
            values[attr.name] = read_attr(node.attrs, attr.tf_name, attr.kind, attr.default)
        return Params(values, node)

    def run_node(
        self, node: Node, tensors: dict[str, list[Any]], context: ExecutionContext
    ) -> list[Any]:
        entry = OP_TABLE[node.op]
        if node.op == "HashTable" or node.op == "HashTableV2":
            existing = self.resources.by_node_name.get(node.name)
            if existing is not None:
                return [existing.handle]
        params = self._params(node, entry, tensors, context)
        try:
            result = entry.run(params, context) if entry.with_context else entry.run(params)
        except TidyTensorError as exc:
            where = f"graph node {node.name!r} ({node.op})"
            if str(exc).startswith("graph node "):
                raise
            try:
                renamed = type(exc)(f"{where}: {exc}")
            except TypeError:  # an error class with other arguments: keep it, add a note
                exc.add_note(f"in {where}")
                raise
            raise renamed from exc
        return _as_list(result)

    # ------------------------------------------------------------- planning (static)
    def plan(self, fed: tuple[str, ...], outputs: tuple[str, ...]) -> Any:
        """The nodes that compute ``outputs`` from ``fed`` and the weights, in topological
        order, and for each position the nodes whose values die there."""
        key = (fed, outputs)
        if key in self._plans:
            return self._plans[key]
        nodes = self.graph.nodes
        have = set(fed) | set(self.weights)
        needed: dict[str, Node] = {}
        missing = []
        stack = [nodes[parse_input_name(o)[0]] for o in outputs]
        while stack:
            node = stack.pop()
            if node.name in needed:
                continue
            needed[node.name] = node
            if node.name in have:
                continue
            if node.op == "Placeholder" or (node.op == "Const" and node.name not in have):
                missing.append(node.name)
                continue
            stack.extend(node.inputs)
        if missing:
            raise InvalidArgumentError(
                f"Cannot compute the outputs [{', '.join(outputs)}] from the provided inputs "
                f"[{', '.join(fed)}]. Missing the following inputs: [{', '.join(sorted(missing))}]"
            )
        order: list[Node] = []
        state: dict[str, int] = {}
        for root in needed.values():
            work = [(root, False)]
            while work:
                node, done = work.pop()
                if done:
                    state[node.name] = 2
                    order.append(node)
                    continue
                if state.get(node.name):
                    continue
                state[node.name] = 1
                work.append((node, True))
                if node.name not in have:
                    work.extend((i, False) for i in node.inputs if not state.get(i.name))
        position = {n.name: i for i, n in enumerate(order)}
        last_use: dict[str, int] = {}
        for node in order:
            if node.name in have:
                continue
            for parent in node.inputs:
                last_use[parent.name] = max(last_use.get(parent.name, -1), position[node.name])
        output_names = {parse_input_name(o)[0] for o in outputs}
        dies: list[list[str]] = [[] for _ in order]
        for name, at in last_use.items():
            if name not in output_names and name not in have:
                dies[at].append(name)
        plan = (order, dies)
        self._plans[key] = plan
        return plan

    def _run_static(
        self, feeds: dict[str, list[Any]], outputs: list[str], context: ExecutionContext
    ) -> dict[str, list[Any]]:
        order, dies = self.plan(tuple(sorted(feeds)), tuple(outputs))
        tensors: dict[str, list[Any]] = {**self.weights, **feeds}
        frozen = {t.id for ts in tensors.values() for t in ts if t is not None}
        for node, dead in zip(order, dies, strict=True):
            if node.name in tensors:
                continue
            produced = self.run_node(node, tensors, context)
            tensors[node.name] = produced
            live = {t.id for t in produced if t is not None}
            for name in dead:
                for t in tensors.get(name, ()):
                    if t is not None and not t.kept and t.id not in frozen and t.id not in live:
                        t.dispose()
        return tensors

    # ------------------------------------------------------------ the frame loop (v1)
    def _used_nodes(self, outputs: list[str], fed: set[str]) -> set[str]:
        used: set[str] = set()
        stack = [self.graph.nodes[parse_input_name(o)[0]] for o in outputs]
        while stack:
            node = stack.pop()
            if node.name in used:
                continue
            used.add(node.name)
            if node.name in fed or node.name in self.weights:
                continue
            stack.extend(node.inputs)
        return used

    def _ready(self, child: Node, tensors: dict[str, list[Any]], context: ExecutionContext) -> bool:
        present = [self._lookup(n, tensors, context) is not None for n in child.input_names]
        controls = all(
            any((f"{c}-{cid}" if cid else c) in tensors for cid in context.context_ids)
            for c in child.control_inputs
        )
        if child.op == "Merge":
            return any(present)
        return all(present) and controls

    def _run_frames(
        self, feeds: dict[str, list[Any]], outputs: list[str], context: ExecutionContext
    ) -> dict[str, list[Any]]:
        tensors: dict[str, list[Any]] = {**self.weights, **feeds}
        frozen = {t.id for ts in tensors.values() for t in ts if t is not None}
        used = self._used_nodes(outputs, set(feeds))
        output_names = {parse_input_name(o)[0] for o in outputs}
        nodes = self.graph.nodes
        starts = [nodes[n] for n in feeds] + [nodes[n] for n in self.weights if n in nodes]
        starts += [n for n in self.graph.init_nodes if n.name in used]
        root = context.frames
        stack = [(root, node) for node in starts]
        added: set[str] = set()
        consumers: dict[int, int] = {}
        while stack:
            frames, node = stack.pop()
            context.set_frames(frames)
            key = ""
            if node.op == "Enter" and read_attr(node.attrs, "is_constant", "bool", False):
                key = context.key(node.name)
            if node.name not in tensors:
                produced = self.run_node(node, tensors, context)
                key = key or context.key(node.name)
                tensors[key] = produced
                self._free_consumed(node, key, tensors, context, frozen, output_names, consumers)
            for child in node.children:
                child_key = context.key(child.name)
                if child_key in added or child.name not in used:
                    continue
                if self._ready(child, tensors, context):
                    added.add(child_key)
                    stack.append((context.frames, child))
        context.set_frames(root)
        return tensors

    def _free_consumed(
        self,
        node: Node,
        key: str,
        tensors: dict[str, list[Any]],
        context: ExecutionContext,
        frozen: set[int],
        output_names: set[str],
        consumers: dict[int, int],
    ) -> None:
        if node.op in CONTROL or node.name in output_names:
            return
        for t in tensors[key]:
            if t is not None:
                consumers[t.id] = consumers.get(t.id, 0) + len(node.children)
        for parent in node.inputs:
            if parent.op in CONTROL:
                continue
            for t in tensors.get(context.key(parent.name)) or ():
                if t is None or t.kept or t.id in frozen:
                    continue
                count = consumers.get(t.id)
                if count == 1:
                    t.dispose()
                    del consumers[t.id]
                elif count is not None:
                    consumers[t.id] = count - 1

    # ---------------------------------------------------------------------- entry points
    def _collect(
        self, tensors: dict[str, list[Any]], outputs: list[str], context: ExecutionContext
    ) -> list[Any]:
        results = []
        for name in outputs:
            value = self._lookup(name, tensors, context)
            if value is None:
                raise InvalidArgumentError(
                    f"Cannot compute the output {name!r}: the graph did not produce it from the "
                    "provided inputs"
                )
            results.append(value)
        return results

    def _run(
        self, feeds: dict[str, list[Any]], outputs: list[str], context: ExecutionContext
    ) -> tuple[dict[str, list[Any]], list[Any]]:
        run = self._run_frames if self.has_frames else self._run_static
        tensors = run(feeds, outputs, context)
        return tensors, self._collect(tensors, outputs, context)

    def execute(self, feeds: dict[str, Any], outputs: list[str]) -> list[Any]:
        """Runs the graph: ``feeds`` by node name (``'x'`` or ``'x:0'``), ``outputs`` as tensor
        names; the caller owns the results."""
        by_node: dict[str, list[Any]] = {}
        for name, tensor in feeds.items():
            node_name, index, _ = parse_input_name(name)
            slots = by_node.setdefault(node_name, [])
            slots.extend([None] * (index + 1 - len(slots)))
            slots[index] = tensor
        context = ExecutionContext(self.functions, self.resources)
        # No outputs asked for: the graph's own outputs run, and nothing is returned (how an
        # initializer without a signature fills its hash tables).
        targets = outputs or [node.name for node in self.graph.outputs]

        def body() -> list[Any]:
            tensors, results = self._run(by_node, targets, context)
            results = results if outputs else []
            keep_ids = {t.id for t in results}
            keep_ids |= {t.id for ts in by_node.values() for t in ts if t is not None}
            keep_ids |= {t.id for ts in self.weights.values() for t in ts}
            context.dispose(keep_ids)
            if self.has_frames:
                for ts in tensors.values():
                    for t in ts:
                        if (
                            t is not None
                            and not t.is_disposed
                            and t.id not in keep_ids
                            and not t.kept
                        ):
                            t.dispose()
            return results

        return tidy(body)

    def execute_function(self, args: list[Any], context: ExecutionContext) -> list[Any]:
        """A function body called by ``If``/``While`` with ``args`` in its input order; it
        shares the caller's tensor arrays and lists."""
        if len(args) != len(self.graph.arg_names):
            raise InvalidArgumentError(
                f"function {self.graph.signature or ''}takes {len(self.graph.arg_names)} "
                f"arguments, got {len(args)}"
            )
        feeds = {name: [t] for name, t in zip(self.graph.arg_names, args, strict=True)}
        saved = (context.frames, context.context_ids)
        inner = ExecutionContext(context.functions, context.resources)
        inner.tensor_arrays = context.tensor_arrays
        inner.tensor_lists = context.tensor_lists
        tensors, results = self._run(feeds, self.graph.ret_names, inner)
        keep_ids = {t.id for t in results} | {t.id for t in args if t is not None}
        keep_ids |= {t.id for ts in self.weights.values() for t in ts}
        for ts in tensors.values():
            for t in ts:
                if t is not None and not t.is_disposed and t.id not in keep_ids and not t.kept:
                    t.dispose()
        context.frames, context.context_ids = saved
        return results
