"""Running a graph of layers on concrete tensors (TF.js's ``engine/executor.ts``).

:func:`execute` computes the requested symbolic tensors from a :class:`FeedDict` that maps
input symbolic tensors to ``tf.Tensor`` values. It visits the graph in topological order
(cached per fetch/feed combination) and, outside training, frees each intermediate tensor as
soon as its last consumer has run, so peak memory stays low.

>>> import tidytensor.layers as layers
>>> x = layers.input(shape=[2])
>>> y = layers.dense(units=1, kernel_initializer='ones').apply(x)
>>> execute(y, FeedDict([(x, tf.tensor2d([[1, 2]]))])).array_sync()
[[3.0]]
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from ... import ops
from ...runtime import memory
from ...scopes import dispose
from ...tensor import Tensor
from ..errors import LayersValueError
from ..utils import to_list
from . import state
from .input_layer import InputLayer
from .topology import SymbolicTensor

__all__ = ["FeedDict", "execute"]


class FeedDict:
    """Values (and optional masks) for symbolic tensors, looked up by tensor or by name.

    Args:
        feeds: a list of ``(symbolic_tensor, tensor)`` pairs or ``{'key':, 'value':}``
            dicts, or another ``FeedDict`` to copy.
    """

    def __init__(self, feeds: Any = None):
        self._id_to_value: dict[int, Tensor] = {}
        self._id_to_mask: dict[int, Tensor] = {}
        self._name_to_id: dict[str, int] = {}
        if isinstance(feeds, FeedDict):
            self._id_to_value = dict(feeds._id_to_value)
            self._id_to_mask = dict(feeds._id_to_mask)
            self._name_to_id = dict(feeds._name_to_id)
        elif feeds is not None:
            for feed in feeds:
                if isinstance(feed, dict):
                    self.add(feed["key"], feed["value"])
                else:
                    self.add(*feed)

    def add(self, key: SymbolicTensor, value: Tensor, mask: Tensor | None = None) -> FeedDict:
        """Feeds ``value`` for ``key`` (cast to ``key``'s dtype if needed)."""
        if key.id in self._id_to_value:
            raise LayersValueError(f"Duplicate key: name={key.name}, id={key.id}")
        self._id_to_value[key.id] = _assert_feed_compatibility(key, value)
        self._name_to_id[key.name] = key.id
        if mask is not None:
            self._id_to_mask[key.id] = mask
        return self

    def add_feed(self, feed: dict[str, Any]) -> None:
        self.add(feed["key"], feed["value"])

    def has_key(self, key: SymbolicTensor) -> bool:
        return key.id in self._id_to_value

    def names(self) -> list[str]:
        return list(self._name_to_id)

    def _id(self, key: SymbolicTensor | str) -> int:
        if isinstance(key, SymbolicTensor):
            if key.id not in self._id_to_value:
                raise LayersValueError(f"Nonexistent key: {key.name}")
            return key.id
        if key not in self._name_to_id:
            raise LayersValueError(f"Feed dict has no SymbolicTensor name: {key}")
        return self._name_to_id[key]

    def get_value(self, key: SymbolicTensor | str) -> Tensor:
        return self._id_to_value[self._id(key)]

    def get_mask(self, key: SymbolicTensor | str) -> Tensor | None:
        return self._id_to_mask.get(self._id(key))

    def dispose_masks(self) -> None:
        dispose(list(self._id_to_mask.values()))


def _assert_feed_compatibility(key: SymbolicTensor, value: Any) -> Tensor:
    if not isinstance(value, Tensor):
        raise LayersValueError(
            f"The value fed for '{key.name}' must be a Tensor, but got {type(value).__name__}"
        )
    if key.dtype is None or key.dtype == value.dtype:
        return value
    try:
        return ops.cast(value, key.dtype)
    except Exception as err:
        raise LayersValueError(
            f"The dtype of the feed ({value.dtype}) can not be cast to the dtype of the key "
            f"'{key.name}' ({key.dtype})."
        ) from err


class _LruCache:
    def __init__(self, max_entries: int = 100):
        self.max_entries = max_entries
        self._entries: OrderedDict[Any, Any] = OrderedDict()

    def get(self, key: Any) -> Any:
        if key not in self._entries:
            return None
        self._entries.move_to_end(key)
        return self._entries[key]

    def put(self, key: Any, value: Any) -> None:
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)

    def clear(self) -> None:
        self._entries.clear()


#: Topological orders and recipient counts, keyed by the fetches and feeds (objects kept in
#: the value are compared by identity, so a recycled ``id`` never matches).
_sorted_cache = _LruCache()
state.on_reset(_sorted_cache.clear)


def update_cache_max_entries(max_entries: int) -> None:
    _sorted_cache.max_entries = max_entries


def execute(
    fetches: SymbolicTensor | list[SymbolicTensor],
    feed_dict: FeedDict,
    kwargs: dict[str, Any] | None = None,
    probe: dict[str, float] | None = None,
) -> Any:
    """Computes ``fetches`` from ``feed_dict``.

    Args:
        fetches: the symbolic tensor(s) to compute.
        feed_dict: values for the graph's inputs (or any intermediate tensors).
        kwargs: call arguments for every layer (``{'training': True}`` keeps intermediate
            tensors alive for the gradient tape).
        probe: if a dict, receives ``max_num_tensors`` / ``min_num_tensors`` seen while running.

    Returns:
        A tensor, or a list when ``fetches`` is a list.
    """
    training = bool(kwargs.get("training")) if kwargs else False
    array_fetches = isinstance(fetches, (list, tuple))
    fetch_list: list[SymbolicTensor] = list(fetches) if array_fetches else [fetches]
    output_names = [t.name for t in fetch_list]
    feed_names = feed_dict.names()
    final_outputs: list[Any] = [
        feed_dict.get_value(name) if name in feed_names else None for name in output_names
    ]
    if probe is not None:
        probe["max_num_tensors"] = float("-inf")
        probe["min_num_tensors"] = float("inf")

    key = (tuple(t.id for t in fetch_list), tuple(sorted(feed_dict._id_to_value)))
    cached = _sorted_cache.get(key)
    if cached is None or any(a is not b for a, b in zip(cached[0], fetch_list, strict=False)):
        sorted_tensors, recipient_counts = _topological_sort_and_recipient_counts(
            fetch_list, feed_dict
        )
        _sorted_cache.put(key, (fetch_list, sorted_tensors, recipient_counts))
    else:
        sorted_tensors, recipient_counts = cached[1], cached[2]
    counts = {} if training else dict(recipient_counts)

    internal = FeedDict(feed_dict)
    for symbolic in sorted_tensors:
        if probe is not None:
            n = memory().num_tensors
            probe["max_num_tensors"] = max(probe["max_num_tensors"], n)
            probe["min_num_tensors"] = min(probe["min_num_tensors"], n)
        layer = symbolic.source_layer
        if isinstance(layer, InputLayer):
            continue
        input_values: list[Tensor] = []
        input_masks: list[Any] = []
        to_dispose: list[Tensor] = []
        mask_exists = False
        for inp in symbolic.inputs:
            value = internal.get_value(inp)
            mask = internal.get_mask(inp)
            input_values.append(value)
            input_masks.append(mask)
            if mask is not None:
                mask_exists = True
            if not training:
                counts[inp.name] -= 1
                if (
                    counts[inp.name] == 0
                    and not feed_dict.has_key(inp)
                    and inp.name not in output_names
                    and not value.is_disposed
                    and inp.source_layer.stateful is not True
                ):
                    to_dispose.append(value)
        layer_kwargs = dict(kwargs or {})
        if mask_exists:
            layer_kwargs["mask"] = input_masks[0]
        output_tensors = to_list(layer.apply(input_values, layer_kwargs))
        output_mask: Any = None
        if layer.supports_masking:
            output_mask = layer.compute_mask(input_values, input_masks)
        layer_outputs = to_list(_node_outputs(symbolic))
        for i, out_symbolic in enumerate(layer_outputs):
            if not internal.has_key(out_symbolic):
                mask = output_mask[0] if isinstance(output_mask, list) else output_mask
                internal.add(out_symbolic, output_tensors[i], mask)
            if out_symbolic.name in output_names:
                final_outputs[output_names.index(out_symbolic.name)] = output_tensors[i]
        if not training:
            dispose(to_dispose)
    internal.dispose_masks()
    return final_outputs if array_fetches else final_outputs[0]


def _topological_sort_and_recipient_counts(
    fetches: list[SymbolicTensor], feed_dict: FeedDict
) -> tuple[list[SymbolicTensor], dict[str, int]]:
    if not fetches:
        raise LayersValueError("Expected at least one fetch, got none")
    final_sorted: list[SymbolicTensor] = []
    final_recipients: dict[str, set[str]] = {}
    visited: set[str] = set()
    for fetch in fetches:
        sorted_one, recipients = _sort_one_fetch(fetch, feed_dict)
        for t in sorted_one:
            if t.name not in visited:
                final_sorted.append(t)
                visited.add(t.name)
        for name, rs in recipients.items():
            final_recipients.setdefault(name, set()).update(rs)
    return final_sorted, {name: len(rs) for name, rs in final_recipients.items()}


def _sort_one_fetch(
    fetch: SymbolicTensor, feed_dict: FeedDict
) -> tuple[list[SymbolicTensor], dict[str, set[str]]]:
    visited = set(feed_dict.names())
    sorted_tensors: list[SymbolicTensor] = []
    recipients: dict[str, set[str]] = {}
    stack = [fetch]
    marks: list[int] = []
    while stack:
        top = stack[-1]
        if top.name in visited:
            stack.pop()
            continue
        top_is_marked = bool(marks) and marks[-1] == len(stack) - 1
        if not top.inputs or top_is_marked:
            stack.pop()
            sorted_tensors.append(top)
            visited.add(top.name)
            if top_is_marked:
                marks.pop()
        else:
            marks.append(len(stack) - 1)
            for inp in top.inputs:
                recipients.setdefault(inp.name, set()).add(top.name)
                if inp.name in visited:
                    continue
                stack.append(inp)
    return sorted_tensors, recipients


def _node_outputs(fetch: SymbolicTensor) -> Any:
    layer = fetch.source_layer
    if len(layer.inbound_nodes) == 1:
        return layer.output
    node_index = None
    for i, node in enumerate(layer.inbound_nodes):
        if any(out.id == fetch.id for out in node.output_tensors):
            node_index = i
            break
    return layer.get_output_at(node_index)
