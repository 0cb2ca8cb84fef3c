"""``model.summary()``'s table (TF.js's ``utils/layer_utils.ts`` ``printSummary``).

The table has the columns ``Layer (type)``, ``Input Shape``, ``Output shape`` and ``Param #``
(plus ``Receives inputs`` for models that are not a simple chain), then the totals. Shapes are
printed as JSON (``[null,3]``), exactly as TF.js prints them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ...js_strings import js_json
from ..utils import count_params_in_weights

__all__ = ["print_summary"]


def print_summary(
    model: Any,
    line_length: int | None = None,
    positions: list[float] | None = None,
    print_fn: Callable[[str], Any] | None = None,
) -> None:
    """Prints ``model``'s summary, one ``print_fn`` call per line.

    Args:
        model: a built ``LayersModel`` (or any container).
        line_length: total width (default 90 for chains, 115 otherwise).
        positions: right edge of each column, as fractions of ``line_length`` (all ≤ 1) or
            absolute positions.
        print_fn: receives each line (default ``print``).
    """
    print_fn = print_fn if print_fn is not None else print
    sequential_like = _is_sequential_like(model)
    to_display = ["Layer (type)", "Input Shape", "Output shape", "Param #"]
    # As TF.js's `positions || default`: an empty list is kept (no column is then padded).
    if sequential_like:
        line_length = line_length or 90
        positions = list(positions if positions is not None else [0.32, 0.61, 0.89, 1])
    else:
        line_length = line_length or 115
        positions = list(positions if positions is not None else [0.24, 0.48, 0.70, 0.80, 1])
    if positions and positions[-1] <= 1:
        positions = [math.floor(line_length * p) for p in positions]
    positions = [int(p) for p in positions]

    relevant_nodes: list[Any] | None = None
    if not sequential_like:
        to_display.append("Receives inputs")
        relevant_nodes = []
        for depth in sorted(model.nodes_by_depth):
            relevant_nodes.extend(model.nodes_by_depth[depth])

    # TF.js's String.prototype.repeat truncates a fractional line length.
    rule = int(line_length)
    print_fn("_" * rule)
    _print_row(to_display, positions, print_fn)
    print_fn("=" * rule)
    layers = model.layers
    for i, layer in enumerate(layers):
        if sequential_like:
            _print_layer(layer, positions, print_fn)
        else:
            _print_layer_with_connections(layer, positions, relevant_nodes or [], print_fn)
        print_fn(("=" if i == len(layers) - 1 else "_") * rule)

    check = getattr(model, "check_trainable_weights_consistency", None)
    if check is not None:
        check()
    collected = getattr(model, "collected_trainable_weights", None)
    trainable = count_params_in_weights(
        collected if collected is not None else model.trainable_weights
    )
    non_trainable = count_params_in_weights(model.non_trainable_weights)
    print_fn(f"Total params: {trainable + non_trainable}")
    print_fn(f"Trainable params: {trainable}")
    print_fn(f"Non-trainable params: {non_trainable}")
    print_fn("_" * rule)


def _is_sequential_like(model: Any) -> bool:
    nodes: list[Any] = []
    for depth in sorted(model.nodes_by_depth):
        depth_nodes = model.nodes_by_depth[depth]
        if len(depth_nodes) > 1 or (
            len(depth_nodes) == 1 and len(depth_nodes[0].inbound_layers) > 1
        ):
            return False
        nodes.extend(depth_nodes)
    for layer in model.layers:
        found = False
        for node in layer.inbound_nodes:
            if any(node is n for n in nodes):
                if found:
                    return False
                found = True
    return True


def _print_row(fields: list[str], positions: list[int], print_fn: Callable[[str], Any]) -> None:
    line = ""
    for i, field in enumerate(fields):
        if i > 0:
            line = line[:-1] + " "
        line += field
        # A field with no position (fewer positions than columns) runs to its end, unpadded,
        # as in TF.js (where the missing position is undefined).
        if i < len(positions):
            line = line[: positions[i]]
            line += " " * (positions[i] - len(line))
    print_fn(line)


def _shapes(layer: Any) -> tuple[str, str]:
    try:
        input_shape = ",".join(js_json(node.input_shapes) for node in layer.inbound_nodes)
    except Exception:  # noqa: BLE001 - TF.js prints 'multiple' on any failure
        input_shape = "multiple"
    try:
        output_shape = js_json(layer.output_shape)
    except Exception:  # noqa: BLE001
        output_shape = "multiple"
    return input_shape, output_shape


def _print_layer(layer: Any, positions: list[int], print_fn: Callable[[str], Any]) -> None:
    input_shape, output_shape = _shapes(layer)
    fields = [
        f"{layer.name} ({layer.get_class_name()})",
        input_shape,
        output_shape,
        str(layer.count_params()),
    ]
    _print_row(fields, positions, print_fn)


def _print_layer_with_connections(
    layer: Any, positions: list[int], relevant_nodes: list[Any], print_fn: Callable[[str], Any]
) -> None:
    input_shape, output_shape = _shapes(layer)
    connections = []
    for node in layer.inbound_nodes:
        if relevant_nodes and not any(node is n for n in relevant_nodes):
            continue
        for inbound, n_index, t_index in zip(
            node.inbound_layers, node.node_indices, node.tensor_indices, strict=False
        ):
            connections.append(f"{inbound.name}[{n_index}][{t_index}]")
    fields = [
        f"{layer.name} ({layer.get_class_name()})",
        input_shape,
        output_shape,
        str(layer.count_params()),
        connections[0] if connections else "",
    ]
    _print_row(fields, positions, print_fn)
    for connection in connections[1:]:
        _print_row(["", "", "", "", connection], positions, print_fn)
