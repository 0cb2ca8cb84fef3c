"""The hash tables a graph model's ``HashTableV2``/``LookupTableImportV2`` nodes make (the
converter puts their initialization in ``modelInitializer``), held by the model until
``dispose()``: TF.js's ``HashTable`` and ``ResourceManager``."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops as tf
from ..errors import InvalidArgumentError
from ..scopes import keep

__all__ = ["HashTable", "ResourceManager"]


def _key(value: Any) -> Any:
    return (
        value.decode("utf-8", "replace")
        if isinstance(value, bytes)
        else value.item()
        if isinstance(value, np.generic)
        else value
    )


class HashTable:
    """Keys and values, with a scalar handle tensor the graph passes around."""

    def __init__(self, key_dtype: str, value_dtype: str, handle_id: int):
        self.key_dtype = key_dtype
        self.value_dtype = value_dtype
        self.handle = keep(tf.scalar(handle_id, "int32"))
        self.values: dict[Any, Any] = {}

    def size(self) -> Any:
        return tf.scalar(len(self.values), "int32")

    def import_(self, keys: Any, values: Any) -> Any:
        self._check(keys, self.key_dtype, "keys")
        self._check(values, self.value_dtype, "values")
        key_values = keys.data_sync()
        value_values = values.data_sync()
        if len(key_values) != len(value_values):
            raise InvalidArgumentError(
                f"lookup_table_import: {len(key_values)} keys but {len(value_values)} values"
            )
        self.values.clear()
        for k, v in zip(key_values, value_values, strict=True):
            self.values[_key(k)] = _key(v)
        return self.handle

    def find(self, keys: Any, default_value: Any) -> Any:
        self._check(keys, self.key_dtype, "keys")
        default = _key(default_value.data_sync()[0])
        found = [self.values.get(_key(k), default) for k in keys.data_sync()]
        return tf.tensor(found, list(keys.shape), self.value_dtype)

    @staticmethod
    def _check(tensor: Any, dtype: str, what: str) -> None:
        if tensor.dtype != dtype:
            raise InvalidArgumentError(f"Expect {what} dtype to be {dtype}, but got {tensor.dtype}")

    def dispose(self) -> None:
        self.handle.dispose()
        self.values.clear()


class ResourceManager:
    """The model's hash tables, by handle id and by the name of the node that made them."""

    def __init__(self) -> None:
        self.tables: dict[int, HashTable] = {}
        self.by_node_name: dict[str, HashTable] = {}
        self._next_id = 0

    def create(self, node_name: str, key_dtype: str, value_dtype: str) -> HashTable:
        self._next_id += 1
        table = HashTable(key_dtype, value_dtype, self._next_id)
        self.tables[self._next_id] = table
        self.by_node_name[node_name] = table
        return table

    def table_for(self, handle: Any) -> HashTable:
        table = self.tables.get(int(handle.data_sync()[0]))
        if table is None:
            raise InvalidArgumentError("the tensor given as a hash table handle names no table")
        return table

    def dispose(self) -> None:
        for table in self.tables.values():
            table.dispose()
        self.tables.clear()
        self.by_node_name.clear()
